"""Exact and equilibrium solvers, and the bots that play their solutions.

Importing this package registers, through :mod:`apothecary.core.bot`:

* ``tea-scones-arsenic`` bot ``solo-optimal`` (solo only; :mod:`.tsa_solo`),
* ``in-vino-morte`` bot ``cfr`` (CFR+ equilibrium, no Cheese, 2-5 players;
  :mod:`.ivm_cfr`),
* ``in-vino-morte`` bots ``mixed`` and ``equilibrium`` and its levels
  ``easy``, ``medium`` and ``hard`` (:mod:`.ivm_levels`),
* ``poison-pot`` bot ``endgame`` (rules bot, then exact expectimax;
  :mod:`.pp_endgame`) and the poison-pot level ``hard`` played by it.

No solver imports a game module: every tree is walked through the protocol.
"""

from __future__ import annotations

from apothecary.bots.solvers import ivm_cfr, ivm_levels, pp_endgame, tsa_solo
from apothecary.core.bot import register_level

register_level(
    "poison-pot",
    "hard",
    "endgame",
    {"cauldrons": pp_endgame.DEFAULT_CAULDRONS},
    "the rules bot, then exact expectimax over the last 3 cauldrons",
)

__all__ = ["ivm_cfr", "ivm_levels", "pp_endgame", "tsa_solo"]
