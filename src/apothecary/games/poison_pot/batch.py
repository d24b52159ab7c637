"""Poison Pot as an array program over a batch of games.

The rules are the scalar engine's (:mod:`apothecary.games.poison_pot.rules`,
its rules.md), laid out over arrays; every board radius (1 to 4) and both
player counts are played. A scalar turn is three actions: a slide, the draw
of a colour (chance), a placement. A batch step is one decision, so the draw
happens inside the slide's step: after ``step`` a game is always at a slide
or a placement, never at the draw. The colour is drawn from the game's key
with the scalar probabilities (count left / cauldrons left), or taken from
``chance`` (the scalar draw action id, ``circles**2 + colour``).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from apothecary.batch.core import TERMINAL_PLAYER, BatchGame, BatchState, fresh_common
from apothecary.batch.keys import U64, choose_weighted, episode_key, uniform
from apothecary.core.errors import IllegalActionError
from apothecary.games.poison_pot.rules import (
    EMPTY,
    OVER,
    PLACE,
    POT,
    SLIDE,
    PoisonPotGame,
    placers_of_last_two,
)

Ints = NDArray[np.int8]


@dataclasses.dataclass(frozen=True)
class PoisonPotBatchState(BatchState):
    """N games of Poison Pot (the scalar state's fields, as arrays)."""

    cells: Ints
    """(n, circles) what stands on each circle: empty 0, 1 + colour, the pot 4."""
    pot: Ints
    """(n,) the pot's circle."""
    remaining: Ints
    """(n, 3) face-down cauldrons left per colour."""
    phase: Ints
    """(n,) slide, place or over (the scalar phase numbers; never the draw)."""
    player: Ints
    """(n,) the seat whose turn it is."""
    drawn: Ints
    """(n,) the colour drawn and waiting to be placed, or -1."""
    placed: NDArray[np.int16]
    """(n,) cauldrons placed."""
    last_slide: NDArray[np.int32]
    """(n,) the last slide's action id (``from * circles + to``), or -1."""
    last_placement: Ints
    """(n,) the last placement's circle, or -1."""


def path_clear(
    empty: NDArray[np.bool_], before: NDArray[np.intp], steps: list[tuple[int, int]]
) -> NDArray[np.bool_]:
    """Per slide (rows: a ray's circles, nearest first, ``steps`` giving each
    distance's rows) and game (columns): its target and every circle before
    it on the ray (row ``before[row]``) are empty. A slide may not jump a piece."""
    clear = empty.copy()
    for low, high in steps[1:]:  # each distance over the whole batch at once
        clear[low:high] &= clear[before[low:high]]
    return clear


class PoisonPotBatch(BatchGame[PoisonPotBatchState]):
    """Poison Pot over a batch: 2 or 3 players, every board radius."""

    name: ClassVar[str] = "poison-pot"
    game: PoisonPotGame

    def __init__(self, game: PoisonPotGame) -> None:
        super().__init__(game)
        geometry = game.board
        size = geometry.size
        self.circles = size
        # Every slide of the scalar board's rays as a row: by distance, then
        # origin and direction, so each distance's rows follow the rows one
        # circle shorter that they extend (``before``, -1 at distance 1).
        rows: dict[tuple[int, int, int], int] = {}
        origins: list[int] = []
        targets: list[int] = []
        before: list[int] = []
        steps: list[tuple[int, int]] = []
        for distance in range(2 * geometry.radius):
            low = len(targets)
            for circle, circle_rays in enumerate(geometry.rays):
                for direction, ray in enumerate(circle_rays):
                    if distance < len(ray):
                        rows[distance, circle, direction] = len(targets)
                        origins.append(circle)
                        targets.append(ray[distance])
                        before.append(rows.get((distance - 1, circle, direction), -1))
            steps.append((low, len(targets)))
        self._origins = np.array(origins, dtype=np.intp)
        self._targets = np.array(targets, dtype=np.intp)
        self._nearer = np.array(before, dtype=np.intp)
        self._steps = steps
        self._slide_ids = self._origins * size + self._targets
        """The slide action id of each row."""
        # Off the board, a neighbour is an extra circle (``size``) that holds nothing.
        neighbours = np.full((size, 6), size, dtype=np.intp)
        for circle, near in enumerate(geometry.neighbours):
            neighbours[circle, : len(near)] = near
        self._neighbours = neighbours
        self._last_placer, self._placer_before = placers_of_last_two(
            self.num_players, game.cauldrons
        )

    # -- new games --------------------------------------------------------------------

    def _start(
        self, key: U64, episode: NDArray[np.int64], chance: NDArray[np.int64] | None = None
    ) -> PoisonPotBatchState:
        game, count = self.game, key.shape[0]
        cells = np.zeros((count, self.circles), dtype=np.int8)
        cells[:, game.board.centre] = POT
        state = PoisonPotBatchState(
            **fresh_common(key, episode, self.num_players, self.num_distinct_actions()),
            cells=cells,
            pot=np.full(count, game.board.centre, dtype=np.int8),
            remaining=np.full((count, 3), game.per_colour, dtype=np.int8),
            phase=np.full(count, SLIDE, dtype=np.int8),
            player=np.zeros(count, dtype=np.int8),
            drawn=np.full(count, -1, dtype=np.int8),
            placed=np.zeros(count, dtype=np.int16),
            last_slide=np.full(count, -1, dtype=np.int32),
            last_placement=np.full(count, -1, dtype=np.int8),
        )
        self._refresh(state)
        return state

    # -- a step -----------------------------------------------------------------------

    def _advance(
        self,
        state: PoisonPotBatchState,
        actions: NDArray[np.int64],
        chance: NDArray[np.int64] | None,
    ) -> None:
        s = state
        s.rewards[...] = 0.0
        slide = np.flatnonzero(s.phase == SLIDE)
        place = np.flatnonzero(s.phase == PLACE)
        colour = self._colours(s, slide, chance)
        self._slide(s, slide, actions[slide], colour)
        self._place(s, place, actions[place] - self.game.place_base)
        self._refresh(s)

    def _colours(
        self, s: PoisonPotBatchState, rows: NDArray[np.intp], chance: NDArray[np.int64] | None
    ) -> NDArray[np.int64]:
        """The colour each sliding game draws: given, or from its key."""
        remaining = s.remaining[rows].astype(np.int64)
        keys = episode_key(s.key[rows], s.episode[rows])
        colour = choose_weighted(uniform(keys, s.draws[rows]), remaining)
        s.draws[rows] += 1
        if chance is None:
            return colour
        given = chance[rows] - self.game.draw_base
        supplied = chance[rows] >= 0
        bad = supplied & ((given < 0) | (given > 2))
        bad |= supplied & ~bad & (remaining[np.arange(rows.size), np.clip(given, 0, 2)] == 0)
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            raise IllegalActionError(
                f"{self.name}: game {i}: chance {int(chance[i])} is not a colour left to draw "
                f"(the draws are {self.game.draw_base}..{self.game.draw_base + 2}, "
                f"with cauldrons left {s.remaining[i].tolist()})"
            )
        chosen: NDArray[np.int64] = np.where(supplied, given, colour)
        return chosen

    def _slide(
        self,
        s: PoisonPotBatchState,
        rows: NDArray[np.intp],
        a: NDArray[np.int64],
        colour: NDArray[np.int64],
    ) -> None:
        origin, target = np.divmod(a, self.circles)
        piece = s.cells[rows, origin]
        s.cells[rows, target] = piece
        s.cells[rows, origin] = EMPTY
        s.pot[rows] = np.where(piece == POT, target, s.pot[rows])
        s.last_slide[rows] = a
        # The draw the slide sets off (the scalar engine's chance node).
        s.remaining[rows, colour] -= 1
        s.drawn[rows] = colour
        s.phase[rows] = PLACE

    def _place(
        self, s: PoisonPotBatchState, rows: NDArray[np.intp], circle: NDArray[np.int64]
    ) -> None:
        s.cells[rows, circle] = s.drawn[rows] + 1
        s.drawn[rows] = -1
        s.last_placement[rows] = circle
        s.placed[rows] += 1
        over = s.placed[rows] == self.game.cauldrons
        s.player[rows] = np.where(over, s.player[rows], (s.player[rows] + 1) % self.num_players)
        s.phase[rows] = np.where(over, OVER, SLIDE)
        done = rows[over]
        if done.size:
            scores = self.final_scores(s.cells[done], s.pot[done])
            winners = scores == scores.max(axis=1, keepdims=True)
            s.rewards[done] = winners / winners.sum(axis=1, keepdims=True)

    def final_scores(self, cells: Ints, pot: Ints) -> NDArray[np.float64]:
        """(games, players) the scalar outcome's scores: each seat's largest
        group away from the pot, with the tie rule's half points."""
        scores = self.safe_groups(cells, pot).astype(np.float64)
        best = scores.max(axis=1, keepdims=True)
        tied = (scores == best).sum(axis=1) > 1
        scores[:, self._last_placer] += np.where(tied, 0.5, 0.0)
        scores[:, self._placer_before] -= np.where(tied, 0.5, 0.0)
        return scores

    def safe_groups(self, cells: Ints, pot: Ints) -> NDArray[np.int64]:
        """(games, players) each seat's largest group of its colour with no
        cauldron next to the pot (the scalar ``largest_groups``)."""
        count, size = cells.shape
        label = self._components(cells)
        # Sizes per (game, component label); components are numbered by circle.
        flat = label + (np.arange(count) * (size + 1))[:, None]
        sizes = np.bincount(flat.ravel(), minlength=count * (size + 1)).reshape(count, size + 1)
        near_pot = self._neighbours[pot]  # (games, 6), the extra circle where off the board
        padded = np.concatenate([label, np.full((count, 1), size)], axis=1)
        poisoned = np.zeros((count, size + 1), dtype=np.bool_)
        poisoned[np.arange(count)[:, None], np.take_along_axis(padded, near_pot, axis=1)] = True
        every = np.arange(count)[:, None]
        cell_size = np.where(poisoned[every, label], 0, sizes[every, label])
        groups = np.empty((count, self.num_players), dtype=np.int64)
        for seat in range(self.num_players):
            groups[:, seat] = np.where(cells == seat + 1, cell_size, 0).max(axis=1)
        return groups

    def _components(self, cells: Ints) -> NDArray[np.intp]:
        """Per circle, the least circle of its one-colour group (``size`` for an
        empty circle or the pot): label propagation until nothing changes."""
        count, size = cells.shape
        coloured = (cells >= 1) & (cells <= 3)
        label = np.where(coloured, np.arange(size), size)
        padded_cells = np.concatenate([cells, np.full((count, 1), -1, np.int8)], axis=1)
        # Per circle and direction: the neighbour holds the same colour.
        same = (padded_cells[:, self._neighbours] == cells[:, :, None]) & coloured[:, :, None]
        while True:
            padded = np.concatenate([label, np.full((count, 1), size)], axis=1)
            around = np.where(same, padded[:, self._neighbours], size).min(axis=2)
            new = np.minimum(label, around)
            new = np.take_along_axis(np.append(new, np.full((count, 1), size), axis=1), new, 1)
            if np.array_equal(new, label):
                return label
            label = new

    def _refresh(self, s: PoisonPotBatchState) -> None:
        """The fields a learner reads: current player, terminated, legal mask."""
        over = s.phase == OVER
        s.current_player[...] = np.where(over, TERMINAL_PLAYER, s.player)
        s.terminated[...] = over
        mask = s.legal_action_mask
        mask[...] = False
        # A slide: a piece on the origin, every circle up to the target empty.
        # Computed slide by game (the transpose), so each distance is a block.
        empty = (s.cells == EMPTY).T
        free = path_clear(empty[self._targets], self._nearer, self._steps)
        movable = ((s.cells != EMPTY) & (s.phase == SLIDE)[:, None]).T
        mask[:, self._slide_ids] = (free & movable[self._origins]).T
        base = self.game.place_base
        mask[:, base:] = (s.cells == EMPTY) & (s.phase == PLACE)[:, None]

    # -- what each seat sees -----------------------------------------------------------

    def _observe(self, state: PoisonPotBatchState, out: NDArray[np.float32]) -> None:
        """(n, players, size): each seat's scalar ``observation_tensor``: five
        planes per circle, the pile's fractions, the phase, the colour drawn,
        the seat to move, the viewer, the last slide and placement."""
        s, game = state, self.game
        count, size, players = s.size, self.circles, self.num_players
        every = np.arange(count)
        common = np.zeros((count, self.observation_tensor_size()), dtype=np.float32)
        common[every[:, None], 5 * np.arange(size) + s.cells] = 1.0
        at = 5 * size
        common[:, at : at + 3] = s.remaining / game.per_colour
        common[every, at + 3 + s.phase.astype(np.intp)] = 1.0
        at += 7
        drawn = np.flatnonzero(s.drawn >= 0)
        common[drawn, at + s.drawn[drawn].astype(np.intp)] = 1.0
        at += 3
        moving = np.flatnonzero(s.phase != OVER)
        common[moving, at + s.player[moving].astype(np.intp)] = 1.0
        viewer = at + players
        at += 2 * players
        slid = np.flatnonzero(s.last_slide >= 0)
        origin, target = np.divmod(s.last_slide[slid], size)
        common[slid, at + origin] = 1.0
        common[slid, at + size + target] = 1.0
        placed = np.flatnonzero(s.last_placement >= 0)
        common[placed, at + 2 * size + s.last_placement[placed].astype(np.intp)] = 1.0
        out[...] = common[:, None, :]
        out[:, np.arange(players), viewer + np.arange(players)] = 1.0
