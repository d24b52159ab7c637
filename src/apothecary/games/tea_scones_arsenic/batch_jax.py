"""Tea, Scones and Arsenic as a JAX program: one game's step and observation,
which :class:`~apothecary.batch.jax.core.JaxBatchGame` lays over the batch.

The rules are the numpy engine's (:mod:`apothecary.games.tea_scones_arsenic.batch`),
written for one game: each kind of decision (stop, shuffle, draw by kind, take
a marked scone, put back, the spoon, eat) is computed for every game and the
one played is selected, and the end of a turn (the next seat, the end of the
main game, the eat-off) runs after it where the decision ends the turn. The
dose of a scone drawn by kind comes from the game's key through the same
functions as numpy's (:func:`~apothecary.batch.keys.episode_key`,
:func:`~apothecary.batch.keys.uniform`,
:func:`~apothecary.batch.keys.choose_weighted`), so a seed draws the same
doses under both backends; ``chance`` supplies them instead.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from apothecary.batch.core import TERMINAL_PLAYER
from apothecary.batch.jax.core import JaxBatchGame, first_max, replace
from apothecary.batch.keys import choose_weighted, episode_key, uniform
from apothecary.core.errors import IllegalActionError
from apothecary.games.tea_scones_arsenic.batch import (
    _KIND_SHARE,
    _SCONE,
    _UNKNOWN,
    TeaSconesArsenicBatch,
    TeaSconesArsenicBatchState,
)
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    BACK_SHUFFLE,
    DECIDE,
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

State = TeaSconesArsenicBatchState
Array = Any
"""A JAX array (or tracer): typed Any, since JAX is optional and may be absent for the checker."""


def select(flag: Array, yes: State, no: State) -> State:
    """``yes`` where ``flag`` (one game's bool), else ``no``, field by field."""
    chosen: State = jax.tree_util.tree_map(lambda x, y: jnp.where(flag, x, y), yes, no)
    return chosen


def f64(x: Array) -> Array:
    """As float64 (numpy divides its int8 fields in float64 before storing float32)."""
    return jnp.asarray(x).astype(jnp.float64)


class TeaSconesArsenicJax(JaxBatchGame[TeaSconesArsenicBatchState]):
    """Tea, Scones and Arsenic under ``jax.jit``/``vmap``: 1 to 6 players, with
    or without the Little Spoon."""

    engine: TeaSconesArsenicBatch

    def __init__(self, engine: TeaSconesArsenicBatch) -> None:
        super().__init__(engine)
        game = engine.game
        self._players = self.num_players
        self._cups, self._marked = engine.cup_slots, engine.marked_slots
        self._lethal = engine.lethal
        self._honour_turns = int(game.honour_turns)
        self._spoon = bool(game.little_spoon)

    # -- a step -----------------------------------------------------------------------

    def _advance_one(self, s: State, a: Array, chance: Array) -> State:
        s = replace(s, rewards=jnp.zeros_like(s.rewards))
        tp = s.turn_player.astype(jnp.int64)
        turn, decide, window = s.phase == TURN, s.phase == DECIDE, s.phase == SPOON_WINDOW
        seats = jnp.arange(self._players)
        me = seats == tp
        # Every decision's outcome, before the end of the turn.
        stopped = jnp.where(me, 1, s.stopped)
        playing = (s.alive == 1) & (stopped == 0)
        stop = replace(s, stopped=stopped, honour=jnp.where(playing, self._honour_turns, s.honour))
        shuffled = replace(self._shuffle(s), fresh_turn=False)
        drawn = self._draw(s, a - DRAW_BASE, chance[0])
        taken = self._take_marked(s, a - MARKED_BASE)
        paid = self._put_back(replace(s, cubes=jnp.where(me, s.cubes - 1, s.cubes)))
        paid = select(a == BACK_SHUFFLE, self._shuffle(paid), paid)
        spoon_seat = seats == s.to_move
        spooned = self._put_back(replace(s, spoons=jnp.where(spoon_seat, 0, s.spoons)))
        # An eat asks the first spoon holder after the eater, a pass the next one.
        asker = self._spoon_holder(jnp.where(window, s.to_move, tp), tp, s)
        asked = (asker >= 0) & ~s.eat_off
        ask = replace(s, phase=SPOON_WINDOW, to_move=asker)
        eaten = self._eat(s)
        moves = [
            (turn & (a == STOP), stop),
            (turn & (a == SHUFFLE), shuffled),
            (turn & (a >= DRAW_BASE) & (a < EAT), drawn),
            (turn & (a >= MARKED_BASE), taken),
            (decide & ((a == BACK) | (a == BACK_SHUFFLE)), paid),
            (window & (a == SPOON), spooned),
            (((decide & (a == EAT)) | (window & (a == PASS))) & asked, ask),
            (((decide & (a == EAT)) | (window & (a == PASS))) & ~asked, eaten),
        ]
        moved = s
        for flag, outcome in moves:
            moved = select(flag, outcome, moved)
        ends = (turn & (a == STOP)) | (decide & (a != EAT)) | (window & (a == SPOON))
        ends |= ((decide & (a == EAT)) | (window & (a == PASS))) & ~asked
        ends &= ~s.terminated
        moved = select(ends, self._end_turn(moved), moved)
        return self._refresh(select(s.terminated, s, moved))

    def _shuffle(self, s: State) -> State:
        """Every marked scone back among the unmarked ones."""
        used = (jnp.arange(self._marked) < s.marked_count).astype(jnp.int64)
        kind = (s.marked_kind[:, None] == jnp.arange(KINDS)).astype(jnp.int64) * used[:, None]
        dose = (s.marked_dose[:, None] == jnp.arange(4)).astype(jnp.int64)
        return replace(
            s,
            pool=s.pool + (kind[:, :, None] * dose[:, None, :]).sum(axis=0),
            unmarked=s.unmarked + kind.sum(axis=0),
            marked_count=0,
        )

    def _draw(self, s: State, kind: Array, given: Array) -> State:
        """A scone taken by kind leaves the box, then its dose is drawn (or given)."""
        kinds = jnp.arange(KINDS) == kind
        weights = s.pool[jnp.clip(kind, 0, KINDS - 1)].astype(jnp.int64)
        key = episode_key(s.key[None], s.episode[None])
        dose = choose_weighted(uniform(key, s.draws[None]), weights[None])[0]
        dose = jnp.where(given >= 0, given, dose)
        hit = kinds[:, None] & (jnp.arange(4) == dose)[None, :]
        return replace(
            s,
            unmarked=s.unmarked - kinds,
            box=s.box - 1,
            fresh_turn=False,
            draws=s.draws + 1,
            pool=s.pool - hit,
            hand_kind=kind,
            hand_dose=dose,
            hand_known=jnp.left_shift(1, s.turn_player.astype(jnp.int64)),
            phase=DECIDE,
        )

    def _take_marked(self, s: State, slot: Array) -> State:
        """A marked scone is taken; the slots after it move up one."""
        index = jnp.arange(self._marked)
        at = index == slot
        source = jnp.minimum(index + (index >= slot), self._marked - 1)

        def shifted(field: Array) -> Array:
            return field[source]

        def held(field: Array) -> Array:
            return jnp.sum(jnp.where(at, field, 0), dtype=field.dtype)

        return replace(
            s,
            hand_kind=held(s.marked_kind),
            hand_dose=held(s.marked_dose),
            hand_known=held(s.marked_known) | jnp.left_shift(1, s.turn_player.astype(jnp.int64)),
            marked_kind=shifted(s.marked_kind),
            marked_dose=shifted(s.marked_dose),
            marked_by=shifted(s.marked_by),
            marked_known=shifted(s.marked_known),
            marked_count=s.marked_count - 1,
            box=s.box - 1,
            fresh_turn=False,
            phase=DECIDE,
        )

    def _put_back(self, s: State) -> State:
        """The scone in hand goes back marked as the turn's player's."""
        at = jnp.arange(self._marked) == s.marked_count
        return replace(
            s,
            marked_kind=jnp.where(at, s.hand_kind, s.marked_kind),
            marked_dose=jnp.where(at, s.hand_dose, s.marked_dose),
            marked_by=jnp.where(at, s.turn_player, s.marked_by),
            marked_known=jnp.where(at, s.hand_known, s.marked_known),
            marked_count=s.marked_count + 1,
            box=s.box + 1,
            hand_kind=-1,
        )

    def _spoon_holder(self, after: Array, eater: Array, s: State) -> Array:
        """The next seat after ``after`` and before the eater, alive and holding
        a spoon, or -1 (numpy's ``spoon_holder``)."""
        players = self._players
        if not self._spoon or players == 1:
            return jnp.asarray(-1, jnp.int64)
        steps = jnp.arange(1, players)
        seat = (after.astype(jnp.int64) + steps) % players
        first_eater = jnp.min(jnp.where(seat == eater, steps, players))
        holds = (steps < first_eater) & (s.alive[seat] == 1) & (s.spoons[seat] == 1)
        return jnp.where(jnp.any(holds), seat[first_max(holds)], -1)

    def _next_seat(self, start: Array, allowed: Array) -> Array:
        """The first seat after ``start`` (itself last) that ``allowed``, or -1."""
        seat = (start.astype(jnp.int64) + jnp.arange(1, self._players + 1)) % self._players
        ok = allowed[seat]
        return jnp.where(jnp.any(ok), seat[first_max(ok)], -1)

    def _eat(self, s: State) -> State:
        """The turn's player eats the scone in hand; at the lethal dose they die."""
        me = jnp.arange(self._players) == s.turn_player
        slot = jnp.arange(self._cups) == s.scones[s.turn_player.astype(jnp.int64)]
        cell = me[:, None] & slot[None, :]
        totals = jnp.where(me, s.totals + s.hand_dose, s.totals)
        dead = me & (totals >= self._lethal)
        kind = me[:, None] & (jnp.arange(KINDS) == s.hand_kind)[None, :]
        return replace(
            s,
            cup_kind=jnp.where(cell, s.hand_kind, s.cup_kind),
            cup_dose=jnp.where(cell, s.hand_dose, s.cup_dose),
            cup_known=jnp.where(cell, s.hand_known, s.cup_known),
            cup_kinds=s.cup_kinds + kind,
            scones=s.scones + me,
            totals=totals,
            alive=jnp.where(dead, 0, s.alive),
            honour=jnp.where(dead, 0, s.honour),
            public_totals=jnp.where(dead, totals, s.public_totals),
        )

    def _end_turn(self, s: State) -> State:
        """The turn is over: the next player, or the end of the main game or the eat-off."""
        s = replace(s, hand_kind=-1)
        tp = s.turn_player.astype(jnp.int64)
        # The eat-off: the last one standing wins; an empty box shares the win.
        left = s.eat_off_seats & (s.alive == 1)
        done = (left.sum() == 1) | (s.box == 0)
        off = select(done, self._finish(s, left), self._start_turn(s, self._next_seat(tp, left)))
        # The main game: a turn pays an honour turn owed; the next seat alive
        # and still playing moves, unless nobody is or the box is empty.
        me = jnp.arange(self._players) == tp
        main = replace(
            s, honour=jnp.where(me, jnp.maximum(s.honour - 1, 0), s.honour), last_mover=tp
        )
        playing = (main.alive == 1) & (main.stopped == 0) & (main.box > 0)
        after = self._next_seat(tp, playing)
        main = select(after >= 0, self._start_turn(main, after), self._end_main_game(main))
        return select(s.eat_off, off, main)

    def _start_turn(self, s: State, seat: Array) -> State:
        return replace(s, turn_player=seat, to_move=seat, phase=TURN, fresh_turn=True)

    def _end_main_game(self, s: State) -> State:
        """Every cup is turned over: most scones, then most arsenic, wins; a tie
        still standing with scones in the box goes to the eat-off."""
        alive = s.alive == 1
        s = replace(
            s, main_game_over=True, public_totals=jnp.where(alive, s.totals, s.public_totals)
        )
        scones = jnp.where(alive, s.scones, -1)
        leaders = alive & (scones == scones.max())
        totals = jnp.where(leaders, s.totals, -1)
        tied = leaders & (totals == totals.max())
        done = (tied.sum() <= 1) | (s.box == 0)
        first = self._next_seat(s.last_mover, tied)
        off = self._start_turn(replace(s, eat_off=True, eat_off_seats=tied), first)
        return select(done, self._finish(s, tied), off)

    def _finish(self, s: State, winners: Array) -> State:
        share = 1.0 / jnp.maximum(winners.sum(), 1).astype(jnp.float64)
        return replace(
            s,
            phase=OVER,
            to_move=TERMINAL_PLAYER,
            hand_kind=-1,
            public_totals=s.totals,
            winners=winners,
            scores=jnp.where(s.alive == 1, s.scones, 0),
            rewards=jnp.where(winners, share, 0.0),
        )

    def _refresh(self, s: State) -> State:
        """Current player, terminated and the legal mask (the numpy ``_refresh``)."""
        over = s.phase == OVER
        turn = s.phase == TURN
        fresh = turn & s.fresh_turn
        stopping = ~s.eat_off & ~s.main_game_over & ~jnp.any(s.honour > 0)
        decide = s.phase == DECIDE
        cubes = s.cubes[s.turn_player.astype(jnp.int64)]
        back = decide & ~s.eat_off & (cubes > 0)
        window = s.phase == SPOON_WINDOW
        head = jnp.zeros(STOP, jnp.bool_)  # the dose ids: never a decision
        mask = jnp.concatenate(
            [
                head,
                jnp.stack([fresh & stopping, fresh & (s.marked_count > 0)]),
                turn & (s.unmarked > 0),
                jnp.stack([decide, back, back, window, window]),
                turn & (jnp.arange(self._marked) < s.marked_count),
            ]
        )
        return replace(
            s,
            current_player=jnp.where(over, TERMINAL_PLAYER, s.to_move),
            terminated=over,
            legal_action_mask=mask,
        )

    def step(
        self, state: State, actions: ArrayLike, chance: ArrayLike | None = None, check: bool = True
    ) -> State:
        """The base step; with ``check``, a supplied dose is refused as the
        numpy engine refuses it (only a draw by kind takes one)."""
        if check and chance is not None:
            self._check_doses(state, actions, chance)
        return super().step(state, actions, chance, check)

    def _check_doses(self, state: State, actions: ArrayLike, chance: ArrayLike) -> None:
        """Refuse a supplied dose that is not left to draw in the drawn kind."""
        played = self.engine._check_actions(state, actions)
        n = played.shape[0]
        given = self.engine._check_chance(n, chance)
        if given is None:
            return
        given = given.reshape(n, -1)[:, 0]
        phase, over = np.asarray(state.phase), np.asarray(state.terminated)
        draw = (phase == TURN) & ~over & (played >= DRAW_BASE) & (played < EAT) & (given >= 0)
        kind = np.clip(played - DRAW_BASE, 0, KINDS - 1)
        pool = np.asarray(state.pool)[np.arange(n), kind]
        bad = draw & (given > 3)
        bad |= draw & ~bad & (pool[np.arange(n), np.clip(given, 0, 3)] == 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"{self.name}: game {i}: chance {int(given[i])} is not a dose left to "
                f"draw (the doses are 0..3, with unmarked scones of each left {pool[i].tolist()})"
            )

    # -- what each seat sees ------------------------------------------------------------

    def _observe_one(self, s: State) -> Array:
        """(players, size): each seat's scalar ``observation_tensor`` (the numpy
        ``_observe``'s layout, for one game)."""
        obs = jax.vmap(lambda v: self._observe_seat(s, v))(jnp.arange(self._players))
        assert obs.shape[1] == self.observation_tensor_size()
        return obs

    def _doses(self, dose: Array, known: Array, used: Array, viewer: Array) -> Array:
        """(…, 5) dose columns: the dose one-hot where the viewer has seen it,
        the unknown column where not, nothing where the slot is unused."""
        seen = ((known.astype(jnp.int64) >> viewer) & 1) == 1
        column = jnp.where(seen, dose.astype(jnp.int64), _UNKNOWN)
        hot = column[..., None] == jnp.arange(5)
        return (hot & used[..., None]).astype(jnp.float64)

    def _observe_seat(self, s: State, v: Array) -> Array:
        """Seat ``v``'s observation tensor."""
        players, cups, marked = self._players, self._cups, self._marked
        over = s.phase == OVER
        seat = jnp.arange(players)
        public = jnp.where(s.public_totals >= 0, f64(s.public_totals) / self._lethal, -1.0)
        flags = [
            f64(s.alive),
            f64(s.stopped),
            f64(s.cubes) / SUGAR_CUBES,
            f64(s.spoons),
            f64(s.honour) / 2,
            f64(s.scones) / SCONES,
            jnp.where(seat == v, f64(s.totals) / self._lethal, public),
            f64(s.to_move == seat),
            f64(seat == v),
            f64((s.turn_player == seat) & ~over),
            f64(s.eat_off & s.eat_off_seats),
            f64(s.winners & over),
            jnp.where(over, f64(s.scores) / SCONES, 0.0),
        ]
        share = jnp.asarray(_KIND_SHARE)[s.cup_kinds.astype(jnp.int64)]  # (players, kinds)
        in_cup = jnp.arange(cups)[None, :] < s.scones[:, None]  # (players, cups)
        cup_kind = (s.cup_kind[..., None] == jnp.arange(KINDS)) & in_cup[..., None]
        cup = jnp.concatenate(
            [f64(cup_kind), self._doses(s.cup_dose, s.cup_known, in_cup, v)], axis=-1
        ).reshape(players, cups * _SCONE)
        seats = jnp.concatenate([jnp.stack(flags, axis=1), share, cup], axis=1).reshape(-1)
        used = jnp.arange(marked) < s.marked_count
        box = jnp.concatenate(
            [
                f64(used)[:, None],
                f64((s.marked_kind[:, None] == jnp.arange(KINDS)) & used[:, None]),
                f64((s.marked_by[:, None] == seat) & used[:, None]),
                self._doses(s.marked_dose, s.marked_known, used, v),
            ],
            axis=1,
        ).reshape(-1)
        holding = s.hand_kind >= 0
        hand = jnp.concatenate(
            [
                f64((jnp.arange(KINDS) == s.hand_kind) & holding),
                self._doses(s.hand_dose, s.hand_known, holding, v),
            ]
        )
        stopping = ~s.eat_off & ~s.main_game_over & ~jnp.any(s.honour > 0)
        tail = [
            f64(s.eat_off),
            f64(s.main_game_over),
            f64(s.fresh_turn),
            f64((s.phase == TURN) & s.fresh_turn & stopping),
            f64(s.box) / SCONES,
            f64((s.turn_player == v) & ~over),
            f64(jnp.sum(s.scones, dtype=jnp.int64)) / SCONES,
        ]
        whole = jnp.concatenate(
            [
                seats,
                f64(s.unmarked) / 6,
                box,
                hand,
                f64(jnp.arange(5) == s.phase),
                jnp.stack(tail),
            ]
        )
        return whole.astype(jnp.float32)


def make(engine: Any) -> TeaSconesArsenicJax:
    """The JAX program of a numpy Tea, Scones and Arsenic engine."""
    return TeaSconesArsenicJax(engine)
