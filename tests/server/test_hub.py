"""The hub: rooms leave memory when finished and idle, and come back on demand."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from serving import FAST, app_client, host_headers, make_room, sqlite_url

from apothecary.core.bot import Bot, RandomBot
from apothecary.core.game import State
from apothecary.server.room import Room


def play_to_the_end(client: Any, room: dict[str, Any]) -> None:
    """Start a room of bots and wait (bounded) until its game is over."""
    assert client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room)).is_success
    for _ in range(300):
        if client.get(f"/api/rooms/{room['code']}").json()["status"] == "over":
            return
        time.sleep(0.02)
    raise AssertionError("the bots did not finish the game in 6 s")


def test_a_finished_idle_room_leaves_memory_and_loads_again(tmp_path: Path) -> None:
    now = [1000.0]
    config = replace(FAST, clock=lambda: now[0], idle_seconds=60.0)
    with app_client(sqlite_url(tmp_path), config) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        room = make_room(client, None, game="in-vino-morte", players=3, seats=["random"] * 3)
        waiting = make_room(client, None, game="poison-pot", players=2)
        play_to_the_end(client, room)
        assert hub.sweep() == 0  # not idle yet
        now[0] += 61
        assert hub.sweep() == 1  # the finished room goes; the lobby stays
        assert room["code"] not in hub._rooms and waiting["code"] in hub._rooms
        again = client.get(f"/api/rooms/{room['code']}").json()
        assert again["status"] == "over" and again["game_no"] == 1
        record = client.get(f"/api/rooms/{room['code']}/games/1/record").json()
        assert record["outcome"] is not None


def test_a_failing_bot_does_not_stall_its_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken(RandomBot):
        def _choose(self, state: State) -> int:
            raise RuntimeError("planted bot failure")

    def broken(self: Room, seat: int) -> Bot:
        return Broken(self.game, seat, seed=0)

    monkeypatch.setattr(Room, "make_bot", broken)
    with app_client(sqlite_url(tmp_path)) as client:
        room = make_room(client, None, game="in-vino-morte", players=3, seats=["random"] * 3)
        play_to_the_end(client, room)
    assert "planted bot failure" in caplog.text
