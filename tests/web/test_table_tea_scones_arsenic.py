"""The Tea, Scones and Arsenic table in a real browser, through the real shell and server.

- a person plays a whole game against bots by clicking the board (a kind in
  the box, a marked scone, shuffle, eat / put back on the scone in hand, the
  spoon, stop) until the result, on a desktop and on a phone (dark); solo too;
- the board shows only the doses the seat has seen;
- the keyboard alone makes a move; axe-core finds nothing serious;
- screenshots at the start, mid-game and the end land in the test's artifacts;
  ``APOTHECARY_REFRESH_PICTURES=1`` also writes ``docs/images/tea-scones-arsenic.png``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
import tables_kit as kit

GAME = "tea-scones-arsenic"
BOARD = ".table-area [role=button].tsa-can"


def board_move(page: Any, rng: random.Random, stop_after: int, moves: int) -> bool:
    """One move by the board, if it offers one now: True when made. Stops eating
    once ``stop_after`` moves are made (when stopping is allowed)."""
    found = page.eval_on_selector_all(BOARD, "nodes => nodes.map(n => n.dataset.key)")
    if not found:
        return False
    keys = [k for k in found if k != "stop"]
    if "stop" in found and moves >= stop_after:
        key = "stop"
    elif "hand-eat" in keys and "hand-back" in keys:
        # eat low doses and put the rest back, as a person would
        dose = page.locator(".table-area .tsa-dose-badge-text").first.text_content() or "?"
        key = "hand-eat" if dose in ("0", "1") else rng.choice(["hand-back", "hand-back+shuffle"])
    else:
        key = rng.choice(keys or found)
    before = kit.state_id(page)
    try:
        page.click(f'.table-area [data-key="{key}"]', timeout=2000)
    except Exception:  # drawn anew under the click: look again
        return False
    kit.wait_change(page, before)
    return True


def play_to_end(page: Any, seed: int, shots: Path | None, tag: str, stop_after: int = 14) -> int:
    rng = random.Random(seed)
    started = time.monotonic()
    page.wait_for_selector(".table-area svg")
    if shots:
        kit.snap(page, shots, f"{tag}-start", table=True)

    def move(moves: int) -> bool:
        made = board_move(page, rng, stop_after, moves)
        if made and shots and moves + 1 == 8:
            kit.snap(page, shots, f"{tag}-mid", table=True)
        return made

    moves = kit.play(move, until=lambda: kit.over(page), seconds=120, since=started)
    if shots:
        kit.snap(page, shots, f"{tag}-end", table=True)
    return moves


def seen_doses_only(page: Any) -> None:
    """Another seat's cup shows '?' for every dose while the game runs."""
    others = page.eval_on_selector_all(
        ".table-area .tsa-seat:not(.tsa-you) .tsa-cup-dose",
        "nodes => nodes.map(n => n.textContent)",
    )
    assert set(others) <= {"?"}, others


def test_a_whole_game_by_the_board(
    device: str, device_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    answer = kit.start_room(
        api, GAME, 3, ["open", "medium", "medium"], f"tsa-board-{device}", {"little_spoon": True}
    )
    enter_room(device_page, answer)
    device_page.wait_for_selector(".table-area [data-key=kind-1]")
    seen_doses_only(device_page)
    moves = play_to_end(device_page, 5, artifacts, f"tsa-{device}")
    assert moves >= 3
    assert device_page.locator("#room").get_attribute("data-status") == "over"
    assert not device_page.errors


def test_solo(page: Any, api: Any, enter_room: Any, artifacts: Path) -> None:
    answer = kit.start_room(api, GAME, 1, ["open"], "tsa-solo-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-1]")
    assert "solo" in (page.locator(".table-area").text_content() or "")
    moves = play_to_end(page, 2, artifacts, "tsa-solo", stop_after=10)
    assert moves >= 10
    # solo has no rival: the table says the score and whether Ann lived, not that
    # she "wins with most scones"
    hand = page.locator(".table-area .tsa-hand").text_content() or ""
    assert "most scones" not in hand and "score" in hand, hand
    assert "lived" in hand or "died at dose" in hand, hand
    # the gauge: your dose against the lethal 30
    assert "of 30" in (page.locator(".table-area .tsa-gauge").text_content() or "") or (
        "died" in (page.locator(".table-area .tsa-gauge").text_content() or "")
    )


def test_solo_on_a_phone_reads_whole(phone_page: Any, api: Any, enter_room: Any) -> None:
    # "Lethal dose 30 · solo: eat all you can and liv…": SVG text does not wrap,
    # and the solo header ran out of the picture on a 390 px phone
    enter_room(phone_page, kit.start_room(api, GAME, 1, ["open"], "tsa-solo-phone-1"))
    phone_page.wait_for_selector(".table-area [data-key=kind-1]")
    strip = " ".join(
        phone_page.eval_on_selector_all(
            ".table-area .tsa-strip text", "nodes => nodes.map(n => n.textContent)"
        )
    )
    assert "solo: eat all you can and live" in strip, strip
    assert kit.outside(phone_page, ".table-area svg text") == []


def eat_everything(page: Any, _: int) -> bool:
    """Take a scone of the first kind on offer and eat it, never stop: True when a move
    was made."""
    found = page.eval_on_selector_all(BOARD, "nodes => nodes.map(n => n.dataset.key)")
    kinds = [k for k in found if k.startswith("kind-")]
    key = "hand-eat" if "hand-eat" in found else kinds[0] if kinds else None
    if key is None:
        return False
    with kit.next_position(page):
        page.click(f'.table-area [data-key="{key}"]', timeout=2000)
    return True


def test_a_dead_seat_on_a_phone(
    phone_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    # "dead at dose 8" ran under the seat's sugar cubes on a phone's half-width seat.
    # Ann eats every scone she takes, never stops: at lethal dose 15 she dies.
    phone_page.emulate_media(color_scheme="dark")
    enter_room(phone_page, kit.start_room(api, GAME, 2, ["open", "medium"], "tsa-dead-2"))
    phone_page.wait_for_selector(".table-area [data-key=kind-1]")
    kit.play(
        lambda moves: eat_everything(phone_page, moves),
        until=lambda: "dead at dose" in (phone_page.locator(".table-area").text_content() or ""),
        seconds=60,
        what="nobody died",
    )
    kit.snap(phone_page, artifacts, "tsa-phone-dark-dead", table=True)
    seat = ".table-area .tsa-seat"
    assert kit.overlapping(phone_page, seat, ".tsa-cubes rect", "text") == []
    assert kit.outside(phone_page, ".table-area svg text") == []


def test_desktop_words_are_big_enough(page: Any, api: Any, enter_room: Any) -> None:
    # the desktop's picture is scaled down to fit: its smallest words came out at 10 px
    answer = kit.start_room(
        api, GAME, 3, ["open", "medium", "medium"], "tsa-sizes-1", {"little_spoon": True}
    )

    def late_css(route: Any) -> None:
        # A slow network: the table's stylesheet comes half a second late. The
        # table was drawn before it came, its scone numbers at their own 10.7 px
        # (seen once in CI); now it waits for its CSS.
        if route.request.method == "GET":
            time.sleep(0.5)
        route.continue_()

    page.route("**/tables/tea-scones-arsenic/table.css", late_css)
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-2]")
    for step in range(2):  # choosing a scone, then one in hand
        sizes = page.evaluate(
            """() => { const s = document.querySelector('.table-area svg');
              const k = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
              return [...s.querySelectorAll('text')].map(t =>
                [t.textContent, parseFloat(getComputedStyle(t).fontSize) * k]); }"""
        )
        small = [(words, round(px, 1)) for words, px in sizes if px < 12]
        assert small == [], small
        # bigger words must not be cut short to fit: "Eat it, or put it back for a suga…"
        cut = [words for words, _ in sizes if words.endswith("\u2026") and "Last:" not in words]
        assert cut == [], cut
        # and the words bigger still lie inside their panels
        for block in (".tsa-hand", ".tsa-box", ".tsa-gauge"):
            assert kit.outside(page, f".table-area {block} text", block, ".tsa-panel") == []
        if step == 0:
            with kit.next_position(page):
                page.click(".table-area [data-key=kind-2]")
            page.wait_for_selector(".table-area [data-key=hand-eat]")
    # the digits under each kind say what they are
    box = page.locator(".table-area .tsa-box").text_content() or ""
    assert "Digits: the doses of each kind's six scones" in box


def test_a_move_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = kit.start_room(api, GAME, 2, ["open", "medium"], "tsa-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-1]")
    kit.tab_until(page, lambda: kit.board_focused(page), 80, "the board")
    assert kit.focused_label(page)
    with kit.next_position(page):
        page.keyboard.press("Enter")
    # the scone is in hand: Tab on to "Eat it" and press Space
    page.wait_for_selector(".table-area [data-key=hand-eat]")
    for _ in range(80):
        if page.evaluate("() => document.activeElement.dataset.key === 'hand-eat'"):
            break
        page.keyboard.press("Tab")
    else:
        pytest.fail("Tab never reached the scone in hand")
    with kit.next_position(page):
        page.keyboard.press(" ")


def test_axe_finds_nothing_serious(page: Any, api: Any, enter_room: Any, axe: Any) -> None:
    answer = kit.start_room(
        api, GAME, 3, ["open", "medium", "medium"], "tsa-axe-1", {"little_spoon": True}
    )
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-2]")
    axe(page)
    for step in range(2):  # choosing a scone, then holding one
        assert kit.axe_violations(page) == []
        if step == 0:
            with kit.next_position(page):
                page.click(".table-area [data-key=kind-2]")
            page.wait_for_selector(".table-area [data-key=hand-eat]")


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    with kit.readme_picture(
        browser, GAME, viewport={"width": 1280, "height": 800}, color_scheme="light"
    ) as page:
        answer = kit.start_room(
            api, GAME, 3, ["open", "medium", "medium"], "tsa-picture-3", {"little_spoon": True}
        )
        enter_room(page, answer)
        rng = random.Random(3)
        # a few rounds of tea, then a scone in hand
        kit.play(lambda moves: board_move(page, rng, 99, moves), moves=12)
        page.wait_for_selector(".table-area [data-key^=kind-]")
        page.click(".table-area [data-key^=kind-]")
        page.wait_for_selector(".table-area [data-key=hand-eat]")


def test_a_marked_scones_chip_fits_a_phone(page: Any, web_server: str) -> None:
    # "by medium bot #1" ran a pixel out of its chip (and the table) on a phone; seen
    # once in CI when a bot had put a scone back by the time the test looked
    message = kit.update_after(GAME, 2, ["d1", "dose0", "back", "d2", "dose3", "back"])
    kit.table_alone(page, web_server, GAME, ["Ann", "medium bot (seat 1)"], width=366)
    kit.show(page, message)
    chip = page.locator(".table-area .tsa-marked").nth(1).text_content() or ""
    assert "by medium b" in chip and "#1" in chip, chip  # the right-hand chip
    assert kit.outside(page, ".table-area svg text") == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_struck_doses_can_be_read(page: Any, web_server: str, scheme: str) -> None:
    # A struck digit says a dose has left the box: at 12 px, faded to 70 %, it read
    # at 3.05:1 (light) and 3.66:1 (dark); WCAG AA asks 4.5:1.
    page.emulate_media(color_scheme=scheme)
    message = kit.update_after(GAME, 2, ["d1", "dose2", "eat", "d5", "dose3", "back"])
    kit.table_alone(page, web_server, GAME, ["Ann", "medium bot"], width=366)
    kit.show(page, message)
    assert page.locator(".table-area .tsa-dose-gone").count() == 1  # kind 1's dose 2
    ratio = kit.contrast(page, ".table-area .tsa-dose-gone")
    assert ratio >= 4.5, f"a struck digit: {ratio:.2f}:1"
    # the digits not struck stay as clear
    ratio = kit.contrast(page, ".table-area .tsa-dose-digit:not(.tsa-dose-gone)")
    assert ratio >= 4.5, f"a digit: {ratio:.2f}:1"


# Ann stops after a scone each: the two others owe two honour turns each.
OWED = ["d1", "dose2", "eat", "d5", "dose3", "back", "d1", "dose0", "eat", "stop"]


@pytest.mark.parametrize(
    "names",
    [["Ann", "medium bot (seat 1)", "medium bot (seat 2)"], ["Ann", "Mummy", "Grandma Wendy"]],
)
def test_the_strip_and_hand_fit_a_phone(
    page: Any, web_server: str, artifacts: Path, names: list[str]
) -> None:
    # The bold "Honour turns owed: … — nobody may" ran past the table's right edge on
    # a phone (a line of 46 letters is wider than the table in bold), and "medium bot
    # (seat 1) is choosing a scone" past its panel's
    message = kit.update_after(GAME, 3, OWED)
    assert [s["honour_turns_left"] for s in message["observation"]["seats"]] == [0, 2, 2]
    kit.table_alone(page, web_server, GAME, names, width=366)
    kit.show(page, message)
    kit.snap(page, artifacts, f"tsa-owed-{names[1]}", full_page=False, table=True)
    strip = " ".join(
        page.eval_on_selector_all(
            ".table-area .tsa-strip .tsa-owed", "ts => ts.map((t) => t.textContent)"
        )
    )
    assert strip.endswith("nobody may stop") and names[2] in strip, strip
    assert kit.outside(page, ".table-area svg text") == []
    assert kit.outside(page, ".table-area .tsa-hand text", ".tsa-hand", ".tsa-panel") == []
