"""One game is one folder: nothing outside ``games/<name>/`` names a game.

Every file of ``src/apothecary`` that is code (Python, JavaScript, CSS, HTML,
templates), docstrings and comments included, is searched for each built-in
game's registry name (``poison-pot``), its package name (``poison_pot``) and
its display name (``Poison Pot``), in any case and with any separator. A game's
own package may name it; the games' Markdown pages (their rules) may name
anything; nothing else may. A failure lists each place, file and line.

The four packages also share one shape: each declares a ``MANIFEST`` whose
parts live in the modules of the same names (docs/architecture.md, "How to add
a game").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

import apothecary
from apothecary.core.manifest import GameManifest, resolve
from apothecary.core.registry import manifest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "apothecary"
CODE = {".py", ".js", ".css", ".html", ".mako", ".toml", ".cfg", ".txt"}
BUILT_IN = ("in-vino-morte", "little-drop-of-poison", "poison-pot", "tea-scones-arsenic")


def spellings(name: str, title: str) -> re.Pattern[str]:
    """Every way code spells a game: its words with any separator, in any case."""

    def words(text: str) -> str:
        return r"[\s_\-,.]*".join(re.escape(w) for w in re.findall(r"[a-z0-9]+", text.lower()))

    return re.compile(f"{words(name)}|{words(title)}", re.IGNORECASE)


def violations(package: Path, games: dict[str, str], files: Iterable[Path]) -> list[str]:
    """``file:line: names GAME`` for each place outside a game's own folder that
    names ``games`` (registry name to display name); ``package`` is the source root."""
    patterns = {name: spellings(name, title) for name, title in games.items()}
    found = []
    for path in sorted(files):
        relative = path.relative_to(package)
        parts = relative.parts
        if path.suffix not in CODE or "__pycache__" in parts:
            continue
        owner = parts[1] if len(parts) > 2 and parts[0] == "games" else None
        text = path.read_text(encoding="utf-8")
        for name, pattern in patterns.items():
            if owner == name.replace("-", "_"):
                continue
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{relative.as_posix()}:{line}: names {name} ({match.group(0)!r})")
    return found


def built_in_names() -> dict[str, str]:
    return {name: apothecary.game_class(name).info.title for name in BUILT_IN}


def test_nothing_outside_a_games_folder_names_a_game() -> None:
    found = violations(PACKAGE, built_in_names(), PACKAGE.rglob("*"))
    assert not found, "a game named outside its folder:\n" + "\n".join(found)


def test_the_check_catches_a_planted_name(tmp_path: Path) -> None:
    package = tmp_path / "apothecary"
    planted = {
        # Generic code naming a game, in a comment and in a docstring.
        "bots/generic.py": '"""Plays like Poison\n    Pot does."""\n# see in_vino_morte\n',
        # Browser code naming a game by its registry name.
        "server/static/room.js": 'const url = "/tables/tea-scones-arsenic.js";\n',
        # One game's folder naming another.
        "games/poison_pot/rules.py": "# unlike Little Drop of Poison\n",
    }
    allowed = {
        "games/poison_pot/bot.py": "# Poison Pot's own bot\n",  # its own folder
        "games/poison_pot/rules.md": "Like In Vino Morte.\n",  # a game's Markdown page
    }
    for relative, text in {**planted, **allowed}.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text, encoding="utf-8")
    found = violations(package, built_in_names(), package.rglob("*"))
    assert sorted(found) == [
        "bots/generic.py:1: names poison-pot ('Poison\\n    Pot')",
        "bots/generic.py:3: names in-vino-morte ('in_vino_morte')",
        "games/poison_pot/rules.py:1: names little-drop-of-poison ('Little Drop of Poison')",
        "server/static/room.js:1: names tea-scones-arsenic ('tea-scones-arsenic')",
    ]


SHAPE = {
    "bots": "bot",
    "exact_values": "exact",
    "analysis_policy": "exact",
    "solve": "solve",
    "terminal_view": "terminal",
    "batch": "batch",
}
"""A manifest part and the module of the game's package it lives in."""


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_four_packages_share_one_shape(name: str) -> None:
    declared = manifest(name)
    assert isinstance(declared, GameManifest)
    package = declared.game.__module__.rsplit(".", 1)[0]
    assert declared.game.__module__ == f"{package}.rules"
    assert declared.bots and declared.bots[0] == f"{package}.bot"
    assert all(module.startswith(package + ".") for module in declared.bots)
    for part, module in SHAPE.items():
        where = getattr(declared, part)
        if isinstance(where, str):
            assert where.split(":")[0] == f"{package}.{module}", (part, where)
            if part != "batch":  # numpy is an extra; tests/batch loads the engines
                assert resolve(where) is not None
    assert declared.terminal_view is not None
    assert declared.table is not None and declared.table.package == package
    folder = Path(resolve(package).__file__).parent
    for file in declared.table.served():
        assert (folder / file).is_file(), file
    assert (folder / "rules.md").is_file()


def test_the_plugin_game_is_named_only_in_its_own_folder() -> None:
    # The toy plugin (tests/support/toy_plugin) needed no edit to src/ to play.
    found = violations(PACKAGE, {"toy-high-card": "Toy High Card"}, PACKAGE.rglob("*"))
    assert not found, "\n".join(found)
