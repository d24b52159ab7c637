"""The string literals of the browser's JavaScript that a person would read, found
without running it (tests/web/test_browser_strings.py).

A small lexer reads a file into tokens (comments dropped; strings, template literals
and regex literals each one token) and follows the nesting of calls, arrays and
objects. A literal with a word in it (two letters in a row) is *shown* when it
stands where the page puts words before a person:

- a child of ``h(tag, attrs, ...)`` / ``s(...)`` (the third argument on), the words
  of ``svgText(parent, x, y, words)``, the message of ``toast``/``alert``/``confirm``;
- the value of an object key that is text (``text:``, ``title:``, ``label:``,
  ``placeholder:``, ``"aria-label":``, ...);
- assigned to ``.textContent``, ``.innerText``, ``.title``, ``.placeholder``, ...;
- the value of ``setAttribute("aria-label" | "title" | ..., value)``.

A literal inside the arguments of ``t``/``tn``/``tp`` is a message and is never
shown as it is. What a literal in a template says is its fixed text (``${...}``
parts are code, read on their own). The scan does not follow data (a table of
words in a constant is not seen): the test's allow-list and review cover the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^")
"""What a regex literal may follow (after anything else, ``/`` divides)."""

TRANSLATING = {"t", "tn", "tp", "tx"}
"""The calls whose arguments are catalog messages."""

TEXT_CHILDREN = {
    "h": (2, 99),
    "s": (2, 99),
    "svgText": (3, 3),
    "text": (3, 3),  # the tables' kit: text(parent, x, y, words)
    "toast": (0, 0),
    "alert": (0, 0),
    "confirm": (0, 0),
}
"""Calls whose arguments from the first index to the last are words on the page."""

TEXT_KEYS = {
    "text",
    "title",
    "label",
    "placeholder",
    "alt",
    "aria-label",
    "ariaLabel",
    "aria-description",
    "aria-roledescription",
    "aria-valuetext",
    "textContent",
    "innerText",
    "words",
    "dialog",
    "summary",
}
"""Object keys, properties and attributes whose value a person reads (or hears)."""

WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")


@dataclass
class Token:
    """One token: ``kind`` is ``str`` (a quoted or template literal, ``value`` its
    fixed text), ``name``, ``punct`` or ``regex``."""

    kind: str
    value: str
    line: int
    parts: list[str] = field(default_factory=list)  # a template's ${...} code
    start: int = 0  # where in the source it begins


@dataclass
class Shown:
    """A literal the page shows as it is: where, and what it says."""

    path: str
    line: int
    text: str
    start: int = -1  # where a quoted literal (not a template) begins in the source

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def _escape(source: str, j: int) -> tuple[str, int]:
    """The character the escape at ``source[j] == "\\"`` stands for (``\\u21bb`` is one
    arrow, not the letters "u21bb"), and the index after it."""
    found = re.compile(r"u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})").match(
        source, j + 1
    )
    if found:
        return chr(int(next(g for g in found.groups() if g), 16)), found.end()
    return source[j + 1 : j + 2], j + 2


def _template(source: str, i: int, line: int) -> tuple[Token, int, int]:
    """The template literal starting at ``source[i] == "`"``: its token, the index
    after it and the line it ends on."""
    j, n = i + 1, len(source)
    text: list[str] = []
    parts: list[str] = []
    while j < n and source[j] != "`":
        if source[j] == "\\":
            said, j = _escape(source, j)
            text.append(said)
            continue
        if source.startswith("${", j):
            depth, k = 1, j + 2
            while k < n and depth:
                depth += {"{": 1, "}": -1}.get(source[k], 0)
                k += 1
            parts.append(source[j + 2 : k - 1])
            text.append(" ")
            j = k
            continue
        text.append(source[j])
        j += 1
    body = source[i : j + 1]
    return Token("str", "".join(text), line, parts, i), j + 1, line + body.count("\n")


def tokens(source: str) -> list[Token]:
    """The tokens of ``source``, comments left out."""
    out: list[Token] = []
    i, n, line = 0, len(source), 1
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += source[i:j].count("\n")
            i = j
        elif c == "`":
            token, i, line = _template(source, i, line)
            out.append(token)
        elif c in "\"'":
            j, text = i + 1, []
            while j < n and source[j] != c:
                if source[j] == "\\":
                    said, j = _escape(source, j)
                    text.append(said)
                    continue
                text.append(source[j])
                j += 1
            out.append(Token("str", "".join(text), line, start=i))
            i = j + 1
        elif c == "/" and _regex_may_start(out):
            j, in_class = i + 1, False
            while j < n and source[j] != "\n":
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                elif source[j] == "/" and not in_class:
                    break
                j += 1
            while j + 1 < n and source[j + 1].isalpha():
                j += 1
            out.append(Token("regex", source[i : j + 1], line))
            i = j + 1
        elif c.isalnum() or c in "_$":
            m = re.compile(r"[\w$]+").match(source, i)
            assert m is not None
            out.append(Token("name", m.group(), line))
            i = m.end()
        else:
            out.append(Token("punct", c, line))
            i += 1
    return out


def _regex_may_start(before: list[Token]) -> bool:
    if not before:
        return True
    last = before[-1]
    if last.kind == "name":
        return last.value in {"return", "typeof", "case", "in", "of", "void"}
    return last.kind == "punct" and last.value in REGEX_BEFORE


@dataclass
class _Frame:
    """One open bracket: a call's ``(`` (``callee`` named), an array, an object or
    a group; which argument or key the scan is in."""

    opener: str
    callee: str | None = None
    argument: int = 0
    first: str | None = None  # the call's first argument, when a literal
    key: str | None = None  # the object key whose value is being read
    assigned: str | None = None  # a text property being assigned in this frame


def _shows(stack: list[_Frame]) -> bool:
    """Whether a literal read with ``stack`` open is put before a person as it is."""
    if any(f.callee in TRANSLATING for f in stack):
        return False
    for frame in reversed(stack):
        if frame.assigned in TEXT_KEYS:
            return True
        if frame.opener == "(" and frame.callee is not None:
            if frame.callee == "setAttribute":
                return frame.argument == 1 and frame.first in TEXT_KEYS
            span = TEXT_CHILDREN.get(frame.callee)
            return span is not None and span[0] <= frame.argument <= span[1]
        if frame.opener == "{":
            return frame.key in TEXT_KEYS
    return False


def shown(source: str, path: str = "<js>") -> list[Shown]:
    """Every literal with a word that ``source`` puts before a person untranslated."""
    found: list[Shown] = []
    stack: list[_Frame] = [_Frame("top")]
    items = tokens(source)
    for k, token in enumerate(items):
        before = items[k - 1] if k else None
        frame = stack[-1]
        if token.kind == "str":
            if WORD.search(token.value) and _shows(stack) and not _compared(items, k):
                quoted = token.start if not token.parts and source[token.start] != "`" else -1
                found.append(Shown(path, token.line, token.value.strip(), quoted))
            for part in token.parts:
                # a template the page shows shows what its ${...} gives, too
                inner = _bare(part, path) if _shows(stack) else shown(part, path)
                found += [Shown(path, token.line + s.line - 1, s.text) for s in inner]
            if frame.callee and frame.argument == 0 and frame.first is None:
                frame.first = token.value
            continue
        if token.kind != "punct":
            continue
        v = token.value
        if v in "([{":
            callee = before.value if v == "(" and before and before.kind == "name" else None
            defined = items[k - 2] if k >= 2 else None
            if defined and defined.kind == "name" and defined.value == "function":
                callee = None  # a definition's parameters, not a call's arguments
            stack.append(_Frame(v, callee=callee))
        elif v in ")]}" and len(stack) > 1:
            stack.pop()
        elif v == ",":
            frame.argument += 1
            frame.key = None
        elif v == ";":
            frame.assigned = None
        elif v == ":" and frame.opener == "{" and before and before.kind in ("name", "str"):
            frame.key = before.value
        elif v == "=" and before and before.kind == "name" and _is_assignment(items, k):
            # a property (``node.title = ...``), not a variable that happens to be named so
            dot = items[k - 2] if k >= 2 else None
            if dot and dot.kind == "punct" and dot.value == ".":
                frame.assigned = before.value
    return found


def _bare(source: str, path: str) -> list[Shown]:
    """Every literal with a word in ``source`` (code whose value is shown) that is not a
    message nor compared: ``${n === 1 ? "pt" : "pts"}`` in a shown template."""
    found: list[Shown] = []
    calls: list[str | None] = []
    items = tokens(source)
    for k, token in enumerate(items):
        before = items[k - 1] if k else None
        if token.kind == "punct" and token.value in "([{":
            named = token.value == "(" and before is not None and before.kind == "name"
            calls.append(before.value if named and before else None)
        elif token.kind == "punct" and token.value in ")]}" and calls:
            calls.pop()
        elif token.kind == "str" and not any(c in TRANSLATING for c in calls):
            if WORD.search(token.value) and not _compared(items, k):
                found.append(Shown(path, token.line, token.value.strip()))
            for part in token.parts:
                found += _bare(part, path)
    return found


def _compared(items: list[Token], k: int) -> bool:
    """Whether the literal at ``k`` is compared (``kind === "user"``), not shown."""
    ops = [t.value if t.kind == "punct" else " " for t in items[max(k - 2, 0) : k + 3]]
    before, after = "".join(ops[: min(k, 2)]), "".join(ops[min(k, 2) + 1 :])
    return before.endswith(("==", "!=")) or after.startswith(("==", "!="))


def _is_assignment(items: list[Token], k: int) -> bool:
    """Whether the ``=`` at ``k`` assigns (not ``==``, ``=>``, ``<=``, ...)."""
    after = items[k + 1] if k + 1 < len(items) else None
    if after and after.kind == "punct" and after.value in "=>":
        return False
    before = items[k - 1]
    return not (before.kind == "punct" and before.value in "=!<>")


def shown_in(path: Path, root: Path) -> list[Shown]:
    """:func:`shown` for the file at ``path``, named relative to ``root``."""
    return shown(path.read_text(encoding="utf-8"), str(path.relative_to(root)))


# -- Prose anywhere: the literals the scan above cannot place (words kept in a table, a
# function's argument, a returned array), caught by how they read instead.

PROSE = re.compile(
    r"[A-Za-zÀ-ÿ]{2,}[ \u00a0]+[A-Za-zÀ-ÿ]{2,}"  # two words
    r"|^[A-Z][a-z]{2,}[.!?…:]?$"  # one capitalized word
    r"|[a-z]{2,}[.!?…]$"  # the end of a sentence
    r"|\([a-z]{2,}\)"  # an aside: " (you)"
)
"""Two words in a row, or one capitalized word alone ("Open", "Replay"), or a word that
ends a sentence: what a person reads, rather than a class, a key or an identifier."""

CLASSES = re.compile(r"(?:[\w.]*[-_.][\w.-]*)(?: [\w.]*[-_.][\w.-]*)*")
"""Words that each carry a ``-``, ``_`` or ``.`` (``tsa-cell tsa-cell-hot``): class names,
keys, file names, never prose."""

CODE_CALLS = {
    "querySelector",
    "querySelectorAll",
    "closest",
    "matches",
    "getElementById",
    "add",
    "remove",
    "toggle",
    "contains",
    "addEventListener",
    "removeEventListener",
    "getAttribute",
    "removeAttribute",
    "hasAttribute",
    "toggleAttribute",
    "createElement",
    "createElementNS",
    "startsWith",
    "endsWith",
    "includes",
    "indexOf",
    "split",
    "join",
    "replace",
    "fetch",
    "getItem",
    "setItem",
    "removeItem",
    "log",
    "warn",
    "error",
    "info",
    "debug",
    "import",
    "RegExp",
    "svg",
    "html",
    "ns",
}
"""Calls whose arguments are code (selectors, classes, event names, console messages for
developers, element names), never words on the page."""

CODE_KEYS = {
    "class",
    "className",
    "cls",
    "id",
    "role",
    "type",
    "name",
    "autocomplete",
    "href",
    "src",
    "rel",
    "for",
    "method",
    "kind",
    "key",
    "tone",
    "pattern",
    "inputmode",
    "d",
    "transform",
    "viewBox",
    "style",
    "tag",
    "state",
    "status",
}
"""Object keys whose value is code."""


def prose(source: str, path: str = "<js>") -> list[Shown]:
    """Every literal outside ``t``/``tn``/``tp``/``tx`` that reads as prose and does not
    stand where code goes (see :data:`CODE_CALLS` and :data:`CODE_KEYS`)."""
    found: list[Shown] = []
    stack: list[_Frame] = [_Frame("top")]
    items = tokens(source)
    for k, token in enumerate(items):
        before = items[k - 1] if k else None
        frame = stack[-1]
        if token.kind == "str":
            for part in token.parts:
                found += [Shown(path, token.line + s.line - 1, s.text) for s in prose(part, path)]
            if any(f.callee in TRANSLATING for f in stack) or _compared(items, k):
                continue
            tag = frame.callee in {"h", "s", "setAttribute"} and frame.argument == 0
            if tag or _in_code(stack):
                continue
            text = " ".join(token.value.split())
            if PROSE.search(text) and not CLASSES.fullmatch(text):
                found.append(Shown(path, token.line, text))
            continue
        if token.kind != "punct":
            continue
        v = token.value
        if v in "([{":
            callee = before.value if v == "(" and before and before.kind == "name" else None
            defined = items[k - 2] if k >= 2 else None
            if defined and defined.kind == "name" and defined.value == "function":
                callee = None
            stack.append(_Frame(v, callee=callee))
        elif v in ")]}" and len(stack) > 1:
            stack.pop()
        elif v == ",":
            frame.argument += 1
            frame.key = None
        elif v == ":" and frame.opener == "{" and before and before.kind in ("name", "str"):
            frame.key = before.value
    return found


def _in_code(stack: list[_Frame]) -> bool:
    """Whether the innermost call or object key open on ``stack`` takes code."""
    for frame in reversed(stack):
        if frame.opener == "(" and frame.callee is not None:
            return frame.callee in CODE_CALLS
        if frame.opener == "{" and frame.key is not None:
            return frame.key in CODE_KEYS
    return False


def prose_in(path: Path, root: Path) -> list[Shown]:
    """:func:`prose` for the file at ``path``, named relative to ``root``."""
    return prose(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
