"""In Vino Morte (Button Shy, 2018), with the Caseus Vitae cheese variant."""

from apothecary.games.in_vino_morte import bot, rules
from apothecary.games.in_vino_morte.rules import InVinoMorteGame, InVinoMorteState

__all__ = ["InVinoMorteGame", "InVinoMorteState", "bot", "rules"]
