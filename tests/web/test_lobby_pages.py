"""The lobby's open rooms a page at a time, in a real browser over a real server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import make_room, server_process, sqlite_url

ROOMS = 25  # more than a page (20), fewer than one address may create a minute


def wait_until(page: Any, condition: str) -> None:
    """Poll ``condition`` through DevTools (wait_for_function's predicate is
    eval'd in the page, which the server's CSP refuses)."""
    for _ in range(200):
        if page.evaluate(condition):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"never true: {condition}")


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A server of its own with ROOMS listed rooms: its URL and their codes, oldest first."""
    with (
        server_process(
            sqlite_url(tmp_path_factory.mktemp("crowded")), "--rooms-per-address", "100"
        ) as (base, _process),
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        codes = [
            make_room(client, host_name=f"Host {n}", game="poison-pot", players=2)["code"]
            for n in range(ROOMS)
        ]
        yield base, codes


def shown(page: Any) -> list[str]:
    return [
        str(code)
        for code in page.locator(".room-item").evaluate_all("l => l.map(e => e.dataset.code)")
    ]


def test_the_lobby_pages_through_the_open_rooms(page: Any, crowded: tuple[str, list[str]]) -> None:
    base, codes = crowded
    page.goto(f"{base}/")
    page.wait_for_selector(".room-pages")
    newest = list(reversed(codes))
    assert shown(page) == newest[:20]
    pager = page.locator(".room-pages")
    assert f"rooms 1–20 of {ROOMS}" in pager.inner_text()
    assert pager.locator("button", has_text="Newer").is_disabled()
    shots = os.environ.get("APOTHECARY_SHOTS")
    if shots:
        page.locator("#open-rooms").screenshot(path=str(Path(shots) / "lobby-page-1.png"))
    pager.locator("button", has_text="Older").click()
    wait_until(page, "document.querySelectorAll('.room-item').length === 5")
    assert shown(page) == newest[20:]
    assert f"rooms 21–{ROOMS} of {ROOMS}" in page.locator(".room-pages").inner_text()
    assert page.locator(".room-pages button", has_text="Older").is_disabled()
    if shots:
        page.locator("#open-rooms").screenshot(path=str(Path(shots) / "lobby-page-2.png"))
    page.locator(".room-pages button", has_text="Newer").click()
    wait_until(page, "document.querySelectorAll('.room-item').length === 20")
    assert shown(page) == newest[:20]
    assert page.errors == []
