"""The server dies mid-game, seen from real browsers.

Each test runs its own ``apothecary serve`` (a subprocess on a SQLite file and a fixed
port), stops or kills it, and starts it again on the same database and port, as a crash
and a restart do: a move sent into the dying connection is played once the server is
back; a move a stopped server does not answer drops the socket within seconds, and is
played once when the server goes on; a page whose back-off has grown reconnects within a
second or so of the server answering again; and the seat to move is back with the time
it had.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import free_port, make_room, server_process, sqlite_url
from test_room_shell import play_one, start, state_id

ENABLED = "#legal button[data-action]:not([disabled])"
SEATS = ["open", "open", "easy"]
CONNECTED = "#room:not(.offline)"
"""The room screen once a socket is welcomed again (the banner gone)."""


class Server:
    """``apothecary serve`` on one database and port, started again after each kill."""

    def __init__(self, folder: Path) -> None:
        self.db_url, self.port = sqlite_url(folder), free_port()
        self.stack = contextlib.ExitStack()
        self.process: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> float:
        """Start it and wait for /health; when it first answered (monotonic time)."""
        self.base, self.process = self.stack.enter_context(
            server_process(self.db_url, "--bot-delay", "0.05", port=self.port)
        )
        return time.monotonic()

    def signal(self, number: int) -> None:
        assert self.process is not None
        self.process.send_signal(number)

    def kill(self) -> None:
        """kill -9, and wait until it is gone."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    made = Server(tmp_path)
    with made.stack:
        made.start()
        yield made


def two_people(
    server: Server, page: Any, phone_page: Any, enter_room: Any, **body: Any
) -> tuple[Any, Any]:
    """A room of In Vino Morte for Ann (the desktop page), Bob (the phone) and a bot, started."""
    with httpx.Client(base_url=server.base, timeout=10) as api:
        room = make_room(
            api, host_name="Ann", game="in-vino-morte", players=3, seats=SEATS, seed="5", **body
        )
        bob = api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Bob"})
        assert bob.status_code == 200, bob.text
        start(api, room)
    enter_room(page, room, base=server.base)
    enter_room(phone_page, {"code": room["code"], **bob.json()}, base=server.base)
    for who in (page, phone_page):
        who.wait_for_selector("#room[data-status=playing] .table-area")
    return page, phone_page


def bobs_turn(ann: Any, bob: Any) -> None:
    """Ann plays until it is Bob's turn."""
    give_up = time.monotonic() + 30
    while not bob.locator(ENABLED).count():
        assert time.monotonic() < give_up, "Bob's turn never came"
        if ann.locator(ENABLED).count():
            assert play_one(ann), "the game ended before Bob's turn"
        else:
            bob.wait_for_timeout(50)


def test_a_move_sent_as_the_server_dies_is_played_once_it_is_back(
    server: Server, page: Any, phone_page: Any, enter_room: Any, artifacts: Path
) -> None:
    """The field report: on Bob's turn the server stops (SIGSTOP), Bob clicks a move
    (sent into a socket nobody reads), the server is killed and started again. Both pages
    reconnect, and Bob's move is played (sent again on the new socket, or by Bob clicking
    again), and the game goes on; on the old page every click after the reconnect sent
    nothing, for the page still took the move as on its way."""
    ann, bob = two_people(server, page, phone_page, enter_room)
    bobs_turn(ann, bob)
    before = state_id(bob)
    mine = bob.locator("#log li.log-event.mine").count()
    server.signal(signal.SIGSTOP)
    bob.locator(ENABLED).first.click()
    bob.wait_for_selector("#legal button[data-action][disabled]")
    server.kill()
    for who in (ann, bob):
        who.wait_for_selector("#room.offline")
    ann.screenshot(path=str(artifacts / "desktop-offline.png"))
    bob.screenshot(path=str(artifacts / "phone-offline.png"))
    server.start()
    for who in (ann, bob):
        who.wait_for_selector(CONNECTED, timeout=20_000)
    moved = "([s]) => document.querySelector('#room').dataset.stateId !== s"
    bob.wait_for_function(f"{moved} || document.querySelector('{ENABLED}')", arg=[before])
    if state_id(bob) == before:  # not sent again by itself: Bob clicks again
        bob.locator(ENABLED).first.click()
    bob.wait_for_function(moved, arg=[before], timeout=10_000)
    assert bob.locator("#log li.log-event.mine").count() == mine + 1  # played once
    ann.wait_for_function(moved, arg=[before])
    ann.screenshot(path=str(artifacts / "desktop-back.png"))
    bob.screenshot(path=str(artifacts / "phone-back.png"))
    # The game goes on: the next move (the bot's, or a person's) is played too.
    after = state_id(bob)
    assert bob.get_attribute("#room", "data-status") == "playing"
    for who in (ann, bob):
        if who.locator(ENABLED).count():
            who.locator(ENABLED).first.click()
            break
    bob.wait_for_function(moved, arg=[after])
    assert ann.errors == [] and bob.errors == []


def test_a_move_a_stopped_server_does_not_answer_is_played_once_when_it_goes_on(
    server: Server, page: Any, phone_page: Any, enter_room: Any
) -> None:
    """The server stops (SIGSTOP) as Bob moves, and goes on (SIGCONT) 8 s later. The page
    takes the silence after its move for a dead socket within a few seconds (the old page
    waited for its next ping, up to 21 s), reconnects once the server answers, and the
    move is played once: the socket it went on delivers it, or the page sends it again,
    and the server refuses whichever comes second."""
    ann, bob = two_people(server, page, phone_page, enter_room)
    bobs_turn(ann, bob)
    before = state_id(bob)
    mine = bob.locator("#log li.log-event.mine").count()
    server.signal(signal.SIGSTOP)
    try:
        bob.locator(ENABLED).first.click()
        bob.wait_for_selector("#room.offline", timeout=8_000)
    finally:
        server.signal(signal.SIGCONT)
    bob.wait_for_selector(CONNECTED, timeout=30_000)
    bob.wait_for_function(
        "([s]) => document.querySelector('#room').dataset.stateId !== s", arg=[before]
    )
    ann.wait_for_function(
        "([s]) => document.querySelector('#room').dataset.stateId !== s", arg=[before]
    )
    bob.wait_for_timeout(500)  # a second copy of the move, had it been played, would be in
    assert bob.locator("#log li.log-event.mine").count() == mine + 1
    assert ann.errors == [] and bob.errors == []


def test_a_page_reconnects_soon_after_the_server_answers_again(
    server: Server, page: Any, phone_page: Any, enter_room: Any
) -> None:
    """Down long enough that the back-off reached 8 s between attempts, the server comes
    back: the page is connected again well within 1.5 s of the server first answering
    /health (the old page waited out the 8 s)."""
    ann, _bob = two_people(server, page, phone_page, enter_room)
    attempts: list[float] = []
    ann.on("websocket", lambda _ws: attempts.append(time.monotonic()))
    server.kill()
    ann.wait_for_selector("#room.offline")
    # Four failed attempts, after 0.5, 1, 2 and 4 s: the next waits 8 s.
    give_up = time.monotonic() + 30
    while len(attempts) < 4:
        assert time.monotonic() < give_up, f"only {len(attempts)} attempts to reconnect"
        ann.wait_for_timeout(100)
    answered = server.start()
    ann.wait_for_selector(CONNECTED, timeout=20_000)
    took = time.monotonic() - answered
    assert took < 1.5, f"connected {took:.1f} s after the server answered again"
    assert play_one(ann) or ann.get_attribute("#room", "data-status") == "over"


def seconds_left(page: Any) -> int:
    """What the room's countdown shows."""
    label = page.get_attribute("#clock", "aria-label") or ""
    return int(label.split()[0])


def test_the_clock_after_an_outage_shows_the_time_the_seat_had(
    server: Server, page: Any, phone_page: Any, enter_room: Any
) -> None:
    """The field report: a 30 s turn, the server killed and down 5 s. Back, the seat
    to move has about what it had at the kill (the old server kept the stored deadline,
    so the outage, the restart and the back-off came off the seat's time)."""
    ann, bob = two_people(server, page, phone_page, enter_room, turn_seconds=30)
    ann.wait_for_selector(ENABLED)
    ann.wait_for_selector("#clock:not([hidden])")
    had = seconds_left(ann)
    server.kill()
    ann.wait_for_selector("#room.offline")
    ann.wait_for_timeout(5000)
    server.start()
    for who in (ann, bob):
        who.wait_for_selector(CONNECTED, timeout=20_000)
    assert ann.locator(ENABLED).count() > 0  # still Ann's turn
    left = seconds_left(ann)
    assert had - 3 <= left <= had + 1, (had, left)
    assert abs(seconds_left(bob) - left) <= 1  # every viewer counts down to the same deadline
