"""The In Vino Morte table in a real browser, through the real shell and server.

- a person plays a whole game against bots by clicking the board (glasses, the
  pour popover, cheese) until the result, on a desktop and on a phone (dark);
- two browser contexts play against each other, one of them the dealer: the
  other's page never holds what a covered glass contains (DOM, SVG, and the
  WebSocket frames it received) until the reveal;
- the keyboard alone makes a move; axe-core finds nothing serious;
- screenshots at the start, mid-game and the end land in the test's artifacts;
  ``APOTHECARY_REFRESH_PICTURES=1`` also writes ``docs/images/in-vino-morte.png``.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import tables_kit as kit
from serving import host_headers, make_room

GAME = "in-vino-morte"
BOARD = ".table-area [role=button].ivm-can:not([data-key=skip])"
POUR = ".ivm-popover button.ivm-pour"


def board_move(page: Any, rng: random.Random) -> bool:
    """One move by the board, if the board offers one now: True when made."""
    if page.locator(POUR).count():
        choices = page.locator(POUR)
    else:
        keys = page.eval_on_selector_all(BOARD, "nodes => nodes.map(n => n.dataset.key)")
        if not keys:
            skip = page.locator(".table-area [data-key=skip]")
            if skip.count():
                skip.first.click(timeout=2000)
            return False
        key = rng.choice(keys)
        before = kit.state_id(page)
        try:
            page.click(f'.table-area [data-key="{key}"]', timeout=2000)
        except Exception:  # the board was drawn anew under the click: look again
            return False
        if key.startswith("pour-"):
            page.wait_for_selector(POUR, timeout=2000)
            choices = page.locator(POUR)
        else:
            kit.wait_change(page, before)
            return True
    with kit.next_position(page):
        choices.nth(rng.randrange(choices.count())).click(timeout=2000)
    return True


def play_to_end(page: Any, rng: random.Random, shots: Path | None = None, tag: str = "") -> int:
    """Click the board until the result shows; a screenshot at start, mid-game and end."""
    started = time.monotonic()
    page.wait_for_selector(".table-area svg")
    if shots:
        kit.snap(page, shots, f"{tag}-start", table=True)
    mid_taken = False

    def move(_: int) -> bool:
        nonlocal mid_taken
        made = board_move(page, rng)
        if (
            shots
            and not mid_taken
            and page.locator(".table-area .ivm-move-line, .table-area [data-glass=covered]").count()
        ):
            kit.snap(page, shots, f"{tag}-mid", table=True)
            mid_taken = True
        return made

    moves = kit.play(move, until=lambda: kit.over(page), seconds=90, since=started)
    # the last reveal plays on the table, then the table holds the final round
    page.wait_for_selector(".table-area .ivm-winner, .table-area .ivm-centre-title", timeout=10_000)
    skip = page.locator(".table-area [data-key=skip]")
    if skip.count():
        skip.first.click()
    if shots:
        kit.snap(page, shots, f"{tag}-end", table=True)
    return moves


def test_a_whole_game_by_the_board(
    device: str, device_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    seats = ["open", "medium", "medium", "medium", "medium"]
    answer = kit.start_room(api, GAME, 5, seats, "ivm-board-7", {"cheese": True})
    enter_room(device_page, answer)
    moves = play_to_end(device_page, random.Random(7), artifacts, f"ivm-{device}")
    assert moves >= 5  # the first round's deal at least, all by the board
    assert device_page.locator("#room").get_attribute("data-status") == "over"
    # the centre says who the last round killed, the verb and the round first
    # (it read "round 1: you, medium bot #2", its "died" wrapped out of the centre)
    centre = device_page.eval_on_selector_all(
        ".table-area .ivm-centre text", "nodes => nodes.map(n => n.textContent)"
    )
    assert any(re.match(r"(died|nobody died) in round \d+", line) for line in centre), centre
    assert not device_page.errors


def test_the_pour_popover_fits_on_a_phone(phone_page: Any, api: Any, enter_room: Any) -> None:
    # Ann deals the first round with cheese on: wine, poison, and each with cheese.
    # Its letters ("W+C") spilled out of their discs, the white C onto the cream button.
    seats = ["open", "medium", "medium", "medium", "medium"]
    enter_room(phone_page, kit.start_room(api, GAME, 5, seats, "ivm-popover-1", {"cheese": True}))
    phone_page.click(".table-area .ivm-pour-here [role=button]")
    phone_page.wait_for_selector(POUR)
    letters = phone_page.eval_on_selector_all(
        ".ivm-pour-letter", "nodes => nodes.map(n => n.textContent)"
    )
    assert sorted(letters) == ["P", "P+C", "W", "W+C"]
    assert kit.overflowing(phone_page, ".ivm-pour-letter") == []
    assert kit.outside(phone_page, ".ivm-pour-letter", ".ivm-pour") == []
    assert kit.outside(phone_page, ".ivm-pour", ".ivm-popover") == []


def test_the_dealers_cards_never_reach_the_other_page(
    browser: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    answer = make_room(
        api, game=GAME, players=2, seats=["open", "open"], seed="ivm-secret-3", host_name="Ann"
    )
    code = answer["code"]
    bob = api.post(f"/api/rooms/{code}/seats", json={"name": "Bob"}).json()
    assert api.post(f"/api/rooms/{code}/start", headers=host_headers(answer)).status_code < 300
    dealer_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    other_ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        dealer = dealer_ctx.new_page()
        other = other_ctx.new_page()
        errors: list[str] = []
        for page in (dealer, other):
            page.on("pageerror", lambda error: errors.append(str(error)))
        frames = kit.record_frames(other)
        enter_room(dealer, answer)
        enter_room(other, {"code": code, **bob})

        # The dealer pours both glasses by the board: Bob's, then its own.
        for _ in range(2):
            dealer.wait_for_selector(".table-area .ivm-pour-here [role=button]")
            dealer.click(".table-area .ivm-pour-here [role=button]")
            dealer.wait_for_selector(POUR)
            with kit.next_position(dealer):
                dealer.locator(POUR).first.click()
        # The dealer sees both glasses; Bob sees two covered glasses.
        dealer.wait_for_selector(".table-area .ivm-secret")
        assert dealer.locator(".table-area .ivm-secret").count() == 2
        other.wait_for_selector(".table-area [data-key=drink]")
        kit.snap(dealer, artifacts, "ivm-dealer-view", full_page=False)
        kit.snap(other, artifacts, "ivm-other-view", full_page=False)

        assert other.locator(".table-area [data-glass=covered]").count() == 2
        assert (
            other.locator(
                ".table-area .ivm-wine, .table-area .ivm-poison, .table-area .ivm-secret"
            ).count()
            == 0
        )
        glass_words = other.eval_on_selector_all(
            ".table-area .ivm-seat", "nodes => nodes.map(n => n.textContent)"
        )
        for words in glass_words:
            assert "wine" not in words.lower() and "poison" not in words.lower(), words
        letters = other.eval_on_selector_all(
            ".table-area .ivm-letter", "nodes => nodes.map(n => n.textContent)"
        )
        assert letters == ["?", "?"]
        dom = other.content().lower()
        for secret in (
            "glass of wine",
            "glass of poison",
            "deal 1 wine",
            "deal 1 poison",
            "deal 0 wine",
            "deal 0 poison",
            "wine, hidden",
            "poison, hidden",
            "ivm-wine",
            "ivm-poison",
        ):
            assert secret not in dom, secret
        for frame in frames:
            if '"type": "update"' in frame or '"type":"update"' in frame:
                message = json.loads(frame)
                assert set(message["observation"]["glasses"]) <= {None, "covered"}, message[
                    "observation"
                ]
                for event in message["events"]:
                    assert event.get("glass") is None, event

        # Bob plays by the board (drink, or swap with the dealer); the round is revealed.
        with kit.next_position(other):
            other.click(f".table-area [data-key={random.Random(3).choice(['drink', 'swap-0'])}]")
        for page in (dealer, other):
            page.wait_for_selector("#result", state="visible")
        other.wait_for_selector(".table-area .ivm-wine, .table-area .ivm-poison")
        kit.snap(other, artifacts, "ivm-other-after-reveal")
        assert not errors
    finally:
        dealer_ctx.close()
        other_ctx.close()


def test_a_move_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = kit.start_room(api, GAME, 3, ["open", "medium", "medium"], "ivm-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .ivm-pour-here [role=button]")
    # Tab to the glass to pour (it is the only thing on the board to click)
    kit.tab_until(page, lambda: kit.board_focused(page), 60, "the board")
    assert kit.focused_label(page).startswith("Pour")
    page.keyboard.press("Enter")
    page.wait_for_selector(POUR)
    assert page.evaluate("() => document.activeElement.classList.contains('ivm-pour')")
    page.keyboard.press("Escape")  # closes, focus back on the glass
    assert page.locator(POUR).count() == 0
    page.keyboard.press(" ")
    page.wait_for_selector(POUR)
    with kit.next_position(page):
        page.keyboard.press("Enter")
    events = page.locator("#log li")
    assert events.count() >= 1


def test_axe_finds_nothing_serious(page: Any, api: Any, enter_room: Any, axe: Any) -> None:
    answer = kit.start_room(
        api, GAME, 4, ["medium", "open", "medium", "medium"], "ivm-axe-2", {"cheese": True}
    )
    enter_room(page, answer)
    page.wait_for_selector(".table-area svg")
    axe(page)
    for _ in range(2):  # the first position, then the human's turn with glasses on the table
        assert kit.axe_violations(page) == []
        page.wait_for_selector(".table-area [data-key=drink]", timeout=15_000)


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    with kit.readme_picture(
        browser, GAME, viewport={"width": 1280, "height": 800}, color_scheme="light"
    ) as page:
        # seat 3's first turn: two players before it have drunk or swapped
        seats = ["medium", "medium", "medium", "open", "medium"]
        answer = kit.start_room(api, GAME, 5, seats, "ivm-picture-4", {"cheese": True})
        enter_room(page, answer)
        page.wait_for_selector(".table-area [data-key=drink]", timeout=20_000)
        page.wait_for_timeout(300)
