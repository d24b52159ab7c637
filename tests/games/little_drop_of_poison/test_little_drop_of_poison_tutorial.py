"""The Little Drop of Poison tutorial shows the rules that matter (issue #32):
antidotes, a king's death and scoring."""

from __future__ import annotations

from tests.support.tutorial_run import run


def test_the_tutorial_blocks_with_an_antidote_then_kills_the_king() -> None:
    blocked, final = False, None
    deaths: list[dict[str, object]] = []
    for _move, state in run("little-drop-of-poison"):
        observation = state.observation(0)
        # "each one-colour antidote discards every poison card on the character
        # that contains its colour ... and blocks its colour".
        blocked = blocked or observation["table"]["king"]["blocked"] == ["blue"]
        reveal = observation["last_reveal"]
        if isinstance(reveal, dict):
            deaths = reveal["deaths"] or deaths
        final = state
    assert blocked
    assert deaths and deaths[0]["character"] == "king"
    # "rat killing the weasel king: 3 points"; 3 reaches this game's target.
    assert final is not None and final.outcome() is not None
    assert final.outcome().scores[0] == 3  # type: ignore[union-attr]
