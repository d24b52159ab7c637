"""The Poison Pot table in a real browser, through the real shell and server.

- a person plays a whole game against bots by clicking the board alone (a piece, then
  one of its highlighted destinations; then a circle for the drawn cauldron) until the
  result, on a desktop (light) and on a phone (dark, three players);
- the keyboard alone makes a whole turn (slide and placement);
- axe-core finds nothing serious or critical on the table, light and dark;
- screenshots at the start, mid-game and the end land in the test's artifacts;
  ``APOTHECARY_REFRESH_PICTURES=1`` also writes ``docs/images/poison-pot.png``.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
import tables_kit as kit

GAME = "poison-pot"


def board_move(page: Any, rng: random.Random) -> bool:
    """One action by the board if it is this seat's turn: True when made."""
    if not kit.legal(page):
        return False
    before = kit.state_id(page)
    places = page.locator(".table-area .pp-placeable")
    if places.count():
        places.nth(rng.randrange(places.count())).click(timeout=3000)
    else:
        pieces = page.locator(".table-area .pp-movable")
        if not pieces.count():
            return False
        pieces.nth(rng.randrange(pieces.count())).click(timeout=3000)
        targets = page.locator(".table-area .pp-target")
        assert targets.count() > 0, "a chosen piece shows where it may go"
        assert page.locator(".table-area .pp-selected").count() == 1
        targets.nth(rng.randrange(targets.count())).click(timeout=3000)
    kit.wait_change(page, before)
    return True


def play_to_end(page: Any, rng: random.Random, shots: Path, tag: str) -> int:
    """Click the board until the result shows; screenshots at start, mid-game and end."""
    started = time.monotonic()
    page.wait_for_selector(".table-area .pp-svg")
    page.wait_for_selector(".table-area .pp-movable")
    kit.snap(page, shots, f"{tag}-start", full_page=False)

    def move(moves: int) -> bool:
        made = board_move(page, rng)
        if made and moves + 1 == 16:
            page.locator(".table-area .pp-movable").first.wait_for(timeout=10_000)
            page.locator(".table-area .pp-movable").first.click()
            kit.snap(page, shots, f"{tag}-mid")
            page.locator(".table-area .pp-selected").first.click()  # put it back
        return made

    moves = kit.play(move, until=lambda: kit.over(page), seconds=50, since=started, pause=0.03)
    page.wait_for_timeout(500)  # the last placement drops in
    kit.snap(page, shots, f"{tag}-end")
    return moves


def test_a_whole_game_by_the_board(
    device: str, device_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    if device == "phone-dark":
        answer = kit.start_room(api, GAME, 3, ["open", "easy", "easy"], "pp-phone-3")
    else:
        answer = kit.start_room(api, GAME, 2, ["open", "easy"], "pp-desktop-2")
    enter_room(device_page, answer)
    moves = play_to_end(device_page, random.Random(5), artifacts, f"pp-{device}")
    players = 3 if device == "phone-dark" else 2
    assert moves == 2 * 36 // players  # every slide and placement of this seat, by the board
    assert device_page.locator("#room").get_attribute("data-status") == "over"
    # the end: the board is full, the winner's chip says so, the status names the winner
    assert device_page.locator(".table-area .pp-chip-won").count() == 1
    assert device_page.locator(".table-area .pp-live").count() == 0
    assert "win" in (device_page.text_content("#status") or "")
    assert not device_page.errors


def test_the_turn_says_what_can_slide(page: Any, api: Any, enter_room: Any) -> None:
    # Rules: "Slide (compulsory). Move one piece, the pot or any cauldron of any
    # colour". On the first turn only the pot stands, and the status offered "the
    # pot or any cauldron"; it says what the legal slides move, and no more.
    answer = kit.start_room(api, GAME, 2, ["open", "easy"], "pp-words-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")
    assert {n.split("-")[0] for n in kit.legal(page)} == {"d4"}  # the pot, in the centre
    status = page.text_content("#status") or ""
    # the pot alone can move: no piece to choose ("choose a piece" it said)
    assert status == "Your turn: slide the pot (choose it, then where it goes)", status
    # later a cauldron stands too, and the words name it
    rng = random.Random(1)
    kit.play(
        lambda _: board_move(page, rng),
        until=lambda: "or a" in (page.text_content("#status") or ""),
        seconds=20,
        pause=0.03,
        what="no turn with a cauldron to slide came",
    )
    status = page.text_content("#status") or ""
    assert re.search(r"slide the pot or a (red |blue )?cauldron \(choose a piece,", status), status


def test_the_board_reads_the_observation(page: Any, api: Any, enter_room: Any) -> None:
    """Names, the pile, a legal destination only where the server allows one."""
    answer = kit.start_room(api, GAME, 2, ["open", "easy"], "pp-read-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")
    assert page.locator(".table-area .pp-name").count() == 37
    assert page.locator(".table-area .pp-movable").count() == 1  # only the pot stands
    assert page.locator(".table-area .pp-movable").get_attribute("data-circle") == "d4"
    pot = page.locator('.table-area .pp-hit[data-circle="d4"]')
    assert pot.get_attribute("role") == "button"
    pot.click()
    targets = sorted(
        page.eval_on_selector_all(".table-area .pp-target", "ns => ns.map(n => n.dataset.circle)")
    )
    legal = sorted(
        page.eval_on_selector_all(
            "#legal button[data-action]", "ns => ns.map(n => n.dataset.notation.split('-')[1])"
        )
    )
    assert targets == legal and len(targets) == 18
    # Escape puts the piece back
    pot.press("Escape")
    assert page.locator(".table-area .pp-target").count() == 0
    assert page.locator(".table-area .pp-count").all_text_contents() == ["12", "12", "12"]


def test_a_turn_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = kit.start_room(api, GAME, 2, ["open", "easy"], "pp-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")

    def tab_to(kind: str) -> None:
        kit.tab_until(page, lambda: kind in (kit.focused_classes(page) or ""), 120, f"a {kind}")

    tab_to("pp-movable")
    label = kit.focused_label(page)
    assert label.startswith("Slide the pot on d4"), label
    page.keyboard.press("Enter")
    assert page.locator(".table-area .pp-selected").count() == 1
    tab_to("pp-target")
    with kit.next_position(page):
        page.keyboard.press(" ")
    page.wait_for_selector(".table-area .pp-placeable")
    tab_to("pp-placeable")
    label = kit.focused_label(page)
    assert label.startswith("Place the "), label
    with kit.next_position(page):
        page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#room').dataset.stateId !== ''")
    assert not page.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious(
    scheme: str, page: Any, api: Any, enter_room: Any, axe: Any, artifacts: Path
) -> None:
    page.emulate_media(color_scheme=scheme)
    answer = kit.start_room(api, GAME, 3, ["open", "easy", "easy"], "pp-axe-2")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")
    axe(page)
    assert kit.axe_violations(page) == []
    # a piece chosen, its destinations on offer
    page.locator(".table-area .pp-movable").first.click()
    assert kit.axe_violations(page) == []
    with kit.next_position(page):
        page.locator(".table-area .pp-target").first.click()
    page.wait_for_selector(".table-area .pp-placeable")
    assert kit.axe_violations(page) == []
    kit.snap(page, artifacts, f"pp-desktop-{scheme}-place", full_page=False)


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    with kit.readme_picture(
        browser, GAME, viewport={"width": 900, "height": 760}, color_scheme="light"
    ) as page:
        answer = kit.start_room(api, GAME, 2, ["open", "easy"], "pp-picture-2")
        enter_room(page, answer)
        rng = random.Random(11)
        kit.play(
            lambda _: board_move(page, rng),
            moves=24,
            seconds=40,
            pause=0.03,
            what="24 moves were not made",
        )
        page.locator(".table-area .pp-movable").first.wait_for(timeout=10_000)
        page.locator(".table-area .pp-movable").first.click()
        page.wait_for_timeout(300)
        page.mouse.move(1, 1)  # no hover on the picture


# A whole three-seat game (radius 3) whose three colours tie with 5: yellow placed
# last (+1/2, 5.5) and blue before it (-1/2, 4.5).
TIE_BROKEN_MOVES = """
d4-a4 yellow b5 b5-d7 red e6 d7-b5 yellow d6 e6-e4 red d4 b5-b2 blue f4 d4-c4 blue f5
b2-c2 blue g3 d6-e5 red d7 c4-f2 red b4 b4-e3 yellow d2 e5-b3 yellow a3 b3-b1 blue a1
a3-e6 yellow g4 e4-f3 blue d5 d5-d3 yellow e2 c2-b2 yellow d5 d5-a2 yellow g1 b1-d1 red
d5 d2-c2 red b5 f3-e4 red f1 a1-b1 blue g2 b5-b3 yellow c5 g3-f3 blue c3 d1-d2 yellow b4
a2-a1 red a3 a3-a2 blue d4 e4-e5 red c6 b4-b5 blue d1 e3-e4 blue d6 c3-c4 blue c3 c5-a3
blue g3 f2-e3 red b4 d1-c1 yellow f2 b5-c5 yellow b5 e2-e1 red d1 d3-e2 red d3
"""
TIE_BROKEN = TIE_BROKEN_MOVES.split()


def test_a_tie_broken_result_reads_on_a_phone(page: Any, web_server: str, artifacts: Path) -> None:
    # On a phone's third-wide chip "safe group" ran under the score "4.5", and
    # "medium bot #2" ran out past the chip's edge
    message = kit.update_after(GAME, 3, TIE_BROKEN, options={"radius": 3})
    assert message["outcome"]["scores"] == [5.0, 4.5, 5.5]
    names = ["Ann", "medium bot (seat 1)", "medium bot (seat 2)"]
    for width in (336, 370):
        kit.table_alone(page, web_server, GAME, names, width=width)
        kit.show(page, message)
        kit.snap(page, artifacts, f"pp-tie-{width}", full_page=False, table=True)
        assert kit.overlapping(page, ".table-area .pp-chip", "text", "text") == []
        assert kit.outside(page, ".table-area .pp-chip text", ".pp-chip", ".pp-chip-box") == []
        chips = page.eval_on_selector_all(
            ".table-area .pp-chip", "cs => cs.map((c) => c.textContent)"
        )
        assert "4.5" in chips[1] and "5.5" in chips[2] and "wins" in chips[2], chips


def test_a_two_digit_group_reads_on_a_phone(page: Any, web_server: str, artifacts: Path) -> None:
    # "safe group" and a group of 12 need as much room as "4.5": on a phone's chip the
    # words go up under the name
    message = kit.update_after(GAME, 3, TIE_BROKEN[:80], options={"radius": 3})
    message["observation"]["groups"] = [12, 11, 10]
    kit.table_alone(page, web_server, GAME, ["Ann", "Bob", "Cy"], width=336)
    kit.show(page, message)
    kit.snap(page, artifacts, "pp-groups-336", full_page=False, table=True)
    assert kit.overlapping(page, ".table-area .pp-chip", "text", "text") == []
    assert kit.outside(page, ".table-area .pp-chip text", ".pp-chip", ".pp-chip-box") == []
    assert "safe group" in (page.text_content(".table-area .pp-chip") or "")
