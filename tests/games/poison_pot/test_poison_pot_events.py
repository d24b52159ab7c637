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
