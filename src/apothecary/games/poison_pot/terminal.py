"""Poison Pot: the hex board, each circle named, with the piece on it."""

from __future__ import annotations

import re
from itertools import groupby

from rich.text import Text

from apothecary.i18n.terminal import T_, _
from apothecary.tui.views.base import BOARD_WIDTH, YOU, GameView, Observation, seat_name

# Letter first, colour second: R/B/Y read the same in monochrome.
PIECES: dict[str, tuple[str, str]] = {
    "": ("·", "dim"),
    "red": ("R", "bold red"),
    "blue": ("B", "bold blue"),
    "yellow": ("Y", "bold yellow"),
    "pot": ("@", "bold magenta"),
}

WORDS = {"red": T_("red"), "blue": T_("blue"), "yellow": T_("yellow"), "pot": T_("pot")}
"""A piece's colour in words (said with ``_`` where it is drawn)."""


def word(piece: str) -> str:
    """A piece's colour (``red``) in the chosen language."""
    return _(WORDS[piece]) if piece in WORDS else piece


class PoisonPotView(GameView):
    """The board as one hexagon of named circles."""

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """One hexagon, each circle as its name and what stands on it (``d4R``),
        the last placement in ``[ ]`` and the end of the last slide in ``( )``.
        The hexagon keeps its shape at any ``width``: it fits the smallest board."""
        names: list[str] = obs["circles"]
        pieces: list[str] = obs["board"]
        index = {name: i for i, name in enumerate(names)}
        rows = [list(group) for _row, group in groupby(names, key=lambda name: name[0])]
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
        for piece, (mark, style) in PIECES.items():
            if piece:
                out.append(mark, style=style)
                out.append(f" {word(piece)}  ")
        out.append("· " + _("empty") + "\n" + _("[d4R] last placed  (d4R) last slid to") + "\n")
        colours: list[str] = obs["colours"]
        for seat, colour in enumerate(colours):
            mark, style = PIECES[colour]
            out.append(seat_name(seat, viewer), style=YOU if seat == viewer else "")
            out.append(" " + _("plays") + " ")
            out.append(f"{mark} {word(colour)}", style=style)
            out.append("\n")
        if obs.get("neutral"):
            mark, style = PIECES[obs["neutral"]]
            out.append(f"{mark} {word(obs['neutral'])}", style=style)
            out.append(" " + _("is neutral") + "\n")
        remaining = ", ".join(
            f"{word(colour)} {count}" for colour, count in obs["remaining"].items()
        )
        out.append(
            _("Face down: {remaining}; placed {placed}", remaining=remaining, placed=obs["placed"])
            + "\n"
        )
        if obs.get("last_slide"):
            slide = f"{obs['last_slide'][0]}-{obs['last_slide'][1]}"
            out.append(_("Last slide: {slide}", slide=slide) + "\n")
        return out

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who slides, draws or places, in the game's words (the app adds
        examples legal in the position)."""
        mover = obs["to_move"]
        who = f"{seat_name(mover, viewer)} ({word(obs['colours'][mover])})"
        if obs["phase"] == "slide":
            return _("{who} slides a piece in a straight line", who=who)
        if obs["phase"] == "draw":
            return _("{who} draws a cauldron", who=who)
        return _(
            "{who} places the {colour} cauldron on an empty circle",
            who=who,
            colour=word(obs["drawn"]),
        )

    def why_illegal(self, obs: Observation, text: str) -> str | None:
        """What stands in the way of a slide or a placement on this board."""
        names: list[str] = obs["circles"]
        board: list[str] = obs["board"]
        words = text.strip().lower()
        slide = re.fullmatch(r"([a-z]\d+)\s*-\s*([a-z]\d+)", words)
        if slide:
            if obs["phase"] != "slide":
                return _(
                    "it is time to place the {colour} cauldron, not to slide",
                    colour=word(obs["drawn"]),
                )
            origin, target = slide.groups()
            for name in (origin, target):
                if name not in names:
                    return _("there is no circle {name} on this board", name=name)
            if not board[names.index(origin)]:
                return _("there is no piece on {circle}", circle=origin)
            if board[names.index(target)]:
                return _(
                    "{circle} is taken by the {piece}",
                    circle=target,
                    piece=word(board[names.index(target)]),
                )
            return _(
                "a piece slides in a straight line through empty circles only, "
                "and {origin} to {target} is not such a line",
                origin=origin,
                target=target,
            )
        if words in names:
            if obs["phase"] != "place":
                return _("it is time to slide a piece; you place a cauldron after drawing it")
            if board[names.index(words)]:
                return _(
                    "{circle} is taken by the {piece}",
                    circle=words,
                    piece=word(board[names.index(words)]),
                )
        return None

    def part_words(self, part: str, viewer: int | None) -> str:
        """``circle-c2`` is ``circle c2``; the rest as every view names them."""
        if part.startswith("circle-"):
            return _("circle {name}", name=part.removeprefix("circle-"))
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
            f"{seat_name(seat, viewer)} ({word(colour)}) {size}"
            for seat, (colour, size) in enumerate(sizes)
        )
        return _(
            "Final groups (the largest one of a colour with no cauldron by the pot): {groups}.",
            groups=groups,
        )

    def scores(self, obs: Observation) -> list[str]:
        """Unpoisoned group size per seat (the final score once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        return [_("group {size}", size=size) for size in obs["groups"]]
