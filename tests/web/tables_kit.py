"""What the tests of the game tables (``test_table_*.py``) share.

- ``start_room``: a started room of a game with the host (Ann) in seat 0;
- ``state_id``, ``wait_change``, ``next_position``, ``over``, ``legal``: the position, the next
  one, the result and the legal actions, as the shell shows them;
- ``play``: moves by the table (the test's own ``move``) until a condition, a number of moves
  or the result, with a time limit;
- ``snap``: screenshots of the page and of the table;
- ``axe_violations``: what axe-core (put in the page with the ``axe`` fixture) finds on the
  table;
- ``tab_until``, ``board_focused``, ``focused_classes``, ``focused_label``: the keyboard alone;
- ``record_frames``: the WebSocket frames a page receives;
- ``readme_picture``: the table's picture in ``docs/images/GAME.png``, written only with
  ``APOTHECARY_REFRESH_PICTURES=1``.

What a table's board offers, and how a test plays it, stay in that table's test.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from serving import host_headers, make_room

ROOT = Path(__file__).resolve().parents[2]
PICTURES = ROOT / "docs" / "images"  # the README's pictures of the tables

if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)

BOARD_FOCUSED = (
    "() => !!document.activeElement.closest('.table-area')"
    " && document.activeElement.getAttribute('role') === 'button'"
)
FOCUSED_CLASSES = (
    "() => { const a = document.activeElement;"
    " return a && a.closest('.table-area') ? a.getAttribute('class') || '' : null; }"
)


def start_room(
    api: Any,
    game: str,
    players: int,
    seats: list[str],
    seed: str,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A started room of ``game`` with the host (Ann) in seat 0."""
    answer = make_room(
        api,
        game=game,
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


def wait_change(page: Any, before: str) -> None:
    """Until the position is another than ``before`` (a ``state_id``)."""
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


@contextmanager
def next_position(page: Any) -> Iterator[None]:
    """The block makes a move on ``page``; after it, wait until the position has moved on."""
    before = state_id(page)
    yield
    wait_change(page, before)


def over(page: Any) -> bool:
    """The result shows."""
    return page.locator("#result").is_visible()


def legal(page: Any) -> list[str]:
    """The notations of the legal actions the shell offers this seat now."""
    return page.eval_on_selector_all(
        "#legal button[data-action]", "ns => ns.map(n => n.dataset.notation)"
    )


def play(
    move: Callable[[int], bool],
    *,
    until: Callable[[], bool] | None = None,
    moves: int | None = None,
    seconds: float | None = None,
    since: float | None = None,
    pause: float = 0.1,
    what: str = "the game did not end",
) -> int:
    """Try ``move(moves made so far)`` (True when it made one; else a ``pause``) until
    ``until()`` holds or ``moves`` are made; the number made. With ``seconds``, an
    AssertionError (``what``) once that long has passed since ``since`` (a
    ``time.monotonic()``; by default, now)."""
    made = 0
    deadline = None if seconds is None else (time.monotonic() if since is None else since) + seconds
    while not (until is not None and until()) and not (moves is not None and made >= moves):
        assert deadline is None or time.monotonic() < deadline, f"{what} in {seconds} s"
        if move(made):
            made += 1
        else:
            time.sleep(pause)
    return made


def snap(page: Any, shots: Path, name: str, *, full_page: bool = True, table: bool = False) -> None:
    """``name.png``: the whole page (the window alone unless ``full_page``); with ``table``,
    also ``name-table.png``, the table alone."""
    page.screenshot(path=str(shots / f"{name}.png"), full_page=full_page)
    if table:
        page.locator(".table-area").screenshot(path=str(shots / f"{name}-table.png"))


def axe_violations(page: Any) -> list[Any]:
    """axe-core's serious and critical findings on the table: (id, help, first targets)."""
    result = page.evaluate("async () => JSON.stringify(await axe.run('.table-area'))")
    return [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in json.loads(result)["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def tab_until(page: Any, reached: Callable[[], bool], tries: int, what: str) -> None:
    """Press Tab until ``reached()``, at most ``tries`` times; else the test fails."""
    for _ in range(tries):
        page.keyboard.press("Tab")
        if reached():
            return
    pytest.fail(f"Tab never reached {what}")


def board_focused(page: Any) -> bool:
    """The focus is on something of the table that acts as a button."""
    return bool(page.evaluate(BOARD_FOCUSED))


def focused_classes(page: Any) -> str | None:
    """The class attribute of what has the focus on the table (None: the focus is elsewhere)."""
    return page.evaluate(FOCUSED_CLASSES)


def focused_label(page: Any) -> Any:
    return page.evaluate("() => document.activeElement.getAttribute('aria-label')")


def record_frames(page: Any) -> list[str]:
    """The WebSocket frames ``page`` receives from now on, as text (the list grows)."""
    frames: list[str] = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)))
    )
    return frames


@contextmanager
def readme_picture(browser: Any, game: str, **context: Any) -> Iterator[Any]:
    """A page in a new browser context (``context``: its options) to set the table up in;
    after the block, the table alone goes to ``docs/images/GAME.png`` (under 300 kB).
    Skips the test unless ``APOTHECARY_REFRESH_PICTURES=1``."""
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip(f"set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/{game}.png")
    opened = browser.new_context(**context)
    try:
        page = opened.new_page()
        yield page
        target = PICTURES / f"{game}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        opened.close()
