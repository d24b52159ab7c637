"""The server's guards against one client exhausting it (issue 28, items 6
and 7), each run as the attack itself against a real ``apothecary serve``:
bodies refused while they stream, slow and many connections closed, huge
numbers in socket messages answered ``malformed``, security headers, and the
public URL's Host and Origin checks."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.support.serving import server_process, sqlite_url
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from apothecary.server.guard import CSP
from apothecary.server.replays import RECORD_LIMIT


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose connections have 1 s to send a request."""
    folder = tmp_path_factory.mktemp("guard")
    with server_process(sqlite_url(folder), "--request-timeout", "1") as (url, _process):
        yield url


def _open(base: str) -> socket.socket:
    parts = urlsplit(base)
    sock = socket.create_connection((parts.hostname or "", parts.port or 80), timeout=30)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _status_and_body(answer: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    refusal: dict[str, Any] = json.loads(body)
    return status, refusal


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(base: str) -> None:
    for path in ("/api/rooms", "/api/replays", "/api/rooms/abc/seats"):
        with _open(base) as sock:
            sock.sendall(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: 200000000\r\n\r\n".encode()
            )
            status, refusal = _status_and_body(_read_all(sock))
        assert status == 413, path
        assert refusal["error"] == "too_large"


@pytest.mark.parametrize(
    ("path", "limit"), [("/api/rooms", 65_536), ("/api/replays", RECORD_LIMIT)]
)
def test_a_chunked_body_is_cut_off_at_the_limit_while_it_streams(
    base: str, path: str, limit: int
) -> None:
    # No Content-Length to trust, and the body never ends: the running count
    # must refuse it as soon as it passes the limit.
    size = limit + 1
    with _open(base) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\n\r\n{size:x}\r\n".encode()
            + b" " * size
            + b"\r\n"
        )
        status, refusal = _status_and_body(_read_all(sock))
    assert status == 413
    assert refusal == {"error": "too_large", "message": f"the request body is over {limit} bytes"}


def test_a_body_under_the_limit_is_still_read(base: str) -> None:
    answer = httpx.post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "ann"})
    assert answer.status_code == 201, answer.text


def test_slow_headers_and_slow_bodies_are_closed(base: str) -> None:
    slow = [_open(base) for _ in range(6)]
    for index, sock in enumerate(slow):
        if index % 2:  # headers begun, never finished
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
        else:  # headers done, the body never all sent
            sock.sendall(
                b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
    for sock in slow:
        # The server closes each (recv sees the end) with nothing sent: the
        # socket's own 30 s timeout fails the test if it does not.
        assert _read_all(sock) == b""
        sock.close()
    assert httpx.get(f"{base}/health").status_code == 200


def test_connections_past_an_address_share_are_closed(tmp_path: Path) -> None:
    flags = ("--connections-per-address", "4", "--request-timeout", "60")
    with server_process(sqlite_url(tmp_path), *flags) as (url, _process):
        held = [_open(url) for _ in range(4)]
        for sock in held:  # each is surely accepted before the next one comes
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.recv(65536)
        extra = _open(url)
        extra.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _read_all(extra) == b""
        extra.close()
        held.pop().close()
        # The freed place is given to the next connection.
        with httpx.Client(base_url=url) as client:
            for _ in range(20):  # the server sees the close a moment later
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    continue
            else:
                pytest.fail("no connection was let in after one closed")
        for sock in held:
            sock.close()


def test_a_huge_number_in_a_socket_message_is_malformed_and_the_socket_stays(base: str) -> None:
    room = httpx.post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "ann"}).json()
    ws_url = base.replace("http", "ws", 1) + f"/ws/rooms/{room['code']}"
    with connect(ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": room["seat_token"]}))
        assert json.loads(ws.recv(10))["type"] == "welcome"
        ws.send('{"type": "act", "action": ' + "9" * 5000 + "}")
        while (answer := json.loads(ws.recv(10)))["type"] != "error":
            pass  # presence and the like
        assert answer["error"] == "malformed"
        ws.send(json.dumps({"type": "ping"}))
        while (message := json.loads(ws.recv(10)))["type"] != "pong":
            assert message["type"] != "error", message


def test_every_http_response_carries_the_security_headers(base: str) -> None:
    for path in ("/", "/static/app.js", "/api/rooms", "/health", "/no-such-page", "/rules"):
        headers = httpx.get(f"{base}{path}").headers
        assert headers["content-security-policy"] == CSP, path
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    refused = httpx.post(f"{base}/api/rooms", content=b"x" * 70_000)
    assert refused.status_code == 413
    assert refused.headers["x-content-type-options"] == "nosniff"


def test_a_public_url_refuses_other_hosts_and_origins(tmp_path: Path) -> None:
    public = "http://games.example.test"
    with server_process(sqlite_url(tmp_path), "--public-url", public) as (url, _process):
        # DNS rebinding: the attacker's name resolves to this server.
        rebound = httpx.get(f"{url}/api/rooms", headers={"Host": "evil.example.test"})
        assert rebound.status_code == 421
        assert rebound.json()["error"] == "bad_host"
        assert httpx.get(f"{url}/api/rooms", headers={"Host": "games.example.test"}).is_success
        assert httpx.get(f"{url}/health").is_success  # by address (health checks)
        room = httpx.post(f"{url}/api/rooms", json={"game": "poison-pot"}).json()
        ws_url = url.replace("http", "ws", 1) + f"/ws/rooms/{room['code']}"
        # The page's Origin and the Host agree (as rebinding makes them), but
        # neither is the public origin.
        parts = urlsplit(url)
        own_origin = f"http://{parts.netloc}"
        with (
            pytest.raises(InvalidStatus, match="403"),
            connect(ws_url, origin=Origin(own_origin), open_timeout=10) as ws,
        ):
            ws.send(json.dumps({"type": "hello"}))
            ws.recv(10)
        with connect(ws_url, origin=Origin(public), open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello"}))
            assert json.loads(ws.recv(10))["type"] == "welcome"
