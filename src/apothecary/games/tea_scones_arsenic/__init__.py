"""Tea, Scones and Arsenic: the rules (registered as ``tea-scones-arsenic``) and its bot.

The package's shape is every game's (docs/architecture.md, "How to add a
game"); :data:`MANIFEST` names each part.
"""

from apothecary.core.manifest import GameManifest, TableFiles
from apothecary.games.tea_scones_arsenic import bot as bot
from apothecary.games.tea_scones_arsenic import rules as rules
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenic

MANIFEST = GameManifest(
    game=TeaSconesArsenic,
    bots=("apothecary.games.tea_scones_arsenic.bot", "apothecary.games.tea_scones_arsenic.solo"),
    exact_values="apothecary.games.tea_scones_arsenic.exact:exact_values",
    solve="apothecary.games.tea_scones_arsenic.solve:solve",
    terminal_view="apothecary.games.tea_scones_arsenic.terminal:TeaSconesArsenicView",
    table=TableFiles("apothecary.games.tea_scones_arsenic", modules=("layout.js",)),
    tutorial="apothecary.games.tea_scones_arsenic:tutorial.json",
    batch="apothecary.games.tea_scones_arsenic.batch:TeaSconesArsenicBatch",
    batch_jax="apothecary.games.tea_scones_arsenic.batch_jax:make",
)
"""Everything about Tea, Scones and Arsenic that the registry and the front ends read."""

__all__ = ["MANIFEST", "bot", "rules"]
