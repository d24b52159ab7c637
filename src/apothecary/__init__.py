"""apothecary: four poison-themed tabletop games behind one game protocol.

>>> import apothecary
>>> name = apothecary.games()[0]  # every registered game's name, sorted
>>> state = apothecary.load(name, players=2).new_initial_state()  # doctest: +SKIP
"""

from __future__ import annotations

# The subpackage apothecary.games is imported first on purpose: importing a
# subpackage binds it as an attribute of its parent, and it must not later
# replace the function ``apothecary.games()`` defined below.
import apothecary.games as _games_package  # noqa: F401
from apothecary.core.errors import (
    ApothecaryError,
    BadOptionError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    PlayerCountError,
    RecordError,
    UnknownBotError,
    UnknownGameError,
)
from apothecary.core.game import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    OptionSpec,
    Outcome,
    Player,
    State,
)
from apothecary.core.records import Record
from apothecary.core.registry import GameRegistrationError, game_class, games, load

__version__ = "0.1.0"
"""The version, in this one place: pyproject.toml reads it for the wheel's metadata."""

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "ApothecaryError",
    "BadOptionError",
    "Game",
    "GameInfo",
    "GameOverError",
    "GameRegistrationError",
    "IllegalActionError",
    "MalformedActionError",
    "OptionSpec",
    "Outcome",
    "Player",
    "PlayerCountError",
    "Record",
    "RecordError",
    "State",
    "UnknownBotError",
    "UnknownGameError",
    "game_class",
    "games",
    "load",
]
