"""Finished games are kept by bytes, not by count, and rebuilt for a step view
from checkpoints, never from a copy of every position (issue 28 item 1); an
analysis's size is capped. Against a real ``apothecary serve`` where the
setting is its flag."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import random_play
from serving import server_process, sqlite_url

from apothecary.core.game import State
from apothecary.core.records import Record
from apothecary.core.registry import load
from apothecary.server.replays import (
    Finished,
    FinishedCache,
    Replays,
    frame,
    import_record,
    load_finished,
    read_finished,
    rebuild,
)
from apothecary.server.store import Store

EVERY = 64


def random_record(game: str, players: int, seed: int, **options: object) -> Record:
    """A finished game of seeded random play."""
    return random_play.random_record(load(game, players, **options), seed)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    made = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    made.migrate()
    yield made
    made.close()


def test_step_views_from_checkpoints_equal_a_full_replay(store: Store) -> None:
    record = random_record("little-drop-of-poison", 3, 7, target=15)
    length = len(record.actions)
    assert length > 10 * EVERY  # long enough for many checkpoints
    room = load_finished(store, import_record(store, record), 1)
    kept = Finished.of(room, EVERY)
    assert len(kept.checkpoints) == length // EVERY + 1  # not one a position
    steps = {0, 1, EVERY - 1, EVERY, EVERY + 1, length // 2, length - 1, length}
    steps |= set(random.Random(0).sample(range(length), 6))
    for step in sorted(steps):
        for view in ("all", "spectator", "0", "2"):
            assert frame(room, step, view, kept) == frame(room, step, view), (step, view)


def test_the_cache_holds_no_more_than_its_byte_budget(store: Store) -> None:
    codes = [import_record(store, random_record("in-vino-morte", 5, seed)) for seed in range(6)]
    stored = [read_finished(store, code, 1) for code in codes]
    sizes = [Finished.of(rebuild(game), EVERY).size for game in stored]
    budget = int(2.5 * max(sizes))
    cache = FinishedCache(budget)
    for game in stored:
        cache.get(game, EVERY)
        assert 0 < cache.size <= budget
    assert len(cache.kept) < len(codes)  # some left: the budget, not a count
    assert (codes[-1], 1) in [key[:2] for key in cache.kept]  # the one read last stays
    tiny = FinishedCache(min(sizes) - 1)
    served = tiny.get(stored[0], EVERY)  # larger than the whole budget
    assert served.room.state is not None and tiny.size == 0


def test_a_renamed_seating_is_not_served_from_the_cache(store: Store) -> None:
    # A deleted account's seat is renamed in the store; the cached rebuild of the
    # game must not keep showing the old name.
    code = import_record(store, random_record("in-vino-morte", 3, 4))
    stored = read_finished(store, code, 1)
    cache = FinishedCache()
    before = cache.get(stored, EVERY)
    renamed = dataclasses.replace(stored, seating=("deleted player", *stored.seating[1:]))
    after = cache.get(renamed, EVERY)
    assert after is not before and after.room.seating[0] != before.room.seating[0]
    assert cache.get(stored, EVERY) is before  # each seating keeps its own copy


def test_replays_with_no_pool_use_their_own_cache(store: Store) -> None:
    code = import_record(store, random_record("in-vino-morte", 3, 2))
    replays = Replays(store, analysis_workers=0, replay_workers=0, every=EVERY)
    shown = asyncio.run(replays.replay(code, 1, "frame", (3, "spectator")))
    assert shown["step"] == 3 and (code, 1) in [key[:2] for key in replays.cache.kept]
    replays.close()


def test_a_server_with_no_replay_cache_still_serves_step_views(tmp_path: Path) -> None:
    record = random_record("little-drop-of-poison", 3, 3, target=5)
    length = len(record.actions)
    with (
        server_process(sqlite_url(tmp_path), "--replay-cache-mb", "0") as (base, _process),
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        code = client.post("/api/replays", content=record.dumps()).json()["code"]
        for step in (0, length // 3, length):
            shown = client.get(f"/api/replays/{code}/1/steps/{step}", params={"view": "all"})
            assert shown.status_code == 200, shown.text
            assert shown.json()["step"] == step
        over = client.get(f"/api/replays/{code}/1/steps/{length + 1}")
        assert over.status_code == 400


def test_an_analysis_past_the_decision_cap_is_refused(tmp_path: Path) -> None:
    small = random_record("in-vino-morte", 3, 1)
    decisions = sum(1 for state in _positions(small) if state.current_player() >= 0)
    with (
        server_process(sqlite_url(tmp_path), "--analysis-decisions", str(decisions - 1)) as (
            base,
            _process,
        ),
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        code = client.post("/api/replays", content=small.dumps()).json()["code"]
        refused = client.post(f"/api/replays/{code}/1/analysis")
        assert refused.status_code == 413, refused.text
        assert refused.json()["error"] == "analysis_too_large"
        assert str(decisions) in refused.json()["message"]
    with (
        server_process(sqlite_url(tmp_path), "--analysis-decisions", str(decisions)) as (
            base,
            _process,
        ),
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        started = client.post(f"/api/replays/{code}/1/analysis")
        assert started.status_code == 200, started.text
        assert started.json()["total"] == decisions  # at the cap: started


def _positions(record: Record) -> Iterator[State]:
    """Each position before an action (the live replay: read, not kept)."""
    for index, state in enumerate(record.states()):
        if index < len(record.actions):
            yield state
