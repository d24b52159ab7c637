"""The room's fold-out controls in a real browser: each reads as a control and says
whether it is open.

"Host: let a bot play for someone who left" and "All N moves as buttons" were
``<summary>`` lines laid out as flex, which drops the browser's triangle: grey
words with nothing to say they open. They now have a button's box and a marker
(▸ closed, ▾ open), and the browser's accessibility tree names each as a button
with its expanded state. The host's bot level chose ``easy``, the list's first,
whatever the room's fallback level; it now starts at that level (the one the
timer hands a seat to).
"""

from __future__ import annotations

from typing import Any

from serving import make_room
from test_room_shell import start

MARKER = "sel => getComputedStyle(document.querySelector(sel), '::before').content"
BOXED = "sel => parseFloat(getComputedStyle(document.querySelector(sel)).borderTopWidth)"


def control(page: Any, name: str) -> tuple[str, bool | None]:
    """The role Chromium gives assistive technology for the node named ``name``, and
    whether it says it is expanded."""
    tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")
    for node in tree["nodes"]:
        if node.get("name", {}).get("value") == name and node["role"]["value"] != "StaticText":
            expanded = [
                p["value"]["value"] for p in node.get("properties", []) if p["name"] == "expanded"
            ]
            return node["role"]["value"], expanded[0] if expanded else None
    raise AssertionError(f"nothing named {name!r}")


def check_fold_out(page: Any, details: str, name: str) -> None:
    """``details`` (a selector) opens by its summary, a boxed control named ``name``
    whose marker turns and which says whether it is open."""
    summary = f"{details} > summary"
    assert page.evaluate(BOXED, summary) >= 1
    closed = page.evaluate(MARKER, summary)
    assert "▸" in closed, closed
    # a summary is a disclosure button to a screen reader (the platforms' button)
    assert control(page, name) == ("DisclosureTriangle", False)
    page.click(summary)
    assert page.eval_on_selector(details, "d => d.open")
    assert "▾" in page.evaluate(MARKER, summary)
    assert control(page, name) == ("DisclosureTriangle", True)


def test_the_hosts_fold_out_and_its_level(browser: Any, api: Any, enter_room: Any) -> None:
    room = make_room(
        api,
        host_name="Ann",
        game="in-vino-morte",
        players=3,
        seats=["open", "open", "easy"],
        fallback_level="hard",
        turn_seconds=600,
        seed="controls-host",
    )
    bob = api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Bob", "seat": 1}).json()
    start(api, room)
    ann_context, bob_context = browser.new_context(), browser.new_context()
    try:
        enter_room(bob_context.new_page(), {**bob, "code": room["code"]})
        page = enter_room(ann_context.new_page(), room)
        page.wait_for_selector(".host-details summary")
        check_fold_out(page, ".host-details", "Host: let a bot play for someone who left")
        assert page.input_value("#host-level") == "hard"
    finally:
        ann_context.close()
        bob_context.close()


def test_all_the_moves_fold_out(page: Any, api: Any, enter_room: Any) -> None:
    # Poison Pot's first turn: the pot may slide to many circles, more than twelve moves.
    room = make_room(
        api, host_name="Ann", game="poison-pot", players=2, seats=["open", "easy"], seed="fold-1"
    )
    start(api, room)
    enter_room(page, room)
    page.wait_for_selector(".moves-details summary")
    count = page.locator("#legal button[data-action]").count()
    assert count > 12
    check_fold_out(page, ".moves-details", f"All {count} moves as buttons")
