"""The languages people read apothecary in: gettext catalogs shipped in the
package (``apothecary/locale/<lang>/LC_MESSAGES/apothecary.mo``), read with the
standard library's :mod:`gettext`, so the core needs nothing more at run time.

What people read changes with the language: words of the games (rendered from
a message, :func:`apothecary.core.words.render`), the browser's page chrome
(the same catalogs as JSON, ``server/static/locale/<lang>.json``), errors
meant for people and the terminal's words. What programs read stays English
and stable: records, notation, the protocol's fields and operators' logs.

``python -m apothecary.i18n check`` extracts the messages, updates every
catalog, compiles them and lists what is not translated (docs/translating.md).
"""

from __future__ import annotations

import functools
import gettext
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from apothecary.core.errors import UnknownLanguageError
from apothecary.core.game import JSON
from apothecary.core.words import Translator, render

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "LOCALE_DIR",
    "check_language",
    "from_environment",
    "gettext_in",
    "negotiate",
    "render",
    "translation",
]

DOMAIN = "apothecary"
"""The gettext domain: the catalogs' file name."""

LOCALE_DIR = Path(__file__).parent.parent / "locale"
"""Where the catalogs live inside the package."""

LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "fr": "Français",
    "de": "Deutsch",
    "es": "Español",
}
"""Every language shipped, each by its own name (a language menu shows these)."""

DEFAULT = "en"
"""The language of the messages themselves, and of anyone whose settings name
no language we have."""


def check_language(code: object) -> str:
    """``code`` if it names a shipped language, else UnknownLanguageError
    saying which are (an explicit choice, such as ``--lang``, is never guessed at)."""
    if isinstance(code, str) and code in LANGUAGES:
        return code
    raise UnknownLanguageError(
        f"no language {code!r}; apothecary speaks {', '.join(sorted(LANGUAGES))}"
    )


def negotiate(preferences: Iterable[object]) -> str:
    """The first shipped language among ``preferences`` (codes such as
    ``de-CH``, ``fr_FR.UTF-8`` or ``es``, best first), by their main part;
    :data:`DEFAULT` when none is. Anything that is not a string is passed over:
    the preferences come from browsers and environments."""
    for preference in preferences:
        if not isinstance(preference, str):
            continue
        main = preference.split(".")[0].replace("_", "-").split("-")[0].lower()
        if main in LANGUAGES:
            return main
    return DEFAULT


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the system's locale settings ask for, as gettext reads
    them (``LANGUAGE``, a colon list, then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``)."""
    env = os.environ if environ is None else environ
    preferences: list[str] = []
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value and value not in ("C", "POSIX"):
            preferences.extend(value.split(":"))
    return negotiate(preferences)


@functools.cache
def translation(code: str) -> gettext.NullTranslations:
    """The catalog of a shipped language (English: the messages as they are).
    Read once per process."""
    check_language(code)
    if code == DEFAULT:
        return gettext.NullTranslations()
    with (LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as file:
        return gettext.GNUTranslations(file)


def gettext_in(code: str, message: str, /, **values: object) -> str:
    """``message`` in the language ``code``, its ``{name}`` values put in."""
    said = translation(code).gettext(message)
    return said.format(**values) if values else said


def render_in(code: str, message: object) -> list[JSON]:
    """A message of words (:meth:`apothecary.core.words.Words.message`) as runs
    in the language ``code``."""
    language: Translator = translation(code)
    return render(message, language)


def localized(view: dict[str, JSON], code: str) -> dict[str, JSON]:
    """A room's update (or a replay's view) as the viewer reading ``code``
    reads it: the ``words`` of its events, legal actions and outcome said
    again from their messages in that language (a copy; ``view`` is left as
    it is). Every other field stays as it is, English where it is English:
    ``text``, ``label`` and ``reason`` are for programs and logs."""
    if code == DEFAULT:
        return view
    language: Translator = translation(code)
    out = dict(view)
    events = view.get("events")
    if isinstance(events, list):
        out["events"] = [_said_again(e, language) for e in events]
    legal = view.get("legal")
    if isinstance(legal, list):
        out["legal"] = [_said_again(a, language) for a in legal]
    outcome = view.get("outcome")
    if isinstance(outcome, dict) and "reason_msg" in outcome:
        out["outcome"] = {**outcome, "reason_words": render(outcome["reason_msg"], language)}
    return out


def _said_again(item: JSON, language: Translator) -> JSON:
    """An event or legal action with its ``words`` (and ``then_words``) in ``language``."""
    if not isinstance(item, dict) or "msg" not in item:
        return item
    out = {**item, "words": render(item["msg"], language)}
    then = item.get("then_msg")
    if isinstance(then, list):
        out["then_words"] = [render(m, language) for m in then]
    return out
