"""The seats bar of a full room on a phone (360x740) and on a desktop (1280x800).

Neither shows a scrollbar, so when the bar scrolled sideways the seats past its
right edge were out of sight with nothing to say they were there: on a phone a
9-seat In Vino Morte room showed two chips, on a desktop four of nine (and a
4-seat series of Tea, Scones and Arsenic three of four), the one to move among
the hidden ones. The bar now wraps: below the two-column layout into a grid, on
a desktop into more rows. Every seat is in view at once, the one to move included.

Wrapped, the grid's narrow chips cut "medium bot" to "medium …" on a phone and at
768 px, even in a 3-seat room, so a room of medium bots showed chips that differed
only by "seat N". A chip's name now wraps onto a second line when it must; a name
up to 16 characters is shown whole at every width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tables_kit as kit
from serving import host_headers, make_room

PHONE = {"width": 360, "height": 740}

# The bar as it was (style.css's wrapping rules undone): one row of chips that
# scrolls sideways.
OLD_BAR = """
.seats-bar { display: flex !important; gap: 0.5rem !important; overflow-x: auto !important;
             flex-wrap: nowrap !important; }
.seat-chip { min-width: 6rem !important; padding: 0.4rem 0.7rem !important;
             row-gap: 0.05rem !important; flex: none !important; }
.seat-chip .chip-name { flex: 0 1 auto !important; max-width: 10rem !important;
                        font-size: inherit !important; }
"""

OUT_OF_VIEW = """() => {
  const [w, h] = [window.innerWidth, window.innerHeight];
  const bar = document.querySelector('#seats').getBoundingClientRect();
  const wide = document.documentElement.scrollWidth > w;
  return [...document.querySelectorAll('#seats li.seat-chip')]
    .filter((chip) => {
      const r = chip.getBoundingClientRect();
      return wide || r.left < Math.max(0, bar.left) - 1 || r.right > Math.min(w, bar.right) + 1
        || r.top < 0 || r.bottom > h;
    })
    .map((chip) => Number(chip.dataset.seat));
}"""
"""The seats whose chip is not wholly in the window and in the bar (past its edge, a
chip is scrolled out of sight) as the room opens; all of them when the page itself
is wider than the window."""


CUT_NAMES = """() => [...document.querySelectorAll('#seats li.seat-chip .chip-name')]
  .filter((name) => name.scrollWidth > name.clientWidth + 1
    || name.scrollHeight > name.clientHeight + 1)
  .map((name) => name.textContent)"""
"""The chip names not shown whole: wider than their box (cut with an ellipsis) or
taller (lines past the second cut off)."""

# The chip names as they were: one line, cut with an ellipsis, and on a phone
# beside the dot and the turn mark.
OLD_NAMES = """
.seat-chip .chip-name { white-space: nowrap !important; display: block !important;
                        text-overflow: ellipsis !important; }
@media (max-width: 899px) {
  .seat-chip .chip-name { flex: 1 1 0 !important; }
  .seat-chip .dot, .seat-chip .turn-mark { order: 0 !important; }
  .seat-chip .turn-mark { display: inline !important; }
}
"""

LONG_NAME = "Henrietta Greene"  # 16 characters

WIDTHS = [
    {"width": 360, "height": 740},
    {"width": 390, "height": 844},
    {"width": 768, "height": 1024},
    {"width": 1280, "height": 800},
]


def open_full_room(
    api: Any,
    enter_room: Any,
    page: Any,
    game: str,
    players: int,
    seed: str,
    level: str = "easy",
) -> None:
    """A started room of ``game`` with every seat taken (Ann in seat 0, ``level`` bots after)."""
    seats = ["open", *[level] * (players - 1)]
    enter_room(page, kit.start_room(api, game, players, seats, seed))
    page.wait_for_selector(f"#seats li.seat-chip >> nth={players - 1}")
    page.wait_for_selector("#room[data-status=playing]")


@pytest.mark.parametrize(("game", "players"), [("in-vino-morte", 9), ("little-drop-of-poison", 8)])
def test_on_a_phone_every_seat_of_a_full_room_is_in_view(
    api: Any, enter_room: Any, phone_page: Any, artifacts: Path, game: str, players: int
) -> None:
    phone_page.set_viewport_size(PHONE)
    open_full_room(api, enter_room, phone_page, game, players, f"bar-{game}")
    assert phone_page.locator("#seats li.seat-chip").count() == players
    kit.snap(phone_page, artifacts, f"{game}-{players}-phone", full_page=False)
    assert phone_page.evaluate(OUT_OF_VIEW) == []
    # The check catches the old bar: one row, most seats past the right edge.
    kit.add_css(phone_page, OLD_BAR)
    hidden = phone_page.evaluate(OUT_OF_VIEW)
    kit.snap(phone_page, artifacts, f"{game}-{players}-phone-old-bar", full_page=False)
    assert 0 not in hidden and len(hidden) >= players // 2


def test_on_a_desktop_every_seat_of_a_full_room_is_in_view(
    api: Any, enter_room: Any, page: Any, artifacts: Path
) -> None:
    open_full_room(api, enter_room, page, "in-vino-morte", 9, "bar-desktop")
    kit.snap(page, artifacts, "in-vino-morte-9-desktop", full_page=False)
    assert page.evaluate(OUT_OF_VIEW) == []
    assert page.eval_on_selector("#seats", "bar => bar.scrollWidth <= bar.clientWidth")
    # The check catches the old bar: one row, the seats past the bar's edge hidden.
    kit.add_css(page, OLD_BAR)
    hidden = page.evaluate(OUT_OF_VIEW)
    kit.snap(page, artifacts, "in-vino-morte-9-desktop-old-bar", full_page=False)
    assert 0 not in hidden and len(hidden) >= 3


@pytest.mark.parametrize("players", [3, 9])
def test_a_bots_name_is_shown_whole_at_every_width(
    api: Any, enter_room: Any, page: Any, artifacts: Path, players: int
) -> None:
    # "medium bot" (10 characters) was cut on the old one-line chips; it and a
    # 16-character name in seat 0 must be read whole.
    answer = make_room(
        api,
        game="in-vino-morte",
        players=players,
        seats=["open", *["medium"] * (players - 1)],
        options={},
        seed=f"names-{players}",
        host_name=LONG_NAME,
    )
    started = api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer))
    assert started.status_code < 300, started.text
    enter_room(page, answer)
    page.wait_for_selector(f"#seats li.seat-chip >> nth={players - 1}")
    page.wait_for_selector("#room[data-status=playing]")
    names = page.locator("#seats li.seat-chip .chip-name")
    assert names.all_text_contents() == [LONG_NAME, *["medium bot"] * (players - 1)]
    cut_before: dict[int, list[str]] = {}
    for size in WIDTHS:
        page.set_viewport_size(size)
        kit.snap(page, artifacts, f"names-{players}-{size['width']}", full_page=False)
        assert page.evaluate(CUT_NAMES) == [], size
        assert page.evaluate(OUT_OF_VIEW) == [], size
    # The check catches the old one-line names: "medium …" on a phone and, with
    # nine chips, at 768 px.
    take_off = kit.add_css(page, OLD_NAMES)
    for size in WIDTHS[:3]:
        page.set_viewport_size(size)
        cut_before[size["width"]] = page.evaluate(CUT_NAMES)
    take_off()
    # (In a 3-seat room the old grid's three chips shared 768 px widely enough.)
    cut_widths = {width for width, cut in cut_before.items() if "medium bot" in cut}
    assert cut_widths == ({360, 390, 768} if players == 9 else {360, 390}), cut_before
