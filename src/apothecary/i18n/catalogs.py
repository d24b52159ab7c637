"""Making the catalogs (a translator's and a developer's tool, not needed at
run time): extract every message from the sources, update each language's
``.po``, compile the ``.mo`` the server reads and the JSON the browser reads,
and find what is not translated. Babel does the reading and writing; it comes
with the ``[test]`` extra (``pip install -e '.[test]'``).

The messages are, in Python, the literal templates of :func:`~apothecary.core.words.say`
(``say_in`` with a context, ``say_n`` with a plural), ``N_`` (marked for later)
and :func:`~apothecary.i18n.gettext_in`; in the browser's JavaScript ``t``, ``tx``
(a message as pieces, for nodes), ``tn`` (plural) and ``tp`` (context), also inside a
template literal's ``${...}``. A comment starting ``Translators:`` just above a message
goes to the translators with it.

The terminal's own words are a second domain, ``terminal``
(:mod:`apothecary.i18n.terminal`): ``_``, ``_n`` and ``T_`` in the terminal
app, the games' terminal views and the command line's modules, extracted,
updated, compiled and checked beside the first.
"""

from __future__ import annotations

import datetime
import io
import json
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from apothecary.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR
from apothecary.i18n.terminal import DOMAIN as TERMINAL

PACKAGE = LOCALE_DIR.parent
"""The sources the messages are extracted from: the whole package."""

BROWSER_DIR = PACKAGE / "server" / "static" / "locale"
"""Where the browser's JSON catalogs are written (served as /static/locale/<lang>.json)."""

TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"

TERMINAL_TEMPLATE = LOCALE_DIR / f"{TERMINAL}.pot"

KEYWORDS: dict[str, Any] = {
    "say": None,
    "say_in": ((1, "c"), 2),
    "say_n": (1, 2),
    "N_": None,
    "gettext_in": (2,),
    "t": None,
    "tx": None,
    "tn": (1, 2),
    "tp": ((1, "c"), 2),
}
"""The calls whose literal arguments are messages (Babel's keyword form)."""

METHODS = [
    ("**/static/**.js", "javascript"),
    ("games/**.js", "javascript"),
    ("**.py", "python"),
]
"""Which files are read, and how (the first pattern that matches a file wins)."""

TERMINAL_KEYWORDS: dict[str, Any] = {"_": None, "_n": (1, 2), "T_": None}
"""The terminal domain's calls (:mod:`apothecary.i18n.terminal`)."""

TERMINAL_METHODS = [
    ("tui/**.py", "python"),
    ("games/**/terminal.py", "python"),
    ("cli.py", "python"),
    ("cli_common.py", "python"),
    ("**/cli.py", "python"),
    ("i18n/terminal.py", "python"),
]
"""The terminal's sources: its app, the games' views and the command line."""

_FORMATTER = string.Formatter()

STAMP = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
"""The date every catalog's header gives: a real one would change every file at
every run, and the test that the compiled files are fresh compares bytes."""


def extract(domain: str = DOMAIN) -> Catalog:
    """Every message of ``domain`` in the package's sources, with the translators' comments."""
    catalog = Catalog(
        project="apothecary", domain=domain, fuzzy=False, creation_date=STAMP, revision_date=STAMP
    )
    terminal = domain == TERMINAL
    found: Iterator[tuple[str, int, Any, list[str], str | None]] = extract_from_dir(
        str(PACKAGE),
        TERMINAL_METHODS if terminal else METHODS,
        # a message inside a template literal's ${...} is a message too
        {}
        if terminal
        else {
            pattern: {"parse_template_string": "true"}
            for pattern, how in METHODS
            if how != "python"
        },
        TERMINAL_KEYWORDS if terminal else KEYWORDS,
        comment_tags=("Translators:",),
        strip_comment_tags=True,
    )
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def po_path(code: str, domain: str = DOMAIN) -> Path:
    """The catalog a translator edits for the language ``code``."""
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{domain}.po"


def read(code: str, domain: str = DOMAIN) -> Catalog:
    """The ``.po`` catalog of ``code`` as it is on disk."""
    with po_path(code, domain).open("rb") as file:
        return read_po(file, locale=code, domain=domain)


def _po_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    # No line numbers: they change with every edit and would make every branch's
    # catalogs conflict; the file names stay, for translators to look at.
    write_po(buffer, catalog, width=100, include_lineno=False, sort_output=True)
    return buffer.getvalue()


def update(template: Catalog, code: str) -> Catalog:
    """The catalog of ``code`` brought up to ``template``'s messages (of
    ``template``'s domain): new ones empty, gone ones dropped, translations kept."""
    domain = template.domain or DOMAIN
    path = po_path(code, domain)
    if path.exists():
        catalog = read(code, domain)
    else:
        catalog = Catalog(locale=code, domain=domain, project="apothecary", fuzzy=False)
    # No fuzzy matching: a guessed translation of a changed message would ship unseen.
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalog.obsolete.clear()
    catalog.creation_date = catalog.revision_date = STAMP
    return catalog


def mo_bytes(catalog: Catalog) -> bytes:
    """The compiled catalog gettext reads."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def browser_json(catalog: Catalog, code: str) -> str:
    """The browser's catalog: the messages of the JavaScript only, each by its
    msgid (``context + "\\u0004" + msgid`` with a context), a string or, for a
    plural, the list of forms (static/i18n.js picks the form)."""
    messages: dict[str, Any] = {}
    for message in catalog:
        if not message.id or not any(path.endswith(".js") for path, _ in message.locations):
            continue
        key = str(message.id[0] if isinstance(message.id, tuple) else message.id)
        if message.context:
            key = f"{message.context}\u0004{key}"
        english = list(message.id) if isinstance(message.id, tuple) else message.id
        said = message.string if code != DEFAULT else english
        if isinstance(said, tuple):
            said = list(said)
        messages[key] = said
    return (
        json.dumps(
            {"language": code, "messages": messages}, ensure_ascii=False, indent=0, sort_keys=True
        )
        + "\n"
    )


@dataclass
class Report:
    """What ``check`` found: per language, messages with no translation and
    translations whose placeholders differ from the English."""

    untranslated: dict[str, list[str]] = field(default_factory=dict)
    placeholders: dict[str, list[str]] = field(default_factory=dict)

    def ok(self) -> bool:
        """Whether every catalog is complete and right."""
        return not any(self.untranslated.values()) and not any(self.placeholders.values())

    def lines(self) -> list[str]:
        """The report as a person reads it."""
        out = []
        for code, missing in self.untranslated.items():
            out += [f"{code}: not translated: {m!r}" for m in missing]
        for code, wrong in self.placeholders.items():
            out += [f"{code}: placeholders differ: {m}" for m in wrong]
        return out or ["every message is translated in " + ", ".join(LANGUAGES)]


def fields(text: Any) -> set[str]:
    """The ``{name}`` placeholders of a message (``{{`` is a brace, not one)."""
    try:
        return {name for _, name, _, _ in _FORMATTER.parse(text) if name is not None}
    except ValueError:  # an unbalanced brace: a placeholder nobody can fill
        return {"<unbalanced brace>"}


def problems(message: Message) -> tuple[bool, str | None]:
    """Whether ``message`` lacks a translation, and how its placeholders
    differ from the English if they do."""
    english = list(message.id) if isinstance(message.id, tuple) else [message.id]
    said = list(message.string) if isinstance(message.string, tuple) else [message.string]
    if message.fuzzy or not all(said):
        return True, None
    wanted = set().union(*(fields(e) for e in english))
    # A plural's forms may leave out {count} ("one card"); none may add a name.
    for form in said:
        extra = fields(form) - wanted
        if extra or (len(english) == 1 and fields(form) != wanted):
            return False, f"{message.id!r} -> {form!r} (English: {sorted(wanted)})"
    return False, None


def review(catalogs: dict[str, Catalog]) -> Report:
    """Check every language's catalog (English is the messages themselves)."""
    report = Report()
    for code, catalog in catalogs.items():
        report.untranslated[code], report.placeholders[code] = [], []
        for message in catalog:
            if not message.id:
                continue
            missing, wrong = problems(message)
            if missing:
                report.untranslated[code].append(str(message.id))
            if wrong:
                report.placeholders[code].append(wrong)
    return report


def translated_languages() -> list[str]:
    """Every shipped language but English, whose catalogs are the files."""
    return [code for code in LANGUAGES if code != DEFAULT]


def built_terminal(template: Catalog) -> dict[Path, bytes]:
    """The terminal domain's files from its ``template``: the template, each
    ``.po`` updated and its ``.mo`` (the browser reads none of them)."""
    files: dict[Path, bytes] = {TERMINAL_TEMPLATE: _po_bytes(template)}
    for code in translated_languages():
        catalog = update(template, code)
        files[po_path(code, TERMINAL)] = _po_bytes(catalog)
        files[po_path(code, TERMINAL).with_suffix(".mo")] = mo_bytes(catalog)
    return files


def catalogs_of_every_domain() -> dict[str, Catalog]:
    """Every translated catalog on disk, by the name :func:`review` reports it
    under: ``fr`` for the ``apothecary`` domain, ``fr/terminal`` for the terminal's."""
    out: dict[str, Catalog] = {}
    for code in translated_languages():
        out[code] = read(code)
        out[f"{code}/{TERMINAL}"] = read(code, TERMINAL)
    return out


def built(template: Catalog) -> dict[Path, bytes]:
    """Every file the catalogs make, by path, from ``template`` and the ``.po``
    files: the template, each ``.po`` updated, its ``.mo`` and every JSON."""
    files: dict[Path, bytes] = {TEMPLATE: _po_bytes(template)}
    files[BROWSER_DIR / f"{DEFAULT}.json"] = browser_json(template, DEFAULT).encode()
    for code in translated_languages():
        catalog = update(template, code)
        files[po_path(code)] = _po_bytes(catalog)
        files[po_path(code).with_suffix(".mo")] = mo_bytes(catalog)
        files[BROWSER_DIR / f"{code}.json"] = browser_json(catalog, code).encode()
    return files


def write(files: dict[Path, bytes]) -> list[Path]:
    """Write the files that changed; the paths written."""
    written = []
    for path, data in files.items():
        if path.exists() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written
