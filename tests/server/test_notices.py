"""The room says why a bot plays for someone, and its log says who left, came
back, was handed to a bot or took the seat back, and which moves a bot made
for a person.

The old room kept only ``away``: the banner said "Your time ran out" when the
host had handed the seat over; the log said nothing of people leaving or being
replaced, and credited the bot's moves to the absent person.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from serving import FAST, app_client, host_headers, make_room, sqlite_url
from test_room import drive, first_legal, new_room

from apothecary.server.room import Changes, Room, Seat
from apothecary.server.store import Store


def seated_pair(**settings: Any) -> tuple[Room, int]:
    """Ann and Bob at Tea, Scones and Arsenic, started: the room and the seat to move."""
    room, _ = new_room("tea-scones-arsenic", 2, seats=["open", "open"], **settings)
    room.claim("Ann")
    room.claim("Bob")
    room.start(100.0)
    drive(room, 100.0)
    pending = room.pending()
    assert pending is not None and pending.kind == "human" and pending.seat is not None
    return room, pending.seat


def bot_move(room: Room, seat: int, now: float) -> None:
    state = room.state
    assert state is not None
    room.apply(room.make_bot(seat).step(state.clone()), now, by_bot=True)


def test_the_seat_says_whether_the_host_or_the_clock_handed_it_to_a_bot() -> None:
    room, seat = seated_pair(turn_seconds=30)
    changes = room.set_bot(seat, "easy", 110.0)
    shown = room.seats_view()[seat]
    assert shown["away"] and shown["away_reason"] == "host" and shown["level"] == "easy"
    handed = {"kind": "bot_plays", "seat": seat, "level": "easy", "reason": "host", "at": 110.0}
    assert changes.notices == [(1, {"id": 0, "step": room.step, **handed})]
    # Her own move takes the seat back; then her time runs out.
    room.apply(first_legal(room, seat), 120.0)
    assert room.seats_view()[seat]["away_reason"] is None
    assert [n["kind"] for n in room.notices] == ["bot_plays", "took_back"]
    drive(room, 120.0)
    pending = room.pending()
    assert pending is not None and pending.kind == "human" and pending.deadline is not None
    timed = pending.seat
    assert timed is not None
    assert room.timeout(pending.deadline, pending.state_id) is not None
    assert room.seats_view()[timed]["away_reason"] == "timeout"
    assert room.notices[-1]["kind"] == "bot_plays" and room.notices[-1]["reason"] == "timeout"
    assert room.notices[-1]["level"] == "medium"  # the room's fallback level


def test_an_away_seat_stored_before_reasons_were_kept_still_loads() -> None:
    old = {"kind": "human", "level": "medium", "name": "Ann", "token_hash": None, "away": True}
    seat = Seat.from_json({**old, "wins": 2})
    assert seat.away and seat.away_reason is None
    assert seat.public(0, True)["away_reason"] is None


def test_the_log_marks_a_bots_moves_for_a_person_for_every_viewer_and_after_a_restore() -> None:
    room, seat = seated_pair()
    room.set_bot(seat, "easy", 110.0)
    bot_move(room, seat, 111.0)
    marked = room.log[-1]
    assert [event.get("by_bot") for event in marked] == ["easy"] * 3  # two seats, a spectator
    drive(room, 112.0)
    room.back(seat, 113.0)
    drive(room, 114.0, humans=first_legal, steps=6)
    plain = [e for events in room.log for e in events if events[0]["actor"] != seat]
    assert all("by_bot" not in event for event in plain)  # the other seat plays for itself
    state = room.state
    assert state is not None
    again = Room.restore(room.snapshot(), state.history(), room.seating, notices=room.notices)
    for viewer in [0, 1, None]:
        assert again.view(viewer) == room.view(viewer)


def test_leaving_and_coming_back_are_logged_once_each() -> None:
    room, _ = seated_pair()
    other = 1
    assert room.left(other, 120.0).notices  # nobody is connected to it
    assert not room.left(other, 121.0).notices  # said once
    assert not room.returned(other, 122.0).notices  # not connected yet
    room.presence[other] += 1
    assert room.returned(other, 123.0).notices
    assert not room.returned(other, 124.0).notices
    assert [(n["kind"], n["seat"]) for n in room.notices] == [("left", 1), ("returned", 1)]
    # Every viewer reads the same notices (nothing in them is secret); ``noticed`` skips
    # those a connection was sent already.
    assert all(room.view(viewer)["notices"] == room.notices for viewer in [0, 1, None])
    assert room.view(0, noticed=1)["notices"] == [room.notices[1]]


def test_the_store_keeps_the_notices_and_the_bots_marks(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path))
    store.migrate()
    try:
        room, _ = new_room("tea-scones-arsenic", 2, seats=["open", "open"])
        room.claim("Ann")
        room.claim("Bob")
        store.commit(room, Changes(), 0.0)
        store.commit(room, room.start(100.0), 100.0)
        while (pending := room.pending()) is not None and pending.kind == "chance":
            store.commit(room, room.apply(room.chance_action(), 100.0), 100.0)
        assert pending is not None and pending.seat is not None
        seat = pending.seat
        store.commit(room, room.set_bot(seat, "easy", 110.0), 110.0)
        store.commit(room, room.left(1 - seat, 111.0), 111.0)
        state = room.state
        assert state is not None
        bot = room.make_bot(seat).step(state.clone())
        store.commit(room, room.apply(bot, 112.0, by_bot=True), 112.0)
        store.commit(room, room.back(seat, 113.0), 113.0)
        loaded = store.load(room.code)
        assert loaded is not None
        assert loaded.notices == room.notices and len(room.notices) == 3
        assert loaded.log == room.log and loaded.log[-1][0]["by_bot"] == "easy"
    finally:
        store.close()


def wait_for(what: Any, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "it did not happen in time"
        time.sleep(0.05)


def test_the_hub_logs_a_person_leaving_only_after_a_grace_and_their_return(
    tmp_path: Path,
) -> None:
    config = replace(FAST, left_after=1.0)
    url = sqlite_url(tmp_path)
    with app_client(url, config) as client:
        room = make_room(client, "Ann", game="tea-scones-arsenic", players=2, seed="notices")
        code = room["code"]
        bob = client.post(f"/api/rooms/{code}/seats", json={"name": "Bob"}).json()
        assert client.post(f"/api/rooms/{code}/start", headers=host_headers(room)).is_success
        live = client.app.state.hub._rooms[code]  # type: ignore[attr-defined]

        def visit(stay: float = 0.0) -> dict[str, Any]:
            with client.websocket_connect(f"/ws/rooms/{code}") as ws:
                ws.send_json({"type": "hello", "token": bob["token"]})
                assert ws.receive_json()["type"] == "welcome"
                update: dict[str, Any] = ws.receive_json()
                time.sleep(stay)
                return update

        visit()
        visit(stay=2.0)  # back within the grace, and staying past it: nothing is told
        assert live.room.notices == []
        wait_for(lambda: live.room.notices)  # gone for good this time
        assert [(n["kind"], n["seat"]) for n in live.room.notices] == [("left", bob["seat"])]
        # Coming back is told, and a new connection reads every notice in its first update.
        update = visit()
        assert [n["kind"] for n in update["notices"]] == ["left", "returned"]
        wait_for(lambda: len(live.room.notices) == 3)  # that visit's end is told again
    with app_client(url, config) as client:  # a restarted server keeps them
        again = client.app.state.hub._rooms[code]  # type: ignore[attr-defined]
        assert [n["kind"] for n in again.room.notices] == ["left", "returned", "left"]


def test_after_a_restart_whoever_does_not_come_back_is_told_to_have_left(
    tmp_path: Path,
) -> None:
    """A server that stops takes every socket with it, and none of them closes to
    start the wait: the restarted one waits for each seated person instead."""
    config = replace(FAST, left_after=0.5)
    url = sqlite_url(tmp_path)
    with app_client(url, config) as client:
        room = make_room(client, "Ann", game="tea-scones-arsenic", players=2, seed="restart")
        code = room["code"]
        client.post(f"/api/rooms/{code}/seats", json={"name": "Bob"})
        assert client.post(f"/api/rooms/{code}/start", headers=host_headers(room)).is_success
    with app_client(url, config) as client:
        live = client.app.state.hub._rooms[code]  # type: ignore[attr-defined]
        with client.websocket_connect(f"/ws/rooms/{code}") as ws:
            ws.send_json({"type": "hello", "token": room["seat_token"]})  # Ann is back at once
            assert ws.receive_json()["type"] == "welcome"
            wait_for(lambda: live.room.notices)
            time.sleep(1.0)  # Ann's wait is over too
            assert [(n["kind"], n["seat"]) for n in live.room.notices] == [("left", 1)]
