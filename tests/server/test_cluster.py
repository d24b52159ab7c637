"""Several server processes share rooms through PostgreSQL and Redis.

Two ``apothecary serve --redis`` processes run on loopback ports over one
PostgreSQL database and one Redis. Rooms are created on either; the people
of a room and its spectator connect to both, so every room has sockets on
the process that holds it and sockets relayed from the other. The secrecy
test's play and check (tests/server/test_secrecy.py) run unchanged: every
message each socket receives is what the room's view function gives its
viewer at that point, the same in every world that viewer cannot tell
apart, and each socket is told every event once, in order, as from one
process.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import (
    bots_play_a_game,
    cluster_flags,
    free_port,
    kill_leaves_nothing,
    server_process,
    sqlite_url,
    stored_row,
)
from test_secrecy import Played, leaks, play_room
from typer.testing import CliRunner

from apothecary.cli import app
from apothecary.server.store import Store

# (game, players, options, rooms): every game, short configurations.
TABLES: list[tuple[str, int, dict[str, Any], int]] = [
    ("in-vino-morte", 5, {}, 4),
    ("tea-scones-arsenic", 3, {}, 3),
    ("poison-pot", 3, {}, 2),
    ("little-drop-of-poison", 3, {"target": 5}, 2),
]


@pytest.fixture
def prefix() -> str:
    """Redis keys and channels of this test only (the Redis server is shared)."""
    return f"t{secrets.token_hex(4)}"


@pytest.fixture
def pair(postgres_db_url: str, redis_url: str, prefix: str) -> Iterator[tuple[str, str]]:
    """Two server processes sharing one database and one Redis: their host:port.
    Leases of 10 s: on a loaded machine a shorter one may lapse between two
    heartbeats, and the room move (its sockets closed, to reconnect), which
    is not what this test is about."""
    flags = cluster_flags(redis_url, prefix, lease=10.0)
    with (
        server_process(postgres_db_url, *flags) as (a, _),
        server_process(postgres_db_url, *flags) as (b, _),
    ):
        yield a.removeprefix("http://"), b.removeprefix("http://")


def test_sockets_on_two_processes_get_what_one_process_sends(
    pair: tuple[str, str], postgres_db_url: str
) -> None:
    hosts = list(pair)
    rng = random.Random(11)

    def row_of(code: str) -> dict[str, Any]:
        return stored_row(postgres_db_url, code)

    async def everything() -> list[Played]:
        games = []
        index = 0
        for game, players, options, count in TABLES:
            for _ in range(count):
                i = index
                index += 1
                # Rooms made on either process; seats and the spectator spread over both.
                games.append(
                    play_room(
                        hosts[i % 2],
                        row_of,
                        game,
                        players,
                        options,
                        random.Random(rng.random()),
                        socket_host=lambda viewer, i=i: hosts[
                            (i + 1 if viewer is None else i + viewer // 2) % 2
                        ],
                    )
                )
        played: list[Played] = []
        for start in range(0, len(games), 4):  # a few rooms at once
            played += await asyncio.gather(*games[start : start + 4])
        return played

    played = asyncio.run(everything())
    assert len(played) == sum(t[3] for t in TABLES)
    check = random.Random(12)
    problems = [f"{p.code}: {problem}" for p in played for problem in leaks(p, check)]
    assert not problems, "\n".join(problems[:20])
    assert sum(len(m) for p in played for m in p.seen.values()) > 300


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--workers", "2"], "PostgreSQL"),
        (["--redis", "redis://127.0.0.1:1/0"], "PostgreSQL"),
        (["--workers", "2", "--db", "postgresql://x@127.0.0.1:1/x"], "--redis"),
        (["--workers", "0"], "--workers"),
    ],
    ids=["workers-on-sqlite", "redis-on-sqlite", "workers-without-redis", "no-workers"],
)
def test_workers_without_a_shared_database_and_redis_is_one_clear_error(
    flags: list[str], words: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("APOTHECARY_DB", sqlite_url(tmp_path))
    monkeypatch.delenv("APOTHECARY_REDIS", raising=False)
    result = CliRunner().invoke(app, ["serve", "--log-level", "warning", *flags])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and words in lines[0], lines[0]
    assert not (tmp_path / "server.sqlite3").exists()  # refused before touching anything


def test_an_unreachable_redis_is_one_clear_error(postgres_db_url: str) -> None:
    flags = ["--db", postgres_db_url, "--redis", "redis://127.0.0.1:1/0"]
    result = CliRunner().invoke(app, ["serve", "--log-level", "warning", *flags])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "cannot reach Redis" in lines[0], result.stderr


def test_workers_share_the_port_and_stop_together(
    postgres_db_url: str, redis_url: str, prefix: str
) -> None:
    """``serve --workers 2``: both processes answer on the one port and list the
    same open rooms, a room of bots is played to its end (its holder runs the
    bots, either answers for it), and SIGTERM stops them all (exit 0)."""
    flags = cluster_flags(redis_url, prefix)
    with server_process(postgres_db_url, "--workers", "2", *flags) as (base, supervisor):
        answered: set[str] = set()
        for _ in range(200):  # the kernel hands each new connection to one of them
            answered.add(httpx.get(f"{base}/health", timeout=5).json()["process"])
            if len(answered) == 2:
                break
        assert len(answered) == 2, answered
        made = httpx.post(
            f"{base}/api/rooms",
            json={"game": "poison-pot", "players": 2, "seats": ["random", "random"]},
            timeout=5,
        ).json()
        for _ in range(6):  # the lobby's list is the same whichever process answers
            listed = httpx.get(f"{base}/api/rooms", timeout=5).json()
            assert [room["code"] for room in listed] == [made["code"]], listed
        started = httpx.post(
            f"{base}/api/rooms/{made['code']}/start",
            headers={"Authorization": f"Bearer {made['host_token']}"},
            timeout=5,
        )
        assert started.status_code == 200, started.text
        for _ in range(300):  # the bots play it out on the process holding it
            if httpx.get(f"{base}/api/rooms/{made['code']}", timeout=5).json()["status"] == "over":
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the bots did not finish within 15 s")
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(30) == 0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
def test_kill_9_of_the_supervisor_leaves_nothing_serving(
    postgres_db_url: str, redis_url: str, prefix: str
) -> None:
    """``serve --workers 2`` killed outright: its server processes stop by
    themselves, and their bot pools and the resource tracker with them, so a
    server started again gets the port. Before, both went on serving on it."""
    flags = (*cluster_flags(redis_url, prefix), "--workers", "2", "--workers-for-bots", "1")
    port = free_port()
    with server_process(postgres_db_url, *flags, port=port) as (base, supervisor):
        bots_play_a_game(base)
        kill_leaves_nothing(supervisor, "multiprocessing.spawn")
    with server_process(postgres_db_url, *flags, port=port) as (base, _supervisor):
        bots_play_a_game(base)


def test_processes_starting_at_once_on_a_new_database_migrate_it_once(
    postgres_db_url: str,
) -> None:
    """Several processes (on several hosts) may start together on an empty
    database: they take turns to migrate, and none fails."""
    failures: list[BaseException] = []

    def start() -> None:
        store = Store(postgres_db_url)
        try:
            store.migrate()
        except BaseException as error:  # collected: a thread's exception is lost otherwise
            failures.append(error)
        finally:
            store.close()

    threads = [threading.Thread(target=start, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    # Without the turns, concurrent CREATE TABLEs deadlock or collide (tried once).
    assert not any(thread.is_alive() for thread in threads), "a migration hangs"
    assert failures == []
    store = Store(postgres_db_url)
    assert store.revision() is not None
    store.close()
