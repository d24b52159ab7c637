"""Batched engines: N independent games of one configuration as numpy array
programs, for reinforcement learning and large simulations.

>>> import numpy as np
>>> from apothecary import batch
>>> game = batch.load("in-vino-morte", players=4, cheese=True)
>>> state = game.init(seed=7, n=1024)
>>> rng = np.random.default_rng(0)
>>> for _ in range(50):
...     state = game.step(state, batch.random_legal_actions(state.legal_action_mask, rng))
>>> game.observation(state).shape
(1024, 4, 113)

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

import importlib
from typing import Any

from apothecary.batch.core import (
    TERMINAL_PLAYER,
    BatchGame,
    BatchState,
    legal_action_at,
    random_legal_actions,
)
from apothecary.core.errors import UnknownGameError
from apothecary.core.registry import games
from apothecary.core.registry import load as load_scalar

_ENGINES = {
    "in-vino-morte": "apothecary.batch.in_vino_morte:InVinoMorteBatch",
    "little-drop-of-poison": "apothecary.games.little_drop_of_poison.batch:LittleDropOfPoisonBatch",
    "poison-pot": "apothecary.batch.poison_pot:PoisonPotBatch",
    "tea-scones-arsenic": "apothecary.games.tea_scones_arsenic.batch:TeaSconesArsenicBatch",
}
"""Registry name to the engine class, imported on first use."""


class NoBatchEngineError(UnknownGameError):
    """A registered game that has no batch engine (yet)."""


def engines() -> list[str]:
    """The names of the games that have a batch engine, sorted."""
    return sorted(_ENGINES)


def load(name: str, /, players: int | None = None, **options: Any) -> BatchGame[Any]:
    """The batch engine of a game, configured as :func:`apothecary.load` would
    configure the scalar game (same defaults, same errors for a bad option or
    player count): ``batch.load("in-vino-morte", players=4, cheese=True)``.

    Raises NoBatchEngineError for a game with no batch engine, UnknownGameError
    for a name no game has, and BadOptionError for an option the engine refuses.
    """
    where = _ENGINES.get(name)
    if where is None:
        if name in games():
            raise NoBatchEngineError(
                f"{name} has no batch engine yet; the games that have one are: "
                f"{', '.join(engines())}"
            )
        load_scalar(name)  # raises UnknownGameError, naming the games
        raise UnknownGameError(f"unknown game {name!r}")  # pragma: no cover
    module, cls = where.split(":")
    engine: type[BatchGame[Any]] = getattr(importlib.import_module(module), cls)
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
