"""Tea, Scones and Arsenic: the box by kind, the marked scones, every cup."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from apothecary.tui.views.base import (
    BOARD_WIDTH,
    YOU,
    GameView,
    Observation,
    fit,
    plural,
    seat_name,
)

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


def marked_notations(marked: list[Any]) -> list[str]:
    """The notation of each marked scone of the observation's box, in order:
    ``d3@1`` (kind 3, put back by seat 1), ``d3@1.2`` for the second alike; the
    game's own naming (rules.py, ``_marked_name``), as the web table reads it too."""
    names = []
    for slot, put_back in enumerate(marked):
        same = sum(
            1 for m in marked[:slot] if (m["kind"], m["by"]) == (put_back["kind"], put_back["by"])
        )
        names.append(f"d{put_back['kind']}@{put_back['by']}" + (f".{same + 1}" if same else ""))
    return names


class TeaSconesArsenicView(GameView):
    """Doses you have seen are numbers; the rest are ``?``."""

    def part_words(self, part: str, viewer: int | None) -> str:
        """``kind-2`` is the box's scones of kind 2 (``k2``)."""
        kind = part.removeprefix("kind-")
        if kind != part and kind.isdigit():
            return f"the scones of kind {kind} (k{kind}) in the box"
        return super().part_words(part, viewer)

    def part_marks(self, part: str, viewer: int | None) -> list[str]:
        """A kind's row of the box (``k2 ■■■···``)."""
        kind = part.removeprefix("kind-")
        if kind != part and kind.isdigit():
            return [rf"(?<![a-z0-9])k{kind} [■·]+ \d+ unmarked"]
        return super().part_marks(part, viewer)

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The box, then a line per seat with its cup (the hand is pinned below)."""
        out = Text()
        out.append(
            f"Lethal dose {obs['lethal_dose']}"
            + (", little spoon in play" if obs["little_spoon"] else "")
            + "\n\n"
        )
        box = obs["box"]
        out.append(f"Box: {plural(box['scones'], 'scone')}\n", style="bold")
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
        out.append("\n")
        for seat, info in enumerate(obs["seats"]):
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            if not info["alive"]:
                out.append(" ✝ dead ", style="dim strike")
            elif info["stopped"]:
                out.append(" ■ stop ")
            else:
                out.append(" eating ")
            out.append(f" {plural(info['scones'], 'scone'):>9}")
            if info["total"] is not None:
                out.append(f", dose {info['total']}", style="bold")
            # The rest of the seat goes on its second line, with the cup: the
            # first stays short enough never to be cut (fit wraps the cup).
            out.append(f"\n     cubes {'▪' * info['cubes'] or '-'}")
            if info["spoon"]:
                out.append(", spoon")
            if info["honour_turns_left"]:
                out.append(f", {plural(info['honour_turns_left'], 'honour turn')} owed")
            out.append("; cup: ")
            if not info["cup"]:
                out.append("empty")
            for eaten in info["cup"]:
                scone(out, eaten["kind"], eaten["dose"], show_dose=True)
                out.append(" ")
            out.append("\n")
        if obs.get("eat_off") is not None:
            out.append("\nEat-off between seats " + ", ".join(map(str, obs["eat_off"])) + "\n")
        out.append("\nkN scone of kind N, :D its dose (? unknown), ▪ sugar cube, ✝ dead\n")
        return fit(out, width)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Whose turn and what they decide."""
        mover = obs["to_move"]
        if mover is None:
            return "chance: the scone's dose"
        who = seat_name(mover, viewer)
        phase = obs["phase"]
        if phase == "decide":
            return f"{who}: eat the scone, or put it back"
        if phase == "spoon":
            return f"{who}: use the little spoon, or pass"
        stop = ", or stop eating" if obs.get("stopping_allowed") else ""
        return f"{who}: take a scone by kind or a marked one{stop}"

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """The viewer's death, with the dose that killed them."""
        if viewer is None:
            return None
        was, now = before["seats"][viewer], after["seats"][viewer]
        if was["alive"] and not now["alive"]:
            dose = "" if now["total"] is None else f" at dose {now['total']}"
            # Nobody plays on in a solo game, nor once this death ended the game.
            others = len(after["seats"]) > 1 and after.get("outcome") is None
            return f"You died{dose} (the lethal dose is {after['lethal_dose']})." + (
                " The others play on without you." if others else ""
            )
        return None

    def confirm(self, obs: Observation, notation: str) -> str | None:
        """Stopping and the little spoon cannot be taken back."""
        if notation == "stop":
            return "Stop eating? You cannot take another scone for the rest of the game."
        if notation == "spoon":
            return "Use the little spoon? You have only one for the whole game."
        return None

    def action_note(self, obs: Observation, notation: str) -> str | None:
        """A marked scone's dose when the viewer knows it (the game's label never
        says it: other seats may not know it); nothing for a dose unknown."""
        marked = obs["box"]["marked"]
        for put_back, name in zip(marked, marked_notations(marked), strict=True):
            if name == notation and put_back["dose"] is not None:
                return f"dose {put_back['dose']}"
        return None

    def pinned(self, obs: Observation, viewer: int | None) -> Text | None:
        """The viewer's own standing (the dose they have eaten against the
        lethal dose, their cubes: what every choice turns on), and the scone
        in hand when there is one."""
        out = Text()
        if viewer is not None:
            mine = obs["seats"][viewer]
            out.append("You: ", style="bold")
            out.append(f"dose {dose_text(mine['total'])}", style="bold")
            out.append(
                f" of a lethal {obs['lethal_dose']}, {plural(mine['scones'], 'scone')}, "
                f"{plural(mine['cubes'], 'cube')}" + (", spoon" if mine["spoon"] else "")
            )
        hand = obs.get("hand")
        if hand is not None:
            if out:
                out.append("\n")
            out.append(f"In the hand of {seat_name(obs['turn'], viewer)}: ", style="bold")
            scone(out, hand["kind"], hand["dose"], show_dose=True)
        return out or None

    def scores(self, obs: Observation) -> list[str]:
        """Scones eaten per seat (the final scores once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        seats = obs["seats"]
        return [plural(s["scones"], "scone") + ("" if s["alive"] else " ✝") for s in seats]
