"""The room's log in a real browser: it follows the game, and a series keeps the last game.

The log followed the game only while a batch of new lines was under 80 px tall: it
measured "near the bottom" after putting the batch in, so one tall batch left it
stranded and it never scrolled again. Now whether the reader was at the bottom is
judged before the batch goes in; a reader who scrolled up keeps their place.

The next game of a series started about five seconds after the result and cleared
the log, so the last round's story was gone. Now the last game's lines stay under
their "Game N begins" heading, closed by a line saying who won it.
"""

from __future__ import annotations

from typing import Any

from serving import make_room
from test_room_shell import ivm_with_bots, play_one, play_to_the_end, start, wait_for_move

# Every line taller than the old slack of 80 px, so each batch is a "tall" one.
TALL_LINES = ".log-event { min-height: 90px !important; }"

LOG_PLACE = """() => { const box = document.querySelector('#log');
  return {top: box.scrollTop, gap: box.scrollHeight - box.scrollTop - box.clientHeight,
          overflow: box.scrollHeight - box.clientHeight}; }"""
"""Where the log is scrolled: its top, how far from the bottom, how far it can scroll."""


def test_the_log_follows_tall_batches_and_leaves_a_reader_who_scrolled_up(
    page: Any, api: Any, enter_room: Any
) -> None:
    enter_room(page, ivm_with_bots(api, seed="log-follow"))
    page.add_style_tag(content=TALL_LINES)
    wait_for_move(page)
    followed = 0
    while page.evaluate(LOG_PLACE)["overflow"] < 300:
        assert play_one(page), "the game ended before its log filled the box"
        wait_for_move(page)
    for _ in range(3):
        place = page.evaluate(LOG_PLACE)
        assert place["gap"] <= 2, f"the log stopped at {place} after a tall batch"
        followed += 1
        if not play_one(page):
            break
        wait_for_move(page)
    assert followed == 3 or page.get_attribute("#room", "data-status") == "over"
    # A reader who scrolled up to read keeps their place while the game goes on.
    if page.get_attribute("#room", "data-status") == "playing":
        page.eval_on_selector("#log", "box => { box.scrollTop = 0; }")
        lines = page.locator("#log li.log-event").count()
        assert play_one(page)
        page.wait_for_function(
            "n => document.querySelectorAll('#log li.log-event').length > n", arg=lines
        )
        assert page.evaluate(LOG_PLACE)["top"] == 0


def test_the_next_game_of_a_series_keeps_the_last_games_log_and_result(
    page: Any, api: Any, enter_room: Any
) -> None:
    room = make_room(
        api,
        host_name="Ann",
        seed="log-series",
        game="in-vino-morte",
        players=3,
        seats=["open", "easy", "easy"],
        match_target=2,
    )
    start(api, room)
    enter_room(page, room)
    play_to_the_end(page)
    page.wait_for_selector("#result h2")
    first = page.eval_on_selector_all("#log li.log-event", "ls => ls.map((l) => l.innerText)")
    assert first
    names = page.eval_on_selector_all(
        "#result tr.won td:first-child",
        "cells => cells.map((c) => c.innerText.replace('♛', '').trim())",
    )
    assert names
    page.wait_for_selector("#room[data-game-no='2'][data-status=playing]", timeout=20_000)
    lines = page.eval_on_selector_all(
        "#log > li", "ls => ls.map((l) => [l.className, l.innerText])"
    )
    kinds = [kind for kind, _ in lines]
    texts = [text for _, text in lines]
    # Game 1's heading, its lines as they were, who won it, then game 2's heading.
    assert texts[0].lower() == "game 1 begins"
    assert [t for k, t in lines if k.startswith("log-event")][: len(first)] == first
    result = kinds.index("log-result")
    assert texts.index(next(t for t in texts if t.lower() == "game 2 begins")) > result
    said = texts[result]
    assert said.startswith("Game 1: ") and all(name in said for name in names), said
    assert "wins" in said or "share the win" in said
    assert page.errors == []
