"""The pgx adapter (apothecary.interop.pgx), where pgx and JAX are installed.

Under ``jax.jit`` and ``jax.vmap`` the pgx env's games follow the numpy
batch engine's own chain of states exactly (every field, the observation of
the seat to move, rewards, terminated), with pgx's rules on top (a finished
game stays finished with zero rewards and an all-True mask; an illegal action
ends the game with pgx's penalty); pgx's ``auto_reset`` loop runs under jit.
Planted bugs in the adapter show the comparison fails.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax
import jax.numpy as jnp
import pgx
from pgx.experimental import auto_reset

import apothecary
from apothecary import batch
from apothecary.batch import jax as batch_jax
from apothecary.games.poison_pot.batch_jax import PoisonPotJax
from apothecary.interop import pgx as apothecary_pgx

CONFIGURATIONS: list[tuple[str, dict[str, Any]]] = [
    ("in-vino-morte", {"players": 2}),
    ("in-vino-morte", {"players": 5, "cheese": True}),
    ("poison-pot", {"players": 2, "radius": 2}),
    ("poison-pot", {"players": 3, "radius": 1}),
    ("tea-scones-arsenic", {"players": 1}),
    ("tea-scones-arsenic", {"players": 3}),
    ("little-drop-of-poison", {"players": 4}),
]


def seeds_of(keys: Any) -> np.ndarray:
    """The batch seeds the adapter derives from JAX keys (two uint32 words each)."""
    bits = np.asarray(jax.vmap(lambda k: jax.random.bits(k, (2,), jnp.uint32))(keys))
    return np.ascontiguousarray(bits).view(np.uint64).reshape(-1).view(np.int64)


def follow(
    name: str, options: dict[str, Any], n: int = 32, steps: int = 40, traced: bool = True
) -> None:
    """Step the pgx env (jit, vmap; its JAX program where the game has one,
    unless not ``traced``) and the numpy engine with the same actions;
    AssertionError where a game that has not ended yet differs."""
    env = apothecary_pgx.make(name, traced=traced, **options)
    engine = batch.load(name, **options)
    keys = jax.random.split(jax.random.PRNGKey(3), n)
    state = jax.jit(jax.vmap(env.init))(keys)
    want = engine.init(seeds_of(keys))
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    going = np.ones(n, dtype=np.bool_)  # games not yet ended in pgx
    for _ in range(steps):
        have = env._decode(jax.device_get(state._game), n)
        for field in ("key", "current_player", "legal_action_mask", "rewards", "terminated"):
            np.testing.assert_array_equal(
                getattr(have, field)[going], getattr(want, field)[going], err_msg=field
            )
        live = going & ~want.terminated
        seats = np.maximum(want.current_player, 0)
        observed = engine.observation(want)[np.arange(n), seats]
        np.testing.assert_array_equal(np.asarray(state.observation)[live], observed[live])
        np.testing.assert_array_equal(
            np.asarray(state.legal_action_mask)[live], want.legal_action_mask[live]
        )
        ended = np.asarray(state.terminated)
        assert np.asarray(state.legal_action_mask)[ended].all(), "pgx: all True at the end"
        actions = batch.random_legal_actions(want.legal_action_mask, rng)
        before_rewards = np.asarray(state.rewards)
        state = step(state, jnp.asarray(actions, dtype=jnp.int32))
        np.testing.assert_array_equal(np.asarray(state.rewards)[ended], 0 * before_rewards[ended])
        assert np.asarray(state.terminated)[ended].all(), "a finished game stays finished"
        going &= ~want.terminated
        want = engine.step(want, actions)
    # Little Drop of Poison's games last some 200 decisions: none ends in 40 steps.
    assert (~going).any() or name == "little-drop-of-poison", "some games ended"


@pytest.mark.parametrize(("name", "options"), CONFIGURATIONS)
def test_the_pgx_env_plays_the_batch_engines_games(name: str, options: dict[str, Any]) -> None:
    follow(name, options)


def callbacks_in(env: apothecary_pgx.ApothecaryPgxEnv) -> int:
    """How many host callbacks the env's jitted, vmapped init and step hold."""
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    state = jax.vmap(env.init)(keys)
    action = jnp.zeros(4, jnp.int32)
    text = str(jax.make_jaxpr(jax.vmap(env.init))(keys))
    text += str(jax.make_jaxpr(jax.vmap(env.step))(state, action))
    return text.count("pure_callback")


@pytest.mark.parametrize("name", batch_jax.engines())
def test_games_with_a_jax_program_trace_it_with_no_callback(name: str) -> None:
    players = max(2, apothecary.game_class(name).info.min_players)
    assert callbacks_in(apothecary_pgx.make(name, players=players)) == 0
    # The guard sees a callback where there is one: the same game on the host.
    assert callbacks_in(apothecary_pgx.make(name, players=players, traced=False)) > 0


def test_games_without_a_program_keep_the_callback() -> None:
    without = sorted(set(batch.engines()) - set(batch_jax.engines()))
    assert without, "every game has a JAX program: this test has nothing left to check"
    for name in without:
        env = apothecary_pgx.make(
            name, players=max(2, apothecary.game_class(name).info.min_players)
        )
        assert env.program is None and callbacks_in(env) > 0


def traced_and_host(name: str, options: dict[str, Any], n: int = 32, steps: int = 60) -> int:
    """Step the JAX-backed pgx env and the host-backed one (the numpy engine)
    under jit with the same actions; AssertionError at the first difference
    in any pgx field or any field of the game's state. Returns games ended."""
    traced = apothecary_pgx.make(name, **options)
    host = apothecary_pgx.make(name, traced=False, **options)
    assert traced.program is not None and host.program is None
    init = jax.random.split(jax.random.PRNGKey(5), n)
    a, b = jax.jit(jax.vmap(traced.init))(init), jax.jit(jax.vmap(host.init))(init)
    # pgx's auto_reset restarts a game as it ends, from the same key in both.
    step_a = jax.jit(jax.vmap(auto_reset(traced.step, traced.init)))
    step_b = jax.jit(jax.vmap(auto_reset(host.step, host.init)))
    rng = np.random.default_rng(1)
    ended = 0
    for i in range(steps):
        for field in (
            "current_player",
            "observation",
            "rewards",
            "terminated",
            "legal_action_mask",
        ):
            np.testing.assert_array_equal(
                np.asarray(getattr(a, field)),
                np.asarray(getattr(b, field)),
                err_msg=f"{i}: {field}",
            )
        for field, value in b._game.items():
            np.testing.assert_array_equal(
                np.asarray(a._game[field]), np.asarray(value), err_msg=f"{i}: {field}"
            )
        ended += int(np.asarray(b.rewards).any(axis=1).sum())
        actions = jnp.asarray(batch.random_legal_actions(np.asarray(b.legal_action_mask), rng))
        keys = jax.random.split(jax.random.PRNGKey(100 + i), n)
        a, b = step_a(a, actions, keys), step_b(b, actions, keys)
    return ended


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("in-vino-morte", {"players": 4, "cheese": True}),
        ("poison-pot", {"players": 3, "radius": 1}),
    ],
)
def test_a_jax_backed_step_under_jit_is_the_numpy_engines(
    name: str, options: dict[str, Any]
) -> None:
    assert traced_and_host(name, options) > 0  # games ended (scored) and restarted


def test_a_traced_draw_off_by_one_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = PoisonPotJax._advance_one

    def shifted(self: PoisonPotJax, s: Any, a: Any, chance: Any) -> Any:
        return original(self, dataclasses.replace(s, draws=s.draws + 1), a, chance)

    monkeypatch.setattr(PoisonPotJax, "_advance_one", shifted)
    with pytest.raises(AssertionError, match=r"observation|draws"):
        traced_and_host("poison-pot", {"players": 2, "radius": 1}, n=8, steps=6)


def test_it_is_a_pgx_env_with_pgx_sizes() -> None:
    env = apothecary_pgx.make("poison-pot", players=3, radius=1)
    engine = batch.load("poison-pot", players=3, radius=1)
    assert isinstance(env, pgx.Env) and env.num_players == 3 and env.id == "poison-pot"
    assert env.num_actions == engine.num_distinct_actions()
    assert env.observation_shape == (engine.observation_tensor_size(),)
    single = env.init(jax.random.PRNGKey(0))  # unbatched, no jit
    assert single.observation.shape == (engine.observation_tensor_size(),)
    nested = jax.vmap(jax.vmap(env.init))(
        jax.random.split(jax.random.PRNGKey(0), 6).reshape(2, 3, -1)
    )
    assert nested.legal_action_mask.shape == (2, 3, engine.num_distinct_actions())


def test_an_illegal_action_ends_the_game_with_pgxs_penalty() -> None:
    env = apothecary_pgx.make("in-vino-morte", players=3)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(1), 4))
    mask = np.asarray(state.legal_action_mask)
    actions = mask.argmax(axis=1)
    actions[1] = int(np.flatnonzero(~mask[1])[0])
    mover = int(state.current_player[1])
    state = jax.jit(jax.vmap(env.step))(state, jnp.asarray(actions))
    assert np.asarray(state.terminated).tolist() == [False, True, False, False]
    assert float(state.rewards[1, mover]) == -1.0


# Not Little Drop of Poison: its games (some 200 decisions) outlast the loop.
@pytest.mark.parametrize("name", sorted(set(batch.engines()) - {"little-drop-of-poison"}))
def test_a_pgx_style_random_play_loop_runs_under_jit(name: str) -> None:
    players = max(2, apothecary.game_class(name).info.min_players)
    env = apothecary_pgx.make(name, players=players)
    step = auto_reset(env.step, env.init)

    def body(i: Any, carry: Any) -> Any:
        state, key, returns = carry
        key, pick, reset = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits, axis=-1)
        state = jax.vmap(step)(state, action, jax.random.split(reset, logits.shape[0]))
        return state, key, returns + state.rewards.sum(axis=0)

    @jax.jit
    def play(key: Any) -> Any:
        state = jax.vmap(env.init)(jax.random.split(key, 32))
        return jax.lax.fori_loop(0, 100, body, (state, key, jnp.zeros(players)))[2]

    returns = np.asarray(play(jax.random.PRNGKey(0)))
    # Returns are win shares: each finished game pays out 1 in all.
    assert returns.sum() >= 32 and float(returns.sum()).is_integer()


@pytest.mark.parametrize("traced", [True, False], ids=["traced", "host"])
def test_a_codec_that_drops_the_keys_high_word_is_caught(
    monkeypatch: pytest.MonkeyPatch, traced: bool
) -> None:
    if traced:
        original_jax = apothecary_pgx._Field.from_jax

        def low_word_jax(self: Any, value: Any) -> Any:
            held = original_jax(self, value)
            return held.at[..., 1].set(0) if self.wide else held

        monkeypatch.setattr(apothecary_pgx._Field, "from_jax", low_word_jax)
    else:
        original = apothecary_pgx._Field.encode

        def low_word(self: Any, values: Any) -> Any:
            held = original(self, values)
            if self.wide:
                held = held.copy()
                held[..., 1] = 0
            return held

        monkeypatch.setattr(apothecary_pgx._Field, "encode", low_word)
    with pytest.raises(AssertionError, match="key"):
        follow("poison-pot", {"players": 2, "radius": 1}, n=8, steps=4, traced=traced)


@pytest.mark.parametrize("traced", [True, False], ids=["traced", "host"])
def test_an_observation_of_the_wrong_seat_is_caught(
    monkeypatch: pytest.MonkeyPatch, traced: bool
) -> None:
    cls = apothecary_pgx.ApothecaryPgxEnv
    if traced:
        original_jax = cls._traced_observe
        monkeypatch.setattr(
            cls, "_traced_observe", lambda self, held, player: original_jax(self, held, player + 1)
        )
    else:
        original = cls._host_observe
        monkeypatch.setattr(
            cls,
            "_host_observe",
            lambda self, held, player: original(self, held, np.asarray(player) + 1),
        )
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        follow("in-vino-morte", {"players": 3}, n=8, steps=4, traced=traced)


def test_module_docstring_example_runs() -> None:
    import doctest

    result = doctest.testmod(apothecary_pgx)
    assert result.attempted > 0 and result.failed == 0


def test_pgx_alphazero_search_pattern_runs_where_mctx_is_installed() -> None:
    """pgx's AlphaZero example searches with mctx, stepping arbitrary states
    with ``jax.vmap(env.step)`` inside ``jit``: the same pattern, a uniform
    prior and zero values standing in for its network."""
    mctx = pytest.importorskip("mctx")
    env = apothecary_pgx.make("in-vino-morte", players=2)
    n = 8

    def recurrent_fn(params: Any, key: Any, action: Any, state: Any) -> Any:
        player = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits = jnp.where(state.legal_action_mask, 0.0, jnp.finfo(jnp.float32).min)
        reward = state.rewards[jnp.arange(n), player]
        discount = jnp.where(state.terminated, 0.0, -1.0)
        output = mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=jnp.zeros(n)
        )
        return output, state

    @jax.jit
    def search(state: Any, key: Any) -> Any:
        logits = jnp.where(state.legal_action_mask, 0.0, jnp.finfo(jnp.float32).min)
        root = mctx.RootFnOutput(prior_logits=logits, value=jnp.zeros(n), embedding=state)
        return mctx.gumbel_muzero_policy(
            params=None,
            rng_key=key,
            root=root,
            recurrent_fn=recurrent_fn,
            num_simulations=8,
            invalid_actions=~state.legal_action_mask,
        ).action

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), n))
    action = np.asarray(search(state, jax.random.PRNGKey(1)))
    assert np.asarray(state.legal_action_mask)[np.arange(n), action].all()
