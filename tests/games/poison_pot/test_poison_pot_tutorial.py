"""The Poison Pot tutorial shows the rules that matter (issue #32): sliding,
the pot and the tie rule."""

from __future__ import annotations

from tests.support.tutorial_run import run


def test_the_tutorial_slides_the_pot_poisons_and_ends_in_a_tie() -> None:
    pot_slid, poisoned, final = False, False, None
    for move, state in run("poison-pot"):
        observation = state.observation(None)
        # "Move one piece, the pot or any cauldron of any colour".
        if move["kind"] == "slide" and move["piece"] == "pot":
            pot_slid = pot_slid or observation["pot"] == move["to"]
        # "A group is poisoned when any of its cauldrons touches the pot."
        groups = observation["groups"]
        poisoned = poisoned or (observation["placed"] > 0 and groups[0] == 0)
        final = state
    assert pot_slid and poisoned
    outcome = final.outcome() if final else None
    # "the player who made the last placement adds 1/2, and the player who made
    # the placement before it takes 1/2 away": a tie on 1 ends 0.5 to 1.5.
    assert outcome is not None and outcome.scores == (0.5, 1.5)
