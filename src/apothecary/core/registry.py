"""The game registry: names to game classes, from this package and from others.

Two places supply games, and every front end (the command line, the bots, the
arena, the adapters, the server) finds them all through :func:`games` and
:func:`game_class` without naming any:

- every subpackage of :mod:`apothecary.games`, which registers its game class
  with :func:`register` when imported and declares everything else about the
  game in its ``MANIFEST`` (a :class:`~apothecary.core.manifest.GameManifest`);
- every entry point of the group ``apothecary.games`` (:data:`ENTRY_POINT_GROUP`)
  in any installed distribution. Its name is the game's registry name and its
  value a :class:`~apothecary.core.manifest.GameManifest` or a bare
  :class:`~apothecary.core.game.Game` subclass (a game with no parts of its own)::

      [project.entry-points."apothecary.games"]
      my-game = "my_package:MANIFEST"

:func:`manifest` gives a game's manifest (a bare class gets an empty one).

Discovery runs once, on first use. An entry point that fails to load, names
something other than a Game subclass, or claims a name already taken does not
stop the other games: it is left out with a :class:`GameRegistrationWarning`,
and asking for its name raises :class:`GameRegistrationError` saying why.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import warnings
from typing import Any, TypeVar

from apothecary.core.errors import ApothecaryError, UnknownGameError
from apothecary.core.game import Game
from apothecary.core.manifest import GameManifest, manifest_of

G = TypeVar("G", bound=type[Game])

ENTRY_POINT_GROUP = "apothecary.games"
"""The entry-point group through which other packages add games."""

_GAMES: dict[str, type[Game]] = {}
_MANIFESTS: dict[str, GameManifest] = {}
"""The manifests games declared, by name; a game without one has none here."""
_BROKEN: dict[str, str] = {}
"""Entry-point names that could not be registered, with the reason."""
_discovered = False


class GameRegistrationError(ApothecaryError):
    """A game that cannot be registered: a name claimed by two different
    classes, or an ``apothecary.games`` entry point that does not load or does
    not name a Game subclass."""


class GameRegistrationWarning(UserWarning):
    """An ``apothecary.games`` entry point was left out; the message says why.

    A warning rather than an error, so that one broken package does not take
    every other game down with it.
    """


def register(cls: G) -> G:
    """Class decorator: make a game loadable by its ``info.name``.

    Registering the same class again is harmless; a second class under a
    taken name raises :class:`GameRegistrationError`.
    """
    name = cls.info.name
    existing = _GAMES.get(name)
    if existing is not None and existing is not cls:
        raise GameRegistrationError(
            f"game name {name!r} is registered twice: by {_where(existing)} and by {_where(cls)}"
        )
    _GAMES[name] = cls
    return cls


def register_manifest(manifest: GameManifest) -> GameManifest:
    """Register ``manifest``'s game (as :func:`register` does) and the manifest with it."""
    register(manifest.game)  # raises for another class under a taken name
    existing = _MANIFESTS.get(manifest.name)
    if existing is not None and existing.game is manifest.game and existing != manifest:
        raise GameRegistrationError(f"game {manifest.name!r} has two different manifests")
    _MANIFESTS[manifest.name] = manifest
    return manifest


def _where(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _entry_point_game(entry_point: importlib.metadata.EntryPoint) -> GameManifest:
    """The manifest an entry point names (or makes for the Game subclass it names);
    GameRegistrationError saying why not."""
    source = f"{ENTRY_POINT_GROUP} entry point {entry_point.name!r} = {entry_point.value!r}"
    if entry_point.dist is not None:
        source += f" (package {entry_point.dist.name} {entry_point.dist.version})"
    try:
        loaded = entry_point.load()
    except Exception as error:  # whatever foreign code raises is reported, not raised
        raise GameRegistrationError(
            f"{source} does not load: {type(error).__name__}: {error}"
        ) from error
    if isinstance(loaded, GameManifest):
        manifest = loaded
    elif isinstance(loaded, type) and issubclass(loaded, Game):
        manifest = GameManifest(loaded)
    else:
        raise GameRegistrationError(
            f"{source} names {loaded!r}, not a subclass of apothecary.Game nor a GameManifest"
        )
    loaded = manifest.game
    if loaded.info.name != entry_point.name:
        raise GameRegistrationError(
            f"{source} names a game called {loaded.info.name!r}: "
            f"the entry point's name must be the game's info.name"
        )
    existing = _GAMES.get(entry_point.name)
    if existing is not None and existing is not loaded:
        raise GameRegistrationError(
            f"{source}: the name {entry_point.name!r} is already the game of {_where(existing)}"
        )
    return manifest


def _discover_entry_points() -> None:
    # One entry point per name: two distributions may declare the same one
    # (an editable install beside a regular one), and the first found wins.
    seen: set[str] = set()
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry_point.name in seen:
            continue
        seen.add(entry_point.name)
        try:
            register_manifest(_entry_point_game(entry_point))
        except GameRegistrationError as error:
            # A built-in game keeps its name; only the entry point is left out.
            if entry_point.name not in _GAMES:
                _BROKEN[entry_point.name] = str(error)
            warnings.warn(f"game left out: {error}", GameRegistrationWarning, stacklevel=4)


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    # Set first: a game module that calls games() while it is being imported
    # must not start a second discovery (and load every entry point twice).
    _discovered = True
    try:
        # Not "import apothecary.games": that name is the function games() by now.
        package = importlib.import_module("apothecary.games")
        for module in pkgutil.iter_modules(package.__path__):
            if module.ispkg:
                imported = importlib.import_module(f"{package.__name__}.{module.name}")
                declared = manifest_of(imported)
                if declared is not None:
                    register_manifest(declared)
        _discover_entry_points()
    except BaseException:
        _discovered = False  # a failed import is tried again, not taken as "no games"
        raise


def games() -> list[str]:
    """The names of every registered game, sorted."""
    _discover()
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    """The class registered as ``name``.

    Raises UnknownGameError for a name nothing registers, and
    GameRegistrationError for the name of an entry point that was left out.
    """
    _discover()
    try:
        return _GAMES[name]
    except KeyError:
        if name in _BROKEN:
            raise GameRegistrationError(_BROKEN[name]) from None
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGameError(f"unknown game {name!r}; the games are: {known}") from None


def manifest(name: str) -> GameManifest:
    """The manifest of game ``name``: the one it declared, else an empty one
    naming only its class. Raises as :func:`game_class` does for an unknown name."""
    cls = game_class(name)
    return _MANIFESTS.get(name) or GameManifest(cls)


def load(name: str, /, players: int | None = None, **options: Any) -> Game:
    """A game by name, configured: ``load("my-game", players=3)``."""
    return game_class(name)(players, **options)
