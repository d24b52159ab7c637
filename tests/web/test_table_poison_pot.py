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

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from serving import host_headers, make_room

GAME = "poison-pot"
ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)
FOCUSED = (
    "() => { const a = document.activeElement;"
    " return a && a.closest('.table-area') ? a.getAttribute('class') || '' : null; }"
)


def start_room(
    api: Any, players: int, seats: list[str], seed: str, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A started room with the host (Ann) in seat 0."""
    answer = make_room(
        api,
        game=GAME,
        players=players,
        seats=seats,
        options=options or {},
        seed=seed,
        host_name="Ann",
    )
    response = api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer))
    assert response.status_code < 300, response.text
    return answer


def state_id(page: Any) -> str:
    return page.get_attribute("#room", "data-state-id") or ""


def over(page: Any) -> bool:
    return page.locator("#result").is_visible()


def my_turn(page: Any) -> bool:
    return page.locator("#legal button[data-action]").count() > 0


def wait_change(page: Any, before: str) -> None:
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


def board_move(page: Any, rng: random.Random) -> bool:
    """One action by the board if it is this seat's turn: True when made."""
    if not my_turn(page):
        return False
    before = state_id(page)
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
    wait_change(page, before)
    return True


def play_to_end(page: Any, rng: random.Random, shots: Path, tag: str) -> int:
    """Click the board until the result shows; screenshots at start, mid-game and end."""
    moves = 0
    deadline = time.monotonic() + 50
    page.wait_for_selector(".table-area .pp-svg")
    page.wait_for_selector(".table-area .pp-movable")
    page.screenshot(path=str(shots / f"{tag}-start.png"))
    while not over(page):
        assert time.monotonic() < deadline, "the game did not end in 50 s"
        if board_move(page, rng):
            moves += 1
            if moves == 16:
                page.locator(".table-area .pp-movable").first.wait_for(timeout=10_000)
                page.locator(".table-area .pp-movable").first.click()
                page.screenshot(path=str(shots / f"{tag}-mid.png"), full_page=True)
                page.locator(".table-area .pp-selected").first.click()  # put it back
        else:
            time.sleep(0.03)
    page.wait_for_timeout(500)  # the last placement drops in
    page.screenshot(path=str(shots / f"{tag}-end.png"), full_page=True)
    return moves


@pytest.mark.parametrize("device", ["desktop", "phone-dark"])
def test_a_whole_game_by_the_board(
    device: str, request: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    page = request.getfixturevalue("page" if device == "desktop" else "phone_page")
    if device == "phone-dark":
        page.emulate_media(color_scheme="dark")
        answer = start_room(api, 3, ["open", "easy", "easy"], "pp-phone-3")
    else:
        answer = start_room(api, 2, ["open", "easy"], "pp-desktop-2")
    enter_room(page, answer)
    moves = play_to_end(page, random.Random(5), artifacts, f"pp-{device}")
    players = 3 if device == "phone-dark" else 2
    assert moves == 2 * 36 // players  # every slide and placement of this seat, by the board
    assert page.locator("#room").get_attribute("data-status") == "over"
    # the end: the board is full, the winner's chip says so, the status names the winner
    assert page.locator(".table-area .pp-chip-won").count() == 1
    assert page.locator(".table-area .pp-live").count() == 0
    assert "win" in (page.text_content("#status") or "")
    assert not page.errors


def test_the_board_reads_the_observation(page: Any, api: Any, enter_room: Any) -> None:
    """Names, the pile, a legal destination only where the server allows one."""
    answer = start_room(api, 2, ["open", "easy"], "pp-read-1")
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
    answer = start_room(api, 2, ["open", "easy"], "pp-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")

    def tab_to(kind: str) -> None:
        for _ in range(120):
            page.keyboard.press("Tab")
            classes = page.evaluate(FOCUSED)
            if classes and kind in classes:
                return
        pytest.fail(f"Tab never reached a {kind}")

    tab_to("pp-movable")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label.startswith("Slide the pot on d4"), label
    page.keyboard.press("Enter")
    assert page.locator(".table-area .pp-selected").count() == 1
    tab_to("pp-target")
    before = state_id(page)
    page.keyboard.press(" ")
    wait_change(page, before)
    page.wait_for_selector(".table-area .pp-placeable")
    tab_to("pp-placeable")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label.startswith("Place the "), label
    before = state_id(page)
    page.keyboard.press("Enter")
    wait_change(page, before)
    page.wait_for_function("() => document.querySelector('#room').dataset.stateId !== ''")
    assert not page.errors


def axe_violations(page: Any) -> list[Any]:
    result = page.evaluate("async () => JSON.stringify(await axe.run('.table-area'))")
    return [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in json.loads(result)["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious(
    scheme: str, page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    if not AXE.exists():
        pytest.skip("tests/web/vendor/axe.min.js is not vendored yet")
    page.emulate_media(color_scheme=scheme)
    answer = start_room(api, 3, ["open", "easy", "easy"], "pp-axe-2")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .pp-movable")
    page.add_script_tag(content=AXE.read_text())
    assert axe_violations(page) == []
    # a piece chosen, its destinations on offer
    page.locator(".table-area .pp-movable").first.click()
    assert axe_violations(page) == []
    before = state_id(page)
    page.locator(".table-area .pp-target").first.click()
    wait_change(page, before)
    page.wait_for_selector(".table-area .pp-placeable")
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / f"pp-desktop-{scheme}-place.png"))


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip("set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/poison-pot.png")
    context = browser.new_context(viewport={"width": 900, "height": 760}, color_scheme="light")
    try:
        page = context.new_page()
        answer = start_room(api, 2, ["open", "easy"], "pp-picture-2")
        enter_room(page, answer)
        rng = random.Random(11)
        deadline = time.monotonic() + 40
        moves = 0
        while moves < 24:
            assert time.monotonic() < deadline
            if board_move(page, rng):
                moves += 1
            else:
                time.sleep(0.03)
        page.locator(".table-area .pp-movable").first.wait_for(timeout=10_000)
        page.locator(".table-area .pp-movable").first.click()
        page.wait_for_timeout(300)
        page.mouse.move(1, 1)  # no hover on the picture
        target = ROOT / "docs" / "images" / f"{GAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        context.close()
