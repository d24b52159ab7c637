"""The shared conformance suite over every player count and the decks that matter.

Games are played to a low target so that each is a few assassination rounds
long; resampling is checked every few steps (each check replays the history).
"""

from __future__ import annotations

import pytest

from apothecary.testing import check_game

GAME = "little-drop-of-poison"

SMALL_DECK = "blue:4x1,2x2;green:4x1,2x2;green+blue:2x1;antidote(blue):1;universal:1"
"""14 cards: the deck runs out and is refilled from the discards every few rounds."""

NO_UNIVERSAL = "red:5x1,3x2;yellow:5x1,2x3;red+yellow:2x1;antidote(red):2;antidote(yellow):1"
"""Other colours, no universal antidote (so the blocked-everywhere stalemate can happen)."""


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
def test_default_deck(players: int) -> None:
    report = check_game(GAME, players=players, games=1, seed=players, resample_every=23, target=2)
    assert report.games == 1


@pytest.mark.parametrize("players", [3, 6])
def test_small_deck_with_refills(players: int) -> None:
    report = check_game(
        GAME,
        players=players,
        games=1,
        seed=10 + players,
        resample_every=11,
        deck=SMALL_DECK,
        target=2,
    )
    assert report.resamples_differing > 0


@pytest.mark.parametrize("players", [4])
def test_deck_without_universal_antidote(players: int) -> None:
    check_game(
        GAME,
        players=players,
        games=2,
        seed=20 + players,
        resample_every=19,
        deck=NO_UNIVERSAL,
        target=2,
    )


def test_full_length_game() -> None:
    """One game to the default target of 10 points."""
    check_game(GAME, players=3, games=1, seed=3, resample_every=97)
