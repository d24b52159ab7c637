"""The OpenSpiel adapter: OpenSpiel's own random_sim_test (with serialisation)
on every game, its Python MCTS and ISMCTS bots playing whole games, and what
the adapter promises (parameters, observers, resampling, errors, pickling)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

pytest.importorskip("pyspiel")

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts
from open_spiel.python.observation import make_observation
from option_sets import BAD_LOADS, SHORT_INFORMATION_STATES, main_options

import apothecary
import apothecary.bots
from apothecary.interop import openspiel, openspiel_name

openspiel.register()

# Games long enough to make random_sim_test slow at many seats are shortened
# by their own options (the full length is exercised by the PettingZoo tests).
# In Vino Morte with Cheese has no longest game without a round limit, and
# OpenSpiel needs one (refused clearly otherwise: tests/games/in_vino_morte).
SHORTER: dict[str, dict[str, Any]] = {
    "little-drop-of-poison": {"target": 2, **SHORT_INFORMATION_STATES["little-drop-of-poison"]},
    "in-vino-morte": {"round_limit": 100},
}


def _id(name: str, players: int, options: dict[str, Any]) -> str:
    return f"{name}-{players}p" + "".join(f",{k}={v}" for k, v in options.items())


CONFIGURATIONS = [
    pytest.param(name, players, SHORTER.get(name, {}), id=_id(name, players, {}))
    for name in apothecary.games()
    for players in sorted(
        {apothecary.game_class(name).info.min_players, apothecary.game_class(name).info.max_players}
    )
] + [
    pytest.param(
        name,
        apothecary.game_class(name).info.default_players,
        {**SHORTER.get(name, {}), **options},
        id=_id(name, apothecary.game_class(name).info.default_players, options),
    )
    for name in apothecary.games()
    for options in main_options(name)
]


def random_states(game: Any, seed: int, limit: int = 80) -> list[Any]:
    """The states along one seeded random game (at most ``limit`` of them)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal() and len(states) < limit:
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probabilities)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


@pytest.mark.parametrize(("name", "players", "options"), CONFIGURATIONS)
def test_random_sim_test_with_serialisation(
    name: str, players: int, options: dict[str, Any]
) -> None:
    game = openspiel.load(name, players, **options)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", apothecary.games())
def test_game_type_and_parameters_follow_the_game(name: str) -> None:
    cls = apothecary.game_class(name)
    game = pyspiel.load_game(openspiel_name(name))
    kind = game.get_type()
    assert kind.short_name == "apothecary_" + name.replace("-", "_")
    assert (kind.min_num_players, kind.max_num_players) == (
        cls.info.min_players,
        cls.info.max_players,
    )
    assert (kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) == (
        cls.info.has_chance
    )
    assert (kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION) == (
        cls.info.has_hidden_information
    )
    assert set(kind.parameter_specification) == {"players"} | {s.name for s in cls.option_specs}
    assert game.num_players() == cls.info.default_players
    ours = game.apothecary_game
    assert game.num_distinct_actions() == ours.num_distinct_actions()
    assert game.max_game_length() == ours.max_game_length()
    assert game.observation_tensor_shape() == [ours.observation_tensor_size()]


@pytest.mark.parametrize("name", apothecary.games())
def test_observers_give_the_protocols_views(name: str) -> None:
    game = openspiel.load(name, 3 if apothecary.game_class(name).info.max_players >= 3 else 2)
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    for state in random_states(game, seed=3):
        ours = state.apothecary_state
        for seat in range(game.num_players()):
            assert state.observation_string(seat) == ours.observation_string(seat)
            assert state.information_state_string(seat) == ours.information_state_string(seat)
            assert state.observation_tensor(seat) == pytest.approx(ours.observation_tensor(seat))
            assert public.string_from(state, seat) == ours.observation_string(None)
    untyped = game.make_py_observer({})  # how OpenSpiel asks when it names no type
    assert untyped.string_from(state, 0) == state.observation_string(0)
    with pytest.raises(apothecary.BadOptionError, match="not supported"):
        game.make_py_observer({"colour": 1})
    with pytest.raises(apothecary.BadOptionError, match="without public information"):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False,
                public_info=False,
                private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
            ),
        )


@pytest.mark.parametrize(
    "name", [n for n in apothecary.games() if apothecary.game_class(n).info.has_hidden_information]
)
def test_resample_from_infostate_keeps_what_the_seat_knows(name: str) -> None:
    game = openspiel.load(name, 3, **SHORTER.get(name, {}))
    differing = 0
    for state in random_states(game, seed=8, limit=40)[1:]:
        if state.is_terminal():
            continue
        player = state.current_player()
        seat = player if player >= 0 else 0
        world = state.resample_from_infostate(seat, lambda: 0.25)
        again = state.resample_from_infostate(seat, lambda: 0.25)
        other = state.resample_from_infostate(seat, lambda: 0.75)
        assert isinstance(world, openspiel.ApothecarySpielState)
        assert str(world) == str(again)  # the sampler alone decides the world
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.history() == world.apothecary_state.history()
        assert world.current_player() == state.current_player()
        differing += str(world) != str(state) or str(other) != str(state)
    assert differing > 0


def _two_search_bots(game: Any, rng: np.random.RandomState) -> tuple[Any, Any]:
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    first = mcts.MCTSBot(game, 2, 8, evaluator, random_state=rng)
    if game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        second = ISMCTS(game, evaluator, 2, 8, random_state=rng)
    else:
        second = mcts.MCTSBot(game, 2, 8, evaluator, random_state=rng)
    return first, second


class ISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's Python ISMCTS lacks ``restart_at``, which evaluate_bots calls."""

    def restart_at(self, state: Any) -> None:
        self.reset()


@pytest.mark.parametrize("name", apothecary.games())
def test_openspiel_python_mcts_and_ismcts_play_whole_games(name: str) -> None:
    game = openspiel.load(name, **SHORTER.get(name, {}))
    rng = np.random.RandomState(4)
    first, second = _two_search_bots(game, rng)
    bots = [first, second] + [
        openspiel.SpielBot(apothecary.bots.load("random", game.apothecary_game, seat, seed=seat))
        for seat in range(2, game.num_players())
    ]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rng)
    assert state.is_terminal()
    assert returns == state.apothecary_state.returns()
    assert len(state.history()) == state.apothecary_state.move_number()


def test_ismcts_refuses_a_perfect_information_game() -> None:
    perfect = [
        n for n in apothecary.games() if not apothecary.game_class(n).info.has_hidden_information
    ]
    if not perfect:
        pytest.skip("no perfect-information game registered")
    game = openspiel.load(perfect[0])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1), 2, 4)
    with pytest.raises(AssertionError):
        bot.step(state)


@pytest.mark.parametrize(
    ("args", "options"),
    BAD_LOADS,
)
def test_bad_game_or_option_is_the_same_error_as_load(
    args: tuple[Any, ...], options: dict[str, Any]
) -> None:
    with pytest.raises(apothecary.ApothecaryError) as expected:
        apothecary.load(*args, **options)
    with pytest.raises(type(expected.value)) as got:
        openspiel.load(*args, **options)
    assert str(got.value) == str(expected.value)


def test_a_bad_value_through_pyspiel_is_apothecarys_error() -> None:
    with pytest.raises(apothecary.BadOptionError) as expected:
        apothecary.load("poison-pot", radius=99)
    with pytest.raises(apothecary.BadOptionError) as got:
        pyspiel.load_game("apothecary_poison_pot", {"radius": 99})
    assert str(got.value) == str(expected.value)
    with pytest.raises(apothecary.UnknownGameError):
        openspiel.register(["no-such-game"])


@pytest.mark.parametrize("name", apothecary.games())
def test_text_options_survive_the_game_string(name: str) -> None:
    for options in [{}, *main_options(name)]:
        game = openspiel.load(name, **{**SHORTER.get(name, {}), **options})
        again = pyspiel.load_game(str(game))
        assert again.apothecary_game == game.apothecary_game
        assert dict(again.apothecary_game.options) == dict(game.apothecary_game.options)


@pytest.mark.parametrize("name", apothecary.games())
def test_states_and_games_pickle(name: str) -> None:
    game = openspiel.load(name, **SHORTER.get(name, {}))
    state = random_states(game, seed=6, limit=30)[-1]
    restored = pickle.loads(pickle.dumps(state))
    assert str(restored) == str(state) and restored.history() == state.history()
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    text = pyspiel.serialize_game_and_state(game, state)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert str(restored) == str(state)


def test_clones_are_independent() -> None:
    game = openspiel.load(apothecary.games()[0])
    state = random_states(game, seed=2, limit=5)[-1]
    twin = state.clone()
    before = str(state)
    twin.apply_action(twin.legal_actions()[0])
    assert str(state) == before and len(twin.history()) == len(state.history()) + 1


@pytest.mark.parametrize("copier", [copy.deepcopy, copy.copy])
def test_copies_are_clones_not_replays(copier: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """copy.deepcopy (and copy.copy) of a state is its clone: independent, and
    made without pickling it (which rebuilds the game and replays the history)."""
    game = openspiel.load("little-drop-of-poison", 3)
    state = random_states(game, seed=3, limit=60)[-1]

    def no_replay(*args: Any) -> Any:
        raise AssertionError("the copy replayed the history")

    monkeypatch.setattr(openspiel, "_replay", no_replay)
    twin = copier(state)
    assert type(twin) is type(state) and str(twin) == str(state)
    assert twin.history() == state.history()
    assert twin.apothecary_state is not state.apothecary_state
    before = str(state)
    twin.apply_action(twin.legal_actions()[0])
    assert str(state) == before and len(twin.history()) == len(state.history()) + 1


PERFECT_RECALL = pyspiel.IIGObservationType(
    perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)
"""OpenSpiel's observation type of an information state."""


def _provides_information_state_tensor(name: str) -> bool:
    return apothecary.load(name).provides_information_state_tensor


@pytest.mark.parametrize(
    "name", [n for n in apothecary.games() if _provides_information_state_tensor(n)]
)
def test_the_perfect_recall_observer_gives_the_information_state_tensor(name: str) -> None:
    """OpenSpiel's own make_observation with perfect recall, and the state's
    information_state_tensor, give the game's tensor (as float32)."""
    game = openspiel.load(name, 3 if apothecary.game_class(name).info.max_players >= 3 else 2)
    assert game.get_type().provides_information_state_tensor
    size = game.apothecary_game.information_state_tensor_size()
    assert game.information_state_tensor_shape() == [size]
    assert game.information_state_tensor_size() == size
    observation = make_observation(game, PERFECT_RECALL)
    assert set(observation.dict) == {"info_state"}
    for state in random_states(game, seed=5, limit=30):
        ours = state.apothecary_state
        for seat in range(game.num_players()):
            expected = np.asarray(ours.information_state_tensor(seat), np.float32)
            observation.set_from(state, seat)
            assert np.array_equal(observation.tensor, expected)
            assert np.array_equal(
                np.asarray(state.information_state_tensor(seat), np.float32), expected
            )
            assert observation.string_from(state, seat) == ours.information_state_string(seat)


def test_a_game_without_an_information_state_tensor_gets_the_string_only() -> None:
    """A game from another package may leave the tensor out: the flag is False,
    random_sim_test (which then asks for no tensor) passes, and the
    perfect-recall observer gives the string only."""
    from toy_high_card.game import ToyGame

    from apothecary.core import registry

    class StringOnlyToyGame(ToyGame):
        info = apothecary.GameInfo(**{**ToyGame.info.__dict__, "name": "toy-infostate-string"})
        information_state_tensor_size = apothecary.Game.information_state_tensor_size

    registry.register(StringOnlyToyGame)
    try:
        game = openspiel.load("toy-infostate-string")
        assert not game.get_type().provides_information_state_tensor
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        observation = make_observation(game, PERFECT_RECALL)
        assert observation.tensor is None
        state = random_states(game, seed=1)[-1]
        assert observation.string_from(state, 0) == state.information_state_string(0)
    finally:
        registry._GAMES.pop("toy-infostate-string", None)
    for name in apothecary.games():
        kind = pyspiel.load_game(openspiel_name(name)).get_type()
        assert kind.provides_information_state_tensor == _provides_information_state_tensor(name)


@pytest.mark.parametrize(
    "name", [n for n in apothecary.games() if _provides_information_state_tensor(n)]
)
def test_rl_environment_hands_agents_the_information_state_tensor(name: str) -> None:
    """OpenSpiel's rl_environment observes information states when the game
    provides them; its tabular Q-learner, keyed on that tensor, plays whole
    games through it."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    game = openspiel.load(name, **SHORTER.get(name, {}))
    environment = rl_environment.Environment(game, seed=3)
    assert not environment.use_observation
    size = game.apothecary_game.information_state_tensor_size()
    assert environment.observation_spec()["info_state"] == (size,)
    players = game.num_players()
    actions = game.num_distinct_actions()
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=actions) for p in range(players)]
    # One whole game (Little Drop of Poison's tensors are long).
    time_step = environment.reset()
    while not time_step.last():
        player = time_step.observations["current_player"]
        ours = environment.get_state.apothecary_state
        expected = np.float32(ours.information_state_tensor(player))
        assert np.array_equal(np.float32(time_step.observations["info_state"][player]), expected)
        time_step = environment.step([agents[player].step(time_step).action])
    for agent in agents:
        agent.step(time_step)
    assert environment.get_state.is_terminal()
