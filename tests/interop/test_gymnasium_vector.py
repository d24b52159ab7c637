"""The batch-backed Gymnasium vector env (apothecary.interop.gymnasium_vector).

Gymnasium 1.4 ships no checker for vector envs (``check_env`` takes a single
``Env``), so this file tests the documented vector contract itself: spaces,
shapes and dtypes of reset and step, seeding, next-step autoreset, infos with
their ``_key`` masks, and Gymnasium's own vector wrappers and benchmark on top.
Then the exact check: every env of the batch, replayed through the scalar
single-agent env (ApothecaryGymEnv) with the same learner actions, the same
opponent moves and the same chance outcomes, gives the same observations,
masks, rewards and terminations at every step, forfeits and resets included.
Planted bugs in the vector env and in the scalar env show that comparison fails.
"""

from __future__ import annotations

import dataclasses
import random
import warnings
from collections import deque
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from batch_differential import Mismatch, as_chance, resolve_chance
from gymnasium.utils.performance import benchmark_vector_step
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import apothecary
import apothecary.interop.gymnasium as scalar_module
from apothecary import BadOptionError, GameOverError, IllegalActionError, MalformedActionError
from apothecary import batch as batch_package
from apothecary.core import registry
from apothecary.core.bot import Bot
from apothecary.interop.gymnasium import ApothecaryGymEnv, env_id
from apothecary.interop.gymnasium_vector import BatchVectorEnv

GAMES = batch_package.engines()

# (game, players, options): each batch game at its smallest and largest table
# (Tea, Scones and Arsenic solo: no opponents at all; Little Drop of Poison
# opens with chance, the deal), and In Vino Morte with Cheese (a learner may
# survive a poisoned drink).
CONFIGURATIONS: list[tuple[str, int, dict[str, Any]]] = [
    ("in-vino-morte", 2, {}),
    ("in-vino-morte", 5, {"cheese": True}),
    ("in-vino-morte", 9, {}),
    ("poison-pot", 2, {"radius": 2}),
    ("poison-pot", 3, {"radius": 1}),
    ("tea-scones-arsenic", 1, {}),
    ("tea-scones-arsenic", 4, {}),
    ("little-drop-of-poison", 3, {}),
    ("little-drop-of-poison", 6, {}),
]


def random_actions(infos: dict[str, Any], rng: np.random.Generator, illegal: float) -> np.ndarray:
    """A random legal action per env (0 where none: an env being reset), and
    with probability ``illegal`` an illegal one where there is one."""
    mask = infos["action_mask"].astype(bool)
    actions = batch_package.random_legal_actions(mask, rng)
    wrong = batch_package.random_legal_actions(~mask, rng)
    forfeit = (rng.random(len(actions)) < illegal) & mask.any(axis=1) & (~mask).any(axis=1)
    return np.where(forfeit, wrong, actions)


def run(envs: Any, seed: int, steps: int, illegal: float = 0.0) -> list[tuple[Any, ...]]:
    """Reset with ``seed`` and take ``steps`` steps of seeded random actions:
    (actions, observations, rewards, terminated, truncated, infos) per step."""
    rng = np.random.default_rng(seed)
    observations, infos = envs.reset(seed=seed)
    out: list[tuple[Any, ...]] = [(None, observations, None, None, None, infos)]
    for _ in range(steps):
        actions = random_actions(infos, rng, illegal)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        out.append((actions, observations, rewards, terminated, truncated, infos))
    return out


# -- the vector contract -------------------------------------------------------------


@pytest.mark.parametrize(("name", "players", "options"), CONFIGURATIONS)
def test_spaces_shapes_and_dtypes(name: str, players: int, options: dict[str, Any]) -> None:
    n = 16
    envs = BatchVectorEnv(name, num_envs=n, players=players, **options)
    scalar = ApothecaryGymEnv(name, players=players, **options)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.single_observation_space == scalar.observation_space
    assert envs.single_action_space == scalar.action_space
    assert envs.observation_space.shape == (n, *scalar.observation_space.shape)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([scalar.action_space.n] * n)
    steps = run(envs, 3, 60, 0.05)
    # sb3-contrib's method, as the scalar env's: the last step's mask.
    np.testing.assert_array_equal(envs.action_masks(), steps[-1][5]["action_mask"].astype(bool))
    for actions, observations, rewards, terminated, truncated, infos in steps:
        assert observations.dtype == np.float32 and observations in envs.observation_space
        mask = infos["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (n, envs.single_action_space.n)
        assert infos["_action_mask"].all() and infos["_seat"].all()
        if actions is None:
            assert mask.any(axis=1).all(), "reset hands every learner a decision"
            continue
        assert actions in envs.action_space
        assert rewards.dtype == np.float64 and rewards.shape == (n,)
        assert terminated.dtype == np.bool_ and terminated.shape == (n,)
        assert truncated.dtype == np.bool_ and not truncated.any()
        # A finished episode leaves no legal action; a running one always one.
        assert (mask.any(axis=1) == ~terminated).all()
        assert (rewards[~terminated] == 0).all()
        if "_returns" in infos:
            ended = infos["_returns"] & terminated
            np.testing.assert_array_equal(
                rewards[ended], infos["returns"][ended, infos["seat"][ended]]
            )


@pytest.mark.parametrize("name", GAMES)
def test_seeding_is_deterministic_and_independent_of_batch_size(name: str) -> None:
    def observations(n: int, seed: int) -> list[np.ndarray]:
        envs = BatchVectorEnv(name, num_envs=n, learner_seat="random")
        rng = np.random.default_rng(0)
        seen = []
        _, infos = envs.reset(seed=seed)
        for _ in range(40):
            # The same actions for the first four envs, whatever the batch size.
            actions = np.zeros(n, dtype=np.int64)
            actions[:4] = random_actions({"action_mask": infos["action_mask"][:4]}, rng, 0.0)
            observation, _, _, _, infos = envs.step(actions)
            seen.append(observation[:4].copy())
        return seen

    first = observations(4, 5)
    for again in (observations(4, 5), observations(32, 5)):
        assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert any(not np.array_equal(a, b) for a, b in zip(first, observations(4, 6), strict=True))


def test_a_sequence_of_seeds_seeds_each_env() -> None:
    envs = BatchVectorEnv("poison-pot", num_envs=3, players=2)
    each, _ = envs.reset(seed=[4, 9, 4])
    np.testing.assert_array_equal(each[0], each[2])
    with pytest.raises(BadOptionError, match="seed"):
        envs.reset(seed=[1, 2])


def test_reset_without_a_seed_starts_every_env_on_its_next_episode() -> None:
    envs = BatchVectorEnv("in-vino-morte", num_envs=8, players=4)
    envs.reset(seed=2)
    assert envs.state is not None and (envs.state.episode == 0).all()
    envs.reset()
    assert (envs.state.episode == 1).all()
    unseeded = BatchVectorEnv("in-vino-morte", num_envs=8, players=4)
    observations, _ = unseeded.reset()
    assert observations in unseeded.observation_space


@pytest.mark.parametrize("name", GAMES)
def test_next_step_autoreset_ignores_the_action(name: str) -> None:
    envs = BatchVectorEnv(name, num_envs=32)
    twin = BatchVectorEnv(name, num_envs=32)
    steps = run(envs, 8, 100)
    run(twin, 8, 0)
    ended_once = False
    before = np.zeros(32, dtype=np.bool_)
    for actions, observations, rewards, terminated, _, infos in steps[1:]:
        # Step the twin with the same actions, but garbage where an env resets.
        other = np.where(before, envs.single_action_space.n - 1 - actions, actions)
        obs2, rew2, term2, _, _ = twin.step(other)
        np.testing.assert_array_equal(obs2, observations)
        np.testing.assert_array_equal(rew2, rewards)
        np.testing.assert_array_equal(term2, terminated)
        if before.any():
            ended_once = True
            assert (rewards[before] == 0).all() and not terminated[before].any()
            assert infos["action_mask"][before].any(axis=1).all()
        before = terminated
    assert ended_once


def test_an_illegal_action_forfeits_and_leaves_the_game() -> None:
    envs = BatchVectorEnv("poison-pot", num_envs=4, players=2, radius=1, illegal_reward=-2.5)
    _, infos = envs.reset(seed=1)
    assert envs.state is not None
    before = envs.state.copy()
    mask = infos["action_mask"].astype(bool)
    actions = batch_package.random_legal_actions(mask, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~mask[2])[0])
    _, rewards, terminated, _, infos = envs.step(actions)
    assert terminated.tolist() == [False, False, True, False]
    assert rewards[2] == -2.5 and infos["_illegal_action"].tolist() == [0, 0, 1, 0]
    assert infos["illegal_action"][2] == actions[2] and not infos["action_mask"][2].any()
    for field in ("cells", "legal_action_mask", "placed"):  # the game is as it was
        np.testing.assert_array_equal(getattr(envs.state, field)[2], getattr(before, field)[2])
    _, rewards, terminated, _, infos = envs.step(np.zeros(4, dtype=np.int64))
    assert not terminated[2] and rewards[2] == 0 and infos["action_mask"][2].any()
    assert envs.state.episode[2] == 1


def test_illegal_raise_mode_leaves_every_env_as_it_was() -> None:
    envs = BatchVectorEnv("in-vino-morte", num_envs=4, players=3, illegal="raise")
    _, infos = envs.reset(seed=1)
    assert envs.state is not None
    before = envs.state.copy()
    actions = infos["action_mask"].argmax(axis=1)
    actions[1] = int(np.flatnonzero(infos["action_mask"][1] == 0)[0])
    with pytest.raises(IllegalActionError, match="env 1"):
        envs.step(actions)
    np.testing.assert_array_equal(envs.state.legal_action_mask, before.legal_action_mask)
    envs.step(infos["action_mask"].argmax(axis=1))  # the episodes go on


@pytest.mark.parametrize(
    "actions", [np.zeros(3, dtype=np.int64), np.full(4, 10_000), np.full(4, -1), np.zeros(4)]
)
def test_malformed_actions(actions: np.ndarray) -> None:
    envs = BatchVectorEnv("poison-pot", num_envs=4)
    with pytest.raises(GameOverError, match="reset"):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.reset(seed=0)
    with pytest.raises(MalformedActionError):
        envs.step(actions)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"opponents": "medium"}, "uniformly random"),
        ({"opponents": ["random", "random"]}, "other seats"),
        ({"reward": "score"}, "returns"),
        ({"observation": "information_state"}, "observation tensors"),
        ({"illegal": "ignore"}, "penalty"),
        ({"illegal_reward": "low"}, "number"),
        ({"learner_seat": 2}, "learner_seat"),
        ({"num_envs": 0}, "num_envs"),
    ],
)
def test_what_the_batch_cannot_play_is_refused_by_name(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(BadOptionError, match=match):
        BatchVectorEnv("poison-pot", **{"num_envs": 2, **kwargs})
    with pytest.raises(BadOptionError, match="reset options"):
        BatchVectorEnv("poison-pot", num_envs=2).reset(options={"learner_seat": 1})


def test_a_game_without_a_batch_engine_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every game has one now: take one out, as a game without one would be.
    without = dataclasses.replace(registry.manifest("poison-pot"), batch=None)
    monkeypatch.setitem(registry._MANIFESTS, "poison-pot", without)
    with pytest.raises(batch_package.NoBatchEngineError):
        BatchVectorEnv("poison-pot", num_envs=2)


def test_make_vec_makes_it_for_every_batch_game_and_sync_still_makes_bots() -> None:
    for name in GAMES:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. Gymnasium's missing-autoreset warning
            envs = gymnasium.make_vec(env_id(name), num_envs=4)
        assert isinstance(envs, BatchVectorEnv) and envs.game.name == name
    sync = gymnasium.make_vec(env_id("poison-pot"), num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    for name in set(apothecary.games()) - set(GAMES):
        assert not isinstance(gymnasium.make_vec(env_id(name), num_envs=1), BatchVectorEnv)


def test_random_learner_seats_cover_every_seat() -> None:
    envs = BatchVectorEnv("in-vino-morte", num_envs=200, players=4, learner_seat="random")
    _, infos = envs.reset(seed=0)
    assert set(infos["seat"].tolist()) == {0, 1, 2, 3}
    assert envs.state is not None
    assert (envs.state.current_player == infos["seat"]).all()


@pytest.mark.parametrize("name", GAMES)
def test_gymnasiums_own_vector_tools_run_on_it(name: str) -> None:
    """Gymnasium's vector wrappers check the declared autoreset mode; its
    benchmark steps with ``action_space.sample()``, blind to masks (forfeits)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        envs = RecordEpisodeStatistics(BatchVectorEnv(name, num_envs=64))
    envs.action_space.seed(0)
    envs.reset(seed=0)
    returns = []
    for _ in range(30):
        *_, infos = envs.step(envs.action_space.sample())
        if "episode" in infos:
            returns += infos["episode"]["r"][infos["_episode"]].tolist()
    # Mostly forfeits (-1); a blind sample is sometimes legal, to a game's end.
    assert len(returns) > 0 and -1.0 in returns
    assert all(r == -1.0 or 0.0 <= r <= 1.0 for r in returns)
    assert benchmark_vector_step(BatchVectorEnv(name, num_envs=64), 0.2, seed=0) > 0


# -- against the scalar single-agent env ---------------------------------------------


class Twinned(BatchVectorEnv):
    """The vector env with every batch step mirrored in scalar twins: chance is
    drawn for the twins (a seeded ``random.Random``) and handed to the batch,
    and every opponent move and chance outcome is recorded per env."""

    def __init__(self, *args: Any, chance_seed: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rng = random.Random(chance_seed)
        self.twins = [self.game.new_initial_state() for _ in range(self.num_envs)]
        self.opponent_moves: list[list[tuple[int, int]]] = [[] for _ in range(self.num_envs)]
        self.chances: list[list[int]] = [[] for _ in range(self.num_envs)]
        real = self.engine

        class Engine:
            def __getattr__(self, attribute: str) -> Any:
                return getattr(real, attribute)

            def init(_, *args: Any) -> Any:
                self.twins = [self.game.new_initial_state() for _ in range(self.num_envs)]
                opening = [self.chance_of(i) for i in range(self.num_envs)]
                return real.init(*args, chance=as_chance(real, opening) if any(opening) else None)

            def restart(_, state: Any, done: Any) -> Any:
                opening: list[list[int]] = [[] for _ in range(self.num_envs)]
                for i in np.flatnonzero(done):
                    self.twins[i] = self.game.new_initial_state()
                    opening[i] = self.chance_of(i)
                outcomes = as_chance(real, opening) if any(opening) else None
                return real.restart(state, done, outcomes)

        self.engine = Engine()  # type: ignore[assignment]

    def chance_of(self, i: int) -> list[int]:
        """Env ``i``'s twin's chance events until a seat moves, drawn and recorded."""
        outcomes = resolve_chance(self.twins[i], self.rng)
        self.chances[i] += outcomes
        return outcomes

    def _step_rows(self, state: Any, rows: Any, actions: Any) -> Any:
        if rows.size == 0:
            return state
        outcomes = []
        for j, i in enumerate(rows.tolist()):
            world = self.twins[i]
            if world.current_player() != self.seat[i]:
                self.opponent_moves[i].append((world.current_player(), int(actions[j])))
            world.apply_action(int(actions[j]))
            outcomes.append(self.chance_of(i))
        part = self.engine.step(state.take(rows), actions, as_chance(self.engine, outcomes))
        return state.put(rows, part)


class Scripted(Bot):
    """An opponent that plays the recorded moves of the vector env's opponents."""

    def __init__(self, game: Any, seat: int, moves: deque[tuple[int, int]]) -> None:
        super().__init__(game, seat)
        self.moves = moves

    def _choose(self, state: Any) -> int:
        if not self.moves:
            raise Mismatch(f"seat {self.seat} moves in the scalar env, not in the vector env")
        seat, action = self.moves.popleft()
        if seat != self.seat:
            raise Mismatch(
                f"seat {self.seat} moves in the scalar env, seat {seat} in the vector env"
            )
        return action


def replay(
    monkeypatch: pytest.MonkeyPatch,
    envs: Twinned,
    steps: list[tuple[Any, ...]],
    settings: dict[str, Any],
) -> None:
    """Replay each env of a recorded vector run through ApothecaryGymEnv with
    the same learner actions, opponent moves and chance; Mismatch if they differ."""
    for i in range(envs.num_envs):
        moves = deque(envs.opponent_moves[i])
        chances = deque(envs.chances[i])
        monkeypatch.setattr(
            scalar_module,
            "load_bot",
            lambda spec, game, seat, seed=None, moves=moves: Scripted(game, seat, moves),
        )
        monkeypatch.setattr(
            scalar_module, "sample_chance", lambda state, rng, chances=chances: chances.popleft()
        )
        scalar = ApothecaryGymEnv(**settings)
        done = True
        for t, (actions, observations, rewards, terminated, _, infos) in enumerate(steps):
            if done:  # the vector env's next-step autoreset is the scalar env's reset
                observation, info = scalar.reset(seed=t)
                reward, ended = 0.0, False
            else:
                observation, reward, ended, _, info = scalar.step(int(actions[i]))
            got = (observation, reward, ended, info)
            want = (
                observations[i],
                0.0 if rewards is None else rewards[i],
                False if terminated is None else terminated[i],
            )
            check(i, t, got, want, infos)
            done = bool(got[2])
        if moves or chances:
            raise Mismatch(f"env {i}: the vector env played moves the scalar env did not")


def check(i: int, t: int, got: tuple[Any, ...], want: tuple[Any, ...], infos: Any) -> None:
    """Mismatch naming the env, step and field where the two envs differ."""
    observation, reward, ended, info = got
    fields = {
        "observation": (observation, want[0]),
        # The batch holds returns as float32 (the vector env hands them on as float64).
        "reward": (np.float32(reward), np.float32(want[1])),
        "terminated": (ended, want[2]),
        "action_mask": (info["action_mask"], infos["action_mask"][i]),
        "seat": (info["seat"], infos["seat"][i]),
    }
    ended_here = "_returns" in infos and bool(infos["_returns"][i])
    fields["game over"] = ("returns" in info, ended_here)
    if "returns" in info and ended_here:
        fields["returns"] = (np.float32(info["returns"]), infos["returns"][i])
    for field, (scalar_value, vector_value) in fields.items():
        if not np.array_equal(scalar_value, vector_value):
            raise Mismatch(
                f"env {i}, step {t}: {field} differs: scalar {scalar_value!r}, "
                f"vector {vector_value!r}"
            )


def compare_with_scalar(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    players: int,
    options: dict[str, Any],
    seat: int,
    n: int = 48,
    steps: int = 80,
    seed: int = 0,
) -> None:
    settings = {"game": name, "players": players, "learner_seat": seat, **options}
    envs = Twinned(num_envs=n, chance_seed=seed, **settings)
    recorded = run(envs, seed, steps, illegal=0.03)
    assert sum(int(step[3].sum()) for step in recorded[1:]) > n // 2, "episodes end"
    replay(monkeypatch, envs, recorded, {**settings, "opponents": "random"})


@pytest.mark.parametrize(("name", "players", "options"), CONFIGURATIONS)
@pytest.mark.parametrize("last_seat", [False, True])
def test_every_env_plays_as_the_scalar_env(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    players: int,
    options: dict[str, Any],
    last_seat: bool,
) -> None:
    seat = players - 1 if last_seat else 0
    compare_with_scalar(monkeypatch, name, players, options, seat, seed=players + seat)


def test_a_vector_env_observing_the_wrong_seat_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def next_seat(self: BatchVectorEnv) -> Any:
        assert self.state is not None
        every = self.engine.observation(self.state)
        return every[self._rows, (self.seat + 1) % self.game.num_players]

    monkeypatch.setattr(BatchVectorEnv, "_observe", next_seat)
    with pytest.raises(Mismatch, match="observation"):
        compare_with_scalar(monkeypatch, "poison-pot", 2, {"radius": 1}, 1)


def test_opponents_that_stop_after_one_move_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_move(self: BatchVectorEnv, state: Any, fresh: Any) -> Any:
        waiting = np.flatnonzero(~state.terminated & (state.current_player != self.seat))
        if waiting.size == 0:
            return state
        actions = batch_package.legal_action_at(
            state.legal_action_mask[waiting], np.zeros(waiting.size)
        )
        return self._step_rows(state, waiting, actions)

    monkeypatch.setattr(BatchVectorEnv, "_play_opponents", one_move)
    with pytest.raises(Mismatch, match=r"observation|moves in the scalar env"):
        compare_with_scalar(monkeypatch, "in-vino-morte", 4, {}, 0)


def test_a_scalar_env_paying_the_wrong_seat_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        ApothecaryGymEnv, "_final_reward", lambda self: float(self.state.returns()[0])
    )
    with pytest.raises(Mismatch, match="reward"):
        compare_with_scalar(monkeypatch, "in-vino-morte", 3, {}, 2)


def test_module_docstring_example_runs() -> None:
    import doctest

    import apothecary.interop.gymnasium_vector as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
