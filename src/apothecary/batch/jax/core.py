"""The JAX backend's common part: :class:`JaxBatchGame`, a batch engine whose
step is one ``jax.jit`` program over the whole batch.

A game's JAX program is written for ONE game (arrays indexed by seat, circle
or card, never by game) and ``jax.vmap`` lays it over the batch: the numpy
engines' row subsets (``np.flatnonzero`` of a phase, then in-place writes to
those rows) have no place under ``jit``, where shapes are fixed, so each
branch of a step is computed for every game and selected with ``where``.

Everything that is configuration and not play is the numpy engine's: the
JAX engine is made from it (:func:`apothecary.batch.jax.load` does it) and
takes its tables, its checks of actions and chance, its state classes (the
same frozen dataclasses, registered as JAX pytrees, with the same field
names and dtypes) and its opening position. So a JAX state and a numpy
state of the same games are field for field equal, which is what the
differential tests compare.

The state holds 64-bit fields (the keys, ``uint64``; the episode and draw
counters), and chance is drawn with the same SplitMix64 arithmetic as
:mod:`apothecary.batch.keys` (the same functions, run on JAX arrays), so
every call runs under :func:`x64` (``jax.enable_x64(True)``), scoped to the call: the
caller's own JAX code keeps its default 32-bit types.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from apothecary.batch.core import BatchGame, BatchState
from apothecary.batch.keys import game_keys
from apothecary.core.errors import ApothecaryError

S = TypeVar("S", bound=BatchState)

_REGISTERED: set[type] = set()


def x64() -> contextlib.AbstractContextManager[Any]:
    """A context with ``jax_enable_x64`` on, scoped (``jax.enable_x64`` in
    current JAX, ``jax.experimental.enable_x64`` in older releases)."""
    enable = getattr(jax, "enable_x64", None)
    if enable is not None:
        scope: contextlib.AbstractContextManager[Any] = enable(True)
        return scope
    experimental = importlib.import_module("jax.experimental")  # pragma: no cover
    old: contextlib.AbstractContextManager[Any] = experimental.enable_x64(True)
    return old  # pragma: no cover


def register_state(cls: type[S]) -> type[S]:
    """Make a batch state class a JAX pytree (every field an array leaf), once."""
    if cls not in _REGISTERED:
        names = [f.name for f in dataclasses.fields(cls)]
        jax.tree_util.register_dataclass(cls, data_fields=names, meta_fields=[])
        _REGISTERED.add(cls)
    return cls


def to_jax(state: S) -> S:
    """The same state with every field a JAX array (same dtype)."""
    fields: dict[str, Any] = {
        f.name: jnp.asarray(getattr(state, f.name)) for f in dataclasses.fields(state)
    }
    return type(state)(**fields)


def to_numpy(state: S) -> S:
    """The same state with every field a numpy array (a copy)."""
    return type(state)(
        **{f.name: np.array(getattr(state, f.name)) for f in dataclasses.fields(state)}
    )


def replace(state: S, **changes: Any) -> S:
    """``dataclasses.replace`` that keeps each field's dtype (a JAX ``where``
    or an arithmetic step may promote a small int)."""
    fixed: dict[str, Any] = {
        k: jnp.asarray(v).astype(getattr(state, k).dtype) for k, v in changes.items()
    }
    return dataclasses.replace(state, **fixed)


def pick(vector: Any, index: Any) -> Any:
    """``vector[index]`` for one game's small vector, as a masked sum: under
    ``vmap`` a gather per game is a slow general gather on XLA's CPU backend,
    a compare-and-select over a few entries fuses with its neighbours."""
    hit = jnp.arange(vector.shape[0]) == index
    hit = hit.reshape(hit.shape + (1,) * (vector.ndim - 1))
    if vector.dtype == jnp.bool_:
        return jnp.any(hit & vector, axis=0)
    return jnp.sum(jnp.where(hit, vector, jnp.zeros_like(vector)), axis=0, dtype=vector.dtype)


def put(vector: Any, index: Any, value: Any) -> Any:
    """``vector.at[index].set(value)`` as a select (see :func:`pick`)."""
    hit = jnp.arange(vector.shape[0]) == index
    return jnp.where(hit, jnp.asarray(value).astype(vector.dtype), vector)


def first_max(vector: Any) -> Any:
    """``jnp.argmax`` of one game's vector (the first of its largest entries),
    as a compare and a min. A program traced into a caller's own ``jit`` (the
    pgx env) is lowered outside :func:`x64`, and ``argmax`` is one of the
    primitives whose lowering traces again there, with 32-bit indices that no
    longer match its 64-bit result; compares, selects and reductions do not."""
    index = jnp.arange(vector.shape[0])
    return jnp.min(jnp.where(vector == vector.max(), index, vector.shape[0]))


class JaxBatchGame(Generic[S]):
    """A batch engine run as JAX programs: ``init``, ``step`` and ``observation``
    as the numpy engine's (:class:`~apothecary.batch.core.BatchGame`), on JAX arrays.

    A subclass writes :meth:`_advance_one` (one game's step, already checked
    legal, for a game not yet ended) and :meth:`_observe_one` (one game's
    observation of every seat), both pure functions of JAX arrays.
    """

    def __init__(self, engine: BatchGame[S]) -> None:
        self.engine = engine
        self.game = engine.game
        self.name = engine.name
        self.num_players = engine.num_players
        self.options = engine.options
        self.max_chance_per_step = engine.max_chance_per_step
        self.opening_chance = engine.opening_chance
        if self.opening_chance:  # pragma: no cover - no such program yet
            raise ApothecaryError(f"{self.name}: the JAX backend has no opening chance yet")
        opening = engine._start(game_keys(0, 1), np.zeros(1, dtype=np.int64))
        self._state_class: type[S] = register_state(type(opening))
        # The position every game starts from (no opening chance): one game,
        # without its leading axis, broadcast into the games that restart.
        self._opening = {
            f.name: np.asarray(getattr(opening, f.name))[0] for f in dataclasses.fields(opening)
        }
        self._step_jit: Callable[..., S] = jax.jit(self._step_all)
        self._observe_jit: Callable[[S], jax.Array] = jax.jit(jax.vmap(self._observe_one))

    def num_distinct_actions(self) -> int:
        """The legal mask's width (the scalar game's action ids)."""
        return self.engine.num_distinct_actions()

    def observation_tensor_size(self) -> int:
        """The observation's last axis (the scalar game's tensor length)."""
        return self.engine.observation_tensor_size()

    def init(
        self, seed: int | ArrayLike, n: int | None = None, chance: ArrayLike | None = None
    ) -> S:
        """A batch of new games, as the numpy engine's ``init`` (same keys), on JAX arrays."""
        with x64():
            return to_jax(self.engine.init(seed, n, chance))

    def step(
        self, state: S, actions: ArrayLike, chance: ArrayLike | None = None, check: bool = True
    ) -> S:
        """The batch after each game's seat to move plays ``actions[i]``, as the
        numpy engine's ``step`` (auto-reset next-step; ``chance`` the same
        outcomes, -1 to draw from the game's key).

        ``check`` (the default) refuses a malformed or illegal action, or an
        impossible chance outcome, with the numpy engine's errors; that reads
        the mask on the host. A training loop whose actions come from the mask
        may pass ``check=False``: then the whole step is one compiled call,
        and an illegal action gives an unspecified (but well-formed) state."""
        with x64():
            n = int(state.terminated.shape[0])
            if check:
                played = jnp.asarray(self.engine._check_actions(state, actions))
                outcomes = self.engine._check_chance(n, chance)
            else:
                played = jnp.asarray(actions).astype(jnp.int64)
                outcomes = None if chance is None else np.asarray(chance).astype(np.int64)
            table = self._chance_table(n, outcomes)
            if check and outcomes is not None:
                self._check_outcomes(state, table)
            return self._step_jit(state, played, table)

    def _chance_table(self, n: int, outcomes: NDArray[np.int64] | None) -> jax.Array:
        """``(n, max_chance_per_step)`` outcomes, -1 (draw) where none is given."""
        width = self.max_chance_per_step
        table = np.full((n, width), -1, dtype=np.int64)
        if outcomes is not None:
            given = outcomes.reshape(n, -1)[:, :width]
            table[:, : given.shape[1]] = given
        return jnp.asarray(table)

    def _check_outcomes(self, state: S, chance: jax.Array) -> None:
        """Refuse a supplied chance outcome the game cannot have (a game with
        chance overrides this)."""

    def _step_all(self, state: S, actions: jax.Array, chance: jax.Array) -> S:
        """The compiled step: every game advances; then the games that had
        ended start again from the opening position on their next episode."""
        moved = jax.vmap(self._advance_one)(state, actions, chance)
        return self._reset(state, moved)

    def step_one(self, state: S, action: jax.Array, chance: jax.Array) -> S:
        """One game's whole step (no leading axis; ``chance`` its
        ``(max_chance_per_step,)`` outcomes, -1 to draw): advance, score a game
        this step ends (:meth:`_score_one`), restart a game that had ended.
        Traceable (call it under :func:`x64`), for a caller that lays its own
        ``vmap`` over games: the pgx env's ``step``. It equals one row of
        :meth:`step` with ``check=False``."""
        moved = self._score_one(state, self._advance_one(state, action, chance))
        return self._reset(state, moved)

    def _score_one(self, before: S, moved: S) -> S:
        """One game's rewards after its advance, where the batch step scores
        apart (:meth:`_step_all`'s own pass); the default: the advance did it."""
        return moved

    def _reset(self, state: S, moved: S) -> S:
        """``moved`` with the games that had ended (``state.terminated``)
        started again on their next episode: for a batch or for one game."""
        ended = state.terminated
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(state):
            if f.name in ("key", "episode"):
                continue
            new = getattr(moved, f.name)
            fresh = jnp.asarray(self._opening[f.name], dtype=new.dtype)
            # A field's own axes follow the games' (none for one game).
            where = ended.reshape(ended.shape + (1,) * (new.ndim - ended.ndim))
            changes[f.name] = jnp.where(where, fresh, new)
        changes["episode"] = state.episode + ended
        # Typed where it is made: without JAX installed the checker sees ``moved`` as Any.
        reset: S = replace(moved, **changes)
        return reset

    def opening_one(self, key: jax.Array) -> S:
        """One new game (no leading axis) with root ``key`` (uint64; under
        :func:`x64`): the opening position, as :meth:`init` starts it."""
        fields: dict[str, Any] = {k: jnp.asarray(v) for k, v in self._opening.items()}
        fields["key"] = key.astype(jnp.uint64)
        return self._state_class(**fields)

    def _advance_one(self, state: S, action: jax.Array, chance: jax.Array) -> S:
        """One game's step (a game of the batch, without the leading axis)."""
        raise NotImplementedError

    def observation(self, state: S) -> jax.Array:
        """(n, players, observation_tensor_size) float32: per game, per seat,
        the scalar engine's ``observation_tensor(seat)``, number for number."""
        with x64():
            return self._observe_jit(state)

    def _observe_one(self, state: S) -> jax.Array:
        """One game's (players, size) observation."""
        raise NotImplementedError

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"apothecary.batch.jax.load({self.name!r}, players={self.num_players}{opts})"
