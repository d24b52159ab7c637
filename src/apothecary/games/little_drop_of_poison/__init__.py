"""Little Drop of Poison: the rules (:mod:`.rules`), the deck spec (:mod:`.deck`),
resampling (:mod:`.resample`) and the rule-based bot (:mod:`.bot`)."""

from apothecary.games.little_drop_of_poison import bot, rules

__all__ = ["bot", "rules"]
