"""The store, on SQLite and on a real PostgreSQL: the same tests on both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from apothecary.server.room import ActionRow, Changes, Room, Settings
from apothecary.server.store import (
    Store,
    StoreError,
    alembic_config,
    metadata,
    normalise_url,
    rooms,
)

HEAD = "0012"
"""The newest migration."""


@pytest.fixture
def store(request: pytest.FixtureRequest, db_url: str) -> Store:
    made = Store(db_url)
    made.migrate()
    request.addfinalizer(made.close)
    return made


def played_room(store: Store, steps: int) -> Room:
    """A room of three people (one a bot) committed after each of ``steps`` actions."""
    room, _ = Room.create(
        "in-vino-morte", 3, {"cheese": True}, ["open", "easy", "open"], Settings(), 0.0, "seed"
    )
    room.claim("Ann")
    room.claim("Bob")
    store.commit(room, Changes(), 0.0)
    store.commit(room, room.start(1.0), 1.0)
    for step in range(steps):
        pending = room.pending()
        assert pending is not None
        state = room.state
        assert state is not None
        if pending.kind == "chance":
            action = room.chance_action()
        else:
            action = state.legal_actions()[step % len(state.legal_actions())]
        store.commit(room, room.apply(action, 2.0 + step), 2.0 + step)
    store.commit(room, room.say(0, "cheers", 3.0), 3.0)
    return room


def test_a_room_comes_back_as_it_was(store: Store) -> None:
    room = played_room(store, 5)
    again = store.load(room.code)
    assert again is not None
    assert again.snapshot() == room.snapshot()
    assert again.state is not None and room.state is not None
    assert again.state.history() == room.state.history()
    for viewer in [0, 1, 2, None]:
        assert again.view(viewer) == room.view(viewer)
    assert again.chat == room.chat
    assert [r.code for r in store.load_active()] == [room.code]
    notation, seating = store.game_actions(room.code, 1)
    assert notation == room.state.history_notation()
    assert seating == ["Ann", "easy bot", "Bob"]
    assert store.load("no-such-room") is None


def test_a_failed_commit_writes_nothing(store: Store) -> None:
    room = played_room(store, 3)
    before = store.game_actions(room.code, 1)
    state = room.state
    assert state is not None
    clash = Changes(
        actions=[
            ActionRow(1, 3, 0, "x", 0, 9.0),  # new ...
            ActionRow(1, 0, 0, "x", 0, 9.0),  # ... and a step already stored
        ],
        chat=[{"id": 99, "seat": 0, "name": "Ann", "text": "lost", "at": 9.0}],
    )
    with pytest.raises(sa.exc.IntegrityError):
        store.commit(room, clash, 9.0)
    assert store.game_actions(room.code, 1) == before
    loaded = store.load(room.code)
    assert loaded is not None and [m["text"] for m in loaded.chat] == ["cheers"]


def test_a_database_made_by_an_earlier_version_upgrades_in_place(tmp_path: Path) -> None:
    """Migrations are applied at start: a database at the first schema
    (before chat was kept) keeps its rooms and gains the chat table."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    old = Store(url)
    with old.engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0001")
    assert old.revision() == "0001"
    room, _ = Room.create("poison-pot", 2, {}, ["random", "random"], Settings(), 0.0, "s")
    with old.engine.begin() as connection:  # what the first version wrote
        connection.execute(
            sa.text(
                "INSERT INTO rooms (code, game, players, options, settings, seed, host_hash,"
                " seats, status, game_no, deadline, created, updated) VALUES (:code, :game,"
                " :players, :options, :settings, :seed, :host_hash, :seats, :status, :game_no,"
                " :deadline, :created, 0)"
            ),
            {
                **room.snapshot(),
                "options": "{}",
                "settings": '{"turn_seconds": null, "match_target": null, "listed": true,'
                ' "fallback_level": "medium"}',
                "seats": '[{"kind": "bot", "level": "random", "name": "", "token_hash": null,'
                ' "away": false, "wins": 0}, {"kind": "bot", "level": "random", "name": "",'
                ' "token_hash": null, "away": false, "wins": 0}]',
            },
        )
    old.close()
    new = Store(url)
    new.migrate()
    assert new.revision() == HEAD
    loaded = new.load(room.code)
    assert loaded is not None and loaded.snapshot() == room.snapshot()
    new.commit(loaded, loaded.say(0, "chat works now", 1.0), 1.0)
    reloaded = new.load(room.code)
    assert reloaded is not None and reloaded.chat[0]["text"] == "chat works now"
    new.close()


def schema_drift(store: Store) -> list[Any]:
    """How the migrated schema differs from the tables the code uses (none, at head)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with store.engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), metadata))


def test_a_database_at_0003_gains_the_analyses_table_and_keeps_its_rooms(db_url: str) -> None:
    """0004 adds the finished analyses: a database of the leases' version keeps
    its rooms and games, can keep an analysis of an old game, and goes back."""
    old = Store(db_url)
    old.migrate()
    room = played_room(old, 4)  # written by the code, then taken back to the 0003 schema
    with old.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0003")
    assert schema_drift(old) != []  # the planted difference: what 0004 and later add
    old.close()
    new = Store(db_url)
    new.migrate()
    try:
        assert new.revision() == HEAD
        assert schema_drift(new) == []
        loaded = new.load(room.code)
        assert loaded is not None and loaded.snapshot() == room.snapshot()
        assert new.keep_analysis(room.code, 1, "plan", 1, [{"step": 0}], 5.0)
        assert new.kept_analysis(room.code, 1, "plan", 1) == [{"step": 0}]
        with new.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0003")
        assert new.revision() == "0003"
        assert "analyses" not in sa.inspect(new.engine).get_table_names()
        new.migrate()
        again = new.load(room.code)
        assert again is not None and again.snapshot() == room.snapshot()
        assert new.kept_analysis(room.code, 1, "plan", 1) is None  # dropped with its table
    finally:
        new.close()


def test_0005_keeps_when_a_room_was_last_held_and_its_timer_resumes_from_then(
    db_url: str,
) -> None:
    """0005 adds rooms.alive: a database at 0004 upgrades in place; a timed room's
    deadline is pushed on by the time since it was last held (a row from before
    0005, which has no alive, counts from its last commit); and 0005 goes back."""
    old = Store(db_url)
    with old.engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0004")
    assert schema_drift(old) != []  # the planted difference: the column 0005 adds
    old.close()
    store = Store(db_url)
    store.migrate()
    try:
        assert store.revision() == HEAD and schema_drift(store) == []
        room, _ = Room.create(
            "in-vino-morte", 2, {}, ["open", "open"], Settings(turn_seconds=20.0), 0.0, "s"
        )
        room.claim("Ann")
        room.claim("Bob")
        store.commit(room, Changes(), 0.0)
        store.commit(room, room.start(100.0), 100.0)
        assert room.deadline == 120.0
        assert store.resume_clocks(130.0) == 1  # held by nobody from 100 to 130
        loaded = store.load(room.code)
        assert loaded is not None and loaded.deadline == 150.0
        assert store.resume_clocks(130.0) == 0  # resumed once, not again
        with store.engine.begin() as connection:  # as a row written before 0005
            connection.execute(
                rooms.update().where(rooms.c.code == room.code).values(alive=None, updated=140.0)
            )
        store.resume_clocks(160.0)
        loaded = store.load(room.code)
        assert loaded is not None and loaded.deadline == 170.0
        with store.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0004")
        assert "alive" not in {c["name"] for c in sa.inspect(store.engine).get_columns("rooms")}
        store.migrate()
        again = store.load(room.code)
        assert again is not None and again.snapshot() == loaded.snapshot()
    finally:
        store.close()


def test_0006_keeps_the_notices_and_goes_back(db_url: str) -> None:
    """0006 adds the notices: a database at 0005 keeps its rooms, then keeps what
    the log says of a seat handed to a bot, and drops the table going back."""
    old = Store(db_url)
    with old.engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0005")
    room = played_room(old, 3)  # written by the code, to a 0005 schema (no notices yet)
    assert schema_drift(old) != []  # the planted difference: the table 0006 adds
    old.close()
    store = Store(db_url)
    store.migrate()
    try:
        assert store.revision() == HEAD and schema_drift(store) == []
        store.commit(room, room.set_bot(0, "easy", 9.0), 9.0)
        loaded = store.load(room.code)
        assert loaded is not None and loaded.notices == room.notices != []
        with store.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0005")
        assert "notices" not in sa.inspect(store.engine).get_table_names()
    finally:
        store.close()


@pytest.mark.parametrize("url", ["nonsense", "nosuchdb://x/y"])
def test_a_bad_database_url_is_one_clear_error(url: str) -> None:
    with pytest.raises(StoreError, match="database"):
        Store(url).migrate()


def test_an_unreachable_database_is_one_clear_error() -> None:
    with pytest.raises(StoreError, match="cannot open database"):
        Store("postgresql://nobody@127.0.0.1:1/none").migrate()


def test_postgres_urls_get_the_installed_driver() -> None:
    assert normalise_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalise_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalise_url("sqlite:///x") == "sqlite:///x"
