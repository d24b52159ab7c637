"""Little Drop of Poison: the king and the peasants, the cards on each, your hand."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from apothecary.core.words import Words, say, seat
from apothecary.games.little_drop_of_poison.events import card_words as words
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonGame
from apothecary.tui.views.base import (
    BOARD_WIDTH,
    YOU,
    GameView,
    Observation,
    fit,
    listing,
    plural,
    seat_name,
    seat_names,
)

COLOUR_STYLES = {"b": "bold blue", "g": "bold green", "p": "bold magenta", "u": "bold"}
"""Cards are written in their notation (``b2`` two blue drops, ``g!`` green
antidote); the first letter picks a colour, but the code alone is enough."""

KIND_MARKS = {"rat": "R rat", "weasel": "W weasel", None: "? unknown"}


def card_words(counts: dict[str, int]) -> str:
    """Cards as plain codes, ``b1 b1 g+p1``, or ``no card``."""
    return " ".join(code for code, count in counts.items() for _ in range(count)) or "no card"


def target_name(on: str, viewer: int | None) -> str:
    """``the king`` or ``seat 2's peasant`` for a play's target."""
    return "the king" if on == "king" else f"the peasant of {seat_name(int(on), viewer)}"


def deaths_words(reveal: dict[str, Any], viewer: int | None) -> list[str]:
    """Each death of a reveal: ``the king died, poisoned by seat 2 and seat 0
    (you)`` (no brackets, which a name may hold already)."""
    return [
        f"{target_name(str(death['character']), viewer)} died"
        + (f", poisoned by {seat_names(death['killers'], viewer)}" if death["killers"] else "")
        for death in reveal["deaths"]
    ] or ["nobody died"]


def points_words(reveal: dict[str, Any], viewer: int | None) -> str:
    """A reveal's points: ``seat 0 (you) +3, seat 2 +1``, or ``none``."""
    return (
        ", ".join(f"{seat_name(seat, viewer)} +{p}" for seat, p in enumerate(reveal["points"]) if p)
        or "none"
    )


def cards(out: Text, counts: dict[str, int]) -> None:
    """Append cards as codes (``b1 b1 g+p1``) in their colour, or ``nothing``."""
    if not counts:
        out.append("nothing", style="dim")
        return
    first = True
    for code, count in counts.items():
        for _ in range(count):
            if not first:
                out.append(" ")
            out.append(code, style=COLOUR_STYLES.get(code[0], ""))
            first = False


class LittleDropOfPoisonView(GameView):
    """Face-down plays show as counts; your own as cards."""

    def part_words(self, part: str, viewer: int | None) -> str:
        """``character-king`` is the king, ``character-2`` seat 2's peasant."""
        if part.startswith("character-"):
            return target_name(part.removeprefix("character-"), viewer)
        return super().part_words(part, viewer)

    def part_marks(self, part: str, viewer: int | None) -> list[str]:
        """The king's line, or the name on a peasant's row."""
        on = part.removeprefix("character-")
        if on == "king":
            return [re.escape("♛ King:")]
        if on != part and on.isdigit():
            return super().part_marks(f"seat-{on}", viewer)
        return super().part_marks(part, viewer)

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The king, then a line per seat with its peasant, score and cards."""
        out = Text()
        out.append(
            f"Assassination round {obs['assassination_round']}, poison round "
            f"{obs['poison_round']}\nstarting seat {obs['starting_seat']}; "
            f"first to {plural(obs['target'], 'point')}\n\n"
        )
        table = obs["table"]
        king = table["king"]
        out.append("♛ King: ", style="bold")
        out.append(KIND_MARKS.get(obs["king"], "?"))
        out.append("" if obs["king_alive"] else " ✝ dead", style="dim")
        out.append(f", dies at {obs['king_lethal']} drops of a colour\n   on it: ")
        cards(out, king["cards"])
        if king["blocked"]:
            out.append(f"  [antidote: {', '.join(king['blocked'])}]")
        out.append("\n\n")
        out.append(f"Peasants (die at {obs['peasant_lethal']} drops of a colour):\n", style="bold")
        for info in obs["seats"]:
            seat = info["seat"]
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            out.append(f" {KIND_MARKS.get(info['kind'], '?'):<9}")
            out.append(" ✝ dead" if not info["alive"] else "", style="dim")
            out.append(f"  {plural(info['score'], 'pt')}")
            # The second line holds the rest; fit wraps it under itself.
            out.append(f"\n     +{info['round_points']} this round, ")
            out.append(f"{info['hand']} in hand")
            if info["played_on"] is not None:
                out.append(
                    f", played {info['played']} on {target_name(str(info['played_on']), viewer)}"
                )
            here = table[str(seat)]
            out.append("; on it: ")
            cards(out, here["cards"])
            if here["blocked"]:
                out.append(f"  [antidote: {', '.join(here['blocked'])}]")
            out.append("\n")
        out.append(f"\nDeck {obs['deck']} cards face down; discard pile {obs['discard_count']}: ")
        cards(out, obs.get("discard") or {})
        out.append("\n")
        reveal = obs.get("last_reveal")
        if reveal:
            out.append(
                f"\nReveal of round {reveal['assassination_round']}.{reveal['poison_round']}:\n",
                style="bold",
            )
            for play in reveal["plays"]:
                out.append(
                    f"  {seat_name(play['seat'], viewer)} on "
                    f"{target_name(str(play['on']), viewer)}: "
                )
                cards(out, play["cards"])
                out.append("\n")
            out.append(f"  {listing(deaths_words(reveal, viewer))}\n")
            out.append(f"  points: {points_words(reveal, viewer)}\n")
        out.append(
            "\nbN N blue drops, gN green, pN purple, g+pN both;\n"
            "X! antidote of colour X, u! universal antidote\n"
        )
        return fit(out, width)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who chooses a character, adds cards, or passes."""
        mover = obs["to_move"]
        if mover is None:
            return f"chance: dealing ({obs['phase']})"
        who = seat_name(mover, viewer)
        info = obs["seats"][mover]
        if info["played_on"] is None:
            return f"{who}: choose whom to play on, the king or a peasant (or pass with no cards)"
        return f"{who}: add a card on {target_name(str(info['played_on']), viewer)}, or done"

    def pinned(self, obs: Observation, viewer: int | None) -> Text | None:
        """The viewer's hand and face-down play, which must never scroll away."""
        if "hand" not in obs:
            return None
        out = Text("Your hand: ", style="bold")
        cards(out, obs["hand"])
        if obs.get("my_play"):
            out.append("   Your face-down play: ", style="bold")
            cards(out, obs["my_play"])
        return out

    def why_illegal(self, obs: Observation, text: str) -> str | None:
        """A card the mover does not hold, or added before choosing whom to
        play on; a second choice of target. Only from the mover's own hand."""
        if obs.get("phase") != "play" or "hand" not in obs:
            return None
        move = " ".join(text.lower().split()).removeprefix("+").strip()
        info = obs["seats"][obs["seat"]]
        if move.startswith(("on", "@", "k")) or move.isdigit():
            if info["played_on"] is not None:
                on = target_name(str(info["played_on"]), obs["seat"])
                return f"you have chosen to play on {on} this round already"
            return None
        if move == "pass" and obs["hand"]:
            return "only a seat with no card may pass; with cards, choose whom to play on"
        if move in ("done", "pass"):
            return None
        if info["played_on"] is None:
            return "choose whom to play on first (on king, or on a seat's number)"
        if not obs["hand"].get(move):
            return f"you hold no {move} (your hand: {card_words(obs['hand'])})"
        return None

    def aftermath(
        self, before: Observation, after: Observation, viewer: int | None
    ) -> list[str | Words]:
        """A reveal card by card, who played what on whom (the game's event says
        who died), with the seats as data, so the log marks the viewer's own."""
        reveal = after.get("last_reveal")
        if not reveal or reveal == before.get("last_reveal"):
            return []
        return [
            say(
                "{who} had played {cards} on {target}",
                who=seat(play["seat"]),
                cards=self._in_words(play["cards"]),
                target="the king"
                if str(play["on"]) == "king"
                else say("the peasant of {owner}", owner=seat(int(play["on"]))),
            )
            for play in reveal["plays"]
        ]

    def _in_words(self, counts: dict[str, int]) -> str:
        """Cards for a sentence away from the board's legend, each in words with
        its code: ``a blue poison of 1 drop (b1) and a blue antidote (b!)``.
        The words say exactly what the code does, so nothing more is shown."""
        game = self.game
        deck = game.deck.types if isinstance(game, LittleDropOfPoisonGame) else ()
        types = {card.code: card for card in deck}
        return listing(
            [
                f"{words(types[code])} ({code})" if code in types else code
                for code, count in counts.items()
                for _ in range(count)
            ],
            "no card",
        )

    def _reveal(
        self,
        before: Observation,
        after: Observation,
        viewer: int | None,
    ) -> list[str]:
        reveal = after.get("last_reveal")
        if not reveal or reveal == before.get("last_reveal"):
            return []
        lines = [
            f"{seat_name(play['seat'], viewer)} had played {self._in_words(play['cards'])} "
            f"on {target_name(str(play['on']), viewer)}"
            for play in reveal["plays"]
        ]
        lines += deaths_words(reveal, viewer)
        lines.append(f"points: {points_words(reveal, viewer)}")
        return lines

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """Each reveal, as its own milestone."""
        lines = self._reveal(before, after, viewer)
        if not lines:
            return None
        reveal = after["last_reveal"]
        where = f"{reveal['assassination_round']}.{reveal['poison_round']}"
        return f"Reveal of round {where}: " + "; ".join(lines) + "."
