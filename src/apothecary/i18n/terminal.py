"""The terminal's own words (the Textual app and the command line's human
output) in the person's language: the gettext domain ``terminal``
(``apothecary/locale/<lang>/LC_MESSAGES/terminal.mo``), kept apart from the
``apothecary`` domain the browser's catalogs are made from. The game's words
(moves, events, outcomes) are not repeated here: they come from the
``apothecary`` domain through :func:`game_words`, as they do in the browser.

One language per process, chosen once, before anything is shown
(:func:`choose`; :func:`from_command_line` reads ``--lang`` from the command
line, else the environment, as gettext does). ``_`` says a message in that
language at the moment it is called; ``T_`` only marks a message for the
catalogs and leaves it English, for a text said later (a help text the command
line translates as it starts, a constant read when a screen is drawn).
"""

from __future__ import annotations

import functools
import gettext
import os
from collections.abc import Callable, Mapping, Sequence

from apothecary.core.words import read as read_words
from apothecary.core.words import render
from apothecary.i18n import (
    DEFAULT,
    LANGUAGES,
    LOCALE_DIR,
    check_language,
    from_environment,
    translation,
)

__all__ = [
    "DOMAIN",
    "T_",
    "_",
    "_n",
    "choose",
    "chosen",
    "from_command_line",
    "game_words",
    "names",
    "seat_namer",
    "spoken",
]

DOMAIN = "terminal"
"""The terminal's gettext domain: its catalogs' file name."""

_chosen: list[str] = [DEFAULT]


def spoken(code: str) -> str:
    """The shipped language a ``--lang`` tag names: the tag as a browser or a
    locale writes it (``de-CH``, ``es_MX.UTF-8``) counts by its language, as
    the rules pages read it; a language apothecary does not speak is
    UnknownLanguageError naming those it does (an explicit choice is never
    guessed at, nor quietly English)."""
    main = code.split(".")[0].replace("_", "-").split("-")[0].lower()
    return main if main in LANGUAGES else check_language(code)


def choose(code: str) -> str:
    """Make ``code`` (see :func:`spoken`) the language of everything said from
    now on (an unknown one is UnknownLanguageError, naming those there are)."""
    _chosen[0] = spoken(code)
    return _chosen[0]


def chosen() -> str:
    """The language chosen for this process (English until one is)."""
    return _chosen[0]


def from_command_line(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language a command line asks for: the last ``--lang CODE`` (or
    ``--lang=CODE``) anywhere in ``argv`` (the global option and ``play``'s are
    one choice), else the environment's (``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``), else English. Read before the command line is
    parsed, since its help texts are said in it; an explicit code that names no
    language is UnknownLanguageError, never a guess."""
    asked: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            asked = argv[i + 1]
        elif arg.startswith("--lang="):
            asked = arg.partition("=")[2]
    if asked is not None:
        return spoken(asked)
    return from_environment(os.environ if environ is None else environ)


@functools.cache
def catalog(code: str) -> gettext.NullTranslations:
    """The terminal catalog of ``code`` (English: the messages as they are)."""
    check_language(code)
    if code == DEFAULT:
        return gettext.NullTranslations()
    with (LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as file:
        return gettext.GNUTranslations(file)


def _(message: str, /, **values: object) -> str:
    """``message`` in the chosen language, its ``{name}`` values put in."""
    said = catalog(chosen()).gettext(message)
    return said.format(**values) if values else said


def _n(singular: str, plural: str, count: int, /, **values: object) -> str:
    """The form of ``singular``/``plural`` for ``count`` in the chosen language,
    ``{count}`` and the other values put in."""
    return catalog(chosen()).ngettext(singular, plural, count).format(count=count, **values)


def T_(message: str, /) -> str:
    """``message`` as it is, marked for the terminal's catalogs (said later with ``_``)."""
    return message


def seat_namer(viewer: int | None) -> Callable[[int], str]:
    """How the terminal names a seat to ``viewer`` in the chosen language:
    ``seat N``, and ``seat N (you)`` for the viewer's own."""

    def name(number: int) -> str:
        if number == viewer:
            return _("seat {number} (you)", number=number)
        return _("seat {number}", number=number)

    return name


def game_words(message: object, runs: object, name: Callable[[int], str]) -> str:
    """The game's words in the chosen language: ``message`` (a ``msg``, the
    ``apothecary`` domain's template and values) rendered and read with seats
    named by ``name``; the English ``runs`` when there is no message."""
    code = chosen()
    if code != DEFAULT and isinstance(message, list):
        runs = render(message, translation(code))
    return read_words(runs, name, names)  # a list of seats joined in that language too


def names(seats: Sequence[str]) -> str:
    """Names joined as a sentence joins them, in the chosen language."""
    if not seats:
        return _("nobody")
    if len(seats) == 1:
        return seats[0]
    return _("{names} and {last}", names=", ".join(seats[:-1]), last=seats[-1])
