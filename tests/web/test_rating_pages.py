"""A rated game in a real browser: two people sign up in two browser contexts, one
creates a rated room from the lobby, the other sits down from the invite link, the
host starts, and once the game is over both profile pages show the rating moved,
the plot and the game (its replay linked); the leaderboard lists both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rated_play import play_to_the_end
from test_account_pages import PASSWORD, fill, header_says
from test_csp import _violations, _watch

from conftest import storage_key


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/account")
    fill(page, "sign-up", name=name, password=PASSWORD)
    header_says(page, name)


def seat_token(page: Any, code: str) -> str:
    kept = json.loads(page.evaluate("(key) => localStorage.getItem(key)", storage_key(code)))
    return str(kept["seat_token"])


def test_a_rated_game_moves_both_ratings_on_the_profile_pages(
    page: Any, browser: Any, web_server: str, artifacts: Path
) -> None:
    console = _watch(page)
    other = browser.new_context()
    other.set_default_timeout(10_000)
    try:
        guest = other.new_page()
        sign_up(page, web_server, "Amanita")
        sign_up(guest, web_server, "Belladonna")
        guest.goto(f"{web_server}/u/Belladonna")
        guest.locator("#profile-unrated").wait_for()  # no rating before a rated game

        page.goto(f"{web_server}/")
        page.click('.game-card[data-game="poison-pot"] button.choose')
        page.locator('#setup-form[data-game="poison-pot"]').wait_for()
        page.fill("#host-name", "typed, not used")
        page.fill("#players", "2")
        page.dispatch_event("#players", "input")
        page.select_option("#seat-1", "open")
        page.check("#rated")
        page.locator("#setup-form button[type=submit]").click()
        page.wait_for_url("**/rooms/*")
        code = page.url.rstrip("/").rsplit("/", 1)[1]
        page.locator("#room").wait_for()

        guest.goto(f"{web_server}/rooms/{code}")
        guest.fill("#join-name", "typed too")
        guest.locator("#join-form button[type=submit]").click()
        guest.locator("#start-game").wait_for(state="detached")  # not the host
        page.locator("#start-game").click()
        page.locator("#room[data-status=playing]").wait_for()

        tokens = [seat_token(page, code), seat_token(guest, code)]
        play_to_the_end(web_server, code, tokens)

        for viewer, name in ((page, "Amanita"), (guest, "Belladonna")):
            viewer.goto(f"{web_server}/u/{name}")
            part = viewer.locator(".profile-game[data-game=poison-pot][data-players='2']")
            part.wait_for()
            assert "1 played" in part.inner_text()
            rating = part.locator(".rating").inner_text()
            assert rating != "1000 ± 1000" and rating.endswith("± 968"), rating
            part.locator("svg.rating-plot circle").nth(1).wait_for()  # before, and after
            viewer.locator(f".profile-recent a[href='/replay/{code}/1']").wait_for()
        page.screenshot(path=artifacts / "profile.png")
        guest.screenshot(path=artifacts / "profile-other.png")

        page.goto(f"{web_server}/leaderboard/poison-pot")
        rows = page.locator("#board-2 tbody tr")
        rows.nth(1).wait_for()
        names = {rows.nth(i).get_attribute("data-name") for i in range(rows.count())}
        assert {"Amanita", "Belladonna"} <= names
        page.screenshot(path=artifacts / "leaderboard.png")
        assert _violations(page, console) == []
    finally:
        other.close()
