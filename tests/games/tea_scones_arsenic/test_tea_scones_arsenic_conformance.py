"""Tea, Scones and Arsenic passes the conformance suite at every table size, with and
without the Little Spoon."""

from __future__ import annotations

import pytest

from apothecary.testing import check_game


@pytest.mark.parametrize("little_spoon", [False, True])
@pytest.mark.parametrize("players", range(1, 7))
def test_conformance(players: int, little_spoon: bool) -> None:
    games = 3 if players <= 3 else 2
    report = check_game(
        "tea-scones-arsenic", players=players, games=games, seed=players, little_spoon=little_spoon
    )
    assert report.games == games
    if players > 1:
        assert report.resamples_differing > 0
