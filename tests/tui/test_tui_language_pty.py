"""The terminal app in French in a real terminal: ``apothecary --lang fr play``
run in a pseudo-terminal (tests/support/pty_terminal.py, as the terminal
tutorial's test runs it) draws its own words in French and the game's words
from the same catalogs the browser reads (issue #32, item 2: "the terminal app
in French under the existing pty harness shows French words")."""

from __future__ import annotations

import sys
from pathlib import Path

from pty_terminal import Terminal

from apothecary.core.registry import games

APP = Path(sys.executable).with_name("apothecary")
SECONDS = 120.0
"""How long the app may take to draw on a loaded machine before the test gives up."""


def test_the_terminal_app_speaks_french_when_asked() -> None:
    game = games()[0]
    term = Terminal(
        [str(APP), "--lang", "fr", "play", game, "--seat-bots", "easy", "--bot-delay", "0"],
        env={"PATH": "/usr/bin:/bin", "LANG": "de_DE.UTF-8"},  # --lang wins
    )
    try:
        term.until("Places et scores", SECONDS)  # the side panel's title
        term.until("Journal", SECONDS)  # the log's
        term.until("vous êtes la place 0", SECONDS)  # the status line
        term.until("place 0 (vous)", SECONDS)  # a seat's name
        shown = term.text()
        for english in ("Seats and scores", "you are seat", "(you)", "Move list"):
            assert english not in shown, f"{english!r} is still English: {shown[-600:]}"
        term.type("\x11")  # ctrl+q: an unsaved game asks once more, in French
        term.until("Cette partie n'est pas enregistrée", SECONDS)
        term.type("\x11")
        term.process.wait(30)
        assert term.process.returncode == 0, term.text()[-600:]
        assert "Traceback" not in term.text()
    finally:
        term.close()
