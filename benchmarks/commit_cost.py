"""What a move's commit costs the database: statements, bytes, and the group
commit's group size and throughput, on SQLite and on PostgreSQL.

    .venv/bin/python benchmarks/commit_cost.py [--moves 200] [--rooms 1,10,50,200]
        [--seconds 3] [--latency 2000] [--no-postgres] [--json FILE]

**Per move, every game.** For each registered game (its default player
count, a person in every seat), a room plays seeded random moves, chance
drawn by the room and a rematch when a game ends, and each move is committed
alone by ``Store.commit``. SQLAlchemy's ``before_cursor_execute`` hook counts
each statement the driver is given (an executemany is one, its rows counted
apart), and the bytes handed to it: the SQL text plus each parameter (text
as UTF-8, a number as 8 bytes, JSON as its text). BEGIN and COMMIT are not
statements the driver is given and are not counted; transactions are
counted by the engine's ``commit`` event. Each game is measured twice: with
the store's memory of the room's row wiped before every commit ("whole
row": every commit rewrites the whole room row, as every commit did before
the narrow update), and as the store runs. On PostgreSQL the WAL the moves
wrote is read too (``pg_current_wal_insert_lsn`` before and after).

**Group commit.** N rooms of the first game each play as fast as their
commits return, every move through ``Store.commit_grouped`` (the hub's
path) on one event loop, for ``--seconds`` after an uncounted warm-up: moves
a second, the mean group (commits per transaction), statements and bytes a
move, and the process's CPU per move (the benchmark's own move making
included, the same in both paths). The same is run with each commit alone on
the writer (``Store.run(Store.commit, ...)``, the path before grouping), for
comparison. Then one room's ``--latency`` commits alternate between the two
paths, each timed: what grouping costs a room with nobody to group with.

PostgreSQL is a throwaway cluster started as the tests start theirs
(tests/support/services.py: fsync and synchronous_commit off), so its
figures are the database's work, not a disk's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from apothecary.core import registry
from apothecary.server.room import Changes, Room, Settings
from apothecary.server.store import Store


def _size(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, bool | int | float):
        return 8
    if hasattr(value, "obj"):  # psycopg's Json wrapper: the driver sends its JSON text
        return len(json.dumps(value.obj).encode())
    if isinstance(value, dict):
        return sum(_size(v) for v in value.values())
    if isinstance(value, list | tuple):
        return sum(_size(v) for v in value)
    return len(json.dumps(value, default=str))


class Counter:
    """The statements, rows, bytes and transactions an engine's driver is given."""

    def __init__(self, engine: sa.Engine) -> None:
        self.statements = self.rows = self.bytes = self.transactions = 0
        sa.event.listen(engine, "before_cursor_execute", self._statement)
        sa.event.listen(engine, "commit", self._commit)

    def _statement(self, _c: Any, _cur: Any, text: str, params: Any, _ctx: Any, many: bool) -> None:
        self.statements += 1
        self.rows += len(params) if many else 1
        self.bytes += len(text.encode()) + _size(params)

    def _commit(self, _c: Any) -> None:
        self.transactions += 1

    def snapshot(self) -> tuple[int, int, int, int]:
        """The counts so far."""
        return self.statements, self.rows, self.bytes, self.transactions


def _room(game: str, seed: str) -> Room:
    players = registry.load(game).num_players
    room, _ = Room.create(game, players, {}, None, Settings(), 0.0, seed=seed)
    for seat in range(players):
        room.claim(f"P{seat}", seat)
    return room


def _next(room: Room, rng: random.Random, now: float) -> Changes:
    """The room's next change as the hub makes one: a move (or a rematch after a
    finished game) and any chance that follows it."""
    if room.status == "over":
        changes = room.rematch(now)
    else:
        state = room.state
        assert state is not None
        changes = room.apply(rng.choice(state.legal_actions()), now)
    while (pending := room.pending()) is not None and pending.kind == "chance":
        changes.extend(room.apply(room.chance_action(), now))
    return changes


def _wal(store: Store) -> int | None:
    if store.url.get_backend_name() != "postgresql":
        return None
    with store.engine.connect() as connection:
        wal = sa.text("SELECT pg_current_wal_insert_lsn() - '0/0'")
        return int(connection.execute(wal).scalar_one())


def per_move(url: str, game: str, moves: int, whole: bool) -> dict[str, Any]:
    """One room of ``game`` committing ``moves`` changes one by one: the cost of each."""
    store = Store(url)
    store.migrate()
    try:
        room = _room(game, f"cost-{game}-{whole}")
        store.commit(room, Changes(), 0.0)
        store.commit(room, room.start(1.0), 1.0)
        rng = random.Random(7)
        wal_before = _wal(store)
        counter = Counter(store.engine)  # after the WAL query, and read before the next
        for n in range(moves):
            if whole:
                store._written.clear()  # the row written whole, as before the narrow update
            now = 2.0 + n
            store.commit(room, _next(room, rng, now), now)
        statements, rows, sent, transactions = counter.snapshot()
        wal_after = _wal(store)
        return {
            "game": game,
            "whole_row": whole,
            "statements": statements / moves,
            "rows": rows / moves,
            "bytes": sent / moves,
            "transactions": transactions / moves,
            "wal_bytes": None
            if wal_before is None or wal_after is None
            else (wal_after - wal_before) / moves,
        }
    finally:
        store.close()


async def _play(store: Store, rooms: list[Room], seconds: float, grouped: bool) -> int:
    deadline = time.monotonic() + seconds
    made = 0

    async def one(room: Room, seed: int) -> None:
        nonlocal made
        rng = random.Random(seed)
        now = 2.0
        while time.monotonic() < deadline:
            now += 1.0
            changes = _next(room, rng, now)
            if grouped:
                await store.commit_grouped(room, changes, now)
            else:
                await store.run(store.commit, room, changes, now)
            made += 1

    await asyncio.gather(*(one(room, n) for n, room in enumerate(rooms)))
    return made


def throughput(url: str, game: str, count: int, seconds: float, grouped: bool) -> dict[str, Any]:
    """``count`` rooms committing as fast as their commits return, for ``seconds``."""
    store = Store(url)
    store.migrate()
    try:
        rooms = [_room(game, f"load-{count}-{grouped}-{n}") for n in range(count)]
        for room in rooms:
            store.commit(room, Changes(), 0.0)
            store.commit(room, room.start(1.0), 1.0)
        # A warm-up first, not counted: the engine's compiled-statement cache and
        # the driver's prepared statements are filled as a running server's are.
        asyncio.run(_play(store, rooms, min(0.5, seconds / 4), grouped))
        groups, grouped_commits = store.groups, store.grouped
        counter = Counter(store.engine)
        cpu, wall = time.process_time(), time.monotonic()
        made = asyncio.run(_play(store, rooms, seconds, grouped))
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        statements, _rows, sent, transactions = counter.snapshot()
        return {
            "rooms": count,
            "grouped": grouped,
            "moves_per_s": made / wall,
            "mean_group": (store.grouped - grouped_commits) / max(1, store.groups - groups),
            "transactions_per_s": transactions / wall,
            "statements_per_move": statements / max(1, made),
            "bytes_per_move": sent / max(1, made),
            "cpu_us_per_move": 1e6 * cpu / max(1, made),
        }
    finally:
        store.close()


def latency(url: str, game: str, commits: int) -> dict[str, float]:
    """One room's commits, every other one grouped and the rest alone on the
    writer, each timed from the call to its return: the two paths side by side,
    so a machine whose load drifts treats them alike. Medians in µs."""
    store = Store(url)
    store.migrate()
    try:
        room = _room(game, "latency")
        store.commit(room, Changes(), 0.0)
        store.commit(room, room.start(1.0), 1.0)
        rng = random.Random(3)
        times: dict[bool, list[float]] = {False: [], True: []}

        async def play() -> None:
            for n in range(commits + 100):
                now = 2.0 + n
                changes = _next(room, rng, now)
                grouped = n % 2 == 0
                started = time.perf_counter()
                if grouped:
                    await store.commit_grouped(room, changes, now)
                else:
                    await store.run(store.commit, room, changes, now)
                if n >= 100:  # the first hundred warm the caches
                    times[grouped].append(time.perf_counter() - started)

        asyncio.run(play())
        return {
            "alone_us": 1e6 * statistics.median(times[False]),
            "grouped_us": 1e6 * statistics.median(times[True]),
        }
    finally:
        store.close()


@contextmanager
def _sqlite() -> Iterator[Callable[[str], str]]:
    with tempfile.TemporaryDirectory() as folder:
        yield lambda name: f"sqlite:///{Path(folder) / name}.sqlite3"


@contextmanager
def _postgres() -> Iterator[Callable[[str], str]]:
    from services import postgres_server

    with postgres_server("commit_cost") as url:
        engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")

        def fresh(name: str) -> str:
            with engine.connect() as connection:
                connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
            return str(sa.engine.make_url(url).set(database=name).render_as_string(False))

        try:
            yield fresh
        finally:
            engine.dispose()


def main(argv: list[str] | None = None) -> None:
    """Run the measurements; print a table per part, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--rooms", default="1,10,50,200")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--latency", type=int, default=2000, help="commits timed one by one")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    backends: list[tuple[str, Callable[[], Any]]] = [("sqlite", _sqlite)]
    if not args.no_postgres:
        backends.append(("postgresql", _postgres))
    games = registry.games()
    for backend, make in backends:
        with make() as url_for:
            print(f"\n{backend}: per move (one commit each)")
            print("game | whole row | statements | rows | bytes | transactions | WAL bytes")
            costs = []
            for game in games:
                for whole in (True, False):
                    name = f"m_{game.replace('-', '_')}_{int(whole)}"
                    cost = per_move(url_for(name), game, args.moves, whole)
                    costs.append(cost)
                    wal = "-" if cost["wal_bytes"] is None else f"{cost['wal_bytes']:.0f}"
                    print(
                        f"{game} | {whole} | {cost['statements']:.2f} | {cost['rows']:.2f} |"
                        f" {cost['bytes']:.0f} | {cost['transactions']:.2f} | {wal}"
                    )
            print(f"\n{backend}: {games[0]} rooms committing at once, {args.seconds} s each")
            print(
                "rooms | grouped | moves/s | mean group | transactions/s"
                " | statements/move | bytes/move | CPU µs/move"
            )
            loads = []
            for count in (int(n) for n in args.rooms.split(",")):
                for grouped in (False, True):
                    name = f"t_{count}_{int(grouped)}"
                    load = throughput(url_for(name), games[0], count, args.seconds, grouped)
                    loads.append(load)
                    print(
                        f"{count} | {grouped} | {load['moves_per_s']:.0f} |"
                        f" {load['mean_group']:.1f} | {load['transactions_per_s']:.0f} |"
                        f" {load['statements_per_move']:.2f} | {load['bytes_per_move']:.0f} |"
                        f" {load['cpu_us_per_move']:.0f}"
                    )
            one = latency(url_for("l_room"), games[0], args.latency)
            print(
                f"\n{backend}: one {games[0]} room, {args.latency} commits, the paths"
                f" interleaved: median {one['alone_us']:.0f} µs alone,"
                f" {one['grouped_us']:.0f} µs grouped"
            )
            results[backend] = {"per_move": costs, "load": loads, "latency": one}
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
