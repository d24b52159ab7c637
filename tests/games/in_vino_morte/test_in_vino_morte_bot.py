"""The rule-based In Vino Morte bot beats the random bot, and plays fair."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary.arena import run_match
from apothecary.games.in_vino_morte.bot import RuleBot, poison_chances


@pytest.mark.parametrize(("players", "games"), [(3, 3000), (5, 2000), (9, 1000)])
def test_rules_bot_beats_random(players: int, games: int) -> None:
    result = run_match(
        "in-vino-morte", players=players, bots=["rules", "random"], games=games, seed=7
    )
    rules, low, _ = result.by_bot["rules"].win_rate()
    chance = 1 / players
    assert low > chance, f"rules bot wins {rules:.3f} (low {low:.3f}) vs chance {chance:.3f}"
    assert rules > result.by_bot["random"].win_rate()[0]


@pytest.mark.parametrize("on_reveal", [True, False])
def test_rules_bot_with_cheese_beats_random(on_reveal: bool) -> None:
    result = run_match(
        "in-vino-morte",
        players=5,
        bots=["rules", "random"],
        games=2000,
        seed=7,
        options={"cheese": True, "cheese_on_reveal": on_reveal},
    )
    assert result.by_bot["rules"].win_rate()[1] > 1 / 5


def test_dealer_pours_poison_to_others_and_wine_to_itself() -> None:
    game = apothecary.load("in-vino-morte", players=4)
    state = game.new_initial_state()
    dealer = RuleBot(game, 0, seed=1)
    while state.current_player() == 0:
        state.apply_action(dealer.step(state))
    assert state.observation(0)["glasses"] == ["wine", "poison", "poison", "poison"]


@pytest.mark.parametrize(
    ("on_reveal", "deal"),
    [
        # Cheese reverses the reveal: a deadly Wine with Cheese to the dealer's right.
        (True, ["deal 1 poison", "deal 2 wine+cheese", "deal 0 wine"]),
        # It does not: the dealer keeps the Cheese, which then saves nobody.
        (False, ["deal 1 poison", "deal 2 poison", "deal 0 wine+cheese"]),
    ],
)
def test_dealer_uses_cheese_at_a_small_table(on_reveal: bool, deal: list[str]) -> None:
    game = apothecary.load("in-vino-morte", players=3, cheese=True, cheese_on_reveal=on_reveal)
    state = game.new_initial_state()
    dealer = RuleBot(game, 0, seed=1)
    while state.current_player() == 0:
        state.apply_action(dealer.step(state))
    assert state.history_notation() == deal


def test_first_drinker_takes_the_dealers_glass() -> None:
    # Nothing is known yet; a dealer who pours to kill keeps Wine for itself.
    game = apothecary.load("in-vino-morte", players=3)
    state = game.new_initial_state()
    for action in ["deal 1 wine", "deal 2 poison", "deal 0 wine"]:
        state.apply_action(action)
    chances = poison_chances(state.observation(1))
    assert chances[0] < chances[1] == chances[2]
    assert state.action_to_string(RuleBot(game, 1, seed=1).step(state)) == "swap 0"


def test_drinker_reads_a_drunk_wine() -> None:
    # Seat 1 drank Wine, so seat 2 and the dealer hold at least one Poison; the
    # dealer's glass, poured last, is the one a dealer tossing coins must make
    # Poison after two Wines, so it is the likelier Poison: seat 2 drinks.
    game = apothecary.load("in-vino-morte", players=3)
    state = game.new_initial_state()
    for action in ["deal 1 wine", "deal 2 poison", "deal 0 wine", "drink"]:
        state.apply_action(action)
    chances = poison_chances(state.observation(2))
    assert chances[1] == 0.0 and chances[0] > chances[2] > 0.5
    assert state.action_to_string(RuleBot(game, 2, seed=1).step(state)) == "drink"


def test_bot_choice_depends_only_on_its_seats_knowledge() -> None:
    # Two deals seat 2 cannot tell apart give the same choice.
    game = apothecary.load("in-vino-morte", players=5)
    choices = set()
    for deal in (["w", "p", "p", "p", "w"], ["p", "w", "w", "p", "w"]):
        state = game.new_initial_state()
        for action in [*deal, "swap 0"]:
            state.apply_action(action)
        choices.add(RuleBot(game, 2, seed=3).step(state))
        assert state.observation(2) == state.resample_from_infostate(
            2, random.Random(1)
        ).observation(2)
    assert len(choices) == 1
