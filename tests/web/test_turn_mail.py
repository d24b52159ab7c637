"""Turn-based play end to end (issue #31: "a room with a day per turn, the server killed
and restarted between turns, an e-mail caught by the local sink with the right link, the
link opens the room on the right seat"): a real ``apothecary serve --smtp`` subprocess,
killed with SIGKILL and started again on its database, mails a local SMTP sink
(aiosmtpd, tests/support/smtp_sink.py); Debian's Chromium opens the mail's link with no
sign-in and no seat kept, and is on the seat whose turn it is. The turn mailed before
the kill is not mailed again; unsubscribing from the mail stops the mails."""

from __future__ import annotations

import json
import re
import signal
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from serving import free_port, host_headers, server_process, sqlite_url
from smtp_sink import smtp_sink
from websockets.sync.client import connect

from apothecary.server.store import rooms

SAME = {"X-Apothecary": "1"}
PASSWORD = "correct horse battery"
DAY = 24 * 3600.0


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return text


def person(base: str, name: str) -> httpx.Client:
    """A signed-up account with an e-mail address: its client keeps the cookie."""
    client = httpx.Client(base_url=base, timeout=10)
    made = client.post(
        "/api/account/sign-up", json={"name": name, "password": PASSWORD}, headers=SAME
    )
    assert made.status_code == 201, made.text
    mail = client.post("/api/account/email", json={"email": f"{name}@example.org"}, headers=SAME)
    assert mail.status_code == 200, mail.text
    return client


def link(client: httpx.Client, code: str, token: str) -> None:
    body = {"seats": [{"room": code, "token": token}]}
    linked = client.post("/api/account/seats", json=body, headers=SAME)
    assert linked.status_code == 200 and linked.json()["refused"] == 0, linked.text


def play_turn(base: str, code: str, token: str) -> None:
    """The seat of ``token`` plays its whole turn over a socket (the first legal action
    of each move), until another seat is to move."""
    url = base.replace("http://", "ws://") + f"/ws/rooms/{code}"
    with connect(url, open_timeout=10, close_timeout=1) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        update = json.loads(ws.recv(timeout=10))
        you = update["you"]
        assert update["to_move"] == you and update["waiting_for"] == "human", update
        while update["to_move"] == you and update["status"] == "playing":
            act = {
                "type": "act",
                "action": update["legal"][0]["id"],
                "state_id": update["state_id"],
            }
            ws.send(json.dumps(act))
            while (update := json.loads(ws.recv(timeout=10)))["type"] != "update":
                assert update["type"] != "error", update


def deadline_of(db: str, code: str) -> float:
    engine = sa.create_engine(db)
    try:
        with engine.connect() as connection:
            found = connection.execute(sa.select(rooms.c.deadline).where(rooms.c.code == code))
            return float(found.scalar_one())
    finally:
        engine.dispose()


def test_a_day_per_turn_survives_a_kill_and_its_mail_opens_the_seat(
    browser: Any, tmp_path: Path
) -> None:
    db, port = sqlite_url(tmp_path), free_port()
    with smtp_sink() as sink:
        flags = ("--smtp", sink.url)
        with server_process(db, *flags, port=port) as (base, process):
            ann, bob = person(base, "ann"), person(base, "bob")
            created = ann.post(
                "/api/rooms",
                json={"game": "poison-pot", "players": 2, "turn_hours": 24, "host_name": "ann"},
                headers=SAME,
            )
            assert created.status_code == 201, created.text
            room = created.json()
            code = room["code"]
            tokens = {"ann": room["seat_token"]}
            claimed = bob.post(f"/api/rooms/{code}/seats", json={"name": "bob"}, headers=SAME)
            tokens["bob"] = claimed.json()["token"]
            seats = {"ann": room["seat"], "bob": claimed.json()["seat"]}
            link(ann, code, tokens["ann"])
            link(bob, code, tokens["bob"])
            before = time.time()
            started = httpx.post(f"{base}/api/rooms/{code}/start", headers=host_headers(room))
            assert started.status_code == 200, started.text
            (first,) = sink.wait_for(1)
            # A day a turn: the stored deadline is a day off.
            assert before + DAY <= deadline_of(db, code) <= time.time() + DAY
            process.send_signal(signal.SIGKILL)  # between turns: the mail went, nobody moved
            process.wait(10)
        mover = first["To"].split("@")[0]
        other = "bob" if mover == "ann" else "ann"
        found = re.search(rf"{re.escape(base)}/rooms/{code}#turn=[\w-]+", text_of(first))
        assert found, text_of(first)
        with server_process(db, *flags, port=port) as (base, _process):
            # The link, on a device that is signed in to nothing and keeps no seat.
            context = browser.new_context()
            try:
                page = context.new_page()
                page.goto(found.group(0))
                page.wait_for_selector(f'#room[data-you="{seats[mover]}"]', timeout=20_000)
                kept = page.evaluate(f"() => localStorage.getItem('apothecary.room.{code}')")
                assert json.loads(kept)["seat_token"] == tokens[mover]
                assert "#turn=" not in page.url  # the token leaves the address bar
            finally:
                context.close()
            # The restarted server did not mail that turn again: the next mail is the
            # other seat's, for the turn the mover's move hands it.
            play_turn(base, code, tokens[mover])
            second = sink.wait_for(2)[1]
            assert second["To"] == f"{other}@example.org"
            # One click on the second mail's unsubscribe link (no sign-in) ...
            leave = re.search(rf"{re.escape(base)}/unsubscribe\?token=[\w-]+", text_of(second))
            assert leave
            assert "Unsubscribed" in httpx.get(leave.group(0)).text
            # ... and their turns are mailed no more; the mover's still are.
            play_turn(base, code, tokens[other])
            sink.wait_for(3)
            play_turn(base, code, tokens[mover])
            play_turn(base, code, tokens[other])
            sink.wait_for(4)
            assert [m["To"].split("@")[0] for m in sink.messages] == [mover, other, mover, mover]
