"""A game's manifest: everything about one game, declared in one place.

Each game package (``apothecary/games/<name>/__init__.py``, or a plugin's
package) holds one :class:`GameManifest` as ``MANIFEST``, and the registry
(:mod:`apothecary.core.registry`) reads it; every front end asks the registry
for the manifest rather than knowing where a game keeps its bots, views,
solvers, table or batch engine. The game class itself is named directly (the
registry needs its ``info`` to list games); every optional part is named by a
lazy reference, a ``"module:attribute"`` string (or a plain ``"module"`` for
:attr:`~GameManifest.bots`), which is imported only when a front end asks for
it, so ``import apothecary`` stays light and extras such as Textual or numpy
are imported only by those who use them.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from apothecary.core.bot import Level
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import Game


class ManifestError(ApothecaryError):
    """A manifest's reference that does not name something importable."""


def resolve(reference: str) -> Any:
    """The object a ``"package.module:attribute"`` reference names, imported now.

    A reference without ``:`` names the module itself.
    """
    module_name, _, attribute = reference.partition(":")
    module = importlib.import_module(module_name)
    if not attribute:
        return module
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ManifestError(f"{reference!r}: {module_name} has no {attribute!r}") from None


@dataclass(frozen=True)
class TableFiles:
    """A browser table shipped as package data: ``script`` (an ES module whose
    default export is ``mount(root, ctx)``, docs/client.md) and an optional
    ``style`` sheet, both files inside the package ``package``."""

    package: str
    script: str = "table.js"
    style: str | None = "table.css"
    modules: tuple[str, ...] = ()
    """Further ES modules of the table that ``script`` imports by a relative
    URL (``./layout.js``: the pure layout, which unit tests load without a
    browser); served beside it, never named to the client."""

    def files(self) -> dict[str, str]:
        """The files the server names to the client, by their URL kind."""
        files = {"script": self.script}
        if self.style is not None:
            files["style"] = self.style
        return files

    def served(self) -> tuple[str, ...]:
        """Every file the server serves for this table: :meth:`files` and :attr:`modules`."""
        return (*self.files().values(), *self.modules)


@dataclass(frozen=True)
class GameManifest:
    """Everything the project knows about one game, in one place.

    Only :attr:`game` is required; a game without the optional parts still
    plays everywhere, with the generic bots, the generic terminal view and the
    generic browser table.
    """

    game: type[Game]
    """The rules: a :class:`~apothecary.core.game.Game` subclass (its ``info``
    names the game, its options and its player counts)."""

    bots: tuple[str, ...] = ()
    """Modules that register the game's own bots
    (:func:`apothecary.core.bot.register_bot`) when imported; imported the first
    time a front end asks for the game's bots."""

    levels: Mapping[str, Level] = field(default_factory=dict)
    """What ``easy``, ``medium`` and ``hard`` mean for this game, where they
    differ from the generic ladder (:func:`apothecary.bots.levels`)."""

    exact_values: str | None = None
    """``"module:function"``: ``function(state, seat)`` gives exact values of
    the seat's legal moves as ``(values, outlooks)``, or None where it has none;
    analysis and hints use it instead of playouts (:mod:`apothecary.analysis`)."""

    analysis_policy: str | None = None
    """``"module:function"``: ``function(game)`` names the bot that plays out
    analysis's playouts by default for this configuration, or None for the
    default level's own policy."""

    solve: str | None = None
    """``"module:function"``: ``function(players)`` solves the game exactly for
    the ``apothecary solve`` command and returns the lines it prints."""

    terminal_view: str | None = None
    """``"module:Class"``: the terminal app's view of the game, a subclass of
    :class:`apothecary.tui.views.base.GameView`."""

    table: TableFiles | None = None
    """The browser table, served by ``apothecary serve`` from the package's data
    at URLs it gives the client in the game's info (``/api/games``)."""

    tutorial: str | None = None
    """``"package:file"``: the learn-to-play script, a JSON file of the package's
    data (:mod:`apothecary.core.tutorial`); None for a game without one."""

    batch: str | None = None
    """``"module:Class"``: the batched numpy engine, a
    :class:`apothecary.batch.core.BatchGame` subclass (:mod:`apothecary.batch`)."""
    batch_jax: str | None = None
    """``"module:function"``: the maker of the batch engine's JAX program
    (:mod:`apothecary.batch.jax`), given the configured numpy engine."""
    batch_jax_missing: str | None = None
    """Why a game with a numpy engine has no JAX program yet (the refusal says it)."""

    @property
    def name(self) -> str:
        """The game's registry name (its ``info.name``)."""
        return self.game.info.name


def manifest_of(package: Any) -> GameManifest | None:
    """The ``MANIFEST`` a game package holds, or None if it holds none."""
    found = getattr(package, "MANIFEST", None)
    return found if isinstance(found, GameManifest) else None


__all__ = ["GameManifest", "ManifestError", "TableFiles", "manifest_of", "resolve"]
