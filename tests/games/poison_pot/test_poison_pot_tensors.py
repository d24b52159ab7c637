"""Poison Pot's information-state tensor: the whole history, one block per turn
(rules.md: the circle slid from, slid to, the colour drawn, the circle placed
on), read back here into the very actions played."""

from __future__ import annotations

import random

import pytest

from apothecary import load
from apothecary.games.poison_pot.rules import PoisonPotGame, PoisonPotState


def decode(game: PoisonPotGame, tensor: list[float]) -> tuple[int, list[int]]:
    """The viewer and the history that ``tensor`` encodes, by the documented layout."""
    n = game.board.size
    players = game.num_players
    viewer = tensor[:players].index(1.0)
    history: list[int] = []
    size = 3 * n + 3
    for turn in range(game.cauldrons):
        block = tensor[players + turn * size : players + (turn + 1) * size]
        marks = [i for i, x in enumerate(block) if x]
        if not marks:
            break
        origin, target = marks[0], marks[1] - n
        history.append(origin * n + target)
        if len(marks) > 2:
            history.append(game.draw_base + marks[2] - 2 * n)
        if len(marks) > 3:
            history.append(game.place_base + marks[3] - 2 * n - 3)
    return viewer, history


@pytest.mark.parametrize(("players", "radius"), [(2, 3), (3, 1), (2, 2)])
def test_the_tensor_is_the_whole_history(players: int, radius: int) -> None:
    """'Everything that has happened is public' (rules.md): the information
    state is the history, and so is the tensor, every number 0 or 1."""
    game = load("poison-pot", players=players, radius=radius)
    assert isinstance(game, PoisonPotGame)
    assert game.information_state_tensor_size() == players + game.cauldrons * (
        3 * game.board.size + 3
    )
    rng = random.Random(radius)
    state = game.new_initial_state()
    assert isinstance(state, PoisonPotState)
    while True:
        for seat in range(players):
            tensor = state.information_state_tensor(seat)
            assert len(tensor) == game.information_state_tensor_size()
            assert set(tensor) <= {0.0, 1.0}
            assert decode(game, tensor) == (seat, state.history())
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))


def test_the_published_board_size() -> None:
    assert load("poison-pot").information_state_tensor_size() == 4106
