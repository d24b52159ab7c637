"""The browser client lives within the server's Content-Security-Policy: the
lobby, a room, a replay and a rules page load in Chromium with no violation
reported (the CSP forbids inline script and style, and other origins)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from serving import host_headers, make_room
from test_replay import finished_record, upload

from apothecary.server.guard import CSP

# Recorded before any page script runs (Playwright's init scripts are not
# subject to the page's CSP): every violation the browser reports.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def _watch(page: Any) -> list[str]:
    console: list[str] = []
    page.add_init_script(WATCH)
    page.on(
        "console",
        lambda message: (
            console.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return console


def _violations(page: Any, console: list[str]) -> list[str]:
    found: list[str] = page.evaluate("window.__violations")
    return found + console


def test_every_page_loads_within_the_csp(
    page: Any,
    web_server: str,
    api: httpx.Client,
    enter_room: Any,
    artifacts: Path,
) -> None:
    console = _watch(page)
    assert httpx.get(web_server).headers["content-security-policy"] == CSP

    page.goto(web_server)
    page.wait_for_selector(".game-card")
    page.screenshot(path=artifacts / "lobby.png")
    assert _violations(page, console) == []

    room = make_room(api, game="poison-pot", players=2, seats=["open", "easy"], seed="1")
    enter_room(page, room)
    page.screenshot(path=artifacts / "room-lobby.png")
    assert api.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room)).is_success
    page.wait_for_selector("#room[data-status='playing'] .table-area svg, .table-area button")
    page.wait_for_timeout(500)  # let the table finish drawing for the screenshot
    page.screenshot(path=artifacts / "room.png")
    assert _violations(page, console) == []

    link = upload(api, finished_record("poison-pot", 2, seed=3))
    page.goto(f"{web_server}{link}")
    page.wait_for_selector("#replay[data-step]")
    page.screenshot(path=artifacts / "replay.png")
    assert _violations(page, console) == []

    page.goto(f"{web_server}/rules/poison-pot")
    page.wait_for_selector(".rules-page")
    page.screenshot(path=artifacts / "rules.png")
    assert _violations(page, console) == []
    assert page.errors == []
    # The watch sees a violation when there is one: an inline style, planted.
    page.evaluate(
        "document.head.append(Object.assign(document.createElement('style'), "
        "{textContent: 'p {}'}))"
    )
    page.wait_for_function("() => window.__violations.length > 0")
    assert _violations(page, console)[0].startswith("style-src")


def _expression_predicates(source: str) -> list[int]:
    """Lines of ``source`` where ``wait_for_function`` is given a JavaScript
    expression rather than a function. Playwright polls an expression with the
    page's own ``eval``, which the CSP refuses (the first check goes through
    DevTools, so such a wait passes whenever its condition already holds and
    fails only when it has to poll: a flaky test, as fresh-clone CI found)."""
    import ast

    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "wait_for_function"
            and node.args
        ):
            first = node.args[0]
            text = first.value if isinstance(first, ast.Constant) else None
            if isinstance(first, ast.JoinedStr):
                head = first.values[0] if first.values else None
                text = head.value if isinstance(head, ast.Constant) else "=>"  # f"{fn}…"
            if (
                isinstance(text, str)
                and "=>" not in text
                and not text.lstrip().startswith("function")
            ):
                lines.append(node.lineno)
    return lines


def test_no_test_waits_on_an_expression_the_csp_would_refuse_to_poll() -> None:
    planted = "page.wait_for_function(\"document.body.dataset.n === '1'\")\n"
    assert _expression_predicates(planted) == [1]  # the check catches one
    assert _expression_predicates('page.wait_for_function("() => window.x", arg=1)\n') == []
    tests = Path(__file__).resolve().parent.parent
    found = {
        str(path.relative_to(tests)): lines
        for path in sorted(tests.rglob("*.py"))
        if (lines := _expression_predicates(path.read_text()))
    }
    assert found == {}, f"wait_for_function given an expression (use '() => …'): {found}"
