"""Adapters that put every apothecary game into other projects' APIs.

- :mod:`apothecary.interop.pettingzoo` — a PettingZoo AEC environment per game.
- :mod:`apothecary.interop.openspiel` — an OpenSpiel game per game.

Both need the ``rl`` extra (``pip install 'apothecary[rl]'``). This package
imports neither on purpose: ``import apothecary`` stays light, and each
adapter loads its heavy dependencies only when it is imported itself.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.errors import MalformedActionError


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of a seat (``"player_0"``)."""
    return f"player_{seat}"


def openspiel_name(game_name: str) -> str:
    """The OpenSpiel short name of a registered game (``"apothecary_poison_pot"``)."""
    return "apothecary_" + game_name.replace("-", "_")


__all__ = ["agent_name", "openspiel_name"]


def action_id(action: Any) -> int:
    """``action`` as an int id; MalformedActionError unless it is an int or a
    NumPy integer (a bool, an enum member, a float, text or None is not an id).
    Both adapters take ids this way: RL code passes NumPy integers."""
    if type(action) is int:
        return action
    # NumPy is the adapters' own dependency; this package does not import it.
    if (
        type(action).__module__ == "numpy"
        and hasattr(action, "dtype")
        and action.dtype.kind in "iu"
    ):
        return int(action)
    shown = repr(action)
    if len(shown) > 80:
        shown = shown[:79] + "…"
    raise MalformedActionError(
        f"an action id is an int or a NumPy integer, got {type(action).__name__} {shown}"
    )
