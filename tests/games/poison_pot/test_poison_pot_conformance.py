"""Poison Pot against the shared conformance suite, at every player count and board size."""

from __future__ import annotations

import pytest

from apothecary.testing import check_game


@pytest.mark.parametrize("players", [2, 3])
def test_published_board(players: int) -> None:
    report = check_game("poison-pot", players=players, games=5, seed=players)
    assert report.games == 5
    assert set(report.lengths) == {108}


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("radius", [1, 2, 4])
def test_other_board_sizes(players: int, radius: int) -> None:
    games = 1 if radius == 4 else 6
    report = check_game("poison-pot", players=players, games=games, seed=radius, radius=radius)
    cauldrons = 3 * radius * (radius + 1)
    assert set(report.lengths) == {3 * cauldrons}
