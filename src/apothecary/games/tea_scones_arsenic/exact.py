"""Exact values of Tea, Scones and Arsenic solo, for analysis and hints.

Expectimax over the lone player's information (:mod:`.solo`), once few enough
scones are unmarked that a solve takes well under a second. A value is the
expected score (scones eaten, 0 for a death), what the solver maximises.
"""

from __future__ import annotations

import sys
from typing import Any

from apothecary.core.game import Action, Player, State

EXACT_UNMARKED = 10
"""Solo is valued exactly from this many unmarked scones on (the ``solo-optimal``
bot's threshold: a solve takes well under a second)."""


def exact_values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """The solver's exact values solo without the little spoon; None elsewhere."""
    game = state.game
    if game.num_players != 1 or game.options.get("little_spoon"):
        return None
    values = _solo_values(state)
    return None if values is None else (values, {a: [v] for a, v in values.items()})


_SOLO_SOLVER: Any = None


def solo_solver() -> Any:
    """The solo solver, shuffles included (one per process)."""
    global _SOLO_SOLVER
    if _SOLO_SOLVER is None:
        from apothecary.games.tea_scones_arsenic.solo import SoloSolver

        _SOLO_SOLVER = SoloSolver(shuffles=True)
    return _SOLO_SOLVER


def _solo_values(state: State) -> dict[Action, float] | None:
    """Every legal move's exact expected score, or None while too many scones are unmarked."""
    from apothecary.games.tea_scones_arsenic.solo import position

    obs = state.observation(0)
    if sum(obs["box"]["unmarked"]) > EXACT_UNMARKED:
        return None
    solver = solo_solver()
    box, cubes = position(obs, solver)
    key = solver.key(box, cubes)
    named: dict[str, float] = {}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        if obs["phase"] == "decide":
            hand = obs["hand"]
            dose_index = solver.values.index(hand["dose"])
            named = dict(solver.hand_options(key, box[hand["kind"] - 1], dose_index))
        else:
            for choice, value in solver.options(key, after_shuffle=not obs["stopping_allowed"]):
                if choice[0] in ("stop", "shuffle"):
                    named[choice[0]] = value
                elif choice[0] == "draw":
                    for k, record in enumerate(box):
                        if record == choice[1]:
                            named[f"d{k + 1}"] = value
                else:
                    for i, marked in enumerate(obs["box"]["marked"]):
                        if box[marked["kind"] - 1] == choice[1] and marked["dose"] == choice[2]:
                            named[f"m{i + 1}"] = value
    finally:
        sys.setrecursionlimit(limit)
    values: dict[Action, float] = {}
    for text, value in named.items():
        values[state.string_to_action(text)] = value
    if set(values) != set(state.legal_actions()):
        return None  # a move the solver does not model: estimate instead
    return values
