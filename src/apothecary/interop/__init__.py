"""Adapters that put every apothecary game into other projects' APIs.

- :mod:`apothecary.interop.pettingzoo` — a PettingZoo AEC environment per game.
- :mod:`apothecary.interop.openspiel` — an OpenSpiel game per game.
- :mod:`apothecary.interop.gymnasium` — a single-agent Gymnasium env per game,
  and :mod:`apothecary.interop.gymnasium_vector` its ``VectorEnv`` over the
  batch engine, for every game that has one.
- :mod:`apothecary.interop.pgx` — a ``pgx.Env`` per game with a batch engine
  (the ``pgx`` extra: pgx and JAX).

All but the last need the ``rl`` extra (``pip install 'apothecary[rl]'``).
This package imports none of them on purpose: ``import apothecary`` stays
light, and each adapter loads its heavy dependencies only when it is
imported itself.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.errors import BadOptionError, MalformedActionError
from apothecary.core.game import Game

OBSERVATION_KINDS = ("observation", "information_state")
"""What an environment hands a learning seat: its observation tensor, or its
information-state tensor (perfect recall)."""


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of a seat (``"player_0"``)."""
    return f"player_{seat}"


def openspiel_name(game_name: str) -> str:
    """The OpenSpiel short name of a registered game (``"apothecary_my_game"`` for ``my-game``)."""
    return "apothecary_" + game_name.replace("-", "_")


def tensor_layout(game: Game, kind: str) -> tuple[str, int, tuple[list[float], list[float]] | None]:
    """For an environment that hands a seat the tensor of ``kind`` (one of
    :data:`OBSERVATION_KINDS`): the state's method that gives it, its length,
    and its declared ``(low, high)`` (None for a game from elsewhere that
    declares none). BadOptionError for another kind, or for the information
    state of a game that defines no such tensor."""
    if kind not in OBSERVATION_KINDS:
        raise BadOptionError(
            f"observation={kind!r}: expected one of {', '.join(map(repr, OBSERVATION_KINDS))}"
        )
    if kind == "observation":
        bounds = game.observation_tensor_bounds() if game.declares_tensor_bounds else None
        return "observation_tensor", game.observation_tensor_size(), bounds
    if not game.provides_information_state_tensor:
        raise BadOptionError(
            f"observation='information_state': {game.name} defines no information_state tensor"
        )
    size = game.information_state_tensor_size()
    return "information_state_tensor", size, game.information_state_tensor_bounds()


__all__ = ["OBSERVATION_KINDS", "action_id", "agent_name", "openspiel_name", "tensor_layout"]


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
