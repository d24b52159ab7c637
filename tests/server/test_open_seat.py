"""The host frees a seat a stranger took in the lobby (issue 28, item 7),
against a real ``apothecary serve``: the stranger's socket is closed, their
token opens nothing, and a friend can sit there."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.serving import host_headers, server_process, sqlite_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server."""
    folder: Path = tmp_path_factory.mktemp("open-seat")
    with server_process(sqlite_url(folder)) as (url, _process):
        yield url


def test_the_host_frees_a_seat_a_stranger_took(base: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as api:
        room = api.post(
            "/api/rooms",
            json={"game": "poison-pot", "players": 2, "host_name": "ann", "seats": ["open"]},
        ).json()
        code = room["code"]
        stranger = api.post(f"/api/rooms/{code}/seats", json={"name": "mallory"}).json()
        ws_url = base.replace("http", "ws", 1) + f"/ws/rooms/{code}"
        with connect(ws_url, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": stranger["token"]}))
            assert json.loads(ws.recv(10))["type"] == "welcome"
            # Only the host may free a seat.
            refused = api.delete(
                f"/api/rooms/{code}/seats/{stranger['seat']}",
                headers={"Authorization": f"Bearer {stranger['token']}"},
            )
            assert refused.status_code == 403
            freed = api.delete(
                f"/api/rooms/{code}/seats/{stranger['seat']}", headers=host_headers(room)
            )
            assert freed.status_code == 200, freed.text
            assert freed.json()["open_seats"] == [stranger["seat"]]
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(10)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 4003
        # The stranger's token opens nothing now.
        with connect(ws_url, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": stranger["token"]}))
            assert json.loads(ws.recv(10))["type"] == "error"
        friend = api.post(f"/api/rooms/{code}/seats", json={"name": "bob"})
        assert friend.status_code == 200
        assert friend.json()["seat"] == stranger["seat"]
        # Once the game runs, a seat is handed to a bot instead.
        assert api.post(f"/api/rooms/{code}/start", headers=host_headers(room)).is_success
        late = api.delete(f"/api/rooms/{code}/seats/1", headers=host_headers(room))
        assert late.status_code == 409
        assert late.json()["error"] == "conflict"
