"""In Vino Morte: the round games as numpy arrays, solved to an equilibrium by
linear CFR and then Newton's method on the equilibrium conditions; exact
values and best responses of the whole game, round by round.

:mod:`.ivm_cfr` builds each round's tree through the protocol and plays the
stored strategies; this module only computes them (offline: the benchmark
``benchmarks/solve_in_vino_morte.py`` and the tests), so it may need numpy and
SciPy, which the bot does not. docs/solvers.md explains why the round-by-round
best response is the whole game's.

A round's tree is stored level by level (every information set of a round sits
at one depth: a deal information set at the number of glasses poured, the turn
of relative seat r at depth k + r - 1; checked when the arrays are built), and
a strategy profile is one flat vector over every (information set, action)
pair, its *slots*. One top-down pass gives every node's reach by each seat, one
bottom-up pass every node's value to each seat; both take a batch of profiles
at once (leading axes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from apothecary.games.in_vino_morte.cfr import RoundTree

Array = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass
class Level:
    """The edges from one depth's decision nodes to their children."""

    parent: IntArray
    child: IntArray
    slot: IntArray
    """Each edge's (information set, action) slot."""
    mover: IntArray
    """Each edge's parent's relative seat to move."""
    parents: IntArray
    """The depth's decision nodes, in edge order."""
    starts: IntArray
    """Where each of them starts in the edges (edges are grouped by parent)."""
    by_slot: IntArray
    """The edges in slot order, and where each slot starts in that order: sums
    over the nodes of an information set by ``np.add.reduceat``."""
    slot_starts: IntArray
    slot_ids: IntArray


class VecRound:
    """One round of k players as arrays, its leaves worth given values."""

    def __init__(self, tree: RoundTree) -> None:
        self.tree = tree
        self.k = k = tree.k
        n = len(tree.player)
        sizes = [len(a) for a in tree.actions]
        self.offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.slots = int(self.offset[-1])
        self.slot_info = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
        self.info_player = np.full(len(sizes), -1, dtype=np.int64)
        depth = [0] * n
        for node in range(n):  # children always follow their parent
            for child in tree.children[node]:
                depth[child] = depth[node] + 1
        edges: dict[int, list[tuple[int, int, int, int]]] = {}
        for node in range(n):
            p = tree.player[node]
            if p < 0:
                continue
            i = tree.info[node]
            self.info_player[i] = p
            base = int(self.offset[i])
            for a, child in enumerate(tree.children[node]):
                edges.setdefault(depth[node], []).append((node, child, base + a, p))
        self.levels = [_level(edges[d]) for d in sorted(edges)]
        # The best response resolves an information set within one level.
        depths = [np.unique(lv.slot) for lv in self.levels]
        if sum(len(d) for d in depths) != len(np.unique(np.concatenate(depths))):
            raise AssertionError("an information set spans two depths of the round")
        self.leaves = np.array([m for m in range(n) if tree.leaf[m] is not None], dtype=np.int64)
        # per leaf and seat: the round it leads to (0: the game is over) and the
        # seat's relative seat in it, or the terminal share of the win
        shape = (len(self.leaves), k)
        self.leaf_k2 = np.zeros(shape, dtype=np.int64)
        self.leaf_r = np.full(shape, -1, dtype=np.int64)
        self.terminal = np.zeros(shape)
        for j, m in enumerate(self.leaves):
            leaf = tree.leaf[m]
            assert leaf is not None
            k2, rel = leaf
            for q, r in enumerate(rel):
                self.leaf_k2[j, q] = k2
                self.leaf_r[j, q] = r
                if k2 == 0 and r == -2:
                    self.terminal[j, q] = 1.0 / rel.count(-2)
        self.loops = bool((self.leaf_k2 == k).any())
        """Whether a round may lead to another of k players (only with Cheese)."""
        self.nodes = n
        self.slot_player = self.info_player[self.slot_info]

    # -- leaves -----------------------------------------------------------------

    def leaf_values(self, below: dict[int, Array]) -> Array:
        """Each leaf's value per relative seat, given the values per relative seat
        of the rounds it leads to (``below[k2]``; with Cheese ``below[k]``, this
        round's own, since a round may kill nobody)."""
        out = self.terminal.copy()
        for k2 in np.unique(self.leaf_k2):
            if k2 == 0:
                continue
            mask = (self.leaf_k2 == k2) & (self.leaf_r >= 0)
            out[mask] = below[int(k2)][self.leaf_r[mask]]
        return out

    # -- passes -----------------------------------------------------------------

    def uniform(self) -> Array:
        """The profile playing every legal action equally often."""
        sizes = np.diff(self.offset)
        return np.asarray(1.0 / sizes[self.slot_info], dtype=np.float64)

    def normalise(self, weights: Array) -> Array:
        """Per information set, ``weights`` divided by their sum (uniform where 0)."""
        total = self.per_info(weights)[..., self.slot_info]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
        return np.where(total > 0, out, self.uniform())

    def per_info(self, weights: Array) -> Array:
        """Per information set, the sum of ``weights`` over its slots."""
        return np.asarray(np.add.reduceat(weights, self.offset[:-1], axis=-1), dtype=np.float64)

    def reach(self, sigma: Array) -> Array:
        """Reach of every node by each seat's own play: shape (batch..., nodes, k)."""
        shape = sigma.shape[:-1]
        reach = np.ones((*shape, self.nodes, self.k))
        for lv in self.levels:
            r = reach[..., lv.parent, :].copy()
            r[..., np.arange(len(lv.parent)), lv.mover] *= sigma[..., lv.slot]
            reach[..., lv.child, :] = r
        return reach

    def values(self, sigma: Array, leaf: Array) -> Array:
        """Every node's value per seat under ``sigma``: shape (batch..., nodes, k)."""
        shape = sigma.shape[:-1]
        value = np.zeros((*shape, self.nodes, self.k))
        value[..., self.leaves, :] = leaf
        for lv in reversed(self.levels):
            contrib = sigma[..., lv.slot, None] * value[..., lv.child, :]
            value[..., lv.parents, :] = np.add.reduceat(contrib, lv.starts, axis=-2)
        return value

    def counterfactual(self, sigma: Array, leaf: Array) -> tuple[Array, Array, Array]:
        """Per slot: the mover's counterfactual value of the action (the others'
        reach times the child's value to it), the mover's own reach of the
        information set, and the root values. Shapes (batch..., slots)."""
        reach = self.reach(sigma)
        value = self.values(sigma, leaf)
        shape = sigma.shape[:-1]
        cfv = np.zeros((*shape, self.slots))
        own = np.zeros((*shape, self.slots))
        for lv in self.levels:
            r = reach[..., lv.parent, :]
            idx = np.arange(len(lv.parent))
            mine = r[..., idx, lv.mover]
            others = _others(r, lv.mover)
            v = value[..., lv.child, :][..., idx, lv.mover]
            terms = (others * v)[..., lv.by_slot]
            cfv[..., lv.slot_ids] = np.add.reduceat(terms, lv.slot_starts, axis=-1)
            # perfect recall: the mover's own reach is one number per information set
            own[..., lv.slot_ids] = mine[..., lv.by_slot][..., lv.slot_starts]
        return cfv, own, value[..., 0, :]

    # -- best responses -------------------------------------------------------------

    def best_response(self, sigma: Array, seat: int, leaf: Array) -> float:
        """Relative seat ``seat``'s best value against ``sigma`` (one profile),
        leaves worth ``leaf`` (its best-response values in the rounds below)."""
        reach = self.reach(sigma)
        others = _others(reach, np.full(self.nodes, seat))
        value = np.zeros(self.nodes)
        value[self.leaves] = leaf[:, seat]
        for lv in reversed(self.levels):
            mine = lv.mover == seat
            # the others' moves: average over their strategy
            acc = np.zeros(self.nodes)
            np.add.at(acc, lv.parent[~mine], sigma[lv.slot[~mine]] * value[lv.child[~mine]])
            # the seat's own moves: per information set the action worth most,
            # its nodes weighted by the others' reach (perfect recall: the seat's
            # own reach is the same at every node of the set)
            q = np.zeros(self.slots)
            np.add.at(q, lv.slot[mine], others[lv.parent[mine]] * value[lv.child[mine]])
            choice = np.full(self.slots, False)
            for i in np.unique(self.slot_info[lv.slot[mine]]):
                lo, hi = self.offset[i], self.offset[i + 1]
                choice[lo + int(np.argmax(q[lo:hi]))] = True
            pick = mine & choice[lv.slot]
            acc[lv.parent[pick]] = value[lv.child[pick]]
            parents = np.unique(lv.parent)
            value[parents] = acc[parents]
        return float(value[0])


def _level(edges: list[tuple[int, int, int, int]]) -> Level:
    parent, child, slot, mover = (np.array(c, dtype=np.int64) for c in zip(*edges, strict=True))
    first = np.flatnonzero(np.diff(parent, prepend=-1))
    order = np.argsort(slot, kind="stable")
    slot_first = np.flatnonzero(np.diff(slot[order], prepend=-1))
    return Level(
        parent, child, slot, mover, parent[first], first, order, slot_first, slot[order][slot_first]
    )


def _others(reach: Array, mover: IntArray) -> Array:
    """Per node (last-but-one axis), the product of every seat's reach but the mover's."""
    k = reach.shape[-1]
    out = np.ones(reach.shape[:-1])
    for q in range(k):
        out = out * np.where(mover == q, 1.0, reach[..., q])
    return out


def solve_round(
    vec: VecRound,
    leaf: Array,
    iterations: int,
    *,
    alpha: float = 1.5,
    beta: float = 0.0,
    gamma: float = 2.0,
    report: Any = None,
    relink: Any = None,
    every: int = 50,
) -> Array:
    """Discounted CFR on one round; returns the average profile.

    ``relink(sigma)``, if given, is called with the average profile every
    ``every`` iterations and returns new leaf values (with Cheese the leaves
    that start another round of k are worth this round's own values, which the
    profile changes).

    Updates alternate between seats (each seat's regrets against the others'
    newest strategies); positive regrets are discounted by t^alpha/(t^alpha+1),
    negative ones by t^beta/(t^beta+1) and the average weighs iteration t by
    t^gamma. alpha = beta = gamma = 1 is linear CFR; ``report(t, totals)``
    sees the unnormalised average after each iteration."""
    regret = np.zeros(vec.slots)
    total = np.zeros(vec.slots)
    sigma = vec.uniform()
    for t in range(1, iterations + 1):
        for seat in range(vec.k):
            sigma = vec.normalise(np.maximum(regret, 0.0))
            cfv, own, _ = vec.counterfactual(sigma, leaf)
            mine = vec.slot_player == seat
            inst = cfv - vec.per_info(sigma * cfv)[vec.slot_info]
            pos = t**alpha / (t**alpha + 1)
            neg = t**beta / (t**beta + 1)
            regret = np.where(mine, regret * np.where(regret > 0, pos, neg) + inst, regret)
            total = np.where(mine, total * ((t - 1) / t) ** gamma + own * sigma, total)
        if report is not None:
            report(t, total)
        if relink is not None and t % every == 0:
            leaf = relink(vec.normalise(total))
    return vec.normalise(total)


def immediate_regrets(vec: VecRound, sigma: Array, leaf: Array) -> Array:
    """Per slot, the counterfactual regret of not having played it (batch...)."""
    cfv, _, _ = vec.counterfactual(sigma, leaf)
    return np.asarray(cfv - vec.per_info(sigma * cfv)[..., vec.slot_info], dtype=np.float64)


def nash_map_residual(vec: VecRound, x: Array, leaf: Array) -> Array:
    """``x`` minus Nash's improvement map of it: zero exactly at a profile where
    no information set has a positive counterfactual regret (an equilibrium)."""
    sigma = vec.normalise(np.maximum(x, 0.0))
    pos = np.maximum(immediate_regrets(vec, sigma, leaf), 0.0)
    return np.asarray(
        x - (sigma + pos) / (1.0 + vec.per_info(pos)[..., vec.slot_info]), dtype=np.float64
    )


def polish(
    vec: VecRound,
    sigma: Array,
    leaf: Array,
    *,
    tolerance: float = 1e-12,
    restarts: int = 4,
    maxiter: int = 300,
) -> Array:
    """Newton's method (Jacobian-free, Krylov) on :func:`nash_map_residual` from
    ``sigma``, restarted from its own result up to ``restarts`` times; returns
    the profile whose largest residual is smallest.

    CFR with three or more players has no convergence guarantee and here stalls
    around NashConv 0.01; its average is close enough to an equilibrium for
    Newton's method, which converges fast near a regular root."""
    from scipy.optimize import root  # type: ignore[import-untyped]  # the only scipy use

    def residual(x: Array) -> Array:
        return nash_map_residual(vec, x, leaf)

    x = sigma
    best, best_residual = sigma, float(np.abs(residual(x)).max())
    for _ in range(restarts):
        result = root(
            residual, x, method="krylov", options={"fatol": tolerance, "maxiter": maxiter}
        )
        x = vec.normalise(np.maximum(result.x, 0.0))
        size = float(np.abs(residual(x)).max())
        if size < best_residual:
            best, best_residual = x, size
        if best_residual <= tolerance:
            break
    return best


@dataclass
class Solved:
    """One round size solved: the profile, its values and best-response values
    (whole game from a round of k, per relative seat), the convergence rows."""

    k: int
    sigma: Array
    values: Array
    best: Array
    curve: list[dict[str, Any]]
    seconds: float

    @property
    def nash_conv(self) -> float:
        """The whole game's NashConv from a round of k (sum of best gains)."""
        return float((self.best - self.values).sum())


def _fixed_point(step: Any, start: Array, tolerance: float = 1e-15, limit: int = 100000) -> Array:
    x = start
    for _ in range(limit):
        y = np.asarray(step(x), dtype=np.float64)
        if np.abs(y - x).max() <= tolerance:
            return y
        x = y
    return x


def evaluate(vec: VecRound, sigma: Array, below: dict[int, Solved]) -> tuple[Array, Array]:
    """The values and exact best-response values of the whole game from a round
    of k under ``sigma`` (the rounds below played by their solved profiles).

    With Cheese a round may lead to a round of k again: then both are the
    fixed points of one round's recursion (value iteration from below, which
    converges because every round ends the game or kills someone with a
    probability bounded away from 0 under ``sigma``; for the deviator, from
    below, to the least fixed point: an endless game wins nothing)."""
    k = vec.k
    best_below = {k2: s.best for k2, s in below.items() if k2 < k}

    def best_step(w: Array) -> Array:
        leaf = vec.leaf_values({**best_below, k: w})
        return np.array([vec.best_response(sigma, q, leaf) for q in range(k)])

    if not vec.loops:
        return game_values(vec, sigma, below), best_step(np.zeros(k))
    return game_values(vec, sigma, below), _fixed_point(best_step, np.zeros(k))


def game_values(vec: VecRound, sigma: Array, below: dict[int, Solved]) -> Array:
    """The values alone of :func:`evaluate` (each relative seat's win chance)."""
    k = vec.k
    values_below = {k2: s.values for k2, s in below.items() if k2 < k}

    def value_step(v: Array) -> Array:
        return np.asarray(vec.values(sigma, vec.leaf_values({**values_below, k: v}))[0])

    if not vec.loops:
        return value_step(np.zeros(k))
    return _fixed_point(value_step, np.zeros(k))


def solve(
    k: int,
    vec: VecRound,
    below: dict[int, Solved],
    iterations: int,
    *,
    checkpoints: tuple[int, ...] = (1, 10, 30, 100, 300, 1000, 3000, 10000),
    restarts: int = 4,
    report: Any = None,
    outer: int = 30,
    seconds: float = 300.0,
    tolerance: float = 1e-9,
) -> Solved:
    """Linear CFR for ``iterations``, then :func:`polish`; every checkpoint's
    whole-game NashConv and values go into the curve. With Cheese, up to
    ``outer`` rounds of polishing, each with the looping leaves worth the
    last profile's values, within about ``seconds``."""
    import time

    start = time.perf_counter()
    values_below = {k2: s.values for k2, s in below.items() if k2 < k}
    # with Cheese, the looping leaves start at a fair share each
    leaf = vec.leaf_values({**values_below, k: np.full(k, 1.0 / k)})
    curve: list[dict[str, Any]] = []

    def row(label: str | int, sigma: Array) -> None:
        values, best = evaluate(vec, sigma, below)
        entry = {
            "iterations": label,
            "nashconv": float((best - values).sum()),
            "values": [float(v) for v in values],
            "seconds": round(time.perf_counter() - start, 1),
        }
        curve.append(entry)
        if report is not None:
            report(k, entry)

    marks = {c for c in checkpoints if c < iterations} | {iterations}

    def at(t: int, total: Array) -> None:
        if t in marks:
            row(t, vec.normalise(total))

    relink = None
    if vec.loops:

        def relink(sigma: Array) -> Array:
            return vec.leaf_values({**values_below, k: game_values(vec, sigma, below)})

    sigma = solve_round(
        vec, leaf, iterations, alpha=1.0, beta=1.0, gamma=1.0, report=at, relink=relink
    )
    if not vec.loops:
        if restarts:
            sigma = polish(vec, sigma, leaf, restarts=restarts)
            row(f"{iterations} + Newton", sigma)
    else:
        # With Cheese: fix the looping leaves at the profile's own values, solve
        # that round exactly, and repeat (policy iteration on the round's value),
        # until NashConv is below `tolerance` or `seconds` have passed.
        # A step may land further from equilibrium: the best profile is kept.
        best, best_conv = sigma, curve[-1]["nashconv"]
        for step in range(1, outer + 1):
            leaf = relink(sigma)
            sigma = polish(vec, sigma, leaf, restarts=1)
            row(f"{iterations} + Newton x{step}", sigma)
            if curve[-1]["nashconv"] < best_conv:
                best, best_conv = sigma, curve[-1]["nashconv"]
            if best_conv < tolerance or time.perf_counter() - start > seconds:
                break
        sigma = best
    values, best = evaluate(vec, sigma, below)
    return Solved(k, sigma, values, best, curve, time.perf_counter() - start)


def to_table(vec: VecRound, sigma: Array, digits: int = 9) -> dict[str, dict[str, float]]:
    """The profile keyed as the ``cfr`` bot reads it: information, then action."""
    tree = vec.tree
    out: dict[str, dict[str, float]] = {}
    for i, (key, labels) in enumerate(zip(tree.keys, tree.actions, strict=True)):
        probs = sigma[vec.offset[i] : vec.offset[i + 1]]
        out[key] = {label: round(float(p), digits) for label, p in zip(labels, probs, strict=True)}
    return out


def from_table(vec: VecRound, table: dict[str, dict[str, float]]) -> Array:
    """The profile of a stored table (missing actions weigh 0, sets renormalised)."""
    tree = vec.tree
    weights = np.array(
        [
            float(table[key].get(label, 0.0))
            for key, labels in zip(tree.keys, tree.actions, strict=True)
            for label in labels
        ]
    )
    return vec.normalise(weights)


def openspiel_nash_conv(players: int, table: dict[str, dict[str, float]]) -> float:
    """OpenSpiel's own ``exploitability.nash_conv`` of ``table`` on the whole
    ``players``-player game through :mod:`apothecary.interop.openspiel`: its
    best responses walk every history of the game and group them by the
    game's own information-state strings, independently of the round
    decomposition used here (needs the ``rl`` extra)."""
    from open_spiel.python import policy as os_policy  # type: ignore[import-untyped]
    from open_spiel.python.algorithms import exploitability  # type: ignore[import-untyped]

    from apothecary.games.in_vino_morte.cfr import GAME, action_weights
    from apothecary.interop import openspiel

    game = openspiel.load(GAME, players=players)

    class TablePolicy(os_policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
            inner = state.apothecary_state
            legal, weights = action_weights(inner, inner.current_player(), table)
            return dict(zip(legal, weights, strict=True))

    return float(exploitability.nash_conv(game, TablePolicy(game, list(range(players)))))
