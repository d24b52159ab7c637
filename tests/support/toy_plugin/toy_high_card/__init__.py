"""Toy high card as a plugin: everything about the game, in its manifest.

Another package adds a game to apothecary the way this folder does: its rules
(:mod:`.game`), its own bot (:mod:`.bot`), its terminal view
(:mod:`.terminal`) and its browser table (``table.js``, ``table.css``),
named by :data:`MANIFEST`, which the ``apothecary.games`` entry point names.
"""

from __future__ import annotations

from apothecary.core.manifest import GameManifest, TableFiles
from toy_high_card.game import ToyGame

MANIFEST = GameManifest(
    game=ToyGame,
    bots=("toy_high_card.bot",),
    exact_values="toy_high_card.bot:exact_values",
    terminal_view="toy_high_card.terminal:ToyView",
    table=TableFiles("toy_high_card"),
)
"""Toy high card's manifest, for the registry."""
