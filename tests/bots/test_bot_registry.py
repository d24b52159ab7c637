"""The bot registry, difficulty levels, ISMCTS behaviour and bad input."""

from __future__ import annotations

import pytest
from toy_high_card.game import BET, CALL, ToyGame

import apothecary
from apothecary import bots
from apothecary.core.errors import BadOptionError, IllegalActionError, UnknownBotError


def test_every_game_offers_random_ismcts_and_three_levels() -> None:
    for name in apothecary.games():
        available = bots.names(name)
        assert {"random", "ismcts", "easy", "medium", "hard"} <= set(available)
        levels = bots.levels(name)
        assert list(levels) == ["easy", "medium", "hard"]
        for level in levels.values():
            assert level.bot in bots.entries(name)


def test_levels_resolve_to_bots_with_their_budget() -> None:
    assert bots.levels("poison-pot")["hard"].bot == "endgame"  # a game's own level
    game = apothecary.load("tea-scones-arsenic", players=2)
    hard = bots.load("hard", game, 0, seed=1)
    assert isinstance(hard, bots.RolloutBot) and hard.rollouts == bots.HARD_ROLLOUTS
    quicker = bots.load("hard", game, 0, seed=1, rollouts=10)
    assert isinstance(quicker, bots.RolloutBot) and quicker.rollouts == 10
    easy = bots.load("easy", game, 0, seed=1)
    assert isinstance(easy, bots.CarelessBot) and easy.mistakes == 0.5
    assert bots.levels("tea-scones-arsenic")["medium"].bot == "rules"


def test_unknown_bot_lists_what_there_is() -> None:
    game = apothecary.load("poison-pot", players=2)
    with pytest.raises(
        UnknownBotError, match="unknown bot 'genius' for poison-pot; available: random"
    ):
        bots.load("genius", game, 0)


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        ({"iterations": 0}, "iterations=0: expected 1 to"),
        ({"iterations": 2.5}, "iterations=2.5"),
        ({"seconds": -1}, "seconds=-1"),
        ({"seconds": 10_000}, "seconds=10000"),
        ({"exploration": -1}, "exploration=-1"),
    ],
)
def test_ismcts_budget_out_of_range(budget: dict[str, float], message: str) -> None:
    game = apothecary.load("poison-pot", players=2)
    with pytest.raises(BadOptionError, match=message):
        bots.load("ismcts", game, 0, **budget)


def test_a_bot_without_a_budget_refuses_one() -> None:
    game = apothecary.load("poison-pot", players=2)
    with pytest.raises(BadOptionError, match="bot 'random' takes no budget iterations"):
        bots.load("random", game, 0, iterations=5)


def test_a_seat_the_game_does_not_have() -> None:
    game = apothecary.load("poison-pot", players=2)
    with pytest.raises(BadOptionError, match="seat 2: poison-pot has seats 0 to 1"):
        bots.load("random", game, 2)


def test_a_bot_asked_to_act_out_of_turn() -> None:
    game = apothecary.load("poison-pot", players=2)
    state = game.new_initial_state()
    seat = 1 - state.current_player() if state.current_player() in (0, 1) else 1
    with pytest.raises(IllegalActionError, match=f"bot for seat {seat} asked to act"):
        bots.load("random", game, seat).step(state)


def toy_state(*moves: str) -> apothecary.State:
    state = ToyGame().new_initial_state()
    for move in moves:
        state.apply_action(move)
    return state


def test_ismcts_calls_with_the_best_card_and_bluffs_with_the_worst() -> None:
    """Seat 1 sees only its own card: holding 2, a call always wins and a fold always
    loses. Seat 0 holding 0 loses every showdown, so only a bet (the opponent may
    fold) can win."""
    game = ToyGame()
    best = toy_state("deal 0", "deal 2", "bet")
    assert bots.ISMCTSBot(game, 1, seed=1, iterations=200).step(best) == CALL
    worst = toy_state("deal 0", "deal 1")
    assert bots.ISMCTSBot(game, 0, seed=1, iterations=200).step(worst) == BET


def test_ismcts_is_reproducible_with_a_seed_and_an_iteration_budget() -> None:
    game = apothecary.load("tea-scones-arsenic", players=3)
    state = game.new_initial_state()
    seat = state.current_player()
    choices = {bots.ISMCTSBot(game, seat, seed=9, iterations=60).step(state) for _ in range(3)}
    assert len(choices) == 1


@pytest.mark.parametrize("name", ["ismcts:iterations=40", "rollout:rollouts=12"])
def test_a_bot_thinks_in_a_worker_process_as_it_would_in_process(name: str) -> None:
    from apothecary.bots.pool import ThinkingPool

    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    seat = state.current_player()
    local = bots.load(name, game, seat, seed=3)
    remote = bots.load(name, game, seat, seed=3)
    with ThinkingPool(1) as pool:
        first = pool.step(remote, state).result(timeout=120)
        second = pool.step(remote, state).result(timeout=120)
    assert (first, second) == (local.step(state), local.step(state))
    assert remote.rng.getstate() == local.rng.getstate()
    # Every seat's playout bot too, so the next decision starts alike.
    for here, there in zip(
        getattr(local, "_players", []), getattr(remote, "_players", []), strict=True
    ):
        assert here.rng.getstate() == there.rng.getstate()


def test_ismcts_playouts_by_another_bot() -> None:
    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    seat = state.current_player()
    with pytest.raises(UnknownBotError, match="unknown bot 'genius'"):
        bots.load("ismcts", game, seat, rollout="genius")
    bot = bots.load("ismcts", game, seat, seed=2, iterations=30, rollout="rules")
    assert bot.step(state) in state.legal_actions()
    assert bot.last_iterations == 30
