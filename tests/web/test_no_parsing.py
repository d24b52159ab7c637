"""No JavaScript of the browser client reads the server's English or notation apart.

The server sends seats as data (``words``, ``then_words``, ``reason_words``) and
moves as data (``move``); the shell and the tables put names in and find moves by
those, never by a regex or a string method over ``notation``, ``text`` or
``label`` (docs/protocol.md, issue 26 item 2). markdown.js and qr.js parse what
they are for (Markdown, a QR payload) and are not concerned.

The check, per file, on the code with its comments and string literals blanked
(so ``h("label", ...)`` or a comment naming ``text`` is no hit):

- a *parse*: a string method that reads a string apart (``.match``, ``.matchAll``,
  ``.exec``, ``.test``, ``.replace``, ``.replaceAll``, ``.split``, ``.startsWith``,
  ``.endsWith``, ``.indexOf``, ``.lastIndexOf``, ``.includes``, ``.search``,
  ``.slice``, ``.substring``, ``.substr``, ``.at``) or a regex literal;
- called on a *tainted* identifier (through any chain of properties), or given
  one as a regex's argument, or a regex literal on a statement (a line, with the
  lines a chained ``.method`` continues) that names one; the tainted ones are
  ``notation``, ``text``, ``label``, ``textContent``, or a variable the file
  assigns from an expression naming one (``let own = event.text`` makes
  ``own`` tainted, so ``own.endsWith(tail)`` is caught).

It names every offender as ``file:line``. Its limits: a value passed through a
function argument, or a property read through brackets, escapes it; renaming a
variable that holds something else (the chat's input is ``said``, not ``text``)
keeps it quiet where it is right to be.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.js import GAMES, STATIC
from support.js_source import blank, statements

NOT_CONCERNED = {"markdown.js", "qr.js"}
"""Parsers of what they are for (Markdown, a QR code's payload)."""

METHODS = (
    "match|matchAll|exec|test|replace|replaceAll|split|startsWith|endsWith|indexOf|lastIndexOf"
    "|includes|search|slice|substring|substr|at"
)
CHAIN = r"(?:\s*\??\.\s*[A-Za-z_$][\w$]*|\[[^\]]*\])*"
"""What may stand between a name and the method called on it (``event.text``,
``events[0].text``, ``label?.trim``)."""
ARGUMENT = re.compile(r"\.(?:exec|test|match|matchAll|search)\s*\(([^()]*)")
"""A regex's method whose argument is the string it reads."""
NAMES = ("notation", "text", "label", "textContent")
ASSIGN = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(.+)")


def naming(names: set[str]) -> re.Pattern[str]:
    """A use of one of ``names`` as a string: not a call of a function so named
    (kit.js's ``text(...)``) and not its ``.length``."""
    alternatives = "|".join(map(re.escape, sorted(names)))
    return re.compile(rf"(?<![\w$])(?:{alternatives})(?![\w$])(?!\s*\()(?!\.length\b)")


def offenders(path: Path, label: str) -> list[str]:
    """Each ``label:line`` of ``path`` where a parse meets a tainted name."""
    code = blank(path.read_text(encoding="utf-8"))
    lines = statements(code)
    tainted = set(NAMES)
    changed = True
    while changed:  # a variable made from a tainted one is tainted too
        changed = False
        for _, line in lines:
            for name, value in ASSIGN.findall(line):
                if name not in tainted and naming(tainted).search(value):
                    tainted.add(name)
                    changed = True
    names = naming(tainted)
    alternatives = "|".join(map(re.escape, sorted(tainted)))
    # The parse must read the tainted string itself: called on it (through a
    # chain of properties) or given it as a regex's argument; a regex literal on
    # a statement that names one counts too.
    receiver = re.compile(rf"(?<![\w$])(?:{alternatives}){CHAIN}\s*\??\.\s*(?:{METHODS})\s*\(")
    found = []
    for number, line in lines:
        argument = any(names.search(arg) for arg in ARGUMENT.findall(line))
        literal = "/R/" in line and names.search(line)
        if receiver.search(line) or argument or literal:
            found.append(f"{label}:{number}: {line.strip()[:120]}")
    return found


def shell_files() -> list[Path]:
    """The shell's JavaScript: static/ and its subfolders, but vendor, markdown.js and qr.js."""
    return [
        p
        for p in sorted(STATIC.rglob("*.js"))
        if p.name not in NOT_CONCERNED and "vendor" not in p.relative_to(STATIC).parts
    ]


def table_files(games: set[str] | None = None) -> list[Path]:
    """Each game's table.js and layout.js (those of `games` only, if given)."""
    found = []
    for folder in sorted(p for p in GAMES.iterdir() if p.is_dir()):
        if games is not None and folder.name not in games:
            continue
        found += [folder / name for name in ("table.js", "layout.js") if (folder / name).exists()]
    return found


def test_the_shell_reads_no_notation_text_or_label_apart() -> None:
    files = shell_files()
    assert any(p.name == "room.js" for p in files) and any(p.name == "replay.js" for p in files)
    found = [hit for p in files for hit in offenders(p, str(p.relative_to(STATIC)))]
    assert not found, "the shell parses the server's words or notation:\n" + "\n".join(found)


def test_the_tables_read_no_notation_text_or_label_apart() -> None:
    files = table_files()
    found = [hit for p in files for hit in offenders(p, str(p.relative_to(GAMES)))]
    assert not found, "a table parses the server's words or notation:\n" + "\n".join(found)


PLANTED = {
    "regex.js": ("const seat = /seat (\\d+)/.exec(event.text);\n", 1),
    "split.js": ("const [kind, arg] = action.notation.split(' ');\n", 1),
    "chain.js": ("const x = 1;\nconst who = msg.outcome.label\n  .replace(/x/, 'y');\n", 2),
    "alias.js": ("let own = String(event.text || '');\nif (own.endsWith(tail)) own = 'x';\n", 2),
    "starts.js": ("legal.filter((a) => a.notation.startsWith('swap'));\n", 1),
    "template.js": ("const line = `Last: ${events[0].text.replace(/seat/g, 'x')}`;\n", 1),
}
"""One violation per file, each a way the old code read words apart, and its line."""

CLEAN = (
    '// a comment: text.split(" ") and notation.match(/x/) are not code\n'
    'const box = h("label", { for: "x" }, "a text.split(/ /) in a string");\n'
    "const said = input.value.trim().slice(0, 500);\n"
    "node.textContent = readWords(event.words, name);\n"
    "const parts = key.replace(/_/g, ' ');\n"
    "const moves = legalByMove(msg.legal, label);\n"
    "moves.deals.sort((a, b) => order.indexOf(a.glass) - order.indexOf(b.glass));\n"
)
"""What must pass: names in comments and strings, a parse of something else, words read as data."""


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_parse_is_named(tmp_path: Path, name: str) -> None:
    source, line = PLANTED[name]
    (tmp_path / name).write_text(source, encoding="utf-8")
    found = offenders(tmp_path / name, name)
    assert [hit.split(": ", 1)[0] for hit in found] == [f"{name}:{line}"], found


def test_clean_code_is_not_named(tmp_path: Path) -> None:
    (tmp_path / "clean.js").write_text(CLEAN, encoding="utf-8")
    assert offenders(tmp_path / "clean.js", "clean.js") == []
