"""The hub: rooms leave memory when finished and idle, and come back on demand."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from serving import FAST, app_client, host_headers, make_room, sqlite_url

from apothecary.core.bot import Bot, RandomBot
from apothecary.core.game import State
from apothecary.server.room import Room
from apothecary.server.store import Store, rooms


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


def test_a_restart_gives_the_seat_to_move_back_the_time_the_server_was_down(
    tmp_path: Path,
) -> None:
    """A 20 s turn: the room sits 5 s (the server running, vouching for it), then the
    server is down 10 s. Back, the seat to move has the 15 s it had when the server
    stopped; the old server kept the stored deadline and left it 5 s."""
    now = [1000.0]
    config = replace(FAST, clock=lambda: now[0], vouch_seconds=0.02)
    url = sqlite_url(tmp_path)
    with app_client(url, config) as client:
        room = make_room(client, "Ann", game="in-vino-morte", players=2, turn_seconds=20)
        code = room["code"]
        assert client.post(f"/api/rooms/{code}/seats", json={"name": "Bob"}).is_success
        assert client.post(f"/api/rooms/{code}/start", headers=host_headers(room)).is_success
        live = client.app.state.hub._rooms[code]  # type: ignore[attr-defined]
        assert live.room.pending().kind == "human"
        deadline = live.room.deadline
        assert deadline == pytest.approx(1020.0)
        now[0] = 1005.0
        for _ in range(200):  # until the hub has vouched for the room at 1005
            if stored(url, code, "alive") == 1005.0:
                break
            time.sleep(0.01)
        assert stored(url, code, "alive") == 1005.0
    now[0] = 1015.0  # down from 1005 to 1015
    with app_client(url, config) as client:
        resumed = client.app.state.hub._rooms[code].room  # type: ignore[attr-defined]
        assert resumed.deadline == pytest.approx(1030.0), resumed.deadline - 1015.0
        seen = client.get(f"/api/rooms/{code}").json()
        assert seen["status"] == "playing"
    assert stored(url, code, "deadline") == pytest.approx(1030.0)  # kept for the next restart


def stored(url: str, code: str, column: str) -> Any:
    """One column of a room's stored row."""
    store = Store(url)
    try:
        with store.engine.connect() as connection:
            return connection.execute(
                sa.select(rooms.c[column]).where(rooms.c.code == code)
            ).scalar()
    finally:
        store.close()
