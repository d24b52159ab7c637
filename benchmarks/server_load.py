"""Load on the game server: many concurrent rooms played by scripted WebSocket clients.

    python benchmarks/server_load.py [--rooms 500] [--duration 60] [--bots-half]
        [--think-min 0.5] [--think-max 2.0] [--client-processes 1] [--json FILE]

It starts ``apothecary serve`` as a subprocess on a loopback port (a fresh
SQLite file in a temporary folder unless ``--db`` says otherwise), then
creates rooms gradually (``--ramp-rate`` a second), each with one socket per
human seat, and plays them: a seat told it is to move waits a think time
(uniform in ``--think-min``..``--think-max``) and sends a random legal
action; when a game ends the host asks for a rematch after a think time, so
every room stays active for the whole run. With ``--bots-half`` half the
seats are bots (``--bot-level``, the server started with ``--bot-delay 0``).

Measured over a window of ``--duration`` seconds that opens once every room
has been set up (or ``--ramp-timeout`` has passed):

* rooms held: set up by the window's start and still playing at its end;
* actions a second: the clients' own (human) actions, and every change of
  state the clients saw (bots' moves included);
* latency: from a client sending an action to the moment every human seat
  of its room has received the update with the new state id (p50/p90/p99/max,
  humans' actions only, so bots' thinking is never in it);
* the server's memory: its RSS (from /proc) before any room and at the
  window's end, and the difference divided by the rooms held;
* CPU: the server's, its bot workers' and the clients', as a share of one
  core, and what every other process on the machine used meanwhile;
* two lags that tell where a slow latency comes from: a spectator socket's
  ping round trip (the server's event loop alone: a ping touches no room and
  no database) and how late the client's own 50 ms sleeps wake.

The clients run in this process (or in ``--client-processes`` processes) on
the same machine, so they compete with the server for its cores: the
latencies include the time a client takes to notice its message.

A socket belongs to a person. A server that leaves a socket on its old seat
number when a rematch moves everyone one seat on shows that socket another
person's seat; the client notices (the seat's name is not its own), opens a
new socket with its token and counts it (``reconnects_after_rematch``).

``--server-prelude CODE`` runs Python in the server's interpreter before it
starts (e.g. ``import gc; gc.set_threshold(50000, 20, 10)``), to try a
setting without editing the server; ``--py-spy FILE`` samples the server
over the window (collapsed stacks per thread). ``--quiet-load`` first waits
for the machine to be idle, since other processes' CPU shows in every figure.

The server refuses more than 30 room creations a minute from one address
(``WebConfig.create_per_minute``). Loopback is the whole 127.0.0.0/8 network
on Linux, so the clients create rooms from ``--per-address`` rooms per
source address 127.0.0.2, 127.0.0.3, ..., as that many people would; a
refusal is retried a few times and counted.

``--processes 1,2`` runs the whole measurement once per process count, side
by side in one run, on a throwaway PostgreSQL server and (for more than
one) a throwaway Redis, started as the tests start theirs
(tests/support/services.py): one process is ``serve --db POSTGRES`` alone,
N processes are N ``serve --redis`` processes on N ports sharing the
database and Redis (what ``--workers N`` runs, with ports of their own so
the clients know which process holds each room). Room k is created on
process k mod N, which holds it, and its seat p connects to process
(k div N + p) mod N, so with two processes half the sockets of a room, and
every seat in half the rooms, are relayed through the other process; the
latency of an action sent through a relayed socket (a request to the
holder, and the holder's updates relayed back) is reported apart:
the cost of a cross-process hop. ``--rooms`` may be a list too (``200,400``):
every count is run for every process count.

Bounded: every phase has a deadline; the whole run ends by ramp-timeout +
duration + a margin (a watchdog kills the server and the clients after
that), every socket is closed, and the server is terminated.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

CLOSE_TIMEOUT = 15.0
"""Seconds the clients have to close their sockets at the end."""
MARGIN = 60.0
"""Seconds past the planned end after which the watchdog kills everything."""
CREATE_RETRIES = 4


# -- the server process ------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(
    args: argparse.Namespace, db_url: str, log: Path, port: int, extra: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    launcher = ["-m", "apothecary.cli"]
    if args.server_prelude:
        # An experiment on the server's interpreter (switch interval, GC) without editing it.
        launcher = [
            "-c",
            f"{args.server_prelude}\nimport runpy, sys\nsys.argv[0] = 'apothecary'\n"
            "runpy.run_module('apothecary.cli', run_name='__main__', alter_sys=True)",
        ]
    command = [
        sys.executable,
        *launcher,
        "serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--workers-for-bots",
        str(args.workers_for_bots),
        "--bot-delay",
        str(args.bot_delay),
        "--allow-seed",
        "--log-level",
        "warning",
        # Every socket comes from this machine: the per-address shares that keep
        # one stranger from taking a public server (docs/server.md) would make
        # this a test of those limits, not of the server's throughput.
        *("--connections-per-address", "1000000", "--rooms-per-address", "1000000"),
        *("--max-rooms", "1000000", "--socket-rate", "10000"),
        *extra,
    ]
    with open(log, "ab") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


def wait_healthy(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}:\n{log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise SystemExit("the server did not answer /health within 60 s")
        time.sleep(0.1)


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def rss_bytes(pid: int) -> int:
    """The resident set of a process (VmRSS), 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (its own threads), 0 if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid: int) -> list[int]:
    """A process's children (the bot workers of the server)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(p) for p in (task / "children").read_text().split()]
    return found


@dataclass
class Sample:
    at: float
    rss: int
    cpu: float
    children_rss: int
    children_cpu: float
    load: tuple[float, float, float]
    machine_busy: float
    """CPU seconds the whole machine has spent busy (all cores, from /proc/stat)."""


def machine_busy_seconds() -> float:
    with contextlib.suppress(OSError, ValueError, IndexError):
        ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        idle = ticks[3] + ticks[4]  # idle, iowait
        return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")
    return 0.0


def sample(pids: list[int]) -> Sample:
    """The server processes' figures, summed (and their bot workers')."""
    kids = [k for pid in pids for k in child_pids(pid)]
    return Sample(
        time.monotonic(),
        sum(rss_bytes(pid) for pid in pids),
        sum(cpu_seconds(pid) for pid in pids),
        sum(rss_bytes(k) for k in kids),
        sum(cpu_seconds(k) for k in kids),
        os.getloadavg(),
        machine_busy_seconds(),
    )


# -- the clients -----------------------------------------------------------------------------


@dataclass
class Plan:
    """What every client process needs to know (plain data, so it pickles)."""

    base: str
    game: str
    players: int
    humans: int
    bot_level: str
    think_min: float
    think_max: float
    ramp_rate: float
    per_address: int
    start: float
    window_start: float
    window_end: float
    hard_stop: float
    seed: int
    compression: bool
    bases: tuple[str, ...] = ()
    """Every server process (room k is held by process k mod N); empty: ``base``."""


@dataclass
class Stats:
    """One client process's counts over the window."""

    latencies: list[float] = field(default_factory=list)
    hop_latencies: list[float] = field(default_factory=list)
    """The actions among ``latencies`` sent through a socket on a process that
    does not hold the room (relayed to the holder)."""
    home_latencies: list[float] = field(default_factory=list)
    """The others: sent through a socket on the process holding the room."""
    actions: int = 0
    """Actions the clients sent in the window."""
    state_changes: int = 0
    """New state ids the rooms saw in the window (bots' moves included)."""
    messages: int = 0
    """Messages the clients received in the window."""
    rematches: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    setup_failures: Counter[str] = field(default_factory=Counter)
    create_refusals: int = 0
    closed_by_server: int = 0
    rooms_set_up_by_window: int = 0
    rooms_held: int = 0
    rooms_set_up: int = 0
    setup_seconds: list[float] = field(default_factory=list)
    cpu: float = 0.0
    """This process's CPU seconds over the window."""
    late_setups: int = 0
    reconnects: int = 0
    """Sockets opened again because a rematch moved their person to another seat."""
    untimed: int = 0
    lags: list[float] = field(default_factory=list)
    """How late a client's 50 ms sleeps woke (its own event loop's lag)."""
    pings: list[float] = field(default_factory=list)
    """Round trips of a spectator's pings (the event loop's lag, no database in it)."""
    """Actions not timed because a socket of the room was being replaced."""


def _state(state_id: str) -> tuple[int, int]:
    game, step = state_id.split(":")
    return int(game), int(step)


def in_window(plan: Plan, at: float) -> bool:
    return plan.window_start <= at < plan.window_end


class RoomDriver:
    """One room: its sockets, its outstanding action, its rematches."""

    def __init__(self, index: int, plan: Plan, stats: Stats, http: httpx.AsyncClient) -> None:
        self.index, self.plan, self.stats, self.http = index, plan, stats, http
        self.rng = random.Random(plan.seed * 1_000_003 + index)
        self.code = ""
        self.host_token = ""
        self.sockets: dict[int, ClientConnection] = {}
        self.latest: tuple[int, int] = (0, 0)
        self.outstanding: tuple[tuple[int, int], float, set[int]] | None = None
        self.acted: dict[int, str] = {}
        self.rematched: set[int] = set()
        self.tokens: dict[int, str] = {}
        self.names = {person: f"seat {person}" for person in range(plan.humans)}
        self.replacing: set[int] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.readers: list[asyncio.Task[None]] = []
        self.ready_at: float | None = None
        self.failed = False
        self.stopping = False
        self.bases = plan.bases or (plan.base,)
        self.home = self.bases[index % len(self.bases)]
        """The process the room is created on, which holds it."""
        self.sender = -1
        self.relayed = {p for p in range(plan.humans) if self.where(p) != self.home}
        """The people whose sockets reach another process, which relays them."""

    def where(self, person: int) -> str:
        """The process ``person``'s socket connects to."""
        count = len(self.bases)
        return self.bases[(self.index // count + person) % count]

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def create(self) -> None:
        """Create the room (from this room's source address), retrying a refusal."""
        seats = ["open"] * self.plan.humans + [self.plan.bot_level] * (
            self.plan.players - self.plan.humans
        )
        body = {
            "game": self.plan.game,
            "players": self.plan.players,
            "seats": seats,
            "host_name": "seat 0",
            "seed": f"load-{self.plan.seed}-{self.index}",
        }
        for attempt in range(CREATE_RETRIES + 1):
            response = await self.http.post(f"{self.home}/api/rooms", json=body)
            if response.status_code == 201:
                answer = response.json()
                self.code, self.host_token = answer["code"], answer["host_token"]
                self.tokens = {answer["seat"]: answer["seat_token"]}
                return
            if response.status_code == 400 and "too many rooms" in response.text:
                self.stats.create_refusals += 1
                if attempt < CREATE_RETRIES:
                    await asyncio.sleep(2.0 * (attempt + 1))
                    continue
            raise RuntimeError(f"create: {response.status_code} {response.text[:200]}")

    async def set_up(self, api: httpx.AsyncClient) -> None:
        began = time.monotonic()
        await self.create()
        for seat in range(1, self.plan.humans):
            response = await api.post(
                f"{self.home}/api/rooms/{self.code}/seats",
                json={"name": f"seat {seat}", "seat": seat},
            )
            if response.status_code != 200:
                raise RuntimeError(f"claim: {response.status_code} {response.text[:200]}")
            self.tokens[seat] = response.json()["token"]
        for person in sorted(self.tokens):
            await self.join(person)
        response = await api.post(
            f"{self.home}/api/rooms/{self.code}/start",
            headers={"Authorization": f"Bearer {self.host_token}"},
        )
        if response.status_code != 200:
            raise RuntimeError(f"start: {response.status_code} {response.text[:200]}")
        done = time.monotonic()
        self.ready_at = done
        self.stats.rooms_set_up += 1
        self.stats.setup_seconds.append(done - began)
        if done < self.plan.window_start:
            self.stats.rooms_set_up_by_window += 1
        else:
            self.stats.late_setups += 1

    async def join(self, person: int) -> None:
        """Open ``person``'s socket, say hello, read the welcome, start reading."""
        url = self.where(person).replace("http://", "ws://") + f"/ws/rooms/{self.code}"
        socket = await connect(
            url,
            open_timeout=30,
            ping_interval=None,
            close_timeout=5,
            max_size=1 << 20,
            compression="deflate" if self.plan.compression else None,
        )
        self.sockets[person] = socket
        await socket.send(json.dumps({"type": "hello", "token": self.tokens[person]}))
        welcome = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"hello: {welcome}")
        self.readers.append(asyncio.ensure_future(self.read(person, socket)))

    async def reconnect(self, person: int, old: ClientConnection) -> None:
        """A socket that views another person's seat (the rematch moved everyone
        one seat on, and the server keeps a socket's seat number): open a new one."""
        try:
            await old.close()
            if not self.stopping:
                await self.join(person)
                if in_window(self.plan, time.monotonic()):
                    self.stats.reconnects += 1
        except Exception as error:
            self.failed = True
            self.stats.setup_failures[f"reconnect {type(error).__name__}"] += 1
        finally:
            self.replacing.discard(person)

    async def read(self, seat: int, socket: ClientConnection) -> None:
        try:
            async for raw in socket:
                now = time.monotonic()
                counted = in_window(self.plan, now)
                if counted:
                    self.stats.messages += 1
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "update":
                    if message["seats"][message["you"]]["name"] != self.names[seat]:
                        self.replacing.add(seat)
                        if self.outstanding is not None:
                            self.outstanding = None
                            self.stats.untimed += 1
                        self.spawn(self.reconnect(seat, socket))
                        return
                    self.on_update(seat, message, now, counted)
                elif kind == "error" and counted:
                    self.stats.errors[str(message.get("error"))] += 1
        except ConnectionClosed:
            pass
        finally:
            if not self.stopping and seat not in self.replacing:
                self.failed = True
                if in_window(self.plan, time.monotonic()):
                    self.stats.closed_by_server += 1

    def on_update(self, seat: int, message: dict[str, Any], now: float, counted: bool) -> None:
        state_id = message["state_id"]
        state = _state(state_id)
        pending = self.outstanding
        if pending is not None and state > pending[0] and seat in pending[2]:
            pending[2].discard(seat)
            if not pending[2]:
                self.outstanding = None
                if in_window(self.plan, pending[1]) and counted:
                    self.stats.latencies.append(now - pending[1])
                    if self.sender in self.relayed:
                        self.stats.hop_latencies.append(now - pending[1])
                    else:
                        self.stats.home_latencies.append(now - pending[1])
        if state > self.latest:
            self.latest = state
            if counted:
                self.stats.state_changes += 1
        if self.stopping:
            return
        if message["status"] == "over":
            game_no = message["game_no"]
            if game_no not in self.rematched:
                self.rematched.add(game_no)
                self.spawn(self.rematch())
            return
        legal = message.get("legal")
        if (
            message.get("waiting_for") == "human"
            and message.get("to_move") == message.get("you")
            and legal
            and self.acted.get(seat) != state_id
        ):
            self.acted[seat] = state_id
            self.spawn(self.act(seat, state_id, [entry["id"] for entry in legal]))

    def think(self) -> float:
        return self.rng.uniform(self.plan.think_min, self.plan.think_max)

    async def act(self, seat: int, state_id: str, legal: list[int]) -> None:
        await asyncio.sleep(self.think())
        if self.stopping or self.latest != _state(state_id):
            return
        action = self.rng.choice(legal)
        sent = time.monotonic()
        self.sender = seat
        if self.replacing:
            self.outstanding = None  # a seat is reconnecting: not a fair measurement
            self.stats.untimed += 1
        else:
            self.outstanding = (_state(state_id), sent, set(self.sockets))
        if in_window(self.plan, sent):
            self.stats.actions += 1
        with contextlib.suppress(ConnectionClosed):
            await self.sockets[seat].send(
                json.dumps({"type": "act", "action": action, "state_id": state_id})
            )

    async def rematch(self) -> None:
        await asyncio.sleep(self.think())
        if self.stopping:
            return
        with contextlib.suppress(httpx.HTTPError):
            response = await self.http.post(
                f"{self.home}/api/rooms/{self.code}/rematch",
                headers={"Authorization": f"Bearer {self.host_token}"},
            )
            if response.status_code == 200:
                if in_window(self.plan, time.monotonic()):
                    self.stats.rematches += 1
            elif in_window(self.plan, time.monotonic()):
                self.stats.errors[f"rematch {response.status_code}"] += 1

    async def close(self) -> None:
        self.stopping = True
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*(s.close() for s in self.sockets.values()), return_exceptions=True)
        for task in self.readers:
            task.cancel()


async def ping(plan: Plan, rooms: list[RoomDriver], stats: Stats) -> None:
    """A spectator of one room pings five times a second: the round trip is
    the server's event-loop lag alone (a ping touches no room and no database)."""
    ready = [r for r in rooms if r.ready_at is not None]
    if not ready:
        return
    url = plan.base.replace("http://", "ws://") + f"/ws/rooms/{ready[0].code}"
    async with connect(url, ping_interval=None, max_size=1 << 20) as socket:
        await socket.send(json.dumps({"type": "hello"}))
        while True:
            await asyncio.sleep(0.2)
            sent = time.monotonic()
            await socket.send(json.dumps({"type": "ping"}))
            while json.loads(await socket.recv()).get("type") != "pong":
                pass
            stats.pings.append(time.monotonic() - sent)


async def lag(stats: Stats) -> None:
    """The client's own event-loop lag: how late a 50 ms sleep wakes."""
    while True:
        asked = time.monotonic()
        await asyncio.sleep(0.05)
        stats.lags.append(time.monotonic() - asked - 0.05)


async def drive(plan: Plan, indices: list[int]) -> Stats:
    """Set up and play the rooms ``indices`` until the window ends; close everything."""
    stats = Stats()
    # uvicorn closes a keep-alive connection idle for 5 s: let the client drop it
    # first, or a request sent just then fails with ReadError.
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64, keepalive_expiry=3)
    api = httpx.AsyncClient(base_url=plan.base, timeout=30, limits=limits)
    by_address: dict[int, httpx.AsyncClient] = {}
    rooms: list[RoomDriver] = []
    setups: list[asyncio.Task[None]] = []

    async def set_up(room: RoomDriver, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        try:
            await room.set_up(api)
        except Exception as error:  # a room that fails to set up is counted, not fatal
            room.failed = True
            stats.setup_failures[f"{type(error).__name__}: {str(error)[:80]}"] += 1

    try:
        for index in indices:
            address = index // plan.per_address
            if address not in by_address:
                transport = httpx.AsyncHTTPTransport(
                    local_address=f"127.0.0.{2 + address}", limits=limits
                )
                by_address[address] = httpx.AsyncClient(
                    base_url=plan.base, timeout=30, transport=transport
                )
            room = RoomDriver(index, plan, stats, by_address[address])
            rooms.append(room)
            setups.append(asyncio.ensure_future(set_up(room, plan.start + index / plan.ramp_rate)))
        await asyncio.sleep(max(0.0, plan.window_start - time.monotonic()))
        cpu_start = time.process_time()
        pinger = asyncio.ensure_future(ping(plan, rooms, stats))
        lagger = asyncio.ensure_future(lag(stats))
        await asyncio.sleep(max(0.0, plan.window_end - time.monotonic()))
        pinger.cancel()
        lagger.cancel()
        stats.cpu = time.process_time() - cpu_start
        stats.rooms_held = sum(
            1
            for r in rooms
            if r.ready_at is not None and r.ready_at < plan.window_start and not r.failed
        )
    finally:
        for task in setups:
            task.cancel()
        for room in rooms:
            room.stopping = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(r.close() for r in rooms), return_exceptions=True),
                CLOSE_TIMEOUT,
            )
        for client in [api, *by_address.values()]:
            with contextlib.suppress(Exception):
                await client.aclose()
    return stats


def run_clients(plan: Plan, indices: list[int]) -> Stats:
    """One client process's whole run, bounded by the plan's hard stop."""
    try:
        import uvloop  # type: ignore[import-not-found]

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run

    async def bounded() -> Stats:
        return await asyncio.wait_for(drive(plan, indices), plan.hard_stop - time.monotonic())

    stats: Stats = runner(bounded())
    return stats


def _child(plan: Plan, indices: list[int], out: Any) -> None:
    try:
        out.put(("ok", run_clients(plan, indices)))
    except BaseException as error:
        out.put(("error", f"{type(error).__name__}: {error}"))


# -- the run ------------------------------------------------------------------------------------


def percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return math.nan
    rank = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[rank]


def merge(parts: list[Stats]) -> Stats:
    total = Stats()
    for part in parts:
        total.latencies += part.latencies
        total.hop_latencies += part.hop_latencies
        total.home_latencies += part.home_latencies
        total.actions += part.actions
        total.state_changes += part.state_changes
        total.messages += part.messages
        total.rematches += part.rematches
        total.errors.update(part.errors)
        total.setup_failures.update(part.setup_failures)
        total.create_refusals += part.create_refusals
        total.closed_by_server += part.closed_by_server
        total.rooms_set_up_by_window += part.rooms_set_up_by_window
        total.rooms_held += part.rooms_held
        total.rooms_set_up += part.rooms_set_up
        total.setup_seconds += part.setup_seconds
        total.cpu += part.cpu
        total.late_setups += part.late_setups
        total.reconnects += part.reconnects
        total.untimed += part.untimed
        total.pings += part.pings
        total.lags += part.lags
    return total


def profile(args: argparse.Namespace, pid: int, plan: Plan) -> None:
    """Sample the server with py-spy over the window (collapsed stacks, one line
    a stack, per thread), into ``--py-spy``."""
    time.sleep(max(0.0, plan.window_start - time.monotonic()))
    command = [
        str(Path(sys.executable).with_name("py-spy")),
        "record",
        "--pid",
        str(pid),
        "--duration",
        str(int(plan.window_end - plan.window_start)),
        "--rate",
        str(args.py_spy_rate),
        "--format",
        "raw",
        "--threads",
        "--output",
        str(args.py_spy),
        *(["--gil"] if args.py_spy_gil else []),
    ]
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=plan.window_end - plan.window_start + 30,
        )


def run(
    args: argparse.Namespace,
    processes: int = 1,
    db_url: str | None = None,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """One measurement: ``args.rooms`` rooms on ``processes`` server processes
    (more than one: sharing ``db_url`` through ``redis_url``)."""
    humans = args.players // 2 if args.bots_half else args.players
    folder = Path(tempfile.mkdtemp(prefix="apothecary-load-"))
    db_url = db_url or args.db or f"sqlite:///{folder / 'server.sqlite3'}"
    ports = (
        [args.port or free_port()] if processes == 1 else [free_port() for _ in range(processes)]
    )
    bases = tuple(f"http://127.0.0.1:{port}" for port in ports)
    base = bases[0]
    log = folder / "server.log"
    extra: tuple[str, ...] = ()
    if processes > 1:
        assert redis_url is not None
        extra = ("--redis", redis_url, "--redis-prefix", f"load-{os.getpid()}-{time.time_ns()}")
    servers = [start_server(args, db_url, log, port, extra) for port in ports]
    server = servers[0]
    watchdog_armed = threading.Event()
    children: list[multiprocessing.Process] = []

    def watchdog(limit: float) -> None:
        if not watchdog_armed.wait(max(0.0, limit - time.monotonic())):
            print("server_load: past the hard stop; killing the server and clients", flush=True)
            for process in servers:
                with contextlib.suppress(OSError):
                    process.kill()
            for child in children:
                with contextlib.suppress(OSError):
                    child.kill()
            os._exit(3)

    pids = [process.pid for process in servers]
    try:
        for where, process in zip(bases, servers, strict=True):
            wait_healthy(where, process, log)
            # Import every game and bot before the baseline, so it holds no per-room memory.
            httpx.get(f"{where}/api/games", timeout=30).raise_for_status()
        before = sample(pids)
        start = time.monotonic() + 1.0
        ramp = args.rooms / args.ramp_rate
        window_start = start + min(args.ramp_timeout, ramp + args.settle)
        plan = Plan(
            base=base,
            game=args.game,
            players=args.players,
            humans=humans,
            bot_level=args.bot_level,
            think_min=args.think_min,
            think_max=args.think_max,
            ramp_rate=args.ramp_rate,
            per_address=args.per_address,
            start=start,
            window_start=window_start,
            window_end=window_start + args.duration,
            hard_stop=window_start + args.duration + CLOSE_TIMEOUT + 10,
            seed=args.seed,
            compression=not args.no_compression,
            bases=bases,
        )
        limit = plan.hard_stop + MARGIN
        threading.Thread(target=watchdog, args=(limit,), daemon=True).start()
        samples: dict[str, Sample] = {}
        rss_trace: list[tuple[float, int]] = []

        def sampler() -> None:
            for name, at in (("window_start", plan.window_start), ("window_end", plan.window_end)):
                while (left := at - time.monotonic()) > 0:
                    time.sleep(min(left, 1.0))
                    rss_trace.append((time.monotonic() - start, sum(map(rss_bytes, pids))))
                samples[name] = sample(pids)

        watcher = threading.Thread(target=sampler, daemon=True)
        watcher.start()
        if args.py_spy:
            threading.Thread(
                target=profile, args=(args, server.pid, plan), daemon=True, name="py-spy"
            ).start()
        indices = list(range(args.rooms))
        if args.client_processes <= 1:
            stats = run_clients(plan, indices)
        else:
            context = multiprocessing.get_context("fork")
            out = context.Queue()
            for k in range(args.client_processes):
                child = context.Process(
                    target=_child, args=(plan, indices[k :: args.client_processes], out)
                )
                child.start()
                children.append(child)
            parts = []
            for _ in children:
                status, value = out.get(timeout=max(1.0, limit - time.monotonic()))
                if status != "ok":
                    raise SystemExit(f"a client process failed: {value}")
                parts.append(value)
            for child in children:
                child.join(10)
            stats = merge(parts)
        watcher.join(5)
        after_close = sample(pids)
    finally:
        watchdog_armed.set()
        for process in servers:
            stop_server(process)
        for child in children:
            if child.is_alive():
                child.kill()
    server_log = log.read_text(errors="replace")
    if args.server_log:
        args.server_log.write_text(server_log)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    result = report(args, plan, stats, before, samples, after_close, server_log, rss_trace)
    result["processes"] = processes
    result["database"] = db_url.split(":", 1)[0].split("+", 1)[0]
    return result


def report(
    args: argparse.Namespace,
    plan: Plan,
    stats: Stats,
    before: Sample,
    samples: dict[str, Sample],
    after_close: Sample,
    server_log: str,
    rss_trace: list[tuple[float, int]],
) -> dict[str, Any]:
    window = plan.window_end - plan.window_start
    first, last = samples.get("window_start", before), samples.get("window_end", after_close)
    elapsed = max(1e-9, last.at - first.at)
    ordered = sorted(stats.latencies)
    held = stats.rooms_held
    warnings = [line for line in server_log.splitlines() if "ERROR" in line or "Traceback" in line]
    return {
        "game": plan.game,
        "players": plan.players,
        "humans_per_room": plan.humans,
        "bot_level": plan.bot_level if plan.humans < plan.players else None,
        "rooms_asked": args.rooms,
        "rooms_set_up": stats.rooms_set_up,
        "rooms_set_up_by_window": stats.rooms_set_up_by_window,
        "rooms_held": held,
        "window_seconds": window,
        "ramp_seconds": plan.window_start - plan.start,
        "think_seconds": [plan.think_min, plan.think_max],
        "client_processes": args.client_processes,
        "compression": plan.compression,
        "workers_for_bots": args.workers_for_bots,
        "human_actions_per_second": stats.actions / window,
        "state_changes_per_second": stats.state_changes / window,
        "messages_per_second": stats.messages / window,
        "rematches": stats.rematches,
        "latency_samples": len(ordered),
        "hop_latency_ms": {
            "samples": len(stats.hop_latencies),
            "p50": percentile(sorted(stats.hop_latencies), 0.50) * 1000,
            "p99": percentile(sorted(stats.hop_latencies), 0.99) * 1000,
        },
        "home_latency_ms": {
            "samples": len(stats.home_latencies),
            "p50": percentile(sorted(stats.home_latencies), 0.50) * 1000,
            "p99": percentile(sorted(stats.home_latencies), 0.99) * 1000,
        },
        "latency_ms": {
            "p50": percentile(ordered, 0.50) * 1000,
            "p90": percentile(ordered, 0.90) * 1000,
            "p99": percentile(ordered, 0.99) * 1000,
            "max": (ordered[-1] if ordered else math.nan) * 1000,
        },
        "ping_ms": {
            "samples": len(stats.pings),
            "p50": percentile(sorted(stats.pings), 0.50) * 1000,
            "p99": percentile(sorted(stats.pings), 0.99) * 1000,
            "max": max(stats.pings, default=math.nan) * 1000,
        },
        "client_lag_ms": {
            "p50": percentile(sorted(stats.lags), 0.50) * 1000,
            "p99": percentile(sorted(stats.lags), 0.99) * 1000,
            "max": max(stats.lags, default=math.nan) * 1000,
        },
        "setup_seconds_p50": percentile(sorted(stats.setup_seconds), 0.5),
        "setup_seconds_p99": percentile(sorted(stats.setup_seconds), 0.99),
        "server_rss_mb": {
            "before": before.rss / 2**20,
            "window_start": first.rss / 2**20,
            "window_end": last.rss / 2**20,
            "peak_seen": max([r for _, r in rss_trace] + [last.rss]) / 2**20,
        },
        "rss_per_room_kb": (last.rss - before.rss) / 1024 / held if held else math.nan,
        "bot_workers_rss_mb": last.children_rss / 2**20,
        "server_cpu_percent": 100 * (last.cpu - first.cpu) / elapsed,
        "bot_workers_cpu_percent": 100 * (last.children_cpu - first.children_cpu) / elapsed,
        "clients_cpu_percent": 100 * stats.cpu / window,
        "load_average": {
            "before": before.load,
            "window_start": first.load,
            "window_end": last.load,
        },
        "others_cpu_percent": 100
        * (
            (last.machine_busy - first.machine_busy)
            - (last.cpu - first.cpu)
            - (last.children_cpu - first.children_cpu)
        )
        / elapsed
        - 100 * stats.cpu / window,
        "nproc": os.cpu_count(),
        "errors": dict(stats.errors),
        "setup_failures": dict(stats.setup_failures),
        "create_refusals": stats.create_refusals,
        "late_setups": stats.late_setups,
        "closed_by_server": stats.closed_by_server,
        "reconnects_after_rematch": stats.reconnects,
        "untimed_actions": stats.untimed,
        "server_log_errors": warnings[:20],
        "target_met": bool(held >= args.rooms and ordered and percentile(ordered, 0.99) < 0.1),
    }


def print_table(result: dict[str, Any]) -> None:
    latency = result["latency_ms"]
    rss = result["server_rss_mb"]
    load = result["load_average"]["window_end"]
    seats = f"{result['players']} seats, {result['humans_per_room']} human"
    if result["bot_level"]:
        seats += f", {result['players'] - result['humans_per_room']} {result['bot_level']} bots"
    think = result["think_seconds"]
    rows = [
        ("game", f"{result['game']} ({seats})"),
        ("think time", f"{think[0]:g}-{think[1]:g} s; window {result['window_seconds']:g} s"),
        ("rooms held", f"{result['rooms_held']} of {result['rooms_asked']}"),
        ("human actions/s", f"{result['human_actions_per_second']:.1f}"),
        ("state changes/s", f"{result['state_changes_per_second']:.1f} (bots' moves included)"),
        ("messages/s to clients", f"{result['messages_per_second']:.0f}"),
        (
            "latency p50/p90/p99/max",
            f"{latency['p50']:.1f} / {latency['p90']:.1f} / {latency['p99']:.1f} / "
            f"{latency['max']:.1f} ms ({result['latency_samples']} actions)",
        ),
        (
            "through the holder / relayed",
            f"p50 {result['home_latency_ms']['p50']:.1f} / {result['hop_latency_ms']['p50']:.1f}"
            f" ms, p99 {result['home_latency_ms']['p99']:.1f} / "
            f"{result['hop_latency_ms']['p99']:.1f} ms ({result['hop_latency_ms']['samples']} "
            "relayed actions)",
        ),
        (
            "spectator ping p50/p99/max",
            f"{result['ping_ms']['p50']:.1f} / {result['ping_ms']['p99']:.1f} / "
            f"{result['ping_ms']['max']:.1f} ms (event-loop lag, no database)",
        ),
        (
            "client loop lag p50/p99/max",
            f"{result['client_lag_ms']['p50']:.1f} / {result['client_lag_ms']['p99']:.1f} / "
            f"{result['client_lag_ms']['max']:.1f} ms (in every latency above)",
        ),
        (
            "server RSS",
            f"{rss['before']:.0f} MB before, {rss['window_end']:.0f} MB at load: "
            f"{result['rss_per_room_kb']:.0f} KB a room",
        ),
        (
            "CPU (% of one core)",
            f"server {result['server_cpu_percent']:.0f}, bot workers "
            f"{result['bot_workers_cpu_percent']:.0f}, clients {result['clients_cpu_percent']:.0f}",
        ),
        (
            "load average",
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end, "
            f"{result['load_average']['before'][0]:.2f} before ({result['nproc']} CPUs)",
        ),
        ("other processes' CPU", f"{result['others_cpu_percent']:.0f}% of one core"),
        (
            "room setup p50/p99",
            f"{result['setup_seconds_p50']:.2f} / {result['setup_seconds_p99']:.2f} s",
        ),
        (
            "rematches",
            f"{result['rematches']}; {result['reconnects_after_rematch']} sockets reopened "
            f"after them, {result['untimed_actions']} actions not timed meanwhile",
        ),
        ("errors", json.dumps(result["errors"]) if result["errors"] else "none"),
    ]
    if result["setup_failures"] or result["create_refusals"] or result["late_setups"]:
        rows.append(
            (
                "setup trouble",
                f"{json.dumps(result['setup_failures'])}; {result['create_refusals']} "
                f"creations refused; {result['late_setups']} set up after the window opened",
            )
        )
    if result["closed_by_server"]:
        rows.append(("sockets closed by server", str(result["closed_by_server"])))
    if result["server_log_errors"]:
        rows.append(("server log", result["server_log_errors"][0][:100]))
    verdict = "met" if result["target_met"] else "NOT met"
    rows.append(("target", f"{verdict} (all rooms held, p99 < 100 ms)"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def wait_quiet(load: float, longest: float) -> None:
    """Wait (at most ``longest`` seconds) until the machine has been nearly idle
    for 10 s (under 25% of one core busy) and the 1-minute load is below ``load``."""
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        busy = machine_busy_seconds()
        time.sleep(10)
        if (machine_busy_seconds() - busy) / 10 < 0.25 and os.getloadavg()[0] < load:
            break
    print(f"load average {os.getloadavg()[0]:.2f} at the start", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="500", help="rooms, or a list (200,400): a run for each")
    parser.add_argument(
        "--processes",
        default="1",
        help="server processes, or a list (1,2): a run for each, on PostgreSQL (and Redis)",
    )
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--game", default="in-vino-morte")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--think-min", type=float, default=0.5)
    parser.add_argument("--think-max", type=float, default=2.0)
    parser.add_argument("--bots-half", action="store_true", help="half the seats are bots")
    parser.add_argument("--bot-level", default="random", help="the bots of --bots-half")
    parser.add_argument("--bot-delay", type=float, default=0.0, help="the server's --bot-delay")
    parser.add_argument("--workers-for-bots", type=int, default=1)
    parser.add_argument("--db", help="the server's database URL (default: a temporary SQLite)")
    parser.add_argument("--port", type=int, default=0, help="0: a free one")
    parser.add_argument("--ramp-rate", type=float, default=20.0, help="rooms created a second")
    parser.add_argument("--ramp-timeout", type=float, default=120.0, help="longest ramp (s)")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds after the ramp")
    parser.add_argument("--per-address", type=int, default=25, help="rooms per source address")
    parser.add_argument("--client-processes", type=int, default=1)
    parser.add_argument("--no-compression", action="store_true", help="no permessage-deflate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--py-spy", type=Path, help="profile the server into this file")
    parser.add_argument("--py-spy-rate", type=int, default=100, help="samples a second")
    parser.add_argument("--py-spy-gil", action="store_true", help="only the GIL's holder")
    parser.add_argument(
        "--server-prelude",
        help="Python run in the server's interpreter first, e.g. 'import gc; gc.freeze()'",
    )
    parser.add_argument("--server-log", type=Path, help="keep the server's output here")
    parser.add_argument(
        "--quiet-load", type=float, help="first wait until the 1-minute load is below this"
    )
    parser.add_argument("--quiet-wait", type=float, default=600, help="but no longer (s)")
    args = parser.parse_args()
    try:
        room_counts = [int(x) for x in str(args.rooms).split(",")]
        process_counts = [int(x) for x in str(args.processes).split(",")]
    except ValueError:
        parser.error("--rooms and --processes are numbers, or lists like 1,2")
    if min(process_counts) < 1:
        parser.error("--processes: 1 or more")
    args.rooms = max(room_counts)
    if not 0 < args.think_min <= args.think_max:
        parser.error("0 < --think-min <= --think-max")
    if min(room_counts) < 1 or args.duration <= 0 or args.ramp_rate <= 0:
        parser.error("--rooms, --duration and --ramp-rate must be positive")
    if args.rooms > args.per_address * 250:
        parser.error("too many rooms for the source addresses 127.0.0.2-251")
    if args.quiet_load is not None:
        wait_quiet(args.quiet_load, args.quiet_wait)
    if process_counts == [1] and len(room_counts) == 1:  # as before: one server, its --db
        result = run(args)
        print_table(result)
        if args.json:
            args.json.write_text(json.dumps(result, indent=2) + "\n")
        return
    results = compare(args, room_counts, process_counts)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


def compare(
    args: argparse.Namespace, room_counts: list[int], process_counts: list[int]
) -> list[dict[str, Any]]:
    """Every (rooms, processes) pair, each on a fresh PostgreSQL database (and one
    Redis), side by side; the table of each, then one table of them all."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from services import postgres_server, redis_server

    results = []
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(redis_server()) if max(process_counts) > 1 else None
        for rooms in room_counts:
            for processes in process_counts:
                with postgres_server(f"load_{rooms}_{processes}") as db_url:
                    args.rooms = rooms
                    print(f"-- {rooms} rooms on {processes} server processes", flush=True)
                    result = run(args, processes, db_url, redis_url)
                print_table(result)
                results.append(result)
    print()
    print("processes  rooms  held  p50 ms  p99 ms  hop p50/p99 ms  home p50/p99 ms  server CPU")
    for r in results:
        hop, home, lat = r["hop_latency_ms"], r["home_latency_ms"], r["latency_ms"]
        print(
            f"{r['processes']:>9}  {r['rooms_asked']:>5}  {r['rooms_held']:>4}  "
            f"{lat['p50']:>6.1f}  {lat['p99']:>6.1f}  "
            f"{hop['p50']:>6.1f} / {hop['p99']:<6.1f}  {home['p50']:>6.1f} / {home['p99']:<6.1f}  "
            f"{r['server_cpu_percent']:>5.0f}%"
        )
    return results


if __name__ == "__main__":
    main()
