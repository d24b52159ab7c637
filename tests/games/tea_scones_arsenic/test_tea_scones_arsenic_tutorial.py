"""The Tea, Scones and Arsenic tutorial shows the rules that matter (issue #32):
marking, the spoon and the eat-off."""

from __future__ import annotations

from tests.support.tutorial_run import run


def test_the_tutorial_marks_spoons_and_ends_in_an_eat_off() -> None:
    kinds, marked_taken, final = set(), False, None
    for move, state in run("tea-scones-arsenic"):
        kinds.add(move["kind"])
        # "the scone goes back into the box marked 'put back by' that player";
        # a marked scone is taken by who put it back (d2@0).
        marked_taken = marked_taken or (move["kind"] == "draw" and move.get("by") is not None)
        final = state
    assert {"back", "spoon", "stop", "eat"} <= kinds
    assert marked_taken
    assert final is not None
    observation = final.observation(0)
    # "Otherwise there is an eat-off: ... Whoever dies is out; the last one alive wins."
    assert observation["eat_off"] == [0, 1]
    assert final.outcome() is not None and final.outcome().winners == (0,)  # type: ignore[union-attr]
