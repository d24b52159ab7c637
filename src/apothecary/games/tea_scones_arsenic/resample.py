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
from typing import TypeVar, cast

from apothecary.games.tea_scones_arsenic.facts import (
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
    Table,
)

DRAW, RETURNED = 0, 1
T = TypeVar("T")

Contribution = tuple[int, ...]
"""What some draws add to each account (a player's total in the main game or
the eat-off)."""


class _World:
    """The public skeleton of a game with the seat's own knowledge filled in:
    the draws and returns of each kind, who ate which scone, and the bounds
    on every player's total ("accounts": the main game, then the eat-off)."""

    def __init__(self, state: Table, player: int) -> None:
        game = state.game
        lethal = state.lethal_dose
        self.token_kind: list[int] = []
        self.token_known: list[int] = []  # the dose if the seat saw it, else -1
        self.token_history_index: list[int] = []
        self.kind_events: list[list[tuple[int, int]]] = [[] for _ in range(KINDS)]
        eaten_by: list[tuple[int, int]] = []  # (token, eater) in order
        # The game's own states are Tables (rules.py is the only module that
        # makes them); naming the class here would import rules.py in a circle.
        replay = cast(Table, game.new_initial_state())
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
        self._drop_loose_accounts()
        self.accounts = len(self.bound)

    def _drop_loose_accounts(self) -> None:
        """Forget the upper bounds no draw could reach (a living player who ate
        few scones): fewer accounts make the combination of kinds much cheaper."""
        most = [0] * len(self.bound)
        for token, account in enumerate(self.token_account):
            if account >= 0:
                known = self.token_known[token]
                most[account] += 3 if known < 0 else known
        keep = [a for a in range(len(self.bound)) if self.exact[a] or most[a] > self.bound[a]]
        renumber = {a: i for i, a in enumerate(keep)}
        self.token_account = [renumber.get(a, -1) for a in self.token_account]
        self.bound = [self.bound[a] for a in keep]
        self.exact = [self.exact[a] for a in keep]

    def kind_table(self, kind: int) -> _KindTable:
        """The ways this kind's draws can go, merged by dynamic programming."""
        return _KindTable(self, kind)

    def sample(self, rng: random.Random) -> list[int]:
        """A dose for every token, drawn from the posterior."""
        return self.posterior().sample(rng)

    def posterior(self) -> _Posterior:
        """The forward pass of :meth:`sample`, which needs no randomness: the
        weight of every reachable vector of account totals, kind by kind."""
        tables = [self.kind_table(kind) for kind in range(KINDS)]
        bound = self.bound
        accounts = range(self.accounts)
        # Account totals are packed into one int, a byte each (totals stay below
        # 100), so adding two vectors is one addition; a total past its bound
        # shows as a set bit 6 or 7 once the bound's complement to 63 is added.
        over_bound = sum((63 - bound[a]) << (8 * a) for a in accounts)
        guard = sum(0xC0 << (8 * a) for a in accounts)
        exact_mask = sum(0xFF << (8 * a) for a in accounts if self.exact[a])
        exact_code = sum(bound[a] << (8 * a) for a in accounts if self.exact[a])
        # An exact account must still be able to reach its total with the kinds
        # left: with the most they can add (capped at the bound) and 64 - bound
        # added, bit 6 is set exactly when it can.
        reachable = sum(0x40 << (8 * a) for a in accounts if self.exact[a])
        short = sum((64 - bound[a]) << (8 * a) for a in accounts if self.exact[a])
        still: list[int] = [0] * (KINDS + 1)
        most = [0] * self.accounts
        for kind in range(KINDS - 1, -1, -1):
            adds_most = [max((key[a] for key in tables[kind].totals), default=0) for a in accounts]
            most = [min(most[a] + adds_most[a], bound[a]) for a in accounts]
            still[kind] = sum(most[a] << (8 * a) for a in accounts if self.exact[a]) + short
        still[KINDS] = short
        # forward: the weight of every reachable vector of account totals
        layers: list[dict[int, float]] = [{0: 1.0}]
        for kind, table in enumerate(tables):
            totals = [(_pack(key), w) for key, w in table.totals.items()]
            layer: dict[int, float] = {}
            get = layer.get
            left = still[kind + 1]
            for so_far, weight in layers[-1].items():
                for packed, w in totals:
                    combined = so_far + packed
                    if (combined + over_bound) & guard or (
                        combined + left
                    ) & reachable != reachable:
                        continue
                    layer[combined] = get(combined, 0.0) + weight * w
            layers.append(layer)
        finals = [(key, w) for key, w in layers[-1].items() if key & exact_mask == exact_code]
        return _Posterior(self, tables, layers, finals)


class _Posterior:
    """A world's forward pass, kept so that many draws share it (a search draws
    many worlds from one position)."""

    def __init__(
        self,
        world: _World,
        tables: list[_KindTable],
        layers: list[dict[int, float]],
        finals: list[tuple[int, float]],
    ) -> None:
        self.world = world
        self.tables = tables
        self.layers = layers
        self.finals = finals

    def sample(self, rng: random.Random) -> list[int]:
        """A dose for every token: the backward pass, which only reads the tables."""
        world, tables, layers = self.world, self.tables, self.layers
        accounts = range(world.accounts)
        # backward: pick the totals, then each kind's share of them, then its draws
        target = _unpack(_pick(self.finals, rng), world.accounts)
        doses = list(world.token_known)
        for kind in range(KINDS - 1, -1, -1):
            table = tables[kind]
            before = layers[kind]
            choices = []
            for share, w in table.totals.items():
                if any(target[a] < share[a] for a in accounts):
                    continue
                previous = _pack(tuple(target[a] - share[a] for a in accounts))
                if previous in before:
                    choices.append((share, before[previous] * w))
            share = _pick(choices, rng)
            target = tuple(target[a] - share[a] for a in accounts)
            for token, d in table.draw(share, rng).items():
                doses[token] = d
        return doses


# One step of a kind's draws: (unmarked doses left, account totals, doses of
# scones out of the box that a shuffle will return; -1 for the others).
_KindStep = tuple[tuple[int, ...], Contribution, tuple[int, ...]]


class _KindTable:
    """Every way one kind's draws can go, as layers of merged steps (one per
    draw or return), so that both the total weight of each account vector and a
    backward draw of the doses behind one are cheap."""

    def __init__(self, world: _World, kind: int) -> None:
        self.events = events = world.kind_events[kind]
        tokens = [t for what, t in events if what == DRAW]
        self.slot = {t: i for i, t in enumerate(tokens)}
        will_return = {t for what, t in events if what == RETURNED}
        self.world = world
        start: _KindStep = (DOSE_COUNTS, (0,) * world.accounts, (-1,) * len(tokens))
        self.layers: list[dict[_KindStep, float]] = [{start: 1.0}]
        for what, token in events:
            layer: dict[_KindStep, float] = {}
            for step, weight in self.layers[-1].items():
                for after, _dose, w in self._moves(step, what, token, token in will_return):
                    layer[after] = layer.get(after, 0.0) + weight * w
            self.layers.append(layer)
        self.totals: dict[Contribution, float] = {}
        for (_pool, adds, _out), weight in self.layers[-1].items():
            self.totals[adds] = self.totals.get(adds, 0.0) + weight
        self.will_return = will_return
        self._ways: list[dict[_KindStep, list[tuple[tuple[_KindStep, int], float]]] | None]
        self._ways = [None] * len(events)

    def _moves(
        self, step: _KindStep, what: int, token: int, returns: bool
    ) -> list[tuple[_KindStep, int, float]]:
        pool, adds, out = step
        i = self.slot[token]
        if what == RETURNED:
            d = out[i]
            back = (*pool[:d], pool[d] + 1, *pool[d + 1 :])
            return [((back, adds, (*out[:i], -1, *out[i + 1 :])), d, 1.0)]
        world = self.world
        known = world.token_known[token]
        account = world.token_account[token]
        total = pool[0] + pool[1] + pool[2] + pool[3]
        moves = []
        for d in range(world.token_min[token], 4):
            if not pool[d] or (known >= 0 and d != known):
                continue
            new_adds = adds
            if account >= 0:
                if adds[account] + d > world.bound[account]:
                    continue
                new_adds = (*adds[:account], adds[account] + d, *adds[account + 1 :])
            left = (*pool[:d], pool[d] - 1, *pool[d + 1 :])
            new_out = (*out[:i], d, *out[i + 1 :]) if returns else out
            moves.append(((left, new_adds, new_out), d, pool[d] / total))
        return moves

    def draw(self, adds: Contribution, rng: random.Random) -> dict[int, int]:
        """The doses of this kind's draws, drawn given that they add ``adds``."""
        ends = [(step, w) for step, w in self.layers[-1].items() if step[1] == adds]
        step = _pick(ends, rng)
        doses: dict[int, int] = {}
        for e in range(len(self.events) - 1, -1, -1):
            what, token = self.events[e]
            step, d = _pick(self._ways_into(e)[step], rng)
            if what == DRAW:
                doses[token] = d
        return doses

    def _ways_into(self, e: int) -> dict[_KindStep, list[tuple[tuple[_KindStep, int], float]]]:
        """For each step after event ``e``, the (step before, dose) pairs that lead
        to it with their weights, in the order of the layers (so that a draw
        picks exactly as scanning the layer would); made once, on first use."""
        ways = self._ways[e]
        if ways is None:
            ways = self._ways[e] = {}
            what, token = self.events[e]
            returns = token in self.will_return
            for before, weight in self.layers[e].items():
                for after, d, w in self._moves(before, what, token, returns):
                    ways.setdefault(after, []).append(((before, d), weight * w))
        return ways


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


def resample_history(state: Table, player: int, rng: random.Random) -> list[int]:
    """``state``'s history with every dose hidden from ``player`` redrawn."""
    return Resampler(state, player).history(rng)


class Resampler:
    """Draws of ``state``'s history for ``player``: the part that needs no
    randomness is done once, so a search drawing many worlds pays it once."""

    def __init__(self, state: Table, player: int) -> None:
        world = _World(state, player)
        self.posterior = world.posterior()
        self.base = state.history()
        self.token_history_index = world.token_history_index

    def history(self, rng: random.Random) -> list[int]:
        """The history with every dose hidden from the player redrawn."""
        doses = self.posterior.sample(rng)
        history = self.base.copy()
        for token, index in enumerate(self.token_history_index):
            history[index] = doses[token]
        return history
