"""The game registry: names to game classes, filled by the game packages.

Every subpackage of :mod:`apothecary.games` registers its game class with
:func:`register` when imported; :func:`games` imports them all once, so front
ends find every game without naming any.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, TypeVar

from apothecary.core.errors import UnknownGameError
from apothecary.core.game import Game

G = TypeVar("G", bound=type[Game])

_GAMES: dict[str, type[Game]] = {}
_discovered = False


def register(cls: G) -> G:
    """Class decorator: make a game loadable by its ``info.name``."""
    name = cls.info.name
    existing = _GAMES.get(name)
    if existing is not None and existing is not cls:
        raise ValueError(f"game name {name!r} is registered twice")
    _GAMES[name] = cls
    return cls


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    # Not "import apothecary.games": that name is the function games() by now.
    package = importlib.import_module("apothecary.games")
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg:
            importlib.import_module(f"{package.__name__}.{module.name}")
    _discovered = True


def games() -> list[str]:
    """The names of every registered game, sorted."""
    _discover()
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    """The class registered as ``name``; raises UnknownGameError."""
    _discover()
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGameError(f"unknown game {name!r}; the games are: {known}") from None


def load(name: str, players: int | None = None, **options: Any) -> Game:
    """A game by name, configured: ``load("poison-pot", players=3)``."""
    return game_class(name)(players, **options)
