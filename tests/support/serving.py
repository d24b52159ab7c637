"""Helpers for server tests: an app on a fresh SQLite file, rooms made through
the HTTP API, and a subprocess server on a loopback port."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from apothecary.server.app import WebConfig, create_app
from apothecary.server.hub import HubConfig
from apothecary.server.store import Store

FAST = HubConfig(bot_workers=0, bot_delay=0.0, next_game_delay=0.0, allow_seed=True)
"""A hub for tests: bots think in a thread, nobody waits, seeds may be chosen."""


def app_client(url: str, config: HubConfig = FAST, web: WebConfig | None = None) -> TestClient:
    """A TestClient over a new app on the database at ``url`` (use it in ``with``).
    Every test's sockets come from one address ("testclient"), so unless told
    otherwise the address's message limit is lifted (each seat keeps its own)."""
    web = web or WebConfig(address_rate_per_second=1e6, address_rate_burst=10**6)
    return TestClient(create_app(Store(url), config, web))


def make_room(client: Any, host_name: str | None = "host", **body: Any) -> dict[str, Any]:
    """POST /api/rooms; the answer (code, host_token, seat, seat_token ...)."""
    payload = {"host_name": host_name, **body}
    response = client.post("/api/rooms", json=payload)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


def host_headers(room: dict[str, Any]) -> dict[str, str]:
    """The Authorization header of a room's host."""
    return {"Authorization": f"Bearer {room['host_token']}"}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server_process(
    db_url: str,
    *extra: str,
    port: int | None = None,
    log_path: Path | None = None,
    launcher: list[str] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``apothecary serve`` as a subprocess on a loopback port: (base URL, process).
    Waits until /health answers; kills the process at the end if it still runs.
    Its output goes to ``log_path`` when given (to be read after), else nowhere.
    ``launcher`` replaces ``python -m apothecary.cli`` (a script that plants
    something first); the tests' support folder is on the process's path."""
    port = port or free_port()
    command = [
        *(launcher or [sys.executable, "-m", "apothecary.cli"]),
        "serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--workers-for-bots",
        "0",
        "--bot-delay",
        "0",
        "--allow-seed",
        "--log-level",
        "warning",
        *extra,
    ]
    # Its output goes to a file, not a pipe: nobody reads a pipe while the test
    # runs, and a server that fills one (64 kB of warnings) blocks on its next
    # write, its event loop with it, until its leases lapse and its rooms move.
    opened = (  # closed by the with below
        open(log_path, "w+", encoding="utf-8")  # noqa: SIM115
        if log_path is not None
        else tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
    )
    with opened as log:
        support = str(Path(__file__).parent)
        path = os.pathsep.join(filter(None, (support, os.environ.get("PYTHONPATH"))))
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONPATH": path},
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    output = log.read()
                    raise RuntimeError(f"the server exited with {process.returncode}:\n{output}")
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not answer /health within 60 s")
                time.sleep(0.1)
            yield base, process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait(10)


def sqlite_url(folder: Path) -> str:
    """A SQLite database file in ``folder``."""
    return f"sqlite:///{folder / 'server.sqlite3'}"


def cluster_flags(
    redis_url: str, prefix: str, lease: float = 3.0, heartbeat: float = 0.3
) -> tuple[str, ...]:
    """The flags of an ``apothecary serve`` process that shares rooms through Redis
    (``prefix`` keeps a test's keys and channels its own), with short leases so a
    dead holder's rooms are taken over quickly."""
    return (
        *("--redis", redis_url, "--redis-prefix", prefix),
        *("--lease-seconds", str(lease), "--heartbeat-seconds", str(heartbeat)),
        *("--create-per-minute", "100000", "--socket-rate", "1000000"),
    )


def stored_row(db_url: str, code: str) -> dict[str, Any]:
    """A room's row as the store keeps it (what ``Room.snapshot`` gives), read from the database."""
    import sqlalchemy as sa

    from apothecary.server.store import normalise_url, rooms

    engine = sa.create_engine(normalise_url(db_url))
    try:
        with engine.connect() as connection:
            row = connection.execute(rooms.select().where(rooms.c.code == code)).mappings().one()
    finally:
        engine.dispose()
    return {k: v for k, v in row.items() if k not in ("updated", "alive")}


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state letter, start time) of a live process from /proc; None once it
    is gone (a zombie is gone: it has exited, and only waits to be reaped)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name in brackets may hold spaces
    if fields[0] in "ZX":
        return None
    return int(fields[1]), fields[0], int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every live process below ``pid`` (children, grandchildren ...) as {pid: start time},
    read from /proc (Linux)."""
    parents: dict[int, tuple[int, int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = (stat[0], stat[2])
    found: dict[int, int] = {}
    below = [pid]
    while below:
        parent = below.pop()
        for child, (ppid, started) in parents.items():
            if ppid == parent and child not in found:
                found[child] = started
                below.append(child)
    return found


def still_alive(processes: dict[int, int]) -> list[str]:
    """Those of ``processes`` (from :func:`descendants`) still running, each as its
    pid and command line; a pid given to a new process since does not count."""
    alive = []
    for pid, started in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[2] == started:
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:  # it ended just now
                continue
            alive.append(f"{pid}: {command.decode(errors='replace').strip()}")
    return alive


def bots_play_a_game(base: str) -> None:
    """A room of a hard and an easy bot on the server at ``base``, played to its end
    (so its bot pool, if it has one, has really started: the hard level searches,
    and thinks in the pool; the easy one, a rules bot, in a thread)."""
    with httpx.Client(base_url=base, timeout=10) as client:
        room = make_room(
            client, host_name=None, game="poison-pot", players=2, seats=["hard", "easy"]
        )
        url = f"/api/rooms/{room['code']}"
        started = client.post(f"{url}/start", headers=host_headers(room))
        assert started.status_code == 200, started.text
        deadline = time.monotonic() + 60
        while client.get(url).json()["status"] != "over":
            assert time.monotonic() < deadline, "the bots did not finish within 60 s"
            time.sleep(0.1)


def kill_leaves_nothing(process: subprocess.Popen[str], expected: str) -> None:
    """``kill -9`` of ``process``: every process below it (among them one whose command
    line holds ``expected``, so the test knows it looked at a real tree) ends within
    ``ORPHAN_WAIT`` seconds."""
    below = descendants(process.pid)
    assert any(expected in line for line in still_alive(below)), still_alive(below)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    deadline = time.monotonic() + ORPHAN_WAIT
    while alive := still_alive(below):
        if time.monotonic() > deadline:
            for pid in below:  # the test fails, but leaves no orphans of its own behind
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"still running {ORPHAN_WAIT} s after kill -9: {alive}")
        time.sleep(0.1)


ORPHAN_WAIT = 10.0
"""Seconds a killed server's processes may take to end (a server process of
``--workers`` stops cleanly first)."""
