"""Issue 28 item 1 against a real ``apothecary serve``: replays are rebuilt,
stepped and checked in the replay pool, each call within ``--replay-seconds``.
A planted replay that never finishes is stopped at the limit and answers 503
``replay_too_slow``, while another room plays to its end and /health answers;
the next replay is served by a fresh worker. Small and seeded; nothing asserts
how long anything took (only what finished before what)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from random_play import random_record
from serving import descendants, host_headers, make_room, server_process, sqlite_url

from apothecary.core.records import Record
from apothecary.core.registry import load

LIMIT = 10.0
"""The planted server's replay limit, in seconds: long enough that a small real
replay on a loaded machine fits, short enough for a quick test."""

PLANTED = """
import sys
import planted_thinking as planted
import apothecary.server.replays as replays
from apothecary.cli import main

# Planted: a game with a seat named "slow" never finishes rebuilding, in the
# real replay pool, within the real --replay-seconds.
replays.replay_work = planted.slow_replay_work
sys.argv[0] = "apothecary"
main()
"""


@contextmanager
def planted_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """A server with the slow replay planted: (base URL, its process id)."""
    launcher = [sys.executable, "-c", PLANTED]
    flags = ("--replay-seconds", str(LIMIT), "--pause-after", "3600")
    with server_process(sqlite_url(tmp_path), *flags, launcher=launcher) as (base, process):
        yield base, process.pid


def small_record(seed: int, *names: str) -> Record:
    """A short finished In Vino Morte game of three, its seats named."""
    record = random_record(load("in-vino-morte", 3), seed)
    record.seats = list(names)
    return record


def upload(client: httpx.Client, record: Record) -> str:
    sent = client.post("/api/replays", content=record.dumps())
    assert sent.status_code == 201, sent.text
    code: str = sent.json()["code"]
    return code


def test_a_replay_is_rebuilt_in_a_worker_process_not_the_servers(tmp_path: Path) -> None:
    with planted_server(tmp_path) as (base, pid), httpx.Client(base_url=base, timeout=60) as client:
        before = set(descendants(pid))
        code = upload(client, small_record(1, "Ann", "Bob", "Cy"))
        summary = client.get(f"/api/replays/{code}/1")
        assert summary.status_code == 200, summary.text
        assert summary.json()["names"] == ["Ann", "Bob", "Cy"]
        step = client.get(f"/api/replays/{code}/1/steps/2", params={"view": "0"})
        assert step.status_code == 200 and step.json()["step"] == 2, step.text
        # The server started a process for the replays (no bot pool: tests think
        # bots in a thread), and it still runs, holding the game rebuilt.
        assert set(descendants(pid)) - before


def test_a_replay_past_its_limit_is_stopped_while_another_room_plays(tmp_path: Path) -> None:
    with (
        planted_server(tmp_path) as (base, _pid),
        httpx.Client(base_url=base, timeout=60) as client,
    ):
        slow = upload(client, small_record(2, "slow", "Bob", "Cy"))
        quick = upload(client, small_record(3, "Ann", "Bob", "Cy"))
        answers: list[httpx.Response] = []
        asked = threading.Thread(
            target=lambda: answers.append(client.get(f"/api/replays/{slow}/1")), daemon=True
        )
        asked.start()
        # While the slow replay holds the pool's one worker, another room plays
        # to its end and the server's health answers.
        room = make_room(client, None, game="poison-pot", players=2, seats=["easy", "easy"])
        started = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
        assert started.status_code == 200, started.text
        played_on = _wait_over(client, room["code"], asked)
        health = client.get("/health")
        assert health.status_code == 200
        assert played_on and asked.is_alive(), "the room should end before the replay is stopped"
        asked.join(3 * LIMIT + 60)
        assert answers, "the slow replay was never answered"
        refused = answers[0]
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"] == "replay_too_slow"
        assert f"{LIMIT:g} s" in refused.json()["message"]
        # The worker was ended; a fresh one serves the next replay.
        served = client.get(f"/api/replays/{quick}/1")
        assert served.status_code == 200, served.text
        assert served.json()["names"] == ["Ann", "Bob", "Cy"]


def _wait_over(client: httpx.Client, code: str, asked: threading.Thread) -> bool:
    """Whether room ``code`` ended while ``asked`` was still waiting (False if
    ``asked`` was answered first)."""
    while asked.is_alive():
        shown: dict[str, Any] = client.get(f"/api/rooms/{code}").json()
        if shown["status"] == "over":
            return True
        asked.join(0.1)
    return False
