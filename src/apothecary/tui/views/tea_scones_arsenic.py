"""Tea, Scones and Arsenic: the box by kind, the marked scones, every cup."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from apothecary.tui.views.base import YOU, GameView, Observation, seat_name

KIND_STYLES = ("bold red", "bold green", "bold yellow", "bold blue", "bold magenta", "bold cyan")
"""A colour per scone kind 1..6; the kind's number is always printed too."""


def dose_text(dose: Any) -> str:
    """A dose you know as its number, one you do not as ``?``."""
    return "?" if dose is None else str(dose)


def scone(out: Text, kind: int, dose: Any = None, show_dose: bool = False) -> None:
    """Append one scone as ``k3`` (or ``k3:1`` with its dose) in its kind's colour."""
    out.append(f"k{kind}", style=KIND_STYLES[(kind - 1) % len(KIND_STYLES)])
    if show_dose:
        out.append(f":{dose_text(dose)}", style="bold red" if dose else "")


class TeaSconesArsenicView(GameView):
    """Doses you have seen are numbers; the rest are ``?``."""

    def board(self, obs: Observation, viewer: int | None) -> Text:
        """The box, the hand, then a line per seat with its cup."""
        out = Text()
        out.append(
            f"Lethal dose {obs['lethal_dose']}"
            + (", little spoon in play" if obs["little_spoon"] else "")
            + "\n\n"
        )
        box = obs["box"]
        out.append(f"Box: {box['scones']} scones\n", style="bold")
        for kind, count in enumerate(box["unmarked"], start=1):
            out.append("  ")
            scone(out, kind)
            out.append(f" {'■' * count}{'·' * (6 - count)} {count} unmarked\n")
        for slot, marked in enumerate(box["marked"], start=1):
            out.append(f"  m{slot} ")
            scone(out, marked["kind"])
            out.append(
                f" marked, put back by seat {marked['by']}, dose {dose_text(marked['dose'])}\n"
            )
        hand = obs.get("hand")
        if hand is not None:
            out.append(f"\nIn the hand of seat {obs['turn']}: ")
            scone(out, hand["kind"], hand["dose"], show_dose=True)
            out.append("\n")
        out.append("\n")
        for seat, info in enumerate(obs["seats"]):
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            if not info["alive"]:
                out.append(" ✝ dead   ", style="dim strike")
            elif info["stopped"]:
                out.append(" ■ stopped")
            else:
                out.append(" eating   ")
            out.append(f" {info['scones']:>2} scones")
            if info["total"] is not None:
                out.append(f", dose {info['total']}", style="bold")
            out.append(f", cubes {'▪' * info['cubes'] or '-'}")
            if info["spoon"]:
                out.append(", spoon")
            if info["honour_turns_left"]:
                out.append(f", {info['honour_turns_left']} honour turns owed")
            out.append("\n     cup: ")
            if not info["cup"]:
                out.append("empty")
            for eaten in info["cup"]:
                scone(out, eaten["kind"], eaten["dose"], show_dose=True)
                out.append(" ")
            out.append("\n")
        if obs.get("eat_off") is not None:
            out.append("\nEat-off between seats " + ", ".join(map(str, obs["eat_off"])) + "\n")
        out.append("\nkN scone of kind N, :D its dose (? unknown), ▪ sugar cube, ✝ dead\n")
        return out

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Whose turn and what they decide."""
        mover = obs["to_move"]
        if mover is None:
            return "chance: the scone's dose"
        who = seat_name(mover, viewer)
        phase = obs["phase"]
        if phase == "decide":
            return f"{who}: eat the scone, or put it back (back / back+shuffle)"
        if phase == "spoon":
            return f"{who}: use the little spoon, or pass"
        stop = ", or stop" if obs.get("stopping_allowed") else ""
        return f"{who}: draw a scone by kind (d1..d6) or a marked one (dK@S){stop}"

    def scores(self, obs: Observation) -> list[str]:
        """Scones eaten per seat (the final scores once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        return [
            f"{info['scones']} scones" + ("" if info["alive"] else " ✝") for info in obs["seats"]
        ]
