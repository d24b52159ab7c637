"""Adapters that put every apothecary game into other projects' APIs.

- :mod:`apothecary.interop.pettingzoo` — a PettingZoo AEC environment per game.
- :mod:`apothecary.interop.openspiel` — an OpenSpiel game per game.

Both need the ``rl`` extra (``pip install 'apothecary[rl]'``). This package
imports neither on purpose: ``import apothecary`` stays light, and each
adapter loads its heavy dependencies only when it is imported itself.
"""

from __future__ import annotations


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of a seat (``"player_0"``)."""
    return f"player_{seat}"


def openspiel_name(game_name: str) -> str:
    """The OpenSpiel short name of a registered game (``"apothecary_poison_pot"``)."""
    return "apothecary_" + game_name.replace("-", "_")


__all__ = ["agent_name", "openspiel_name"]
