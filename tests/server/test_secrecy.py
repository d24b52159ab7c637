"""No message to a seat or a spectator carries what that viewer may not see.

Games of every game are played through the real server (uvicorn on a
loopback port, WebSocket clients), bots and scripted people in the seats, a
spectator watching. Every message every connection receives is then checked:
it is exactly what the room's view function gives that viewer at that
position, and that function gives the same for worlds the viewer cannot tell
apart (drawn by ``resample_from_infostate``), and each connection was told
every event exactly once, in order. Two planted leaks prove the check
catches both kinds of bug. The same play and check serve the cluster test
(tests/server/test_cluster.py), where the sockets of a room reach two
server processes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from serving import FAST, free_port
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from apothecary.core.game import State
from apothecary.server import hub as hub_module
from apothecary.server.app import WebConfig, create_app
from apothecary.server.room import Room
from apothecary.server.store import Store

GAME_KEYS = frozenset(
    [
        "state_id",
        "to_move",
        "waiting_for",
        "observation",
        "legal",
        "events",
        "event_count",
        "outcome",
    ]
)

# (game, players, options, games to play): short configurations so that many
# games fit in the test's time; the player counts cover hot seats and crowds.
TABLES: list[tuple[str, int, dict[str, Any], int]] = [
    ("in-vino-morte", 3, {}, 80),
    ("in-vino-morte", 5, {"cheese": True}, 40),
    ("tea-scones-arsenic", 3, {}, 30),
    ("tea-scones-arsenic", 2, {"little_spoon": True}, 20),
    ("poison-pot", 2, {}, 10),
    ("poison-pot", 3, {}, 8),
    ("little-drop-of-poison", 3, {"target": 5}, 8),
    ("little-drop-of-poison", 4, {"target": 5}, 6),
]


@dataclass
class Played:
    """One room's game as every connection saw it."""

    code: str
    row: dict[str, Any]
    seating: list[str]
    actions: list[str]
    seen: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    restarts: dict[int | None, set[int]] = field(default_factory=dict)
    """Where in ``seen`` a viewer's new socket began (the old one was closed
    with 1012, the room moved to another process, and the client reconnected)."""


async def serve(app: Any, port: int, body: Callable[[], Any]) -> Any:
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.02)
    try:
        return await body()
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 20)


async def play_room(
    host: str,
    row_of: Callable[[str], dict[str, Any]],
    game: str,
    players: int,
    options: dict[str, Any],
    rng: random.Random,
    socket_host: Callable[[int | None], str] | None = None,
) -> Played:
    """Create a room on ``host`` (people in the even seats, bots in the odd
    ones), play it to the end with every person and a spectator connected
    (to ``socket_host(viewer)``, else ``host``); ``row_of(code)`` is the
    room's stored row once it is over."""
    where = socket_host or (lambda _viewer: host)
    seats = ["open" if i % 2 == 0 else rng.choice(["random", "easy"]) for i in range(players)]
    async with httpx.AsyncClient(base_url=f"http://{host}") as http:
        made = (
            await http.post(
                "/api/rooms",
                json={
                    "game": game,
                    "players": players,
                    "options": options,
                    "seats": seats,
                    "host_name": "p0",
                    "seed": str(rng.random()),
                },
            )
        ).json()
        code = made["code"]
        tokens = {made["seat"]: made["seat_token"]}
        for seat in range(2, players, 2):
            claimed = (
                await http.post(f"/api/rooms/{code}/seats", json={"name": f"p{seat}"})
            ).json()
            tokens[claimed["seat"]] = claimed["token"]

        async def join(viewer: int | None) -> ClientConnection:
            socket = await connect(f"ws://{where(viewer)}/ws/rooms/{code}")
            await socket.send(json.dumps({"type": "hello", "token": tokens.get(viewer)}))
            welcome = json.loads(await socket.recv())
            assert welcome["type"] == "welcome" and welcome["you"] == viewer
            return socket

        sockets = {viewer: await join(viewer) for viewer in [*tokens, None]}
        played = Played(code, {}, [], [], {viewer: [] for viewer in sockets})
        played.restarts = {viewer: set() for viewer in sockets}
        started = await http.post(
            f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {made['host_token']}"}
        )
        assert started.status_code == 200, started.text

        async def follow(viewer: int | None) -> None:
            socket = sockets[viewer]
            acted: set[str] = set()
            while True:
                try:
                    message = json.loads(await socket.recv())
                except ConnectionClosed as closed:
                    # Between processes a room may move (a lease lapsed on a
                    # loaded machine, a relay timed out): the server closes with
                    # 1012 and the client reconnects, as the browser does. The
                    # new socket gets the whole room; what the old one was told
                    # is checked up to there. One process never moves a room.
                    moved = closed.rcvd is not None and closed.rcvd.code == 1012
                    if socket_host is None or not moved or len(played.restarts[viewer]) >= 5:
                        raise
                    socket = sockets[viewer] = await join(viewer)
                    played.restarts[viewer].add(len(played.seen[viewer]))
                    acted.clear()  # an act the old socket sent may not have been done
                    continue
                if message["type"] == "presence":  # the others joining: public, no game in it
                    assert set(message) == {"type", "room", "connected", "spectators"}, message
                    continue
                played.seen[viewer].append(message)
                assert message["type"] == "update", message
                if message["outcome"] is not None:
                    return
                if message["legal"] and message["state_id"] not in acted:
                    acted.add(message["state_id"])
                    choice = rng.choice(message["legal"])
                    action = choice["id"] if rng.random() < 0.5 else choice["notation"]
                    await socket.send(
                        json.dumps(
                            {"type": "act", "action": action, "state_id": message["state_id"]}
                        )
                    )

        await asyncio.wait_for(asyncio.gather(*(follow(v) for v in sockets)), 120)
        for socket in sockets.values():
            await socket.close()
        record = (await http.get(f"/api/rooms/{code}/games/1/record")).json()
    played.row = {**row_of(code), "status": "playing", "deadline": None}
    played.seating = record["seats"]
    played.actions = record["actions"]
    return played


def leaks(
    played: Played, rng: random.Random, worlds_per_room: int = 6, whole: bool = True
) -> list[str]:
    """Every way the messages of ``played`` break secrecy, in words; ``whole``:
    each viewer was also told every event of the game (its socket lasted to the end)."""
    problems: list[str] = []
    truth = Room.restore(played.row, [], played.seating)
    state = truth.state
    assert state is not None
    lobby = Room.restore({**played.row, "game_no": 0, "status": "lobby"}, [], [])
    by_step: dict[int, list[tuple[int | None, dict[str, Any]]]] = {}
    for viewer, messages in played.seen.items():
        told = 0  # every event told once, in order: no gap, no repeat
        restarts = played.restarts.get(viewer, set())
        for index, message in enumerate(messages):
            since = message["event_count"] - len(message["events"])
            if index in restarts:  # a new socket: the whole room again, from where it is
                told = since
            if since != told:
                problems.append(f"viewer {viewer}: sent events from {since}, after {told}")
            told = message["event_count"]
            if message["state_id"] == "0:0":  # before the start: the lobby's view
                if {k: message.get(k) for k in GAME_KEYS} != lobby.game_view(viewer):
                    problems.append(f"lobby, viewer {viewer}: not what the view function gives")
                continue
            step = int(message["state_id"].split(":")[1])
            by_step.setdefault(step, []).append((viewer, message))
        if whole and told != len(played.actions):
            problems.append(f"viewer {viewer}: told {told} of {len(played.actions)} events")
    sampled = set(rng.sample(sorted(by_step), min(worlds_per_room, len(by_step))))
    for step in range(len(played.actions) + 1):
        for viewer, message in by_step.get(step, []):
            extra = set(message) - GAME_KEYS - set(Room.ROOM_FACTS)
            if extra:
                problems.append(f"step {step}, viewer {viewer}: fields beyond the view: {extra}")
            since = message["event_count"] - len(message["events"])
            expected = truth.game_view(viewer, since)
            got = {k: message.get(k) for k in GAME_KEYS}
            if got != expected:
                problems.append(f"step {step}, viewer {viewer}: not what the view function gives")
            if step in sampled:
                problems += _world_check(played, state, viewer, since, expected, rng, step)
        if step < len(played.actions):
            truth.apply(state.string_to_action(played.actions[step]), 0.0)
    return problems


def _world_check(
    played: Played,
    state: State,
    viewer: int | None,
    since: int,
    expected: dict[str, Any],
    rng: random.Random,
    step: int,
) -> list[str]:
    """The view is the same in worlds ``viewer`` cannot tell from the truth
    (a spectator knows less than any seat, so any seat's worlds serve)."""
    seat = viewer if viewer is not None else rng.randrange(state.game.num_players)
    problems = []
    for _ in range(2):
        world = state.resample_from_infostate(seat, rng)
        other = Room.restore(played.row, world.history(), played.seating)
        if other.state is not None and other.state.is_terminal():
            other.status = "over"
        if other.game_view(viewer, since) != expected:
            problems.append(
                f"step {step}, viewer {viewer}: the view differs in a world it cannot tell"
            )
    return problems


def play_tables(
    tmp_path: Path, tables: list[tuple[str, int, dict[str, Any], int]], seed: int
) -> list[Played]:
    rng = random.Random(seed)
    port = free_port()
    # Many rooms from one address, scripted people acting at once: lift the limits.
    web = WebConfig(
        create_per_minute=100_000,
        rate_per_second=1e6,
        rate_burst=10**6,
        address_rate_per_second=1e6,  # every seat of every table is this one address
        address_rate_burst=10**6,
    )
    many = dataclasses.replace(FAST, rooms_per_address=10**6)
    app = create_app(Store(f"sqlite:///{tmp_path / 'secrecy.sqlite3'}"), many, web)

    def row_of(code: str) -> dict[str, Any]:
        room: Room = app.state.hub._rooms[code].room
        return room.snapshot()

    async def everything() -> list[Played]:
        host = f"127.0.0.1:{port}"
        results: list[Played] = []
        for game, players, options, count in tables:
            # A few rooms at once, as on a real server.
            for start in range(0, count, 4):
                batch = [
                    play_room(host, row_of, game, players, options, random.Random(rng.random()))
                    for _ in range(min(4, count - start))
                ]
                results += await asyncio.gather(*batch)
        return results

    played: list[Played] = asyncio.run(serve(app, port, everything))
    return played


def test_no_message_carries_what_its_viewer_may_not_see(tmp_path: Path) -> None:
    played = play_tables(tmp_path, TABLES, seed=1)
    assert len(played) == sum(t[3] for t in TABLES)
    rng = random.Random(2)
    problems = [f"{p.code}: {problem}" for p in played for problem in leaks(p, rng)]
    assert not problems, "\n".join(problems[:20])
    messages = sum(len(m) for p in played for m in p.seen.values())
    assert messages > 1000  # the check looked at real traffic


def test_the_check_catches_a_view_that_shows_another_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Room.game_view

    def leaky(self: Room, viewer: int | None, since: int = 0) -> dict[str, Any]:
        view = original(self, viewer, since)
        if viewer is not None and self.state is not None:
            neighbour = (viewer + 1) % self.game.num_players
            view["observation"] = {**view["observation"], "peek": self.state.observation(neighbour)}
        return view

    monkeypatch.setattr(Room, "game_view", leaky)
    played = play_tables(tmp_path, [("in-vino-morte", 3, {}, 3)], seed=3)
    problems = [problem for p in played for problem in leaks(p, random.Random(4), 20)]
    assert any("cannot tell" in problem for problem in problems)


def test_the_check_catches_a_message_the_view_did_not_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every message a socket is sent is put in JSON by hub._encode (once per
    # distinct update): the leak is planted there.
    original = hub_module._encode

    def leaky(message: dict[str, Any]) -> str:
        if message.get("type") == "update":
            message = {**message, "dealer_glasses": "poison,wine,wine"}
        return original(message)

    monkeypatch.setattr(hub_module, "_encode", leaky)
    played = play_tables(tmp_path, [("in-vino-morte", 3, {}, 2)], seed=5)
    problems = [problem for p in played for problem in leaks(p, random.Random(6))]
    assert any("beyond the view" in problem for problem in problems)
