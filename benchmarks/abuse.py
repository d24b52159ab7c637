"""Attacks of issue 28 against a real ``apothecary serve`` on loopback, while
a victim room is measured: its /health time, its socket round trip (a chat to
its own table and back) and the server's memory, each as a ratio to a
baseline measured without the attack. Every attack is bounded (a size and a
duration) and stops by itself; the server is killed at the end.

    .venv/bin/python benchmarks/abuse.py --quick
    .venv/bin/python benchmarks/abuse.py --size 4 --seconds 20 --json

Not yet here (see docs/performance.md): record uploads with step views, and
the victim's bot answer and hint times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

ATTACKER = "127.0.0.2"
"""The attacks' source address (all of 127/8 is loopback on Linux): the
server's per-address limits then hold the attacker, not the victim."""


def _client() -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=ATTACKER), timeout=10)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Victim:
    """A room whose host measures the server."""

    def __init__(self, base: str) -> None:
        self.base = base
        room = httpx.post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "v"})
        room.raise_for_status()
        self.room = room.json()
        url = base.replace("http", "ws", 1) + f"/ws/rooms/{self.room['code']}"
        self.ws: ClientConnection = connect(url, open_timeout=30).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": self.room["seat_token"]}))
        self.ws.recv(30)

    def health_ms(self) -> float:
        """One /health, in milliseconds."""
        start = time.perf_counter()
        try:
            httpx.get(f"{self.base}/health", timeout=60)
        except httpx.HTTPError:
            return float("nan")  # refused: shows in the figures as nan
        return (time.perf_counter() - start) * 1000

    def round_trip_ms(self) -> float:
        """A chat to the victim's own table until it comes back, in milliseconds."""
        start = time.perf_counter()
        self.ws.send(json.dumps({"type": "chat", "text": "ping"}))
        while json.loads(self.ws.recv(60)).get("type") != "chat":
            pass
        return (time.perf_counter() - start) * 1000

    def measure(self, pid: int, samples: int) -> dict[str, float]:
        """Medians of ``samples`` of each figure (spaced under the chat limit)."""
        health, trip = [], []
        for _ in range(samples):
            health.append(self.health_ms())
            trip.append(self.round_trip_ms())
            time.sleep(0.15)
        return {
            "health_ms": statistics.median(health),
            "round_trip_ms": statistics.median(trip),
            "rss_mb": _rss_mb(pid),
        }


# -- the attacks: each runs until ``stop`` is set, bounded by ``size`` -------------------


def big_body(base: str, size: int, stop: threading.Event) -> None:
    """A streamed body of 20 MB x size to /api/rooms, again and again."""

    def body() -> Iterator[bytes]:
        for _ in range(20 * size):
            if stop.is_set():
                return
            yield b" " * (1 << 20)

    with _client() as client:
        while not stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                client.post(f"{base}/api/rooms", content=body())


def slowloris(base: str, size: int, stop: threading.Event) -> None:
    """200 x size connections trickling their headers."""
    port = int(base.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    while not stop.is_set():
        while len(held) < 200 * size and not stop.is_set():
            try:
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=1, source_address=(ATTACKER, 0)
                )
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                held.append(sock)
            except OSError:
                break
        for sock in list(held):
            try:
                sock.sendall(b"X-a: b\r\n")
            except OSError:
                held.remove(sock)
                sock.close()
        stop.wait(0.5)
    for sock in held:
        sock.close()


def _sockets(base: str, code: str, token: str | None, count: int) -> list[ClientConnection]:
    url = base.replace("http", "ws", 1) + f"/ws/rooms/{code}"
    opened = []
    for _ in range(count):
        try:
            ws = connect(url, open_timeout=5, source_address=(ATTACKER, 0)).__enter__()
            ws.send(json.dumps({"type": "hello", "token": token}))
            opened.append(ws)
        except Exception:
            break
    return opened


def big_numbers(base: str, size: int, stop: threading.Event) -> None:
    """10 x size sockets sending messages with a 5,000-digit number."""
    room = _client().post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "a"}).json()
    opened = _sockets(base, room["code"], room["seat_token"], 10 * size)
    message = '{"type": "act", "action": ' + "9" * 5000 + "}"
    _flood(opened, message, 0.2, stop)


def _flood(opened: list[Any], message: str, pause: float, stop: threading.Event) -> None:
    """Send ``message`` on every socket every ``pause`` seconds until ``stop``;
    a socket the server closed is dropped. Then close the rest."""
    while not stop.is_set():
        for ws in list(opened):  # a copy: sockets the server closed leave the list
            try:
                ws.send(message)
            except Exception:
                opened.remove(ws)
        stop.wait(pause)
    for ws in opened:
        ws.close()


def seat_chat(base: str, size: int, stop: threading.Event) -> None:
    """20 x size sockets of one seat, each chatting at its socket's limit."""
    room = _client().post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "a"}).json()
    opened = _sockets(base, room["code"], room["seat_token"], 20 * size)
    _flood(opened, json.dumps({"type": "chat", "text": "x" * 400}), 0.1, stop)


def many_joins(base: str, size: int, stop: threading.Event) -> None:
    """Spectators joining and leaving one room, 50 x size at a time."""
    room = _client().post(f"{base}/api/rooms", json={"game": "poison-pot", "host_name": "a"}).json()
    while not stop.is_set():
        for ws in _sockets(base, room["code"], None, 50 * size):
            ws.close()


def many_lobbies(base: str, size: int, stop: threading.Event) -> None:
    """Listed rooms created as fast as the server allows, and the list read."""
    made = 0
    with _client() as client:
        while not stop.is_set() and made < 1000 * size:
            answer = client.post(f"{base}/api/rooms", json={"game": "poison-pot", "listed": True})
            made += answer.status_code == 201
            client.get(f"{base}/api/rooms")


def bot_heavy_room(base: str, size: int, stop: threading.Event) -> None:
    """``size`` rooms of three ``rollout`` bots on the largest Poison Pot board, a
    series to 99, each watched by one spectator (a room nobody watches pauses)."""
    watching = []
    with _client() as client:
        for _ in range(size):
            body = {"game": "poison-pot", "players": 3, "options": {"radius": 4}}
            body |= {"seats": ["rollout"] * 3, "match_target": 99}
            room = client.post(f"{base}/api/rooms", json=body).json()
            headers = {"Authorization": f"Bearer {room['host_token']}"}
            client.post(f"{base}/api/rooms/{room['code']}/start", headers=headers)
            watching += _sockets(base, room["code"], None, 1)
    stop.wait()
    for ws in watching:
        ws.close()


def many_hints(base: str, size: int, stop: threading.Event) -> None:
    """20 x size hints at once from one seat of a Little Drop of Poison room (an
    LDoP hint thinks 31-86 s), asked again as each answers."""
    with _client() as client:
        body = {"game": "little-drop-of-poison", "players": 4, "host_name": "a", "hints": True}
        room = client.post(f"{base}/api/rooms", json={**body, "seats": ["open"] + ["easy"] * 3})
        room = room.json()
        opened = _sockets(base, room["code"], room["seat_token"], 1)
        headers = {"Authorization": f"Bearer {room['host_token']}"}
        client.post(f"{base}/api/rooms/{room['code']}/start", headers=headers)
    mine = {"Authorization": f"Bearer {room['seat_token']}"}

    def ask() -> None:
        with _client() as asker:
            while not stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    answer = asker.post(f"{base}/api/rooms/{room['code']}/hint", headers=mine)
                    if answer.status_code != 200:
                        stop.wait(0.5)  # not our turn, or refused: ask again soon

    askers = [threading.Thread(target=ask, daemon=True) for _ in range(20 * size)]
    for asker in askers:
        asker.start()
    stop.wait()
    for asker in askers:
        asker.join(70)
    for ws in opened:
        ws.close()


ATTACKS: dict[str, Callable[[str, int, threading.Event], None]] = {
    "big_body": big_body,
    "slowloris": slowloris,
    "big_numbers": big_numbers,
    "seat_chat": seat_chat,
    "many_joins": many_joins,
    "many_lobbies": many_lobbies,
    "bot_heavy_room": bot_heavy_room,
    "many_hints": many_hints,
}


def _serve(port: int, folder: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "apothecary.cli",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{folder}/abuse.sqlite3",
        "--log-level",
        "error",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).is_success:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def main() -> None:
    """Run the attacks one after another; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4, help="how big each attack is")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each runs")
    parser.add_argument("--quick", action="store_true", help="size 1, 4 s each")
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS))
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    size, seconds = (1, 4.0) if args.quick else (args.size, args.seconds)
    samples = 5 if args.quick else 15
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    results: dict[str, Any] = {"size": size, "seconds": seconds}
    with tempfile.TemporaryDirectory() as folder:
        process = _serve(port, folder)
        try:
            victim = Victim(base)
            baseline = victim.measure(process.pid, samples)
            results["baseline"] = baseline
            for name in args.attack or list(ATTACKS):
                stop = threading.Event()
                attacker = threading.Thread(target=ATTACKS[name], args=(base, size, stop))
                attacker.start()
                time.sleep(min(2.0, seconds / 2))  # let it build up
                during = victim.measure(process.pid, samples)
                stop.wait(max(0.0, seconds - 2.0))
                stop.set()
                attacker.join(60)
                ratios = {k: round(during[k] / baseline[k], 2) for k in baseline if baseline[k]}
                results[name] = {"during": during, "ratio": ratios}
                if not args.json:
                    print(f"{name:13} " + "  ".join(f"{k} x{v}" for k, v in ratios.items()))
        finally:
            process.kill()
            process.wait(10)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print("baseline     " + "  ".join(f"{k} {v:.1f}" for k, v in results["baseline"].items()))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
