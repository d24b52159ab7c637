"""What the sockets are sent is the room's message, whatever encodes it.

The hub puts each update in JSON with orjson (server/hub.py ``_encode``), for
its speed; these tests hold it to the same value ``json`` gives, for every
game's real updates and for the inputs orjson refuses, and the store's row
of a room to the fields its dataclasses have."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any

import pytest

from apothecary.core.registry import games
from apothecary.server import hub as hub_module
from apothecary.server.hub import _encode
from apothecary.server.room import Room, Seat, Settings


def _updates(game: str, moves: int, seed: int) -> list[dict[str, Any]]:
    """Every viewer's update after each of ``moves`` random moves of ``game``."""
    room, _ = Room.create(game, None, {}, None, Settings(), now=0.0, seed=f"enc{seed}")
    players = room.game.num_players
    for i in range(players):
        room.claim(f"Zoë {i}", i)  # non-ASCII names: orjson writes them as UTF-8
    room.start(0.0)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(moves):
        pending = room.pending()
        if pending is None or room.state is None or room.status == "over":
            break
        action = (
            room.chance_action()
            if pending.kind == "chance"
            else rng.choice(room.state.legal_actions())
        )
        room.apply(action, 1.0)
        out.extend(room.view(viewer, 0, 1.0, 0) for viewer in [*range(players), None])
    return out


def _mismatches(encode: Callable[[dict[str, Any]], str], messages: list[dict[str, Any]]) -> int:
    """How many messages ``encode`` puts in other text than json's compact
    form with UTF-8 for non-ASCII (the very text, not only the same value)."""
    return sum(
        encode(m) != json.dumps(m, separators=(",", ":"), ensure_ascii=False) for m in messages
    )


@pytest.mark.parametrize("game", games())
def test_every_games_updates_encode_to_the_text_json_gives(game: str) -> None:
    updates = _updates(game, 40, seed=3)
    assert updates
    assert _mismatches(_encode, updates) == 0


def test_what_orjson_refuses_is_encoded_by_json_as_before() -> None:
    # A lone surrogate (json.loads reads "\ud800" into one) and an integer past 64 bits.
    message: dict[Any, Any] = {"type": "chat", "text": "\ud800", "n": 2**70, 1: "int key"}
    assert json.loads(_encode(message)) == {
        "type": "chat",
        "text": "\ud800",
        "n": 2**70,
        "1": "int key",
    }


def test_a_planted_wrong_encoder_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The check above can fail: an encoder that drops a field is seen.
    original = hub_module._encode

    def lossy(message: dict[str, Any]) -> str:
        return original({k: v for k, v in message.items() if k != "legal"})

    updates = _updates("in-vino-morte", 5, seed=1)
    assert _mismatches(lossy, updates) == sum(1 for m in updates if "legal" in m)


def test_a_seat_and_settings_are_stored_with_every_field() -> None:
    # to_json copies the fields without asdict: it must still give all of them.
    seat = Seat("human", "hard", "Ann", "h" * 64, True, "timeout", 3)
    settings = Settings(30.0, 3, False, "hard", True)
    for value in (seat, settings):
        stored = value.to_json()
        assert stored == asdict(value)
        assert list(stored) == [f.name for f in fields(value)]
        assert type(value).from_json(stored) == value
