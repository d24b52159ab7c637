"""Little Drop of Poison: the rules (:mod:`.rules`), the deck spec (:mod:`.deck`),
resampling (:mod:`.resample`), the rule-based bot (:mod:`.bot`) and the batch
engine (:mod:`.batch`, imported only through :mod:`apothecary.batch`: it
needs numpy, which ``import apothecary`` does not load).

The package's shape is every game's (docs/architecture.md, "How to add a
game"); :data:`MANIFEST` names each part.
"""

from apothecary.core.manifest import GameManifest, TableFiles
from apothecary.games.little_drop_of_poison import bot, rules
from apothecary.games.little_drop_of_poison.bot import LEVELS
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonGame

MANIFEST = GameManifest(
    game=LittleDropOfPoisonGame,
    bots=(
        "apothecary.games.little_drop_of_poison.bot",
        "apothecary.games.little_drop_of_poison.search",
    ),
    levels=LEVELS,
    terminal_view="apothecary.games.little_drop_of_poison.terminal:LittleDropOfPoisonView",
    table=TableFiles("apothecary.games.little_drop_of_poison", modules=("layout.js",)),
    tutorial="apothecary.games.little_drop_of_poison:tutorial.json",
    batch="apothecary.games.little_drop_of_poison.batch:LittleDropOfPoisonBatch",
    batch_jax_missing=(
        "its JAX program is not written yet (the numpy engine's opening chance, "
        "poison-round deals and reveal have not been ported); use apothecary.batch.load"
    ),
)
"""Everything about Little Drop of Poison that the registry and the front ends read."""

__all__ = ["MANIFEST", "bot", "rules"]
