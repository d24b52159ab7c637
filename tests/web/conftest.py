"""Fixtures for the browser client's tests: a real server, Debian's Chromium through Playwright.

- ``web_server``: ``apothecary serve`` as a subprocess on a free loopback port, with a fresh
  SQLite file, ``--workers-for-bots 0 --bot-delay 0.05 --allow-seed``; yields its base URL
  (``http://127.0.0.1:PORT``). One server per test module (the server lets one address create
  30 rooms a minute, so a server shared by every module could refuse rooms).
- ``api``: an ``httpx.Client`` on that server (use it with ``make_room`` and ``host_headers``
  from ``tests/support/serving.py``).
- ``browser``: one headless Chromium for the session (pytest-xdist: one per worker).
- ``page``: a new context and page per test, 1280x800.
- ``phone_page``: a new context and page per test, 390x844, ``is_mobile``, ``has_touch``.
- ``device`` and ``device_page``: a test that takes them runs twice, as ``desktop`` (on
  ``page``) and as ``phone-dark`` (on ``phone_page``, in the dark colour scheme).
- ``enter_room``: ``enter_room(page, answer, seat_token=..., host_token=...)`` opens
  ``/rooms/CODE`` as the seat (and host) of ``answer`` (what ``make_room`` or a seat claim
  returned) by putting the tokens where the client keeps them, then waits for the room screen;
  ``base=`` opens it on a server the test started itself instead of ``web_server``.
- ``axe``: ``axe(page)`` puts axe-core (vendored under ``vendor/``) into the page; a test that
  takes it is skipped when it is not vendored.
- ``artifacts``: a folder for screenshots (``$APOTHECARY_ARTIFACTS/<test>`` when set, else the
  test's ``tmp_path``). Never commit what lands there.

What the client keeps, and the page's hooks a test may rely on (docs/client.md has the rest):

- ``localStorage["apothecary.room.CODE"]`` is JSON ``{"seat_token", "host_token", "seat",
  "name"}`` (any may be missing); ``localStorage["apothecary.name"]`` the last display name.
- ``#room[data-status]`` is ``lobby``, ``playing`` or ``over``; ``#room[data-state-id]`` the
  last update's ``state_id``; ``#room[data-you]`` your seat (empty when watching).
- ``.table-area`` is the table module's root; ``#legal button[data-action]`` are the legal
  actions (``data-action`` the id, ``data-notation`` the notation); ``#status`` the status line;
  ``#result`` the result panel (shown once a game is over); ``#log li`` the log's lines;
  ``#chat-log li`` the chat's lines.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe_kit import inject_axe
from serving import server_process, sqlite_url

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a real ``apothecary serve`` on a loopback port (one per test module)."""
    folder = tmp_path_factory.mktemp("web-server")
    with server_process(sqlite_url(folder), "--bot-delay", "0.05") as (base, _process):
        yield base


@pytest.fixture
def api(web_server: str) -> Iterator[httpx.Client]:
    """An HTTP client on ``web_server``."""
    with httpx.Client(base_url=web_server, timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    """Headless Chromium (Debian's), one per session."""
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _new_page(browser: Any, **context_args: Any) -> Iterator[Any]:
    context = browser.new_context(**context_args)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # uncaught exceptions in the page, for tests that want none
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop page (1280x800) in a fresh context."""
    yield from _new_page(browser, viewport={"width": 1280, "height": 800})


@pytest.fixture
def phone_page(browser: Any) -> Iterator[Any]:
    """A phone page (390x844, mobile, touch) in a fresh context."""
    yield from _new_page(
        browser,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )


@pytest.fixture(params=["desktop", "phone-dark"])
def device(request: pytest.FixtureRequest) -> str:
    """Where a test runs: "desktop", then "phone-dark"."""
    return request.param


@pytest.fixture
def device_page(device: str, request: pytest.FixtureRequest) -> Any:
    """``page`` on "desktop"; ``phone_page``, in the dark colour scheme, on "phone-dark"."""
    page = request.getfixturevalue("page" if device == "desktop" else "phone_page")
    if device == "phone-dark":
        page.emulate_media(color_scheme="dark")
    return page


def storage_key(code: str) -> str:
    """Where the client keeps a room's tokens in localStorage."""
    return f"apothecary.room.{code}"


@pytest.fixture
def enter_room(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Open a room's page as a seat (or host, or spectator) and wait for its room screen
    (on ``web_server``, or on the server at ``base``, which a test started itself)."""

    def enter(
        page: Any,
        answer: dict[str, Any],
        seat_token: str | None = None,
        host_token: str | None = None,
        name: str | None = None,
        base: str | None = None,
    ) -> Any:
        web_server = base or request.getfixturevalue("web_server")
        code = answer.get("code") or answer["room"]["code"]
        kept = {
            "seat_token": seat_token or answer.get("seat_token") or answer.get("token"),
            "host_token": host_token or answer.get("host_token"),
            "seat": answer.get("seat"),
            "name": name,
        }
        kept = {k: v for k, v in kept.items() if v is not None}
        page.goto(f"{web_server}/health")  # the same origin, so the same localStorage
        page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)",
            [storage_key(code), json.dumps(kept)],
        )
        page.goto(f"{web_server}/rooms/{code}")
        page.wait_for_selector("#room[data-status]")
        return page

    return enter


@pytest.fixture
def axe() -> Callable[[Any], None]:
    """``axe(page)`` puts axe-core into the page; skips the test when it is not vendored."""
    script = Path(__file__).parent / "vendor" / "axe.min.js"
    if not script.exists():
        pytest.skip("tests/web/vendor/axe.min.js is not vendored yet")
    return inject_axe


@pytest.fixture
def artifacts(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A folder for this test's screenshots."""
    root = os.environ.get("APOTHECARY_ARTIFACTS")
    if not root:
        return tmp_path
    folder = Path(root) / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
