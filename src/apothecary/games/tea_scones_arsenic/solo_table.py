"""Tea, Scones and Arsenic solo solved exactly: a bottom-up dynamic program over
symmetric positions, and the policy table the ``solo-optimal`` bot plays.

The unreduced game (:class:`~apothecary.games.tea_scones_arsenic.solo.SoloSolver`) is
cut down by four reductions that keep the optimum exact (each proved in
docs/solvers.md and checked against the unreduced expectimax on small boxes in
exact fractions, ``tests/bots/solvers/test_solver_tsa_solo_table.py``):

1. the kinds are interchangeable, so a box is the *sorted* tuple of its kinds'
   unmarked doses (a "pool");
2. shuffling never helps alone;
3. a scone is put back only to be eaten, if ever, at the very end: a marked
   scone is taken only when the player is done drawing, and then eaten
   lightest first while it fits; so a marked scone's kind never matters, only
   its dose;
4. a dose-0 scone is never put back.

A position is then a pool and a *mark state*: the cubes left and the doses of
the marked scones (at most ``cubes`` of them, all above 0). Scones eaten and
their dose follow (the box started full). Every draw takes one scone out of
the pool for good, so the positions fall into layers by the number of scones
in the pool, and each layer's values need only the layer below: the program
runs from the empty pool up to the full box, one layer at a time, vectorised
over all pools of a layer and all mark states at once (numpy).

Alongside the values it keeps one byte of policy per position (see
:data:`STOP_BIT`): the best kind to draw, whether stopping is at least as good,
and, for the position as it is left *after* a scone was drawn, whether putting
that scone back beats eating it. The table for the real box is 157 MB; it is
cached on disk (:func:`cache_path`) and rebuilt when missing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import comb
from pathlib import Path
from typing import Any

from apothecary.core.errors import ApothecaryError, BadOptionError

POSITION_MASK = 0b111
"""Bits 0-2 of a policy byte: the sorted position of the kind to draw (7: none)."""
NO_DRAW = 7
STOP_BIT = 1 << 3
"""Bit 3: stopping (after eating the marked scones that fit) is at least as good as any draw."""
BACK_SHIFT = 4
"""Bits 4-7: for each dose value (by index), putting back a scone of that dose,
drawn so that the position left is this one, beats eating it."""

TABLE_VERSION = 1

CHUNK = 1 << 15
"""Pools solved at once within a layer."""

Progress = Callable[[int, int], None]
"""Called with (scones of the box done, total) as the layers are solved."""


@dataclass(frozen=True)
class SoloBox:
    """A solo box: ``kinds`` alike kinds of ``doses`` each, ``cubes`` sugar cubes
    and the ``lethal`` dose. The real game is the default."""

    kinds: int = 6
    doses: tuple[int, ...] = (0, 0, 1, 1, 2, 3)
    cubes: int = 3
    lethal: int = 30

    def __post_init__(self) -> None:
        if not 1 <= self.kinds <= 7 or not self.doses or min(self.doses) < 0:
            raise BadOptionError(f"a solo box needs 1 to 7 kinds and doses >= 0, got {self}")
        if len(set(self.doses)) > 4 or not 0 <= self.cubes <= 6 or self.lethal < 1:
            raise BadOptionError(
                f"a solo box needs at most 4 dose values, 0-6 cubes, lethal >= 1: {self}"
            )


@dataclass
class Layout:
    """The numbering of a box's positions: kinds' records, pools and mark states."""

    box: SoloBox
    values: tuple[int, ...] = field(init=False)
    records: list[tuple[int, ...]] = field(init=False)
    record_id: dict[tuple[int, ...], int] = field(init=False)
    marks: list[tuple[int, tuple[int, ...]]] = field(init=False)
    mark_id: dict[tuple[int, tuple[int, ...]], int] = field(init=False)

    def __post_init__(self) -> None:
        box = self.box
        self.values = tuple(sorted(set(box.doses)))
        full = [box.doses.count(v) for v in self.values]
        # A kind's record: how many of each dose value are still unmarked.
        self.records = sorted(
            itertools.product(*(range(n + 1) for n in full)), key=lambda r: (sum(r), r)
        )
        self.record_id = {r: i for i, r in enumerate(self.records)}
        nonzero = [v for v in self.values if v > 0]
        self.marks = [
            (cubes, marked)
            for cubes in range(box.cubes, -1, -1)
            for size in range(box.cubes - cubes + 1)
            for marked in itertools.combinations_with_replacement(nonzero, size)
        ]
        self.mark_id = {m: i for i, m in enumerate(self.marks)}

    @property
    def pools(self) -> int:
        """How many sorted tuples of records there are."""
        return comb(len(self.records) + self.box.kinds - 1, self.box.kinds)

    def rank(self, pool: tuple[int, ...]) -> int:
        """The row of a sorted tuple of record ids (colex rank of the multiset)."""
        return sum(comb(r + j, j + 1) for j, r in enumerate(pool))

    def pool_of(self, kinds: list[tuple[int, ...]]) -> tuple[tuple[int, ...], list[int]]:
        """The sorted record ids of these kinds' records, and which kind sits at
        each sorted position."""
        ids = [self.record_id[r] for r in kinds]
        order = sorted(range(len(ids)), key=lambda k: (ids[k], k))
        return tuple(ids[k] for k in order), order

    def greedy(self, marked: tuple[int, ...], room: int) -> int:
        """How many marked scones fit, eaten lightest first, with ``room`` to spare."""
        eaten = 0
        for dose in marked:
            if dose >= room:
                break
            room -= dose
            eaten += 1
        return eaten

    def with_mark(self, mark: int, value: int) -> int:
        """The mark state after putting back a scone of ``value`` (-1 if none:
        no cube, or a dose 0, which is never put back)."""
        cubes, marked = self.marks[mark]
        if cubes == 0 or value == 0:
            return -1
        return self.mark_id[(cubes - 1, tuple(sorted((*marked, value))))]


def _sorted_tuples(np: Any, values: int, length: int) -> Any:
    """Every non-decreasing tuple of ``length`` numbers below ``values``, as rows."""
    rows = np.arange(values, dtype=np.int64)[:, None]
    for _ in range(length - 1):
        last = rows[:, -1]
        repeats = values - last
        grown = np.repeat(rows, repeats, axis=0)
        # each row is followed by every value from its last one up
        starts = np.repeat(np.cumsum(repeats) - repeats, repeats)
        following = np.arange(len(grown)) - starts + np.repeat(last, repeats)
        rows = np.concatenate([grown, following[:, None]], axis=1)
    return rows


def _numpy() -> Any:
    try:
        import numpy
    except ModuleNotFoundError:
        raise ApothecaryError(
            "the exact Tea, Scones and Arsenic solo solver needs numpy: "
            "pip install 'apothecary[study]'"
        ) from None
    return numpy


@dataclass
class SoloSolution:
    """The result of :func:`solve`: the optimal expected score from the opening,
    the policy byte of every position, and what it cost."""

    box: SoloBox
    value: float | Fraction
    policy: Any  # numpy uint8 array, pools x mark states
    seconds: float
    positions: int
    values: dict[tuple[int, int], float | Fraction] = field(default_factory=dict)
    """With ``keep_values``: every position's value by (pool row, mark state)."""

    @cached_property
    def layout(self) -> Layout:
        """The numbering the policy rows and columns follow."""
        return Layout(self.box)


def memory_needed(box: SoloBox) -> int:
    """Bytes a solve of ``box`` needs at its peak, roughly: the policy table, the
    pools and their bookkeeping, two layers of values and a chunk's temporaries."""
    layout = Layout(box)
    pools, marks, kinds = layout.pools, len(layout.marks), box.kinds
    columns = (marks + 1) * 8
    need = pools * (marks + kinds * 8 * 3 + 8 * 6)
    need += _largest_layer(layout) * columns * 2 + CHUNK * columns * 12
    return int(need * 1.25)


def _largest_layer(layout: Layout) -> int:
    """The most pools with the same number of scones (counted, not listed)."""
    # ways[k][s]: multisets of k records (of those seen so far) holding s scones
    kinds = layout.box.kinds
    most = len(layout.box.doses) * kinds
    ways = [[0] * (most + 1) for _ in range(kinds + 1)]
    ways[0][0] = 1
    for record in layout.records:
        size = sum(record)
        for k in range(kinds, 0, -1):
            for times in range(1, k + 1):
                for s in range(times * size, most + 1):
                    ways[k][s] += ways[k - times][s - times * size]
    return max(ways[kinds])


def solve(
    box: SoloBox = SoloBox(),
    *,
    exact: bool = False,
    keep_values: bool = False,
    up_to: int | None = None,
    progress: Progress | None = None,
) -> SoloSolution:
    """Solve ``box`` bottom-up. ``exact`` computes in fractions (small boxes
    only); ``keep_values`` keeps every position's value (for tests); ``up_to``
    stops after the positions with that many unmarked scones (the policy is
    then right for those only, and the value is NaN)."""
    np = _numpy()
    start = time.perf_counter()
    layout = Layout(box)
    kinds, width = box.kinds, len(layout.values)
    scones, total_dose = kinds * len(box.doses), kinds * sum(box.doses)
    records = np.array(layout.records, dtype=np.int64).reshape(len(layout.records), width)
    record_size = records.sum(axis=1)
    record_dose = records @ np.array(layout.values, dtype=np.int64)
    # record_minus[r, v]: the record left when a scone of value index v leaves r
    record_minus = np.full((len(records), width), -1, dtype=np.int64)
    for r, counts in enumerate(layout.records):
        for v in range(width):
            if counts[v]:
                less = (*counts[:v], counts[v] - 1, *counts[v + 1 :])
                record_minus[r, v] = layout.record_id[less]
    binom = np.array(
        [[comb(n, k) for k in range(kinds + 1)] for n in range(len(records) + kinds + 1)],
        dtype=np.int64,
    )
    shift = np.arange(kinds)

    def rank(tuples: Any) -> Any:
        return binom[tuples + shift, shift + 1].sum(axis=1)

    pools = _sorted_tuples(np, len(records), kinds)
    order = np.argsort(rank(pools), kind="stable")
    pools = pools[order]
    sizes = record_size[pools].sum(axis=1)
    pool_dose = record_dose[pools].sum(axis=1)

    marks = len(layout.marks)
    mark_count = np.array([len(m) for _, m in layout.marks], dtype=np.int64)
    mark_dose = np.array([sum(m) for _, m in layout.marks], dtype=np.int64)
    # greedy[m, room]: marked scones eaten at the stop
    greedy = np.array(
        [[layout.greedy(m, room) for room in range(box.lethal + 1)] for _, m in layout.marks],
        dtype=np.int64,
    )
    # back[v][m]: the mark state after putting back value v, or the dummy column
    back = [
        np.array(
            [
                w if (w := layout.with_mark(m, value)) >= 0 else marks
                for m in range(len(layout.marks))
            ],
            dtype=np.int64,
        )
        for value in layout.values
    ]
    dtype: Any = object if exact else np.float64
    minus_inf: Any = float("-inf")
    zero: Any = Fraction(0) if exact else 0.0

    policy = np.zeros((len(pools), marks), dtype=np.uint8)
    local = np.zeros(len(pools), dtype=np.int64)
    kept: dict[tuple[int, int], float | Fraction] = {}
    last = scones if up_to is None else min(up_to, scones)

    def layer_values(u: int, rows: Any, below: Any) -> tuple[Any, Any]:
        """Values (with the -inf dummy column) and policy bytes of ``rows``, all
        pools of ``u`` unmarked scones, from the values ``below`` of layer u-1."""
        tuples = pools[rows]
        dead_at = total_dose - pool_dose[rows][:, None] - mark_dose[None, :]  # dose eaten
        alive = dead_at < box.lethal
        room = np.clip(box.lethal - dead_at, 0, box.lethal)
        eaten = scones - u - mark_count[None, :]
        stop = (eaten + greedy[np.arange(marks)[None, :], room]).astype(dtype)
        best = np.full((len(rows), marks), minus_inf, dtype=dtype)
        pick = np.full((len(rows), marks), NO_DRAW, dtype=np.uint8)
        for i in range(kinds if u else 0):
            record = tuples[:, i]
            size = record_size[record]
            draw = np.full((len(rows), marks), zero, dtype=dtype)
            for v in range(width):
                count = records[record, v]
                some = np.nonzero(count)[0]
                if not len(some):
                    continue
                after = tuples[some].copy()
                after[:, i] = record_minus[record[some], v]
                after.sort(axis=1)
                there = below[local[rank(after)]]
                lives = dead_at[some] + layout.values[v] < box.lethal
                eat = np.where(lives, there[:, :marks], zero)
                hand = np.maximum(eat, there[:, back[v]])
                if exact:
                    pairs = zip(count[some].tolist(), size[some].tolist(), strict=True)
                    odds = np.array([Fraction(c, n) for c, n in pairs], dtype=object)
                else:
                    odds = count[some] / size[some]
                draw[some] += odds[:, None] * hand
            draw[size == 0] = minus_inf
            better = (draw > best).astype(bool)
            best = np.where(better, draw, best)
            pick[better] = i
        value = np.where(alive, np.maximum(stop, best), zero)
        byte = pick | np.where((stop >= best).astype(bool), STOP_BIT, 0).astype(np.uint8)
        layer = np.concatenate([value, np.full((len(rows), 1), minus_inf, dtype=dtype)], axis=1)
        # as the position left after a draw: is putting the drawn scone back better?
        eat_here = np.where(alive, value, zero)
        for v in range(width):
            beats = (layer[:, back[v]] > eat_here).astype(bool)
            byte |= np.where(beats, 1 << (BACK_SHIFT + v), 0).astype(np.uint8)
        return layer, byte

    below: Any = None  # the values of the layer below, with a -inf dummy column
    for u in range(last + 1):
        rows = np.nonzero(sizes == u)[0]
        local[rows] = np.arange(len(rows))
        layer = np.empty((len(rows), marks + 1), dtype=dtype)
        # in chunks, so that the temporaries stay small and their memory is reused
        for first in range(0, len(rows), CHUNK):
            chunk = rows[first : first + CHUNK]
            layer[first : first + CHUNK], policy[chunk] = layer_values(u, chunk, below)
        if keep_values:
            for j, row in enumerate(rows.tolist()):
                for m in range(marks):
                    kept[(row, m)] = layer[j, m]
        below = layer
        if progress is not None:
            progress(u, scones)
    full = layout.rank((len(records) - 1,) * kinds)
    opening = below[local[full], layout.mark_id[(box.cubes, ())]] if last == scones else np.nan
    return SoloSolution(
        box=box,
        value=opening if exact else float(opening),
        policy=policy,
        seconds=time.perf_counter() - start,
        positions=len(pools) * marks,
        values=kept,
    )


# -- the cached table of the real box -----------------------------------------


def cache_path(box: SoloBox = SoloBox()) -> Path:
    """Where the policy table of ``box`` is kept: ``$APOTHECARY_CACHE``, else
    ``$XDG_CACHE_HOME/apothecary``, else ``~/.cache/apothecary``."""
    folder = os.environ.get("APOTHECARY_CACHE")
    if not folder:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = str(Path(xdg) / "apothecary")
    name = f"tsa-solo-v{TABLE_VERSION}-{box.kinds}x{''.join(map(str, box.doses))}"
    return Path(folder) / f"{name}-c{box.cubes}-l{box.lethal}.npz"


def save(solution: SoloSolution, path: Path | None = None) -> Path:
    """Write the policy table and the value (compressed) for later loads."""
    np = _numpy()
    path = path or cache_path(solution.box)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez_compressed(
        partial,
        policy=solution.policy,
        value=np.array([float(solution.value)]),
        seconds=np.array([solution.seconds]),
    )
    partial.replace(path)
    return path


def load(box: SoloBox = SoloBox(), path: Path | None = None) -> SoloSolution | None:
    """The cached solution of ``box``, or None when there is none (or it is unreadable)."""
    np = _numpy()
    path = path or cache_path(box)
    try:
        with np.load(path) as data:
            policy = data["policy"]
            value = float(data["value"][0])
            seconds = float(data["seconds"][0])
    except (OSError, KeyError, ValueError):
        return None
    layout = Layout(box)
    if policy.shape != (layout.pools, len(layout.marks)):
        return None
    return SoloSolution(box, value, policy, seconds, policy.size)


def obtain(box: SoloBox = SoloBox(), *, path: Path | None = None) -> SoloSolution:
    """The solution of ``box``: already loaded in this process, else from the
    cache on disk, else solved now (with a progress bar on stderr when it is a
    terminal) and cached for next time."""
    import sys

    where = path or cache_path(box)
    known = _LOADED.get((box, where))
    if known is not None:
        return known
    cached = load(box, where)
    if cached is None:
        # Several processes may want the table at once (test workers, server bot
        # pools): one solves while the others wait on the lock, then load its file.
        with _solving_lock(where):
            cached = load(box, where)
            if cached is None:
                print(
                    f"Solving Tea, Scones and Arsenic solo exactly (first use; a few "
                    f"minutes); the table will be kept in {where}",
                    file=sys.stderr,
                )
                with progress_bar("solving solo, layer by layer") as update:
                    cached = solve(box, progress=update)
                save(cached, where)
    _LOADED[(box, where)] = cached
    return cached


@contextlib.contextmanager
def _solving_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock beside ``path`` (POSIX ``flock``; elsewhere no
    lock, and two processes may both solve, which costs time but is safe since
    :func:`save` replaces the file atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_LOADED: dict[tuple[SoloBox, Path], SoloSolution] = {}
"""Solutions loaded in this process: every bot shares one table."""


def progress_bar(label: str) -> Any:
    """A context manager yielding a :data:`Progress` callback that drives a rich
    progress bar on stderr (shown only on a terminal)."""
    import sys
    from contextlib import contextmanager

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TimeElapsedColumn

    @contextmanager
    def bar() -> Any:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
            disable=not sys.stderr.isatty(),
        ) as shown:
            task = shown.add_task(label, total=None)

            def update(done: int, total: int) -> None:
                # Layers near the middle hold most pools: weigh each by its share.
                shown.update(task, completed=_share(done, total), total=1.0)

            yield update

    return bar()


def _share(done: int, total: int) -> float:
    """The share of a solve's work done after ``done`` of ``total`` layers,
    taking a layer's work as the binomial weight of its size."""
    weights = [comb(total, k) for k in range(total + 1)]
    return sum(weights[: done + 1]) / sum(weights)
