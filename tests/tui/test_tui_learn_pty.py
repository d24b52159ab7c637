"""The terminal tutorial in a real terminal: ``apothecary play poison-pot --learn``
run in a pseudo-terminal (as tests/test_docs_commands.py runs the app), played
to its end by typing the coach's moves, then the real game it offers started.

Issue 32: "the terminal tutorial runs under the existing pty test harness".
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.pty_terminal import Terminal

from apothecary.core.tutorial import Tutorial, load_script
from apothecary.tui.app import ResultScreen

APP = Path(sys.executable).with_name("apothecary")
SECONDS = 120.0
"""How long the whole lesson may take on a loaded machine before the test gives up."""


def persons_moves(game: str) -> list[str]:
    """The moves the person types, in order, as the script says."""
    script = load_script(game)
    assert script is not None
    tutorial, moves = Tutorial(script), []
    while not tutorial.finished:
        if tutorial.persons_turn():
            step = tutorial.step
            assert step is not None
            moves.append(tutorial.state.action_to_string(tutorial.expected()))
            assert tutorial.try_move(tutorial.expected()) is None
        else:
            tutorial.advance()
    return moves


def test_the_poison_pot_lesson_runs_to_its_end_in_a_terminal() -> None:
    moves = persons_moves("poison-pot")
    assert len(moves) >= 5
    term = Terminal([str(APP), "play", "poison-pot", "--learn", "--bot-delay", "0"])
    try:
        term.until("start the lesson", SECONDS)  # the introduction, over the table
        term.type("\r")
        term.until("Coach", SECONDS)
        for move in moves:
            # The coach's instruction is up when it is the person's turn; a move
            # typed a little early stays in the field, and the next Enter plays it.
            term.read(1.0)
            term.type(move)
            term.read(0.3)
            term.type("\r")
            term.read(0.8)
            term.type("\r")
        term.until("Lesson complete", SECONDS)
        term.until("Real game", SECONDS)
        term.read(ResultScreen.GRACE_SECONDS + 0.5)  # keys are ignored that long
        seen = len(term.text())
        term.type("n")  # the real game against easy bots
        term.until("(easy)", SECONDS)
        # The real game has easy bots in the other seats and no coach beside it.
        assert "Coach" not in term.text()[seen:]
        term.type("\x11")  # ctrl+q: an unsaved game asks once more
        term.read(0.5)
        term.type("\x11")
        term.process.wait(30)
        assert term.process.returncode == 0, term.text()[-600:]
        assert "Traceback" not in term.text()
    finally:
        term.close()
