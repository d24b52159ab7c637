"""In Vino Morte (Button Shy, 2018), with the Caseus Vitae cheese variant.

The package's shape is every game's (docs/architecture.md, "How to add a
game"); :data:`MANIFEST` names each part.
"""

from apothecary.core.manifest import GameManifest, TableFiles
from apothecary.games.in_vino_morte import bot, rules
from apothecary.games.in_vino_morte.levels import LEVELS
from apothecary.games.in_vino_morte.rules import InVinoMorteGame, InVinoMorteState

MANIFEST = GameManifest(
    game=InVinoMorteGame,
    bots=(
        "apothecary.games.in_vino_morte.bot",
        "apothecary.games.in_vino_morte.cfr",
        "apothecary.games.in_vino_morte.levels",
    ),
    levels=LEVELS,
    exact_values="apothecary.games.in_vino_morte.exact:exact_values",
    analysis_policy="apothecary.games.in_vino_morte.exact:analysis_policy",
    terminal_view="apothecary.games.in_vino_morte.terminal:InVinoMorteView",
    table=TableFiles("apothecary.games.in_vino_morte", modules=("layout.js",)),
    tutorial="apothecary.games.in_vino_morte:tutorial.json",
    batch="apothecary.games.in_vino_morte.batch:InVinoMorteBatch",
    batch_jax="apothecary.games.in_vino_morte.batch_jax:make",
)
"""Everything about In Vino Morte that the registry and the front ends read."""

__all__ = ["MANIFEST", "InVinoMorteGame", "InVinoMorteState", "bot", "rules"]
