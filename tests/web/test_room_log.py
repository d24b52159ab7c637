"""The room's log in a real browser: it follows the game, and a series keeps the last game.

The log followed the game only while a batch of new lines was under 80 px tall: it
measured "near the bottom" after putting the batch in, so one tall batch left it
stranded and it never scrolled again. Now whether the reader was at the bottom is
judged before the batch goes in; a reader who scrolled up keeps their place.

The log could not be scrolled by keyboard (axe-core: "scrollable-region-focusable",
serious, on every table, light and dark, desktop and phone): it now takes the focus
(Tab reaches it; arrows and Page Down scroll it) and keeps its name.

The next game of a series started about five seconds after the result and cleared
the log, so the last round's story was gone. Now the last game's lines stay under
their "Game N begins" heading, closed by a line saying who won it.
"""

from __future__ import annotations

from typing import Any

import tables_kit as kit
from serving import make_room
from test_room_shell import ivm_with_bots, play_to_the_end, start

# Every line taller than the old slack of 80 px, so each batch is a "tall" one.
TALL_LINES = ".log-event { min-height: 90px !important; }"

LOG_PLACE = """() => { const box = document.querySelector('#log');
  return {top: box.scrollTop, gap: box.scrollHeight - box.scrollTop - box.clientHeight,
          overflow: box.scrollHeight - box.clientHeight}; }"""
"""Where the log is scrolled: its top, how far from the bottom, how far it can scroll."""


def step(page: Any) -> bool:
    """Our move when it is our turn; then (or else) until the position moves on. False
    when the game is over."""
    if page.get_attribute("#room", "data-status") == "over":
        return False
    before = page.get_attribute("#room", "data-state-id")
    ours = page.locator("#legal button[data-action]:not([disabled])")
    if ours.count():
        ours.first.click()
    page.wait_for_function(
        "b => { const r = document.querySelector('#room');"
        " return r.dataset.stateId !== b || r.dataset.status === 'over'; }",
        arg=before,
        timeout=15_000,
    )
    return True


def test_the_log_follows_tall_batches_and_leaves_a_reader_who_scrolled_up(
    page: Any, api: Any, enter_room: Any
) -> None:
    # Five seats: a round of In Vino Morte long enough to fill the box and go on.
    room = ivm_with_bots(api, players=5, seats=["open", *["easy"] * 4], seed="log-follow")
    enter_room(page, room)
    kit.add_css(page, TALL_LINES)
    page.wait_for_selector("#room[data-status=playing] .table-area")
    while page.evaluate(LOG_PLACE)["overflow"] < 100:
        assert step(page), "the game ended before its log filled the box"
    for _ in range(3):
        place = page.evaluate(LOG_PLACE)
        assert place["gap"] <= 2, f"the log stopped at {place} after a tall batch"
        assert step(page), "the game ended too soon for this test (try another seed)"
    # A reader who scrolled up to read keeps their place while the game goes on.
    page.eval_on_selector("#log", "box => { box.scrollTop = 0; }")
    lines = page.locator("#log li.log-event").count()
    while page.locator("#log li.log-event").count() == lines:
        assert step(page), "the game ended too soon for this test (try another seed)"
    assert page.evaluate(LOG_PLACE)["top"] == 0


def test_the_next_game_of_a_series_keeps_the_last_games_log_and_result(
    page: Any, api: Any, enter_room: Any
) -> None:
    # First to three wins: at least three games, to see that only one game back is kept.
    room = make_room(
        api,
        host_name="Ann",
        seed="log-series",
        game="in-vino-morte",
        players=3,
        seats=["open", "easy", "easy"],
        match_target=3,
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
    # Game 3 keeps game 2's lines and result, and lets game 1's go.
    play_to_the_end(page)
    page.wait_for_selector("#room[data-game-no='3'][data-status=playing]", timeout=20_000)
    texts = page.eval_on_selector_all("#log > li", "ls => ls.map((l) => l.innerText)")
    assert texts[0].lower() == "game 2 begins"
    assert not any(t.lower() == "game 1 begins" or t.startswith("Game 1: ") for t in texts)
    assert any(t.startswith("Game 2: ") for t in texts)
    assert "game 3 begins" in [t.lower() for t in texts]
    assert page.errors == []


def test_the_log_scrolls_by_keyboard(device_page: Any, api: Any, enter_room: Any, axe: Any) -> None:
    page = device_page
    room = ivm_with_bots(api, players=5, seats=["open", *["easy"] * 4], seed="log-follow")
    enter_room(page, room)
    kit.add_css(page, TALL_LINES)
    page.wait_for_selector("#room[data-status=playing] .table-area")
    while page.evaluate(LOG_PLACE)["overflow"] < 300:
        assert step(page), "the game ended before its log filled the box"
    axe(page)
    found = page.evaluate(
        "async () => (await axe.run('#log-panel', {runOnly: ['scrollable-region-focusable']}))"
        ".violations.map((v) => v.id)"
    )
    assert found == []
    assert page.get_attribute("#log", "aria-label") == "What happened"
    page.eval_on_selector("#log", "box => { box.scrollTop = 0; }")
    kit.tab_until(
        page, lambda: page.evaluate("() => document.activeElement.id === 'log'"), 200, "the log"
    )
    page.keyboard.press("PageDown")
    # Polled through DevTools: wait_for_function's predicate is eval'd in the
    # page, which the server's CSP (no unsafe-eval) refuses.
    for _ in range(100):
        if page.evaluate("() => document.querySelector('#log').scrollTop > 0"):
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError("PageDown did not scroll the log")
