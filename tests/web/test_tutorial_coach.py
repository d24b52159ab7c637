"""Learn to play in a real browser (docs/client.md, "Learn to play"): from the lobby's
button, each game's tutorial room is played to its end by following the coach (the
move it marks), a wrong move is explained by the coach and changes nothing, and the
end offers a real game against easy bots. Screenshots of the coach on a phone and a
desktop are written to the test's artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

WAIT = 20_000  # ms: bots play with the test server's 0.05 s delay


def tutorial_games(base: str) -> list[str]:
    """The games whose info says they have a tutorial (the registry's, never named here)."""
    return [g["name"] for g in httpx.get(f"{base}/api/games").json() if g.get("tutorial")]


def start_tutorial(page: Any, base: str, game: str) -> None:
    page.goto(f"{base}/")
    page.locator(f'.game-card[data-game="{game}"] button.learn').click()
    page.locator("#coach:not([hidden])").wait_for(timeout=WAIT)


def your_step(page: Any) -> str:
    """Wait for the coach to mark your move, or the end; the step shown, or 'end'."""
    page.locator("#coach[data-finished='yes'], #legal button.coach-move").first.wait_for(
        timeout=WAIT
    )
    if page.locator("#coach[data-finished='yes']").count():
        return "end"
    return str(page.locator("#coach").get_attribute("data-step"))


def follow_coach(page: Any) -> int:
    """Click the move the coach marks until the script ends; the moves made."""
    made = 0
    while True:
        step = your_step(page)
        if step == "end":
            return made
        page.locator("#legal button.coach-move").click()
        made += 1
        page.locator(f"#coach:not([data-step='{step}'])").wait_for(timeout=WAIT)


def test_every_built_in_game_offers_learn_to_play(web_server: str) -> None:
    assert len(tutorial_games(web_server)) == 4


@pytest.mark.parametrize("index", range(4))
def test_the_tutorial_is_played_to_its_end_by_following_the_coach(
    page: Any, web_server: str, index: int, artifacts: Path
) -> None:
    game = tutorial_games(web_server)[index]
    start_tutorial(page, web_server, game)
    assert page.locator("#coach .coach-intro").inner_text().strip()
    your_step(page)
    page.screenshot(path=str(artifacts / f"coach-{game}-desktop.png"))
    assert page.locator("#coach-now").inner_text().strip()
    made = follow_coach(page)
    assert made >= 3
    page.locator("#room[data-status='over']").wait_for(timeout=WAIT)
    assert page.locator("#coach-outro").inner_text().strip()
    page.locator("#coach-real-game").wait_for()
    page.screenshot(path=str(artifacts / f"coach-{game}-end.png"))


def test_a_wrong_move_is_explained_and_the_game_stays_as_it_was(
    phone_page: Any, web_server: str, artifacts: Path
) -> None:
    page = phone_page
    game = tutorial_games(web_server)[0]
    start_tutorial(page, web_server, game)
    step = your_step(page)
    state = page.locator("#room").get_attribute("data-state-id")
    wrong = page.locator("#legal button[data-notation]:not(.coach-move)").first
    wrong.click()
    page.locator("#coach-wrong").wait_for(timeout=WAIT)
    assert page.locator("#coach-wrong").inner_text().strip()
    page.screenshot(path=str(artifacts / f"coach-{game}-phone-wrong.png"), full_page=True)
    assert page.locator("#room").get_attribute("data-state-id") == state
    assert page.locator("#coach").get_attribute("data-step") == step
    # The right move is still open, and the correction goes once it is made.
    page.locator("#legal button.coach-move").click()
    page.locator(f"#coach:not([data-step='{step}'])").wait_for(timeout=WAIT)
    assert page.locator("#coach-wrong").count() == 0


def test_the_end_offers_a_real_game_against_easy_bots(page: Any, web_server: str) -> None:
    games = tutorial_games(web_server)
    game = games[games.index(min(games, key=len))]  # any game; the shortest name's
    start_tutorial(page, web_server, game)
    follow_coach(page)
    tutorial_room = page.url
    page.locator("#coach-real-game").click()
    page.wait_for_url(lambda url: "/rooms/" in url and url != tutorial_room, timeout=WAIT)
    page.locator("#room[data-status='playing']").wait_for(timeout=WAIT)
    assert page.locator("#coach").is_hidden()
    seats = page.locator("#seats li")
    assert seats.count() >= 2
