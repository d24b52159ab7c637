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

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from serving import host_headers, make_room

GAME = "tea-scones-arsenic"
ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).parent / "vendor" / "axe.min.js"

if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)
BOARD = ".table-area [role=button].tsa-can"
IS_BOARD = (
    "() => !!document.activeElement.closest('.table-area')"
    " && document.activeElement.getAttribute('role') === 'button'"
)


def start_room(
    api: Any, players: int, seats: list[str], options: dict[str, Any], seed: str
) -> dict[str, Any]:
    """A started room with the host in seat 0."""
    answer = make_room(
        api, game=GAME, players=players, seats=seats, options=options, seed=seed, host_name="Ann"
    )
    response = api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer))
    assert response.status_code < 300, response.text
    return answer


def state_id(page: Any) -> str:
    return page.get_attribute("#room", "data-state-id") or ""


def wait_change(page: Any, before: str) -> None:
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


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
    before = state_id(page)
    try:
        page.click(f'.table-area [data-key="{key}"]', timeout=2000)
    except Exception:  # drawn anew under the click: look again
        return False
    wait_change(page, before)
    return True


def snap(page: Any, shots: Path, name: str) -> None:
    """The whole page, and the table alone."""
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    page.locator(".table-area").screenshot(path=str(shots / f"{name}-table.png"))


def play_to_end(page: Any, seed: int, shots: Path | None, tag: str, stop_after: int = 14) -> int:
    rng = random.Random(seed)
    moves = 0
    deadline = time.monotonic() + 120
    page.wait_for_selector(".table-area svg")
    if shots:
        snap(page, shots, f"{tag}-start")
    while not page.locator("#result").is_visible():
        assert time.monotonic() < deadline, "the game did not end in 120 s"
        if board_move(page, rng, stop_after, moves):
            moves += 1
            if shots and moves == 8:
                snap(page, shots, f"{tag}-mid")
        else:
            time.sleep(0.1)
    if shots:
        snap(page, shots, f"{tag}-end")
    return moves


def seen_doses_only(page: Any) -> None:
    """Another seat's cup shows '?' for every dose while the game runs."""
    others = page.eval_on_selector_all(
        ".table-area .tsa-seat:not(.tsa-you) .tsa-cup-dose",
        "nodes => nodes.map(n => n.textContent)",
    )
    assert set(others) <= {"?"}, others


@pytest.mark.parametrize("device", ["desktop", "phone-dark"])
def test_a_whole_game_by_the_board(
    device: str, request: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    page = request.getfixturevalue("page" if device == "desktop" else "phone_page")
    if device == "phone-dark":
        page.emulate_media(color_scheme="dark")
    answer = start_room(
        api, 3, ["open", "medium", "medium"], {"little_spoon": True}, f"tsa-board-{device}"
    )
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-1]")
    seen_doses_only(page)
    moves = play_to_end(page, 5, artifacts, f"tsa-{device}")
    assert moves >= 3
    assert page.locator("#room").get_attribute("data-status") == "over"
    assert not page.errors


def test_solo(page: Any, api: Any, enter_room: Any, artifacts: Path) -> None:
    answer = start_room(api, 1, ["open"], {}, "tsa-solo-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-1]")
    assert "solo" in (page.locator(".table-area").text_content() or "")
    moves = play_to_end(page, 2, artifacts, "tsa-solo", stop_after=10)
    assert moves >= 10
    # the gauge: your dose against the lethal 30
    assert "of 30" in (page.locator(".table-area .tsa-gauge").text_content() or "") or (
        "died" in (page.locator(".table-area .tsa-gauge").text_content() or "")
    )


def test_a_move_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = start_room(api, 2, ["open", "medium"], {}, "tsa-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-1]")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate(IS_BOARD):
            break
    else:
        pytest.fail("Tab never reached the board")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label
    before = state_id(page)
    page.keyboard.press("Enter")
    wait_change(page, before)
    # the scone is in hand: Tab on to "Eat it" and press Space
    page.wait_for_selector(".table-area [data-key=hand-eat]")
    for _ in range(80):
        if page.evaluate("() => document.activeElement.dataset.key === 'hand-eat'"):
            break
        page.keyboard.press("Tab")
    else:
        pytest.fail("Tab never reached the scone in hand")
    before = state_id(page)
    page.keyboard.press(" ")
    wait_change(page, before)


def test_axe_finds_nothing_serious(page: Any, api: Any, enter_room: Any) -> None:
    if not AXE.exists():
        pytest.skip("tests/web/vendor/axe.min.js is not vendored yet")
    answer = start_room(api, 3, ["open", "medium", "medium"], {"little_spoon": True}, "tsa-axe-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area [data-key=kind-2]")
    page.add_script_tag(content=AXE.read_text())
    for step in range(2):  # choosing a scone, then holding one
        result = page.evaluate("async () => JSON.stringify(await axe.run('.table-area'))")
        violations = [
            v for v in json.loads(result)["violations"] if v["impact"] in ("serious", "critical")
        ]
        assert not violations, [
            (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in violations
        ]
        if step == 0:
            before = state_id(page)
            page.click(".table-area [data-key=kind-2]")
            wait_change(page, before)
            page.wait_for_selector(".table-area [data-key=hand-eat]")


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip("set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/tea-scones-arsenic.png")
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light")
    try:
        page = context.new_page()
        answer = start_room(
            api, 3, ["open", "medium", "medium"], {"little_spoon": True}, "tsa-picture-3"
        )
        enter_room(page, answer)
        rng = random.Random(3)
        moves = 0
        while moves < 12:  # a few rounds of tea, then a scone in hand
            if board_move(page, rng, 99, moves):
                moves += 1
            else:
                time.sleep(0.1)
        page.wait_for_selector(".table-area [data-key^=kind-]")
        page.click(".table-area [data-key^=kind-]")
        page.wait_for_selector(".table-area [data-key=hand-eat]")
        target = ROOT / "docs" / "images" / f"{GAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        context.close()
