"""Presence costs O(1) (issue 28 item 3), against a real ``apothecary serve``:
a join or a leave sends every other viewer one small ``presence`` message (never
a full update), a burst of them is told together, and a room's sockets are capped."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.serving import server_process, sqlite_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

MOST_BYTES = 160
"""The most one presence message may take: it names each seat once (at most 9)
and the spectator count, whatever the number of viewers. A full update of the
room (its seats, the observation, the facts) is several times as large."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that lets this machine's one address hold many sockets."""
    folder = tmp_path_factory.mktemp("presence")
    flags = ("--connections-per-address", "1000", "--socket-rate", "1000")
    with server_process(sqlite_url(folder), *flags) as (url, _process):
        yield url


def _room(base: str) -> dict[str, Any]:
    """A two-seat lobby: Ann (the host) in seat 0; Bob's claim of seat 1."""
    answer: dict[str, Any] = httpx.post(
        f"{base}/api/rooms", json={"game": "poison-pot", "players": 2, "host_name": "Ann"}
    ).json()
    bob = httpx.post(f"{base}/api/rooms/{answer['code']}/seats", json={"name": "Bob"}).json()
    answer["bob_token"] = bob["token"]
    return answer


def _open(base: str, code: str) -> ClientConnection:
    """A socket to the room (closed by the test)."""
    ws: ClientConnection = connect(
        base.replace("http", "ws", 1) + f"/ws/rooms/{code}", open_timeout=30
    ).__enter__()
    return ws


def _join(base: str, code: str, token: str | None) -> ClientConnection:
    """A socket that said hello and read its welcome and its first update."""
    ws = _open(base, code)
    ws.send(json.dumps({"type": "hello", "token": token}))
    assert json.loads(ws.recv(30))["type"] == "welcome"
    assert json.loads(ws.recv(30))["type"] == "update"  # a newcomer gets the whole room
    return ws


def _heard_until(ws: ClientConnection, done: Callable[[dict[str, Any]], bool]) -> list[str]:
    """Every message ``ws`` is sent up to and with the first one ``done`` says
    is the last to wait for (the marker of a state the test brought about)."""
    heard: list[str] = []
    while True:
        text = ws.recv(30)
        assert isinstance(text, str)
        heard.append(text)
        if done(json.loads(text)):
            return heard


def _spectators(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message.get("spectators") == n


def _only_small_presence(heard: list[str], most_messages: int) -> None:
    kinds = {json.loads(text)["type"] for text in heard}
    assert kinds == {"presence"}, kinds
    assert len(heard) <= most_messages, len(heard)
    assert max(len(text.encode()) for text in heard) <= MOST_BYTES, max(heard, key=len)


@pytest.mark.parametrize("viewers", [10, 80])
def test_a_burst_of_joins_and_leaves_costs_another_viewer_a_few_small_messages(
    base: str, viewers: int
) -> None:
    room = _room(base)
    ann = _join(base, room["code"], room["seat_token"])
    crowd = [_join(base, room["code"], None) for _ in range(viewers)]
    joined = _heard_until(ann, _spectators(viewers))
    for ws in crowd:
        ws.close()
    left = _heard_until(ann, _spectators(0))
    # At most one message per join or leave, each bounded whatever the crowd:
    # the bytes Ann is sent per join do not grow with the number of viewers.
    _only_small_presence(joined, viewers)
    _only_small_presence(left, viewers)
    ann.close()


def test_a_socket_that_joins_and_leaves_again_and_again_costs_small_messages(
    base: str,
) -> None:
    room = _room(base)
    ann = _join(base, room["code"], room["seat_token"])
    cycles = 40
    for _ in range(cycles):
        _join(base, room["code"], None).close()
    bob = _join(base, room["code"], room["bob_token"])  # the marker: seat 1 connects last
    heard = _heard_until(ann, lambda message: message.get("connected") == [True, True])
    _only_small_presence(heard, 2 * cycles + 1)
    assert set(json.loads(heard[-1])) == {"type", "room", "connected", "spectators"}
    bob.close()
    heard = _heard_until(ann, lambda message: message.get("connected") == [True, False])
    _only_small_presence(heard, 2)  # the last spectator's leave may be told after Bob's join
    ann.close()


def test_a_reconnecting_socket_gets_the_whole_room(base: str) -> None:
    room = _room(base)
    ann = _join(base, room["code"], room["seat_token"])
    bob = _join(base, room["code"], room["bob_token"])
    _heard_until(ann, lambda message: message.get("connected") == [True, True])
    bob.close()
    ws = _open(base, room["code"])
    ws.send(json.dumps({"type": "hello", "token": room["bob_token"]}))
    assert json.loads(ws.recv(30))["type"] == "welcome"
    update = json.loads(ws.recv(30))
    assert update["type"] == "update"
    assert [place["name"] for place in update["seats"]] == ["Ann", "Bob"]
    assert [place["connected"] for place in update["seats"]] == [True, True]
    ws.close()
    ann.close()


def test_a_room_past_its_sockets_is_refused_with_room_full(tmp_path: Path) -> None:
    flags = ("--sockets-per-room", "3", "--connections-per-address", "100")
    with server_process(sqlite_url(tmp_path), *flags) as (url, _process):
        room = _room(url)
        held = [_join(url, room["code"], None) for _ in range(3)]
        extra = _open(url, room["code"])
        extra.send(json.dumps({"type": "hello", "token": room["seat_token"]}))
        refusal = json.loads(extra.recv(30))
        assert refusal["type"] == "error" and refusal["error"] == "room_full", refusal
        with pytest.raises(ConnectionClosed) as closed:
            extra.recv(30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        # Another room is not full.
        other = _room(url)
        _join(url, other["code"], None).close()
        # A place freed is given to the next socket (the server hears the close a moment later).
        held.pop().close()
        for _ in range(50):
            ws = _open(url, room["code"])
            ws.send(json.dumps({"type": "hello", "token": None}))
            if json.loads(ws.recv(30))["type"] == "welcome":
                ws.close()
                break
            ws.close()
        else:
            pytest.fail("no socket was let into the room after one closed")
        for ws in held:
            ws.close()
