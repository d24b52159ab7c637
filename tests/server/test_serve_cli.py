"""``apothecary serve`` itself: its refusals, its start-up line, SIGTERM, the default database."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from serving import (
    bots_play_a_game,
    host_headers,
    kill_leaves_nothing,
    make_room,
    server_process,
    sqlite_url,
)
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from apothecary.cli import app
from apothecary.server import cli as serve_cli
from apothecary.server.store import actions

SERVING = re.compile(r"^apothecary is serving at http://127\.0\.0\.1:(\d+)/$")
SERVE = [sys.executable, "-m", "apothecary.cli", "serve"]
WAIT = 30.0
"""The longest a server may take to start or to stop."""


# -- refusals: exit 2, one line, no traceback -------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--port", "70000"], "--port 70000"),
        (["--workers-for-bots", "-1"], "--workers-for-bots"),
        (["--db", "nonsense://"], "nonsense"),
        (["--db", "postgresql://x@127.0.0.1:1/x"], "127.0.0.1"),
        (["--min-password-length", "7"], "--min-password-length"),
        (["--sign-in-per-account", "0"], "--sign-in-per-account"),
    ],
    ids=["port", "workers", "db-scheme", "db-unreachable", "min-password", "sign-in-limit"],
)
def test_bad_flags_exit_2_with_one_line(
    flags: list[str], words: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def never(_self: Any) -> None:
        raise AssertionError("the server started despite a bad flag")

    monkeypatch.setattr(serve_cli._Server, "run", never)
    monkeypatch.setenv("APOTHECARY_DB", sqlite_url(tmp_path))
    result = CliRunner().invoke(app, ["serve", "--log-level", "warning", *flags])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"the error is {len(lines)} lines:\n{result.stderr}"
    assert lines[0].startswith("error: ") and words in lines[0], lines[0]


def test_an_unreachable_database_is_one_line_from_the_real_command(tmp_path: Path) -> None:
    """The same through a real process: stderr's only non-log line is the error."""
    done = subprocess.run(
        [*SERVE, "--port", "0", "--db", "postgresql://x@127.0.0.1:1/x"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    logged = re.compile(r"^(DEBUG|INFO|WARNING) [\w.]+: ")
    said = [line for line in done.stderr.splitlines() if not logged.match(line)]
    assert len(said) == 1 and said[0].startswith("error: cannot open database"), done.stderr


# -- a real server ------------------------------------------------------------------------------


@dataclass
class Served:
    """A running ``apothecary serve`` whose stdout is read line by line."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str | None]
    stdout: list[str]
    base: str = ""

    def wait_for(self, pattern: re.Pattern[str]) -> re.Match[str]:
        deadline = time.monotonic() + WAIT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"no line matching {pattern.pattern!r} in {WAIT} s: {self.stdout}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                pytest.fail(f"the server exited ({self.process.wait()}): {self.stdout}")
            found = pattern.match(line)
            if found:
                return found

    def terminate(self) -> int:
        """SIGTERM; the exit status (it must stop within WAIT seconds)."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(WAIT)


@contextmanager
def serve(
    tmp_path: Path,
    *flags: str,
    env: dict[str, str] | None = None,
    command: list[str] = SERVE,
) -> Iterator[Served]:
    """``apothecary serve --port 0 ...``; waits for its serving line (the base URL)."""
    log = (tmp_path / "stderr.log").open("w")
    process = subprocess.Popen(
        [*command, "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env if env is not None else dict(os.environ),
        cwd=tmp_path,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    stdout: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            stdout.append(line.rstrip("\n"))
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    served = Served(process, lines, stdout)
    try:
        port = served.wait_for(SERVING).group(1)
        served.base = f"http://127.0.0.1:{port}"
        yield served
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT)
        reader.join(WAIT)
        log.close()


FAST = ("--workers-for-bots", "0", "--bot-delay", "0", "--allow-seed", "--log-level", "warning")


def test_port_0_says_where_it_serves_and_answers(tmp_path: Path) -> None:
    with serve(tmp_path, "--db", sqlite_url(tmp_path), *FAST) as served:
        port = int(served.base.rsplit(":", 1)[1])
        assert 0 < port < 65536
        answer = httpx.get(f"{served.base}/health", timeout=10)
        assert answer.status_code == 200
        assert answer.json()["status"] == "ok"
        assert served.wait_for(re.compile(r"^database: (.*)$")).group(1) == sqlite_url(tmp_path)


@dataclass
class Terminated:
    """What a person saw of a game while the server was sent SIGTERM."""

    status: int
    seconds: float
    """How long the server took to exit after SIGTERM."""
    close_code: int | None
    close_reason: str | None
    code: str
    token: str
    last: dict[str, Any]
    events: list[dict[str, Any]]
    db: str


def play_then_terminate(tmp_path: Path) -> Terminated:
    """A person plays Poison Pot against a bot, sends one more action, and the server
    gets SIGTERM at once: what the person was told, and how the socket closed."""
    db = sqlite_url(tmp_path)
    with (
        serve(tmp_path, "--db", db, *FAST) as served,
        httpx.Client(base_url=served.base, timeout=10) as client,
    ):
        room = make_room(
            client,
            host_name="dan",
            game="poison-pot",
            players=2,
            seats=["open", "easy"],
            seed="sigterm",
        )
        url = served.base.replace("http://", "ws://") + f"/ws/rooms/{room['code']}"
        with connect(url, open_timeout=10, close_timeout=2) as ws:
            ws.send(json.dumps({"type": "hello", "token": room["seat_token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            started = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
            assert started.status_code == 200, started.text
            last: dict[str, Any] = {}
            events: list[dict[str, Any]] = []
            moves, acted = 0, set()
            deadline = time.monotonic() + WAIT
            while moves < 4:
                assert time.monotonic() < deadline, "the game did not come back to us"
                message = json.loads(ws.recv(timeout=10))
                assert message["type"] != "error", message
                if message["type"] != "update":
                    continue
                last = message
                events += message["events"]
                mine = message["waiting_for"] == "human" and message["to_move"] == 0
                if mine and message["state_id"] not in acted:
                    acted.add(message["state_id"])
                    step = int(message["state_id"].split(":")[1])
                    choice = message["legal"][step * 7 % len(message["legal"])]["id"]
                    ws.send(
                        json.dumps(
                            {"type": "act", "action": choice, "state_id": message["state_id"]}
                        )
                    )
                    moves += 1
            stopping = time.monotonic()
            status = served.terminate()
            stopped = time.monotonic() - stopping
            close: ConnectionClosed | None = None
            try:
                while True:  # what was sent before the close is still read
                    message = json.loads(ws.recv(timeout=WAIT))
                    if message["type"] == "update":
                        last = message
                        events += message["events"]
            except ConnectionClosed as closed:
                close = closed
            assert close is not None
            received = close.rcvd
    return Terminated(
        status,
        stopped,
        None if received is None else received.code,
        None if received is None else received.reason,
        room["code"],
        room["seat_token"],
        last,
        events,
        db,
    )


def test_sigterm_closes_sockets_with_a_reason_and_exits_0(tmp_path: Path) -> None:
    ended = play_then_terminate(tmp_path)
    assert ended.close_code == 1001, (ended.close_code, ended.close_reason)
    assert ended.close_reason, "the close frame gives no reason"
    assert ended.seconds < 5.0, f"SIGTERM took {ended.seconds:.1f} s"
    assert ended.status == 0, f"apothecary serve exited {ended.status} on SIGTERM"


SLOW_CLOSE = """
import asyncio, sys
import apothecary.server.app as served
from apothecary.cli import main

write = served._write


async def slow_write(socket, connection):
    # Planted: every writer is half a second late to close its socket, as on a
    # loaded machine, so uvicorn's own shutdown (1012, no reason) comes first
    # unless the server waits for its writers.
    close = socket.close

    async def late_close(*args, **kwargs):
        await asyncio.sleep(0.5)
        await close(*args, **kwargs)

    socket.close = late_close
    await write(socket, connection)


served._write = slow_write
sys.argv[0] = "apothecary"
main()
"""


def test_sigterm_waits_for_a_late_writer_to_close_with_its_reason(tmp_path: Path) -> None:
    """A writer that has not yet closed its socket when uvicorn shuts down still
    closes it with 1001 and the reason; before, uvicorn's 1012 came first."""
    command = [sys.executable, "-c", SLOW_CLOSE, "serve"]
    with (
        serve(tmp_path, "--db", sqlite_url(tmp_path), *FAST, command=command) as served,
        httpx.Client(base_url=served.base, timeout=10) as client,
    ):
        room = make_room(client, host_name="dan", game="poison-pot", players=2)
        url = served.base.replace("http://", "ws://") + f"/ws/rooms/{room['code']}"
        with connect(url, open_timeout=10, close_timeout=2) as ws:
            ws.send(json.dumps({"type": "hello", "token": room["seat_token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            started = time.monotonic()
            assert served.terminate() == 0
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=WAIT)
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1001, "server shutting down")
    assert time.monotonic() - started < 5.0


ENDLESS_HINTS = """
import asyncio, pathlib, sys
import apothecary.server.replays as replays
import apothecary.server.routes.hints as hints
from apothecary.cli import main


async def endless_hint(self, code, token):
    # Planted: a hint that never ends, as twenty queued Little Drop of Poison
    # hints (31-86 s each) look to a stopping server.
    with ARRIVED.open("a") as arrived:
        arrived.write("hint\\n")
    await asyncio.sleep(3600)


ARRIVED = pathlib.Path(sys.argv.pop(1))
replays.Replays.hint = endless_hint
# The shares of hints are lifted: this is about stopping with many thinking
# (the shares have their own test, tests/server/test_thinking_limits.py).
hints.SEAT_HINTS_AT_ONCE = hints.ADDRESS_HINTS_AT_ONCE = hints.HINTS_AT_ONCE = 100
sys.argv[0] = "apothecary"
main()
"""


def test_sigterm_stops_in_bounded_time_with_hints_still_thinking(tmp_path: Path) -> None:
    """Issue 28: SIGTERM waited 1,100 s on queued hints. Requests still running
    are cancelled after SHUTDOWN_SECONDS; without that bound this server would
    wait an hour on each planted hint (and ``terminate`` would time out)."""
    arrived = tmp_path / "arrived"
    arrived.touch()
    command = [sys.executable, "-c", ENDLESS_HINTS, str(arrived), "serve"]
    flags = ("--db", sqlite_url(tmp_path), "--hints-per-minute", "100", *FAST)
    with serve(tmp_path, *flags, command=command) as served:
        answers: list[int | str] = []

        def ask() -> None:
            try:
                answer = httpx.post(
                    served.base + "/api/rooms/ABCDEF/hint",
                    headers={"Authorization": "Bearer x"},
                    timeout=WAIT * 2,
                )
                answers.append(answer.status_code)
            except httpx.HTTPError as error:
                answers.append(type(error).__name__)

        askers = [threading.Thread(target=ask, daemon=True) for _ in range(20)]
        for asker in askers:
            asker.start()
        deadline = time.monotonic() + WAIT
        while arrived.read_text().count("hint") < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert arrived.read_text().count("hint") == 20, "the hints never reached the server"
        started = time.monotonic()
        status = served.terminate()
        took = time.monotonic() - started
        for asker in askers:
            asker.join(WAIT)
    assert status == 0, f"apothecary serve exited {status} on SIGTERM"
    assert took < serve_cli.SHUTDOWN_SECONDS + WAIT / 2, f"SIGTERM took {took:.1f} s"
    assert len(answers) == 20 and 200 not in answers, answers


def test_after_sigterm_everything_told_is_committed(tmp_path: Path) -> None:
    ended = play_then_terminate(tmp_path)
    told = int(ended.last["state_id"].split(":")[1])
    engine = sa.create_engine(ended.db)
    try:
        with engine.connect() as connection:
            stored = connection.execute(
                sa.select(sa.func.count()).where(actions.c.room == ended.code)
            ).scalar()
    finally:
        engine.dispose()
    assert stored is not None and stored >= told
    with (
        server_process(ended.db) as (base, _process),
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        info = client.get(f"/api/rooms/{ended.code}")
        assert info.status_code == 200, info.text
        assert info.json()["status"] == "playing"
        url = base.replace("http://", "ws://") + f"/ws/rooms/{ended.code}"
        with connect(url, open_timeout=10, close_timeout=2) as ws:
            ws.send(json.dumps({"type": "hello", "token": ended.token}))
            welcome = json.loads(ws.recv(timeout=10))
            assert welcome["type"] == "welcome" and welcome["you"] == 0
            update = json.loads(ws.recv(timeout=10))
            assert update["type"] == "update"
    # Every action the person heard of is there after the restart (and the one sent
    # just before SIGTERM was either committed or never happened: nothing in between).
    # (The restarted server goes on with the bot's turn that SIGTERM interrupted.)
    assert int(update["state_id"].split(":")[1]) >= stored
    assert update["events"][: len(ended.events)] == ended.events


# -- the default database -----------------------------------------------------------------------


def test_the_default_database_is_a_sqlite_file_in_the_user_data_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "APOTHECARY_DB"}
    env["HOME"] = str(tmp_path / "home")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    expected = tmp_path / "data" / "apothecary" / "server.sqlite3"
    assert not expected.exists()
    with serve(tmp_path, *FAST, env=env) as served:
        shown = served.wait_for(re.compile(r"^database: (.*)$")).group(1)
        assert shown == f"sqlite:///{expected}"
        assert expected.is_file()
        assert httpx.get(f"{served.base}/health", timeout=10).status_code == 200
        served.terminate()
    assert expected.stat().st_size > 0


# -- kill -9 ------------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
def test_kill_9_leaves_no_bot_worker_nor_resource_tracker(tmp_path: Path) -> None:
    """A server killed outright takes its bot-pool worker and the multiprocessing
    resource tracker with it; before, both ran on as orphans, about 50 MB a crash."""
    db = sqlite_url(tmp_path)
    with server_process(db, "--workers-for-bots", "1") as (base, process):
        bots_play_a_game(base)
        kill_leaves_nothing(process, "multiprocessing.spawn")
    with server_process(db, "--workers-for-bots", "1") as (base, _process):
        bots_play_a_game(base)  # a restarted server starts a pool of its own
