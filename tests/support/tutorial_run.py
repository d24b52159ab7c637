"""Play a game's tutorial script step by step, for the per-game tutorial tests."""

from __future__ import annotations

from collections.abc import Iterator

from apothecary.core.game import JSON, State
from apothecary.core.tutorial import Tutorial, load_script


def run(name: str) -> Iterator[tuple[dict[str, JSON], State]]:
    """Each step's structured move, with the state after it is played."""
    script = load_script(name)
    assert script is not None
    tutorial = Tutorial(script)
    while not tutorial.finished:
        move = tutorial.state.action_move(tutorial.expected())
        if tutorial.persons_turn():
            assert tutorial.try_move(tutorial.expected()) is None
        else:
            tutorial.advance()
        yield move, tutorial.state
