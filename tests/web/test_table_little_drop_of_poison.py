"""The Little Drop of Poison table in a real browser, through the real shell and server.

- a person plays a whole (short: target 3) game against bots by clicking the table alone
  (a card in the hand, then a character; more cards; "Done"/"Pass" drawn in the table)
  until the result, on a desktop (light, the reveal animated) and on a phone (dark,
  reduced motion: the reveal shown at once);
- what the table shows is the seat's observation: its own hand face up, the others'
  face-down plays as counts only;
- the keyboard alone makes a whole turn; axe-core finds nothing serious, light and dark;
- screenshots at the start, mid-game and the end land in the test's artifacts;
  ``APOTHECARY_REFRESH_PICTURES=1`` also writes ``docs/images/little-drop-of-poison.png``.
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

GAME = "little-drop-of-poison"
ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)
HAND = ".table-area .ldp-hand-card.ldp-live"
MATS = ".table-area .ldp-mat-hit"
FOCUSED = (
    "() => { const a = document.activeElement;"
    " return a && a.closest('.table-area') ? a.className || '' : null; }"
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


def legal(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#legal button[data-action]", "ns => ns.map(n => n.dataset.notation)"
    )


def wait_change(page: Any, before: str) -> None:
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


def board_move(page: Any, rng: random.Random) -> bool:
    """One step of this seat's turn by the table, if it is its turn: True when made."""
    notations = legal(page)
    if not notations:
        return False
    before = state_id(page)
    if "pass" in notations:
        page.click(".table-area .ldp-pass", timeout=3000)
    elif any(n.startswith("on ") for n in notations):
        if not page.locator(".table-area .ldp-selected").count():
            cards = page.locator(HAND)
            cards.nth(rng.randrange(cards.count())).click(timeout=3000)
        assert page.locator(".table-area .ldp-selected").count() == 1
        mats = page.locator(MATS)
        assert mats.count() == sum(n.startswith("on ") for n in notations)
        mats.nth(rng.randrange(mats.count())).click(timeout=3000)
        # the chosen card follows the character by itself
        page.wait_for_function(
            "() => [...document.querySelectorAll('#legal button[data-action]')]"
            ".every(b => !b.dataset.notation.startsWith('on '))",
            timeout=10_000,
        )
    else:
        cards = page.locator(HAND)
        if cards.count() and rng.random() < 0.25:
            cards.nth(rng.randrange(cards.count())).click(timeout=3000)
        else:
            page.click(".table-area .ldp-done", timeout=3000)
    wait_change(page, before)
    return True


CHOOSING = (
    "() => [...document.querySelectorAll('#legal button[data-action]')]"
    ".some(b => b.dataset.notation.startsWith('on '))"
    " && !!document.querySelector('.table-area .ldp-hand-card.ldp-live')"
)


def choosing(page: Any) -> bool:
    """This seat is to choose a character, with a card in hand."""
    return bool(page.evaluate(CHOOSING))


def wait_choice(page: Any, rng: random.Random) -> None:
    """Play on by the table until this seat is to choose a character with a card in hand."""
    deadline = time.monotonic() + 20
    while not choosing(page):
        assert time.monotonic() < deadline and not over(page)
        if not board_move(page, rng):
            time.sleep(0.03)


def play_to_end(page: Any, rng: random.Random, shots: Path, tag: str) -> dict[str, int]:
    """Click the table until the result shows; screenshots at start, mid-game and end."""
    seen = {"moves": 0, "animated": 0, "reveals": 0}
    deadline = time.monotonic() + 50
    page.wait_for_selector(".table-area .ldp-mat")
    page.wait_for_selector(HAND)
    page.screenshot(path=str(shots / f"{tag}-start.png"), full_page=True)
    mid = False
    while not over(page):
        assert time.monotonic() < deadline, "the game did not end in 50 s"
        if page.locator(".table-area .ldp-reveal.ldp-animate").count():
            seen["animated"] += 1
        if page.locator(".table-area .ldp-reveal:not([hidden])").count():
            seen["reveals"] += 1
        if (
            not mid
            and page.locator(".table-area .ldp-reveal:not([hidden])").count()
            and choosing(page)
        ):
            page.locator(HAND).first.click()  # a card chosen: the characters on offer
            page.screenshot(path=str(shots / f"{tag}-mid.png"), full_page=True)
            page.locator(HAND).first.click()  # put it back
            mid = True
        if board_move(page, rng):
            seen["moves"] += 1
        else:
            time.sleep(0.03)
    # the last reveal turns its cards over, then the table holds still
    page.wait_for_selector(".table-area .ldp-reveal.ldp-animate", state="detached", timeout=8000)
    page.screenshot(path=str(shots / f"{tag}-end.png"), full_page=True)
    return seen


@pytest.mark.parametrize("device", ["desktop", "phone-dark"])
def test_a_whole_game_by_the_table(
    device: str, request: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    page = request.getfixturevalue("page" if device == "desktop" else "phone_page")
    if device == "phone-dark":
        page.emulate_media(color_scheme="dark", reduced_motion="reduce")
        answer = start_room(api, 4, ["open", "easy", "easy", "easy"], "ldp-phone-4", {"target": 3})
    else:
        page.emulate_media(reduced_motion="no-preference")
        answer = start_room(api, 3, ["open", "easy", "easy"], "ldp-desktop-3", {"target": 3})
    enter_room(page, answer)
    seen = play_to_end(page, random.Random(9), artifacts, f"ldp-{device}")
    assert seen["moves"] >= 4
    assert seen["reveals"] > 0
    if device == "phone-dark":
        assert seen["animated"] == 0  # reduced motion: the reveal shows at once
    else:
        assert seen["animated"] > 0
    assert page.locator("#room").get_attribute("data-status") == "over"
    assert "win" in (page.text_content("#result") or "")
    assert page.locator(".table-area .ldp-live").count() == 0
    assert not page.errors


def test_the_table_shows_only_what_the_seat_knows(page: Any, api: Any, enter_room: Any) -> None:
    frames: list[str] = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)))
    )
    answer = start_room(api, 3, ["easy", "open", "easy"], "ldp-secret-5", {"target": 3})
    enter_room(page, answer)
    # seat 0 (a bot) plays first; by seat 1's turn its play lies face down
    page.wait_for_selector(HAND, timeout=15_000)
    updates = [json.loads(f) for f in frames if '"update"' in f]
    observation = [u for u in updates if u.get("type") == "update"][-1]["observation"]
    assert observation["seat"] == 1
    hand = page.eval_on_selector_all(
        ".table-area .ldp-hand-card .ldp-code", "ns => ns.map(n => n.textContent)"
    )
    assert sorted(hand) == sorted(c for c, n in observation["hand"].items() for _ in range(n))
    # other seats' face-down plays are card backs, as many as they played, never a face
    for character in ["king", "0", "1", "2"]:
        played = sum(
            seat["played"] for seat in observation["seats"] if seat["played_on"] == character
        )
        mat = f'.table-area .ldp-mat[data-character="{character}"]'
        assert page.locator(f"{mat} .ldp-card-back").count() == played
        faces = page.locator(f"{mat} .ldp-card-face").count()
        assert faces == sum(observation["table"][character]["cards"].values())
    assert sum(seat["played"] for seat in observation["seats"]) >= 1
    assert page.locator(".table-area .ldp-facedown-veil").count() == 0  # none of its own yet


def test_a_turn_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = start_room(api, 3, ["open", "easy", "easy"], "ldp-keys-1", {"target": 3})
    enter_room(page, answer)
    page.wait_for_selector(HAND)

    def tab_to(kind: str) -> None:
        for _ in range(120):
            page.keyboard.press("Tab")
            classes = page.evaluate(FOCUSED)
            if classes and kind in classes.split():
                return
        pytest.fail(f"Tab never reached a {kind}")

    tab_to("ldp-hand-card")
    assert page.evaluate("() => document.activeElement.tagName") == "BUTTON"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-pressed')") == "true"
    tab_to("ldp-mat-hit")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label.startswith("Put "), label
    before = state_id(page)
    page.keyboard.press(" ")
    wait_change(page, before)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#legal button[data-action]')]"
        ".some(b => b.dataset.notation === 'done')",
        timeout=10_000,
    )
    tab_to("ldp-done")
    before = state_id(page)
    page.keyboard.press("Enter")
    wait_change(page, before)
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
    page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
    answer = start_room(api, 4, ["open", "easy", "easy", "easy"], "ldp-axe-2", {"target": 3})
    enter_room(page, answer)
    page.wait_for_selector(HAND)
    page.add_script_tag(content=AXE.read_text())
    assert axe_violations(page) == []
    page.locator(HAND).first.click()  # a card chosen, the characters on offer
    assert axe_violations(page) == []
    rng = random.Random(2)
    deadline = time.monotonic() + 30
    while not page.locator(".table-area .ldp-reveal:not([hidden])").count():
        assert time.monotonic() < deadline
        if not board_move(page, rng):
            time.sleep(0.03)
    wait_choice(page, rng)
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / f"ldp-desktop-{scheme}-reveal.png"), full_page=True)


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip(
            "set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/little-drop-of-poison.png"
        )
    context = browser.new_context(
        viewport={"width": 1000, "height": 800}, color_scheme="light", reduced_motion="reduce"
    )
    try:
        page = context.new_page()
        answer = start_room(
            api, 4, ["open", "easy", "easy", "easy"], "ldp-picture-3", {"target": 10}
        )
        enter_room(page, answer)
        rng = random.Random(4)
        deadline = time.monotonic() + 40
        while page.locator(".table-area .ldp-mat .ldp-pile rect[fill]").count() < 6 or not (
            page.locator(".table-area .ldp-reveal:not([hidden])").count()
        ):
            assert time.monotonic() < deadline
            if not board_move(page, rng):
                time.sleep(0.03)
        wait_choice(page, rng)
        page.locator(HAND).first.click()
        page.wait_for_timeout(200)
        page.mouse.move(1, 1)  # no hover on the picture
        target = ROOT / "docs" / "images" / f"{GAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        context.close()
