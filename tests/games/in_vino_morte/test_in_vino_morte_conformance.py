"""In Vino Morte passes the conformance suite at every table size and option set."""

from __future__ import annotations

from typing import Any

import pytest

import apothecary
from apothecary.testing import check_game

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"cheese": True},
    {"cheese": True, "cheese_on_reveal": False, "deck": "9+9"},
    {"cheese": True, "round_limit": 100},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(map(str, o.items())))
@pytest.mark.parametrize("players", range(2, 10))
def test_conformance(players: int, options: dict[str, Any]) -> None:
    # A game of two hides one glass from one resample only, so play more of them.
    games = 8 if players == 2 else 3
    report = check_game("in-vino-morte", players=players, games=games, seed=players, **options)
    assert report.games == games
    assert report.resamples_differing > 0


@pytest.mark.parametrize("players", [3, 9])
def test_conformance_with_the_larger_deck(players: int) -> None:
    # With at most 9 players the 9 + 9 deck plays like 8 + 8; a light check.
    report = check_game("in-vino-morte", players=players, games=2, seed=5, deck="9+9")
    assert report.games == 2


def test_a_short_round_limit_ends_the_game_with_the_survivors_sharing() -> None:
    report = check_game("in-vino-morte", players=5, games=4, seed=3, cheese=True, round_limit=1)
    assert report.games == 4 and max(report.lengths) <= 9


def test_the_journal_grows_in_place_and_clones_do_not_share_it() -> None:
    """An action appends one entry to the journal instead of copying it (a
    tuple extended on every action made a long game quadratic), and a clone's
    journal is its own."""
    state = apothecary.load("in-vino-morte", 4).new_initial_state()
    journal = state.journal
    state.apply_action("wine")
    assert state.journal is journal and len(journal) == 1
    copy = state.clone()
    copy.apply_action("poison")
    assert len(state.journal) == 1 and len(copy.journal) == 2
