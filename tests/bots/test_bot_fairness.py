"""Every bot acts on its seat's information alone.

Given two states its seat cannot tell apart (the true one and a world drawn
by ``resample_from_infostate`` for that seat) and the same seed, each bot
must choose the same action. A bot that peeked at a hidden card would, sooner
or later, choose differently in the two worlds.
"""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import bots
from apothecary.core.errors import BadOptionError
from apothecary.core.game import sample_chance

# Search bots run with tiny budgets: the property does not depend on the budget.
SMALL_BUDGETS = {"ismcts": {"iterations": 4}, "rollout": {"rollouts": 4}}


def bot_budget(game_name: str, name: str) -> dict[str, int | str]:
    level = bots.levels(game_name).get(name)
    bot = level.bot if level is not None else name
    budget: dict[str, int | str] = dict(SMALL_BUDGETS.get(bot, {}))
    if bot == "rollout" and game_name == "poison-pot":
        # Rules-bot playouts of a whole Poison Pot game for each of ~30 moves
        # take minutes here; the rules bot's own fairness is tested in this loop, and
        # the rollout bot's does not depend on which bot plays its playouts.
        budget["policy"] = "random"
    return budget


@pytest.mark.parametrize("game_name", apothecary.games())
def test_bots_choose_alike_in_worlds_their_seat_cannot_tell_apart(game_name: str) -> None:
    info = apothecary.game_class(game_name).info
    compared = differing = 0
    for players in sorted({info.min_players, info.default_players, info.max_players}):
        game = apothecary.load(game_name, players=players)
        rng = random.Random(f"fair:{game_name}:{players}")
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal() and decisions < 8:
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            seat = state.current_player()
            if len(state.legal_actions()) > 1:
                decisions += 1
                twin = state.resample_from_infostate(seat, random.Random(rng.random()))
                differing += str(twin) != str(state)
                for name in bots.names(game_name):
                    budget = bot_budget(game_name, name)
                    try:
                        first = bots.load(name, game, seat, seed=5, **budget)
                    except BadOptionError:
                        continue  # a solver made for other tables (solo, no cheese...)
                    here = first.step(state)
                    there = bots.load(name, game, seat, seed=5, **budget).step(twin)
                    assert here == there, (
                        f"{name} chose {state.action_to_string(here)} in the true state but "
                        f"{twin.action_to_string(there)} in a world seat {seat} cannot tell "
                        f"apart; moves: {state.history_notation()}"
                    )
                    compared += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 0
    if info.has_hidden_information:
        assert differing > 0, "no twin differed from the truth: the test would prove nothing"
