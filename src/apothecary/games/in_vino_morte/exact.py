"""Exact values of In Vino Morte without Cheese under its CFR+ equilibrium.

The stored equilibrium (:mod:`apothecary.games.in_vino_morte.cfr`) is a strategy
for every information set of every round of 2 to 5 players, and a round's
leaves are worth the values of the round that follows. So at a decision, the
value of each legal move for the mover, everyone playing the equilibrium from
there on, is exact: it averages the move's value over the round's histories
the mover cannot tell apart (its information set), each weighted by how
likely the *others'* equilibrium play makes it (the mover's own earlier
choices weigh nothing: it knows them). The others' earlier play is taken to
be the equilibrium's; when what they did publicly has no chance under it,
there is nothing to weight by and the caller estimates instead.

Only the mover's information key (``info_key`` of its observation) is read,
so the values are the same in every world the mover cannot tell apart.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from apothecary.core.game import Action, Game, Player, State
from apothecary.games.in_vino_morte import cfr as ivm_cfr


class RoundValues:
    """One round's tree under the stored strategy: every node's value per relative
    seat, and every node's reach by each relative seat's own play."""

    def __init__(self, k: int, below: dict[int, RoundValues]) -> None:
        table = ivm_cfr.load_table()
        self.tree = tree = ivm_cfr.build_round(k)
        self.index = {key: i for i, key in enumerate(tree.keys)}
        self.strategy: list[list[float]] = []
        for key, labels in zip(tree.keys, tree.actions, strict=True):
            stored = table.get(key, {})
            weights = [float(stored.get(label, 0.0)) for label in labels]
            total = sum(weights)
            self.strategy.append(
                [w / total for w in weights] if total > 0 else [1.0 / len(labels)] * len(labels)
            )
        nodes = len(tree.player)
        self.value: list[list[float]] = [[] for _ in range(nodes)]
        self.reach: list[list[float]] = [[] for _ in range(nodes)]
        self.start_value = self._walk(0, [1.0] * k, below)

    def _leaf(self, node: int, below: dict[int, RoundValues]) -> list[float]:
        leaf = self.tree.leaf[node]
        assert leaf is not None
        k2, rel = leaf
        if k2 == 0:
            return [1.0 if r == -2 else 0.0 for r in rel]
        after = below[k2].start_value
        return [0.0 if r < 0 else after[r] for r in rel]

    def _walk(self, node: int, reach: list[float], below: dict[int, RoundValues]) -> list[float]:
        tree = self.tree
        self.reach[node] = reach
        if tree.leaf[node] is not None:
            self.value[node] = self._leaf(node, below)
            return self.value[node]
        mover = tree.player[node]
        strat = self.strategy[tree.info[node]]
        total = [0.0] * tree.k
        for p, child in zip(strat, tree.children[node], strict=True):
            after = reach.copy()
            after[mover] *= p
            v = self._walk(child, after, below)
            for q in range(tree.k):
                total[q] += p * v[q]
        self.value[node] = total
        return total


@cache
def rounds(k: int) -> dict[int, RoundValues]:
    """The rounds of 2 to ``k`` players, each valued over the ones below (one per process)."""
    made: dict[int, RoundValues] = {}
    for size in range(2, k + 1):
        made[size] = RoundValues(size, made)
    return made


def solved(game: Game) -> bool:
    """Whether the equilibrium covers this game (no Cheese, 2 to 5 players, the 8+8 deck)."""
    return (
        game.name == ivm_cfr.GAME
        and not game.options.get("cheese")
        and game.num_players <= ivm_cfr.MAX_PLAYERS
        and game.options.get("deck") in (None, "8+8")
    )


def values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """Each legal move's exact equilibrium value for ``seat`` (and every seat's),
    from ``seat``'s information; None where the equilibrium cannot say."""
    obs: dict[str, Any] = state.observation(seat)
    order = ivm_cfr.round_order(obs)
    k = len(order)
    if k < 2:
        return None
    table = rounds(max(k, 2))[k]
    key = ivm_cfr.info_key(obs, seat)
    info = table.index.get(key)
    if info is None:
        return None
    rel = {s: i for i, s in enumerate(order)}
    me = rel[seat]
    tree = table.tree
    labels = tree.actions[info]
    numer = [[0.0] * len(obs["alive"]) for _ in labels]
    denominator = 0.0
    for node, at in enumerate(tree.info):
        if at != info:
            continue
        reach = table.reach[node]
        weight = 1.0
        for q, r in enumerate(reach):
            if q != me:
                weight *= r
        if weight == 0.0:
            continue
        denominator += weight
        for j, child in enumerate(tree.children[node]):
            for r, v in enumerate(table.value[child]):
                numer[j][order[r]] += weight * v
    if denominator == 0.0:
        return None
    by_label = {label: [x / denominator for x in numer[j]] for j, label in enumerate(labels)}
    outlooks: dict[Action, list[float]] = {}
    for action in state.legal_actions():
        label = ivm_cfr.relative_action(state.action_to_string(action), rel)
        if label not in by_label:
            return None
        outlooks[action] = by_label[label]
    return {a: v[seat] for a, v in outlooks.items()}, outlooks


def exact_values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """The manifest's exact values: the equilibrium's, where it covers the game."""
    return values(state, seat) if solved(state.game) else None


def analysis_policy(game: Game) -> str | None:
    """Where the equilibrium covers the game it is the strongest playout policy."""
    return "cfr" if solved(game) else None
