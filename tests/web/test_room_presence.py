"""A seat's presence on another page follows joins and leaves (issue 28 item 3):
the page is sent a small ``presence`` message, not a full update, and draws it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from serving import make_room


def _types_heard(page: Any) -> list[str]:
    """The types of the messages the page's sockets receive, as they come."""
    heard: list[str] = []

    def watch(socket: Any) -> None:
        def received(payload: str | bytes) -> None:
            if isinstance(payload, str):
                heard.append(json.loads(payload).get("type", ""))

        socket.on("framereceived", received)

    page.on("websocket", watch)
    return heard


def _seat_says(page: Any, seat: int, words: str) -> None:
    """Wait until the lobby says ``words`` of ``seat``'s person ("(here)", "(not connected)")."""
    found = page.locator(f'#room-lobby li.lobby-seat[data-seat="{seat}"] .sr-only', has_text=words)
    found.wait_for(state="attached")


def test_the_other_page_shows_a_person_arrive_and_leave(
    page: Any, browser: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    room = make_room(api, host_name="Ann", game="poison-pot", players=2)
    bob = api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Bob"}).json()
    heard = _types_heard(page)
    enter_room(page, room)
    _seat_says(page, 0, "(here)")
    _seat_says(page, 1, "(not connected)")
    updates_before = heard.count("update")
    other = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        bobs_page = other.new_page()
        enter_room(bobs_page, {**bob, "code": room["code"]})
        _seat_says(page, 1, "(here)")  # Bob's page connected: Ann's page hears of it
        page.locator('#room-lobby li.lobby-seat[data-seat="1"] .dot.on').wait_for()
        page.screenshot(path=str(artifacts / "bob-here.png"))
    finally:
        other.close()
    _seat_says(page, 1, "(not connected)")  # and of his leaving
    page.locator('#room-lobby li.lobby-seat[data-seat="1"] .dot.off').wait_for()
    page.screenshot(path=str(artifacts / "bob-gone.png"))
    # Ann's page was told by presence messages, not by updates of the whole room.
    assert heard.count("presence") >= 2, heard
    assert heard.count("update") == updates_before, heard
    assert not page.errors
