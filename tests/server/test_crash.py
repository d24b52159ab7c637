"""A crash (kill -9) in the middle of several games loses nothing and changes nothing.

Run A plays a few rooms to the end on a server that never crashes. Run B plays the same
rooms (same seeds, same scripted people) part way on a fresh database, kills the server
with SIGKILL, starts it again on that database, reconnects every person with their seat
token, and finishes the games: each finished record, and every event each seat was told,
must equal run A's. One room has a turn timer whose person never acts, so its fallback
bot takes over at the deadline; the crash falls while that deadline is pending, and the
restarted server must give the seat back the time it had when the server died (neither
forget the deadline, nor start the timer again, nor count the outage against it).

The scripted people choose deterministically from the update they are sent (the legal
action at index ``step * 7 % len(legal)``), and bots and chance are seeded by the room's
seed and the step, so a game does not depend on when it is played, only on what was
committed. Every wait is bounded, so a broken server fails the test instead of hanging it.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from serving import free_port, host_headers, make_room, server_process, sqlite_url
from websockets.sync.client import ClientConnection, connect

from apothecary.server.store import actions, leases, normalise_url, rooms

TURN_SECONDS = 10.0
"""The timer of the timed room: short, so the tests stay fast (10 s: at 5 s a loaded CI
machine once played the rooms part way past the deadline before the crash), and longer than a
server takes to start on a busy machine, so that a restarted server that counted the
outage against the seat (its bot playing as soon as the room is back) is told apart
from one that gives the seat its time back."""

WAIT = 60.0
"""The longest any phase may take before the test gives up."""


@dataclass(frozen=True)
class Plan:
    """One room of the scenario: the game, who sits where, and how the people play."""

    label: str
    game: str
    players: int
    options: dict[str, Any]
    seats: list[str]
    """Per seat: a person's name (prefixed ``@``) or a bot level."""
    idle: frozenset[int] = frozenset()
    """People who never act (the timer hands their seat to the fallback bot)."""
    pause_at: int = 0
    """Run B: the people stop acting at this step, until after the crash."""
    turn_seconds: float | None = None
    seed: str = ""

    def people(self) -> dict[int, str]:
        return {i: s[1:] for i, s in enumerate(self.seats) if s.startswith("@")}


PLANS = [
    Plan(
        "vino",
        "in-vino-morte",
        4,
        {},
        ["@ann", "easy", "@bob", "rules"],
        pause_at=2,
        seed="crash-vino",
    ),
    Plan(
        "pot",
        "poison-pot",
        2,
        {"radius": 2},
        ["@dan", "easy"],
        pause_at=12,
        seed="crash-pot",
    ),
    Plan(
        "drop",
        "little-drop-of-poison",
        3,
        {"target": 1},
        ["@eve", "@fay", "easy"],
        pause_at=8,
        seed="crash-drop",
    ),
    # Created last in run B, so that the crash falls while its deadline is pending.
    Plan(
        "tea",
        "tea-scones-arsenic",
        3,
        {},
        ["easy", "@cat", "rules"],
        idle=frozenset({1}),
        turn_seconds=TURN_SECONDS,
        seed="crash-tea",
    ),
]
IN_FLIGHT = "pot"
"""The room whose person sends an action just before the kill (committed or not)."""
TIMED = "tea"


def step_of(state_id: str) -> int:
    return int(state_id.split(":")[1])


@dataclass
class Person:
    """One scripted person on a WebSocket."""

    plan: Plan
    code: str
    seat: int
    token: str
    ws: ClientConnection | None = None
    sockets: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    last: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    acted: set[str] = field(default_factory=set)
    errors: list[dict[str, Any]] = field(default_factory=list)
    pause_at: int | None = None
    retry_after: float = 0.0

    @property
    def idle(self) -> bool:
        return self.seat in self.plan.idle

    def connect(self, base: str) -> dict[str, Any]:
        """Open a socket, say hello with the seat token; the welcome (checked: our seat)."""
        url = base.replace("http://", "ws://") + f"/ws/rooms/{self.code}"
        self.ws = self.sockets.enter_context(connect(url, open_timeout=10, close_timeout=1))
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        welcome: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
        assert welcome["type"] == "welcome", welcome
        assert welcome["you"] == self.seat, (self.plan.label, welcome["you"], self.seat)
        self.last, self.events, self.acted = None, [], set()
        return welcome

    def drop(self) -> None:
        with contextlib.suppress(Exception):
            self.sockets.close()
        self.ws = None

    def pump(self) -> bool:
        """Read what has arrived, and act if it is our turn; whether anything happened."""
        assert self.ws is not None
        busy = False
        while True:
            try:
                text = self.ws.recv(timeout=0)
            except TimeoutError:
                break
            busy = True
            message = json.loads(text)
            if message["type"] == "update":
                assert message["you"] == self.seat
                self.last = message
                self.events.extend(message["events"])
            elif message["type"] == "error":
                if message["error"] == "rate_limited":
                    self.acted.clear()  # that action was not taken: send it again soon
                    self.retry_after = time.monotonic() + 0.2
                else:
                    self.errors.append(message)
        if self.wants_to_act() and time.monotonic() >= self.retry_after:
            self.act()
            busy = True
        return busy

    def our_turn(self) -> bool:
        last = self.last
        return (
            last is not None
            and last["status"] == "playing"
            and last["waiting_for"] == "human"
            and last["to_move"] == self.seat
        )

    def wants_to_act(self) -> bool:
        if self.idle or not self.our_turn():
            return False
        assert self.last is not None
        state_id = self.last["state_id"]
        if state_id in self.acted:
            return False
        return self.pause_at is None or step_of(state_id) < self.pause_at

    def stalled(self) -> bool:
        """The room waits for us, and we will not act (idle, or paused); not merely
        waiting for the answer to an action we sent."""
        if not self.our_turn():
            return False
        assert self.last is not None
        state_id = self.last["state_id"]
        paused = self.pause_at is not None and step_of(state_id) >= self.pause_at
        return (self.idle or paused) and state_id not in self.acted

    def act(self) -> None:
        assert self.ws is not None and self.last is not None
        state_id = self.last["state_id"]
        legal = self.last["legal"]
        assert legal, self.last
        choice = legal[(step_of(state_id) * 7) % len(legal)]["id"]
        self.acted.add(state_id)
        self.ws.send(json.dumps({"type": "act", "action": choice, "state_id": state_id}))


@dataclass
class Table:
    """A room of the scenario on a server: its code, host and people."""

    plan: Plan
    room: dict[str, Any]
    people: list[Person]

    @property
    def code(self) -> str:
        return str(self.room["code"])

    def over(self) -> bool:
        return any(p.last is not None and p.last["status"] == "over" for p in self.people)

    def stalled(self) -> bool:
        """The room waits for a person who will not act, and everyone has been told."""
        if self.over() or not any(p.stalled() for p in self.people):
            return False
        return len({p.last["state_id"] for p in self.people if p.last is not None}) == 1

    def part_way(self) -> bool:
        """Stalled, or (which the test then reports) over already."""
        return self.stalled() or self.over()


def open_table(
    client: httpx.Client, base: str, plan: Plan, pause: bool, bases: list[str] | None = None
) -> Table:
    """Create the room (seeded), seat its people, connect them (the n-th person to
    ``bases[n % len(bases)]``, else to ``base``), start it."""
    bases = bases or [base]
    room = make_room(
        client,
        host_name=None,
        game=plan.game,
        players=plan.players,
        options=plan.options,
        seats=["open" if s.startswith("@") else s for s in plan.seats],
        turn_seconds=plan.turn_seconds,
        fallback_level="easy",
        seed=plan.seed,
    )
    people = []
    for seat, name in plan.people().items():
        answer = client.post(f"/api/rooms/{room['code']}/seats", json={"name": name, "seat": seat})
        assert answer.status_code == 200, answer.text
        assert answer.json()["seat"] == seat
        person = Person(plan, room["code"], seat, answer.json()["token"])
        person.pause_at = plan.pause_at if pause else None
        person.connect(bases[len(people) % len(bases)])
        people.append(person)
    started = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    assert started.status_code == 200, started.text
    return Table(plan, room, people)


def drive(tables: list[Table], until: Callable[[], bool], what: str) -> None:
    """Let the people read and play until ``until()``, for at most WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while not until():
        if time.monotonic() > deadline:
            states = {
                t.plan.label: [(p.seat, p.last and p.last["state_id"]) for p in t.people]
                for t in tables
            }
            pytest.fail(f"{what}: not reached within {WAIT} s; rooms at {states}")
        busy = False
        for table in tables:
            for person in table.people:
                busy = person.pump() or busy
        if not busy:
            time.sleep(0.005)


def records(client: httpx.Client, tables: list[Table]) -> dict[str, dict[str, Any]]:
    found = {}
    for table in tables:
        answer = client.get(f"/api/rooms/{table.code}/games/1/record")
        assert answer.status_code == 200, answer.text
        found[table.plan.label] = answer.json()
    return found


def seen(tables: list[Table]) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """Every event each person was told, by room and seat."""
    return {(t.plan.label, p.seat): list(p.events) for t in tables for p in t.people}


@contextlib.contextmanager
def engine(url: str) -> Iterator[sa.Engine]:
    made = sa.create_engine(normalise_url(url))
    try:
        yield made
    finally:
        made.dispose()


def takeover_time(url: str, code: str, seat: int) -> float:
    """When the first action of ``seat`` was played (by the bot standing in for it)."""
    with engine(url) as db, db.connect() as connection:
        at = connection.execute(
            sa.select(actions.c.at)
            .where(actions.c.room == code, actions.c.actor == seat)
            .order_by(actions.c.step)
            .limit(1)
        ).scalar()
    assert at is not None, "the timed-out seat never played"
    return float(at)


@dataclass
class Result:
    records: dict[str, dict[str, Any]]
    events: dict[tuple[str, int], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def uncrashed(tmp_path_factory: pytest.TempPathFactory) -> Result:
    """Run A: every room played to the end on a server that never crashes."""
    url = sqlite_url(tmp_path_factory.mktemp("uncrashed"))
    with server_process(url) as (base, _process), httpx.Client(base_url=base, timeout=10) as client:
        tables = [open_table(client, base, plan, pause=False) for plan in PLANS]
        timed = next(t for t in tables if t.plan.label == TIMED)
        drive(tables, lambda: timed.stalled(), "the timed room waiting for its idle person")
        deadline = timed.people[0].last["deadline"]  # type: ignore[index]
        assert deadline is not None
        drive(tables, lambda: all(t.over() for t in tables), "every game over")
        for table in tables:
            for person in table.people:
                assert person.errors == []
                person.drop()
        assert takeover_time(url, timed.code, 1) >= deadline
        found = records(client, tables)
        for record in found.values():
            assert record["outcome"] is not None and record["actions"]
        return Result(found, seen(tables))


@dataclass
class Crash:
    """What the people had been told when the server holding their rooms was killed."""

    tables: list[Table]
    before: dict[tuple[str, int], dict[str, Any]]
    events_before: dict[tuple[str, int], list[dict[str, Any]]]
    deadline: float
    """The timed room's deadline, pending at the kill."""
    killed_at: float
    """When the server was killed (time.time())."""
    alive: float
    """When the killed server last noted that it held the timed room (rooms.alive)."""
    lease_until: float | None
    """In a cluster: until when the killed process's lease of the timed room ran,
    before which no other process takes it."""

    @property
    def timed(self) -> Table:
        return next(t for t in self.tables if t.plan.label == TIMED)


def play_then_kill(
    client: httpx.Client,
    base: str,
    process: subprocess.Popen[str],
    db_url: str,
    bases: list[str] | None = None,
) -> Crash:
    """Open every room on ``base`` (people connected to ``bases``), play each part
    way, send one action and kill ``process`` with SIGKILL at once; read at once
    (before any other process can take the room) when it last held the timed room."""
    tables: list[Table] = []
    for plan in PLANS:
        table = open_table(client, base, plan, pause=True, bases=bases)
        tables.append(table)
        drive(tables, table.part_way, f"{plan.label} part way")
    assert not any(t.over() for t in tables), "a game ended before the crash"
    assert all(t.stalled() for t in tables)
    timed = next(t for t in tables if t.plan.label == TIMED)
    deadline = timed.people[0].last["deadline"]  # type: ignore[index]
    assert deadline is not None and deadline > time.time(), "the crash came too late"
    before = {(t.plan.label, p.seat): dict(p.last or {}) for t in tables for p in t.people}
    events_before = seen(tables)
    # One person sends an action and the server dies at once: either it was
    # committed before anyone heard of it, or it never happened.
    flying = next(t for t in tables if t.plan.label == IN_FLIGHT).people[0]
    flying.act()
    killed_at = time.time()
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    with engine(db_url) as db, db.connect() as connection:
        alive = connection.execute(
            sa.select(rooms.c.alive).where(rooms.c.code == timed.code)
        ).scalar()
        lease_until = connection.execute(
            sa.select(leases.c.expires).where(leases.c.room == timed.code)
        ).scalar()
    assert alive is not None and alive <= killed_at
    for table in tables:
        for person in table.people:
            assert person.errors == [], person.errors
            person.drop()
    return Crash(tables, before, events_before, deadline, killed_at, alive, lease_until)


def resume_and_finish(
    client: httpx.Client, base: str, crash: Crash
) -> tuple[dict[str, dict[str, Any]], float]:
    """Reconnect every person to ``base`` with their tokens, check each room resumed
    where it was, finish the games; their records, and when every room was back. The
    timed room's seat may have timed out by then or not (``check_timer_honoured``)."""
    tables = crash.tables
    for table in tables:
        for person in table.people:
            welcome = person.connect(base)  # checks it is this person's own seat
            assert welcome["room"]["status"] in ("playing", "over")
    ready = time.time()
    drive(
        tables,
        lambda: all(p.last is not None for t in tables for p in t.people),
        "an update for every reconnected person (still paused)",
    )
    for table in tables:
        for person in table.people:
            key = (table.plan.label, person.seat)
            old, new = crash.before[key], person.last
            assert new is not None
            # The room resumed where it was: what was told before is told again.
            assert person.events[: len(crash.events_before[key])] == crash.events_before[key]
            if table.plan.label in (IN_FLIGHT, TIMED):
                assert step_of(new["state_id"]) >= step_of(old["state_id"])
            else:
                assert new["state_id"] == old["state_id"], key
                assert new["observation"] == old["observation"], key
                assert new["legal"] == old["legal"], key
                assert new["deadline"] == old["deadline"], key
            person.pause_at = None  # from now on, play on to the end
    drive(tables, lambda: all(t.over() for t in tables), "every game over after the crash")
    for table in tables:
        for person in table.people:
            assert person.errors == [], person.errors
            person.drop()
    return records(client, tables), ready


def check_timer_honoured(db_url: str, crash: Crash, back_from: float, ready: float) -> None:
    """The bot took the timed-out seat once the time the seat had left when its
    server last noted holding the room had run again after the room was back (held
    again no sooner than ``back_from``, and by ``ready``): the outage did not count
    against the seat, and the timer did not start afresh."""
    final = crash.timed.people[0].last
    assert final is not None and final["seats"][1]["away"] is True
    taken = takeover_time(db_url, crash.timed.code, 1)
    left = crash.deadline - crash.alive
    assert crash.killed_at - crash.alive <= 2.0  # noted every second (a busy machine lags)
    assert taken >= back_from + left - 0.01, (taken - back_from, left)
    assert taken <= ready + left + 1.0, (taken - ready, left)


@pytest.mark.parametrize(
    ("backend", "down_past_deadline"),
    [("sqlite", False), ("sqlite", True), ("postgresql", False)],
    ids=["sqlite", "sqlite-down-past-the-deadline", "postgresql"],
)
def test_a_crash_changes_no_game(
    uncrashed: Result,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    backend: str,
    down_past_deadline: bool,
) -> None:
    """Run B: kill -9 part way, restart on the same database, reconnect, finish: the
    records and every seat's events equal run A's, and the timed seat had, once the
    server was back, the time it had left when it died, even when the server stayed
    down past the stored deadline."""
    db_url = (
        sqlite_url(tmp_path) if backend == "sqlite" else request.getfixturevalue("postgres_db_url")
    )
    port = free_port()
    with httpx.Client(timeout=10) as client:
        # -- part one: play each room part way, then kill the server
        with server_process(db_url, port=port) as (base, process):
            client.base_url = httpx.URL(base)
            crash = play_then_kill(client, base, process, db_url)

        with engine(db_url) as db, db.connect() as connection:
            stored = connection.execute(
                sa.select(rooms.c.deadline).where(rooms.c.code == crash.timed.code)
            ).scalar()
        assert stored == pytest.approx(crash.deadline, abs=1e-6), "the deadline was not stored"

        # Down a moment (the outage the timed seat must not pay for), or past its deadline.
        time.sleep(max(0.0, crash.deadline - time.time()) + 0.3 if down_past_deadline else 0.5)

        # -- part two: restart on the same database and port, reconnect, finish
        restarted = time.time()
        with server_process(db_url, port=port) as (base, _process):
            crashed, ready = resume_and_finish(client, base, crash)

    assert crashed == uncrashed.records
    assert seen(crash.tables) == uncrashed.events
    check_timer_honoured(db_url, crash, restarted, ready)
