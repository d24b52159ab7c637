"""Little Drop of Poison positions the game's tests start from, replayed from
their records (chance included)."""

from __future__ import annotations

from typing import Any

from apothecary import Record
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

GAME = "little-drop-of-poison"

# Three seats: a weasel king, seats 0 and 1 rats, seat 2 a weasel, and the
# first card of each hand (seat 0 b3, seat 1 b2, seat 2 p1); the second card
# each, dealt next, is the test's own.
THREE_SEATS = [
    "weasel king",
    "rat to 0",
    "rat to 1",
    "weasel to 2",
    *("b3 to 0", "b2 to 1", "p1 to 2"),
]


def replay(actions: list[str], players: int = 3, **options: Any) -> LittleDropOfPoisonState:
    """The position after ``actions`` in a game of ``players`` with ``options``."""
    state = Record(game=GAME, players=players, options=options, actions=actions).replay()
    assert isinstance(state, LittleDropOfPoisonState)
    return state
