"""The PettingZoo adapter: PettingZoo's own API and seed tests on every game, at
every player count and with each main option changed, then what the adapter
itself promises (observations, masks, rewards, seeding, errors, rendering)."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from option_sets import BAD_LOADS, SHORT_INFORMATION_STATES, configurations
from pettingzoo.test import api_test, seed_test

import apothecary
from apothecary.interop.pettingzoo import ApothecaryEnv, env

CONFIGURATIONS = configurations()


def _has_information_states(name: str, players: int, options: dict[str, Any]) -> bool:
    """Whether the configuration has an information-state tensor of fixed length
    (In Vino Morte with Cheese and no round limit has none)."""
    game = apothecary.load(name, players, **options)
    if not game.provides_information_state_tensor:
        return False
    try:
        game.information_state_tensor_size()
    except apothecary.BadOptionError:
        return False
    return True


INFORMATION_STATE_CONFIGURATIONS = [
    pytest.param(
        c.values[0],
        c.values[1],
        {**SHORT_INFORMATION_STATES.get(c.values[0], {}), **c.values[2]},  # type: ignore[dict-item]
        id=c.id,
    )
    for c in CONFIGURATIONS
    if _has_information_states(*c.values)  # type: ignore[arg-type]
]


def play_randomly(table: ApothecaryEnv, seed: int) -> list[int]:
    """Play one game through the env with seeded random legal actions."""
    rng = random.Random(seed)
    table.reset(seed=seed)
    for _agent in table.agent_iter():
        observation, _reward, terminated, truncated, _info = table.last()
        if terminated or truncated:
            table.step(None)
        else:
            table.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return table.state.history()


@pytest.mark.parametrize(("name", "players", "options"), CONFIGURATIONS)
def test_pettingzoo_api_and_seed_tests(name: str, players: int, options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # PettingZoo warns about every dict observation (its own classic games
        # included); the contents are checked against the space regardless.
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(name, players=players, **options), num_cycles=300)
        seed_test(lambda: env(name, players=players, **options), num_cycles=300)


@pytest.mark.parametrize(("name", "players", "options"), INFORMATION_STATE_CONFIGURATIONS)
def test_pettingzoo_api_test_observing_information_states(
    name: str, players: int, options: dict[str, Any]
) -> None:
    """PettingZoo's own api_test with ``observation="information_state"``: it
    checks every observation lies in the space, so the declared bounds too."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        table = env(name, players=players, observation="information_state", **options)
        api_test(table, num_cycles=300)
    game = apothecary.load(name, players, **options)
    box = table.observation_space(table.possible_agents[0])["observation"]
    low, high = game.information_state_tensor_bounds()
    assert box.shape == (game.information_state_tensor_size(),)
    assert box.low.tolist() == np.float32(low).tolist()
    assert box.high.tolist() == np.float32(high).tolist()


@pytest.mark.parametrize("name", apothecary.games())
def test_information_state_observations_are_the_seats_own(name: str) -> None:
    game = apothecary.load(name)
    if not game.provides_information_state_tensor:
        with pytest.raises(apothecary.BadOptionError, match="defines no information_state"):
            env(name, observation="information_state")
        return
    table = env(name, observation="information_state", **SHORT_INFORMATION_STATES.get(name, {}))
    rng = random.Random(6)
    table.reset(seed=6)
    for checked, agent in enumerate(table.agent_iter()):
        if table.terminations[agent] or checked >= 40:
            break
        state = table.state
        for seat, other in enumerate(table.possible_agents):
            seen = table.observe(other)["observation"]
            assert seen in table.observation_space(other)["observation"]
            assert seen.tolist() == np.float32(state.information_state_tensor(seat)).tolist()
        table.step(rng.choice(state.legal_actions()))


def test_the_observation_kind_is_checked() -> None:
    with pytest.raises(apothecary.BadOptionError, match="expected one of 'observation'"):
        env("poison-pot", observation="board")
    # No fixed length: the information state says why, as max_game_length does.
    with pytest.raises(apothecary.BadOptionError, match="set round_limit"):
        env("in-vino-morte", cheese=True, observation="information_state")


@pytest.mark.parametrize("name", apothecary.games())
def test_spaces_are_the_games_own_sizes(name: str) -> None:
    table = env(name)
    game = apothecary.load(name)
    assert table.possible_agents == [f"player_{i}" for i in range(game.num_players)]
    for agent in table.possible_agents:
        box = table.observation_space(agent)["observation"]
        assert box.shape == (game.observation_tensor_size(),) and box.dtype == np.float32
        if game.declares_tensor_bounds:  # exactly the game's declared bounds
            low, high = game.observation_tensor_bounds()
            assert box.low.tolist() == np.float32(low).tolist()
            assert box.high.tolist() == np.float32(high).tolist()
        assert table.observation_space(agent)["action_mask"].shape == (game.num_distinct_actions(),)
        assert table.action_space(agent).n == game.num_distinct_actions()


@pytest.mark.parametrize("name", apothecary.games())
def test_observations_and_masks_are_the_seats_own(name: str) -> None:
    table = env(name, players=3 if apothecary.game_class(name).info.max_players >= 3 else 2)
    rng = random.Random(5)
    table.reset(seed=5)
    checked = 0
    for agent in table.agent_iter():
        if table.terminations[agent]:
            table.step(None)
            continue
        state = table.state
        seat = state.current_player()
        assert agent == f"player_{seat}"
        for other, index in ((a, int(a.split("_")[1])) for a in table.agents):
            seen = table.observe(other)
            assert seen["observation"].tolist() == pytest.approx(state.observation_tensor(index))
            expected = state.legal_actions() if index == seat else []
            assert np.flatnonzero(seen["action_mask"]).tolist() == expected
        assert np.flatnonzero(table.infos[agent]["action_mask"]).tolist() == state.legal_actions()
        table.step(rng.choice(state.legal_actions()))
        checked += 1
        if checked >= 60:
            break
    assert checked > 0


@pytest.mark.parametrize("name", apothecary.games())
def test_rewards_come_at_the_end_and_are_the_returns(name: str) -> None:
    table = env(name)
    rng = random.Random(1)
    table.reset(seed=1)
    totals = dict.fromkeys(table.possible_agents, 0.0)
    for agent in table.agent_iter():
        _obs, reward, terminated, _truncated, info = table.last()
        totals[agent] += reward
        if not table.state.is_terminal():
            assert reward == 0
        table.step(None if terminated else rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
    assert table.agents == []
    returns = table.state.returns()
    assert [totals[a] for a in table.possible_agents] == returns
    assert table.state.is_terminal()


@pytest.mark.parametrize("name", apothecary.games())
def test_a_seed_fixes_the_game_and_other_seeds_vary_it(name: str) -> None:
    first = play_randomly(env(name), seed=3)
    assert play_randomly(env(name), seed=3) == first
    if apothecary.game_class(name).info.has_chance:
        # Same agent choices, different chance seeds: the chance draws change.
        others = {tuple(play_randomly(env(name), seed=s)) for s in range(4, 10)}
        assert any(o != tuple(first) for o in others)


def test_reset_without_a_seed_continues_the_seeded_stream() -> None:
    name = next(n for n in apothecary.games() if apothecary.game_class(n).info.has_chance)
    a, b = env(name), env(name)
    a.reset(seed=9)
    b.reset(seed=9)
    a.reset()
    b.reset()
    assert a.state.history() == b.state.history()


@pytest.mark.parametrize("name", apothecary.games())
def test_an_illegal_action_raises_and_changes_nothing(name: str) -> None:
    table = env(name)
    table.reset(seed=2)
    legal = set(table.state.legal_actions())
    illegal = next(a for a in range(table.game.num_distinct_actions()) if a not in legal)
    before = (table.state.history(), table.agent_selection, dict(table.rewards))
    with pytest.raises(apothecary.IllegalActionError):
        table.step(np.int64(illegal))
    with pytest.raises(apothecary.MalformedActionError):
        table.step(table.game.num_distinct_actions())
    assert (table.state.history(), table.agent_selection, dict(table.rewards)) == before
    table.step(min(legal))  # and the game goes on
    assert table.state.history()[len(before[0])] == min(legal)


@pytest.mark.parametrize(
    ("args", "options"),
    BAD_LOADS,
)
def test_bad_game_or_option_is_the_same_error_as_load(
    args: tuple[Any, ...], options: dict[str, Any]
) -> None:
    with pytest.raises(apothecary.ApothecaryError) as expected:
        apothecary.load(*args, **options)
    with pytest.raises(type(expected.value), match=str(expected.value).replace("'", ".")):
        env(*args, **options)


def test_bad_option_value_is_the_same_error_as_load() -> None:
    name = "poison-pot"
    with pytest.raises(apothecary.BadOptionError) as expected:
        apothecary.load(name, radius=99)
    with pytest.raises(apothecary.BadOptionError) as got:
        env(name, radius=99)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("name", apothecary.games())
def test_ansi_render_is_the_text_view_of_the_seat_to_act(name: str) -> None:
    table = env(name, render_mode="ansi")
    table.reset(seed=4)
    state = table.state
    assert table.render() == state.render(state.current_player())
    with pytest.warns(UserWarning):
        silent = env(name)
        silent.reset(seed=4)
        assert silent.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        env(name, render_mode="rgb_array")


def test_importing_apothecary_does_not_import_the_adapters() -> None:
    code = (
        "import sys, apothecary, apothecary.interop; apothecary.games(); "
        "print([m for m in ('pettingzoo', 'gymnasium', 'pyspiel', 'numpy') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
