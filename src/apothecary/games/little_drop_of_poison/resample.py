"""Resampling: redeal every card a seat has not seen, consistently with what it saw.

What a seat knows about the cards, per assassination round: the deck it starts
from (the whole deck), the discard pile at each refill (every discarded card
was revealed), its own deals, and for every other seat how many cards it was
dealt when, and which cards it played in each revealed poison round (and the
hand of a killed player). Not known: which deal gave another seat which card,
its hand, its face-down play of the current poison round, the deck's order.

So per assassination round and per *epoch* (the deck between two refills) the
unseen cards are a known multiset. Each card another seat is known to have
played must have been dealt to it in some epoch no later than the poison round
it was played in; a small search picks an epoch for each such card (it only
has a choice when the deck was refilled) and a random deal slot; the other
unseen cards are shuffled into the remaining slots of their epoch, the rest
stay in the deck. Then the history's deal and card actions are rewritten
accordingly (:func:`redeal`), and the rules replay the result
(``LittleDropOfPoisonState.resample_from_infostate``), so it is a real
position. This module reads only the log's entries and the history: it
imports the shared facts, never the rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from apothecary.games.little_drop_of_poison.facts import (
    ACTION_ENTRIES,
    E_CARD,
    E_DEAL,
    E_KING,
    E_REFILL,
    E_REVEAL,
)

_SEARCH_BUDGET = 20_000


class _Round:
    """The card facts of one assassination round, from one seat's point of view."""

    def __init__(self, num_types: int, start: tuple[int, ...]) -> None:
        self.compositions: list[list[int]] = [list(start)]
        self.mine: list[list[int]] = [[0] * num_types]
        # Deal slots of other seats: (history index, seat, poison round, epoch).
        self.slots: list[tuple[int, int, int, int]] = []
        # Known cards other seats played or were killed holding: (seat, deadline, type).
        self.required: list[tuple[int, int, int]] = []
        # Card actions of other seats: (history index, seat, poison round).
        self.card_actions: list[tuple[int, int, int]] = []
        # Revealed plays of other seats: (seat, poison round) -> cards per type.
        self.revealed: dict[tuple[int, int], tuple[int, ...]] = {}


class KnownCards:
    """What one seat knows of a position's cards, read from its log once: a
    search draws many worlds from one position, and this part needs no
    randomness.

    ``entries`` is the position's log in order, ``history`` its actions;
    ``assassination_rounds`` is how many assassination rounds have begun (the
    last may not have drawn its king yet).
    """

    def __init__(
        self,
        entries: Sequence[tuple[int, int, Any]],
        history: Sequence[int],
        player: int,
        num_types: int,
        start_counts: tuple[int, ...],
        assassination_rounds: int,
    ) -> None:
        t = num_types
        self.num_types = num_types
        self.player = player
        self.history = history
        self.entries = entries
        self.rounds: list[_Round] = []
        rounds = self.rounds
        current: _Round | None = None
        poison_round = 1
        index = 0
        round_start_entry = 0
        round_start_action = 0
        for number, (code, seat, value) in enumerate(entries):
            if code == E_KING:
                round_start_entry, round_start_action = number, index
                current = _Round(t, start_counts)
                rounds.append(current)
                poison_round = 1
            assert current is not None
            if code == E_DEAL:
                epoch = len(current.compositions) - 1
                if seat == player:
                    current.mine[epoch][value] += 1
                else:
                    current.slots.append((index, seat, poison_round, epoch))
            elif code == E_CARD and seat != player:
                current.card_actions.append((index, seat, poison_round))
            elif code == E_REFILL:
                current.compositions.append(list(value))
                current.mine.append([0] * t)
            elif code == E_REVEAL:
                reveal = value[0]
                for q, _character, cards in reveal.plays:
                    if q != player:
                        current.revealed[(q, poison_round)] = cards
                        current.required.extend(
                            (q, poison_round, i) for i in range(t) for _ in range(cards[i])
                        )
                for q, cards in reveal.hands:
                    if q != player:
                        current.required.extend(
                            (q, poison_round, i) for i in range(t) for _ in range(cards[i])
                        )
                poison_round += 1
            if code < ACTION_ENTRIES:
                index += 1
        assert index == len(history)
        if len(rounds) < assassination_rounds:
            # A new assassination round has begun but its king is not drawn yet.
            round_start_entry, round_start_action = len(entries), index
        self.round_start_entry = round_start_entry
        """Where the current assassination round's entries begin."""
        self.round_start_action = round_start_action
        """Where the current assassination round's actions begin."""


def redeal(known: KnownCards, deal: int, add: int, rng: random.Random) -> list[int]:
    """The history with every deal and card action the seat has not seen drawn
    afresh, consistently with what it saw (``deal`` and ``add`` are the first
    action ids of dealing and of adding a card)."""
    actions = list(known.history)
    for facts in known.rounds:
        _redeal(facts, known.num_types, deal, add, actions, rng)
    return actions


def _redeal(
    facts: _Round, t: int, deal: int, add: int, actions: list[int], rng: random.Random
) -> None:
    epochs = len(facts.compositions)
    unseen = [
        [facts.compositions[e][i] - facts.mine[e][i] for i in range(t)] for e in range(epochs)
    ]
    required = sorted(facts.required, key=lambda r: r[1])
    slots_of: dict[tuple[int, int], list[int]] = {}
    for k, (_index, seat, _pr, epoch) in enumerate(facts.slots):
        slots_of.setdefault((seat, epoch), []).append(k)
    epoch_of = _choose_epochs(facts, required, unseen, slots_of, rng)
    # Give each required card a random free slot of its seat and epoch that was dealt in time.
    card_of: list[int] = [-1] * len(facts.slots)
    required_slots: set[int] = set()
    for (seat, deadline, kind), epoch in zip(required, epoch_of, strict=True):
        options = [
            k for k in slots_of[(seat, epoch)] if card_of[k] < 0 and facts.slots[k][2] <= deadline
        ]
        k = rng.choice(options)
        card_of[k] = kind
        required_slots.add(k)
        unseen[epoch][kind] -= 1
    # The other unseen cards of each epoch go to its free slots; the rest stay in the deck.
    for epoch in range(epochs):
        pool = [i for i in range(t) for _ in range(unseen[epoch][i])]
        rng.shuffle(pool)
        free = [k for k, slot in enumerate(facts.slots) if slot[3] == epoch and card_of[k] < 0]
        assert len(free) <= len(pool)
        for k, kind in zip(free, pool, strict=False):
            card_of[k] = kind
    for k, slot in enumerate(facts.slots):
        actions[slot[0]] = deal + card_of[k]
    # Card actions: a revealed play in a canonical order; the face-down play of the
    # current poison round drawn from the cards the seat still holds.
    hidden: dict[int, list[int]] = {}
    by_play: dict[tuple[int, int], list[int]] = {}
    for index, seat, pr in facts.card_actions:
        by_play.setdefault((seat, pr), []).append(index)
    for (seat, pr), indices in by_play.items():
        cards = facts.revealed.get((seat, pr))
        if cards is None:
            hidden[seat] = indices
            continue
        kinds = [i for i in range(t) for _ in range(cards[i])]
        for index, kind in zip(indices, kinds, strict=True):
            actions[index] = add + kind
    if hidden:
        for seat, indices in hidden.items():
            pool = [
                card_of[k]
                for k, slot in enumerate(facts.slots)
                if slot[1] == seat and k not in required_slots
            ]
            rng.shuffle(pool)
            kinds = sorted(pool[: len(indices)])
            for index, kind in zip(indices, kinds, strict=True):
                actions[index] = add + kind


def _choose_epochs(
    facts: _Round,
    required: list[tuple[int, int, int]],
    unseen: list[list[int]],
    slots_of: dict[tuple[int, int], list[int]],
    rng: random.Random,
) -> list[int]:
    """An epoch for each required card such that every epoch has the cards and every
    seat had enough deals in it in time; random among the choices when the deck was
    refilled (a depth-first search; required is sorted by deadline)."""
    epochs = len(facts.compositions)
    if epochs == 1:
        return [0] * len(required)
    slot_rounds = {key: [facts.slots[k][2] for k in ks] for key, ks in slots_of.items()}
    capacity = [row.copy() for row in unseen]
    used: dict[tuple[int, int], int] = {}
    chosen: list[int] = []
    budget = [_SEARCH_BUDGET]

    def fits(seat: int, epoch: int, deadline: int) -> bool:
        rounds = slot_rounds.get((seat, epoch), [])
        in_time = sum(1 for r in rounds if r <= deadline)
        return used.get((seat, epoch), 0) < in_time

    def search(i: int, limited: bool) -> bool:
        if i == len(required):
            return True
        if limited:
            budget[0] -= 1
            if budget[0] < 0:
                return False
        seat, deadline, kind = required[i]
        order = list(range(epochs))
        if limited:
            rng.shuffle(order)
        for epoch in order:
            if capacity[epoch][kind] > 0 and fits(seat, epoch, deadline):
                capacity[epoch][kind] -= 1
                used[(seat, epoch)] = used.get((seat, epoch), 0) + 1
                chosen.append(epoch)
                if search(i + 1, limited):
                    return True
                chosen.pop()
                used[(seat, epoch)] -= 1
                capacity[epoch][kind] += 1
        return False

    if search(0, True) or search(0, False):
        return chosen
    raise AssertionError("no consistent deal exists; the log is inconsistent")
