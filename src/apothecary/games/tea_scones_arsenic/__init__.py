"""Tea, Scones and Arsenic: the rules (registered as ``tea-scones-arsenic``) and its bot."""

from apothecary.games.tea_scones_arsenic import bot as bot
from apothecary.games.tea_scones_arsenic import rules as rules

__all__ = ["bot", "rules"]
