"""Poison Pot endgame: the expectimax picks the provably best last move, and
the endgame bot and the hard level play complete games."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import Record
from apothecary.bots import levels
from apothecary.bots import load as load_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import State, sample_chance
from apothecary.games.poison_pot.endgame import Expectimax, cauldrons_left


def _position(players: int, left: int, seed: int) -> State:
    """A random game stopped at a slide with ``left`` cauldrons to place,
    rebuilt from its notation through a record."""
    game = apothecary.load("poison-pot", players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not (
        state.observation(None)["phase"] == "slide"
        and cauldrons_left(state.observation(None)) == left
    ):
        state.apply_action(
            sample_chance(state, rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
    record = Record("poison-pot", players, dict(game.options), actions=state.history_notation())
    return record.replay()


def _final(state: State, seat: int) -> tuple[float, float]:
    outcome = state.outcome()
    assert outcome is not None
    scores = outcome.scores
    return state.returns()[seat], scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 7), (3, 2), (3, 7)])
def test_last_slide_is_the_best_one(players: int, seed: int) -> None:
    # one cauldron left: after the slide the draw is certain and one circle
    # is empty, so every slide's result can be played out and compared
    state = _position(players, 1, seed)
    seat = state.current_player()
    results = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        while not child.is_terminal():
            (only,) = child.legal_actions()
            child.apply_action(only)
        results[action] = _final(child, seat)
    best = max(results.values())
    # these positions were picked because the slide matters (seeds 7: the
    # wrong slide loses the game; seed 1: it only costs margin)
    assert len(set(results.values())) > 1
    chosen = load_bot("endgame", state.game, seat, seed=0).step(state)
    assert results[chosen] == best
    # the search agrees on the value it promises
    value = Expectimax().value(state)[seat]
    assert value == pytest.approx(best[0] + 1e-3 * best[1])


def test_two_left_matches_averaging_by_hand() -> None:
    state = _position(2, 2, seed=3)
    seat = state.current_player()
    search = Expectimax()
    action, value = search.best(state)
    # recompute the chosen slide's value by hand: average over the draws,
    # best placement for the seat, then the opponent's exact last move
    child = state.clone()
    child.apply_action(action)
    total = 0.0
    for colour, p in child.chance_outcomes():
        drawn = child.clone()
        drawn.apply_action(colour)
        total += p * max(_after(drawn, a) for a in drawn.legal_actions())
    assert value[seat] == pytest.approx(total)


def _after(state: State, placement: int) -> float:
    seat = state.current_player()
    placed = state.clone()
    placed.apply_action(placement)
    return Expectimax().value(placed)[seat]


@pytest.mark.parametrize("players", [2, 3])
def test_hard_level_plays_complete_games(players: int) -> None:
    game = apothecary.load("poison-pot", players=players)
    assert levels("poison-pot")["hard"].bot == "endgame"
    bots = [load_bot("hard", game, seat, seed=seat, cauldrons=2) for seat in range(players)]
    state = game.new_initial_state()
    rng = random.Random(players)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    assert sum(state.returns()) == pytest.approx(1.0)


def test_endgame_budget_is_checked() -> None:
    game = apothecary.load("poison-pot", players=2)
    with pytest.raises(BadOptionError, match="cauldrons must be 0 to 5"):
        load_bot("endgame", game, 0, cauldrons=9)
