"""Poison Pot: what each viewer reads of an action (``describe_action``).

Nothing is secret once it happens, so every viewer reads the same event.
"""

from __future__ import annotations

from apothecary import Record


def test_the_draw_and_every_move_are_read_alike_by_everyone() -> None:
    """Rulebook: "The player turns up one of the face-down cauldrons, and places it
    in an empty circle on the playing surface, color-side up." Only the order of
    the face-down pile is unknown, and no action tells it."""
    state = Record(game="poison-pot", players=2, actions=[]).replay()
    turn = [("d4-a1", "seat 0 slides the pot from d4 to a1"), ("red", None), ("c3", None)]
    for notation, words in turn:
        told = [state.describe_action(notation, viewer) for viewer in (0, 1, None)]
        assert all(event == told[0] for event in told)  # the actor, the other seat, a spectator
        assert told[0]["notation"] == notation
        if words:
            assert told[0]["text"] == words
        state.apply_action(notation)
    assert told[0]["text"] == "seat 0 places the red cauldron on c3"
    state = Record(game="poison-pot", players=2, actions=["d4-a1"]).replay()
    draw = state.describe_action("red", None)
    assert draw["actor"] == -1 and draw["seat"] == 0 and draw["colour"] == "red"
    assert draw["text"] == "seat 0 turns up a red cauldron"


def test_every_event_names_its_seat_as_data() -> None:
    """The seat an event concerns is a number in its ``words`` (a front end puts
    the name in): the slider and placer are the actor, the draw names the seat
    that turns the cauldron up (its actor is chance)."""
    state = Record(game="poison-pot", players=3, actions=["d4-a1", "red"]).replay()
    place = state.describe_action("c3", None)
    assert place["words"] == [{"seat": 0}, " places the red cauldron on c3"]
    state = Record(game="poison-pot", players=3, actions=["d4-a1", "red", "c3"]).replay()
    slide = state.describe_action("a1-a2", None)
    assert slide["actor"] == 1
    assert slide["words"] == [{"seat": 1}, " slides the pot from a1 to a2"]
    state.apply_action("a1-a2")
    draw = state.describe_action("blue", None)
    assert draw["words"][0] == {"seat": draw["seat"]} == {"seat": 1}


def test_the_last_placement_tells_the_end_with_its_seats_as_data() -> None:
    """The placement that fills the board says how the game ended: its
    ``then_words`` are the outcome's words, which name the winner by seat."""
    state = Record(game="poison-pot", players=2, options={"radius": 1}, actions=[]).replay()
    while not state.is_terminal():
        action = (
            state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0]
        )
        event = state.describe_action(action, None)
        state.apply_action(action)
    outcome = state.outcome()
    assert outcome is not None and outcome.words is not None
    assert event["then"] == [outcome.reason]
    assert event["then_words"] == [outcome.words.runs()]
    named = [run["seat"] for run in outcome.words.runs() if isinstance(run, dict) and "seat" in run]
    assert set(outcome.winners) <= set(named)
    assert all(isinstance(run, str) or set(run) == {"seat"} for run in outcome.words.runs())
