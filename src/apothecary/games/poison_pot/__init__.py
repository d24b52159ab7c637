"""Poison Pot (2-3 players): slide a piece, draw a cauldron, place it; the
largest group of your colour not touching the poison pot wins."""

from apothecary.games.poison_pot import bot as _bot  # noqa: F401  (registers the bot)
from apothecary.games.poison_pot.rules import PoisonPotGame, PoisonPotState

__all__ = ["PoisonPotGame", "PoisonPotState"]
