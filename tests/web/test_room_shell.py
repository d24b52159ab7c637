"""The room screen in a real browser: a game played to its result by clicking the
legal-action buttons, a rematch, a reload and a lost network that come back to the
same seat, a spectator, chat shown as text, the keyboard alone, a forged token, a
timed-out turn taken back, and the generic table when a game has none of its own."""

from __future__ import annotations

import json
import re
from typing import Any

import tables_kit as kit
from axe_kit import inject_axe
from serving import host_headers, make_room


def start(api: Any, room: dict[str, Any]) -> None:
    response = api.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    assert response.status_code == 200, response.text


def state_id(page: Any) -> str:
    return page.get_attribute("#room", "data-state-id") or ""


def wait_for_move(page: Any) -> None:
    """Until it is our turn (an enabled legal button) or the game is over."""
    page.wait_for_selector(
        "#legal button[data-action]:not([disabled]), #room[data-status=over]", timeout=15_000
    )


def play_one(page: Any) -> bool:
    """Click the first legal button and wait for the position to move on; False when over."""
    wait_for_move(page)
    if page.get_attribute("#room", "data-status") == "over":
        return False
    before = state_id(page)
    page.locator("#legal button[data-action]:not([disabled])").first.click()
    page.wait_for_function(
        "([before]) => { const r = document.querySelector('#room');"
        " return r.dataset.stateId !== before || r.dataset.status === 'over'; }",
        arg=[before],
    )
    return True


def play_to_the_end(page: Any, limit: int = 200) -> None:
    for _ in range(limit):
        if not play_one(page):
            return
    raise AssertionError("the game did not end")


def ivm_with_bots(api: Any, **body: Any) -> dict[str, Any]:
    body = {
        "game": "in-vino-morte",
        "players": 3,
        "seats": ["open", "easy", "easy"],
        "seed": "7",
        **body,
    }
    room = make_room(api, host_name="Ann", **body)
    start(api, room)
    return room


def test_a_game_played_to_the_result_by_clicking_then_a_rematch(
    page, web_server, api, enter_room, artifacts
):
    room = ivm_with_bots(api)
    enter_room(page, room)
    page.wait_for_selector("#room[data-status=playing] .table-area")
    wait_for_move(page)
    assert page.locator("#seats li").count() == 3
    assert page.locator("#seats li.is-you .chip-name").inner_text() == "Ann"
    status = page.inner_text("#status")
    assert status.strip()
    page.screenshot(path=str(artifacts / "mid-game.png"))
    play_to_the_end(page)
    page.wait_for_selector("#result h2")
    result = page.inner_text("#result")
    outcome = api.get(f"/api/rooms/{room['code']}").json()
    assert outcome["status"] == "over"
    assert "Rematch" in result
    assert page.locator("#result .scores tbody tr").count() == 3
    assert page.locator("#result .scores tr.won").count() >= 1
    assert page.inner_text("#status").startswith("Game over")
    # The log speaks of people by name, never "seat N"; your seat is marked.
    log = page.inner_text("#log")
    assert "Game 1 begins".lower() in log.lower()
    assert not re.search(r"\bseat \d+\b", log.replace("(seat 1)", "").replace("(seat 2)", ""))
    assert "Ann (you)" in log
    assert page.locator("#log .who.you").count() >= 1
    page.screenshot(path=str(artifacts / "result.png"))
    # The host offers a rematch: game 2, everyone one seat on (Ann moves to seat 1).
    page.click("#rematch")
    page.wait_for_selector("#room[data-game-no='2'][data-status=playing]")
    assert page.get_attribute("#room", "data-you") == "1"
    assert page.locator("#result").is_hidden()
    assert page.locator("#log li.log-game").count() == 1
    stored = json.loads(page.evaluate(f"localStorage.getItem('apothecary.room.{room['code']}')"))
    assert stored["seat"] == 1
    assert page.errors == []


def test_a_reload_returns_to_the_same_seat_and_view(page, web_server, api, enter_room):
    room = ivm_with_bots(api)
    enter_room(page, room)
    play_one(page)
    play_one(page)
    wait_for_move(page)
    before = state_id(page)
    log_before = page.locator("#log li.log-event").count()
    assert log_before >= 2
    page.reload()
    page.wait_for_selector("#room[data-status=playing][data-you='0']")
    page.wait_for_function(
        "([s]) => document.querySelector('#room').dataset.stateId === s", arg=[before]
    )
    # The whole game's events come with the first update, so the log is complete again.
    assert page.locator("#log li.log-event").count() == log_before
    assert page.locator("#log li.log-game").count() == 1
    assert page.locator("#legal button[data-action]").count() >= 1
    play_one(page)


def test_a_lost_network_reconnects_to_the_same_seat(page, web_server, api, enter_room):
    room = ivm_with_bots(api)
    enter_room(page, room)
    wait_for_move(page)
    page.context.set_offline(True)
    page.wait_for_selector("#banner:not([hidden])")
    assert "connect" in page.inner_text("#banner").lower()
    page.context.set_offline(False)
    page.wait_for_selector("#banner", state="hidden", timeout=15_000)
    page.wait_for_selector("#room[data-you='0']")
    assert play_one(page)


def test_a_spectator_sees_the_game_but_no_legal_buttons(browser, web_server, api, enter_room):
    room = ivm_with_bots(api)
    host = browser.new_context(viewport={"width": 1280, "height": 800})
    guest = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        player = enter_room(host.new_page(), room)
        wait_for_move(player)
        watcher = guest.new_page()
        watcher.goto(f"{web_server}/rooms/{room['code']}#watch")
        watcher.wait_for_selector("#room[data-status=playing] .table-area")
        watcher.wait_for_selector("#legal .watching")
        assert watcher.get_attribute("#room", "data-you") == ""
        assert watcher.locator("#legal button").count() == 0
        assert "watching" in watcher.inner_text("#legal")
        # Spectators read the chat but have no box to write in.
        assert watcher.locator("#chat-form").is_hidden()
        player.wait_for_selector(".watchers:has-text('1 watching')")
        # The player's move reaches the spectator.
        seen = state_id(watcher)
        play_one(player)
        watcher.wait_for_function(
            "([s]) => document.querySelector('#room').dataset.stateId !== s", arg=[seen]
        )
    finally:
        host.close()
        guest.close()


def test_chat_is_shown_as_text(browser, web_server, api, enter_room):
    room = ivm_with_bots(api)
    first = browser.new_context()
    second = browser.new_context()
    try:
        ann = enter_room(first.new_page(), room)
        watcher = second.new_page()
        watcher.goto(f"{web_server}/rooms/{room['code']}")
        watcher.wait_for_selector("#room[data-status=playing]")
        ann.wait_for_selector("#room[data-status=playing]")
        ann.locator("#tab-chat").click() if ann.locator("#tab-chat").is_visible() else None
        assert ann.get_attribute("#chat-input", "maxlength") == "500"
        ann.fill("#chat-input", "<b>x</b> & <script>alert(1)</script>")
        ann.press("#chat-input", "Enter")
        for page in (ann, watcher):
            line = page.locator("#chat-log li .chat-text").last
            line.wait_for()
            assert line.inner_text() == "<b>x</b> & <script>alert(1)</script>"
            assert page.locator("#chat-log b, #chat-log script").count() == 0
        assert ann.input_value("#chat-input") == ""
        assert "Ann (you)" in ann.inner_text("#chat-log")
    finally:
        first.close()
        second.close()


def test_the_keyboard_alone_makes_a_move(page, web_server, api, enter_room):
    room = ivm_with_bots(api)
    enter_room(page, room)
    wait_for_move(page)
    before = state_id(page)
    page.locator("body").focus()
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#legal button[data-action]')"):
            break
    else:
        raise AssertionError("Tab never reached a legal-action button")
    # Focus is visible on it.
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([s]) => document.querySelector('#room').dataset.stateId !== s", arg=[before]
    )


def test_a_forged_token_is_dropped_and_watching_offered(page, web_server, api, enter_room):
    room = ivm_with_bots(api)
    enter_room(page, {"code": room["code"]}, seat_token="not-a-real-token-of-this-room")
    page.wait_for_selector("#watch-instead")
    stored = json.loads(page.evaluate(f"localStorage.getItem('apothecary.room.{room['code']}')"))
    assert "seat_token" not in stored
    page.click("#watch-instead")
    page.wait_for_selector("#legal .watching")
    assert page.get_attribute("#room", "data-you") == ""


def test_a_timed_out_turn_can_be_taken_back(page, web_server, api, enter_room):
    room = make_room(
        api,
        host_name="Ann",
        seed="3",
        game="tea-scones-arsenic",
        players=2,
        seats=["open", "easy"],
        turn_seconds=2,
    )
    start(api, room)
    enter_room(page, room)
    page.wait_for_selector("#room[data-status=playing]")
    page.wait_for_selector("#away:not([hidden])", timeout=20_000)
    assert page.locator("#seats li.is-you.away").count() == 1
    page.click("#take-back")
    page.wait_for_selector("#away", state="hidden")
    assert not api.get(f"/api/rooms/{room['code']}").json()["seats"][0]["away"]


def test_a_countdown_shows_the_time_left(page, web_server, api, enter_room):
    room = ivm_with_bots(api, turn_seconds=600)
    enter_room(page, room)
    wait_for_move(page)
    clock = page.locator("#clock")
    clock.wait_for()
    assert re.fullmatch(r"(9|10):\d\d", clock.inner_text().strip())
    assert "warn" not in (clock.get_attribute("class") or "")


def test_the_generic_table_stands_in_for_a_missing_one(page, web_server, api, enter_room):
    page.route("**/tables/in-vino-morte/table.*", lambda route: route.abort())
    room = ivm_with_bots(api)
    enter_room(page, room)
    page.wait_for_selector(".table-area[data-table=generic] .generic-body dl")
    text = page.inner_text(".table-area")
    assert "round" in text and "dealer" in text
    assert "Ann (you)" in text  # per-seat lists are labelled with the seats' names
    play_one(page)  # the shell's buttons are enough to play


def test_the_rules_dialog_opens_from_the_room(page, web_server, api, enter_room):
    room = ivm_with_bots(api)
    enter_room(page, room)
    page.click("#rules-button")
    page.wait_for_selector("#rules-dialog[open] #rules-body h1")
    assert page.locator("#rules-body table").count() >= 1
    page.keyboard.press("Escape")
    page.wait_for_selector("#rules-dialog:not([open])", state="attached")


def shoot(page: Any, folder: Any, screen: str, size: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(folder / f"{screen}-{size}-{scheme}.png"), full_page=True)


def test_screenshots_of_every_screen(browser, web_server, api, enter_room, artifacts):
    """The lobby, a room's lobby, a table mid-game and a result, on desktop and phone,
    light and dark, saved under ``artifacts`` to be looked at (never committed)."""
    waiting = make_room(api, host_name="Ann", game="in-vino-morte", players=3, seats=["open"])
    sizes = {
        "desktop": {"viewport": {"width": 1280, "height": 800}},
        "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    }
    for size, options in sizes.items():
        playing = ivm_with_bots(api)
        context = browser.new_context(**options)
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))  # noqa: B023
            page.goto(f"{web_server}/")
            page.wait_for_function(
                "() => document.querySelector('.card-more')?.textContent.length > 0"
            )
            shoot(page, artifacts, "lobby", size)
            enter_room(page, waiting)
            page.wait_for_selector("#room-lobby .qr")
            shoot(page, artifacts, "room-lobby", size)
            enter_room(page, playing)
            wait_for_move(page)
            if page.get_attribute("#room", "data-status") != "over":
                shoot(page, artifacts, "table", size)
            play_to_the_end(page)
            page.wait_for_selector("#result h2")
            shoot(page, artifacts, "result", size)
            assert errors == []
        finally:
            context.close()
    assert len(list(artifacts.glob("*.png"))) == 16


def test_the_room_screen_has_no_serious_accessibility_violations(page, web_server, api, enter_room):
    """The shell around a table (the generic one, so a game's own table is not judged here)."""
    page.route("**/tables/in-vino-morte/table.*", lambda route: route.abort())
    room = ivm_with_bots(api, turn_seconds=600)
    enter_room(page, room)
    wait_for_move(page)
    page.fill("#chat-input", "hello")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#chat-log li")
    inject_axe(page)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
        serious = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
        assert not serious, [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in serious]


IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight; }"""
"""Whether the element is wholly in the window."""


def test_the_result_comes_into_view_once_when_the_game_ends(
    browser, web_server, api, enter_room, phone_page
):
    """In a tall layout (a phone, a full room) the page is scrolled to the moves when the
    game ends, and the result shows above, at the top: it is scrolled into view, once."""
    phone_page.emulate_media(reduced_motion="reduce")  # no smooth scroll to wait for
    room = ivm_with_bots(api)
    enter_room(phone_page, room)
    # A table this tall puts the moves (and the page's scroll) far below the result.
    kit.add_css(phone_page, ".table-slot { min-height: 1600px; }")
    play_to_the_end(phone_page)
    phone_page.wait_for_selector("#result h2")
    phone_page.wait_for_function(IN_VIEW, arg="#result h2", timeout=5_000)
    # Later updates (here: someone comes to watch) leave the reader where they are.
    phone_page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    bottom = phone_page.evaluate("window.scrollY")
    assert bottom > 0 and not phone_page.evaluate(IN_VIEW, "#result h2")
    guest = browser.new_context()
    try:
        guest.new_page().goto(f"{web_server}/rooms/{room['code']}#watch")
        phone_page.wait_for_selector(".watchers:has-text('1 watching')")
    finally:
        guest.close()
    assert phone_page.evaluate("window.scrollY") == bottom


def test_a_shared_win_names_every_winner(page, web_server, api):
    """In Vino Morte's outcome says "seat 0, seat 1 and seat 2 share the win" when everyone
    left dies in the same round (with Cheese); the result and the status line say the names."""
    # An all-bot room whose seed ends that way (checked below, so a change shows).
    room = make_room(
        api,
        host_name=None,
        seed="share-3",
        game="in-vino-morte",
        players=3,
        seats=["easy", "easy", "easy"],
        options={"cheese": True},
    )
    page.goto(f"{web_server}/rooms/{room['code']}#watch")
    page.wait_for_selector("#room[data-status]")
    start(api, room)
    page.wait_for_selector("#result h2", timeout=20_000)
    reason = api.get(f"/api/replays/{room['code']}/1").json()["outcome"]["reason"]
    assert "seat 0, seat 1 and seat 2 share the win" in reason
    names = [page.inner_text(f"#seats li[data-seat='{s}'] .chip-name") for s in range(3)]
    said = page.inner_text("#result .reason")
    status = page.inner_text("#status")
    for text in (said, status):
        assert not re.search(r"\bseats? \d", text.replace("(seat ", "(")), text
    labels = page.eval_on_selector_all("#result .reason .who", "ws => ws.map((w) => w.innerText)")
    assert [label.split(" (seat")[0] for label in labels] == names
    assert f"{labels[0]}, {labels[1]} and {labels[2]} share the win" in said


def test_no_request_fails_not_even_the_icon(page, web_server, api, enter_room):
    """A page that is not the client's (/health) makes the browser ask for /favicon.ico."""
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # The icon's request is the browser's own (no response event): its 404 shows as an error.
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    enter_room(page, ivm_with_bots(api))
    page.wait_for_selector("#room[data-status=playing] .table-area")
    page.goto(f"{web_server}/")
    page.wait_for_selector(".card-more")
    assert failed == []
    icon = api.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
