"""Attacks of issue 28 against a real ``apothecary serve`` on loopback, while
a victim room is measured: its /health time, its socket round trip (a chat to
its own table and back), its bot's answer to a move (an ``easy`` bot, the
server's bot delay set to 0), a hint on its turn, and the server's memory,
each as a ratio to a baseline measured without the attack. Every attack is
bounded (a size and a duration) and stops by itself; the server is killed at
the end. The attacks ask what the API allows and count what the server
refuses, so they run against whatever limits the server has.

    .venv/bin/python benchmarks/abuse.py --quick
    .venv/bin/python benchmarks/abuse.py --size 4 --seconds 20 --json
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
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

ATTACKER = "127.0.0.2"
"""The attacks' source address (all of 127/8 is loopback on Linux): the
server's per-address limits then hold the attacker, not the victim."""


HINT_WAIT = 120.0
"""Seconds the victim waits for a hint or its bot's answer; one not given by
then counts as this long, so the figure is a lower bound (``--quick``: 30)."""

REFUSED: dict[str, int] = {}
"""HTTP statuses and socket errors the attacks were answered with, by attack and answer."""


def _client(timeout: float = 10) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=ATTACKER), timeout=timeout)


def _count(attack: str, answer: object) -> None:
    key = f"{attack}:{answer}"
    REFUSED[key] = REFUSED.get(key, 0) + 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_mb(pid: int) -> float:
    """The resident memory of ``pid`` and every process below it (the server's
    bot, hint and replay workers think and keep games in processes of their own)."""
    total = 0.0
    for one in [pid, *_below(pid)]:
        try:
            with open(f"/proc/{one}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
        except OSError:  # it ended just now
            continue
    return total


def _below(pid: int) -> list[int]:
    """Every live process below ``pid``, read from /proc (Linux)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    text = stat.read()
            except OSError:
                continue
            parents[int(entry)] = int(text[text.rindex(")") + 2 :].split()[1])
    found, below = [], [pid]
    while below:
        parent = below.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        below += children
    return found


class Victim:
    """A room whose host measures the server: Poison Pot against an ``easy`` bot,
    with hints on; a new room when a game ends."""

    def __init__(self, base: str, hint_wait: float = HINT_WAIT) -> None:
        self.base = base
        self.hint_wait = hint_wait
        self.last: dict[str, Any] = {}
        self._new_room()

    def _new_room(self) -> None:
        body = {
            "game": "poison-pot",
            "players": 2,
            "seats": ["open", "easy"],
            "host_name": "v",
            "hints": True,
            "listed": False,
        }
        room = httpx.post(f"{self.base}/api/rooms", json=body, timeout=60)
        room.raise_for_status()
        self.room = room.json()
        url = self.base.replace("http", "ws", 1) + f"/ws/rooms/{self.room['code']}"
        self.ws: ClientConnection = connect(url, open_timeout=60).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": self.room["seat_token"]}))
        self.ws.recv(60)
        headers = {"Authorization": f"Bearer {self.room['host_token']}"}
        code = self.room["code"]
        httpx.post(f"{self.base}/api/rooms/{code}/start", headers=headers, timeout=60)

    def _message(self) -> dict[str, Any]:
        """The next message (an update is kept as the last)."""
        message: dict[str, Any] = json.loads(self.ws.recv(self.hint_wait))
        if message.get("type") == "update":
            self.last = message
        return message

    def _my_turn(self) -> None:
        """Wait for the victim's turn (a new room once a game is over, or when
        its bot does not answer in time)."""
        while not self.last.get("legal"):
            if self.last.get("status") == "over":
                self.ws.close()
                self.last = {}
                self._new_room()
            try:
                self._message()
            except (TimeoutError, ConnectionClosed):
                self.last = {"status": "over"}

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
        try:
            while self._message().get("type") != "chat":
                pass
        except (TimeoutError, ConnectionClosed):
            self.last = {"status": "over"}
            return self.hint_wait * 1000
        return (time.perf_counter() - start) * 1000

    def bot_ms(self) -> float:
        """A move, until the bot has answered it and it is the victim's turn again."""
        for _ in range(5):  # a move that does not pass the turn is not a bot's answer
            self._my_turn()
            move = self.last["legal"][0]["id"]
            start = time.perf_counter()
            self.ws.send(
                json.dumps({"type": "act", "action": move, "state_id": self.last["state_id"]})
            )
            bot = False
            self.last = {**self.last, "legal": []}
            while not self.last.get("legal") and self.last.get("status") != "over":
                try:
                    message = self._message()
                except (TimeoutError, ConnectionClosed):  # no answer in time: at least this long
                    self.last = {"status": "over"}
                    return self.hint_wait * 1000
                bot = bot or message.get("waiting_for") == "bot"
                if message.get("type") == "error":
                    break
            if bot:
                return (time.perf_counter() - start) * 1000
        return float("nan")

    def hint_ms(self) -> float:
        """A hint on the victim's turn; one refused is nan, one not given in
        ``hint_wait`` seconds counts as that long."""
        self._my_turn()
        headers = {"Authorization": f"Bearer {self.room['seat_token']}"}
        start = time.perf_counter()
        try:
            answer = httpx.post(
                f"{self.base}/api/rooms/{self.room['code']}/hint",
                headers=headers,
                timeout=self.hint_wait,
            )
        except httpx.TimeoutException:
            return self.hint_wait * 1000
        except httpx.HTTPError:
            return float("nan")
        return (time.perf_counter() - start) * 1000 if answer.is_success else float("nan")

    def measure(self, pid: int, samples: int) -> dict[str, float]:
        """Medians of ``samples`` of each figure (spaced under the chat limit);
        fewer of the bot's answer and of hints, which take longer."""
        health, trip, bot, hint = [], [], [], []
        for index in range(samples):
            health.append(self.health_ms())
            trip.append(self.round_trip_ms())
            if index % 2 == 0:
                bot.append(self.bot_ms())
            if index % 3 == 0:
                hint.append(self.hint_ms())
            time.sleep(0.15)
        return {
            "health_ms": statistics.median(health),
            "round_trip_ms": statistics.median(trip),
            "bot_ms": statistics.median(bot),
            "hint_ms": statistics.median(hint),
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


def _long_records() -> Iterator[tuple[str, int]]:
    """Legal finished Little Drop of Poison records at 8 seats, longest first:
    each as its JSON and its number of actions, none past the server's
    ``RECORD_ACTIONS`` (a longer one is refused before it costs anything)."""
    import random

    from apothecary import Record, load
    from apothecary.arena.match import play_game
    from apothecary.core.bot import RandomBot
    from apothecary.server.replays import RECORD_ACTIONS

    # Within the room bounds (target 100, 100 assassination rounds): a server
    # refuses a record past them (game_too_long) before replaying any of it.
    for rounds in (100, 80, 60, 40, 20, 10):
        game = load("little-drop-of-poison", 8, target=100, max_assassination_rounds=rounds)
        bots = [RandomBot(game, seat, seed=seat) for seat in range(8)]
        state = play_game(game, bots, random.Random(rounds))
        if len(state.history()) <= RECORD_ACTIONS:
            yield Record.from_state(state).dumps(), len(state.history())


def record_upload(base: str, size: int, stop: threading.Event) -> None:
    """Long legal records uploaded (as often as the server lets one address),
    and 8 x size step views of them at once, again and again; a record the
    server refuses, the next shorter one."""
    records = _long_records()
    record, actions = next(records)
    links: list[str] = []
    with _client(60) as client, ThreadPoolExecutor(8 * size) as views:
        while not stop.is_set():
            answer = client.post(f"{base}/api/replays", content=record)
            _count("record_upload", answer.status_code)
            if answer.is_success:
                links.append(f"{base}/api/replays/{answer.json()['code']}/1")
            elif answer.status_code in (400, 413):  # too long for this server
                record, actions = next(records, (record, actions))
            if not links:
                stop.wait(1)
                continue
            steps = [
                f"{links[n % len(links)]}/steps/{actions * (n + 1) // (8 * size + 1)}?view=all"
                for n in range(8 * size)
            ]
            for status in views.map(lambda url: _status(client, url), steps):
                _count("record_upload", f"step {status}")


def _status(client: httpx.Client, url: str) -> object:
    try:
        return client.get(url).status_code
    except httpx.HTTPError as error:
        return type(error).__name__


BOT_ROOMS = (
    {"game": "poison-pot", "options": {"radius": 4}, "players": 3, "seats": ["rollout"] * 3},
    {"game": "little-drop-of-poison", "players": 8, "seats": ["ismcts"] * 8},
    {"game": "poison-pot", "players": 3, "seats": ["rollout"] * 3},
)
"""Rooms of slow named bots, the slowest first (a server may refuse some)."""


def bot_heavy_room(base: str, size: int, stop: threading.Event) -> None:
    """size rooms of slow named bots in a long series, nobody seated, started,
    each watched by one spectator (a room nobody is connected to pauses)."""
    watching = []
    with _client(60) as client:
        for _ in range(size):
            for room in BOT_ROOMS:
                answer = client.post(f"{base}/api/rooms", json={**room, "match_target": 99})
                _count("bot_heavy_room", answer.status_code)
                if answer.is_success:
                    made = answer.json()
                    headers = {"Authorization": f"Bearer {made['host_token']}"}
                    started = client.post(f"{base}/api/rooms/{made['code']}/start", headers=headers)
                    _count("bot_heavy_room", f"start {started.status_code}")
                    watching += _sockets(base, made["code"], None, 1)
                    break
    stop.wait()
    for ws in watching:
        ws.close()


def many_hints(base: str, size: int, stop: threading.Event) -> None:
    """20 x size hints in flight at once from one seat, on its turn, again and again."""
    body = {
        "game": "little-drop-of-poison",
        "players": 4,
        "seats": ["open", "easy", "easy", "easy"],
        "host_name": "a",
        "hints": True,
    }
    with _client(60) as client:
        room = client.post(f"{base}/api/rooms", json=body).json()
        code, token = room["code"], room["seat_token"]
        client.post(
            f"{base}/api/rooms/{code}/start",
            headers={"Authorization": f"Bearer {room['host_token']}"},
        )
    ws = _sockets(base, code, token, 1)
    with contextlib.suppress(Exception):  # wait (a while at most) for the seat's turn
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not json.loads(ws[0].recv(20)).get("legal"):
            pass

    def ask() -> None:
        with _client(HINT_WAIT) as client:
            while not stop.is_set():
                try:
                    answer = client.post(
                        f"{base}/api/rooms/{code}/hint",
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    _count("many_hints", answer.status_code)
                    if not answer.is_success:
                        stop.wait(0.2)
                except httpx.HTTPError as error:
                    _count("many_hints", type(error).__name__)

    askers = [threading.Thread(target=ask, daemon=True) for _ in range(20 * size)]
    for asker in askers:
        asker.start()
    stop.wait()
    for w in ws:
        w.close()


ATTACKS: dict[str, Callable[[str, int, threading.Event], None]] = {
    "big_body": big_body,
    "slowloris": slowloris,
    "big_numbers": big_numbers,
    "seat_chat": seat_chat,
    "many_joins": many_joins,
    "many_lobbies": many_lobbies,
    "record_upload": record_upload,
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
        "--bot-delay",
        "0",  # the victim's bot figure is its thinking and the server's, not a pause
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


def _measured(
    name: str | None, size: int, seconds: float, samples: int, quick: bool
) -> dict[str, float]:
    """The victim's figures on a fresh server, during attack ``name`` (None: the
    baseline). Each attack has a server of its own: what one leaves running (a
    bot room playing on, hints queued, records cached) never weighs on the next."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        process = _serve(port, folder)
        try:
            victim = Victim(base, 30.0 if quick else HINT_WAIT)
            if name is None:
                return victim.measure(process.pid, samples)
            stop = threading.Event()
            attacker = threading.Thread(target=ATTACKS[name], args=(base, size, stop), daemon=True)
            attacker.start()
            time.sleep(min(2.0, seconds / 2))  # let it build up
            during = victim.measure(process.pid, samples)
            stop.wait(max(0.0, seconds - 2.0))
            stop.set()
            attacker.join(60)
            return during
        finally:
            process.kill()
            process.wait(10)


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
    results: dict[str, Any] = {"size": size, "seconds": seconds}
    baseline = results["baseline"] = _measured(None, size, seconds, samples, args.quick)
    if not args.json:
        print("baseline       " + "  ".join(f"{k} {v:.1f}" for k, v in baseline.items()))
    for name in args.attack or list(ATTACKS):
        during = _measured(name, size, seconds, samples, args.quick)
        ratios = {k: round(during[k] / baseline[k], 2) for k in baseline if baseline[k]}
        results[name] = {"during": during, "ratio": ratios}
        if not args.json:
            print(f"{name:14} " + "  ".join(f"{k} x{v}" for k, v in ratios.items()))
    results["answers"] = REFUSED
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print("answers        " + "  ".join(f"{k} {v}" for k, v in sorted(REFUSED.items())))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
