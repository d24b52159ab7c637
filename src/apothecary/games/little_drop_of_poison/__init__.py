"""Little Drop of Poison: the rules (:mod:`.rules`), the deck spec (:mod:`.deck`),
resampling (:mod:`.resample`), the rule-based bot (:mod:`.bot`) and the batch
engine (:mod:`.batch`, imported only through :mod:`apothecary.batch`: it
needs numpy, which ``import apothecary`` does not load)."""

from apothecary.games.little_drop_of_poison import bot, rules

__all__ = ["bot", "rules"]
