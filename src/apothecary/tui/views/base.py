"""What every game view does, and the generic view any new game plays with.

A view draws one seat's ``observation`` (never the full state) as Rich text.
Meaning is always carried by a letter or symbol as well as a colour, so a
colour-blind reader or a monochrome terminal loses nothing.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from apothecary.core.game import CHANCE, Game, Player
from apothecary.core.words import Words, join_names

Observation = dict[str, Any]
"""A seat's observation, as ``State.observation`` returns it."""

YOU = "bold reverse"
"""How the viewing seat's own name stands out (reverse video survives monochrome)."""


BOARD_WIDTH = 49
"""The columns a board line may take: what the board keeps at the smallest
window (80×24) once its side panel and scroll bar are drawn. A longer line is
not wrapped by the screen but cut, so :func:`fit` wraps every board to this."""

# Text.wrap measures with a console; this one never prints.
_MEASURE = Console(file=io.StringIO(), width=BOARD_WIDTH, color_system=None)


def fit(text: Text, width: int = BOARD_WIDTH) -> Text:
    """``text`` with every line longer than ``width`` wrapped at a space, its
    continuation indented two past the line's own indent (so a seat's row and
    its wrapped tail read as one), styles kept."""
    out = Text()
    for number, line in enumerate(text.split("\n", allow_blank=True)):
        if number:
            out.append("\n")
        plain = line.plain
        indent = " " * min(len(plain) - len(plain.lstrip(" ")) + 2, width // 2)
        limit = width
        while cell_len(line.plain) > limit:
            piece = line.wrap(_MEASURE, limit, justify="default", overflow="fold")[0]
            cut = len(piece.plain)
            piece.rstrip()
            out.append_text(piece)
            out.append("\n" + indent)
            rest = line.plain[cut:]
            line = line[cut + len(rest) - len(rest.lstrip(" ")) :]
            limit = width - len(indent)
        out.append_text(line)
    return out


def listing(words: list[str], empty: str = "nobody") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``empty`` for none."""
    return join_names(words, empty)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 scone``, ``2 scones`` (``nouns`` for an irregular plural)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def seat_name(seat: int, viewer: int | None) -> str:
    """``seat 2``, or ``seat 2 (you)`` for the viewer."""
    return f"seat {seat} (you)" if seat == viewer else f"seat {seat}"


def seat_names(seats: list[int], viewer: int | None, empty: str = "nobody") -> str:
    """``seat 2 and seat 0 (you)``: seats by name, in words."""
    return listing([seat_name(seat, viewer) for seat in seats], empty)


class GameView:
    """Draws one game from observations; subclasses know their game's fields.

    This base class is also the generic view: it pretty-prints the
    observation and finds scores where games usually keep them. What a viewer
    reads of each action is not a view's business: the game's own
    ``State.describe_action`` says it, for every front end alike.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.info = game.info

    # -- the picture ---------------------------------------------------------------

    def board(self, obs: Observation, viewer: int | None, width: int = BOARD_WIDTH) -> Text:
        """The table as ``viewer`` sees it, its lines wrapped to ``width``
        columns: the board's real width when the caller knows it (a wider
        window), else what the smallest window keeps."""
        return Text(json.dumps(obs, indent=1, sort_keys=True))

    def status(self, obs: Observation, viewer: int | None) -> str:
        """One line: how the game ended, or whose turn it is in the game's words."""
        outcome = obs.get("outcome")
        if isinstance(outcome, dict):
            return f"Game over: {outcome.get('reason', '')}"
        return self.turn_status(obs, viewer)

    def turn_status(self, obs: Observation, viewer: int | None) -> str:
        """One line while the game goes on: whose turn (games say it in their words)."""
        mover = obs.get("to_move")
        if isinstance(mover, int) and not isinstance(mover, bool):
            return f"{seat_name(mover, viewer)} to move"
        return "chance to move"

    def scores(self, obs: Observation) -> list[str]:
        """The score per seat, as short texts (empty when the game keeps none)."""
        outcome = obs.get("outcome")
        if isinstance(outcome, dict) and isinstance(outcome.get("scores"), list):
            return [f"{score:g}" for score in outcome["scores"]]
        found = obs.get("scores")
        if isinstance(found, list):
            return [str(score) for score in found]
        seats = obs.get("seats")
        if isinstance(seats, list) and all(isinstance(s, dict) and "score" in s for s in seats):
            return [str(s["score"]) for s in seats]
        return []

    # -- what a viewer is told, and asked ---------------------------------------------

    def aftermath(
        self, before: Observation, after: Observation, viewer: int | None
    ) -> Sequence[str | Words]:
        """Sentences the game's event leaves unsaid, read off the viewer's own
        observations just before and after an action (none by default); words
        (:mod:`apothecary.core.words`) keep their seats as data, so the log
        marks the viewer's own."""
        return []

    def summary(self, before: Observation, after: Observation, viewer: int | None) -> str | None:
        """A milestone the action reached for ``viewer`` (a round's end, the
        viewer's death), in words; the app pauses on it. None by default."""
        return None

    def confirm(self, obs: Observation, notation: str) -> str | None:
        """The question to ask before an irreversible move picked from the list
        (``Stop eating for the rest of the game?``), or None to play it at once."""
        return None

    def action_note(self, obs: Observation, notation: str) -> str | None:
        """What the viewer knows of the move ``notation`` beyond the game's label
        (the dose of a marked scone the viewer has seen), read off the viewer's
        observation; None when there is nothing more to say (the default)."""
        return None

    def why_illegal(self, obs: Observation, text: str) -> str | None:
        """Why the move ``text`` (it reads as an action) cannot be played now, in
        the game's terms (``there is no piece on d4``), or None if the view cannot say."""
        return None

    def pinned(self, obs: Observation, viewer: int | None) -> Text | None:
        """What must stay in sight however small the window (the viewer's hand),
        drawn under the board; None when the board has nothing like it."""
        return None

    # -- what a tutorial's coach points at ---------------------------------------------

    def part_words(self, part: str, viewer: int | None) -> str:
        """A table part a tutorial step names (``seat-2``, ``hand``, ``moves``;
        :data:`apothecary.core.tutorial.PART_NAME`) in words, for the coach's
        "look at" line: the pointer that works in any terminal. A game's view
        names its own parts (``circle-c2``); the rest read as the name spaced."""
        key, _, value = part.partition("-")
        if key == "seat" and value.isdigit():
            return seat_name(int(value), viewer)
        if part == "hand":
            return "your hand, under the board"
        if part == "moves":
            return "the list of moves"
        return part.replace("-", " ")

    def part_marks(self, part: str, viewer: int | None) -> list[str]:
        """Regular expressions for the text of :meth:`board` that shows
        ``part``; the app highlights what they match. A seat's name by default;
        a game's view adds its own parts, and a part it cannot find (none)
        is pointed at in words only."""
        key, _, value = part.partition("-")
        if key == "seat" and value.isdigit():
            # Not "seat 1" inside "seat 12".
            return [re.escape(seat_name(int(value), viewer)) + r"(?!\d)"]
        return []

    # -- shared helpers --------------------------------------------------------------

    @staticmethod
    def actor_name(actor: Player, viewer: int | None) -> str:
        """``chance``, ``you`` or ``seat N``."""
        if actor == CHANCE:
            return "chance"
        return "you" if actor == viewer else f"seat {actor}"
