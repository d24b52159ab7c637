"""JavaScript source read as code by the guard tests (tests/web/test_no_parsing.py,
tests/web/test_js_structure.py): comments and string literals blanked, regex
literals marked, so a name in a comment or a brace in a string is no code."""

from __future__ import annotations

REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^")
"""What a regex literal may follow (after anything else, ``/`` divides)."""


def blank(source: str) -> str:
    """``source`` with comments and the insides of string literals blanked (newlines
    kept, so line numbers stay) and each regex literal replaced by ``/R/``."""
    out: list[str] = []
    i, n = 0, len(source)
    last = ""  # the last significant character, to tell a regex from a division
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        if source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in source[i:j]))
            i = j
            continue
        if c in "\"'`":
            out.append(c)
            j = i + 1
            while j < n and source[j] != c:
                if source[j] == "\\":
                    out.append("  ")
                    j += 2
                    continue
                if c == "`" and source.startswith("${", j):
                    # a template's ${...} is code: keep it (its braces too), blank the rest
                    depth, k = 1, j + 2
                    while k < n and depth:
                        depth += {"{": 1, "}": -1}.get(source[k], 0)
                        k += 1
                    out.append("${" + blank(source[j + 2 : k - 1]) + "}")
                    j = k
                    continue
                out.append("\n" if source[j] == "\n" else " ")
                j += 1
            out.append(c)
            i = j + 1
            last = c
            continue
        after_return = bool(out) and out[-1].endswith("return")
        if c == "/" and (not last or last in REGEX_BEFORE or after_return):
            j = i + 1
            in_class = False
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
                j += 1  # flags
            out.append("/R/")
            i = j + 1
            last = "/"
            continue
        out.append(c)
        if not c.isspace():
            last = c
        i += 1
    return "".join(out)


def statements(code: str) -> list[tuple[int, str]]:
    """(first line number, text) of each line, with the lines that continue a chain
    (start with ``.``) joined to the one before."""
    joined: list[tuple[int, str]] = []
    for number, line in enumerate(code.split("\n"), start=1):
        if joined and line.lstrip().startswith(".") and not line.lstrip().startswith("..."):
            first, before = joined[-1]
            joined[-1] = (first, before + " " + line.strip())
        else:
            joined.append((number, line))
    return joined
