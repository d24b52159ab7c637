"""A game from another package plays everywhere, with no edit outside its folder.

The toy plugin (tests/support/toy_plugin: toy high card, its own bot, terminal
view and browser table, declared by its manifest through the ``apothecary.games``
entry point) is put on the path of an ``apothecary serve`` subprocess with its
dist-info (tests/support/toy_plugin_site.py). It shows in the lobby, its room
is played to the end in the browser on its own table, and a tournament and an
analysis run on it. tests/tui/test_tui_plugin.py plays it in the terminal app.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import host_headers, make_room, server_process
from toy_plugin_site import NAME, plugin_path, plugin_registry, write_site

import apothecary
from apothecary import analysis
from apothecary.core.game import CHANCE, sample_chance


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_site(tmp_path_factory.mktemp("plugin-site"))


@pytest.fixture(scope="module")
def plugin_server(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("plugin-server")
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = plugin_path(site)
    try:
        with server_process(f"sqlite:///{folder / 'rooms.sqlite3'}") as (base, _process):
            yield base
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def test_the_plugin_is_in_the_lobby_with_its_table(plugin_server: str, page: Any) -> None:
    games = {g["name"]: g for g in httpx.get(f"{plugin_server}/api/games").json()}
    assert NAME in games and "poison-pot" in games
    toy = games[NAME]
    assert [b["name"] for b in toy["bots"]][-1] == "rules"  # its own bot
    assert toy["table"] == {
        "script": f"/tables/{NAME}/table.js",
        "style": f"/tables/{NAME}/table.css",
    }
    for url in toy["table"].values():
        response = httpx.get(plugin_server + url)
        assert response.status_code == 200 and "toy" in response.text
    assert httpx.get(f"{plugin_server}/tables/{NAME}/game.py").status_code == 404
    page.goto(plugin_server)
    page.wait_for_selector("text=Toy High Card")


def test_a_room_of_the_plugin_is_played_to_the_end_on_its_table(
    plugin_server: str, page: Any, enter_room: Any
) -> None:
    with httpx.Client(base_url=plugin_server) as api:
        answer = make_room(
            api, game=NAME, players=2, seats=["open", "easy"], seed="toy", host_name="Ann"
        )
        started = api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer))
        assert started.status_code < 300, started.text
    enter_room(page, answer, base=plugin_server)
    page.wait_for_selector(f"#room[data-table={NAME}] .toy-table .toy-card")
    for _ in range(10):
        page.wait_for_selector(
            "#legal button[data-action]:not([disabled]), #room[data-status=over]",
            timeout=15_000,
        )
        if page.get_attribute("#room", "data-status") == "over":
            break
        page.locator("#legal button[data-action]:not([disabled])").first.click()
        page.wait_for_timeout(200)
    page.wait_for_selector("#room[data-status=over]", timeout=15_000)
    page.wait_for_selector("#result h2")
    assert "cards" in page.inner_text(".toy-moves")


def test_a_tournament_of_the_plugin(site: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": plugin_path(site)}
    out = tmp_path / "tournament"
    command = [sys.executable, "-m", "apothecary.cli", "tournament", NAME, "--players", "2"]
    command += ["--bots", "rules,easy", "--games", "6", "--seed", "1", "--out", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rules" in result.stdout
    records = list(out.rglob("*.json*"))
    assert records, list(out.rglob("*"))


def test_an_analysis_of_the_plugin_uses_its_exact_values(site: Path) -> None:
    with plugin_registry(site):
        assert NAME in apothecary.games()
        game = apothecary.load(NAME)
        state = game.new_initial_state()
        while state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, random.Random(1)))
        decision = analysis.evaluate(state, analysis.plan(game), seed=0)
        assert decision.method == "solver"
        assert json.dumps(decision.to_json())
    assert NAME not in apothecary.games()
