"""The terminal view of each game, named by its manifest, and the generic view for the rest.

A view reads observations only (the dict of what a seat may know), so it can
never show a seat more than the game lets it see. A game whose manifest names
no ``terminal_view`` still plays, with :class:`GameView` printing its
observation. Views are imported when first drawn, so a game's view (and
Textual's rich) is not imported by those who never open the terminal app.
"""

from __future__ import annotations

from apothecary.core.game import Game
from apothecary.core.manifest import resolve
from apothecary.core.registry import manifest
from apothecary.tui.views.base import GameView, Observation


def view_class(name: str) -> type[GameView]:
    """The view class of game ``name``: its manifest's, else the generic one."""
    where = manifest(name).terminal_view
    if where is None:
        return GameView
    cls = resolve(where)
    if not (isinstance(cls, type) and issubclass(cls, GameView)):
        raise TypeError(f"{name}'s terminal_view {where!r} is not a GameView subclass")
    return cls


def view_for(game: Game) -> GameView:
    """The view that draws ``game`` (the generic one if it has none of its own)."""
    return view_class(game.name)(game)


__all__ = ["GameView", "Observation", "view_class", "view_for"]
