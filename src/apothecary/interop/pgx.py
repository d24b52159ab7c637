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
under ``jax.jit`` and ``jax.vmap``. Where the game has a JAX program
(:mod:`apothecary.batch.jax`), ``init``, ``step`` and ``observe`` are that
program's one-game functions, traced into the caller's own program (XLA fuses
them into a rollout, and they run wherever the caller's JAX runs). A game
without one calls the numpy batch engine on the host through
``jax.pure_callback`` (once per call for the whole vmapped batch), at the cost
of a host round trip per call and no accelerator. Either way the rules are
exactly the batch engine's (and so the scalar engine's).

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
from apothecary.batch.jax import JaxBatchGame, program_of
from apothecary.batch.jax.core import first_max, x64
from apothecary.batch.keys import seed_keys

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

    def to_jax(self, held: Any) -> Any:
        """One game's held value as the JAX program's field (call under
        :func:`~apothecary.batch.jax.core.x64`: the pairs join into 8 bytes,
        low word first, as :meth:`encode` splits them)."""
        if not self.wide:
            return held
        return jax.lax.bitcast_convert_type(held, jnp.dtype(self.dtype))

    def from_jax(self, value: Any) -> Any:
        """One game's JAX field as held (under ``x64``; :meth:`to_jax` reversed)."""
        if not self.wide:
            return value.astype(self.dtype)
        return jax.lax.bitcast_convert_type(value, jnp.uint32)


class ApothecaryPgxEnv(pgx.Env):  # type: ignore[misc]
    """A game with a batch engine as a ``pgx.Env``; :func:`make` makes one."""

    def __init__(self, engine: BatchGame[Any], *, traced: bool = True) -> None:
        super().__init__()
        self.engine = engine
        self.program: JaxBatchGame[Any] | None = program_of(engine) if traced else None
        """The game's JAX program, traced into the caller's; None: the host callbacks."""
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
        if self.program is not None:
            return self._state(self._traced_init(bits), jnp.zeros((), jnp.int32))
        out = jax.pure_callback(self._host_init, self._step_result, bits, vmap_method=_VMAP)
        return self._state(out, jnp.zeros((), jnp.int32))

    def _step(self, state: ApothecaryPgxState, action: Any, key: Any) -> ApothecaryPgxState:
        del key  # chance comes from each game's own key, inside the state
        if self.program is not None:
            out = self._traced_step(state._game, action)
        else:
            out = jax.pure_callback(
                self._host_step, self._step_result, state._game, action, vmap_method=_VMAP
            )
        # A finished game keeps the seat that ended it to move (pgx observes it).
        player = jnp.where(out["terminated"], state.current_player, out["current_player"])
        return self._state(out, player, state._step_count)

    def _observe(self, state: ApothecaryPgxState, player_id: Any) -> Any:
        if self.program is not None:
            return self._traced_observe(state._game, player_id)
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

    # -- the JAX program, traced (one game: pgx's own vmap lays it over games) ------

    def _traced_init(self, bits: Any) -> dict[str, Any]:
        """:meth:`_host_init` for one game, as the JAX program: the same seed
        (the two words, low first), so the same key and opening."""
        assert self.program is not None
        with x64():
            seed: Any = jax.lax.bitcast_convert_type(bits, jnp.uint64)
            key: Any = seed_keys(seed)  # numpy-typed, run on JAX arrays
            return self._traced_result(self.program.opening_one(key))

    def _traced_step(self, held: dict[str, Any], action: Any) -> dict[str, Any]:
        """:meth:`_host_step` for one game, as the JAX program (chance drawn
        from the game's key, as the numpy engine draws it)."""
        program = self.program
        assert program is not None
        with x64():
            state = self._traced_state(held)
            mask = state.legal_action_mask
            played = jnp.asarray(action).astype(jnp.int64)
            inside = (played >= 0) & (played < mask.shape[0])
            legal = inside & mask[jnp.clip(played, 0, mask.shape[0] - 1)]
            # An illegal action (pgx ends the game with its penalty and keeps
            # this state) plays the first legal one, as the host does.
            chosen = jnp.where(legal, played, first_max(mask).astype(jnp.int64))
            chance = jnp.full((program.max_chance_per_step,), -1, jnp.int64)
            return self._traced_result(program.step_one(state, chosen, chance))

    def _traced_observe(self, held: dict[str, Any], player: Any) -> Any:
        """:meth:`_host_observe` for one game: the seat's row of the program's
        observation of every seat."""
        assert self.program is not None
        with x64():
            every = self.program._observe_one(self._traced_state(held))
            seat = jnp.asarray(player).astype(jnp.int32) % self.engine.num_players
            return every[seat].astype(jnp.float32)

    def _traced_state(self, held: dict[str, Any]) -> Any:
        """One game's held fields as the program's state (under ``x64``)."""
        assert self.program is not None
        fields = {f.name: f.to_jax(held[f.name]) for f in self._fields}
        return self.program._state_class(**fields)

    def _traced_result(self, state: Any) -> dict[str, Any]:
        """:meth:`_result` for one game of the program (under ``x64``)."""
        return {
            "game": {f.name: f.from_jax(getattr(state, f.name)) for f in self._fields},
            "current_player": jnp.maximum(state.current_player, 0).astype(jnp.int32),
            "legal_action_mask": state.legal_action_mask,
            "rewards": state.rewards.astype(jnp.float32),
            "terminated": state.terminated,
        }

    # -- the numpy engine, on the host ------------------------------------------------

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


def make(
    name: str, /, players: int | None = None, *, traced: bool = True, **options: Any
) -> ApothecaryPgxEnv:
    """The ``pgx.Env`` of a game with a batch engine, configured as
    :func:`apothecary.batch.load` configures it (``pgx.make`` knows only pgx's
    own games: this is the one line a pgx program changes). It runs the game's
    JAX program where it has one; ``traced=False`` calls the numpy engine on
    the host instead (the same games, for a comparison)."""
    return ApothecaryPgxEnv(batch.load(name, players, **options), traced=traced)


__all__ = ["ApothecaryPgxEnv", "ApothecaryPgxState", "make"]
