"""Poison Pot as a JAX program: one game's step and observation, which
:class:`~apothecary.batch.jax.core.JaxBatchGame` lays over the batch.

The rules and tables are the numpy engine's
(:mod:`apothecary.games.poison_pot.batch`): its rays by distance, its slide
ids, its neighbours, its placers of the last two cauldrons. The colour a
slide draws comes from the game's key through the same functions
(:func:`~apothecary.batch.keys.episode_key`, :func:`~apothecary.batch.keys.uniform`,
:func:`~apothecary.batch.keys.choose_weighted`) run on JAX arrays, so a seed
draws the same colours under both backends; ``chance`` supplies them instead.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from apothecary.batch.core import TERMINAL_PLAYER
from apothecary.batch.jax.core import JaxBatchGame, pick, put, replace
from apothecary.batch.keys import choose_weighted, episode_key, uniform
from apothecary.games.poison_pot.batch import PoisonPotBatch, PoisonPotBatchState
from apothecary.games.poison_pot.rules import EMPTY, OVER, PLACE, POT, SLIDE, PoisonPotGame

State = PoisonPotBatchState
Array = Any
"""A JAX array (or tracer): typed Any, since JAX is optional and may be absent for the checker."""


class PoisonPotJax(JaxBatchGame[PoisonPotBatchState]):
    """Poison Pot under ``jax.jit``/``vmap``: 2 or 3 players, every board radius."""

    engine: PoisonPotBatch
    game: PoisonPotGame

    def __init__(self, engine: PoisonPotBatch) -> None:
        super().__init__(engine)
        game = engine.game
        size = engine.circles
        self._size = size
        self._draw_base, self._place_base = int(game.draw_base), int(game.place_base)
        self._cauldrons, self._per_colour = int(game.cauldrons), int(game.per_colour)
        # The slide rules as bit masks over the board (a circle a bit; at most
        # 61 circles, so a uint64): per slide action id, the circles its path
        # covers (the target and every circle before it on the ray) and its
        # origin. A slide is legal when those circles are all empty and the
        # origin is not: a few element-wise operations per action id against
        # constants, where the numpy engine's gathers along the rays (under
        # vmap, a general gather per game) cost XLA's CPU backend ~2 ns an entry.
        paths = [0] * len(engine._targets)
        for row, (target, nearer) in enumerate(zip(engine._targets, engine._nearer, strict=True)):
            paths[row] = (1 << int(target)) | (paths[nearer] if nearer >= 0 else 0)
        path = np.zeros(size * size, dtype=np.uint64)
        origin = np.zeros(size * size, dtype=np.uint64)
        slide = np.zeros(size * size, dtype=np.bool_)
        path[engine._slide_ids] = np.array(paths, dtype=np.uint64)
        origin[engine._slide_ids] = engine._origins.astype(np.uint64)
        slide[engine._slide_ids] = True
        self._path, self._origin, self._is_slide = path, origin, slide
        adjacent = np.zeros((size, size + 1), dtype=np.bool_)
        adjacent[np.arange(size)[:, None], engine._neighbours] = True
        self._adjacent = adjacent[:, :size]  # the extra column: off the board
        self._bit = np.left_shift(np.uint64(1), np.arange(size, dtype=np.uint64))

    # -- a step -----------------------------------------------------------------------

    def _advance_one(self, s: State, a: Array, chance: Array) -> State:
        size = self._size
        slide = s.phase == SLIDE
        # The draw the slide sets off: from the key, or supplied.
        key = episode_key(s.key[None], s.episode[None])
        drawn = choose_weighted(uniform(key, s.draws[None]), s.remaining.astype(jnp.int64)[None])[0]
        given = chance[0]
        colour = jnp.where(given >= 0, given - self._draw_base, drawn)
        # The slide.
        origin, target = a // size, a % size
        piece = pick(s.cells, origin)
        slid = replace(
            s,
            cells=put(put(s.cells, target, piece), origin, EMPTY),
            pot=jnp.where(piece == POT, target, s.pot),
            last_slide=a,
            remaining=s.remaining - (jnp.arange(3) == colour),
            drawn=colour,
            phase=PLACE,
            draws=s.draws + 1,
            rewards=jnp.zeros_like(s.rewards),
        )
        # The placement.
        circle = a - self._place_base
        cells = put(s.cells, circle, s.drawn + 1)
        placed = s.placed + 1
        over = placed == self._cauldrons
        players = self.num_players
        put_down = replace(
            s,
            cells=cells,
            drawn=-1,
            last_placement=circle,
            placed=placed,
            player=jnp.where(over, s.player, (s.player + 1) % players),
            phase=jnp.where(over, OVER, SLIDE),
            rewards=jnp.zeros_like(s.rewards),  # the ending games': _step_all's
        )
        chosen = jax.tree_util.tree_map(lambda x, y: jnp.where(slide, x, y), slid, put_down)
        return self._refresh(chosen)

    def _step_all(self, state: State, actions: Array, chance: Array) -> State:
        """The common step, then the rewards of the games this step ended.

        Scoring (the groups by label propagation) is the costly part of a
        step and only the games placing their last cauldron need it (one
        step in 2 × cauldrons), so it runs over those games only: a
        ``while_loop`` that scores them a block (a 16th of the batch) at a
        time, gathered by ``nonzero``, and takes no turn at the steps where
        no game ends. (A ``lax.cond`` or ``switch`` between scoring and not
        cost some 6 ms at 4,096 games even untaken, three times the rest of
        the step; the loop's untaken body costs nothing measurable.)"""
        moved = super()._step_all(state, actions, chance)
        ended = (moved.phase == OVER) & ~state.terminated
        block = max(1, ended.shape[0] // 16)
        score = jax.vmap(self._rewards)

        def more(carry: tuple[Array, Array]) -> Array:
            return jnp.any(carry[1])

        def one_block(carry: tuple[Array, Array]) -> tuple[Array, Array]:
            rewards, waiting = carry
            rows = jnp.nonzero(waiting, size=block, fill_value=-1)[0]
            real = rows >= 0
            rows = jnp.where(real, rows, rows.max())  # padding repeats a real row
            part = score(moved.cells[rows], moved.pot[rows])
            return rewards.at[rows].set(part), waiting.at[rows].set(False)

        rewards, _ = jax.lax.while_loop(more, one_block, (moved.rewards, ended))
        return replace(moved, rewards=rewards)

    def _score_one(self, before: State, moved: State) -> State:
        """One game's rewards when this step ends it (the pgx env's step):
        a ``lax.cond``, which under a caller's ``vmap`` scores every game."""
        ended = (moved.phase == OVER) & ~before.terminated
        rewards = jax.lax.cond(
            ended, lambda: self._rewards(moved.cells, moved.pot), lambda: moved.rewards
        )
        return replace(moved, rewards=rewards)

    def _rewards(self, cells: Array, pot: Array) -> Array:
        """A finished game's rewards: the winners (best scores) share 1."""
        scores = self._final_scores(cells, pot)
        winners = scores == scores.max()
        return (winners / winners.sum()).astype(jnp.float32)

    def _final_scores(self, cells: Array, pot: Array) -> Array:
        """The numpy ``final_scores`` for one game: each seat's largest safe
        group, with the tie rule's half points."""
        groups = self._safe_groups(cells, pot).astype(jnp.float64)
        best = groups.max()
        tied = (groups == best).sum() > 1
        seats = jnp.arange(self.num_players)
        half = jnp.where(tied, 0.5, 0.0)
        groups = groups + jnp.where(seats == self.engine._last_placer, half, 0.0)
        return groups - jnp.where(seats == self.engine._placer_before, half, 0.0)

    def _safe_groups(self, cells: Array, pot: Array) -> Array:
        """Each seat's largest one-colour group with no cauldron next to the pot.

        No gathers: the circles next to the pot are a row of a constant
        adjacency matrix (picked by a compare-and-select), and a circle is
        poisoned when a circle of its group is one of them. A dynamic gather
        here (the labels of the pot's neighbours) made even the untaken
        branch of the step's scoring switch cost some 6 ms at 4,096 games."""
        label = self._components(cells)
        # A circle's group: the circles sharing its label (empty circles share
        # ``size``, never counted below, where only a seat's colour is read).
        same_group = label[:, None] == label[None, :]
        sizes = same_group.sum(axis=1)
        near_pot = pick(jnp.asarray(self._adjacent), pot)  # (size,) bool
        poisoned = jnp.any(same_group & near_pot[None, :], axis=1)
        cell_size = jnp.where(poisoned, 0, sizes)
        colours = jnp.arange(1, self.num_players + 1)
        return jnp.where(cells[None, :] == colours[:, None], cell_size[None, :], 0).max(axis=1)

    def _components(self, cells: Array) -> Array:
        """Per circle the least circle of its one-colour group (``size`` for an
        empty circle or the pot): the numpy engine's label propagation."""
        size = self._size
        neighbours = jnp.asarray(self.engine._neighbours)
        coloured = (cells >= 1) & (cells <= 3)
        start = jnp.where(coloured, jnp.arange(size), size)
        padded_cells = jnp.concatenate([cells, jnp.array([-1], cells.dtype)])
        same = (padded_cells[neighbours] == cells[:, None]) & coloured[:, None]
        end = jnp.array([size])

        def spread(label: Array) -> Array:
            around = jnp.where(same, jnp.concatenate([label, end])[neighbours], size).min(axis=1)
            new = jnp.minimum(label, around)
            return jnp.concatenate([new, end])[new]

        def busy(carry: tuple[Array, Array]) -> Array:
            label, new = carry
            return jnp.any(label != new)

        def again(carry: tuple[Array, Array]) -> tuple[Array, Array]:
            _, new = carry
            return new, spread(new)

        _, label = jax.lax.while_loop(busy, again, (start, spread(start)))
        return label

    def _refresh(self, s: State) -> State:
        """Current player, terminated and the legal mask (the numpy ``_refresh``)."""
        over = s.phase == OVER
        empty = s.cells == EMPTY
        bits = jnp.sum(jnp.where(empty, self._bit, jnp.uint64(0)), dtype=jnp.uint64)
        path = jnp.asarray(self._path)
        origin_full = ((~bits >> jnp.asarray(self._origin)) & jnp.uint64(1)) == 1
        slide_mask = self._is_slide & ((bits & path) == path) & origin_full & (s.phase == SLIDE)
        place_mask = empty & (s.phase == PLACE)
        mask = jnp.concatenate([slide_mask, jnp.zeros(3, jnp.bool_), place_mask])
        return replace(
            s,
            current_player=jnp.where(over, TERMINAL_PLAYER, s.player),
            terminated=over,
            legal_action_mask=mask,
        )

    def _check_outcomes(self, state: State, chance: Array) -> None:
        """Refuse a supplied colour that is not left to draw, as the numpy engine does."""
        table = np.asarray(chance)[:, 0]
        sliding = (np.asarray(state.phase) == SLIDE) & ~np.asarray(state.terminated)
        remaining = np.asarray(state.remaining)
        given = table - self._draw_base
        supplied = sliding & (table >= 0)
        bad = supplied & ((given < 0) | (given > 2))
        left = remaining[np.arange(table.shape[0]), np.clip(given, 0, 2)]
        bad |= supplied & ~bad & (left == 0)
        if bad.any():
            from apothecary.core.errors import IllegalActionError

            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"{self.name}: game {i}: chance {int(table[i])} is not a colour left to draw "
                f"(the draws are {self._draw_base}..{self._draw_base + 2}, "
                f"with cauldrons left {remaining[i].tolist()})"
            )

    # -- what each seat sees ------------------------------------------------------------

    def _observe_one(self, s: State) -> Array:
        """(players, size): each seat's scalar ``observation_tensor`` (the numpy
        ``_observe``'s layout, for one game)."""
        size, players = self._size, self.num_players
        circles = jnp.arange(size)
        f32 = jnp.float32
        planes = (s.cells[:, None] == jnp.arange(5)[None, :]).astype(f32).reshape(-1)
        pile = (s.remaining.astype(jnp.float64) / self._per_colour).astype(f32)
        phase = (jnp.arange(4) == s.phase).astype(f32)
        drawn = ((jnp.arange(3) == s.drawn) & (s.drawn >= 0)).astype(f32)
        mover = ((jnp.arange(players) == s.player) & (s.phase != OVER)).astype(f32)
        slid = s.last_slide >= 0
        origin, target = s.last_slide // size, s.last_slide % size
        last = jnp.concatenate(
            [
                slid & (circles == origin),
                slid & (circles == target),
                (s.last_placement >= 0) & (circles == s.last_placement),
            ]
        ).astype(f32)
        viewer = jnp.eye(players, dtype=f32)
        before = jnp.concatenate([planes, pile, phase, drawn, mover])
        obs = jnp.concatenate(
            [
                jnp.broadcast_to(before, (players, before.shape[0])),
                viewer,
                jnp.broadcast_to(last, (players, last.shape[0])),
            ],
            axis=1,
        )
        assert obs.shape[1] == self.observation_tensor_size()
        return obs


def make(engine: Any) -> PoisonPotJax:
    """The JAX program of a numpy Poison Pot engine."""
    return PoisonPotJax(engine)
