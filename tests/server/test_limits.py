"""Limits per seat and per address, not per socket, against a real ``apothecary serve``:
more sockets buy no more messages, a command that changes nothing sends nothing,
and a room's stored chat is capped."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from serving import FAST, app_client, host_headers, make_room, server_process, sqlite_url
from websockets.sync.client import ClientConnection, connect

from apothecary.server.app import WebConfig
from apothecary.server.room import CHAT_KEPT
from apothecary.server.store import chat, normalise_url

SEAT_RATE, SEAT_BURST = WebConfig.rate_per_second, WebConfig.rate_burst
ADDRESS_RATE, ADDRESS_BURST = WebConfig.address_rate_per_second, WebConfig.address_rate_burst


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module, with its default limits."""
    with server_process(sqlite_url(tmp_path_factory.mktemp("limits"))) as (url, _process):
        yield url


@contextmanager
def sockets(base: str, code: str, tokens: list[str | None]) -> Iterator[list[ClientConnection]]:
    """One socket per token (None watches), each past its welcome."""
    url = base.replace("http://", "ws://") + f"/ws/rooms/{code}"
    with ExitStack() as stack:
        opened = []
        for token in tokens:
            ws = stack.enter_context(connect(url, open_timeout=10, close_timeout=2))
            ws.send(json.dumps({"type": "hello", "token": token}))
            welcome = json.loads(ws.recv(timeout=10))
            assert welcome["type"] == "welcome", welcome
            opened.append(ws)
        yield opened


def two_seat_room(base: str) -> dict[str, Any]:
    """A lobby with the host in seat 0 and a friend in seat 1 (``friend_token``)."""
    with httpx.Client(base_url=base, timeout=10) as client:
        room = make_room(client, game="poison-pot", players=2, seats=["open", "open"])
        claimed = client.post(f"/api/rooms/{room['code']}/seats", json={"name": "friend"})
        assert claimed.status_code in (200, 201), claimed.text
        room["friend_token"] = claimed.json()["token"]
    return room


def refused_count(ws: ClientConnection, mine: set[str], sent: int) -> int:
    """Read ``ws`` until each of its ``sent`` messages is accounted for: its chat
    (text in ``mine``) came back to everyone, or it was refused as rate_limited.
    Returns how many were refused."""
    refused = seen = 0
    while refused + seen < sent:
        message = json.loads(ws.recv(timeout=20))
        if message["type"] == "error":
            assert message["error"] == "rate_limited", message
            refused += 1
        elif message["type"] == "chat" and message["text"] in mine:
            seen += 1
    return refused


def test_forty_sockets_of_one_seat_share_its_chat_rate(base: str) -> None:
    room = two_seat_room(base)
    each = 2
    count = 40
    assert count * each < ADDRESS_BURST  # the address's limit stays out of it
    with sockets(base, room["code"], [room["seat_token"]] * count) as seat:
        started = time.monotonic()
        for i, ws in enumerate(seat):
            for j in range(each):
                ws.send(json.dumps({"type": "chat", "text": f"s{i}-{j}"}))
        refused = [
            refused_count(ws, {f"s{i}-{j}" for j in range(each)}, each) for i, ws in enumerate(seat)
        ]
        elapsed = time.monotonic() - started
    accepted = count * each - sum(refused)
    # The most one seat's bucket can give in that time, whatever the sockets.
    assert accepted <= SEAT_BURST + SEAT_RATE * elapsed + 1, (accepted, elapsed)
    assert accepted >= SEAT_BURST  # its burst, all of it: the limit is the seat's, not less


def test_many_sockets_of_one_address_share_its_rate(base: str) -> None:
    room = two_seat_room(base)
    count, each = 10, 28  # each spectator stays within its own burst
    assert each < SEAT_BURST
    with sockets(base, room["code"], [None] * count) as watchers:
        started = time.monotonic()
        for ws in watchers:
            for _ in range(each):
                ws.send(json.dumps({"type": "ping"}))
        pongs = 0
        for ws in watchers:
            answered = 0
            while answered < each:
                message = json.loads(ws.recv(timeout=20))
                if message["type"] == "pong":
                    pongs += 1
                elif message["type"] == "error":
                    assert message["error"] == "rate_limited", message
                else:
                    continue
                answered += 1
        elapsed = time.monotonic() - started
    assert pongs <= ADDRESS_BURST + ADDRESS_RATE * elapsed + 1, (pongs, elapsed)
    assert pongs < count * each


def until_pong(ws: ClientConnection) -> list[dict[str, Any]]:
    """Ping ``ws``; everything it was sent before the pong."""
    ws.send(json.dumps({"type": "ping"}))
    before = []
    while (message := json.loads(ws.recv(timeout=20)))["type"] != "pong":
        before.append(message)
    return before


def test_back_from_a_seat_not_away_sends_nothing(tmp_path: Path) -> None:
    # A server of its own: the other tests spend this address's messages.
    with (
        server_process(sqlite_url(tmp_path)) as (base, _process),
    ):
        room = two_seat_room(base)
        with (
            sockets(base, room["code"], [room["friend_token"]]) as (friend,),
            sockets(base, room["code"], [room["seat_token"]]) as (host,),
        ):
            until_pong(friend), until_pong(host)  # the host's arrival, told to both
            for _ in range(20):
                host.send(json.dumps({"type": "back"}))
            assert until_pong(host) == []  # all twenty done, in order, and nothing said
            assert until_pong(friend) == []


def test_a_room_keeps_only_its_last_chat_in_the_store(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    free = WebConfig(rate_per_second=1e6, rate_burst=10**6, address_rate_burst=10**6)
    said = CHAT_KEPT + 15
    with app_client(url, web=free) as client:
        room = make_room(client, game="poison-pot", players=2, seats=["open", "easy"])
        with client.websocket_connect(f"/ws/rooms/{room['code']}") as ws:
            ws.send_json({"type": "hello", "token": room["seat_token"]})
            assert ws.receive_json()["type"] == "welcome"
            for n in range(said):
                ws.send_json({"type": "chat", "text": f"m{n}"})
            last = {"type": "chat", "text": f"m{said - 1}"}
            while {k: ws.receive_json().get(k) for k in last} != last:
                pass  # the last one is told only once it is committed, after all the others
    engine = sa.create_engine(normalise_url(url))
    with engine.connect() as connection:
        texts = connection.execute(
            sa.select(chat.c.text).where(chat.c.room == room["code"]).order_by(chat.c.id)
        ).scalars()
        kept = list(texts)
    engine.dispose()
    assert kept == [f"m{n}" for n in range(said - CHAT_KEPT, said)]


def test_the_room_list_comes_a_page_at_a_time(tmp_path: Path) -> None:
    with (
        server_process(sqlite_url(tmp_path)) as (base, _process),
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        empty_health = client.get("/health").content
        made = [make_room(client, game="poison-pot", players=2)["code"] for _ in range(7)]
        first = client.get("/api/rooms", params={"limit": 3})
        assert first.headers["X-Total-Count"] == "7"
        pages = [first.json()] + [
            client.get("/api/rooms", params={"offset": offset, "limit": 3}).json()
            for offset in (3, 6)
        ]
        assert [len(p) for p in pages] == [3, 3, 1]
        assert [room["code"] for p in pages for room in p] == list(reversed(made))
        assert client.get("/api/rooms").json() == [room for p in pages for room in p]
        too_many = client.get("/api/rooms", params={"limit": 101})
        assert too_many.status_code == 422
        assert too_many.json()["error"] == "invalid_request"
        health = client.get("/health")
        assert health.json()["rooms"] == 7
        assert len(health.content) == len(empty_health)  # a count, not the list


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def listed_codes(client: Any) -> list[str]:
    return [room["code"] for room in client.get("/api/rooms").json()]


def test_idle_lobbies_and_abandoned_games_expire_and_are_not_resumed(tmp_path: Path) -> None:
    url, clock = sqlite_url(tmp_path), Clock()
    config = dataclasses.replace(FAST, clock=clock, lobby_expiry=100.0, abandoned_expiry=500.0)
    with app_client(url, config) as client:
        hub = client.app.state.hub
        lobby = make_room(client, game="poison-pot", players=2)["code"]
        playing = make_room(client, game="poison-pot", players=2, seats=["open", "easy"])
        started = client.post(f"/api/rooms/{playing['code']}/start", headers=host_headers(playing))
        assert started.status_code == 200, started.text
        clock.now += 101
        fresh = make_room(client, game="poison-pot", players=2)["code"]
        assert hub.sweep() == 1  # the idle lobby; the game is not abandoned yet
        assert sorted(listed_codes(client)) == sorted([fresh, playing["code"]])
        clock.now += 400  # past the game's expiry; the fresh lobby idle 400 s
        assert hub.sweep() == 2
        assert listed_codes(client) == []
        assert client.get(f"/api/rooms/{lobby}").status_code == 200  # its link still loads it
    clock.now += 1
    with app_client(url, config) as client:  # a restart resumes none of them
        assert listed_codes(client) == []
        assert client.app.state.hub.rooms == {}


def test_a_restart_resumes_the_lobbies_that_have_not_expired(tmp_path: Path) -> None:
    url, clock = sqlite_url(tmp_path), Clock()
    config = dataclasses.replace(FAST, clock=clock, lobby_expiry=100.0)
    with app_client(url, config) as client:
        old = make_room(client, game="poison-pot", players=2)["code"]
        clock.now += 60
        new = make_room(client, game="poison-pot", players=2)["code"]
    clock.now += 60  # the old one idle 120 s, the new one 60 s
    with app_client(url, config) as client:
        assert listed_codes(client) == [new]
        assert old not in client.app.state.hub.rooms


def test_rooms_are_capped_per_address_and_in_all(tmp_path: Path) -> None:
    clock = Clock()
    config = dataclasses.replace(FAST, clock=clock, rooms_per_address=2, lobby_expiry=100.0)
    with app_client(sqlite_url(tmp_path), config) as client:
        for _ in range(2):
            make_room(client, game="poison-pot", players=2)
        refused = client.post("/api/rooms", json={"game": "poison-pot", "players": 2})
        assert refused.status_code == 429
        assert refused.json()["error"] == "too_many_rooms"
        clock.now += 101
        client.app.state.hub.sweep()  # both expired: the address may make rooms again
        make_room(client, game="poison-pot", players=2)
    full = dataclasses.replace(FAST, max_rooms=1)
    with app_client(f"sqlite:///{tmp_path / 'full.sqlite3'}", full) as client:
        make_room(client, game="poison-pot", players=2)
        refused = client.post("/api/rooms", json={"game": "poison-pot", "players": 2})
        assert refused.status_code == 503
        assert refused.json()["error"] == "server_full"
