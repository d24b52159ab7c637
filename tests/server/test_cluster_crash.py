"""kill -9 the process holding the rooms: the other process takes them over.

The crash test's scenario (tests/server/test_crash.py) on two server processes
sharing PostgreSQL and Redis: every room is created on process A, which holds
it; its people connect to A and to B alternately (B relays theirs to A). The
rooms are played part way, one person sends an action, and A is killed with
SIGKILL. Every person then reconnects with their token to B, which takes the
rooms over from the database once A's leases run out; the games finish, and
each record and every event each seat was told equal the same seeded games
played on one process that never crashed. The timed room's seat gets back,
once B holds the room (after A's lease ran out), the time it had left when A
died, and then its bot plays, once: bots and timers run only on the holder.
"""

from __future__ import annotations

import secrets

import httpx
from serving import cluster_flags, server_process
from test_crash import (
    Result,
    check_timer_honoured,
    play_then_kill,
    resume_and_finish,
    seen,
    uncrashed,
)

__all__ = ["uncrashed"]  # the fixture: the same games played on one process, no crash


def test_the_survivor_takes_over_a_killed_holders_rooms(
    uncrashed: Result, postgres_db_url: str, redis_url: str
) -> None:
    flags = cluster_flags(redis_url, f"t{secrets.token_hex(4)}")
    with (
        server_process(postgres_db_url, *flags) as (a, holder),
        server_process(postgres_db_url, *flags) as (b, _survivor),
        httpx.Client(base_url=a, timeout=10) as client,
    ):
        crash = play_then_kill(client, a, holder, postgres_db_url, bases=[a, b])
        client.base_url = httpx.URL(b)
        # B takes the rooms over once A's leases have run out.
        crashed, ready = resume_and_finish(client, b, crash)
    assert crashed == uncrashed.records
    assert seen(crash.tables) == uncrashed.events
    assert crash.lease_until is not None
    check_timer_honoured(postgres_db_url, crash, crash.lease_until, ready)
