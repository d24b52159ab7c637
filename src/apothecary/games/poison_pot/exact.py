"""Exact values of Poison Pot's last cauldrons, for analysis and hints.

The game hides nothing, so once few cauldrons are left to place expectimax
over the rest (:mod:`.endgame`) gives every legal move's exact value.
"""

from __future__ import annotations

import random

from apothecary.core.game import Action, Player, State
from apothecary.games.poison_pot import endgame

EXACT_CAULDRONS = 3
"""Poison Pot is valued exactly once this many cauldrons or fewer are to place."""


def exact_values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """Each legal move's exact value for ``seat`` and every seat's, once at most
    :data:`EXACT_CAULDRONS` cauldrons are left; None before."""
    if endgame.cauldrons_left(state.observation(seat)) > EXACT_CAULDRONS:
        return None
    # The game hides nothing, so the seat's drawn world is the position itself.
    world = state.resample_from_infostate(seat, random.Random(0))
    search = endgame.Expectimax()
    outlooks: dict[Action, list[float]] = {}
    for action in world.legal_actions():
        child = world.clone()
        child.apply_action(action)
        outlooks[action] = search.value(child)
    return {a: v[seat] for a, v in outlooks.items()}, outlooks
