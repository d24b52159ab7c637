"""The server's code stays in small pieces: no function in ``server/`` over 80
lines, and every client command is one class with one handler."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import apothecary.server
from apothecary.server import commands

SERVER = Path(apothecary.server.__file__).parent
LIMIT = 80


def long_functions(folder: Path, limit: int = LIMIT) -> list[str]:
    """``path:line name (n lines)`` for every function under ``folder`` longer
    than ``limit`` lines (its decorators left out, its signature counted)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    where = path.relative_to(folder)
                    found.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_in_the_server_is_over_80_lines() -> None:
    assert long_functions(SERVER) == []


def test_planted_a_long_function_is_named(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    (tmp_path / "planted.py").write_text(f"def short():\n    pass\n\n\ndef planted():\n{body}")
    (tmp_path / "inner").mkdir()
    nested = "class C:\n    async def method(self):\n" + body.replace("    ", "        ")
    (tmp_path / "inner" / "deep.py").write_text(nested)
    assert long_functions(tmp_path) == [
        "inner/deep.py:2 method (81 lines)",
        "planted.py:5 planted (81 lines)",
    ]


def test_every_command_type_is_one_class() -> None:
    socket, room = set(commands.SOCKET), set(commands.ROOM)
    assert socket == {"act", "chat", "back", "ping", "hello"}
    assert room == {
        "info",
        "claim",
        "start",
        "bot",
        "open_seat",
        "rematch",
        "record",
        "standing",  # an account's games: who is to move (seats.py)
        "forget",  # a deleted account's seat renamed (seats.py)
    }
    for cls in [*commands.SOCKET.values(), *commands.ROOM.values()]:
        made = commands.from_json(cls(**_blank(cls)).to_json())
        assert type(made) is cls


def _blank(cls: type[commands.Command]) -> dict[str, object]:
    return {f.name: "ABC" if f.name == "code" else None for f in dataclasses.fields(cls)}
