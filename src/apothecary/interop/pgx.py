"""Every game with a batch engine as a ``pgx.Env``, for JAX code written for pgx.

>>> import jax
>>> from apothecary import batch
>>> from apothecary.interop import pgx as apothecary_pgx
>>> env = apothecary_pgx.make(batch.engines()[0], players=2)
>>> keys = jax.random.split(jax.random.PRNGKey(0), 8)
>>> state = jax.jit(jax.vmap(env.init))(keys)
>>> len(state.observation), len(state.legal_action_mask)
(8, 8)
>>> action = jax.numpy.argmax(state.legal_action_mask, axis=1)
>>> state = jax.jit(jax.vmap(env.step))(state, action)

The class follows pgx's API (``init(key)``, ``step(state, action, key)``,
``observe``, ``num_players``, ``num_actions``, ``observation_shape``, the
state's ``current_player``, ``observation``, ``rewards``, ``terminated``,
``truncated``, ``legal_action_mask``) and its rules of play (an illegal action
ends the game with pgx's penalty; a terminated state stays terminated, with
zero rewards, until ``pgx.experimental.auto_reset`` or a new ``init``). It runs
under ``jax.jit`` and ``jax.vmap``, but the game itself is not a JAX program:
``init``, ``step`` and ``observe`` call the numpy batch engine on the host
through ``jax.pure_callback`` (once per call for the whole vmapped batch), so
the rules stay exactly the batch engine's (and so the scalar engine's). The
cost: no accelerator, and a host round trip per call. A JAX backend of the
batch programs (``[jax]``) would replace the callbacks.

What differs from pgx's own games: ``state.observation`` is the current
player's observation tensor (float32, the scalar engine's layout); when a game
ends ``current_player`` stays the seat that ended it; chance is drawn from
each game's own counter-based key, set at ``init`` from its JAX key, so
``step`` ignores its ``key`` (the same state and action always give the same
next state). Needs ``pip install 'apothecary[pgx]'``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pgx
from numpy.typing import NDArray
from pgx._src.struct import dataclass as pgx_dataclass
from pgx._src.struct import field as pgx_field

from apothecary import batch
from apothecary.batch.core import BatchGame, BatchState, legal_action_at

_VMAP = "broadcast_all"
"""How a callback meets ``jax.vmap``: every argument gets the batch axes, and
the numpy engine plays the whole batch in one call."""


@pgx_dataclass
class ApothecaryPgxState(pgx.State):  # type: ignore[misc]
    """A pgx state: pgx's common fields, and the batch engine's state of the
    game (``_game``, one array per field of its batch state, 8-byte fields
    held as pairs of uint32 so that JAX without x64 keeps them exactly)."""

    current_player: Any = 0
    observation: Any = 0
    rewards: Any = 0
    terminated: Any = False
    truncated: Any = False
    legal_action_mask: Any = 0
    _step_count: Any = 0
    _game: dict[str, Any] = pgx_field(default_factory=dict)
    _name: str = pgx_field(pytree_node=False, default="")

    @property
    def env_id(self) -> Any:
        """The game's registry name (pgx's own ids are a fixed list)."""
        return self._name


@dataclasses.dataclass(frozen=True)
class _Field:
    """How one field of the batch state is held in the pgx state."""

    name: str
    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    """Per game."""

    @property
    def wide(self) -> bool:
        """Eight bytes a number: held as two uint32 (JAX's default is 32-bit)."""
        return self.dtype.itemsize == 8

    def held(self) -> jax.ShapeDtypeStruct:
        """Shape and dtype in the pgx state, per game."""
        if self.wide:
            return jax.ShapeDtypeStruct((*self.shape, 2), jnp.uint32)
        return jax.ShapeDtypeStruct(self.shape, self.dtype)

    def encode(self, values: NDArray[Any]) -> NDArray[Any]:
        """(n, *shape) batch values as held."""
        if not self.wide:
            return values
        n = values.shape[0]
        pairs = np.ascontiguousarray(values).reshape(n, -1).view(np.uint32)
        return pairs.reshape(n, *self.shape, 2)

    def decode(self, held: NDArray[Any], n: int) -> NDArray[Any]:
        """Held values of n games back as the batch's (n, *shape) array."""
        if not self.wide:
            return np.asarray(held, dtype=self.dtype).reshape(n, *self.shape)
        pairs = np.ascontiguousarray(held, dtype=np.uint32).reshape(n, -1)
        return pairs.view(self.dtype).reshape(n, *self.shape)


class ApothecaryPgxEnv(pgx.Env):  # type: ignore[misc]
    """A game with a batch engine as a ``pgx.Env``; :func:`make` makes one."""

    def __init__(self, engine: BatchGame[Any]) -> None:
        super().__init__()
        self.engine = engine
        sample = engine.init(0, 1)
        self._state_class = type(sample)
        self._fields = [
            _Field(f.name, getattr(sample, f.name).dtype, getattr(sample, f.name).shape[1:])
            for f in dataclasses.fields(sample)
        ]
        players, actions = engine.num_players, engine.num_distinct_actions()
        self._step_result = {
            "game": {f.name: f.held() for f in self._fields},
            "current_player": jax.ShapeDtypeStruct((), jnp.int32),
            "legal_action_mask": jax.ShapeDtypeStruct((actions,), jnp.bool_),
            "rewards": jax.ShapeDtypeStruct((players,), jnp.float32),
            "terminated": jax.ShapeDtypeStruct((), jnp.bool_),
        }
        self._observation = jax.ShapeDtypeStruct((engine.observation_tensor_size(),), jnp.float32)

    # -- pgx's API -----------------------------------------------------------------

    @property
    def id(self) -> Any:
        """The game's registry name."""
        return self.engine.name

    @property
    def version(self) -> str:
        """The adapter's version (pgx versions each environment)."""
        return "v0"

    @property
    def num_players(self) -> int:
        """The configuration's player count."""
        return self.engine.num_players

    def _init(self, key: Any) -> ApothecaryPgxState:
        bits = jax.random.bits(key, (2,), jnp.uint32)
        out = jax.pure_callback(self._host_init, self._step_result, bits, vmap_method=_VMAP)
        return self._state(out, jnp.zeros((), jnp.int32))

    def _step(self, state: ApothecaryPgxState, action: Any, key: Any) -> ApothecaryPgxState:
        del key  # chance comes from each game's own key, inside the state
        out = jax.pure_callback(
            self._host_step, self._step_result, state._game, action, vmap_method=_VMAP
        )
        # A finished game keeps the seat that ended it to move (pgx observes it).
        player = jnp.where(out["terminated"], state.current_player, out["current_player"])
        return self._state(out, player, state._step_count)

    def _observe(self, state: ApothecaryPgxState, player_id: Any) -> Any:
        return jax.pure_callback(
            self._host_observe, self._observation, state._game, player_id, vmap_method=_VMAP
        )

    # -- helpers ----------------------------------------------------------------

    def _state(self, out: dict[str, Any], player: Any, steps: Any = None) -> ApothecaryPgxState:
        return ApothecaryPgxState(
            current_player=player,
            observation=jnp.zeros(self._observation.shape, jnp.float32),
            rewards=out["rewards"],
            terminated=out["terminated"],
            truncated=jnp.zeros((), jnp.bool_),
            legal_action_mask=out["legal_action_mask"],
            _step_count=jnp.zeros((), jnp.int32) if steps is None else steps,
            _game=out["game"],
            _name=self.engine.name,
        )

    def _decode(self, held: dict[str, Any], n: int) -> BatchState:
        values = {f.name: f.decode(np.asarray(held[f.name]), n) for f in self._fields}
        decoded: BatchState = self._state_class(**values)
        return decoded

    def _result(self, state: BatchState, lead: tuple[int, ...]) -> dict[str, Any]:
        """The step result of a batch, with the callback's batch axes ``lead``."""

        def shaped(values: NDArray[Any]) -> NDArray[Any]:
            return values.reshape((*lead, *values.shape[1:]))

        player = np.maximum(state.current_player, 0).astype(np.int32)
        return {
            "game": {f.name: shaped(f.encode(getattr(state, f.name))) for f in self._fields},
            "current_player": shaped(player),
            "legal_action_mask": shaped(state.legal_action_mask),
            "rewards": shaped(state.rewards),
            "terminated": shaped(state.terminated),
        }

    def _host_init(self, bits: NDArray[np.uint32]) -> dict[str, Any]:
        lead = bits.shape[:-1]
        pairs = np.ascontiguousarray(bits, dtype=np.uint32).reshape(-1, 2)
        seeds = pairs.view(np.uint64).reshape(-1).view(np.int64)
        return self._result(self.engine.init(seeds), lead)

    def _host_step(self, held: dict[str, Any], action: NDArray[Any]) -> dict[str, Any]:
        lead = np.shape(action)
        n = int(np.prod(lead, dtype=np.int64))
        state = self._decode(held, n)
        played = np.asarray(action, dtype=np.int64).reshape(n)
        # Under vmap, pgx's Env.step runs this for every state, the finished
        # ones and the illegal actions too, and keeps the result only where it
        # should (lax.cond is a select there): play a legal action instead.
        inside = (played >= 0) & (played < self.engine.num_distinct_actions())
        legal = inside & state.legal_action_mask[np.arange(n), np.where(inside, played, 0)]
        chosen = np.where(legal, played, legal_action_at(state.legal_action_mask, np.zeros(n)))
        return self._result(self.engine.step(state, chosen), lead)

    def _host_observe(self, held: dict[str, Any], player: NDArray[Any]) -> NDArray[np.float32]:
        lead = np.shape(player)
        n = int(np.prod(lead, dtype=np.int64))
        seats = np.asarray(player, dtype=np.int64).reshape(n) % self.engine.num_players
        every = self.engine.observation(self._decode(held, n))
        seen: NDArray[np.float32] = every[np.arange(n), seats]
        return seen.reshape((*lead, -1))


def make(name: str, /, players: int | None = None, **options: Any) -> ApothecaryPgxEnv:
    """The ``pgx.Env`` of a game with a batch engine, configured as
    :func:`apothecary.batch.load` configures it (``pgx.make`` knows only pgx's
    own games: this is the one line a pgx program changes)."""
    return ApothecaryPgxEnv(batch.load(name, players, **options))


__all__ = ["ApothecaryPgxEnv", "ApothecaryPgxState", "make"]
