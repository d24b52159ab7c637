"""Poison Pot: the hex board, each circle named, with the piece on it."""

from __future__ import annotations

import re
from itertools import groupby

from rich.text import Text

from apothecary.tui.views.base import BOARD_WIDTH, YOU, GameView, Observation, seat_name

# Letter first, colour second: R/B/Y read the same in monochrome.
PIECES: dict[str, tuple[str, str]] = {
    "": ("·", "dim"),
    "red": ("R", "bold red"),
    "blue": ("B", "bold blue"),
    "yellow": ("Y", "bold yellow"),
    "pot": ("@", "bold magenta"),
}


class PoisonPotView(GameView):
    """The board as one hexagon of named circles."""

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """One hexagon, each circle as its name and what stands on it (``d4R``),
        the last placement in ``[ ]`` and the end of the last slide in ``( )``.
        The hexagon keeps its shape at any ``width``: it fits the smallest board."""
        names: list[str] = obs["circles"]
        pieces: list[str] = obs["board"]
        index = {name: i for i, name in enumerate(names)}
        rows = [list(group) for _, group in groupby(names, key=lambda name: name[0])]
        widest = max(len(row) for row in rows)
        moved_to = obs["last_slide"][1] if obs.get("last_slide") else None
        placed = obs.get("last_placement")
        out = Text()
        for row in rows:
            # Each circle takes 6 columns; a shorter row starts half a circle in.
            out.append(" " * ((widest - len(row)) * 3))
            for name in row:
                mark, style = PIECES[pieces[index[name]]]
                left, right = " ", " "
                if name == placed:
                    left, right = "[", "]"
                elif name == moved_to:
                    left, right = "(", ")"
                out.append(left, style="bold")
                out.append(name, style="dim")
                out.append(mark, style=style)
                out.append(right + " ", style="bold")
            out.append("\n")
        out.append("\n")
        for word, (mark, style) in PIECES.items():
            if word:
                out.append(mark, style=style)
                out.append(f" {word}  ")
        out.append("· empty\n[d4R] last placed  (d4R) last slid to\n")
        colours: list[str] = obs["colours"]
        for seat, colour in enumerate(colours):
            mark, style = PIECES[colour]
            out.append(seat_name(seat, viewer), style=YOU if seat == viewer else "")
            out.append(" plays ")
            out.append(f"{mark} {colour}", style=style)
            out.append("\n")
        if obs.get("neutral"):
            mark, style = PIECES[obs["neutral"]]
            out.append(f"{mark} {obs['neutral']}", style=style)
            out.append(" is neutral\n")
        remaining = ", ".join(f"{colour} {count}" for colour, count in obs["remaining"].items())
        out.append(f"Face down: {remaining}; placed {obs['placed']}\n")
        if obs.get("last_slide"):
            out.append(f"Last slide: {obs['last_slide'][0]}-{obs['last_slide'][1]}\n")
        return out

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who slides, draws or places, in the game's words (the app adds
        examples legal in the position)."""
        mover = obs["to_move"]
        who = f"{seat_name(mover, viewer)} ({obs['colours'][mover]})"
        if obs["phase"] == "slide":
            return f"{who} slides a piece in a straight line"
        if obs["phase"] == "draw":
            return f"{who} draws a cauldron"
        return f"{who} places the {obs['drawn']} cauldron on an empty circle"

    def why_illegal(self, obs: Observation, text: str) -> str | None:
        """What stands in the way of a slide or a placement on this board."""
        names: list[str] = obs["circles"]
        board: list[str] = obs["board"]
        words = text.strip().lower()
        slide = re.fullmatch(r"([a-z]\d+)\s*-\s*([a-z]\d+)", words)
        if slide:
            if obs["phase"] != "slide":
                return f"it is time to place the {obs['drawn']} cauldron, not to slide"
            origin, target = slide.groups()
            for name in (origin, target):
                if name not in names:
                    return f"there is no circle {name} on this board"
            if not board[names.index(origin)]:
                return f"there is no piece on {origin}"
            if board[names.index(target)]:
                return f"{target} is taken by the {board[names.index(target)]}"
            return (
                f"a piece slides in a straight line through empty circles only, "
                f"and {origin} to {target} is not such a line"
            )
        if words in names:
            if obs["phase"] != "place":
                return "it is time to slide a piece; you place a cauldron after drawing it"
            if board[names.index(words)]:
                return f"{words} is taken by the {board[names.index(words)]}"
        return None

    def part_words(self, part: str, viewer: int | None) -> str:
        """``circle-c2`` is ``circle c2``; the rest as every view names them."""
        if part.startswith("circle-"):
            return f"circle {part.removeprefix('circle-')}"
        return super().part_words(part, viewer)

    def part_marks(self, part: str, viewer: int | None) -> list[str]:
        """A circle's name on the board (``c2`` of ``c2R``, not of ``c21``)."""
        if part.startswith("circle-"):
            return [rf"(?<![a-z0-9]){re.escape(part.removeprefix('circle-'))}(?!\d)"]
        return super().part_marks(part, viewer)

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """At the end, every colour's largest unpoisoned group."""
        if before.get("outcome") is not None or after.get("outcome") is None:
            return None
        sizes = zip(after["colours"], after["groups"], strict=True)
        groups = ", ".join(
            f"{seat_name(seat, viewer)} ({colour}) {size}"
            for seat, (colour, size) in enumerate(sizes)
        )
        return f"Final groups (the largest one of a colour with no cauldron by the pot): {groups}."

    def scores(self, obs: Observation) -> list[str]:
        """Unpoisoned group size per seat (the final score once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        return [f"group {size}" for size in obs["groups"]]
