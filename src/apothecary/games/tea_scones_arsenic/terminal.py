"""Tea, Scones and Arsenic: the box by kind, the marked scones, every cup."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from apothecary.i18n.terminal import _, _n
from apothecary.tui.views.base import (
    BOARD_WIDTH,
    YOU,
    GameView,
    Observation,
    fit,
    seat_name,
)


def scones(count: int) -> str:
    """``1 scone``, ``2 scones`` in the chosen language."""
    return _n("{count} scone", "{count} scones", count)


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
            return _("the scones of kind {kind} (k{kind}) in the box", kind=kind)
        return super().part_words(part, viewer)

    def part_marks(self, part: str, viewer: int | None) -> list[str]:
        """A kind's row of the box (``k2 ■■■···``)."""
        kind = part.removeprefix("kind-")
        if kind != part and kind.isdigit():
            unmarked = re.escape(_("{count} unmarked", count=0)).replace("0", r"\d+", 1)
            return [rf"(?<![a-z0-9])k{kind} [■·]+ {unmarked}"]
        return super().part_marks(part, viewer)

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The box, then a line per seat with its cup (the hand is pinned below)."""
        out = Text()
        out.append(
            _("Lethal dose {dose}", dose=obs["lethal_dose"])
            + (_(", little spoon in play") if obs["little_spoon"] else "")
            + "\n\n"
        )
        box = obs["box"]
        out.append(_("Box: {scones}", scones=scones(box["scones"])) + "\n", style="bold")
        for kind, count in enumerate(box["unmarked"], start=1):
            out.append("  ")
            scone(out, kind)
            unmarked = _("{count} unmarked", count=count)
            out.append(f" {'■' * count}{'·' * (6 - count)} {unmarked}\n")
        for slot, marked in enumerate(box["marked"], start=1):
            out.append(f"  m{slot} ")
            scone(out, marked["kind"])
            said = _(
                "marked, put back by seat {seat}, dose {dose}",
                seat=marked["by"],
                dose=dose_text(marked["dose"]),
            )
            out.append(f" {said}\n")
        out.append("\n")
        for seat, info in enumerate(obs["seats"]):
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            if not info["alive"]:
                out.append(" ✝ " + _("dead") + " ", style="dim strike")
            elif info["stopped"]:
                out.append(" ■ " + _("stop") + " ")
            else:
                out.append(" " + _("eating") + " ")
            out.append(f" {scones(info['scones']):>9}")
            if info["total"] is not None:
                out.append(", " + _("dose {dose}", dose=info["total"]), style="bold")
            # The rest of the seat goes on its second line, with the cup: the
            # first stays short enough never to be cut (fit wraps the cup).
            out.append("\n     " + _("cubes {cubes}", cubes="▪" * info["cubes"] or "-"))
            if info["spoon"]:
                out.append(", " + _("spoon"))
            if info["honour_turns_left"]:
                owed = _n(
                    "{count} honour turn owed",
                    "{count} honour turns owed",
                    info["honour_turns_left"],
                )
                out.append(f", {owed}")
            out.append("; " + _("cup:") + " ")
            if not info["cup"]:
                out.append(_("empty"))
            for eaten in info["cup"]:
                scone(out, eaten["kind"], eaten["dose"], show_dose=True)
                out.append(" ")
            out.append("\n")
        if obs.get("eat_off") is not None:
            seats = ", ".join(map(str, obs["eat_off"]))
            out.append("\n" + _("Eat-off between seats {seats}", seats=seats) + "\n")
        out.append(
            "\n" + _("kN scone of kind N, :D its dose (? unknown), ▪ sugar cube, ✝ dead") + "\n"
        )
        return fit(out, width)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Whose turn and what they decide."""
        mover = obs["to_move"]
        if mover is None:
            return _("chance: the scone's dose")
        who = seat_name(mover, viewer)
        phase = obs["phase"]
        if phase == "decide":
            return _("{who}: eat the scone, or put it back", who=who)
        if phase == "spoon":
            return _("{who}: use the little spoon, or pass", who=who)
        if obs.get("stopping_allowed"):
            return _("{who}: take a scone by kind or a marked one, or stop eating", who=who)
        return _("{who}: take a scone by kind or a marked one", who=who)

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """The viewer's death, with the dose that killed them."""
        if viewer is None:
            return None
        was, now = before["seats"][viewer], after["seats"][viewer]
        if was["alive"] and not now["alive"]:
            lethal = after["lethal_dose"]
            if now["total"] is None:
                said = _("You died (the lethal dose is {lethal}).", lethal=lethal)
            else:
                said = _(
                    "You died at dose {dose} (the lethal dose is {lethal}).",
                    dose=now["total"],
                    lethal=lethal,
                )
            # Nobody plays on in a solo game, nor once this death ended the game.
            others = len(after["seats"]) > 1 and after.get("outcome") is None
            return said + (" " + _("The others play on without you.") if others else "")
        return None

    def confirm(self, obs: Observation, notation: str) -> str | None:
        """Stopping and the little spoon cannot be taken back."""
        if notation == "stop":
            return _("Stop eating? You cannot take another scone for the rest of the game.")
        if notation == "spoon":
            return _("Use the little spoon? You have only one for the whole game.")
        return None

    def action_note(self, obs: Observation, notation: str) -> str | None:
        """A marked scone's dose when the viewer knows it (the game's label never
        says it: other seats may not know it); nothing for a dose unknown."""
        marked = obs["box"]["marked"]
        for put_back, name in zip(marked, marked_notations(marked), strict=True):
            if name == notation and put_back["dose"] is not None:
                return _("dose {dose}", dose=put_back["dose"])
        return None

    def pinned(self, obs: Observation, viewer: int | None) -> Text | None:
        """The viewer's own standing (the dose they have eaten against the
        lethal dose, their cubes: what every choice turns on), and the scone
        in hand when there is one."""
        out = Text()
        if viewer is not None:
            mine = obs["seats"][viewer]
            out.append(_("You:") + " ", style="bold")
            out.append(_("dose {dose}", dose=dose_text(mine["total"])), style="bold")
            out.append(
                " "
                + _(
                    "of a lethal {lethal}, {scones}, {cubes}",
                    lethal=obs["lethal_dose"],
                    scones=scones(mine["scones"]),
                    cubes=_n("{count} cube", "{count} cubes", mine["cubes"]),
                )
                + (", " + _("spoon") if mine["spoon"] else "")
            )
        hand = obs.get("hand")
        if hand is not None:
            if out:
                out.append("\n")
            out.append(
                _("In the hand of {seat}:", seat=seat_name(obs["turn"], viewer)) + " ", style="bold"
            )
            scone(out, hand["kind"], hand["dose"], show_dose=True)
        return out or None

    def scores(self, obs: Observation) -> list[str]:
        """Scones eaten per seat (the final scores once over)."""
        outcome = obs.get("outcome")
        if outcome is not None:
            return [f"{score:g}" for score in outcome["scores"]]
        seats = obs["seats"]
        return [scones(s["scones"]) + ("" if s["alive"] else " ✝") for s in seats]
