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
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from serving import host_headers, make_room

GAME = "in-vino-morte"
ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).parent / "vendor" / "axe.min.js"

if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)
BOARD = ".table-area [role=button].ivm-can:not([data-key=skip])"
POUR = ".ivm-popover button.ivm-pour"
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


def over(page: Any) -> bool:
    return page.locator("#result").is_visible()


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
        before = state_id(page)
        try:
            page.click(f'.table-area [data-key="{key}"]', timeout=2000)
        except Exception:  # the board was drawn anew under the click: look again
            return False
        if key.startswith("pour-"):
            page.wait_for_selector(POUR, timeout=2000)
            choices = page.locator(POUR)
        else:
            wait_change(page, before)
            return True
    before = state_id(page)
    choices.nth(rng.randrange(choices.count())).click(timeout=2000)
    wait_change(page, before)
    return True


def wait_change(page: Any, before: str) -> None:
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


def snap(page: Any, shots: Path, name: str) -> None:
    """The whole page, and the table alone."""
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    page.locator(".table-area").screenshot(path=str(shots / f"{name}-table.png"))


def play_to_end(page: Any, rng: random.Random, shots: Path | None = None, tag: str = "") -> int:
    """Click the board until the result shows; a screenshot at start, mid-game and end."""
    moves = 0
    deadline = time.monotonic() + 90
    page.wait_for_selector(".table-area svg")
    if shots:
        snap(page, shots, f"{tag}-start")
    mid_taken = False
    while not over(page):
        assert time.monotonic() < deadline, "the game did not end in 90 s"
        if board_move(page, rng):
            moves += 1
        else:
            time.sleep(0.1)
        if (
            shots
            and not mid_taken
            and page.locator(".table-area .ivm-move-line, .table-area [data-glass=covered]").count()
        ):
            snap(page, shots, f"{tag}-mid")
            mid_taken = True
    # the last reveal plays on the table, then the table holds the final round
    page.wait_for_selector(".table-area .ivm-winner, .table-area .ivm-centre-title", timeout=10_000)
    skip = page.locator(".table-area [data-key=skip]")
    if skip.count():
        skip.first.click()
    if shots:
        snap(page, shots, f"{tag}-end")
    return moves


@pytest.mark.parametrize("device", ["desktop", "phone-dark"])
def test_a_whole_game_by_the_board(
    device: str, request: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    page = request.getfixturevalue("page" if device == "desktop" else "phone_page")
    if device == "phone-dark":
        page.emulate_media(color_scheme="dark")
    answer = start_room(
        api, 5, ["open", "medium", "medium", "medium", "medium"], {"cheese": True}, "ivm-board-7"
    )
    enter_room(page, answer)
    moves = play_to_end(page, random.Random(7), artifacts, f"ivm-{device}")
    assert moves >= 5  # the first round's deal at least, all by the board
    assert page.locator("#room").get_attribute("data-status") == "over"
    assert not page.errors


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
        frames: list[str] = []
        other.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))),
        )
        enter_room(dealer, answer)
        enter_room(other, {"code": code, **bob})

        # The dealer pours both glasses by the board: Bob's, then its own.
        for _ in range(2):
            dealer.wait_for_selector(".table-area .ivm-pour-here [role=button]")
            dealer.click(".table-area .ivm-pour-here [role=button]")
            dealer.wait_for_selector(POUR)
            before = state_id(dealer)
            dealer.locator(POUR).first.click()
            wait_change(dealer, before)
        # The dealer sees both glasses; Bob sees two covered glasses.
        dealer.wait_for_selector(".table-area .ivm-secret")
        assert dealer.locator(".table-area .ivm-secret").count() == 2
        other.wait_for_selector(".table-area [data-key=drink]")
        dealer.screenshot(path=str(artifacts / "ivm-dealer-view.png"))
        other.screenshot(path=str(artifacts / "ivm-other-view.png"))

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
        before = state_id(other)
        other.click(f".table-area [data-key={random.Random(3).choice(['drink', 'swap-0'])}]")
        wait_change(other, before)
        for page in (dealer, other):
            page.wait_for_selector("#result", state="visible")
        other.wait_for_selector(".table-area .ivm-wine, .table-area .ivm-poison")
        other.screenshot(path=str(artifacts / "ivm-other-after-reveal.png"), full_page=True)
        assert not errors
    finally:
        dealer_ctx.close()
        other_ctx.close()


def test_a_move_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = start_room(api, 3, ["open", "medium", "medium"], {}, "ivm-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .ivm-pour-here [role=button]")
    # Tab to the glass to pour (it is the only thing on the board to click)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate(IS_BOARD):
            break
    else:
        pytest.fail("Tab never reached the board")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')").startswith(
        "Pour"
    )
    page.keyboard.press("Enter")
    page.wait_for_selector(POUR)
    assert page.evaluate("() => document.activeElement.classList.contains('ivm-pour')")
    page.keyboard.press("Escape")  # closes, focus back on the glass
    assert page.locator(POUR).count() == 0
    page.keyboard.press(" ")
    page.wait_for_selector(POUR)
    before = state_id(page)
    page.keyboard.press("Enter")
    wait_change(page, before)
    events = page.locator("#log li")
    assert events.count() >= 1


def test_axe_finds_nothing_serious(page: Any, api: Any, enter_room: Any) -> None:
    if not AXE.exists():
        pytest.skip("tests/web/vendor/axe.min.js is not vendored yet")
    answer = start_room(
        api, 4, ["medium", "open", "medium", "medium"], {"cheese": True}, "ivm-axe-2"
    )
    enter_room(page, answer)
    page.wait_for_selector(".table-area svg")
    page.add_script_tag(content=AXE.read_text())
    for _ in range(2):  # the first position, then the human's turn with glasses on the table
        result = page.evaluate("async () => JSON.stringify(await axe.run('.table-area'))")
        violations = [
            v for v in json.loads(result)["violations"] if v["impact"] in ("serious", "critical")
        ]
        assert not violations, [
            (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in violations
        ]
        page.wait_for_selector(".table-area [data-key=drink]", timeout=15_000)


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip("set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/in-vino-morte.png")
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light")
    try:
        page = context.new_page()
        # seat 3's first turn: two players before it have drunk or swapped
        answer = make_room(
            api,
            game=GAME,
            players=5,
            seats=["medium", "medium", "medium", "open", "medium"],
            options={"cheese": True},
            seed="ivm-picture-4",
            host_name="Ann",
        )
        assert (
            api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer)).status_code
            < 300
        )
        enter_room(page, answer)
        page.wait_for_selector(".table-area [data-key=drink]", timeout=20_000)
        page.wait_for_timeout(300)
        target = ROOT / "docs" / "images" / f"{GAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        context.close()
