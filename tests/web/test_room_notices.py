"""The room page says why a bot plays for you, and its log tells the table's news.

The banner said "Your time ran out, so a bot is playing for you." whenever a bot
played for you, even when the host had handed your seat over and no timer ran.
The log never said that a seat was handed over or taken back, and showed the
bot's moves as if the absent person had made them. Now the banner names the
reason from the seat's ``away_reason``, and the log draws the room's notices and
marks a bot's moves from the update's data (``notices``, an event's ``by_bot``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serving import host_headers, make_room
from test_room_shell import start


def test_the_host_handing_your_seat_over_is_said_so(
    device_page: Any, device: str, api: Any, enter_room: Any, artifacts: Path
) -> None:
    page = device_page
    room = make_room(api, None, game="in-vino-morte", players=2, seed="say-why")
    code = room["code"]
    bob = api.post(f"/api/rooms/{code}/seats", json={"name": "Bob", "seat": 0}).json()
    api.post(f"/api/rooms/{code}/seats", json={"name": "Ann", "seat": 1})
    start(api, room)
    enter_room(page, {**bob, "code": code})
    page.wait_for_selector("#legal button[data-action]:not([disabled])")  # Bob deals first
    handed = api.put(
        f"/api/rooms/{code}/seats/0/bot", json={"level": "easy"}, headers=host_headers(room)
    )
    assert handed.status_code == 200, handed.text
    page.wait_for_selector("#away:not([hidden])")
    assert page.inner_text("#away").splitlines()[0] == (
        "The host handed your seat to an easy bot while you were away."
    )
    notice = page.locator("#log li.log-notice[data-notice=bot_plays]")
    assert notice.inner_text() == "Bob (you) is away: the host handed the seat to an easy bot"
    # The bot deals for Bob; the log says it was the bot (Ann is to move next, and waits).
    moved = page.locator("#log li.log-event[data-by-bot=easy]").first
    moved.wait_for()
    assert moved.inner_text().startswith("easy bot for Bob (you): ")
    page.screenshot(path=str(artifacts / f"handed-over-{device}.png"))
    page.click("#take-back")
    page.wait_for_selector("#away", state="hidden")
    back = page.locator("#log li.log-notice[data-notice=took_back]")
    back.wait_for()
    assert back.inner_text() == "Bob (you) took the seat back from the bot"
    page.locator("#log").screenshot(path=str(artifacts / f"log-{device}.png"))
    assert page.errors == []


def test_a_timed_out_turn_says_the_time_ran_out(page: Any, api: Any, enter_room: Any) -> None:
    # Ann deals first and lets her time run out; Bob, a person who never comes,
    # keeps the game going for a turn more, so the banner shows while the game
    # is on (it hides once the game is over, which two bots reach in a moment).
    room = make_room(api, None, game="in-vino-morte", players=2, seed="ran-out", turn_seconds=3)
    code = room["code"]
    ann = api.post(f"/api/rooms/{code}/seats", json={"name": "Ann", "seat": 0}).json()
    api.post(f"/api/rooms/{code}/seats", json={"name": "Bob", "seat": 1})
    enter_room(page, {**ann, "code": code})
    start(api, room)
    page.wait_for_selector("#away:not([hidden])", timeout=30_000)
    assert page.inner_text("#away").splitlines()[0] == (
        "Your time ran out, so a medium bot is playing for you."
    )
    assert page.locator("#log li.log-notice[data-notice=bot_plays]").first.inner_text() == (
        "Time ran out for Ann (you): a medium bot plays for them"
    )
