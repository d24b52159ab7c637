"""An uploaded record is kept in parts on the store's one writer, so other
rooms' commits go between them (issue 28 item 1: a 17,000-action upload held
every room's commits, a chat's round trip ×50); a part-kept upload is never
resumed, and one a stopped server left is deleted at the next start."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import random_play

from apothecary.core.registry import load
from apothecary.server import replays as replays_module
from apothecary.server.replays import Replays, read_finished, record_rows
from apothecary.server.store import IMPORTING, Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    made = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    made.migrate()
    yield made
    made.close()


def long_record() -> Any:
    return random_play.random_record(load("little-drop-of-poison", 3, target=15), 7)


def upload_beside_other_writes(
    store: Store, monkeypatch: pytest.MonkeyPatch, part: int
) -> tuple[str, list[str]]:
    """Upload the long record while another room keeps writing; the writer's
    order of work: "part" for each of the upload's parts, "other" for the rest."""
    monkeypatch.setattr(replays_module, "IMPORT_PART", part)
    order: list[str] = []
    keep_part = store.import_steps

    def logged_part(steps: list[dict[str, Any]]) -> None:
        order.append("part")
        keep_part(steps)

    monkeypatch.setattr(store, "import_steps", logged_part)
    replays = Replays(store, analysis_workers=0, replay_workers=0)

    async def both() -> str:
        done = asyncio.Event()

        async def other() -> None:
            while not done.is_set():
                await store.run(order.append, "other")

        writes = asyncio.create_task(other())
        try:
            return await replays.upload(long_record())
        finally:
            done.set()
            await writes

    try:
        return asyncio.run(both()), order
    finally:
        replays.close()


def test_other_writes_go_between_the_parts_of_a_long_upload(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = long_record()
    code, order = upload_beside_other_writes(store, monkeypatch, 100)
    parts = [i for i, what in enumerate(order) if what == "part"]
    assert len(parts) == -(-len(record.actions) // 100)
    between = order[parts[0] : parts[-1]]
    assert between.count("other") >= len(parts) - 1  # another write after every part
    notation, _ = store.game_actions(code, 1)
    assert notation == list(record.actions)  # every part kept, in order
    assert read_finished(store, code, 1).row["status"] == "over"


def test_the_check_sees_one_transaction_as_no_room_between(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The planted regression: the whole record in one part leaves no gap for others.
    _, order = upload_beside_other_writes(store, monkeypatch, 10**9)
    assert order.count("part") == 1


def test_a_part_kept_upload_is_not_resumed_and_is_dropped_later(store: Store) -> None:
    checked = replays_module.check_record(long_record())
    row, steps = record_rows(checked, now=1000.0)
    store.begin_import(row, list(checked.seats), checked.outcome)
    store.import_steps(steps[:50])  # the server stops here
    code = row["code"]
    assert store.load_active() == [] and store.orphans() == []
    loaded = store.load(code)
    assert loaded is not None and loaded.status == IMPORTING
    assert store.drop_imports(before=999.0) == 0  # too recent: may still be being kept
    assert store.drop_imports(before=1001.0) == 1
    assert store.load(code) is None and store.game_actions(code, 1) == ([], [])
