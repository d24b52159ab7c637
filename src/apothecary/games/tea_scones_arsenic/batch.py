"""Tea, Scones and Arsenic as an array program over a batch of games.

The rules are the scalar engine's (:mod:`.rules`, ``rules.md`` beside it),
laid out over arrays: every player count (1 to 6, solo included) and the
Little Spoon. A scalar turn that takes a scone by kind is a draw, the chance
event of its dose, then eat or put back; a batch step is one decision, so
the dose is drawn inside the draw's step (from the game's key, with the
scalar probabilities: each unmarked dose of the kind over the kind's
unmarked count, or taken from ``chance``, the scalar dose action id 0-3).
After ``step`` a game is never at the dose.

Every array is bounded by the scalar game's own bounds, whatever the game's
length (honour rounds, eat-offs): a cup holds at most ``longest_cup``
scones, the box at most ``max_marked`` marked ones.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from apothecary.batch.core import TERMINAL_PLAYER, BatchGame, BatchState, fresh_common
from apothecary.batch.keys import U64, choose_weighted, episode_key, uniform
from apothecary.core.errors import IllegalActionError
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    BACK_SHUFFLE,
    DECIDE,
    DOSE_COUNTS,
    DRAW_BASE,
    EAT,
    KINDS,
    MARKED_BASE,
    OVER,
    PASS,
    SCONES,
    SHUFFLE,
    SPOON,
    SPOON_WINDOW,
    STOP,
    SUGAR_CUBES,
    TURN,
)
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenic

Ints = NDArray[np.int8]
Rows = NDArray[np.intp]
Flags = NDArray[np.bool_]

_SEAT_FLAGS = 13
"""Numbers per seat before its kind counts (the scalar ``_SEAT_FLAGS``)."""
_SCONE = KINDS + 5
"""One scone in the tensor: kind one-hot, then dose 0..3 or unknown (4)."""
_UNKNOWN = 4
"""The dose column of a scone whose dose the viewer has not seen."""
_KIND_SHARE = np.array([sum([1 / 6] * k, 0.0) for k in range(SCONES + 1)])
"""``k`` scones of one kind in a cup as the scalar tensor adds them up, ``1/6``
at a time in float64 (``_KIND_SHARE[k]``): exactly the scalar rounding."""


@dataclasses.dataclass(frozen=True)
class TeaSconesArsenicBatchState(BatchState):
    """N games of Tea, Scones and Arsenic (the scalar state's fields, as arrays).

    Per-seat arrays are ``(n, players)``; the marked scones are ``max_marked``
    slots in the box's order (the first ``marked_count`` in use); cups are
    ``longest_cup`` slots per seat in the order eaten (the first ``scones``).
    Bit ``q`` of a ``known`` field says seat ``q`` has seen that scone's dose.
    """

    phase: Ints
    """(n,) turn, decide, spoon or over (the scalar phase numbers; never the dose)."""
    turn_player: Ints
    """(n,) the seat whose turn it is."""
    to_move: Ints
    """(n,) the seat to act (the spoon holder asked, in the spoon window), -4 at the end."""
    fresh_turn: Flags
    """(n,) nothing done yet this turn (stopping and shuffling are offered)."""
    eat_off: Flags
    """(n,) the game is in (or ended in) the eat-off."""
    eat_off_seats: Flags
    """(n, players) the seats tied into the eat-off."""
    pool: Ints
    """(n, kinds, 4) unmarked scones in the box by kind and dose."""
    unmarked: Ints
    """(n, kinds) unmarked scones in the box by kind (one taken by kind has left)."""
    marked_kind: Ints
    """(n, max_marked) each marked scone's kind."""
    marked_dose: Ints
    """(n, max_marked) each marked scone's dose."""
    marked_by: Ints
    """(n, max_marked) the seat that put it back."""
    marked_known: Ints
    """(n, max_marked) the seats that have seen its dose (bits)."""
    marked_count: Ints
    """(n,) marked scones in the box."""
    box: Ints
    """(n,) scones in the box."""
    hand_kind: Ints
    """(n,) the kind of the scone in hand, or -1."""
    hand_dose: Ints
    """(n,) its dose."""
    hand_known: Ints
    """(n,) the seats that have seen its dose (bits)."""
    cup_kind: Ints
    """(n, players, longest_cup) each cup's scones' kinds, in the order eaten."""
    cup_dose: Ints
    """(n, players, longest_cup) their doses."""
    cup_known: Ints
    """(n, players, longest_cup) the seats that have seen each dose (bits)."""
    cup_kinds: Ints
    """(n, players, kinds) how many scones of each kind each cup holds."""
    scones: Ints
    """(n, players) scones eaten (the dead's included)."""
    totals: Ints
    """(n, players) total dose eaten."""
    cubes: Ints
    """(n, players) sugar cubes left."""
    spoons: Ints
    """(n, players) 1 while the seat holds its little spoon."""
    stopped: Ints
    """(n, players) 1 once the seat has stopped."""
    alive: Ints
    """(n, players) 1 while the seat is alive."""
    honour: Ints
    """(n, players) honour turns owed."""
    public_totals: Ints
    """(n, players) each total as public (at death, at the end), or -1."""
    last_mover: Ints
    """(n,) the player whose turn ended last in the main game."""
    main_game_over: Flags
    """(n,) the cups have been turned over."""
    winners: Flags
    """(n, players) the outcome's winners (at the end)."""
    scores: Ints
    """(n, players) the outcome's scores: scones of a survivor, 0 for the dead."""


def next_seat(start: Ints, allowed: Flags, steps: range) -> NDArray[np.int64]:
    """Per game, the first seat ``(start + step) % players``, for ``step`` in
    ``steps`` in order, that ``allowed`` (rows: games, columns: seats), or -1."""
    count, players = allowed.shape
    found = np.full(count, -1, dtype=np.int64)
    every = np.arange(count)
    for step in reversed(steps):  # the last write is the earliest step
        seat = (start.astype(np.int64) + step) % players
        found = np.where(allowed[every, seat], seat, found)
    return found


def settled(tied: Flags, box: Ints) -> Flags:
    """Per game at the end of the main game: the result is decided without an
    eat-off (one leader or none, or an empty box, where the tied share the win)."""
    decided: Flags = (tied.sum(axis=1) <= 1) | (box == 0)
    return decided


def spoon_holder(after: Ints, eater: Ints, alive: Ints, spoons: Ints) -> NDArray[np.int64]:
    """Per game, the next seat clockwise after ``after`` and before the eater
    that is alive and holds a spoon, or -1 (the scalar ``_next_spoon_holder``)."""
    count, players = alive.shape
    found = np.full(count, -1, dtype=np.int64)
    blocked = np.zeros(count, dtype=np.bool_)
    every = np.arange(count)
    for step in range(1, players):
        seat = (after.astype(np.int64) + step) % players
        blocked |= seat == eater
        holds = ~blocked & (found < 0) & (alive[every, seat] == 1) & (spoons[every, seat] == 1)
        found = np.where(holds, seat, found)
    return found


class TeaSconesArsenicBatch(BatchGame[TeaSconesArsenicBatchState]):
    """Tea, Scones and Arsenic over a batch: 1 to 6 players, with or without the spoon."""

    name: ClassVar[str] = "tea-scones-arsenic"
    game: TeaSconesArsenic

    def __init__(self, game: TeaSconesArsenic) -> None:
        super().__init__(game)
        self.cup_slots: int = game.longest_cup
        self.marked_slots: int = game.max_marked
        self.lethal: int = game.lethal_dose
        n = self.num_players
        self._seat_width = _SEAT_FLAGS + KINDS + self.cup_slots * _SCONE
        self._marked_width = 1 + KINDS + n + 5
        self._unmarked_at = n * self._seat_width
        self._marked_at = self._unmarked_at + KINDS
        self._hand_at = self._marked_at + self.marked_slots * self._marked_width
        self._phase_at = self._hand_at + _SCONE
        self._flags_at = self._phase_at + 5

    # -- new games --------------------------------------------------------------------

    def _start(
        self, key: U64, episode: NDArray[np.int64], chance: NDArray[np.int64] | None = None
    ) -> TeaSconesArsenicBatchState:
        count, n = key.shape[0], self.num_players

        def seats(value: int) -> Ints:
            return np.full((count, n), value, dtype=np.int8)

        marked = np.zeros((count, self.marked_slots), dtype=np.int8)
        cup = np.zeros((count, n, self.cup_slots), dtype=np.int8)
        state = TeaSconesArsenicBatchState(
            **fresh_common(key, episode, n, self.num_distinct_actions()),
            phase=np.full(count, TURN, dtype=np.int8),
            turn_player=np.zeros(count, dtype=np.int8),
            to_move=np.zeros(count, dtype=np.int8),
            fresh_turn=np.ones(count, dtype=np.bool_),
            eat_off=np.zeros(count, dtype=np.bool_),
            eat_off_seats=np.zeros((count, n), dtype=np.bool_),
            pool=np.tile(np.array(DOSE_COUNTS, dtype=np.int8), (count, KINDS, 1)),
            unmarked=np.full((count, KINDS), sum(DOSE_COUNTS), dtype=np.int8),
            marked_kind=marked,
            marked_dose=marked.copy(),
            marked_by=marked.copy(),
            marked_known=marked.copy(),
            marked_count=np.zeros(count, dtype=np.int8),
            box=np.full(count, SCONES, dtype=np.int8),
            hand_kind=np.full(count, -1, dtype=np.int8),
            hand_dose=np.full(count, -1, dtype=np.int8),
            hand_known=np.zeros(count, dtype=np.int8),
            cup_kind=cup,
            cup_dose=cup.copy(),
            cup_known=cup.copy(),
            cup_kinds=np.zeros((count, n, KINDS), dtype=np.int8),
            scones=seats(0),
            totals=seats(0),
            cubes=seats(SUGAR_CUBES),
            spoons=seats(1 if self.game.little_spoon else 0),
            stopped=seats(0),
            alive=seats(1),
            honour=seats(0),
            public_totals=seats(-1),
            last_mover=np.zeros(count, dtype=np.int8),
            main_game_over=np.zeros(count, dtype=np.bool_),
            winners=np.zeros((count, n), dtype=np.bool_),
            scores=seats(0),
        )
        self._refresh(state)
        return state

    # -- a step -----------------------------------------------------------------------

    def _advance(
        self,
        state: TeaSconesArsenicBatchState,
        actions: NDArray[np.int64],
        chance: NDArray[np.int64] | None,
    ) -> None:
        s, a = state, actions
        s.rewards[...] = 0.0
        live = ~s.terminated
        turn = live & (s.phase == TURN)
        decide = live & (s.phase == DECIDE)
        window = live & (s.phase == SPOON_WINDOW)
        # Each game plays exactly one of these; the rows are taken before any
        # of them changes the state.
        stop = np.flatnonzero(turn & (a == STOP))
        shuffle = np.flatnonzero(turn & (a == SHUFFLE))
        draw = np.flatnonzero(turn & (a >= DRAW_BASE) & (a < EAT))
        take = np.flatnonzero(turn & (a >= MARKED_BASE))
        eat = np.flatnonzero(decide & (a == EAT))
        back = np.flatnonzero(decide & ((a == BACK) | (a == BACK_SHUFFLE)))
        spoon = np.flatnonzero(window & (a == SPOON))
        answer = np.flatnonzero(window & (a == PASS))

        self._stop(s, stop)
        self.shuffle(s, shuffle)
        s.fresh_turn[shuffle] = False
        self._draw(s, draw, a[draw] - DRAW_BASE, chance)
        self._take_marked(s, take, a[take] - MARKED_BASE)
        s.cubes[back, s.turn_player[back]] -= 1
        self._put_back(s, back)
        self.shuffle(s, back[a[back] == BACK_SHUFFLE])
        s.spoons[spoon, s.to_move[spoon]] = 0
        self._put_back(s, spoon)
        # An eat opens the spoon window when a living holder is left to ask;
        # a pass asks the next one. The eat happens once nobody is left.
        eaten = self._ask_spoons(s, eat, s.turn_player[eat])
        eaten = np.concatenate([eaten, self._ask_spoons(s, answer, s.to_move[answer])])
        self.eat(s, eaten)
        self._end_turn(s, np.concatenate([stop, back, spoon, eaten]))
        self._refresh(s)

    def _stop(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """The turn's player stops: every other seat alive and still playing owes honour turns."""
        s.stopped[rows, s.turn_player[rows]] = 1
        playing = (s.alive[rows] == 1) & (s.stopped[rows] == 0)
        s.honour[rows] = np.where(playing, self.game.honour_turns, s.honour[rows])

    def shuffle(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """Every marked scone of games ``rows`` back among the unmarked ones."""
        slot = np.arange(self.marked_slots)
        game, which = np.nonzero(slot < s.marked_count[rows, None])
        row = rows[game]
        kind = s.marked_kind[row, which]
        np.add.at(s.pool, (row, kind, s.marked_dose[row, which]), 1)
        np.add.at(s.unmarked, (row, kind), 1)
        s.marked_count[rows] = 0

    def _draw(
        self,
        s: TeaSconesArsenicBatchState,
        rows: Rows,
        kind: NDArray[np.int64],
        chance: NDArray[np.int64] | None,
    ) -> None:
        """A scone taken by kind leaves the box, then its dose is drawn (chance)."""
        s.unmarked[rows, kind] -= 1
        s.box[rows] -= 1
        s.fresh_turn[rows] = False
        weights = s.pool[rows, kind].astype(np.int64)
        keys = episode_key(s.key[rows], s.episode[rows])
        dose = choose_weighted(uniform(keys, s.draws[rows]), weights)
        s.draws[rows] += 1
        if chance is not None:
            given = chance[rows]
            supplied = given >= 0
            bad = supplied & (given > 3)
            bad |= supplied & ~bad & (weights[np.arange(rows.size), np.clip(given, 0, 3)] == 0)
            if bad.any():
                i = int(rows[np.flatnonzero(bad)[0]])
                left = s.pool[i, kind[np.flatnonzero(bad)[0]]].tolist()
                raise IllegalActionError(
                    f"{self.name}: game {i}: chance {int(chance[i])} is not a dose left to "
                    f"draw (the doses are 0..3, with unmarked scones of each left {left})"
                )
            dose = np.where(supplied, given, dose)
        s.pool[rows, kind, dose] -= 1
        s.hand_kind[rows] = kind
        s.hand_dose[rows] = dose
        s.hand_known[rows] = 1 << s.turn_player[rows]
        s.phase[rows] = DECIDE

    def _take_marked(
        self, s: TeaSconesArsenicBatchState, rows: Rows, slot: NDArray[np.int64]
    ) -> None:
        """A marked scone is taken: no chance, its dose is the one it carries."""
        s.hand_kind[rows] = s.marked_kind[rows, slot]
        s.hand_dose[rows] = s.marked_dose[rows, slot]
        s.hand_known[rows] = s.marked_known[rows, slot] | (1 << s.turn_player[rows])
        # The slots after it move up one, keeping the box's order.
        index = np.arange(self.marked_slots)
        source = np.minimum(index + (index >= slot[:, None]), self.marked_slots - 1)
        for field in (s.marked_kind, s.marked_dose, s.marked_by, s.marked_known):
            field[rows] = np.take_along_axis(field[rows], source, axis=1)
        s.marked_count[rows] -= 1
        s.box[rows] -= 1
        s.fresh_turn[rows] = False
        s.phase[rows] = DECIDE

    def _put_back(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """The scone in hand goes back marked as the turn's player's (paid or spooned)."""
        slot = s.marked_count[rows]
        s.marked_kind[rows, slot] = s.hand_kind[rows]
        s.marked_dose[rows, slot] = s.hand_dose[rows]
        s.marked_by[rows, slot] = s.turn_player[rows]
        s.marked_known[rows, slot] = s.hand_known[rows]
        s.marked_count[rows] += 1
        s.box[rows] += 1
        s.hand_kind[rows] = -1

    def _ask_spoons(self, s: TeaSconesArsenicBatchState, rows: Rows, after: Ints) -> Rows:
        """Ask the next spoon holder after ``after`` in games ``rows``; the
        games with nobody left to ask (or no spoon in play) are returned: they eat."""
        if not self.game.little_spoon or rows.size == 0:
            return rows
        asker = spoon_holder(after, s.turn_player[rows], s.alive[rows], s.spoons[rows])
        asker = np.where(s.eat_off[rows], -1, asker)  # never in the eat-off
        asked = asker >= 0
        s.phase[rows[asked]] = SPOON_WINDOW
        s.to_move[rows[asked]] = asker[asked]
        return rows[~asked]

    def eat(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """The turn's player eats the scone in hand; at the lethal dose they die."""
        p = s.turn_player[rows]
        slot = s.scones[rows, p]
        kind = s.hand_kind[rows]
        s.cup_kind[rows, p, slot] = kind
        s.cup_dose[rows, p, slot] = s.hand_dose[rows]
        s.cup_known[rows, p, slot] = s.hand_known[rows]
        s.cup_kinds[rows, p, kind] += 1
        s.scones[rows, p] += 1
        total = s.totals[rows, p] + s.hand_dose[rows]
        s.totals[rows, p] = total
        dead = rows[total >= self.lethal]
        dp = s.turn_player[dead]
        s.alive[dead, dp] = 0
        s.honour[dead, dp] = 0
        s.public_totals[dead, dp] = s.totals[dead, dp]

    def _end_turn(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """The turn is over: the next player, or the end of the main game or the eat-off."""
        s.hand_kind[rows] = -1
        players = self.num_players
        off = rows[s.eat_off[rows]]
        main = rows[~s.eat_off[rows]]
        # The eat-off: the last one standing wins; an empty box shares the win.
        left = s.eat_off_seats[off] & (s.alive[off] == 1)
        done = (left.sum(axis=1) == 1) | (s.box[off] == 0)
        self._finish(s, off[done], left[done])
        going = off[~done]
        after = next_seat(s.turn_player[going], left[~done], range(1, players + 1))
        self._start_turn(s, going, after)
        # The main game: a turn pays an honour turn owed; the next seat alive
        # and still playing moves, unless nobody is or the box is empty.
        p = s.turn_player[main]
        s.honour[main, p] = np.maximum(s.honour[main, p] - 1, 0)
        s.last_mover[main] = p
        playing = (s.alive[main] == 1) & (s.stopped[main] == 0) & (s.box[main] > 0)[:, None]
        after = next_seat(p, playing, range(1, players + 1))
        self._start_turn(s, main[after >= 0], after[after >= 0])
        self._end_main_game(s, main[after < 0])

    def _start_turn(
        self, s: TeaSconesArsenicBatchState, rows: Rows, seat: NDArray[np.int64]
    ) -> None:
        s.turn_player[rows] = seat
        s.to_move[rows] = seat
        s.phase[rows] = TURN
        s.fresh_turn[rows] = True

    def _end_main_game(self, s: TeaSconesArsenicBatchState, rows: Rows) -> None:
        """Every cup is turned over: most scones, then most arsenic, wins; a tie
        still standing with scones in the box goes to the eat-off. (Solo is the
        same rule: a living player is the one leader.)"""
        s.main_game_over[rows] = True
        alive = s.alive[rows] == 1
        s.public_totals[rows] = np.where(alive, s.totals[rows], s.public_totals[rows])
        scones = np.where(alive, s.scones[rows], -1)
        leaders = alive & (scones == scones.max(axis=1, keepdims=True))
        totals = np.where(leaders, s.totals[rows], -1)
        tied = leaders & (totals == totals.max(axis=1, keepdims=True))
        done = settled(tied, s.box[rows])
        self._finish(s, rows[done], tied[done])
        off = rows[~done]
        s.eat_off[off] = True
        s.eat_off_seats[off] = tied[~done]
        first = next_seat(s.last_mover[off], tied[~done], range(1, self.num_players + 1))
        self._start_turn(s, off, first)

    def _finish(self, s: TeaSconesArsenicBatchState, rows: Rows, winners: Flags) -> None:
        s.phase[rows] = OVER
        s.to_move[rows] = TERMINAL_PLAYER
        s.hand_kind[rows] = -1
        s.public_totals[rows] = s.totals[rows]
        s.winners[rows] = winners
        s.scores[rows] = np.where(s.alive[rows] == 1, s.scones[rows], 0)
        # returns(): 1/k to each of k winners, nothing when nobody survived.
        share = 1.0 / np.maximum(winners.sum(axis=1, keepdims=True), 1)
        s.rewards[rows] = np.where(winners, share, 0.0)

    def _refresh(self, s: TeaSconesArsenicBatchState) -> None:
        """The fields a learner reads: current player, terminated, legal mask."""
        over = s.phase == OVER
        s.current_player[...] = np.where(over, TERMINAL_PLAYER, s.to_move)
        s.terminated[...] = over
        mask = s.legal_action_mask
        mask[...] = False
        turn = s.phase == TURN
        fresh = turn & s.fresh_turn
        mask[:, DRAW_BASE:EAT] = turn[:, None] & (s.unmarked > 0)
        stopping = ~s.eat_off & ~s.main_game_over & ~(s.honour > 0).any(axis=1)
        mask[:, STOP] = fresh & stopping
        mask[:, SHUFFLE] = fresh & (s.marked_count > 0)
        slot = np.arange(self.marked_slots)
        mask[:, MARKED_BASE:] = turn[:, None] & (slot < s.marked_count[:, None])
        decide = s.phase == DECIDE
        mask[:, EAT] = decide
        cubes = s.cubes[np.arange(s.size), s.turn_player]
        mask[:, BACK] = mask[:, BACK_SHUFFLE] = decide & ~s.eat_off & (cubes > 0)
        mask[:, SPOON] = mask[:, PASS] = s.phase == SPOON_WINDOW

    # -- what each seat sees -----------------------------------------------------------

    def _observe(self, state: TeaSconesArsenicBatchState, out: NDArray[np.float32]) -> None:
        """(n, players, size): each seat's scalar ``observation_tensor``. The
        part every seat sees alike is built once per game, every scone's dose
        as unknown, and copied to every viewer; then each viewer's own entries
        are written in: its total, which seat it is, and the doses it has seen
        (a few scones a seat, so far fewer writes than a dose per scone each)."""
        s = state
        games, at, dose, known = self._scones(s)
        common = self._public(s)
        common[games, at + _UNKNOWN] = 1.0
        out[...] = common[:, None, :]
        n, width = self.num_players, self._seat_width
        over = s.phase == OVER
        seats = np.arange(n)
        public = np.where(s.public_totals >= 0, s.public_totals / self.lethal, -1.0)
        own = s.totals / self.lethal
        for v in range(n):
            out[:, v, seats * width + 6] = np.where(seats == v, own, public)
            out[:, v, v * width + 8] = 1.0
            out[:, v, self._flags_at + 5] = (s.turn_player == v) & ~over
            seen = np.flatnonzero((known >> v) & 1)
            out[games[seen], v, at[seen] + _UNKNOWN] = 0.0
            out[games[seen], v, at[seen] + dose[seen]] = 1.0

    def _scones(
        self, s: TeaSconesArsenicBatchState
    ) -> tuple[Rows, Rows, NDArray[np.intp], NDArray[np.int8]]:
        """Every scone whose dose the tensor shows, in cups, marked in the box
        and in hand: its game, where its dose columns start, its dose, and who
        has seen it (bits)."""
        width = self._seat_width
        g, q, slot = np.nonzero(np.arange(self.cup_slots) < s.scones[:, :, None])
        cup_at = q * width + _SEAT_FLAGS + KINDS + slot * _SCONE + KINDS
        m, which = np.nonzero(np.arange(self.marked_slots) < s.marked_count[:, None])
        marked_at = self._marked_at + which * self._marked_width + 1 + KINDS + self.num_players
        h = np.flatnonzero(s.hand_kind >= 0)
        return (
            np.concatenate([g, m, h]),
            np.concatenate([cup_at, marked_at, np.full(h.size, self._hand_at + KINDS)]),
            np.concatenate(
                [s.cup_dose[g, q, slot], s.marked_dose[m, which], s.hand_dose[h]]
            ).astype(np.intp),
            np.concatenate([s.cup_known[g, q, slot], s.marked_known[m, which], s.hand_known[h]]),
        )

    def _public(self, s: TeaSconesArsenicBatchState) -> NDArray[np.float32]:
        """(n, size) the entries every seat sees alike (the others left 0)."""
        count, n, width = s.size, self.num_players, self._seat_width
        common = np.zeros((count, self.observation_tensor_size()), dtype=np.float32)
        seats = common[:, : n * width].reshape(count, n, width)
        over = s.phase == OVER
        seat = np.arange(n)
        seats[:, :, 0] = s.alive
        seats[:, :, 1] = s.stopped
        seats[:, :, 2] = s.cubes / SUGAR_CUBES
        seats[:, :, 3] = s.spoons
        seats[:, :, 4] = s.honour / 2
        seats[:, :, 5] = s.scones / SCONES
        seats[:, :, 7] = s.to_move[:, None] == seat
        seats[:, :, 9] = (s.turn_player[:, None] == seat) & ~over[:, None]
        seats[:, :, 10] = s.eat_off[:, None] & s.eat_off_seats
        seats[:, :, 11] = s.winners & over[:, None]
        seats[:, :, 12] = np.where(over[:, None], s.scores / SCONES, 0.0)
        seats[:, :, _SEAT_FLAGS : _SEAT_FLAGS + KINDS] = _KIND_SHARE[s.cup_kinds]
        g, q, slot = np.nonzero(np.arange(self.cup_slots) < s.scones[:, :, None])
        seats[g, q, _SEAT_FLAGS + KINDS + slot * _SCONE + s.cup_kind[g, q, slot]] = 1.0
        at = self._unmarked_at
        common[:, at : at + KINDS] = s.unmarked / 6
        g, slot = np.nonzero(np.arange(self.marked_slots) < s.marked_count[:, None])
        base = self._marked_at + slot * self._marked_width
        common[g, base] = 1.0
        common[g, base + 1 + s.marked_kind[g, slot]] = 1.0
        common[g, base + 1 + KINDS + s.marked_by[g, slot]] = 1.0
        g = np.flatnonzero(s.hand_kind >= 0)
        common[g, self._hand_at + s.hand_kind[g].astype(np.intp)] = 1.0
        every = np.arange(count)
        common[every, self._phase_at + s.phase.astype(np.intp)] = 1.0
        flags = common[:, self._flags_at :]
        flags[:, 0] = s.eat_off
        flags[:, 1] = s.main_game_over
        flags[:, 2] = s.fresh_turn
        stopping = ~s.eat_off & ~s.main_game_over & ~(s.honour > 0).any(axis=1)
        flags[:, 3] = (s.phase == TURN) & s.fresh_turn & stopping
        flags[:, 4] = s.box / SCONES
        flags[:, 6] = s.scones.sum(axis=1) / SCONES
        return common
