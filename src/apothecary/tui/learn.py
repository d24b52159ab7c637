"""The terminal's learn-to-play coach (``apothecary play GAME --learn``).

The script and what the coach says at each step come from
:mod:`apothecary.core.tutorial` (the same data the browser's coach draws);
this module only lays them out as text for the game screen's coach panel.
Its own words (the panel's title, the result's offer...) are kept together
in :data:`TEXT`, so the terminal's message catalogs can take them over in one
place; the coach's own texts are the game's script data, in English.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from apothecary.tui.views.base import GameView

TEXT = {
    "title": "Coach — step {step} of {steps}",
    "look": "Look at: {part}",
    "wrong": "Coach: {why}",
    "your_move": "◀ the coach's move",
    "intro_go_on": "Enter: start the lesson",
    "done_title": "Lesson complete",
    "done_keys": (
        "n starts a real game against easy bots, m goes to the menu, "
        "ctrl+s saves the record, q quits."
    ),
    "real_game": "Real game (n)",
    "real_game_key": "Real game vs easy bots",
}
"""Every word of the terminal's tutorial that is not the script's, by key."""

SHOWN = 4
"""The most lines of what happened since the person's last move the panel keeps
(a run of dealt cards says more; the oldest give way)."""

POINTED = "bold black on yellow"
"""How the board marks the part the coach points at (the "look at" line names
it in words too, for a terminal without colour)."""


def text(key: str, **values: Any) -> str:
    """The terminal tutorial's words ``key`` with ``values`` put in."""
    return TEXT[key].format(**values)


def since_your_move(coach: dict[str, Any], actors: list[int], seat: int) -> list[dict[str, Any]]:
    """The coach's lines for the steps played since the person's last move
    (``actors``: who played each step so far), the last :data:`SHOWN` of them."""
    last = max((i for i, actor in enumerate(actors) if actor == seat), default=-1)
    lines: list[dict[str, Any]] = [line for line in coach["lines"] if line["step"] > last]
    return lines[-SHOWN:]


def pointed_part(coach: dict[str, Any], lines: list[dict[str, Any]]) -> str:
    """The part the panel points at: the person's step's, else that of the
    last line when it is the step just played (as the browser's coach does)."""
    now = coach.get("now")
    if now is not None:
        return str((now.get("part") or {}).get("name") or "")
    if lines and lines[-1]["step"] == coach["step"] - 1 and lines[-1]["part"]:
        return str(lines[-1]["part"]["name"])
    return ""


def panel(
    coach: dict[str, Any],
    actors: list[int],
    view: GameView,
    viewer: int | None,
    wrong: str | None = None,
) -> Text:
    """The coach panel: progress, what just happened and why, what to do now,
    where to look, and the explanation of a wrong move."""
    out = Text()
    step = min(int(coach["step"]) + 1, int(coach["steps"]))
    out.append(text("title", step=step, steps=coach["steps"]) + "\n", style="bold underline")
    lines = since_your_move(coach, actors, int(coach["seat"]))
    for line in lines:
        out.append(f"• {line['text']}\n")
    now = coach.get("now")
    if now is not None:
        out.append(f"▶ {now['text']}\n", style="bold")
    if coach["finished"]:
        out.append(f"{coach['outro']}\n", style="bold")
    part = pointed_part(coach, lines)
    if part:
        out.append(text("look", part=view.part_words(part, viewer)) + "\n", style="bold yellow")
    if wrong:
        out.append(text("wrong", why=wrong) + "\n", style="bold red")
    return out


def point_at(board: Text, view: GameView, part: str, viewer: int | None) -> Text:
    """``board`` with the text that shows ``part`` highlighted (unchanged when
    the view cannot find it: the panel still names it)."""
    if not part:
        return board
    for pattern in view.part_marks(part, viewer):
        board.highlight_regex(re.compile(pattern), POINTED)
    return board


__all__ = [
    "POINTED",
    "SHOWN",
    "TEXT",
    "panel",
    "point_at",
    "pointed_part",
    "since_your_move",
    "text",
]
