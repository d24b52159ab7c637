"""The base classes' shared behaviour: options, errors, notation, clones, history."""

from __future__ import annotations

import random

import pytest
from toy_high_card.game import BET, CHECK, ToyGame

import apothecary
from apothecary import (
    CHANCE,
    TERMINAL,
    BadOptionError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    PlayerCountError,
    UnknownGameError,
)
from apothecary.core.game import OptionSpec, sample_chance


def test_games_is_a_function_although_a_subpackage_shares_its_name() -> None:
    names = apothecary.games()
    assert names == sorted(names)
    import apothecary.games as still_the_function  # the attribute, not the package

    assert callable(still_the_function)


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'chess'; the games are"):
        apothecary.load("chess")


def test_player_count_out_of_range() -> None:
    with pytest.raises(PlayerCountError, match="3 players is not allowed; it takes 2 to 2"):
        ToyGame(3)
    with pytest.raises(PlayerCountError, match="whole number"):
        ToyGame("2")  # type: ignore[arg-type]


def test_unknown_and_bad_options() -> None:
    with pytest.raises(BadOptionError, match="unknown option 'colour'; its options are: bug"):
        ToyGame(colour="red")
    with pytest.raises(BadOptionError, match="bug=boom: expected one of none"):
        ToyGame(bug="boom")


def test_option_spec_parses_and_checks() -> None:
    flag = OptionSpec("cheese", bool, False, "cheese cards")
    assert flag.parse("yes") is True and flag.parse("off") is False
    with pytest.raises(BadOptionError, match="expected true or false"):
        flag.parse("maybe")
    target = OptionSpec("target", int, 10, "points to win", minimum=1, maximum=99)
    assert target.parse("12") == 12
    with pytest.raises(BadOptionError, match=r"expected int >= 1 and <= 99"):
        target.parse("0")
    with pytest.raises(BadOptionError, match="expected int"):
        target.check(True)
    ratio = OptionSpec("ratio", float, 0.5, "a ratio")
    assert ratio.check(1) == 1.0


def test_game_is_described_by_its_settings() -> None:
    game = ToyGame(bug="none")
    assert game.settings() == {"players": 2, "options": {"bug": "none"}}
    assert game == ToyGame() and hash(game) == hash(ToyGame())
    assert repr(game) == "load('toy-high-card', players=2, bug='none')"
    with pytest.raises(TypeError):
        game.options["bug"] = "leak"  # type: ignore[index]


def play(*moves: str) -> apothecary.State:
    state = ToyGame().new_initial_state()
    for move in moves:
        state.apply_action(move)
    return state


def test_notation_and_ids_both_apply() -> None:
    state = play("deal 2", "DEAL 0")
    assert state.current_player() == 0
    state.apply_action(BET)
    assert state.current_player() == 1
    state.apply_action(" fold ")
    assert state.current_player() == TERMINAL and state.is_terminal()
    assert state.history() == [2, 0, BET, 6]
    assert state.history_notation() == ["deal 2", "deal 0", "bet", "fold"]
    assert state.returns() == [1.0, 0.0]


def test_illegal_action_names_the_legal_ones_and_changes_nothing() -> None:
    state = play("deal 2")
    before = (str(state), state.history())
    with pytest.raises(IllegalActionError, match=r"'deal 2' \(action 2\) is not legal now"):
        state.apply_action("deal 2")
    with pytest.raises(IllegalActionError, match=r"\(chance to move\); legal: deal 0, deal 1"):
        state.apply_action(CHECK)
    assert (str(state), state.history()) == before


def test_malformed_input_is_told_apart_from_illegal() -> None:
    state = play()
    with pytest.raises(MalformedActionError, match="cannot read 'draw' as an action"):
        state.apply_action("draw")
    with pytest.raises(MalformedActionError, match=r"out of range 0\.\.6"):
        state.apply_action(7)
    with pytest.raises(MalformedActionError, match="int id or notation"):
        state.apply_action(None)  # type: ignore[arg-type]
    with pytest.raises(MalformedActionError, match="int id or notation"):
        state.apply_action(True)
    assert state.history() == []


def test_nothing_is_accepted_after_the_end() -> None:
    state = play("deal 0", "deal 1", "check")
    with pytest.raises(GameOverError, match="the game is over"):
        state.apply_action("bet")
    with pytest.raises(GameOverError):
        state.apply_action(BET)


def test_clone_is_independent() -> None:
    state = play("deal 0")
    copy = state.clone()
    copy.apply_action("deal 1")
    assert state.history() == [0] and copy.history() == [0, 1]
    assert state.current_player() == CHANCE


def test_sample_chance_follows_the_probabilities() -> None:
    rng = random.Random(5)
    state = play()
    counts = [0, 0, 0]
    for _ in range(3000):
        counts[sample_chance(state, rng)] += 1
    assert all(900 < c < 1100 for c in counts), counts


def test_render_shows_only_the_observation() -> None:
    state = play("deal 2", "deal 0")
    assert '"my_card": 0' in state.render(1)
    assert "my_card" not in state.render(None)
