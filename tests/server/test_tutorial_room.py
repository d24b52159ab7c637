"""A learn-to-play room refuses what would break its script (issue 32).

The lesson's bots play the script and chance deals it, so once the room has
started: no rematch, no other person in a seat, no bot put in or handed a
seat. Each is refused with the code ``tutorial_room``, and the room is as it was.
"""

from __future__ import annotations

import pytest

from apothecary.core.tutorial import load_script
from apothecary.server.room import OPEN, Room, Settings, TutorialRoom


def lesson_room() -> tuple[Room, str, int]:
    """A started tutorial room of Poison Pot, set up as POST /api/rooms/tutorial does."""
    script = load_script("poison-pot")
    assert script is not None
    seats = [OPEN if seat == script.seat else "easy" for seat in range(script.players)]
    room, host = Room.create(
        "poison-pot",
        script.players,
        dict(script.options),
        seats,
        Settings(listed=False, fallback_level="easy", tutorial=True),
        now=0.0,
        seed="s",
    )
    room.claim("You", script.seat)
    room.start(0.0)
    return room, host, script.seat


def play_to_the_end(room: Room) -> None:
    """Follow the script: the expected move for every step, whoever plays it."""
    assert room.script is not None
    from apothecary.core.tutorial import scripted_action

    while room.status == "playing":
        state = room.state
        assert state is not None
        room.apply(scripted_action(room.script, state), 0.0)


def test_a_finished_lesson_refuses_a_rematch() -> None:
    room, _, _ = lesson_room()
    play_to_the_end(room)
    assert room.status == "over"
    with pytest.raises(TutorialRoom, match="real game") as refused:
        room.rematch(1.0)
    assert refused.value.code == "tutorial_room" and refused.value.status == 409
    assert room.status == "over" and room.game_no == 1


@pytest.mark.parametrize("seat", [None, 0])
def test_nobody_else_takes_a_seat(seat: int | None) -> None:
    room, _, _ = lesson_room()
    before = [place.to_json() for place in room.seats]
    with pytest.raises(TutorialRoom, match="learn-to-play"):
        room.claim("Intruder", seat)
    assert [place.to_json() for place in room.seats] == before


@pytest.mark.parametrize("whose", ["person", "bot"])
def test_no_bot_is_put_in_or_handed_a_seat(whose: str) -> None:
    room, _, person = lesson_room()
    seat = person if whose == "person" else 1 - person
    before = [place.to_json() for place in room.seats]
    with pytest.raises(TutorialRoom, match="bots play the script"):
        room.set_bot(seat, "hard", 0.0)
    assert [place.to_json() for place in room.seats] == before


def test_an_ordinary_room_still_plays_a_rematch() -> None:
    """The guard is the tutorial setting's, not every room's."""
    room, _ = Room.create("poison-pot", 2, {}, ["open", "easy"], Settings(), now=0.0, seed="s")
    room.claim("Ann", 0)
    room.start(0.0)
    assert room.settings.tutorial is False
    room._not_in_a_lesson("never")  # no refusal outside a lesson
