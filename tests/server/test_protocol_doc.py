"""docs/protocol.md tells the truth about the messages and the refusal codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from apothecary.server import room as room_module
from apothecary.server.room import Room, RoomError, Settings

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")


def json_blocks() -> list[dict[str, object]]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]


def test_the_worked_update_has_exactly_the_keys_the_server_sends() -> None:
    room, _ = Room.create("in-vino-morte", 2, {}, None, Settings(), 0.0, "docs")
    room.claim("Ann")
    room.claim("Bob")
    room.start(0.0)
    sent = room.view(0)
    shown = next(b for b in json_blocks() if b.get("type") == "update")
    assert set(shown) == set(sent)
    assert shown["legal"] == sent["legal"]
    assert shown["state_id"] == sent["state_id"]


def test_every_refusal_code_is_documented() -> None:
    codes = {
        cls.code
        for cls in vars(room_module).values()
        if isinstance(cls, type) and issubclass(cls, RoomError)
    }
    codes |= {"malformed", "unknown_type", "rate_limited"}
    for code in codes - {"not_found", "conflict"}:
        assert f"`{code}`" in DOC, code


def test_the_worked_presence_message_has_exactly_the_keys_the_server_sends() -> None:
    room, _ = Room.create("in-vino-morte", 2, {}, None, Settings(), 0.0, "docs")
    room.claim("Ann")
    room.presence[0] += 1
    sent = room.presence_view()
    shown = next(b for b in json_blocks() if b.get("type") == "presence")
    assert set(shown) == set(sent)
    assert sent["connected"] == [True, False]
    assert sent["connected"] == [place["connected"] for place in room.view(None)["seats"]]
