"""Batched engines: N independent games of one configuration as numpy array
programs, for reinforcement learning and large simulations.

>>> import numpy as np
>>> from apothecary import batch
>>> name = batch.engines()[0]  # the games that have an engine, sorted
>>> game = batch.load(name, players=4)
>>> state = game.init(seed=7, n=1024)
>>> rng = np.random.default_rng(0)
>>> for _ in range(50):
...     state = game.step(state, batch.random_legal_actions(state.legal_action_mask, rng))
>>> game.observation(state).shape[:2]
(1024, 4)

The API every engine follows is :class:`~apothecary.batch.core.BatchGame`
(``init``, ``step``, ``observation``),
:func:`~apothecary.batch.core.random_legal_actions`, and
:class:`~apothecary.batch.core.BatchState` (``current_player``,
``legal_action_mask``, ``rewards``, ``terminated``); docs/batch.md explains
the conventions (a step is one decision, chance is drawn from each game's
key or supplied, auto-reset is next-step). ``import apothecary`` does not
import numpy; importing this package does.
"""

from __future__ import annotations

from typing import Any

from apothecary.batch.core import (
    TERMINAL_PLAYER,
    BatchGame,
    BatchState,
    legal_action_at,
    random_legal_actions,
)
from apothecary.core.errors import UnknownGameError
from apothecary.core.manifest import resolve
from apothecary.core.registry import games, manifest
from apothecary.core.registry import load as load_scalar


class NoBatchEngineError(UnknownGameError):
    """A registered game that has no batch engine (yet)."""


def _engine(name: str) -> str | None:
    """Where the engine of game ``name`` is (its manifest's ``batch``), or None."""
    return manifest(name).batch


def engines() -> list[str]:
    """The names of the games that have a batch engine, sorted."""
    return [name for name in games() if _engine(name) is not None]


def load(name: str, /, players: int | None = None, **options: Any) -> BatchGame[Any]:
    """The batch engine of a game, configured as :func:`apothecary.load` would
    configure the scalar game (same defaults, same errors for a bad option or
    player count): ``batch.load("my-game", players=4, some_option=True)``.

    A game has an engine when its manifest names one (``batch``,
    :class:`~apothecary.core.manifest.GameManifest`).

    Raises NoBatchEngineError for a game with no batch engine, UnknownGameError
    for a name no game has, and BadOptionError for an option the engine refuses.
    """
    where = _engine(name) if name in games() else None
    if where is None:
        if name in games():
            raise NoBatchEngineError(
                f"{name} has no batch engine yet; the games that have one are: "
                f"{', '.join(engines())}"
            )
        load_scalar(name)  # raises UnknownGameError, naming the games
        raise UnknownGameError(f"unknown game {name!r}")  # pragma: no cover
    engine: type[BatchGame[Any]] = resolve(where)
    return engine(load_scalar(name, players, **options))


__all__ = [
    "TERMINAL_PLAYER",
    "BatchGame",
    "BatchState",
    "NoBatchEngineError",
    "engines",
    "legal_action_at",
    "load",
    "random_legal_actions",
]
