"""Named search bots in a server room think with budgets scaled to the game's
size, or are refused for a table too large (issue 28 item 2): a room's
``rollout`` at Poison Pot radius 4 took 66 s a move with its own defaults, and
Little Drop of Poison's ``ismcts`` over 900 s at 8 seats and target 1000."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from serving import FAST, app_client, make_room, sqlite_url

import apothecary
from apothecary import bots
from apothecary.core.errors import BadOptionError


def test_rollout_in_a_room_plays_fewer_rollouts_on_a_bigger_board() -> None:
    made = {
        radius: bots.load_for_room("rollout", apothecary.load("poison-pot", radius=radius), 0)
        for radius in (2, 3, 4)
    }
    counts = [made[r].rollouts for r in (2, 3, 4)]
    assert counts[0] > counts[1] > counts[2] >= 10
    assert counts[1] == 60  # the hard level's count on the published board
    # Outside a room the bot keeps its own default.
    assert bots.load("rollout", apothecary.load("poison-pot", radius=4), 0).rollouts == 200


def test_ismcts_in_a_room_scales_with_seats_and_target_and_refuses_huge_tables() -> None:
    def iterations(players: int, target: int) -> int:
        game = apothecary.load("little-drop-of-poison", players=players, target=target)
        return int(bots.load_for_room("ismcts", game, 0).iterations)

    assert iterations(4, 10) == 500
    assert iterations(4, 10) > iterations(8, 10) > iterations(8, 50) == 50
    huge = apothecary.load("little-drop-of-poison", players=8, target=1000)
    with pytest.raises(BadOptionError, match="choose a level"):
        bots.load_for_room("ismcts", huge, 0)
    # A level is the game's own, whatever the table.
    assert bots.load_for_room("hard", huge, 0) is not None


def test_a_room_refuses_a_search_bot_too_large_for_its_table(tmp_path: Path) -> None:
    # Bots in worker processes: a thread-mode server refuses every search bot first.
    workers = dataclasses.replace(FAST, bot_workers=1)
    with app_client(sqlite_url(tmp_path), workers) as client:
        refused = client.post(
            "/api/rooms",
            json={
                "host_name": "ida",
                "game": "little-drop-of-poison",
                "players": 8,
                "options": {"target": 100},
                "seats": ["open", *["ismcts"] * 7],
            },
        )
        assert refused.status_code == 400, refused.text
        assert "choose a level" in refused.json()["message"]
        room = make_room(
            client,
            host_name="ida",
            game="little-drop-of-poison",
            players=8,
            options={"target": 100},
        )
        seat_bot = client.put(
            f"/api/rooms/{room['code']}/seats/1/bot",
            json={"level": "ismcts"},
            headers={"Authorization": f"Bearer {room['host_token']}"},
        )
        assert seat_bot.status_code == 400, seat_bot.text
        assert "choose a level" in seat_bot.json()["message"]
