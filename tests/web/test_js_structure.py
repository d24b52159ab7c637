"""No JavaScript function of the browser client is over 200 lines (issue 26 item 4).

Functions are found on the code with comments and strings blanked
(support.js_source): every ``{`` that opens a function body (after a parameter
list ``)`` not of ``if``/``for``/``while``/``switch``/``catch``, or after ``=>``),
matched with its ``}``; its length counts the lines from the one with ``{`` to
the one with ``}``. A function, a method and an arrow function alike; a class
body is a container, not a function (its methods are each measured).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_no_parsing import table_files

from support.js import GAMES, STATIC
from support.js_source import blank

MOST = 200
CONTROL = {"if", "for", "while", "switch", "catch", "with", "function"}


def _name_before(code: str, paren_close: int) -> str | None:
    """The word before the ``(`` matching the ``)`` at ``paren_close``."""
    depth = 0
    for i in range(paren_close, -1, -1):
        if code[i] == ")":
            depth += 1
        elif code[i] == "(":
            depth -= 1
            if depth == 0:
                word = re.search(r"([A-Za-z_$][\w$]*)\s*$", code[:i])
                return word.group(1) if word else ""
    return None


def functions(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of each function in ``source``."""
    code = blank(source)
    found = []
    stack: list[tuple[int, str | None]] = []
    for i, c in enumerate(code):
        if c == "{":
            before = code[:i].rstrip()
            name: str | None = None
            if before.endswith("=>"):
                name = "(arrow)"
            elif before.endswith(")"):
                word = _name_before(code, len(before) - 1)
                if word is not None and word not in CONTROL:
                    name = word or "(anonymous)"
                elif word == "function":
                    name = "(anonymous)"
            stack.append((i, name))
        elif c == "}" and stack:
            start, name = stack.pop()
            if name is not None:
                first = code.count("\n", 0, start) + 1
                found.append((name, first, code.count("\n", start, i) + 1))
    return found


def too_long(path: Path, label: str) -> list[str]:
    """``label:line name (N lines)`` of each function of ``path`` over MOST lines."""
    return [
        f"{label}:{first} {name} ({lines} lines)"
        for name, first, lines in functions(path.read_text(encoding="utf-8"))
        if lines > MOST
    ]


def static_files() -> list[Path]:
    """Every JavaScript file of static/ (its own, not vendored ones)."""
    return [p for p in sorted(STATIC.rglob("*.js")) if "vendor" not in p.relative_to(STATIC).parts]


def test_no_function_in_static_is_over_200_lines() -> None:
    files = static_files()
    assert len(files) > 10
    found = [hit for p in files for hit in too_long(p, str(p.relative_to(STATIC)))]
    assert not found, "functions over 200 lines:\n" + "\n".join(found)


def test_no_function_in_a_table_is_over_200_lines() -> None:
    files = table_files()
    assert len(files) >= 8  # every game's table.js and layout.js
    found = [hit for p in files for hit in too_long(p, str(p.relative_to(GAMES)))]
    assert not found, "functions over 200 lines:\n" + "\n".join(found)


def _body(lines: int) -> str:
    """``lines`` lines of statements, with braces in strings and comments to mislead."""
    return "".join(f'  const x{i} = "{{"; // }}\n' for i in range(lines))


@pytest.mark.parametrize(
    ("opening", "name"),
    [
        ("function planted(a, b) {", "planted"),
        ("class Planted {\n  planted(a) {", "planted"),
        ("const planted = async (a) => {", "(arrow)"),
        ("export function planted() {", "planted"),
    ],
)
def test_a_planted_201_line_function_is_named(tmp_path: Path, opening: str, name: str) -> None:
    closing = "}\n}\n" if opening.startswith("class") else "}\n"
    first = opening.count("\n") + 1
    # 199 lines of body: the lines of { and } make it 201
    planted = tmp_path / "planted.js"
    planted.write_text(f"{opening}\n{_body(MOST - 1)}{closing}", encoding="utf-8")
    assert too_long(planted, "planted.js") == [f"planted.js:{first} {name} ({MOST + 1} lines)"]
    # one line fewer, exactly 200: allowed; and an `if` block is no function
    planted.write_text(f"{opening}\n{_body(MOST - 2)}{closing}", encoding="utf-8")
    assert too_long(planted, "planted.js") == []
    planted.write_text(f"if (a) {{\n{_body(MOST + 5)}}}\n", encoding="utf-8")
    assert too_long(planted, "planted.js") == []
