"""No word a person reads in the terminal app is left out of the catalogs
(issue #32, item 2: "every word a person reads in the Textual terminal app
... comes from gettext catalogs").

An AST scan of ``apothecary/tui``: a string literal with words in it, passed
to what shows text (a widget, a label, a binding's description, a
notification, a ``Text`` or its ``append``, a screen's title) and not inside
``_``/``_n``/``T_``, is a word the catalogs never see. The scan is shown to
catch a planted one of each kind."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import apothecary.tui

TUI = Path(apothecary.tui.__file__).parent

VIEWS = [
    TUI / "views" / "base.py",
    *sorted((TUI.parent / "games").glob("*/terminal.py")),
]
"""The games' terminal views: what they draw and what their methods say."""

SHOWS = {
    "Static",
    "Label",
    "Button",
    "Input",
    "NotationInput",
    "Checkbox",
    "RadioButton",
    "Option",
    "ListItem",
    "Binding",
    "notify",
    "update",
    "write",
    "Text",
    "append",
    "assemble",
    "Panel",
    "Markdown",
}
"""Calls whose text arguments a person reads."""

TEXT_KEYWORDS = {"placeholder", "title", "tooltip", "description", "label", "sub_title"}
"""Keyword arguments that are text to read, whatever the call."""

NOT_TEXT_KEYWORDS = {"id", "classes", "style", "variant", "name", "end", "key", "action"}
"""Keyword arguments that never are (an id, a style, a key)."""

MARKERS = {"_", "_n", "T_"}

NAMES = {"apothecary"}
"""Names, the same in every language (the app's title)."""

WORDS = re.compile(r"[A-Za-z]{2,}")


def _marked(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` sits inside a marker call."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in MARKERS:
            return True
    return False


def _words(node: ast.AST) -> str | None:
    """The literal words of a text argument, if it has any."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if WORDS.search(node.value) else None
    if isinstance(node, ast.JoinedStr):
        parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
        text = "".join(str(part) for part in parts)
        return text if WORDS.search(text) else None
    if isinstance(node, ast.BinOp):
        return _words(node.left) or _words(node.right)
    return None


def _texts(call: ast.Call) -> list[ast.AST]:
    """The arguments of ``call`` that a person reads."""
    func = call.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    out: list[ast.AST] = [k.value for k in call.keywords if k.arg in TEXT_KEYWORDS]
    if name == "Binding":
        out += call.args[2:3]  # key, action, description
    elif name in {"Text", "append", "Static", "Label", "Button", "notify", "update", "write"}:
        out += call.args[:1]
    elif name in SHOWS and isinstance(func, ast.Name):  # not typer.Option("--seat")
        out += call.args
    return out


def untranslated(source: str, filename: str = "<planted>", view: bool = False) -> list[str]:
    """``file:line: text`` for each unmarked text of ``source``; in a game's
    ``view`` also each text a method returns (a view's status, its reasons)."""
    tree = ast.parse(source, filename)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        candidates: list[ast.AST] = []
        if isinstance(node, ast.Call):
            candidates = _texts(node)
        elif isinstance(node, ast.Assign):
            names = [
                t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in node.targets
            ]
            if any(n in {"TITLE", "SUB_TITLE", "title", "sub_title"} for n in names):
                candidates = [node.value]
        elif view and isinstance(node, ast.Return) and node.value is not None:
            candidates = [node.value]
        for candidate in candidates:
            text = _words(candidate)
            if text is not None and text not in NAMES and not _marked(candidate, parents):
                found.append((getattr(candidate, "lineno", 0), text))
    return [f"{filename}:{line}: {text!r}" for line, text in sorted(found)]


def test_every_text_the_terminal_app_shows_goes_through_the_catalogs() -> None:
    found = []
    for path in sorted(TUI.rglob("*.py")):
        found += untranslated(path.read_text(encoding="utf-8"), str(path.relative_to(TUI)))
    assert not found, "words shown outside _() (apothecary.i18n.terminal):\n" + "\n".join(found)


def test_every_text_a_game_view_draws_or_says_goes_through_the_catalogs() -> None:
    found = []
    for path in VIEWS:
        found += untranslated(path.read_text(encoding="utf-8"), path.name, view=True)
    assert not found, "words shown outside _() (apothecary.i18n.terminal):\n" + "\n".join(found)


def test_a_planted_unmarked_text_of_each_kind_is_caught() -> None:
    planted = """
class Screen:
    BINDINGS = [Binding("q", "quit", "Leave the table")]
    TITLE = "apothecary"
    SUB_TITLE = "The apothecary"
    def compose(self):
        yield Static("Your turn")
        yield Button(f"Show seat {seat}", id="ready")
        yield Input(placeholder="type a move")
        self.notify("Saved " + path)
        out.append(" plays ", style="bold")
        yield Static(_("Fine"), id="fine-id")
        yield Button(_("Seat {n}", n=1), variant="primary")
        out.append("\\n")
    def status(self):
        return f"{who} to move"
    def scores(self):
        return [f"{s:g}" for s in scores]
"""
    assert not any("to move" in line for line in untranslated(planted))
    found = untranslated(planted, view=True)
    assert [line.split(": ", 1)[1] for line in found] == [
        "'Leave the table'",
        "'The apothecary'",
        "'Your turn'",
        "'Show seat '",
        "'type a move'",
        "'Saved '",
        "' plays '",
        "' to move'",
    ], found
