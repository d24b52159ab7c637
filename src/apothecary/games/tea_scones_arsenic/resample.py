"""Redrawing the doses a seat has not seen, consistently with all it knows.

The hidden part of a game is the dose of every scone drawn by kind by someone
else (a marked scone's dose follows from the draw that first took it out of the
box). A redraw must keep:

- each kind's doses: every draw takes a dose still unmarked in the box, where a
  shuffle returns the marked scones (with their doses) to the unmarked ones;
- every death where and as it happened: the dead player's public total exactly,
  reached at their last scone and not before;
- every living player below the lethal dose;
- the totals made public at the end of the main game;
- every dose the seat itself saw.

The world is walked in time order as events (draw by kind, eat, return to the
box by a shuffle). Doses are first drawn forward with their true chance
probabilities and the whole draw rejected on a broken constraint (this samples
the exact posterior, given that players' choices are read as uninformative);
if that keeps failing, a depth-first search with the same weighted random
order and bound checks at every eat finds a consistent world.
"""

from __future__ import annotations

import random

from apothecary.games.tea_scones_arsenic.rules import (
    BACK,
    BACK_SHUFFLE,
    DECIDE,
    DOSE,
    MARKED_BASE,
    MAX_DOSE,
    OVER,
    SHUFFLE,
    SPOON,
    SPOON_WINDOW,
    TURN,
    TeaSconesArsenicState,
)

DRAW, EATEN, RETURNED = 0, 1, 2
REJECTION_TRIES = 40
"""Forward draws tried before falling back to the search."""
SEARCH_BUDGET = 2000
"""Steps of the first backtracking search; doubled at each restart."""

_NO_BOUND = 1 << 30


class _World:
    """The public skeleton of a game, with the seat's own knowledge filled in."""

    def __init__(self, state: TeaSconesArsenicState, player: int) -> None:
        game = state.game
        n = game.num_players
        lethal = state.lethal_dose
        self.events: list[tuple[int, int, int]] = []
        self.token_kind: list[int] = []
        self.token_known: list[int] = []  # the dose if the seat saw it, else -1
        self.token_history_index: list[int] = []
        replay = game.new_initial_state()
        assert isinstance(replay, TeaSconesArsenicState)
        hand = -1
        marked: list[int] = []
        main_counts: list[int] | None = None
        main_totals: list[int] | None = None
        for index, action in enumerate(state.history()):
            phase = replay.phase
            mover = replay.turn_player
            if phase == DOSE:
                hand = len(self.token_kind)
                self.token_kind.append(replay.hand_kind)
                self.token_known.append(action if mover == player else -1)
                self.token_history_index.append(index)
                self.events.append((DRAW, hand, mover))
            elif phase == TURN:
                if action == SHUFFLE:
                    self.events.extend((RETURNED, t, -1) for t in marked)
                    marked = []
                elif action >= MARKED_BASE:
                    hand = marked.pop(action - MARKED_BASE)
            elif phase == DECIDE and action in (BACK, BACK_SHUFFLE):
                marked.append(hand)
                if action == BACK_SHUFFLE:
                    self.events.extend((RETURNED, t, -1) for t in marked)
                    marked = []
            elif phase == SPOON_WINDOW and action == SPOON:
                marked.append(hand)
            eaten_before = len(replay.eaten)
            replay.apply_action(action)
            if phase == TURN and action >= MARKED_BASE and mover == player:
                # The seat turned this scone over: it knows the dose from now on.
                self.token_known[hand] = replay.hand_dose
            if len(replay.eaten) > eaten_before:
                self.events.append((EATEN, hand, mover))
            if main_counts is None and replay.main_game_over:
                main_counts = list(replay.scones)
                main_totals = list(replay.public_totals)
        # Bounds on each player's running total after their c-th scone.
        final_counts: list[int] = list(replay.scones)
        alive: list[int] = list(replay.alive)
        public: list[int] = list(replay.public_totals)
        over = replay.phase == OVER
        self.low: list[list[int]] = []
        self.high: list[list[int]] = []
        for q in range(n):
            count = final_counts[q]
            low = [0] * (count + 1)
            high = [_NO_BOUND] * (count + 1)
            for c in range(1, count + 1):
                if alive[q] or c < count:
                    high[c] = lethal - 1
            exact: list[tuple[int, int]] = []
            if not alive[q] or over:
                exact.append((count, public[q]))
            if main_counts is not None and main_totals is not None and main_totals[q] >= 0:
                exact.append((main_counts[q], main_totals[q]))
            for at, total in exact:
                for c in range(1, at + 1):
                    high[c] = min(high[c], total)
                    low[c] = max(low[c], total - MAX_DOSE * (at - c))
                low[at] = max(low[at], total)
            self.low.append(low)
            self.high.append(high)
        self.n = n
        self.kind_events: list[list[int]] = [[] for _ in range(6)]
        for e, (what, token, _seat) in enumerate(self.events):
            if what != EATEN:
                self.kind_events[self.token_kind[token]].append(e)

    def sample(self, rng: random.Random) -> list[int]:
        """Doses per token: exact-posterior rejection first, then the search."""
        for _ in range(REJECTION_TRIES):
            found = self._search(rng, backtrack=False, budget=_NO_BOUND)
            if found is not None:
                return found
        # Chronological backtracking can thrash on a choice far back; restarts
        # with a fresh random order and a growing budget avoid getting stuck.
        budget = SEARCH_BUDGET
        while True:
            found = self._search(rng, backtrack=True, budget=budget)
            if found is not None:
                return found
            budget *= 2

    def _kind_can_supply(self, pool: list[int], dose: list[int], kind: int, after: int) -> bool:
        """Whether the box of ``kind`` can still give every dose the seat will see
        drawn after event ``after`` (draws of unknown doses are left out: each one
        is given back, if at all, by its own return)."""
        avail = pool[kind * 4 : kind * 4 + 4]
        events = self.events
        token_known = self.token_known
        for e in self.kind_events[kind]:
            if e <= after:
                continue
            what, token, _seat = events[e]
            if what == DRAW:
                d = token_known[token]
                if d >= 0:
                    avail[d] -= 1
                    if avail[d] < 0:
                        return False
            else:
                d = dose[token] if dose[token] >= 0 else token_known[token]
                if d >= 0:
                    avail[d] += 1
        return True

    def _search(self, rng: random.Random, backtrack: bool, budget: int) -> list[int] | None:
        events = self.events
        token_kind = self.token_kind
        token_known = self.token_known
        low, high = self.low, self.high
        pool = [2, 2, 1, 1] * 6
        dose = [-1] * len(token_kind)
        count = [0] * self.n
        total = [0] * self.n
        last = len(events)
        nodes = [0]
        can_supply = self._kind_can_supply

        def walk(e: int) -> bool:
            nodes[0] += 1
            if nodes[0] > budget:
                return False
            if e == last:
                return True
            kind_of_event, token, seat = events[e]
            if kind_of_event == DRAW:
                kind = token_kind[token]
                base = kind * 4
                known = token_known[token]
                if known >= 0:
                    if not pool[base + known]:
                        return False
                    choices = [known]
                else:
                    choices = _weighted_order(pool, base, rng)
                for d in choices:
                    pool[base + d] -= 1
                    dose[token] = d
                    if (known >= 0 or can_supply(pool, dose, kind, e)) and walk(e + 1):
                        return True
                    pool[base + d] += 1
                    dose[token] = -1
                    if not backtrack:
                        return False
                return False
            if kind_of_event == EATEN:
                c = count[seat] + 1
                t = total[seat] + dose[token]
                if t > high[seat][c] or t < low[seat][c]:
                    return False
                count[seat] = c
                total[seat] = t
                if walk(e + 1):
                    return True
                count[seat] = c - 1
                total[seat] = t - dose[token]
                return False
            slot = token_kind[token] * 4 + dose[token]
            pool[slot] += 1
            if walk(e + 1):
                return True
            pool[slot] -= 1
            return False

        return dose if walk(0) else None


def _weighted_order(pool: list[int], base: int, rng: random.Random) -> list[int]:
    """The doses still unmarked for a kind, in a random order weighted by their counts."""
    weights = [pool[base + d] for d in range(4)]
    order: list[int] = []
    remaining = sum(weights)
    while remaining:
        r = rng.random() * remaining
        for d in range(4):
            w = weights[d]
            if w and r < w:
                order.append(d)
                remaining -= w
                weights[d] = 0
                break
            r -= w
        else:  # float rounding at the very top: take the last one left
            d = max(i for i in range(4) if weights[i])
            order.append(d)
            remaining -= weights[d]
            weights[d] = 0
    return order


def resample_history(state: TeaSconesArsenicState, player: int, rng: random.Random) -> list[int]:
    """``state``'s history with every dose hidden from ``player`` redrawn."""
    world = _World(state, player)
    doses = world.sample(rng)
    history = state.history()
    for token, index in enumerate(world.token_history_index):
        history[index] = doses[token]
    return history
