"""In a cluster, the host freeing a lobby seat closes every socket of that seat,
those relayed through another process too (two ``apothecary serve --redis``
processes over one PostgreSQL and one Redis)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from serving import cluster_flags, host_headers, make_room, server_process
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


@pytest.fixture
def pair(postgres_db_url: str, redis_url: str) -> Iterator[tuple[str, str]]:
    """Two server processes sharing one database and one Redis: their base URLs
    (leases of 10 s, so a loaded machine does not move the room meanwhile)."""
    flags = cluster_flags(redis_url, f"t{secrets.token_hex(4)}", lease=10.0)
    with (
        server_process(postgres_db_url, *flags) as (a, _),
        server_process(postgres_db_url, *flags) as (b, _),
    ):
        yield a, b


def joined(stack: ExitStack, base: str, code: str, token: str | None) -> ClientConnection:
    """A socket of ``code`` on the process at ``base``, past its welcome."""
    url = base.replace("http://", "ws://") + f"/ws/rooms/{code}"
    ws = stack.enter_context(connect(url, open_timeout=10))
    ws.send(json.dumps({"type": "hello", "token": token}))
    while (message := json.loads(ws.recv(timeout=10)))["type"] != "welcome":
        assert message["type"] != "error", message
    return ws


def close_code(ws: ClientConnection) -> int | None:
    """How the server closed ``ws`` (read until it does)."""
    try:
        while True:
            ws.recv(timeout=15)
    except ConnectionClosed as closed:
        return None if closed.rcvd is None else closed.rcvd.code


def test_freeing_a_seat_closes_its_sockets_on_every_process(pair: tuple[str, str]) -> None:
    holder, other = pair
    with httpx.Client(base_url=holder, timeout=15) as client:
        room = make_room(client, game="poison-pot", players=2, seats=["open", "open"])
        code = room["code"]
        claimed = client.post(f"/api/rooms/{code}/seats", json={"name": "Stranger"})
        assert claimed.status_code in (200, 201), claimed.text
        token = claimed.json()["token"]
    with ExitStack() as stack:
        # The seat's sockets on both processes: one of them is relayed to the holder.
        here, relayed = joined(stack, holder, code, token), joined(stack, other, code, token)
        host = joined(stack, other, code, room["seat_token"])
        with httpx.Client(base_url=other, timeout=15) as client:
            freed = client.delete(f"/api/rooms/{code}/seats/1", headers=host_headers(room))
            assert freed.status_code == 200, freed.text
            assert freed.json()["seats"][1]["kind"] == "open"
        assert close_code(here) == 4003
        assert close_code(relayed) == 4003
        # The host's own socket stays open.
        host.send(json.dumps({"type": "ping"}))
        while json.loads(host.recv(timeout=10))["type"] != "pong":
            pass
        # The dead token opens nothing on either process now.
        for base in (holder, other):
            url = base.replace("http://", "ws://") + f"/ws/rooms/{code}"
            with connect(url, open_timeout=10) as ws:
                ws.send(json.dumps({"type": "hello", "token": token}))
                assert json.loads(ws.recv(timeout=10))["error"] == "forbidden"
