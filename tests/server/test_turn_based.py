"""Turn-based rooms (issue #31 item 4, docs/turn-based.md): hours or days a turn, the
room held with nobody connected, a turn that runs out played by the bot for that turn
only, the stored deadline re-armed when the server starts again, one e-mail per turn
to the account whose seat is to move, its link and its unsubscribe. In process, on
SQLite and PostgreSQL, with an injectable clock; the mails go to a list, not a server
(tests/web/test_turn_mail.py sends them to a local SMTP sink from a real server)."""

from __future__ import annotations

import itertools
import re
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serving import host_headers, make_room
from test_accounts import GOOD, QUICK, SAME, sign_up
from test_http_api import claim

from apothecary.core.errors import BadOptionError
from apothecary.server.app import WebConfig, create_app
from apothecary.server.hub import HubConfig
from apothecary.server.room import TIMEOUT, Room, RoomError, Settings
from apothecary.server.store import Store, rooms, turn_mails, users
from apothecary.server.turnmail import (
    BadEmail,
    SmtpConfig,
    SmtpUrlError,
    TurnMail,
    check_email,
)

DAY = 24 * 3600.0
T0 = 1_900_000_000.0
"""The fake clock's start (a Unix time in 2030)."""


class Clock:
    """A clock a test moves by hand."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Outbox:
    """Stands in for the SMTP server: keeps every message."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    def send(self, message: EmailMessage) -> None:
        self.messages.append(message)


def app_on(url: str, clock: Clock, outbox: Outbox) -> TestClient:
    """An app on ``url`` whose hub runs on ``clock`` and mails into ``outbox``."""
    config = HubConfig(
        bot_workers=0,
        bot_delay=0.0,
        next_game_delay=0.0,
        allow_seed=True,
        clock=clock,
        vouch_seconds=0.02,
    )
    web = WebConfig(
        accounts=QUICK,
        create_per_minute=10**6,
        address_rate_per_second=1e6,
        address_rate_burst=10**6,
    )
    app = create_app(Store(url), config, web)
    app.state.hub.turns = TurnMail(app.state.hub.store, outbox, "http://testserver", clock)
    return TestClient(app)


def settle(client: TestClient) -> None:
    """Wait for the mails under way (they go in the background)."""
    hub = client.app.state.hub  # type: ignore[attr-defined]
    client.portal.call(hub.turns.settled)  # type: ignore[union-attr]


def wait_until(what: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, "the condition did not come true"
        time.sleep(0.02)
    return found


def turn_based_room(client: TestClient) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Ann (seat 0, host) and Bob (seat 1) in a started Poison Pot room of a day a
    turn, each seat linked to its account, each account with an address.
    (room, {name: seat token}, {name: session cookie})."""
    cookies, tokens = {}, {}
    for name in ("ann", "bob"):
        client.cookies.clear()
        answer = sign_up(client, name)
        assert answer.status_code == 201, answer.text
        cookies[name] = client.cookies["apothecary_session"]
        mail = client.post(
            "/api/account/email", json={"email": f"{name}@example.org"}, headers=SAME
        )
        assert mail.status_code == 200, mail.text
    client.cookies.clear()
    client.cookies.set("apothecary_session", cookies["ann"])
    room = make_room(
        client, "ann", game="poison-pot", players=2, turn_hours=24, fallback_level="random"
    )
    tokens["ann"] = room["seat_token"]
    client.cookies.clear()
    client.cookies.set("apothecary_session", cookies["bob"])
    tokens["bob"] = claim(client, room["code"], "bob").json()["token"]
    for name in ("ann", "bob"):
        client.cookies.clear()
        client.cookies.set("apothecary_session", cookies[name])
        body = {"seats": [{"room": room["code"], "token": tokens[name]}]}
        linked = client.post("/api/account/seats", json=body, headers=SAME)
        assert linked.status_code == 200 and linked.json()["refused"] == 0, linked.text
    client.cookies.clear()
    started = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    assert started.status_code == 200, started.text
    return room, tokens, cookies


def play_turn(client: TestClient, code: str, token: str) -> None:
    """The seat of ``token`` plays its whole turn (the first legal action, each move)."""
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "welcome"
        update = ws.receive_json()
        you = update["you"]
        assert update["to_move"] == you and update["waiting_for"] == "human", update
        while update["to_move"] == you and update["status"] == "playing":
            ws.send_json(
                {"type": "act", "action": update["legal"][0]["id"], "state_id": update["state_id"]}
            )
            while (update := ws.receive_json())["type"] != "update":
                assert update["type"] != "error", update


def stored(url: str, code: str) -> dict[str, Any]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            row = connection.execute(rooms.select().where(rooms.c.code == code)).mappings().one()
            return dict(row)
    finally:
        engine.dispose()


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return text


def link_of(message: EmailMessage) -> str:
    found = re.search(r"http://testserver/rooms/[\w-]+#turn=([\w-]+)", text_of(message))
    assert found, text_of(message)
    return found.group(1)


# -- the setting ------------------------------------------------------------------------------


def test_a_turn_based_room_takes_hours_not_seconds() -> None:
    room, _host = Room.create("poison-pot", 2, {}, None, Settings(turn_hours=72), now=0.0)
    assert room.settings.turn_based and room.settings.turn_limit == 72 * 3600
    for wrong in (Settings(turn_hours=0.5), Settings(turn_hours=721)):
        with pytest.raises(RoomError, match="turn_hours must be between 1 and 720"):
            Room.create("poison-pot", 2, {}, None, wrong, now=0.0)
    with pytest.raises(RoomError, match="not both"):
        Room.create("poison-pot", 2, {}, None, Settings(turn_seconds=60, turn_hours=1), now=0.0)


def test_a_turn_that_runs_out_is_the_bots_for_that_turn_only() -> None:
    """docs/turn-based.md: "when a turn's time runs out, the room's fallback bot plays
    that turn for the person, who keeps the seat: their next turn is theirs again,
    with its full time"."""
    room, _host = Room.create(
        "poison-pot", 2, {}, None, Settings(turn_hours=24, fallback_level="random"), now=0.0
    )
    room.claim("ann", 0)
    room.claim("bob", 1)
    room.start(now=0.0)
    pending = room.pending()
    assert pending is not None and pending.kind == "human" and room.deadline == DAY
    seat = pending.seat
    assert seat is not None
    assert room.timeout(DAY - 1, pending.state_id) is None  # not yet
    assert room.timeout(DAY, pending.state_id) is not None
    assert room.seats[seat].away and room.seats[seat].away_reason == TIMEOUT
    bot_turn = room.pending()
    assert bot_turn is not None and bot_turn.kind == "bot"
    while (now := room.pending()) is not None and now.kind == "bot" and now.seat == seat:
        action = room.make_bot(seat).step(room._playing_state())
        room.apply(action, DAY + 5, by_bot=True)
        while (chance := room.pending()) is not None and chance.kind == "chance":
            room.apply(room.chance_action(), DAY + 5)
    assert not room.seats[seat].away, "the person keeps the seat after the bot's turn"
    following = room.pending()
    assert following is not None and following.kind == "human"
    assert room.deadline == DAY + 5 + DAY
    # A planted bug: the host's hand-over is not for one turn only.
    room.seats[seat].hand_to_bot("random", "host")
    assert not room._for_one_turn(seat)


def test_the_turn_key_names_a_seats_run_of_moves() -> None:
    room, _host = Room.create("poison-pot", 2, {}, None, Settings(turn_hours=1), now=0.0)
    room.claim("ann", 0)
    room.claim("bob", 1)
    room.start(now=0.0)
    keys = []
    while room.status == "playing" and len(keys) < 12:
        pending = room.pending()
        assert pending is not None and pending.seat is not None
        keys.append((pending.seat, room.turn_key))
        room.apply(room.make_bot(pending.seat).step(room._playing_state()), 1.0)
        while (chance := room.pending()) is not None and chance.kind == "chance":
            room.apply(room.chance_action(), 1.0)
    # One key for each run of one seat's moves, a new one when the seat changes.
    for (seat, key), (next_seat, next_key) in itertools.pairwise(keys):
        assert (key == next_key) == (seat == next_seat), keys


# -- the mail's parts -------------------------------------------------------------------------


def test_smtp_urls() -> None:
    plain = SmtpConfig.parse("smtp://127.0.0.1:2525")
    assert (plain.host, plain.port, plain.security, plain.user) == (
        "127.0.0.1",
        2525,
        "plain",
        None,
    )
    tls = SmtpConfig.parse("smtp://me%40x.org:p%3Ass@mail.x.org?starttls=1&from=games@x.org")
    assert (tls.port, tls.security, tls.user, tls.password, tls.sender) == (
        587,
        "starttls",
        "me@x.org",
        "p:ss",
        "games@x.org",
    )
    assert SmtpConfig.parse("smtps://mail.x.org").port == 465
    for wrong in ("http://mail.x.org", "smtp://", "smtp://host:port"):
        with pytest.raises(SmtpUrlError):
            SmtpConfig.parse(wrong)
    assert issubclass(SmtpUrlError, BadOptionError)


def test_email_addresses() -> None:
    assert check_email(" ann@example.org ") == "ann@example.org"
    for wrong in (
        "ann",
        "ann@",
        "@example.org",
        "ann@localhost",
        "a b@x.org",
        "a@x.org\nBcc: b@y.org",
    ):
        with pytest.raises(BadEmail):
            check_email(wrong)


# -- the whole: mails, a restart, the timer ----------------------------------------------------


def test_each_turn_is_mailed_once_and_a_restart_rearms_the_stored_deadline(
    db_url: str, tmp_path: Path
) -> None:
    """Issue #31: "When it becomes your turn you are told ... an e-mail ... with a link
    straight to the room, at most one e-mail per room per turn"; docs/turn-based.md:
    the deadline is stored, and a server that starts again arms it from there."""
    clock, outbox = Clock(), Outbox()
    with app_on(db_url, clock, outbox) as client:
        room, tokens, _cookies = turn_based_room(client)
        code = room["code"]
        settle(client)
        assert len(outbox.messages) == 1
        first = outbox.messages[0]
        row = stored(db_url, code)
        assert row["deadline"] == pytest.approx(T0 + DAY)
        to_move = "ann" if first["To"] == "ann@example.org" else "bob"
        assert first["To"] == f"{to_move}@example.org"
        assert f"room {code}" in first["Subject"]
        assert first["List-Unsubscribe"].startswith("<http://testserver/unsubscribe?token=")
        # The link gives its seat, signed in or not.
        client.cookies.clear()
        seat = client.post("/api/turn-link", json={"link": link_of(first)})
        assert seat.status_code == 200, seat.text
        assert seat.json() == {"room": code, "token": tokens[to_move], "user": to_move}
        assert client.post("/api/turn-link", json={"link": "x" * 43}).status_code == 404
        # The day passes with the server up (it vouches for the room as it runs) ...
        clock.now = T0 + DAY + 60
        wait_until(lambda: (stored(db_url, code)["alive"] or 0) >= clock.now)
    # ... and it stops before its own timer woke. Started again, the stored deadline
    # is past: the bot plays that turn at once, and the person keeps the seat.
    with app_on(db_url, clock, outbox) as client:
        after = wait_until(
            lambda: (
                (row := stored(db_url, code))["deadline"] is not None
                and row["deadline"] > T0 + DAY
                and row
            )
        )
        assert after["deadline"] == pytest.approx(clock.now + DAY)
        seats = after["seats"]
        assert not any(s["away"] for s in seats), seats
        # The turn mailed before the restart is not mailed again; the next one is.
        wait_until(lambda: len(outbox.messages) >= 2)
        settle(client)
        other = "bob" if to_move == "ann" else "ann"
        assert [m["To"] for m in outbox.messages] == [
            f"{to_move}@example.org",
            f"{other}@example.org",
        ]
        engine = sa.create_engine(db_url)
        with engine.connect() as connection:
            mailed = connection.execute(sa.select(turn_mails.c.turn)).scalars().all()
        engine.dispose()
        assert len(mailed) == len(set(mailed)) == len(outbox.messages)


def test_unsubscribe_in_one_click_and_no_more_mail(db_url: str) -> None:
    """Issue #31: "an unsubscribe link"; the brief: one click, no sign-in needed."""
    clock, outbox = Clock(), Outbox()
    with app_on(db_url, clock, outbox) as client:
        room, _tokens, cookies = turn_based_room(client)
        settle(client)
        (first,) = outbox.messages
        leave = re.search(r"http://testserver(/unsubscribe\?token=[\w-]+)", text_of(first))
        assert leave
        client.cookies.clear()
        page = client.get(leave.group(1))
        assert page.status_code == 200 and "Unsubscribed" in page.text
        assert client.get("/unsubscribe?token=nobodys").status_code == 404
        name = "ann" if first["To"].startswith("ann") else "bob"
        client.cookies.set("apothecary_session", cookies[name])
        assert client.get("/api/account/email").json() == {
            "email": f"{name}@example.org",
            "turn_mail": False,
        }
        # Their next turn is not mailed; the other's turns still are.
        client.cookies.clear()
        other = "bob" if name == "ann" else "ann"
        play_turn(client, room["code"], _tokens[name])
        settle(client)
        play_turn(client, room["code"], _tokens[other])
        settle(client)
        assert [m["To"] for m in outbox.messages] == [f"{name}@example.org", f"{other}@example.org"]
        assert stored(db_url, room["code"])["status"] == "playing"


def test_a_bad_address_is_refused(tmp_path: Path) -> None:
    clock, outbox = Clock(), Outbox()
    with app_on(f"sqlite:///{tmp_path / 'db.sqlite3'}", clock, outbox) as client:
        sign_up(client, "cat")
        answer = client.post("/api/account/email", json={"email": "not an address"}, headers=SAME)
        assert answer.status_code == 400 and answer.json()["error"] == "bad_email"
        assert client.post("/api/account/email", json={"email": None}, headers=SAME).json() == {
            "email": None,
            "turn_mail": True,
        }


def test_a_deleted_account_leaves_no_address_or_mail_record(db_url: str) -> None:
    """docs/turn-based.md: "deleting the account deletes it and every record of the
    mails sent to it"."""
    clock, outbox = Clock(), Outbox()
    with app_on(db_url, clock, outbox) as client:
        _room, _tokens, cookies = turn_based_room(client)
        settle(client)
        (first,) = outbox.messages
        name = first["To"].split("@")[0]
        client.cookies.clear()
        client.cookies.set("apothecary_session", cookies[name])
        gone = client.post("/api/account/delete", json={"password": GOOD}, headers=SAME)
        assert gone.status_code == 200, gone.text
        assert client.post("/api/turn-link", json={"link": link_of(first)}).status_code == 404
    engine = sa.create_engine(db_url)
    with engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(turn_mails)).scalar() == 0
        addresses = connection.execute(sa.select(users.c.email)).scalars().all()
    engine.dispose()
    assert addresses == [f"{'bob' if name == 'ann' else 'ann'}@example.org"]


def test_on_vacation_the_turns_clock_waits(db_url: str) -> None:
    """docs/turn-based.md: "while an account is on vacation, a turn of theirs whose
    time runs out waits: its deadline moves to the vacation's end, and no bot plays"."""
    clock, outbox = Clock(), Outbox()
    with app_on(db_url, clock, outbox) as client:
        room, _tokens, cookies = turn_based_room(client)
        code = room["code"]
        settle(client)
        name = outbox.messages[0]["To"].split("@")[0]
        client.cookies.clear()
        client.cookies.set("apothecary_session", cookies[name])
        away = client.post("/api/account/vacation", json={"days": 3}, headers=SAME)
        assert away.status_code == 200, away.text
        assert away.json() == {"until": pytest.approx(T0 + 3 * DAY), "days_left": 11}
        too_long = client.post("/api/account/vacation", json={"days": 12}, headers=SAME)
        assert too_long.status_code == 409 and too_long.json()["error"] == "vacation_spent"
        before = stored(db_url, code)
        clock.now = T0 + DAY + 60
        wait_until(lambda: (stored(db_url, code)["alive"] or 0) >= clock.now)
    with app_on(db_url, clock, outbox) as client:
        # The timer fires at once (its deadline is past) and moves to the vacation's end.
        after = wait_until(lambda: (row := stored(db_url, code))["deadline"] > T0 + 2 * DAY and row)
        assert after["deadline"] == pytest.approx(T0 + 3 * DAY)
        assert after["seats"] == before["seats"], "no bot took the seat"
        assert after["game_no"] == before["game_no"]
        settle(client)
        assert len(outbox.messages) == 1
        # Back early: the whole days not begun are given back.
        client.cookies.set("apothecary_session", cookies[name])
        back = client.post("/api/account/vacation", json={"days": 0}, headers=SAME)
        assert back.json() == {"until": None, "days_left": 12}
