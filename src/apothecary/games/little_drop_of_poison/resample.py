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
accordingly and replayed, so the result is a real position.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from apothecary.core.game import State

if TYPE_CHECKING:
    from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

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


class Facts:
    """What one seat knows of a position's cards, read from its log once: a
    search draws many worlds from one position, and this part needs no
    randomness."""

    def __init__(self, state: LittleDropOfPoisonState, player: int) -> None:
        from apothecary.games.little_drop_of_poison import rules

        game = state.game
        t = game.num_types
        self.history = history = state.history()
        self.rounds: list[_Round] = []
        rounds = self.rounds
        current: _Round | None = None
        poison_round = 1
        index = 0
        self.entries = entries = state._entries()
        round_start_entry = 0
        round_start_action = 0
        for number, (code, seat, value) in enumerate(entries):
            if code == rules.E_KING:
                round_start_entry, round_start_action = number, index
                current = _Round(t, game.start_counts)
                rounds.append(current)
                poison_round = 1
            assert current is not None
            if code == rules.E_DEAL:
                epoch = len(current.compositions) - 1
                if seat == player:
                    current.mine[epoch][value] += 1
                else:
                    current.slots.append((index, seat, poison_round, epoch))
            elif code == rules.E_CARD and seat != player:
                current.card_actions.append((index, seat, poison_round))
            elif code == rules.E_REFILL:
                current.compositions.append(list(value))
                current.mine.append([0] * t)
            elif code == rules.E_REVEAL:
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
            if code < rules.ACTION_ENTRIES:
                index += 1
        assert index == len(history)
        if len(rounds) < state.assassination_round:
            # A new assassination round has begun but its king is not drawn yet.
            round_start_entry, round_start_action = len(entries), index
        self.round_start_entry = round_start_entry
        self.round_start_action = round_start_action


def resample(state: LittleDropOfPoisonState, player: int, rng: random.Random) -> State:
    """A full state ``player`` cannot tell from ``state``, with a replayable history."""
    from apothecary.games.little_drop_of_poison import rules

    game = state.game
    t = game.num_types
    # The facts are kept on the state for the next draw from the same position
    # (the history only grows, so its length tells whether they are current).
    cached = state._resample_facts
    if cached is None or cached[0] != len(state._history) or cached[1] != player:
        cached = state._resample_facts = (len(state._history), player, Facts(state, player))
    known = cached[2]
    history, rounds, entries = known.history, known.rounds, known.entries
    round_start_entry, round_start_action = known.round_start_entry, known.round_start_action
    actions = list(history)
    for facts in rounds:
        _redeal(facts, t, game.DEAL, game.ADD, actions, rng)
    # Only the current assassination round is replayed, from the snapshot taken at
    # its start (which holds nothing hidden); the log of the earlier rounds is
    # rewritten entry by entry. The rewritten history is legal by construction, so
    # it is replayed without the per-action legality check.
    start = state.round_start
    assert start is not None
    replay = start.clone()
    assert isinstance(replay, rules.LittleDropOfPoisonState)
    log: tuple[object, ...] = ()
    last_reveal: tuple[rules.Reveal, dict[int | str, str]] | None = None
    index = 0
    for code, seat, value in entries[:round_start_entry]:
        if code == rules.E_DEAL:
            value = actions[index] - game.DEAL
        elif code == rules.E_CARD:
            value = actions[index] - game.ADD
        elif code == rules.E_REVEAL:
            # The caches start afresh, but for what the drawn world shares with
            # this one: the public texts (str keys) and the seat's own history.
            kept = {
                key: text for key, text in value[1].items() if key == player or type(key) is str
            }
            value = last_reveal = (value[0], kept)
        log = (log, (code, seat, value))
        if code < rules.ACTION_ENTRIES:
            index += 1
    replay.round_start = start
    replay.log = log
    replay.last_reveal = last_reveal
    replay._history = actions[:round_start_action]
    replay._legal = None
    for action in actions[round_start_action:]:
        replay._apply(action)
        replay._history.append(action)
    assert min(replay.deck) >= 0 and min(replay.hands) >= 0
    return replay


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
