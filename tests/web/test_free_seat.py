"""The host frees a stranger's lobby seat from the browser: a button beside the
seat, a confirm, and the freed person's page says so and offers the seat again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from serving import make_room


def test_the_host_frees_a_strangers_seat_and_their_page_says_so(
    page: Any, browser: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    room = make_room(api, game="poison-pot", players=2, seats=["open", "open"])
    code = room["code"]
    claimed = api.post(f"/api/rooms/{code}/seats", json={"name": "Stranger"})
    assert claimed.status_code in (200, 201), claimed.text
    stranger = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        guest = stranger.new_page()
        guest.set_default_timeout(10_000)
        enter_room(guest, {"code": code, "token": claimed.json()["token"], "seat": 1})
        guest.get_by_text("You sit in seat 1 as Stranger").wait_for()
        enter_room(page, room)
        free = page.locator('[data-free-seat="1"]')
        free.wait_for()
        assert page.locator("[data-free-seat]").count() == 1  # not beside the host's own seat
        page.screenshot(path=str(artifacts / "button.png"))
        # Dismissed: nothing is asked of the server, the seat stays the stranger's.
        page.once("dialog", lambda dialog: dialog.dismiss())
        free.click()
        assert api.get(f"/api/rooms/{code}").json()["seats"][1]["name"] == "Stranger"
        asked: list[str] = []

        def accept(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept()

        page.once("dialog", accept)
        free.click()
        page.locator('.lobby-seat[data-seat="1"].open').wait_for()
        assert asked and "Stranger" in asked[0]
        assert api.get(f"/api/rooms/{code}").json()["seats"][1]["kind"] == "open"
        # The stranger's page says so, forgets the dead token and offers the seat again.
        guest.locator("#seat-freed").wait_for()
        guest.locator("#join-name").wait_for()
        guest.locator('.lobby-seat[data-seat="1"].open').wait_for()
        assert guest.locator("#room").get_attribute("data-you") == ""
        kept = json.loads(guest.evaluate(f"localStorage.getItem('apothecary.room.{code}')"))
        assert not kept.get("seat_token"), kept
        page.screenshot(path=str(artifacts / "host.png"))
        guest.screenshot(path=str(artifacts / "freed.png"))
    finally:
        stranger.close()
