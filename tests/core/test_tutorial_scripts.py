"""Every game's learn-to-play script replays in the engine (core/tutorial.py).

A script that no longer matches the rules fails here, naming its step; a
planted bad step, a wrong move that is the expected one, a person's step with
no coach text and a script that stops before the game ends are each caught.
"""

from __future__ import annotations

import dataclasses

import pytest

from apothecary.core.registry import games, manifest
from apothecary.core.tutorial import (
    GENERIC_WRONG,
    Script,
    Tutorial,
    TutorialError,
    check,
    coach_json,
    load_script,
    parse_script,
)

WITH_TUTORIAL = sorted(name for name in games() if manifest(name).tutorial is not None)


def test_every_built_in_game_has_a_tutorial() -> None:
    # Four built-in games ship one each; a plugin game may have none.
    assert len(WITH_TUTORIAL) >= 4


@pytest.mark.parametrize("name", WITH_TUTORIAL)
def test_script_replays_to_the_end(name: str) -> None:
    script = load_script(name)
    assert script is not None
    final = check(script)
    assert final.is_terminal()
    outcome = final.outcome()
    assert outcome is not None and script.seat in outcome.winners, "the person should win"


def _person_steps(script: Script) -> list[int]:
    tutorial, found = Tutorial(script), []
    while not tutorial.finished:
        if tutorial.persons_turn():
            found.append(tutorial.index)
            tutorial.try_move(tutorial.expected())
        else:
            tutorial.advance()
    return found


def _replace_step(script: Script, index: int, **changes: object) -> Script:
    steps = list(script.steps)
    steps[index] = dataclasses.replace(steps[index], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(script, steps=tuple(steps))


@pytest.mark.parametrize("name", WITH_TUTORIAL)
def test_planted_bad_steps_are_caught(name: str) -> None:
    script = load_script(name)
    assert script is not None
    first_person = _person_steps(script)[0]
    # A step whose move is another legal move: the game goes elsewhere and a
    # later step no longer fits (or the game's end does not).
    tutorial = Tutorial(script)
    while tutorial.index < first_person:
        tutorial.advance()
    others = [a for a in tutorial.state.legal_actions() if a != tutorial.expected()]
    other = tutorial.state.action_to_string(others[0])
    with pytest.raises(TutorialError):
        check(_replace_step(script, first_person, move=other, wrong={}))
    with pytest.raises(TutorialError, match="not an action here"):
        check(_replace_step(script, 0, move="no such move"))
    expected = script.steps[first_person].move
    with pytest.raises(TutorialError, match="is the expected one"):
        check(_replace_step(script, first_person, wrong={expected: "planted"}))
    with pytest.raises(TutorialError, match="no coach text"):
        check(_replace_step(script, first_person, text=""))
    with pytest.raises(TutorialError, match="end before the game does"):
        check(dataclasses.replace(script, steps=script.steps[:-1]))


@pytest.mark.parametrize("name", WITH_TUTORIAL)
def test_a_wrong_move_is_explained_and_changes_nothing(name: str) -> None:
    script = load_script(name)
    assert script is not None
    tutorial = Tutorial(script)
    while not tutorial.persons_turn():
        tutorial.advance()
    before = (str(tutorial.state), tutorial.index)
    expected = tutorial.expected()
    wrong = next(a for a in tutorial.state.legal_actions() if a != expected)
    why = tutorial.try_move(wrong)
    assert why, "a wrong move must be explained"
    assert (str(tutorial.state), tutorial.index) == before
    assert coach_json(tutorial)["yours"] is True
    assert tutorial.try_move(expected) is None
    assert tutorial.index == before[1] + 1


def test_a_wrong_move_without_its_own_explanation_gets_the_general_one() -> None:
    script = load_script(WITH_TUTORIAL[0])
    assert script is not None
    index = _person_steps(script)[0]
    bare = _replace_step(script, index, wrong={}, otherwise="")
    tutorial = Tutorial(bare)
    while not tutorial.persons_turn():
        tutorial.advance()
    wrong = next(a for a in tutorial.state.legal_actions() if a != tutorial.expected())
    assert tutorial.try_move(wrong) == GENERIC_WRONG


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "expected an object"),
        ({"players": 2, "seat": 2, "options": {}, "steps": [{"move": "x"}]}, "seat < players"),
        ({"players": 2, "seat": 0, "options": {}, "steps": []}, "'steps' a list"),
        (
            {
                "players": 2,
                "seat": 0,
                "options": {},
                "intro": "a",
                "outro": "b",
                "steps": [{"move": "x", "part": "Not A Part"}],
            },
            "not a part name",
        ),
        (
            {
                "players": 2,
                "seat": 0,
                "options": {},
                "intro": "a",
                "outro": "b",
                "steps": [{"move": "x", "colour": "red"}],
            },
            "unknown keys",
        ),
        ({"players": 2, "seat": 0, "options": {}, "steps": [{"move": "x"}]}, "'intro'"),
    ],
)
def test_malformed_scripts_are_refused_clearly(data: object, problem: str) -> None:
    with pytest.raises(TutorialError, match=problem):
        parse_script(data, "some-game")
