"""Every registered game, at every player count, passes the conformance suite.

Each game's own tests run the suite harder and over its options; this file
makes sure that a newly added game is checked even before it has tests.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import apothecary
from apothecary.testing import check_game

# The smallest and largest tables of each game; each game's own tests cover
# every player count and its options, and play long games to the end.
CONFIGURATIONS = [
    (name, players)
    for name in apothecary.games()
    for players in sorted(
        {apothecary.game_class(name).info.min_players, apothecary.game_class(name).info.max_players}
    )
]


def test_the_four_games_are_registered() -> None:
    assert set(apothecary.games()) >= {"in-vino-morte", "poison-pot"}


@pytest.mark.parametrize(("name", "players"), CONFIGURATIONS)
def test_conformance_with_default_options(name: str, players: int) -> None:
    report = check_game(
        name, players=players, games=1, seed=11, min_steps=60, max_steps_per_game=120
    )
    assert report.games >= 1 and report.steps >= 60


@pytest.mark.parametrize("name", apothecary.games())
def test_each_game_describes_itself(name: str) -> None:
    cls = apothecary.game_class(name)
    info = cls.info
    assert info.name == name and info.title and info.summary
    assert 1 <= info.min_players <= info.default_players <= info.max_players
    page = cls.rules_page()
    assert page is not None and info.title.split()[0] in page
    for spec in cls.option_specs:
        assert spec.help and spec.check(spec.default) == spec.default


def test_importing_apothecary_stays_light() -> None:
    code = (
        "import sys, apothecary; apothecary.games(); "
        "heavy = [m for m in ('typer', 'rich', 'numpy', 'fastapi', 'matplotlib', 'pyspiel') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
