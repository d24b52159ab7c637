"""Games from other packages: the ``apothecary.games`` entry-point group.

A package adds a game by declaring one entry point, ``name = "module:GameClass"``;
every front end then offers it. The first test pip-installs a real package (into a
--target folder, offline); the broken cases lay out by hand what pip leaves in
site-packages, a module beside a ``*.dist-info`` folder holding METADATA and
entry_points.txt, which importlib.metadata finds exactly as it finds an installed
distribution."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from apothecary.core import registry
from apothecary.core.errors import ApothecaryError, UnknownGameError
from apothecary.core.registry import GameRegistrationError, GameRegistrationWarning

SUPPORT = Path(__file__).resolve().parent.parent / "support"
BUILT_IN = ["in-vino-morte", "little-drop-of-poison", "poison-pot", "tea-scones-arsenic"]

# The toy game of tests/support/toy_plugin, as another package would ship it, plus classes for
# the broken cases: a game under a built-in's name, and a module that does not import.
TOY_PACKAGE = (SUPPORT / "toy_plugin" / "toy_high_card" / "game.py").read_text(
    encoding="utf-8"
) + textwrap.dedent(
    '''

    from dataclasses import replace as _replace


    class Impostor(ToyGame):
        """Toy high card claiming a built-in game's name."""

        info = _replace(ToyGame.info, name="poison-pot")
    '''
)


def install(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> Path:
    """Lay out an installed distribution ``dist`` in ``site``, as pip would."""
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8"
    )
    lines = [f"{name} = {value}" for name, value in entry_points.items()]
    (info / "entry_points.txt").write_text(
        "[apothecary.games]\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter that has ``site`` on its path (the registry starts empty)."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A registry that discovers again, with ``tmp_path/site`` on the path; the
    process's registry, path and modules are put back afterwards."""
    registry.games()  # the built-in games, imported once (an import registers only once)
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_GAMES", {name: registry.game_class(name) for name in BUILT_IN})
    monkeypatch.setattr(registry, "_BROKEN", {})
    monkeypatch.setattr(registry, "_discovered", False)
    before = set(sys.modules)
    yield site
    for name in set(sys.modules) - before:
        if name.startswith("apothecary_toy"):
            del sys.modules[name]
    importlib.invalidate_caches()


PLUGIN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "apothecary-toy"
version = "0.1"

[project.entry-points."apothecary.games"]
toy-high-card = "apothecary_toy:ToyGame"

[tool.setuptools.package-data]
apothecary_toy = ["rules.md"]
"""


def pip_install(project: Path, site: Path) -> Path:
    """``pip install`` the project folder into ``site`` (offline: the venv's setuptools)."""
    offline = ["--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            *offline,
            "--target",
            str(site),
            str(project),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return site


def test_an_installed_package_adds_a_game_to_every_front_end(tmp_path: Path) -> None:
    # A real package, installed by pip: the entry point is the one line of its pyproject.
    project = tmp_path / "apothecary-toy"
    (project / "apothecary_toy").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PLUGIN_PYPROJECT, encoding="utf-8")
    (project / "apothecary_toy" / "__init__.py").write_text(TOY_PACKAGE, encoding="utf-8")
    (project / "apothecary_toy" / "rules.md").write_text(
        "# Toy High Card\n\nThe higher card wins.\n", encoding="utf-8"
    )
    site = pip_install(project, tmp_path / "site")
    assert not (site / "apothecary").exists(), "pip installed apothecary itself"

    listed = run(site, "-m", "apothecary.cli", "games")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names == sorted([*BUILT_IN, "toy-high-card"])
    assert "Toy High Card" in listed.stdout
    assert "GameRegistrationWarning" not in listed.stderr
    rules = run(site, "-m", "apothecary.cli", "rules", "toy-high-card")
    assert rules.returncode == 0 and "The higher card wins." in rules.stdout, rules.stderr

    # The conformance suite, the bot registry, the OpenSpiel and PettingZoo adapters,
    # the arena's simulate command and the server's game list, none of which was told
    # about the package.
    script = textwrap.dedent(
        """
        import sys

        import pyspiel
        from fastapi.testclient import TestClient

        from apothecary import bots
        from apothecary.interop import openspiel, pettingzoo
        from apothecary.server.app import create_app
        from apothecary.server.store import Store
        from apothecary.testing import check_game

        check_game("toy-high-card", games=20)
        print("levels", *bots.levels("toy-high-card"))
        print("openspiel", *[n for n in openspiel.register() if "toy" in n])
        spiel = pyspiel.load_game("apothecary_toy_high_card")
        print("spiel players", spiel.num_players())
        env = pettingzoo.env("toy-high-card")
        env.reset(seed=0)
        print("pettingzoo agents", *env.agents)
        with TestClient(create_app(Store(f"sqlite:///{sys.argv[1]}"))) as client:
            print("server", *sorted(g["name"] for g in client.get("/api/games").json()))
        """
    )
    checked = run(site, "-c", script, str(tmp_path / "rooms.sqlite3"))
    assert checked.returncode == 0, checked.stderr
    assert "levels easy medium hard" in checked.stdout
    assert "openspiel apothecary_toy_high_card\n" in checked.stdout
    assert "spiel players 2" in checked.stdout
    assert "pettingzoo agents player_0 player_1" in checked.stdout
    assert "server " + " ".join(sorted([*BUILT_IN, "toy-high-card"])) in checked.stdout

    simulated = run(
        site, "-m", "apothecary.cli", "simulate", "toy-high-card", "-n", "20", "--bots", "random"
    )
    assert simulated.returncode == 0, simulated.stderr


def test_a_broken_package_leaves_the_other_games_and_says_why(tmp_path: Path) -> None:
    site = install(
        tmp_path / "site",
        "apothecary-broken",
        {"broken-game": "apothecary_missing_module:Game"},
        {},
    )
    listed = run(site, "-m", "apothecary.cli", "games")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == BUILT_IN
    assert "GameRegistrationWarning" in listed.stderr
    assert "'broken-game'" in listed.stderr and "apothecary-broken 0.1" in listed.stderr
    assert "Traceback" not in listed.stderr

    rules = run(site, "-m", "apothecary.cli", "rules", "broken-game")
    assert rules.returncode == 2
    assert "error:" in rules.stderr and "does not load" in rules.stderr
    assert "Traceback" not in rules.stderr


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("toy-high-card", "apothecary_toy_absent:ToyGame", "does not load: ModuleNotFoundError"),
        ("toy-high-card", "apothecary_toy:MOVE_NAMES", "not a subclass of apothecary.Game"),
        ("toy-high-card", "apothecary_toy:ToyState", "not a subclass of apothecary.Game"),
        ("high-card", "apothecary_toy:ToyGame", "called 'toy-high-card'"),
        ("toy-high-card", "apothecary_toy:NoSuchName", "does not load: AttributeError"),
    ],
)
def test_each_kind_of_broken_entry_point_is_reported_and_left_out(
    fresh_registry: Path, name: str, value: str, complaint: str
) -> None:
    install(fresh_registry, "apothecary-toy", {name: value}, {"apothecary_toy": TOY_PACKAGE})
    with pytest.warns(GameRegistrationWarning, match=complaint):
        assert registry.games() == BUILT_IN
    with pytest.raises(GameRegistrationError, match=complaint) as caught:
        registry.game_class(name)
    assert isinstance(caught.value, ApothecaryError)


def test_an_entry_point_cannot_take_a_built_in_games_name(fresh_registry: Path) -> None:
    install(
        fresh_registry,
        "apothecary-toy",
        {"poison-pot": "apothecary_toy:Impostor"},
        {"apothecary_toy": TOY_PACKAGE},
    )
    with pytest.warns(GameRegistrationWarning, match="already the game of apothecary.games"):
        assert registry.games() == BUILT_IN
    assert registry.game_class("poison-pot").__module__.startswith("apothecary.games.poison_pot")


def test_a_good_and_a_broken_entry_point_side_by_side(fresh_registry: Path) -> None:
    install(
        fresh_registry,
        "apothecary-toy",
        {"toy-high-card": "apothecary_toy:ToyGame", "other-game": "apothecary_toy:Nothing"},
        {"apothecary_toy": TOY_PACKAGE},
    )
    with pytest.warns(GameRegistrationWarning, match="'other-game'"):
        assert registry.games() == sorted([*BUILT_IN, "toy-high-card"])
    assert registry.load("toy-high-card").num_players == 2
    with pytest.raises(UnknownGameError, match="toy-high-card"):
        registry.game_class("no-such-game")


def test_discovery_runs_once(fresh_registry: Path) -> None:
    install(
        fresh_registry,
        "apothecary-toy",
        {"toy-high-card": "apothecary_toy:Nothing"},
        {"apothecary_toy": TOY_PACKAGE},
    )
    with pytest.warns(GameRegistrationWarning):
        registry.games()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry.games()  # a second call neither loads nor warns again


def test_two_classes_under_one_name_are_refused() -> None:
    from toy_high_card.game import ToyGame

    class Twin(ToyGame):
        info = replace(ToyGame.info, name="poison-pot")

    with pytest.raises(GameRegistrationError, match="registered twice"):
        registry.register(Twin)
    assert registry.game_class("poison-pot") is not Twin
