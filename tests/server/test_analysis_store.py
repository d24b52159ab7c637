"""A finished game's analysis is kept in the database: a restarted server (or
another process on the same database) serves it at once, without valuing a
single decision again; a row it cannot read is recomputed, never served."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serving import app_client
from test_replays import play_out

from apothecary.core.records import Record
from apothecary.server import replays
from apothecary.server.replays import ANALYSIS_FORMAT, Analyses
from apothecary.server.room import Room, Settings
from apothecary.server.store import Store, analyses


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'db.sqlite3'}"


@pytest.fixture
def valued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seed of every decision any server in this test values (each is one
    call of :meth:`Analyses.value`, the pool's work)."""
    seeds: list[int] = []
    original = Analyses.value

    async def counted(
        self: Analyses, state: Any, the_plan: Any, seed: int, owner: object = None
    ) -> dict[str, Any]:
        seeds.append(seed)
        return await original(self, state, the_plan, seed, owner)

    monkeypatch.setattr(Analyses, "value", counted)
    return seeds


def finished_record() -> Record:
    """A short finished game (In Vino Morte with Cheese: every decision played out)."""
    room, _ = Room.create(
        "in-vino-morte", 3, {"cheese": True}, ["random"] * 3, Settings(), 0.0, seed="kept"
    )
    room.start(0.0)
    play_out(room)
    assert room.state is not None
    return Record.from_state(room.state)


def analysed(client: TestClient, path: str) -> dict[str, Any]:
    """POST the analysis (start-or-get, as the replay page does) until it is over."""
    job: dict[str, Any] = client.post(path).json()
    deadline = time.monotonic() + 60
    while job["status"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = client.post(path).json()
    assert job["status"] == "done", job
    return job


def first_server(url: str, valued: list[int]) -> tuple[str, dict[str, Any]]:
    """A server that imports a game and analyses it to the end: the analysis's
    path and the finished job. Every decision was valued once."""
    with app_client(url) as client:
        code = client.post("/api/replays", content=finished_record().dumps()).json()["code"]
        path = f"/api/replays/{code}/1/analysis"
        job = analysed(client, path)
    assert job["done"] == job["total"] == len(valued) > 0
    valued.clear()
    return path, job


def test_a_restarted_server_serves_the_finished_analysis_without_computing(
    db_url: str, valued: list[int]
) -> None:
    path, job = first_server(db_url, valued)
    # A new app over the same database: nothing of the first is in its memory.
    with app_client(db_url) as client:
        looked = client.get(path)  # a process that never started it finds it too
        assert looked.status_code == 200 and looked.json() == job
        started = client.post(path).json()
        assert started == job  # done on the first answer: no progress to wait for
    assert valued == []


def test_with_the_write_disabled_a_restarted_server_computes_again(
    sqlite_url: str, valued: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planted failure the test above must catch: no analysis written, so
    the second server values every decision again (and GET finds nothing)."""
    monkeypatch.setattr(Store, "keep_analysis", lambda *_args: False)
    path, job = first_server(sqlite_url, valued)
    with app_client(sqlite_url) as client:
        assert client.get(path).status_code == 404
        again = analysed(client, path)
    assert again == job  # the same seeded analysis ...
    assert len(valued) == job["total"]  # ... valued decision by decision again


def test_a_write_that_fails_is_logged_and_the_analysis_still_shown(
    sqlite_url: str,
    valued: list[int],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*_args: object) -> bool:
        raise sa.exc.OperationalError("INSERT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(Store, "keep_analysis", broken)
    with caplog.at_level("WARNING", logger="apothecary.server.replays"):
        _path, job = first_server(sqlite_url, valued)
    assert job["error"] is None
    assert "could not be kept" in caplog.text and "disk I/O error" in caplog.text


def stored_rows(url: str) -> list[dict[str, Any]]:
    store = Store(url)
    try:
        with store.engine.connect() as connection:
            return [dict(row) for row in connection.execute(analyses.select()).mappings()]
    finally:
        store.close()


def tamper(url: str, statement: str) -> None:
    store = Store(url)
    try:
        with store.engine.begin() as connection:
            connection.execute(sa.text(statement))
    finally:
        store.close()


@pytest.mark.parametrize(
    ("damage", "statement"),
    [
        ("an older format", f"UPDATE analyses SET version = {ANALYSIS_FORMAT - 1}"),
        ("not JSON", "UPDATE analyses SET decisions = '{not json'"),
        ("not a list", """UPDATE analyses SET decisions = '{"step": 0}'"""),
        ("a decision short", "UPDATE analyses SET decisions = json_remove(decisions, '$[#-1]')"),
        ("a field missing", "UPDATE analyses SET decisions = json_remove(decisions, '$[0].best')"),
        ("steps shifted", "UPDATE analyses SET decisions = json_set(decisions, '$[0].step', 99)"),
    ],
)
def test_a_row_it_cannot_read_is_computed_again_not_served(
    sqlite_url: str, valued: list[int], damage: str, statement: str
) -> None:
    path, job = first_server(sqlite_url, valued)
    tamper(sqlite_url, statement)
    with app_client(sqlite_url) as client:
        # Nothing readable is kept, so nothing is found, and no error either.
        assert client.get(path).status_code == 404
        again = analysed(client, path)
    assert again == job and len(valued) == job["total"], damage
    current = [row for row in stored_rows(sqlite_url) if row["version"] == ANALYSIS_FORMAT]
    assert len(current) == 1 and current[0]["decisions"] == job["decisions"]
    valued.clear()
    with app_client(sqlite_url) as client:  # and the recomputed one is kept
        assert client.post(path).json() == job
    assert valued == []


def test_a_tampered_row_in_the_test_above_would_be_served_unchecked(
    sqlite_url: str, valued: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planted failure of the shape check: with it off, a row a decision
    short is served as the analysis (so that test's damage is real)."""
    monkeypatch.setattr(replays, "well_formed", lambda data, steps: True)
    path, job = first_server(sqlite_url, valued)
    tamper(sqlite_url, "UPDATE analyses SET decisions = json_remove(decisions, '$[#-1]')")
    with app_client(sqlite_url) as client:
        served = client.post(path).json()
    assert valued == [] and served["decisions"] == job["decisions"][:-1]


def test_processes_finishing_the_same_analysis_both_succeed(db_url: str) -> None:
    store = Store(db_url)
    store.migrate()
    try:
        code = replays.import_record(store, finished_record())
        kept = [{"step": 0}]
        assert store.keep_analysis(code, 1, "plan", ANALYSIS_FORMAT, kept, 1.0) is True
        # The second writer (another process, same seeded result) is ignored, not an error.
        assert store.keep_analysis(code, 1, "plan", ANALYSIS_FORMAT, [{"step": 1}], 2.0) is False
        assert store.kept_analysis(code, 1, "plan", ANALYSIS_FORMAT) == kept
        assert store.kept_analysis(code, 1, "other plan", ANALYSIS_FORMAT) is None
        assert store.kept_analysis(code, 1, "plan", ANALYSIS_FORMAT + 1) is None
        # A conflict of another kind is still an error: there is no such game.
        with pytest.raises(sa.exc.IntegrityError):
            store.keep_analysis(code, 2, "plan", ANALYSIS_FORMAT, kept, 1.0)
    finally:
        store.close()


@pytest.mark.parametrize("planted", [False, True])
def test_two_requests_at_once_start_one_analysis(
    sqlite_url: str, valued: list[int], planted: bool
) -> None:
    """Both requests look in memory and the store before either has launched
    anything; the start lock makes the second find the first's job. Planted:
    without the lock the game is valued twice (which the check must see)."""
    store = Store(sqlite_url)
    store.migrate()
    code = replays.import_record(store, finished_record())
    played = replays.Played.of(replays.load_finished(store, code, 1))

    async def both() -> tuple[replays.Job, replays.Job]:
        jobs = Analyses(store, workers=0)
        if planted:
            jobs._starting = contextlib.nullcontext()  # type: ignore[assignment]
        try:
            first, second = await asyncio.gather(
                jobs.start((code, 1), played), jobs.start((code, 1), played)
            )
            for job in {id(first): first, id(second): second}.values():
                assert job.task is not None
                await job.task
            return first, second
        finally:
            jobs.close()

    try:
        first, second = asyncio.run(both())
    finally:
        store.close()
    assert first.done == first.total > 0 and first.decisions == second.decisions
    if planted:
        assert first is not second and len(valued) == 2 * first.total
    else:
        assert first is second and len(valued) == first.total
