"""Poison Pot (2-3 players): slide a piece, draw a cauldron, place it; the
largest group of your colour not touching the poison pot wins.

The package's shape is every game's (docs/architecture.md, "How to add a
game"); :data:`MANIFEST` names each part.
"""

from apothecary.core.bot import Level
from apothecary.core.manifest import GameManifest, TableFiles
from apothecary.games.poison_pot import bot as _bot  # noqa: F401  (registers the bot)
from apothecary.games.poison_pot.endgame import DEFAULT_CAULDRONS
from apothecary.games.poison_pot.rules import PoisonPotGame, PoisonPotState

MANIFEST = GameManifest(
    game=PoisonPotGame,
    bots=("apothecary.games.poison_pot.bot", "apothecary.games.poison_pot.endgame"),
    levels={
        "hard": Level(
            "hard",
            "endgame",
            {"cauldrons": DEFAULT_CAULDRONS},
            "the rules bot, then exact expectimax over the last 3 cauldrons",
        )
    },
    exact_values="apothecary.games.poison_pot.exact:exact_values",
    terminal_view="apothecary.games.poison_pot.terminal:PoisonPotView",
    table=TableFiles("apothecary.games.poison_pot", modules=("layout.js",)),
    tutorial="apothecary.games.poison_pot:tutorial.json",
    batch="apothecary.games.poison_pot.batch:PoisonPotBatch",
    batch_jax="apothecary.games.poison_pot.batch_jax:make",
)
"""Everything about Poison Pot that the registry and the front ends read."""

__all__ = ["MANIFEST", "PoisonPotGame", "PoisonPotState"]
