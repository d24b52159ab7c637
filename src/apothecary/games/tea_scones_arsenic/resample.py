"""Redrawing the doses a seat has not seen, exactly from their posterior.

The hidden part of a game is the dose of every scone drawn by kind by someone
else (a marked scone's dose follows from the draw that first took it out of the
box). A redraw must keep:

- each kind's doses: every draw takes a dose still unmarked in the box, where a
  shuffle returns the marked scones (with their doses) to the unmarked ones;
- every death where and as it happened: the dead player's public total exactly,
  reached at their last scone and not before (so that last dose is more than
  the total minus the lethal dose);
- every living player below the lethal dose;
- the totals made public at the end of the main game;
- every dose the seat itself saw.

Kinds never share a scone, so the only link between kinds is the players'
totals. Each kind's draws are enumerated on their own (with their chance
probabilities, the seat's own draws included, since their odds depend on what
was drawn before them), grouped by what they add to each player's total; the
kinds are then combined by dynamic programming over the players' totals and
sampled backwards. The result is an exact draw from the posterior, reading the
players' choices (eat, put back, stop...) as uninformative.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from apothecary.games.tea_scones_arsenic.rules import (
    BACK,
    BACK_SHUFFLE,
    DECIDE,
    DOSE,
    DOSE_COUNTS,
    KINDS,
    MARKED_BASE,
    OVER,
    SHUFFLE,
    SPOON,
    SPOON_WINDOW,
    TURN,
    TeaSconesArsenicState,
)

DRAW, RETURNED = 0, 1
T = TypeVar("T")

# What a kind adds to each account, and the weight of every way it can.
Contribution = tuple[int, ...]
Ways = dict[Contribution, list[tuple[float, tuple[int, ...]]]]


class _World:
    """The public skeleton of a game with the seat's own knowledge filled in:
    the draws and returns of each kind, who ate which scone, and the bounds
    on every player's total ("accounts": the main game, then the eat-off)."""

    def __init__(self, state: TeaSconesArsenicState, player: int) -> None:
        game = state.game
        lethal = state.lethal_dose
        self.token_kind: list[int] = []
        self.token_known: list[int] = []  # the dose if the seat saw it, else -1
        self.token_history_index: list[int] = []
        self.kind_events: list[list[tuple[int, int]]] = [[] for _ in range(KINDS)]
        eaten_by: list[tuple[int, int]] = []  # (token, eater) in order
        replay = game.new_initial_state()
        assert isinstance(replay, TeaSconesArsenicState)
        hand = -1
        marked: list[int] = []
        main_counts: list[int] | None = None
        main_totals: list[int] | None = None

        def returned(tokens: list[int]) -> None:
            for t in tokens:
                self.kind_events[self.token_kind[t]].append((RETURNED, t))

        for index, action in enumerate(state.history()):
            phase = replay.phase
            mover = replay.turn_player
            if phase == DOSE:
                hand = len(self.token_kind)
                self.token_kind.append(replay.hand_kind)
                self.token_known.append(action if mover == player else -1)
                self.token_history_index.append(index)
                self.kind_events[replay.hand_kind].append((DRAW, hand))
            elif phase == TURN:
                if action == SHUFFLE:
                    returned(marked)
                    marked = []
                elif action >= MARKED_BASE:
                    hand = marked.pop(action - MARKED_BASE)
            elif phase == DECIDE and action in (BACK, BACK_SHUFFLE):
                marked.append(hand)
                if action == BACK_SHUFFLE:
                    returned(marked)
                    marked = []
            elif phase == SPOON_WINDOW and action == SPOON:
                marked.append(hand)
            eaten_before = len(replay.eaten)
            replay.apply_action(action)
            if phase == TURN and action >= MARKED_BASE and mover == player:
                # The seat turned this scone over: it knows the dose from now on.
                self.token_known[hand] = replay.hand_dose
            if len(replay.eaten) > eaten_before:
                eaten_by.append((hand, mover))
            if main_counts is None and replay.main_game_over:
                main_counts = list(replay.scones)
                main_totals = list(replay.public_totals)

        # One account per other player for the main game, one more for the
        # eat-off if they ate in it; the seat's own doses are all known.
        alive = replay.alive
        public = replay.public_totals
        over = replay.phase == OVER
        tokens = len(self.token_kind)
        self.token_account = [-1] * tokens
        self.token_min = [0] * tokens
        self.bound: list[int] = []  # the most an account may hold
        self.exact: list[bool] = []  # whether it must hold exactly that
        account_of: dict[tuple[int, int], int] = {}
        count = [0] * game.num_players
        last_token = [-1] * game.num_players
        for token, eater in eaten_by:
            count[eater] += 1
            last_token[eater] = token
            if eater == player:
                continue
            in_eat_off = main_counts is not None and count[eater] > main_counts[eater]
            key = (eater, int(in_eat_off))
            if key not in account_of:
                account_of[key] = len(self.bound)
                settled = not alive[eater] or over
                if main_totals is None:
                    # Main game on: the dead's totals are public, the living below lethal.
                    self.bound.append(public[eater] if settled else lethal - 1)
                    self.exact.append(settled)
                elif not in_eat_off:
                    # Every cup was turned over when the main game ended.
                    self.bound.append(main_totals[eater])
                    self.exact.append(True)
                else:
                    already = main_totals[eater]
                    self.bound.append(public[eater] - already if settled else lethal - 1 - already)
                    self.exact.append(settled)
            self.token_account[token] = account_of[key]
        for q in range(game.num_players):
            if q != player and not alive[q] and last_token[q] >= 0:
                # Alive until the last scone: the total before it was below lethal.
                self.token_min[last_token[q]] = max(0, public[q] - lethal + 1)
        self.accounts = len(self.bound)

    def kind_ways(self, kind: int) -> Ways:
        """Every dose sequence this kind's draws can have, grouped by what it adds
        to each account, with its probability."""
        events = self.kind_events[kind]
        token_known = self.token_known
        token_account = self.token_account
        token_min = self.token_min
        bound = self.bound
        pool = list(DOSE_COUNTS)
        dose = [-1] * len(self.token_kind)
        adds = [0] * self.accounts
        hidden = [t for what, t in events if what == DRAW and token_known[t] < 0]
        ways: Ways = {}
        last = len(events)

        def walk(e: int, weight: float) -> None:
            if e == last:
                key = tuple(adds)
                ways.setdefault(key, []).append((weight, tuple(dose[t] for t in hidden)))
                return
            what, token = events[e]
            if what == RETURNED:
                d = dose[token]
                pool[d] += 1
                walk(e + 1, weight)
                pool[d] -= 1
                return
            total = pool[0] + pool[1] + pool[2] + pool[3]
            known = token_known[token]
            account = token_account[token]
            for d in range(token_min[token], 4):
                if not pool[d] or (known >= 0 and d != known):
                    continue
                if account >= 0 and adds[account] + d > bound[account]:
                    continue
                share = pool[d] / total
                pool[d] -= 1
                dose[token] = d
                if account >= 0:
                    adds[account] += d
                walk(e + 1, weight * share)
                if account >= 0:
                    adds[account] -= d
                pool[d] += 1

        walk(0, 1.0)
        return ways

    def sample(self, rng: random.Random) -> list[int]:
        """A dose for every token, drawn from the posterior."""
        per_kind = [self.kind_ways(kind) for kind in range(KINDS)]
        bound = self.bound
        accounts = range(self.accounts)
        # Account totals are packed into one int, a byte each (totals stay below
        # 100), so adding two vectors is one addition; a total past its bound
        # shows as a set bit 6 or 7 once the bound's complement to 63 is added.
        over_bound = sum((63 - bound[a]) << (8 * a) for a in accounts)
        guard = sum(0xC0 << (8 * a) for a in accounts)
        exact_mask = sum(0xFF << (8 * a) for a in accounts if self.exact[a])
        exact_code = sum(bound[a] << (8 * a) for a in accounts if self.exact[a])
        # forward: the weight of every reachable vector of account totals
        layers: list[dict[int, float]] = [{0: 1.0}]
        for ways in per_kind:
            totals = [(_pack(key), sum(w for w, _ in options)) for key, options in ways.items()]
            layer: dict[int, float] = {}
            get = layer.get
            for so_far, weight in layers[-1].items():
                for packed, w in totals:
                    combined = so_far + packed
                    if (combined + over_bound) & guard:
                        continue
                    layer[combined] = get(combined, 0.0) + weight * w
            layers.append(layer)
        finals = [(key, w) for key, w in layers[-1].items() if key & exact_mask == exact_code]
        # backward: pick the totals, then each kind's share of them, then its draws
        target = _unpack(_pick(finals, rng), self.accounts)
        doses = list(self.token_known)
        for kind in range(KINDS - 1, -1, -1):
            ways = per_kind[kind]
            before = layers[kind]
            choices = []
            for share, options in ways.items():
                if any(target[a] < share[a] for a in accounts):
                    continue
                previous = _pack(tuple(target[a] - share[a] for a in accounts))
                if previous in before:
                    choices.append((share, before[previous] * sum(w for w, _ in options)))
            share = _pick(choices, rng)
            target = tuple(target[a] - share[a] for a in accounts)
            sequence = _pick([(seq, w) for w, seq in ways[share]], rng)
            hidden = [
                t for what, t in self.kind_events[kind] if what == DRAW and self.token_known[t] < 0
            ]
            for token, d in zip(hidden, sequence, strict=True):
                doses[token] = d
        return doses


def _pack(totals: Contribution) -> int:
    """Account totals as one int, a byte each."""
    return sum(value << (8 * a) for a, value in enumerate(totals))


def _unpack(code: int, accounts: int) -> Contribution:
    """The account totals packed in ``code``."""
    return tuple(code >> (8 * a) & 0xFF for a in range(accounts))


def _pick(weighted: Sequence[tuple[T, float]], rng: random.Random) -> T:
    """One item, with probability proportional to its weight."""
    total = sum(w for _, w in weighted)
    r = rng.random() * total
    for item, w in weighted:
        r -= w
        if r < 0:
            return item
    return weighted[-1][0]


def resample_history(state: TeaSconesArsenicState, player: int, rng: random.Random) -> list[int]:
    """``state``'s history with every dose hidden from ``player`` redrawn."""
    world = _World(state, player)
    doses = world.sample(rng)
    history = state.history()
    for token, index in enumerate(world.token_history_index):
        history[index] = doses[token]
    return history
