"""The Gymnasium adapter: Gymnasium's own ``check_env`` on every game at every
player count and with each main option changed, then what the adapter itself
promises (bots at the other seats, seeding, masks, rewards, errors, rendering,
registration)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env
from option_sets import configurations

import apothecary
from apothecary import (
    BadOptionError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    PlayerCountError,
    UnknownBotError,
    UnknownGameError,
)
from apothecary.interop.gymnasium import ApothecaryGymEnv, env_id

CONFIGURATIONS = configurations()

GAMES = apothecary.games()


def bounded(env: ApothecaryGymEnv) -> bool:
    """Whether the game declares finite bounds for every element of the tensor
    (In Vino Morte with Cheese and no round limit has one unbounded: the round)."""
    space = env.observation_space
    return bool(np.isfinite(space.low).all() and np.isfinite(space.high).all())


def play(env: Any, seed: int, action_seed: int | None = None) -> list[Any]:
    """One episode with seeded random legal actions: every step's results."""
    rng = np.random.default_rng(seed if action_seed is None else action_seed)
    observation, info = env.reset(seed=seed)
    steps: list[Any] = [(observation, info)]
    terminated = False
    while not terminated:
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(action)
        assert truncated is False
        steps.append((observation, reward, terminated, info))
    return steps


@pytest.mark.parametrize(("name", "players", "options"), CONFIGURATIONS)
def test_gymnasium_check_env(name: str, players: int, options: dict[str, Any]) -> None:
    env = gymnasium.make(env_id(name), players=players, render_mode="ansi", **options)
    with warnings.catch_warnings():
        # Every warning of the checker fails the test, except the infinite
        # bound of a configuration that declares one (or of a game that
        # declares no bounds yet).
        warnings.simplefilter("error")
        if not bounded(env.unwrapped):
            warnings.filterwarnings("ignore", message=".*infinity. This is probably too")
        check_env(env.unwrapped)


@pytest.mark.parametrize("name", GAMES)
def test_check_env_with_a_random_learner_seat(name: str) -> None:
    env = gymnasium.make(env_id(name), learner_seat="random", opponents="easy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)


@pytest.mark.parametrize("name", GAMES)
def test_an_episode_is_the_learners_view_of_a_game_played_to_its_end(name: str) -> None:
    cls = apothecary.game_class(name)
    env = ApothecaryGymEnv(
        name,
        players=cls.info.max_players if name != "little-drop-of-poison" else 3,
        learner_seat=1,
        render_mode="ansi",
    )
    observation, info = env.reset(seed=3)
    terminated = False
    rng = np.random.default_rng(3)
    rewards = []
    while True:
        state = env.state
        assert observation.dtype == np.float32
        assert observation in env.observation_space
        np.testing.assert_array_equal(observation, np.float32(state.observation_tensor(1)))
        assert env.render() == state.render(1)
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
        if terminated:
            break
        # The learner is to move whenever the env hands it control.
        assert state.current_player() == 1
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        assert env.action_masks().tolist() == mask.astype(bool).tolist()
        observation, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(reward)
    assert env.state.is_terminal()
    assert not mask.any(), "nothing is legal once the game is over"
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == env.state.returns()[1] == info["returns"][1]
    assert info["scores"] == list(env.state.outcome().scores)
    # Every move in the history that was not the learner's came from chance or a bot.
    assert len(env.state.history()) > len(rewards)


def test_reward_score_is_the_games_own_score() -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=1, reward="score")
    steps = play(env, seed=5)
    *_, (_, reward, terminated, info) = steps
    assert terminated
    assert reward == env.state.outcome().scores[0] == info["scores"][0]
    # Solo scores are scones eaten (0 if dead): not the 0-or-1 win share.
    returns = ApothecaryGymEnv("tea-scones-arsenic", players=1)
    *_, (_, win, _, _) = play(returns, seed=5)
    assert win == returns.state.returns()[0] in (0.0, 1.0)
    assert returns.state.history() == env.state.history()


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_gives_the_same_episode(name: str) -> None:
    # "easy" bots blunder at random, so unseeded bots would change the game.
    def run(seed: int) -> tuple[list[int], int]:
        env = ApothecaryGymEnv(name, opponents="easy", learner_seat="random")
        play(env, seed)
        return env.state.history(), env.seat

    first = run(11)
    assert run(11) == first
    assert any(run(seed) != first for seed in (12, 13, 14))


def test_the_bots_are_seeded_by_reset() -> None:
    # In Vino Morte has no chance at all: any difference comes from the bots.
    assert not apothecary.game_class("in-vino-morte").info.has_chance

    def history(seed: int) -> list[int]:
        env = ApothecaryGymEnv("in-vino-morte", players=5, opponents="random")
        play(env, seed, action_seed=0)
        return env.state.history()

    assert history(1) == history(1)
    assert len({tuple(history(seed)) for seed in range(6)}) > 1


def test_reset_without_a_seed_continues_the_stream() -> None:
    def histories() -> list[list[int]]:
        env = ApothecaryGymEnv("tea-scones-arsenic", players=3, opponents="easy")
        out = []
        for i, seed in enumerate([8, None, None]):
            rng = np.random.default_rng(i)
            _, info = env.reset(seed=seed)
            terminated = False
            while not terminated:
                action = rng.choice(np.flatnonzero(info["action_mask"]))
                _, _, terminated, _, info = env.step(action)
            out.append(env.state.history())
        return out

    first = histories()
    assert histories() == first
    assert first[1] != first[2]


def test_opponents_come_from_the_bot_registry() -> None:
    env = ApothecaryGymEnv("poison-pot", players=3, opponents=["random", "rules"], learner_seat=1)
    env.reset(seed=0)
    assert sorted(env.bots) == [0, 2]
    assert type(env.bots[0]).__name__ == "RandomBot"
    assert type(env.bots[2]) is type(apothecary.bots.load("rules", env.game, 2)), (
        "the second named bot plays the second other seat"
    )
    medium = apothecary.bots.levels("poison-pot")["medium"].bot
    default = ApothecaryGymEnv("poison-pot", players=2)
    default.reset(seed=0)
    assert type(default.bots[1]) is type(apothecary.bots.load(medium, default.game, 1))


def test_solo_has_no_opponents() -> None:
    env = gymnasium.make("apothecary/TeaSconesArsenic-v0", players=1)
    env.reset(seed=0)
    assert env.unwrapped.bots == {}


def test_learner_seat_fixed_random_and_per_reset() -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=4, learner_seat=2)
    env.reset(seed=0)
    assert env.seat == 2 and env.state.current_player() == 2
    env.reset(seed=0, options={"learner_seat": 3})
    assert env.seat == 3 and env.state.current_player() == 3
    env.reset(seed=0)
    assert env.seat == 2, "a reset option holds for its episode only"
    drawn = ApothecaryGymEnv("tea-scones-arsenic", players=4, learner_seat="random")
    seats = []
    for seed in range(12):
        drawn.reset(seed=seed)
        seats.append(drawn.seat)
    assert set(seats) == {0, 1, 2, 3}
    drawn.reset(seed=5)
    assert drawn.seat == seats[5]


def test_illegal_action_penalty_ends_the_episode_and_leaves_the_game() -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=2, illegal_reward=-2.5)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.state.history()
    observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] == illegal
    assert env.state.history() == before
    assert observation in env.observation_space
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)


def test_illegal_action_raise_mode() -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=2, illegal="raise")
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.state.history()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.state.history() == before
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(legal)  # the episode goes on
    assert env.state.history()[len(before)] == legal


@pytest.mark.parametrize("action", [10_000, -1, 1.0, "stop", None, True])
def test_a_value_outside_the_action_space_is_malformed(action: Any) -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=1)
    env.reset(seed=0)
    with pytest.raises(MalformedActionError):
        env.step(action)


def test_numpy_integers_are_actions() -> None:
    env = ApothecaryGymEnv("tea-scones-arsenic", players=1)
    _, info = env.reset(seed=0)
    env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))
    assert len(env.state.history()) >= 1


def test_step_before_reset_is_refused() -> None:
    with pytest.raises(GameOverError, match="reset"):
        ApothecaryGymEnv("poison-pot").step(0)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"game": "no-such-game"}, UnknownGameError),
        ({"game": "poison-pot", "colour": "red"}, BadOptionError),
        ({"game": "poison-pot", "players": 9}, PlayerCountError),
        ({"game": "poison-pot", "opponents": "grandmaster"}, UnknownBotError),
        ({"game": "poison-pot", "opponents": "rules:depth=3"}, BadOptionError),
        ({"game": "poison-pot", "players": 3, "opponents": ["rules"]}, BadOptionError),
        ({"game": "poison-pot", "opponents": 3}, BadOptionError),
        ({"game": "poison-pot", "learner_seat": 2}, BadOptionError),
        ({"game": "poison-pot", "learner_seat": "first"}, BadOptionError),
        ({"game": "poison-pot", "learner_seat": True}, BadOptionError),
        ({"game": "poison-pot", "illegal": "ignore"}, BadOptionError),
        ({"game": "poison-pot", "illegal_reward": "low"}, BadOptionError),
        ({"game": "poison-pot", "reward": "points"}, BadOptionError),
        ({"game": "poison-pot", "observation": "board"}, BadOptionError),
        ({"game": "poison-pot", "render_mode": "human"}, BadOptionError),
    ],
)
def test_bad_settings_raise_the_projects_errors(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        ApothecaryGymEnv(**kwargs)


def test_bad_reset_options() -> None:
    env = ApothecaryGymEnv("poison-pot")
    with pytest.raises(BadOptionError, match="learner_seat"):
        env.reset(options={"seat": 1})
    with pytest.raises(BadOptionError, match="learner_seat"):
        env.reset(options={"learner_seat": 5})


@pytest.mark.parametrize("name", GAMES)
def test_information_state_observations_where_the_game_has_them(name: str) -> None:
    game = apothecary.load(name)
    if not game.provides_information_state_tensor:
        with pytest.raises(BadOptionError, match="information_state"):
            ApothecaryGymEnv(name, observation="information_state")
        return
    made = gymnasium.make(env_id(name), observation="information_state", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # bounded: not even the infinity warning
        check_env(made.unwrapped)
    env = ApothecaryGymEnv(name, observation="information_state", opponents="random")
    low, high = game.information_state_tensor_bounds()
    assert env.observation_space.shape == (game.information_state_tensor_size(),)
    np.testing.assert_array_equal(env.observation_space.low, np.float32(low))
    np.testing.assert_array_equal(env.observation_space.high, np.float32(high))
    for seed in range(2):
        steps = play(env, seed)
        assert all(observation in env.observation_space for observation, *_ in steps)
        np.testing.assert_array_equal(
            steps[-1][0], np.float32(env.state.information_state_tensor(env.seat))
        )


@pytest.mark.parametrize("name", GAMES)
def test_observations_stay_inside_the_declared_bounds(name: str) -> None:
    env = ApothecaryGymEnv(name, opponents="random")
    for seed in range(3):
        for step in play(env, seed):
            assert step[0] in env.observation_space


def test_render_without_a_mode_warns_and_returns_nothing() -> None:
    env = ApothecaryGymEnv("in-vino-morte")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_every_game_is_registered() -> None:
    ids = set(gymnasium.registry)
    assert {env_id(name) for name in GAMES} <= ids
    assert env_id("little-drop-of-poison") == "apothecary/LittleDropOfPoison-v0"


def test_make_by_module_and_id_needs_no_import() -> None:
    # Gymnasium's "module:id" form imports the module that registers the ids.
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('apothecary.interop.gymnasium:apothecary/TeaSconesArsenic-v0',"
        " players=1)\n"
        "observation, info = env.reset(seed=0)\n"
        "print(observation.shape, int(info['action_mask'].sum()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    game = apothecary.load("tea-scones-arsenic", players=1)
    assert out.split()[0] == f"({game.observation_tensor_size()},)"


def test_module_docstring_example_runs() -> None:
    import doctest

    import apothecary.interop.gymnasium as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", GAMES)
def test_the_box_is_the_games_declared_bounds(name: str) -> None:
    game = apothecary.load(name)
    space = ApothecaryGymEnv(name).observation_space
    assert space.dtype == np.float32
    if not game.declares_tensor_bounds:
        assert np.isinf(space.low).all() and np.isinf(space.high).all()
        return
    low, high = game.observation_tensor_bounds()
    np.testing.assert_array_equal(space.low, np.float32(low))
    np.testing.assert_array_equal(space.high, np.float32(high))
    assert bounded(ApothecaryGymEnv(name))


def test_vector_envs() -> None:
    # Gymnasium's vector env seeds sub-env i with seed + i; after an episode
    # ends, its next step resets it (the action is ignored, the mask is empty).
    envs = gymnasium.make_vec(
        "apothecary/TeaSconesArsenic-v0", num_envs=2, vectorization_mode="sync", players=1
    )
    observations, infos = envs.reset(seed=5)
    single = ApothecaryGymEnv("tea-scones-arsenic", players=1)
    np.testing.assert_array_equal(observations[1], single.reset(seed=6)[0])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        actions = [
            int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
            for mask in infos["action_mask"]
        ]
        observations, _, terminated, truncated, infos = envs.step(np.array(actions))
        assert not truncated.any()
        ended += int(terminated.sum())
    assert ended > 2
