"""Little Drop of Poison: the king and the peasants, the cards on each, your hand."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from apothecary.core.words import Words, say, seat
from apothecary.games.little_drop_of_poison.events import card_words as words
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonGame
from apothecary.i18n.terminal import T_, _, _n, game_words
from apothecary.tui.views.base import (
    BOARD_WIDTH,
    YOU,
    GameView,
    Observation,
    fit,
    listing,
    seat_name,
    seat_names,
)

COLOUR_STYLES = {"b": "bold blue", "g": "bold green", "p": "bold magenta", "u": "bold"}
"""Cards are written in their notation (``b2`` two blue drops, ``g!`` green
antidote); the first letter picks a colour, but the code alone is enough."""

KIND_MARKS = {"rat": T_("R rat"), "weasel": T_("W weasel"), None: T_("? unknown")}
"""A character's kind, its letter first (said with ``_`` where it is drawn)."""


def kind_mark(kind: str | None) -> str:
    """A character's kind with its letter, in the chosen language."""
    return _(KIND_MARKS[kind]) if kind in KIND_MARKS else "?"


def king_mark() -> str:
    """The king's line begins with this (a tutorial's coach points at it)."""
    return "♛ " + _("King:")


def card_words(counts: dict[str, int]) -> str:
    """Cards as plain codes, ``b1 b1 g+p1``, or ``no card``."""
    return " ".join(code for code, count in counts.items() for _copy in range(count)) or _(
        "no card"
    )


def _said(words: Words) -> str:
    """The game's words (no seat in them) in the chosen language."""
    return game_words(words.message(), words.runs(), str)


def target_name(on: str, viewer: int | None) -> str:
    """``the king`` or ``seat 2's peasant`` for a play's target."""
    if on == "king":
        king = say("the king")  # the game's own words, in the chosen language
        return game_words(king.message(), king.runs(), str)
    return _("the peasant of {seat}", seat=seat_name(int(on), viewer))


def played_on(on: str, viewer: int | None) -> str:
    """``on the king`` or ``on the peasant of seat 2``: where cards go, as one
    phrase (a language may put the target in another case after its preposition)."""
    if on == "king":
        return _("on the king")
    return _("on the peasant of {seat}", seat=seat_name(int(on), viewer))


def deaths_words(reveal: dict[str, Any], viewer: int | None) -> list[str]:
    """Each death of a reveal: ``the king died, poisoned by seat 2 and seat 0
    (you)`` (no brackets, which a name may hold already)."""
    return [
        _(
            "{who} died, poisoned by {killers}",
            who=target_name(str(death["character"]), viewer),
            killers=seat_names(death["killers"], viewer),
        )
        if death["killers"]
        else _("{who} died", who=target_name(str(death["character"]), viewer))
        for death in reveal["deaths"]
    ] or [_("nobody died")]


def points_words(reveal: dict[str, Any], viewer: int | None) -> str:
    """A reveal's points: ``seat 0 (you) +3, seat 2 +1``, or ``none``."""
    return ", ".join(
        f"{seat_name(seat, viewer)} +{p}" for seat, p in enumerate(reveal["points"]) if p
    ) or _("none")


def cards(out: Text, counts: dict[str, int]) -> None:
    """Append cards as codes (``b1 b1 g+p1``) in their colour, or ``nothing``."""
    if not counts:
        out.append(_("nothing"), style="dim")
        return
    first = True
    for code, count in counts.items():
        for _copy in range(count):
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
            return [re.escape(king_mark())]
        if on != part and on.isdigit():
            return super().part_marks(f"seat-{on}", viewer)
        return super().part_marks(part, viewer)

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The king, then a line per seat with its peasant, score and cards."""
        out = Text()
        out.append(
            _(
                "Assassination round {assassination}, poison round {poison}",
                assassination=obs["assassination_round"],
                poison=obs["poison_round"],
            )
            + "\n"
            + _n(
                "starting seat {seat}; first to {count} point",
                "starting seat {seat}; first to {count} points",
                obs["target"],
                seat=obs["starting_seat"],
            )
            + "\n\n"
        )
        table = obs["table"]
        king = table["king"]
        out.append(king_mark() + " ", style="bold")
        out.append(kind_mark(obs["king"]))
        out.append("" if obs["king_alive"] else " ✝ " + _("dead"), style="dim")
        out.append(_(", dies at {drops} drops of a colour", drops=obs["king_lethal"]))
        out.append("\n   " + _("on it:") + " ")
        cards(out, king["cards"])
        if king["blocked"]:
            out.append("  [" + _("antidote: {codes}", codes=", ".join(king["blocked"])) + "]")
        out.append("\n\n")
        out.append(
            _("Peasants (die at {drops} drops of a colour):", drops=obs["peasant_lethal"]) + "\n",
            style="bold",
        )
        for info in obs["seats"]:
            seat = info["seat"]
            pointer = "▶ " if obs["to_move"] == seat else "  "
            out.append(pointer, style="bold")
            out.append(f"{seat_name(seat, viewer):<13}", style=YOU if seat == viewer else "")
            out.append(f" {kind_mark(info['kind']):<9}")
            out.append(" ✝ " + _("dead") if not info["alive"] else "", style="dim")
            out.append("  " + _n("{count} pt", "{count} pts", info["score"]))
            # The second line holds the rest; fit wraps it under itself.
            out.append("\n     " + _("+{points} this round, ", points=info["round_points"]))
            out.append(_("{count} in hand", count=info["hand"]))
            if info["played_on"] is not None:
                out.append(
                    _(
                        # Translators: {on} is "on the king" or "on the peasant of seat 2".
                        ", played {count} {on}",
                        count=info["played"],
                        on=played_on(str(info["played_on"]), viewer),
                    )
                )
            here = table[str(seat)]
            out.append("; " + _("on it:") + " ")
            cards(out, here["cards"])
            if here["blocked"]:
                out.append("  [" + _("antidote: {codes}", codes=", ".join(here["blocked"])) + "]")
            out.append("\n")
        out.append(
            "\n"
            + _(
                "Deck {deck} cards face down; discard pile {discard}:",
                deck=obs["deck"],
                discard=obs["discard_count"],
            )
            + " "
        )
        cards(out, obs.get("discard") or {})
        out.append("\n")
        reveal = obs.get("last_reveal")
        if reveal:
            where = f"{reveal['assassination_round']}.{reveal['poison_round']}"
            out.append("\n" + _("Reveal of round {round}:", round=where) + "\n", style="bold")
            for play in reveal["plays"]:
                said = _(
                    # Translators: {on} is "on the king" or "on the peasant of seat 2".
                    "{seat} {on}:",
                    seat=seat_name(play["seat"], viewer),
                    on=played_on(str(play["on"]), viewer),
                )
                out.append(f"  {said} ")
                cards(out, play["cards"])
                out.append("\n")
            out.append(f"  {listing(deaths_words(reveal, viewer))}\n")
            out.append("  " + _("points: {points}", points=points_words(reveal, viewer)) + "\n")
        out.append(
            "\n"
            + _(
                "bN N blue drops, gN green, pN purple, g+pN both;\n"
                "X! antidote of colour X, u! universal antidote"
            )
            + "\n"
        )
        return fit(out, width)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """Who chooses a character, adds cards, or passes."""
        mover = obs["to_move"]
        if mover is None:
            return _("chance: dealing ({phase})", phase=obs["phase"])
        who = seat_name(mover, viewer)
        info = obs["seats"][mover]
        if info["played_on"] is None:
            return _(
                "{who}: choose whom to play on, the king or a peasant (or pass with no cards)",
                who=who,
            )
        return _(
            # Translators: {on} is "on the king" or "on the peasant of seat 2".
            "{who}: add a card {on}, or done",
            who=who,
            on=played_on(str(info["played_on"]), viewer),
        )

    def pinned(self, obs: Observation, viewer: int | None) -> Text | None:
        """The viewer's hand and face-down play, which must never scroll away."""
        if "hand" not in obs:
            return None
        out = Text(_("Your hand:") + " ", style="bold")
        cards(out, obs["hand"])
        if obs.get("my_play"):
            out.append("   " + _("Your face-down play:") + " ", style="bold")
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
                on = played_on(str(info["played_on"]), obs["seat"])
                # Translators: {on} is "on the king" or "on the peasant of seat 2".
                return _("you have chosen to play {on} this round already", on=on)
            return None
        if move == "pass" and obs["hand"]:
            return _("only a seat with no card may pass; with cards, choose whom to play on")
        if move in ("done", "pass"):
            return None
        if info["played_on"] is None:
            return _("choose whom to play on first (on king, or on a seat's number)")
        if not obs["hand"].get(move):
            return _(
                "you hold no {card} (your hand: {hand})", card=move, hand=card_words(obs["hand"])
            )
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
                target=say("the king")
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
                f"{_said(words(types[code]))} ({code})" if code in types else code
                for code, count in counts.items()
                for _copy in range(count)
            ],
            _("no card"),
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
            _(
                # Translators: {on} is "on the king" or "on the peasant of seat 2".
                "{seat} had played {cards} {on}",
                seat=seat_name(play["seat"], viewer),
                cards=self._in_words(play["cards"]),
                on=played_on(str(play["on"]), viewer),
            )
            for play in reveal["plays"]
        ]
        lines += deaths_words(reveal, viewer)
        lines.append(_("points: {points}", points=points_words(reveal, viewer)))
        return lines

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """Each reveal, as its own milestone."""
        lines = self._reveal(before, after, viewer)
        if not lines:
            return None
        reveal = after["last_reveal"]
        where = f"{reveal['assassination_round']}.{reveal['poison_round']}"
        return _("Reveal of round {round}:", round=where) + " " + "; ".join(lines) + "."
