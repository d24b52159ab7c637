"""The store's group commit: the commits of several rooms queued in one tick go
to the database in one transaction, nobody is told before it has committed, a
failed group gives each room its own result, and one room's commits keep their
order. On SQLite and on a real PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from apothecary.server import store as store_module
from apothecary.server.room import ActionRow, Changes, Room, Settings
from apothecary.server.store import Store


@pytest.fixture
def store(request: pytest.FixtureRequest, db_url: str) -> Store:
    made = Store(db_url)
    made.migrate()
    request.addfinalizer(made.close)
    return made


class Statements:
    """Every statement the store's engine runs and every transaction it commits,
    counted by SQLAlchemy's event hooks."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.seen: list[tuple[str, bool, int]] = []
        self.commits = 0
        self.on_commit: list[Any] = []
        self.action_params: list[list[int]] = []

    def statement(
        self, _conn: Any, _cursor: Any, text: str, params: Any, _ctx: Any, many: bool
    ) -> None:
        self.seen.append((" ".join(text.split()), many, len(params) if many else 1))
        if text.lstrip().startswith("INSERT INTO actions"):
            rows = params if many else [params]
            self.action_params.append([_step(row) for row in rows])

    def commit(self, _conn: Any) -> None:
        self.commits += 1
        for hook in self.on_commit:
            hook()

    def inserts_into(self, table: str) -> list[tuple[str, bool, int]]:
        return [s for s in self.seen if s[0].startswith(f"INSERT INTO {table} ")]


def _step(row: Any) -> int:
    # The step of one action row as the driver got it: a mapping (named
    # parameters) or a tuple in the columns' order (room, game_no, step, ...).
    if isinstance(row, dict):
        return int(row["step"])
    return int(row[2])


@pytest.fixture
def statements(store: Store) -> Iterator[Statements]:
    counted = Statements(store.engine)
    sa.event.listen(store.engine, "before_cursor_execute", counted.statement)
    sa.event.listen(store.engine, "commit", counted.commit)
    yield counted
    sa.event.remove(store.engine, "before_cursor_execute", counted.statement)
    sa.event.remove(store.engine, "commit", counted.commit)


def started_room(store: Store, seed: str) -> Room:
    """A two-seat In Vino Morte room of two people, committed as started."""
    room, _ = Room.create("in-vino-morte", 2, {}, ["open", "open"], Settings(), 0.0, seed)
    room.claim("Ann")
    room.claim("Bob")
    store.commit(room, Changes(), 0.0)
    store.commit(room, room.start(1.0), 1.0)
    while (pending := room.pending()) is not None and pending.kind == "chance":
        store.commit(room, room.apply(room.chance_action(), 1.5), 1.5)
    return room


def move(room: Room, now: float) -> Changes:
    """The room's first legal move, then any chance after it, as one change."""
    state = room.state
    assert state is not None
    changes = room.apply(state.legal_actions()[0], now)
    while (pending := room.pending()) is not None and pending.kind == "chance":
        changes.extend(room.apply(room.chance_action(), now))
    return changes


def steps_of(store: Store, code: str) -> list[int]:
    with store.engine.connect() as connection:
        return list(
            connection.execute(
                sa.text("SELECT step FROM actions WHERE room = :r ORDER BY step"), {"r": code}
            ).scalars()
        )


def told_before_commit(
    store: Store, statements: Statements, monkeypatch: pytest.MonkeyPatch, rooms: list[Room]
) -> list[bool]:
    """Commit a move of each room through the group commit, all queued in one
    tick; whether each waiter's future was resolved when the COMMIT ran."""
    made: list[store_module._Queued] = []

    class Recorded(store_module._Queued):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(store_module, "_Queued", Recorded)
    told: list[bool] = []
    statements.on_commit.append(lambda: told.extend(q.done.done() for q in made))

    async def all_rooms() -> None:
        await asyncio.gather(*(store.commit_grouped(room, move(room, 5.0), 5.0) for room in rooms))

    asyncio.run(all_rooms())
    store._writer().submit(lambda: None).result()  # the writer is done with the group
    statements.on_commit.clear()
    return told


def test_two_rooms_commits_go_in_one_transaction(
    store: Store, statements: Statements, monkeypatch: pytest.MonkeyPatch
) -> None:
    rooms = [started_room(store, f"seed-{n}") for n in range(2)]
    before = {room.code: steps_of(store, room.code) for room in rooms}
    statements.seen.clear()
    statements.commits = 0
    told = told_before_commit(store, statements, monkeypatch, rooms)
    assert statements.commits == 1, statements.seen
    # No waiter was told before the COMMIT.
    assert told == [False, False]
    # One statement inserted both rooms' actions, one updated both rooms' rows.
    inserts = statements.inserts_into("actions")
    assert len(inserts) == 1 and inserts[0][1], inserts
    assert sum(1 for s in statements.seen if s[0].startswith("UPDATE rooms ")) == 1
    for room in rooms:
        assert len(steps_of(store, room.code)) > len(before[room.code])
    assert store.groups_split == 0


def test_the_told_before_commit_check_catches_an_early_answer(
    store: Store, statements: Statements, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above, against a planted writer that answers its waiters
    before it writes their group."""

    def answers_first(self: Store, group: list[store_module._Queued]) -> None:
        for queued in group:
            store_module._settle(queued, None)
        self._commit_group(group)

    monkeypatch.setattr(Store, "_deliver", answers_first)
    rooms = [started_room(store, f"early-{n}") for n in range(2)]
    assert told_before_commit(store, statements, monkeypatch, rooms) == [True, True]


def test_a_move_rewrites_only_the_rooms_changed_columns(
    store: Store, statements: Statements
) -> None:
    room = started_room(store, "narrow")
    statements.seen.clear()
    store.commit(room, move(room, 6.0), 6.0)
    updates = [s[0] for s in statements.seen if s[0].startswith("UPDATE rooms ")]
    assert len(updates) == 1
    set_clause = updates[0].split(" WHERE ")[0]
    for column in ("seats", "settings", "options", "host_hash", "seed", "game "):
        assert column not in set_clause + " ", updates[0]
    assert "updated" in set_clause and "alive" in set_clause
    # And the room still comes back as it is.
    again = store.load(room.code)
    assert again is not None
    assert again.snapshot() == room.snapshot()
    assert again.view(0) == room.view(0)


def test_a_failed_group_gives_each_room_its_own_result(store: Store) -> None:
    good, bad = started_room(store, "good"), started_room(store, "bad")
    store.commit(bad, move(bad, 8.0), 8.0)
    stored_bad = steps_of(store, bad.code)
    clash = Changes(actions=[ActionRow(1, stored_bad[0], 0, "x", 0, 9.0)])  # a step stored

    async def both() -> list[Any]:
        return await asyncio.gather(
            store.commit_grouped(good, move(good, 9.0), 9.0),
            store.commit_grouped(bad, clash, 9.0),
            return_exceptions=True,
        )

    good_result, bad_result = asyncio.run(both())
    assert good_result is None
    assert isinstance(bad_result, sa.exc.IntegrityError)
    assert store.groups_split == 1
    assert steps_of(store, bad.code) == stored_bad
    again = store.load(good.code)
    assert again is not None and again.snapshot() == good.snapshot()
    assert again.state is not None and good.state is not None
    assert again.state.history() == good.state.history()


def test_one_rooms_commits_keep_their_order(store: Store, statements: Statements) -> None:
    room = started_room(store, "order")
    first = move(room, 7.0)
    second = move(room, 8.0)

    async def in_order() -> None:
        await asyncio.gather(
            store.commit_grouped(room, first, 7.0), store.commit_grouped(room, second, 8.0)
        )

    groups = store.groups
    asyncio.run(in_order())
    # A room is never twice in one group: its two commits were two transactions.
    assert store.groups == groups + 2
    written = [step for params in statements.action_params for step in params]
    assert written[-len(first.actions) - len(second.actions) :] == [
        a.step for a in first.actions + second.actions
    ]
    again = store.load(room.code)
    assert again is not None and again.state is not None and room.state is not None
    assert again.state.history() == room.state.history()


def test_a_room_whose_lease_was_taken_fails_alone_in_its_group(store: Store) -> None:
    """A cluster's commit renews each room's lease (one executemany for the
    group); a room another process took meanwhile gets LeaseLost, and the
    other room of the group is written."""
    lease = ("me", 60.0)
    kept, taken = started_room(store, "kept"), started_room(store, "taken")
    for room in (kept, taken):
        assert store.acquire(room.code, "me", 60.0) is True
        store.commit(room, move(room, 8.0), 8.0, lease)
    with store.engine.begin() as connection:  # the lease ran out, and another took it
        connection.execute(
            sa.text("UPDATE leases SET expires = 0 WHERE room = :r"), {"r": taken.code}
        )
    assert store.acquire(taken.code, "other", 60.0) is True
    stored_taken = steps_of(store, taken.code)

    async def both() -> list[Any]:
        return await asyncio.gather(
            store.commit_grouped(kept, move(kept, 9.0), 9.0, lease),
            store.commit_grouped(taken, move(taken, 9.0), 9.0, lease),
            return_exceptions=True,
        )

    kept_result, taken_result = asyncio.run(both())
    assert kept_result is None
    assert isinstance(taken_result, store_module.LeaseLost)
    assert store.groups_split == 1
    assert steps_of(store, taken.code) == stored_taken
    again = store.load(kept.code)
    assert again is not None and again.state is not None and kept.state is not None
    assert again.state.history() == kept.state.history()
