"""Your-turn browser notifications (issue #31: "a browser notification while the site is
open in any tab"): in Debian's Chromium, the lobby of a signed-in person offers to
notify, asks the browser's permission from the click (a user gesture), and when a
turn-based room's turn becomes theirs, shows one notification naming the game, tagged
with the room, whose click opens it. The Notification API is wrapped to record what the
page asks of it (a headless browser shows nothing)."""

from __future__ import annotations

from typing import Any

import httpx
from serving import host_headers, make_room
from test_turn_mail import PASSWORD, SAME, link, play_turn

RECORDER = """
(() => {
  const made = (window.__notes = []);
  window.__asked = [];
  let permission = "default";
  class Recorded {
    constructor(title, options) {
      Object.assign(this, { title, ...options, onclick: null });
      made.push(this);
    }
    static get permission() { return permission; }
    static requestPermission() {
      window.__asked.push(navigator.userActivation.isActive);
      permission = "granted";
      return Promise.resolve(permission);
    }
  }
  window.Notification = Recorded;
})();
"""
"""Stands in for the Notification API: records each notification and each permission
request (with whether a user gesture was active), and grants the permission."""


def test_the_lobby_notifies_when_a_turn_becomes_yours(browser: Any, web_server: str) -> None:
    with httpx.Client(base_url=web_server, timeout=10) as ann:
        made = ann.post(
            "/api/account/sign-up", json={"name": "notified", "password": PASSWORD}, headers=SAME
        )
        assert made.status_code == 201, made.text
        session = ann.cookies["apothecary_session"]
        room = make_room(
            httpx.Client(base_url=web_server, timeout=10),
            host_name=None,
            game="poison-pot",
            players=2,
            turn_hours=24,
        )
        code = room["code"]
        mine = ann.post(f"/api/rooms/{code}/seats", json={"name": "notified", "seat": 0}).json()
        link(ann, code, mine["token"])
        guest = httpx.post(f"{web_server}/api/rooms/{code}/seats", json={"name": "g", "seat": 1})
        tokens = {0: mine["token"], 1: guest.json()["token"]}
        started = httpx.post(f"{web_server}/api/rooms/{code}/start", headers=host_headers(room))
        assert started.status_code == 200, started.text
        state = httpx.get(
            f"{web_server}/api/account/games", cookies={"apothecary_session": session}
        )
        if state.json()["current"][0]["your_turn"]:  # the turn must become ours later
            play_turn(web_server, code, tokens[0])

    context = browser.new_context()
    try:
        context.add_init_script(RECORDER)
        host = web_server.split("//")[1].split(":")[0]
        context.add_cookies(
            [{"name": "apothecary_session", "value": session, "domain": host, "path": "/"}]
        )
        page = context.new_page()
        page.goto(web_server)
        button = page.locator("#notify-turns")
        with page.expect_response(lambda r: r.url.endswith("/api/account/games")):
            button.click()  # the first look after the permission: the turn is not ours
        assert page.evaluate("() => window.__asked") == [True]  # asked from the click
        assert page.evaluate("() => window.__notes") == []
        play_turn(web_server, code, tokens[1])  # the guest's turn ends: ours now
        page.wait_for_function("() => window.__notes.length > 0", timeout=60_000)
        (note,) = page.evaluate(
            "() => window.__notes.map(({ title, tag, body }) => ({ title, tag, body }))"
        )
        assert note["title"] == "Your turn in Poison Pot"
        assert note["tag"] == f"turn-{code}" and code in note["body"]
        page.evaluate("() => window.__notes[0].onclick()")  # the click opens the room
        page.wait_for_url(f"{web_server}/rooms/{code}")
    finally:
        context.close()
