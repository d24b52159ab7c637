"""One view per game, keyed by game name, and the generic view for the rest.

A view reads observations only (the dict of what a seat may know), so it can
never show a seat more than the game lets it see. A game without its own view
here still plays, with :class:`GameView` printing its observation.
"""

from __future__ import annotations

from apothecary.core.game import Game
from apothecary.tui.views.base import GameView, Observation
from apothecary.tui.views.in_vino_morte import InVinoMorteView
from apothecary.tui.views.little_drop_of_poison import LittleDropOfPoisonView
from apothecary.tui.views.poison_pot import PoisonPotView
from apothecary.tui.views.tea_scones_arsenic import TeaSconesArsenicView

VIEWS: dict[str, type[GameView]] = {
    "in-vino-morte": InVinoMorteView,
    "little-drop-of-poison": LittleDropOfPoisonView,
    "poison-pot": PoisonPotView,
    "tea-scones-arsenic": TeaSconesArsenicView,
}
"""Game name to its view class; a name not here gets the generic view."""


def view_for(game: Game) -> GameView:
    """The view that draws ``game`` (the generic one if it has none of its own)."""
    return VIEWS.get(game.name, GameView)(game)


__all__ = ["VIEWS", "GameView", "Observation", "view_for"]
