"""Every word the browser shows comes from the catalogs (issue #32, item 2: "every word
in the browser from the catalogs"): no string literal a person reads is left in the
browser's JavaScript outside ``t``/``tn``/``tp``/``tx``.

Two scans of tests/support/js_strings.py read each module without running it:
``shown`` finds a literal where the page puts words (a child of ``h(...)``, a
``title:``, ``.textContent = ...``), ``prose`` one that reads as prose anywhere else (a
table of words, a function's argument). Each proves itself on planted literals.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from js_strings import prose, prose_in, shown, shown_in

import apothecary

SRC = Path(apothecary.__file__).resolve().parent
BROWSER = sorted((SRC / "server" / "static").rglob("*.js")) + sorted((SRC / "games").glob("*/*.js"))

# What may stay as written, each for a reason a reader can check.
ALLOWED = {
    ("server/static/app.js", "apothecary"),  # the project's name, the header's brand
    ("server/static/api.js", "Bearer"),  # an HTTP Authorization scheme
    ("server/static/i18n.js", "English"),  # each language by its own name (the menu)
    ("server/static/i18n.js", "Deutsch"),
    # a RangeError, for developers
    ("server/static/qr.js", "text too long for a QR code of version ( bytes)"),
    ("server/static/qr.js", "QR code"),  # the default label; the invite passes a translated one
    ("server/static/room/scroll.js", "Home"),  # KeyboardEvent.key names
    ("server/static/room/scroll.js", "End"),
    ("server/static/turns.js", "Notification"),  # a feature test: "Notification" in window
}


def untranslated() -> list[str]:
    """Every literal either scan finds in the browser's modules, less the allowed ones."""
    found = []
    for path in BROWSER:
        for literal in shown_in(path, SRC) + prose_in(path, SRC):
            if (literal.path, literal.text) not in ALLOWED:
                found.append(str(literal))
    return sorted(set(found))


def test_the_browser_code_says_every_word_through_the_catalogs() -> None:
    assert len(BROWSER) > 30, BROWSER  # the shell, the room, the kit and four tables
    assert untranslated() == []


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ('h("button", {}, "Start the game")', "Start the game"),
        ('node.textContent = "Waiting for the host";', "Waiting for the host"),
        ('h("a", { title: "Open the rules" }, t("Rules"))', "Open the rules"),
        ("h('p', {}, `${n} players`)", "players"),
        ('text(g, x, y, "cup: empty", { class: "tsa-tiny" })', "cup: empty"),
        ('html("span", { text: `${n} ${n === 1 ? "pt" : "pts"}` })', "pts"),
    ],
)
def test_shown_catches_a_planted_literal_where_the_page_puts_words(source: str, text: str) -> None:
    assert text in [s.text for s in shown(source)]


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ('const WORDS = { none: "No games yet." };', "No games yet."),
        ('form("sign-in", "Sign in", fields)', "Sign in"),
        ('return [who, " left the table"];', "left the table"),
        ("const state = alive ? `dead at dose ${d}` : x;", "dead at dose"),
        ('const label = "Replay";', "Replay"),
    ],
)
def test_prose_catches_a_planted_literal_kept_as_data(source: str, text: str) -> None:
    assert [s.text for s in prose(source)] == [text]


@pytest.mark.parametrize(
    "source",
    [
        'h("button", {}, t("Start the game"))',
        'tn("{count} player", "{count} players", n)',
        'tx("{name} left the table", { name: who })',
        'h("div", { class: "tsa-cell tsa-cell-hot", id: "the box" })',
        'document.querySelector("#room .table-area")',
        'if (kind === "Game over") go();',
        'console.error("the table failed to draw", error);',
        'text(g, x, y, `\\u21bb ${t("just shuffled")}`, {})',
    ],
)
def test_neither_scan_flags_a_message_or_code(source: str) -> None:
    assert shown(source) + prose(source) == []


def test_a_planted_literal_in_a_real_module_is_caught() -> None:
    # The scan over the real files (above) must fail on one more English literal.
    room = SRC / "server" / "static" / "room" / "result.js"
    planted = room.read_text(encoding="utf-8") + '\nexport const NOTE = "Well played, everyone";\n'
    assert [s.text for s in prose(planted, "room/result.js")] == ["Well played, everyone"]
