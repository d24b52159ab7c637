"""The room's state machine, without a socket or a database."""

from __future__ import annotations

import random
from typing import Any

import pytest

from apothecary.core.game import CHANCE
from apothecary.server.room import (
    GameOver,
    IllegalAction,
    MalformedAction,
    NotAllowed,
    NotYourTurn,
    Room,
    RoomError,
    Settings,
    StaleState,
    WrongPhase,
    hash_token,
)


def drive(room: Room, now: float = 0.0, humans: Any = None, steps: int | None = None) -> None:
    """Play chance and bots until a human is to move (or the game ends, or
    ``steps`` actions were played). ``humans(room, seat)`` picks a human's
    action; None stops at a human."""
    for _ in range(steps or 100_000):
        pending = room.pending()
        if pending is None or pending.kind == "next_game":
            return
        if pending.kind == "chance":
            room.apply(room.chance_action(), now)
        elif pending.kind == "bot":
            assert pending.seat is not None
            state = room.state
            assert state is not None
            room.apply(room.make_bot(pending.seat).step(state.clone()), now, by_bot=True)
        elif humans is None:
            return
        else:
            assert pending.seat is not None
            room.apply(humans(room, pending.seat), now)
    if steps is None:
        raise AssertionError("the game did not end")


def first_legal(room: Room, seat: int) -> int:
    state = room.state
    assert state is not None
    return state.legal_actions()[0]


def new_room(game: str = "in-vino-morte", players: int = 3, **settings: Any) -> tuple[Room, str]:
    seats = settings.pop("seats", None)
    return Room.create(game, players, {}, seats, Settings(**settings), now=0.0, seed="s")


def test_a_room_plays_a_game_to_its_end_with_people_and_bots() -> None:
    room, host = new_room(seats=["open", "random", "open"])
    room.check_host(host)
    seat_a, _token_a = room.claim("Ann")
    seat_b, token_b = room.claim("Bob", 2)
    assert (seat_a, seat_b) == (0, 2)
    assert room.seat_of(token_b) == 2
    room.start(0.0)
    drive(room, humans=first_legal)
    assert room.status == "over"
    assert room.outcome is not None and room.outcome["winners"]


def test_tokens_are_stored_only_as_hashes() -> None:
    room, host = new_room()
    _, token = room.claim("Ann")
    stored = repr(room.snapshot())
    assert token not in stored and host not in stored
    assert hash_token(token) in stored and hash_token(host) in stored


def test_forged_and_missing_tokens_are_refused() -> None:
    room, host = new_room()
    _, token = room.claim("Ann")
    for forged in ["", "x" * 32, token + "x", None, 12, host]:
        with pytest.raises(NotAllowed):
            room.seat_of(forged)
    for forged in ["", token, None, host[:-1]]:
        with pytest.raises(NotAllowed):
            room.check_host(forged)


def test_the_refusals_come_in_the_documented_order() -> None:
    """The server checks in this order: game over, not your turn (or not a
    seat), malformed, illegal, stale state id."""
    room, _ = new_room(seats=["open", "open", "open"])
    room.claim("Ann")
    room.claim("Bob")
    room.claim("Cat")
    room.start(0.0)
    drive(room)
    state = room.state
    assert state is not None
    mover = state.current_player()
    other = (mover + 1) % 3
    illegal = next(
        a for a in range(room.game.num_distinct_actions()) if a not in state.legal_actions()
    )
    stale = "0:0"
    before = room.snapshot(), room.state_id
    # Not your turn beats malformed; malformed beats illegal; illegal beats stale.
    with pytest.raises(NotYourTurn):
        room.check_action(other, "%% nonsense", stale)
    with pytest.raises(NotYourTurn):
        room.check_action(None, state.legal_actions()[0], room.state_id)
    with pytest.raises(MalformedAction):
        room.check_action(mover, "%% nonsense", stale)
    with pytest.raises(MalformedAction):
        room.check_action(mover, True, room.state_id)
    with pytest.raises(MalformedAction):
        room.check_action(mover, 10**6, room.state_id)
    with pytest.raises(IllegalAction):
        room.check_action(mover, illegal, stale)
    with pytest.raises(StaleState):
        room.check_action(mover, state.legal_actions()[0], stale)
    assert (room.snapshot(), room.state_id) == before
    chosen = room.check_action(
        mover, state.action_to_string(state.legal_actions()[0]), room.state_id
    )
    room.apply(chosen, 1.0)
    drive(room, humans=first_legal)
    # Game over beats everything.
    with pytest.raises(GameOver):
        room.check_action(None, "%% nonsense", stale)


def test_chance_and_bots_depend_only_on_the_seed_and_the_step() -> None:
    """After a crash a room continues exactly as it would have without one."""

    def play(crash_at: int | None) -> list[int]:
        room, _ = new_room("tea-scones-arsenic", 3, seats=["open", "rules", "easy"])
        room.claim("Ann")
        room.start(0.0)
        rng = random.Random(5)

        def human(r: Room, seat: int) -> int:
            state = r.state
            assert state is not None
            return rng.choice(state.legal_actions())

        steps = 0
        while room.status == "playing":
            drive(room, humans=human, steps=1)
            steps += 1
            if steps == crash_at:
                state = room.state
                assert state is not None
                room = Room.restore(room.snapshot(), state.history(), room.seating)
        state = room.state
        assert state is not None
        return state.history()

    assert play(None) == play(7) == play(30)


def test_restore_gives_every_viewer_the_same_message() -> None:
    room, _ = new_room("little-drop-of-poison", 4, seats=["open", "easy", "easy", "easy"])
    room.claim("Ann")
    room.start(0.0)
    drive(room, humans=first_legal, steps=60)
    state = room.state
    assert state is not None
    again = Room.restore(room.snapshot(), state.history(), room.seating)
    for viewer in [0, 1, 2, 3, None]:
        assert again.view(viewer) == room.view(viewer)


def test_a_turn_timer_hands_the_seat_to_its_bot_until_the_person_acts() -> None:
    """Turn timer: when a human's time runs out, the seat's chosen bot level
    plays for it until the human acts again."""
    room, _ = new_room("tea-scones-arsenic", 2, seats=["open", "open"], turn_seconds=30)
    room.claim("Ann")
    room.claim("Bob")
    room.start(100.0)
    drive(room, 100.0)
    pending = room.pending()
    assert pending is not None and pending.kind == "human" and pending.deadline == 130.0
    seat = pending.seat
    assert seat is not None
    assert room.timeout(129.0, pending.state_id) is None  # too early
    assert room.timeout(131.0, "1:999") is None  # stale
    assert room.timeout(131.0, pending.state_id) is not None
    assert room.seats[seat].away
    after = room.pending()
    assert after is not None and after.kind == "bot" and after.seat == seat
    # The bot plays on for the person while away ...
    state = room.state
    assert state is not None
    room.apply(room.make_bot(seat).step(state.clone()), 132.0, by_bot=True)
    assert room.seats[seat].away
    # ... and the person's own action takes the seat back.
    room.back(seat, 140.0)
    assert not room.seats[seat].away


def test_a_series_plays_on_until_someone_reaches_the_target() -> None:
    room, _ = new_room(seats=["random", "random", "random"], match_target=2)
    room.start(0.0)
    games = 0
    while True:
        drive(room)
        games += 1
        pending = room.pending()
        if pending is None:
            break
        assert pending.kind == "next_game"
        room.next_game(0.0)
        assert games < 50
    winner = room.series_winner()
    assert winner is not None and room.seats[winner].wins == 2
    assert sum(s.wins for s in room.seats) >= games >= 2


def test_a_rematch_rotates_the_people_one_seat_on() -> None:
    room, _host = new_room(seats=["open", "random", "open"])
    room.claim("Ann")
    _, bob = room.claim("Bob")
    room.start(0.0)
    drive(room, humans=first_legal)
    room.rematch(0.0)
    assert [s.name for s in room.seats] == ["Bob", "Ann", ""]
    assert room.seat_of(bob) == 0
    assert room.game_no == 2 and room.status == "playing"


def test_lobby_rules() -> None:
    room, _ = new_room(seats=["open", "random", "open"])
    with pytest.raises(WrongPhase):
        room.claim("Ann", 1)  # a bot's seat
    with pytest.raises(RoomError):
        room.claim("   ")
    with pytest.raises(RoomError):
        room.claim("x" * 41)
    with pytest.raises(RoomError):
        room.claim("Ann", 7)
    room.claim("Ann\x00\x1b[31m", 0)
    assert room.seats[0].name == "Ann[31m"  # control characters cannot spoof a log
    with pytest.raises(WrongPhase):
        room.check_action(0, 0, "0:0")
    room.start(0.0)
    with pytest.raises(WrongPhase):
        room.claim("Late")
    with pytest.raises(WrongPhase):
        room.start(0.0)


@pytest.mark.parametrize(
    ("game", "players", "seats", "settings"),
    [
        ("no-such-game", 3, None, {}),
        ("in-vino-morte", 12, None, {}),
        ("in-vino-morte", 3, ["open", "grandmaster"], {}),
        ("in-vino-morte", 3, ["open"] * 4, {}),
        ("in-vino-morte", 3, [7], {}),
        ("in-vino-morte", 3, None, {"fallback_level": "nobody"}),
        ("in-vino-morte", 3, None, {"turn_seconds": 0.0}),
        ("in-vino-morte", 3, None, {"match_target": 0}),
    ],
)
def test_a_bad_room_is_one_clear_error(
    game: str, players: int, seats: Any, settings: dict[str, Any]
) -> None:
    with pytest.raises(RoomError) as caught:
        Room.create(game, players, {}, seats, Settings(**settings), now=0.0)
    assert str(caught.value)


def test_chat_is_limited_and_kept() -> None:
    room, _ = new_room()
    room.claim("Ann")
    for bad in ["", "   ", "x" * 501, 5, None]:
        with pytest.raises(RoomError):
            room.say(0, bad, 0.0)
    for i in range(250):
        room.say(0, f"hello {i}", float(i))
    assert len(room.chat) == 200 and room.chat[-1]["text"] == "hello 249"
    assert room.chat[-1]["id"] == 250


def test_only_the_seat_to_move_is_offered_actions() -> None:
    room, _ = new_room(seats=["open", "open", "open"])
    for name in "ABC":
        room.claim(name)
    room.start(0.0)
    drive(room)
    state = room.state
    assert state is not None and state.current_player() != CHANCE
    mover = state.current_player()
    for viewer in [0, 1, 2, None]:
        offered = room.view(viewer)["legal"]
        assert bool(offered) == (viewer == mover)
    assert [a["id"] for a in room.view(mover)["legal"]] == state.legal_actions()


def test_a_room_takes_bot_names_but_not_budgets() -> None:
    """A budget of the creator's choosing could hold the shared bot pool."""
    with pytest.raises(RoomError, match="without a budget"):
        Room.create("in-vino-morte", 3, {}, ["ismcts:iterations=1000000"], Settings(), now=0.0)
    room, _ = Room.create("in-vino-morte", 3, {}, ["rules", "ismcts"], Settings(), now=0.0)
    assert [s.level for s in room.seats[:2]] == ["rules", "ismcts"]


def test_a_persons_move_is_a_change_though_their_seat_was_not_away() -> None:
    # A move takes the seat back first; that back is a no-op for a seat not
    # away, and must not mark the move itself as changing nothing (the hub
    # would then neither commit nor tell it).
    room, _host = new_room(seats=["open", "random", "random"])
    room.claim("Ann")
    room.start(0.0)
    drive(room)
    assert room.back(0, 0.0).unchanged
    changes = room.apply(first_legal(room, 0), 0.0)
    assert changes.actions and not changes.unchanged
