"""Bots for every game: the generic ones and those each game registers.

``load(name, game, seat, seed=...)`` is what every front end calls.
"""

from __future__ import annotations

from apothecary.core.bot import Bot, BotEntry, RandomBot, game_bots
from apothecary.core.errors import UnknownBotError
from apothecary.core.game import Game, Player
from apothecary.core.registry import game_class

GENERIC: dict[str, BotEntry] = {
    "random": BotEntry("random", RandomBot, "uniformly random legal actions"),
}


def entries(game_name: str) -> dict[str, BotEntry]:
    """Every bot available for ``game_name``: generic first, then the game's own."""
    game_class(game_name)  # imports the game so that its bots are registered
    return {**GENERIC, **game_bots(game_name)}


def names(game_name: str) -> list[str]:
    """The bot names available for ``game_name``."""
    return list(entries(game_name))


def load(name: str, game: Game, seat: Player, seed: int | None = None) -> Bot:
    """Make bot ``name`` for ``seat`` of ``game``; raises UnknownBotError."""
    available = entries(game.name)
    if name not in available:
        raise UnknownBotError(
            f"unknown bot {name!r} for {game.name}; available: {', '.join(available)}"
        )
    return available[name].factory(game, seat, seed)


__all__ = ["Bot", "RandomBot", "entries", "load", "names"]
