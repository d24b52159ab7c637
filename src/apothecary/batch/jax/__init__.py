"""The batch engines as JAX programs (``pip install 'apothecary[jax]'``).

>>> import numpy as np
>>> from apothecary.batch import jax as batch_jax
>>> game = batch_jax.load(batch_jax.engines()[0])
>>> state = game.init(seed=7, n=1024)
>>> rng = np.random.default_rng(0)
>>> from apothecary.batch import random_legal_actions
>>> for _ in range(20):
...     mask = np.asarray(state.legal_action_mask)
...     state = game.step(state, random_legal_actions(mask, rng), check=False)
>>> game.observation(state).shape[0]
1024

``load`` takes what :func:`apothecary.batch.load` takes and gives the same
engine as a JAX program (:class:`~apothecary.batch.jax.core.JaxBatchGame`):
``step`` is one ``jax.jit`` call over the batch, its state the numpy engine's
state class holding JAX arrays. A game with no JAX program yet is refused by
name, with the reason its manifest gives (``batch_jax_missing``); each
game's program lives in its own folder (``games/<name>/batch_jax.py``),
named by its manifest's ``batch_jax``. Neither ``import apothecary`` nor
``import apothecary.batch`` imports JAX; this package does.
"""

from __future__ import annotations

from typing import Any

try:
    import jax  # noqa: F401  (the extra's presence, checked once, with a useful error)
except ImportError as error:  # pragma: no cover - the [jax] extra is missing
    raise ImportError("apothecary.batch.jax needs JAX: pip install 'apothecary[jax]'") from error

from apothecary import batch
from apothecary.batch.jax.core import JaxBatchGame
from apothecary.core.manifest import resolve
from apothecary.core.registry import games, manifest


def programs() -> dict[str, str]:
    """Each game with a JAX program: where its maker is (``module:function``,
    its manifest's ``batch_jax``)."""
    return {name: where for name in games() if (where := manifest(name).batch_jax)}


def engines() -> list[str]:
    """The games that have a JAX program, sorted."""
    return sorted(programs())


def load(name: str, /, players: int | None = None, **options: Any) -> JaxBatchGame[Any]:
    """The JAX program of a game's batch engine, configured as
    :func:`apothecary.batch.load` configures the numpy one (same defaults and
    errors). Raises NoBatchEngineError, naming the reason, for a game with no
    JAX program."""
    engine = batch.load(name, players, **options)  # the numpy engine's checks and errors
    program = program_of(engine)
    if program is None:
        missing = manifest(name).batch_jax_missing
        reason = missing or "no JAX program is registered for it"
        raise batch.NoBatchEngineError(
            f"{name} has no JAX batch engine: {reason}; the games that have one are: "
            f"{', '.join(engines())}"
        )
    return program


def program_of(engine: batch.BatchGame[Any]) -> JaxBatchGame[Any] | None:
    """The JAX program of a configured numpy engine (same configuration), or
    None for a game without one (the pgx env then calls the numpy engine)."""
    where = manifest(engine.name).batch_jax
    if where is None:
        return None
    maker = resolve(where)
    program: JaxBatchGame[Any] = maker(engine)
    return program


__all__ = ["JaxBatchGame", "engines", "load", "program_of", "programs"]
