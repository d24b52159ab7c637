"""The toy plugin (tests/support/toy_plugin) as if pip had installed it, without
installing anything: a site folder holding only its ``*.dist-info`` (METADATA and
the ``entry_points.txt`` its pyproject.toml declares), which importlib.metadata
reads from any folder on the path, beside the plugin's own source folder.

:func:`plugin_path` is the PYTHONPATH of a subprocess that sees the plugin;
:func:`plugin_registry` makes this process's registry discover it afresh.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from apothecary.core import registry

PLUGIN = Path(__file__).resolve().parent / "toy_plugin"
"""The plugin's project folder (its pyproject.toml and its package)."""

NAME = "toy-high-card"


def write_site(site: Path) -> Path:
    """Lay out the plugin's dist-info in ``site``, from its own pyproject.toml."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    lines = []
    for group, points in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return site


def plugin_path(site: Path) -> str:
    """A PYTHONPATH with the plugin's dist-info and its package on it."""
    parts = [str(site), str(PLUGIN), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in parts if p)


@contextmanager
def plugin_registry(site: Path) -> Iterator[None]:
    """This process's registry discovering again with the plugin on the path;
    the registry and the path are put back afterwards."""
    registry.games()  # the built-in games, imported once
    saved = (dict(registry._GAMES), dict(registry._MANIFESTS), dict(registry._BROKEN))
    path = list(sys.path)
    sys.path[:0] = [str(site), str(PLUGIN)]
    registry._discovered = False
    try:
        registry.games()
        yield
    finally:
        sys.path[:] = path
        registry._GAMES.clear()
        registry._GAMES.update(saved[0])
        registry._MANIFESTS.clear()
        registry._MANIFESTS.update(saved[1])
        registry._BROKEN.clear()
        registry._BROKEN.update(saved[2])
        registry._discovered = True
