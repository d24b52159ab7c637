"""Seats that follow an account, in a real browser over a real server (issue #31): a seat
taken signed in on one device is played on another signed in to the same account, found
through "My games"; another account's browser only watches; a guest who plays and then
signs up finds the game in "My games"; a deleted account's seat says "deleted player"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from serving import host_headers, make_room
from test_account_pages import PASSWORD, fill, header_says
from test_csp import _violations, _watch


def signed_up(page: Any, base: str, name: str) -> None:
    """Make an account on the /account page; the header then names it."""
    page.goto(f"{base}/account")
    fill(page, "sign-up", name=name, password=PASSWORD)
    page.locator("h1", has_text=f"Signed in as {name}").wait_for()


def signed_in(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/account")
    fill(page, "sign-in", name=name, password=PASSWORD)
    page.locator("h1", has_text=f"Signed in as {name}").wait_for()


def one_seat_room(api: httpx.Client, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A two-seat room with a bot in seat 1 and ``name`` in seat 0: the room and the claim."""
    room = make_room(api, host_name=None, game="poison-pot", players=2, seats=["open", "random"])
    seat = api.post(f"/api/rooms/{room['code']}/seats", json={"name": name, "seat": 0})
    assert seat.status_code == 200, seat.text
    return room, {**seat.json(), "code": room["code"]}


def play_one_move(page: Any) -> None:
    """Wait for this seat's turn and play its first legal move; the room moves on."""
    enabled = "#legal button[data-action]:not([disabled])"
    page.locator(enabled).first.wait_for(state="attached")
    folded = page.locator(".moves-details:not([open]) summary")
    if folded.count():  # many moves: they fold out of a summary (test_room_controls)
        folded.first.click()
    before = page.locator("#room").get_attribute("data-state-id")
    page.locator(f"{enabled}:visible").first.click()
    page.wait_for_function(
        "(before) => document.querySelector('#room').dataset.stateId !== before", arg=before
    )


def test_a_seat_taken_on_one_device_is_played_on_another(
    browser: Any, page: Any, web_server: str, api: httpx.Client, enter_room: Any, artifacts: Path
) -> None:
    """Issue #31: "On another device signed in to the same account, the client can get
    its seat credentials for that room from the server ... and play"."""
    console = _watch(page)
    signed_up(page, web_server, "Alessandro")
    room, seat = one_seat_room(api, "Alessandro")
    code = room["code"]
    enter_room(page, seat)  # device A holds the seat's token: opening the room links it
    page.locator("#room[data-you='0']").wait_for()
    started = api.post(f"/api/rooms/{code}/start", headers=host_headers(room))
    assert started.status_code == 200, started.text

    other = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        second = other.new_page()
        signed_in(second, web_server, "alessandro")
        second.goto(f"{web_server}/")
        mine = second.locator(f"#my-games li[data-code='{code}']")
        mine.wait_for()
        assert "Alessandro" in mine.inner_text() and "random bot" in mine.inner_text()
        second.screenshot(path=artifacts / "my-games.png")
        mine.locator("a", has_text="Open").click()
        second.wait_for_url(f"**/rooms/{code}")
        second.locator("#room[data-you='0']").wait_for()  # the server gave this device the seat
        play_one_move(second)
    finally:
        other.close()

    # Another account's browser has no seat there: it watches.
    stranger = browser.new_context()
    try:
        third = stranger.new_page()
        signed_up(third, web_server, "Ottaviano")
        third.goto(f"{web_server}/")
        third.locator("#my-games", has_text="No games yet").wait_for()
        third.goto(f"{web_server}/rooms/{code}")
        third.locator("#room[data-status='playing']").wait_for()
        assert third.locator("#room").get_attribute("data-you") in ("", None)
    finally:
        stranger.close()
    assert _violations(page, console) == []


def test_a_guest_who_plays_then_signs_up_finds_the_game_in_my_games(
    page: Any, web_server: str, api: httpx.Client, enter_room: Any
) -> None:
    """Issue #31: "A guest who signs up (or signs in) during or after a game keeps their
    seat and that game in their history"; then deleting the account leaves no name."""
    room, seat = one_seat_room(api, "Girolamo")
    code = room["code"]
    enter_room(page, seat, name="Girolamo")
    assert api.post(f"/api/rooms/{code}/start", headers=host_headers(room)).status_code == 200
    play_one_move(page)  # a guest's move, from the token in localStorage

    signed_up(page, web_server, "Girolamo")
    page.goto(f"{web_server}/")
    page.locator(f"#my-games #my-current li[data-code='{code}']").wait_for()

    page.goto(f"{web_server}/account")
    fill(page, "delete-account", password=PASSWORD)
    page.locator("#sign-up").wait_for()
    header_says(page, "Sign in")
    facts = api.get(f"/api/rooms/{code}").json()
    assert facts["seats"][0]["name"] == "deleted player", facts["seats"]
