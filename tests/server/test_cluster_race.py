"""Two processes racing to change one room never both succeed.

Two server processes share PostgreSQL and Redis with leases of 0.4 s and a
heartbeat of 30 s: a holder's lease lapses whenever its room is quiet for
0.4 s, as a holder's would if it stalled (a long pause, a partition), and
nothing renews it or tells the stale holder it lost the room. So after
every pause the process asked next takes the room over from the database
while the other still has the room in memory and serves its own sockets
from it: the lease check in each commit is all that stands between them.

1. **Seats.** Six times: a pause, then a claim of the same seat through the
   process that does not hold the room (it takes the room over), then
   through the stale holder. Exactly one claim of each seat succeeds, and
   every token handed out opens its seat on both processes. A seat claim
   writes no action row, so only the lease check guards it.
2. **Actions.** The six people play the room to the end, each with two
   devices, one on each process, which act at once on every turn (so the
   processes race for every action), with a pause every few steps (so the
   room changes hands). Sockets of a room its process lost are closed and
   reconnect; a command sent just then may have been dropped (nothing of it
   was committed), so a device acts again, once a socket, at a state it still
   has a choice at, as a client does (docs/protocol.md). The stored history
   has steps 0..n-1 with no gap and no duplicate, every action in it was
   sent by a device at its step, and every message any socket received is
   what the view function gives at that point of the stored history: no
   process told anyone of an action the other made instead.

The check can fail: with the lease check taken out of ``Store.commit`` (the
``elif lease is not None:`` branch replaced by ``elif False:``), the first
seat round fails: the stale holder accepts a claim of a seat the new holder
had just given away (tried once by hand while writing this test).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from serving import cluster_flags, server_process, stored_row
from test_secrecy import Played, leaks
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from apothecary.server.store import actions, normalise_url

LEASE = 0.4
PAUSE = LEASE + 0.25
"""Long enough for the holder's lease to lapse."""
PLAYERS = 6
WAIT = 60.0


@pytest.fixture
def pair(postgres_db_url: str, redis_url: str) -> Iterator[list[str]]:
    """Two processes whose holders never renew a lease but by committing."""
    flags = cluster_flags(redis_url, f"t{secrets.token_hex(4)}", lease=LEASE, heartbeat=30.0)
    with (
        server_process(postgres_db_url, *flags) as (a, _),
        server_process(postgres_db_url, *flags) as (b, _),
    ):
        yield [a, b]


@dataclass
class Device:
    """One of a seat's two devices, on one process."""

    seat: int
    token: str
    base: str
    rng: random.Random
    sessions: list[list[dict[str, Any]]] = field(default_factory=list)
    """The updates each of its sockets received, socket by socket."""
    sent: dict[str, set[str]] = field(default_factory=dict)
    """By state id: the notations of the actions it sent (one a socket)."""
    moved: int = 0
    """Sockets closed because the room moved to the other process."""


async def play(device: Device, hold: asyncio.Event, done: asyncio.Event, code: str) -> None:
    """Act at once on every turn, reconnecting when the room moves, until the game ends."""
    url = device.base.replace("http://", "ws://") + f"/ws/rooms/{code}"
    while not done.is_set():
        socket: ClientConnection = await connect(url, open_timeout=10)
        session: list[dict[str, Any]] = []
        device.sessions.append(session)
        acted: set[str] = set()
        try:
            await socket.send(json.dumps({"type": "hello", "token": device.token}))
            welcome = json.loads(await socket.recv())
            assert welcome["type"] == "welcome" and welcome["you"] == device.seat, welcome
            while True:
                message = json.loads(await socket.recv())
                if message["type"] != "update":
                    continue
                session.append(message)
                if message["outcome"] is not None:
                    done.set()
                    return
                state_id = message["state_id"]
                # Once a socket: a command sent just before the room moved may
                # have been dropped (the socket is closed with 1012), so after
                # reconnecting a device that still has a choice at that state
                # sends again, as the protocol asks of a client.
                if message["legal"] and state_id not in acted:
                    acted.add(state_id)
                    await hold.wait()
                    choice = device.rng.choice(message["legal"])
                    device.sent.setdefault(state_id, set()).add(choice["notation"])
                    await socket.send(
                        json.dumps({"type": "act", "action": choice["id"], "state_id": state_id})
                    )
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 1012:
                device.moved += 1
        finally:
            with contextlib.suppress(Exception):
                await socket.close()


async def pauses(devices: list[Device], hold: asyncio.Event, done: asyncio.Event) -> None:
    """Every few steps, hold every device until the holder's lease has lapsed."""
    paused_at: set[int] = set()
    while not done.is_set():
        steps = [int(m["state_id"].split(":")[1]) for d in devices for s in d.sessions for m in s]
        step = max(steps, default=0)
        if step % 4 == 1 and step not in paused_at:
            paused_at.add(step)
            hold.clear()
            await asyncio.sleep(PAUSE)
            hold.set()
        await asyncio.sleep(0.01)


def test_two_processes_never_both_change_a_room(pair: list[str], postgres_db_url: str) -> None:
    a, b = pair
    with httpx.Client(timeout=20) as client:
        made = client.post(
            f"{a}/api/rooms", json={"game": "in-vino-morte", "players": PLAYERS, "seed": "race"}
        )
        assert made.status_code == 201, made.text
        room = made.json()
        code = room["code"]

        # -- 1. seats: the process without the room, then the stale holder
        tokens: dict[int, str] = {}
        for seat in range(PLAYERS):
            time.sleep(PAUSE)
            first, second = (b, a) if seat % 2 == 0 else (a, b)
            taken = client.post(
                f"{first}/api/rooms/{code}/seats", json={"name": f"p{seat}", "seat": seat}
            )
            again = client.post(
                f"{second}/api/rooms/{code}/seats", json={"name": f"x{seat}", "seat": seat}
            )
            assert taken.status_code == 200, taken.text
            assert again.status_code == 409, f"seat {seat} was given twice: {again.text}"
            tokens[seat] = taken.json()["token"]
        names = [s["name"] for s in client.get(f"{a}/api/rooms/{code}").json()["seats"]]
        assert names == [f"p{seat}" for seat in range(PLAYERS)]

        # -- 2. actions: two devices a seat, one on each process, acting at once
        rng = random.Random(7)
        devices = [
            Device(seat, tokens[seat], base, random.Random(rng.random()))
            for seat in range(PLAYERS)
            for base in (a, b)
        ]

        async def race() -> None:
            hold, done = asyncio.Event(), asyncio.Event()
            hold.set()
            players = [asyncio.create_task(play(d, hold, done, code)) for d in devices]
            pauser = asyncio.create_task(pauses(devices, hold, done))
            await asyncio.sleep(0.5)  # every device connected, then start
            async with httpx.AsyncClient(timeout=20) as http:
                started = await http.post(
                    f"{b}/api/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {room['host_token']}"},
                )
                assert started.status_code == 200, started.text
            try:
                await asyncio.wait_for(done.wait(), WAIT)
            finally:
                pauser.cancel()
                for task in players:
                    task.cancel()
                await asyncio.gather(pauser, *players, return_exceptions=True)

        asyncio.run(race())
        record = client.get(f"{a}/api/rooms/{code}/games/1/record")
        assert record.status_code == 200, record.text

    engine = sa.create_engine(normalise_url(postgres_db_url))
    with engine.connect() as connection:
        steps = list(
            connection.execute(
                sa.select(actions.c.step).where(actions.c.room == code).order_by(actions.c.step)
            ).scalars()
        )
    engine.dispose()
    history = record.json()["actions"]
    assert steps == list(range(len(history))), "a gap or a duplicate in the stored history"
    for step, notation in enumerate(history):
        sent = {n for d in devices for n in d.sent.get(f"1:{step}", set())}
        assert not sent or notation in sent, f"step {step}: {notation} was sent by nobody"
    assert sum(d.moved for d in devices) > 0, "the room never changed hands: nothing raced"

    row = {**stored_row(postgres_db_url, code), "status": "playing", "deadline": None}
    check = random.Random(8)
    problems = []
    for device in devices:
        for session in device.sessions:
            played = Played(code, row, record.json()["seats"], history, {device.seat: session})
            problems += leaks(played, check, worlds_per_room=1, whole=False)
    assert not problems, "\n".join(problems[:20])
