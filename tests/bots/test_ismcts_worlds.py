"""The worlds ISMCTS draws are real positions for every seat, not only the drawer.

ISMCTS keys its tree on the information state of whichever seat acts in a drawn
world, so a world's ``information_state_string`` must be right for every seat.
Games make drawing fast by building the world directly or by keeping texts they
share with the position; replaying the world's history from the start must
give the same state and the same texts.
"""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary.core.game import CHANCE, Game, State, sample_chance


def _replay(game: Game, world: State) -> State:
    replay = game.new_initial_state()
    for action in world.history():
        replay.apply_action(action)
    return replay


@pytest.mark.parametrize("name", apothecary.games())
def test_a_drawn_world_reads_like_the_replay_of_its_history(name: str) -> None:
    game = apothecary.load(name)
    rng = random.Random(7)
    players = range(game.num_players)
    checked = 0
    for _ in range(40):
        if checked >= 60:
            break
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 60:
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            if rng.random() < 0.25:
                seat = rng.randrange(game.num_players)
                # Texts asked for before the draw must not leak into the world.
                for other in players:
                    state.information_state_string(other)
                for _draw in range(2):  # the second draw reuses what the first kept
                    world = state.resample_from_infostate(seat, rng)
                    replay = _replay(game, world)
                    assert str(world) == str(replay)
                    assert world.legal_actions() == replay.legal_actions()
                    assert world.information_state_string(seat) == (
                        state.information_state_string(seat)
                    )
                    for other in players:
                        assert world.information_state_string(other) == (
                            replay.information_state_string(other)
                        ), f"seat {other}'s text in a world drawn for seat {seat}"
                    checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 0
