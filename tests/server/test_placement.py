"""One process places every room itself: the local path never packs a command
for a relay, and never loads the cluster's modules (nor Redis).

Each check is shown to fail on a planted violation: a placement that packs
every command as the cluster's relay does, and a process that loads the
cluster's module.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serving import FAST, app_client, host_headers, make_room, sqlite_url

from apothecary.server import commands
from apothecary.server.app import WebConfig, create_app
from apothecary.server.commands import RoomCommand
from apothecary.server.placement.local import LocalPlacement
from apothecary.server.store import Store

WAIT = 30.0
RELAY_MODULES = ("apothecary.server.cluster", "apothecary.server.placement.cluster", "redis")


def _update(ws: Any) -> dict[str, Any]:
    """The next update on the socket (chat and pongs on the way are skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        assert message["type"] != "error", message
        if message["type"] == "update":
            return message


def play_a_room(client: TestClient) -> None:
    """Every kind of command once or more, on one process: a guest claims a
    seat, the host starts, plays over the socket, chats and pings, hands the
    guest's seat to a bot, reads the room and the finished game's record, and
    asks for a rematch."""
    room = make_room(client, game="in-vino-morte", players=2, fallback_level="random")
    code = room["code"]
    assert client.post(f"/api/rooms/{code}/seats", json={"name": "guest"}).is_success
    assert client.post(f"/api/rooms/{code}/start", headers=host_headers(room)).is_success
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        ws.send_json({"type": "hello", "token": room["seat_token"]})
        assert ws.receive_json()["type"] == "welcome"
        update = _update(ws)
        ws.send_json({"type": "ping"})
        ws.send_json({"type": "chat", "text": "hello"})
        bot = {"level": "random"}
        handed = client.put(f"/api/rooms/{code}/seats/1/bot", json=bot, headers=host_headers(room))
        assert handed.is_success, handed.text
        deadline, acted = time.monotonic() + WAIT, set()
        while update["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end"
            state_id = update["state_id"]
            if update["to_move"] == 0 and update["legal"] and state_id not in acted:
                acted.add(state_id)  # once: presence and chat bring the same position again
                ws.send_json(
                    {"type": "act", "action": update["legal"][0]["id"], "state_id": state_id}
                )
            update = _update(ws)
    assert client.get(f"/api/rooms/{code}").json()["status"] == "over"
    assert client.get(f"/api/rooms/{code}/games/1/record").is_success
    assert client.post(f"/api/rooms/{code}/rematch", headers=host_headers(room)).is_success


class PackingPlacement(LocalPlacement):
    """Planted: every room here, but every command packed and unpacked as the
    cluster packs one for a relay."""

    async def ask(self, command: RoomCommand) -> Any:
        unpacked = commands.from_json(command.to_json())
        assert isinstance(unpacked, RoomCommand)
        return await super().ask(unpacked)


def packed_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, placement: LocalPlacement | None
) -> list[str]:
    """The types of the commands packed for a relay while :func:`play_a_room`
    runs on one process (with ``placement`` in place of the default)."""
    packed: list[str] = []
    pack = commands.Command.to_json

    def spy(self: commands.Command) -> dict[str, Any]:
        packed.append(self.type)
        return pack(self)

    monkeypatch.setattr(commands.Command, "to_json", spy)
    app = create_app(Store(sqlite_url(tmp_path)), FAST, WebConfig(create_per_minute=1000))
    hub = app.state.hub
    assert type(hub.placement) is LocalPlacement  # the default, with no cluster
    if placement is not None:
        hub.placement = placement
        placement.bind(hub)
    with TestClient(app) as client:
        play_a_room(client)
    return packed


def test_the_local_path_never_packs_a_command_for_a_relay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert packed_commands(tmp_path, monkeypatch, None) == []


def test_the_spy_catches_a_placement_that_packs_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = packed_commands(tmp_path, monkeypatch, PackingPlacement())
    assert {"claim", "start", "bot", "info", "record", "rematch"} <= set(packed)


def relay_modules_loaded(tmp_path: Path, prelude: str = "") -> list[str]:
    """The cluster's modules (and Redis's) that a fresh interpreter has loaded
    after ``prelude`` and :func:`play_a_room` on one process."""
    here = Path(__file__).parent
    script = f"""
import sys
sys.path[:0] = [{str(here)!r}, {str(here.parent / "support")!r}]
{prelude}
from serving import app_client, sqlite_url
from test_placement import RELAY_MODULES, play_a_room
from pathlib import Path
with app_client(sqlite_url(Path({str(tmp_path)!r}))) as client:
    play_a_room(client)
print(" ".join(m for m in sorted(sys.modules) if m.split(".")[0] == "redis" or m in RELAY_MODULES))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_one_process_loads_no_redis_and_no_relay_code(tmp_path: Path) -> None:
    assert relay_modules_loaded(tmp_path) == []


def test_the_module_check_catches_a_process_that_loads_the_relay_code(tmp_path: Path) -> None:
    planted = "import apothecary.server.placement.cluster"
    loaded = relay_modules_loaded(tmp_path, planted)
    assert "apothecary.server.placement.cluster" in loaded
    assert "apothecary.server.cluster" in loaded


def test_the_health_check_names_no_process_when_alone(tmp_path: Path) -> None:
    with app_client(sqlite_url(tmp_path)) as client:
        assert "process" not in client.get("/health").json()
