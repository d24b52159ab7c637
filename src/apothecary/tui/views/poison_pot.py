"""Poison Pot: the hex board twice, circle names beside the pieces on them."""

from __future__ import annotations

from itertools import groupby

from rich.text import Text

from apothecary.tui.views.base import YOU, GameView, Observation, seat_name

# Letter first, colour second: R/B/Y read the same in monochrome.
PIECES: dict[str, tuple[str, str]] = {
    "": ("·", "dim"),
    "red": ("R", "bold red"),
    "blue": ("B", "bold blue"),
    "yellow": ("Y", "bold yellow"),
    "pot": ("@", "bold magenta"),
}


class PoisonPotView(GameView):
    """The board as two hexagons: names on the left, pieces on the right."""

    def board(self, obs: Observation, viewer: int | None) -> Text:
        """Names and pieces side by side, the last slide and placement marked."""
        names: list[str] = obs["circles"]
        pieces: list[str] = obs["board"]
        index = {name: i for i, name in enumerate(names)}
        rows = [list(group) for _, group in groupby(names, key=lambda name: name[0])]
        widest = max(len(row) for row in rows)
        moved_to = obs["last_slide"][1] if obs.get("last_slide") else None
        placed = obs.get("last_placement")
        out = Text()
        for row in rows:
            indent = (widest - len(row)) * 2
            out.append(" " * indent)
            for name in row:
                out.append(f"{name:^3} ", style="dim")
            out.append(" " * (indent + 6))
            for name in row:
                mark, style = PIECES[pieces[index[name]]]
                left, right = " ", " "
                if name == placed:
                    left, right = "[", "]"
                elif name == moved_to:
                    left, right = "(", ")"
                out.append(left)
                out.append(mark, style=style)
                out.append(right + " ")
            out.append("\n")
        out.append("\n")
        for word, (mark, style) in PIECES.items():
            if word:
                out.append(mark, style=style)
                out.append(f" {word}  ")
        out.append("· empty  [x] last placed  (x) last slid to\n")
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

    def status(self, obs: Observation, viewer: int | None) -> str:
        """Who slides, draws or places, in the game's words."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return f"Game over: {outcome['reason']}"
        mover = obs["to_move"]
        who = f"{seat_name(mover, viewer)} ({obs['colours'][mover]})"
        if obs["phase"] == "slide":
            return f"{who} slides a piece in a straight line, e.g. d4-d1"
        if obs["phase"] == "draw":
            return f"{who} draws a cauldron"
        return f"{who} places the {obs['drawn']} cauldron on an empty circle, e.g. c3"

    def scores(self, obs: Observation) -> list[str]:
        """Unpoisoned group size per seat (the final score once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        return [f"group {size}" for size in obs["groups"]]
