"""The rule-based Tea, Scones and Arsenic bot beats the random bot, and plays fair."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary.arena import run_match
from apothecary.games.tea_scones_arsenic.bot import RuleBot, dose_odds, lethal_chance


@pytest.mark.parametrize("players", [2, 4, 6])
def test_rules_bot_beats_random(players: int) -> None:
    result = run_match(
        "tea-scones-arsenic", players=players, bots=["rules", "random"], games=200, seed=11
    )
    _, low, _ = result.by_bot["rules"].win_rate()
    _, _, random_high = result.by_bot["random"].win_rate()
    # Measured about 0.99 / 0.93 / 0.88 over 2,000 games: a wide margin over chance.
    assert low > 2 / players if players > 2 else low > 0.8
    assert low > random_high


def test_rules_bot_with_the_spoon_beats_random() -> None:
    result = run_match(
        "tea-scones-arsenic",
        players=4,
        bots=["rules", "random"],
        games=200,
        seed=11,
        options={"little_spoon": True},
    )
    assert result.by_bot["rules"].win_rate()[1] > 0.5


def test_solo_bot_eats_close_to_the_most_possible() -> None:
    # Alone, every dose drawn is known: 31 scones is the most one can eat and live.
    result = run_match("tea-scones-arsenic", players=1, bots=["rules"], games=100, seed=11)
    assert result.by_bot["rules"].mean_score()[1] > 28


def test_dose_odds_use_what_the_seat_saw() -> None:
    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    for action in ["d1", "dose3", "back"]:
        state.apply_action(action)
    mine = dose_odds(state.observation(0))
    theirs = dose_odds(state.observation(1))
    assert mine[0][3] == 0.0 and theirs[0][3] > 0.0
    assert lethal_chance(mine[1], 2) == pytest.approx(2 / 6)


def test_bot_reads_its_own_put_back_scone() -> None:
    # Seat 0 put its kind-1 dose-3 scone back: the unmarked kind 1 holds no 3 any
    # more, so it is the lightest kind to draw from; the marked one is avoided.
    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    for action in ["d1", "dose3", "back", "d2", "dose0", "eat"]:
        state.apply_action(action)
    bot = RuleBot(game, 0, seed=1)
    assert state.action_to_string(bot.step(state)) == "d1"


@pytest.mark.parametrize(("dose", "expected"), [(3, "back"), (2, "eat"), (0, "eat")])
def test_bot_puts_heavy_doses_back_while_it_has_cubes(dose: int, expected: str) -> None:
    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    for action in ["d2", f"dose{dose}"]:
        state.apply_action(action)
    assert state.action_to_string(RuleBot(game, 0, seed=1).step(state)) == expected


def test_bot_choice_depends_only_on_its_seats_knowledge() -> None:
    game = apothecary.load("tea-scones-arsenic", players=4)
    state = game.new_initial_state()
    for action in ["d1", "dose3", "eat", "d2", "dose1", "eat", "d3", "dose0", "eat"]:
        state.apply_action(action)
    choices = set()
    for seed in range(8):
        world = state.resample_from_infostate(3, random.Random(seed))
        choices.add(RuleBot(game, 3, seed=5).step(world))
    assert len(choices) == 1
