"""The errors apothecary raises for bad input.

Every error is a :class:`ValueError`, so callers who only care that the input
was wrong can catch that; callers who care *what* was wrong catch the narrow
class. Each message names what was wrong and what would have been allowed.
"""

from __future__ import annotations

from typing import Any


class ApothecaryError(ValueError):
    """Base class of every error about bad input to apothecary."""


class UnknownGameError(ApothecaryError):
    """A game name that is not registered."""


class BadOptionError(ApothecaryError):
    """An unknown game option, or a value the option does not allow."""


class PlayerCountError(BadOptionError):
    """A number of players outside the game's range."""


class MalformedActionError(ApothecaryError):
    """Notation (or an action id) that names no action of this game at all."""


class IllegalActionError(ApothecaryError):
    """A well-formed action that the rules do not allow in this position.

    The state it was offered to is left exactly as it was.
    """


class GameOverError(IllegalActionError):
    """An action offered to a finished game."""


class RecordError(ApothecaryError):
    """A game record that cannot be read or does not replay.

    ``index`` is the position of the first bad action in the record's action
    list, or ``None`` when the problem is not with one action.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class UnknownBotError(ApothecaryError):
    """A bot name that is not registered for the game."""


class LanguageError(ApothecaryError):
    """A language that is not a language tag at all (``fr``, ``de-CH``, ``es_MX`` are)."""

    code = "bad_language"


class UnknownLanguageError(ApothecaryError):
    """A language code apothecary has no catalog for (a well-formed tag, unlike
    :class:`LanguageError`'s)."""


def shorten(text: str, limit: int = 400) -> str:
    """``text`` cut to ``limit`` characters, marked where it was cut: input is
    quoted in messages, and a message must not grow with its input (a 100 MB
    notation string made a 200 MB message)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(value: Any, limit: int = 80) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters."""
    if isinstance(value, str) and len(value) > limit:
        value = value[: limit + 1]  # repr() of all of it would cost as much as the text
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deep; an int too long to print
        kind = type(value).__name__
        return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} too large to show"
    return shorten(text, limit)
