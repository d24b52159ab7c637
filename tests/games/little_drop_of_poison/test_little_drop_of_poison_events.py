"""Little Drop of Poison: what each viewer reads of an action (``describe_action``).

Each test quotes the rulebook sentence that makes something secret or public
and checks the event the actor, another seat and a spectator read.
"""

from __future__ import annotations

from little_drop_of_poison_records import THREE_SEATS, replay

OPENING = [*THREE_SEATS, "p1 to 0", "p1 to 1", "g1 to 2"]


def test_a_dealt_card_is_read_by_its_seat_alone() -> None:
    """Rulebook: "Shuffle the poison deck and deal two poison cards face-down to
    each player." The king and the peasants are placed "face-up": everyone
    reads them."""
    state = replay(OPENING[:-1])
    mine = state.describe_action("g1 to 2", 2)
    assert mine["text"] == "seat 2 is dealt a green poison of 1 drop"
    assert mine["notation"] == "g1 to 2" and mine["card"] == "g1"
    for viewer in (0, 1, None):
        told = state.describe_action("g1 to 2", viewer)
        assert told["text"] == "seat 2 is dealt a card face down"
        assert told["notation"] is None and told["card"] is None
        assert state.describe_action("b1 to 2", viewer) == told  # any card reads the same
    start = replay([])
    kings = {start.describe_action("rat king", viewer)["text"] for viewer in (0, 1, None)}
    assert kings == {"the king is the rat king"}


def test_a_card_played_is_read_by_its_player_until_the_reveal_shows_all() -> None:
    """Rulebook: "Once each player has had a turn to play poison cards, the poison
    round is complete. (...) Turn over all of the played poison cards at once
    and resolve them." Until then who plays on whom, and how many cards, is
    all the others read."""
    state = replay([*OPENING, "on king"])
    mine = state.describe_action("b3", 0)
    assert (
        mine["text"] == "seat 0 adds a blue poison of 3 drops face down on the king"
        and mine["notation"] == "b3"
    )
    for viewer in (1, None):
        told = state.describe_action("b3", viewer)
        assert told["text"] == "seat 0 adds a card face down on the king"
        assert told["notation"] is None and told["card"] is None
        assert state.describe_action("p1", viewer) == told
    state = replay([*OPENING, "on king", "b3", "done", "on king", "b2", "done", "on king", "p1"])
    # Seat 2's "done" ends the poison round: the reveal is read alike by everyone.
    done = [state.describe_action("done", viewer) for viewer in (2, 0, 1, None)]
    assert all(told == done[0] for told in done)
    assert done[0]["reveal"] == {
        "deaths": [{"character": "king", "killers": [0, 1]}],
        "points": [3, 3, 0],
    }
    assert done[0]["then"] == [
        "the cards are turned over: the king dies, poisoned by seat 0 and seat 1 "
        "(points: seat 0 +3, seat 1 +3)",
        "the assassination round ends: the king died",
    ]
    assert done[0]["text"].startswith("seat 2 is done: 1 card face down on the king; ")


def test_the_seats_an_event_names_are_data_in_its_words() -> None:
    """Every seat a text or a then-clause names is a run of its words, so a front
    end puts in a name without reading the English (rules.md, "What the server
    sends")."""
    state = replay(OPENING[:-1])
    assert state.describe_action("g1 to 2", 0)["words"] == [
        {"seat": 2},
        " is dealt a card face down",
    ]
    state = replay([*OPENING, "on 1"])
    assert state.describe_action("b3", 2)["words"] == [
        {"seat": 0},
        " adds a card face down on the peasant of ",
        {"seat": 1},
    ]
    state = replay([*OPENING, "on king", "b3", "done", "on king", "b2", "done", "on king", "p1"])
    done = state.describe_action("done", 0)
    assert done["then_words"][0] == [
        "the cards are turned over: the king dies, poisoned by ",
        {"seats": [0, 1]},
        " (points: ",
        {"seat": 0},
        " +3, ",
        {"seat": 1},
        " +3)",
    ]
    assert done["words"][0] == {"seat": 2}
