"""The toy plugin (tests/support/toy_plugin) in the terminal app: its own view
draws the table, and a game against its own bot reaches the result screen."""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import my_turn, run_app, text_of, until
from textual.pilot import Pilot
from textual.widgets import OptionList
from toy_plugin_site import NAME, plugin_registry, write_site

import apothecary
from apothecary.tui.app import GameScreen, PlayApp, ResultScreen
from apothecary.tui.session import HUMAN, Session
from apothecary.tui.views import view_for


def test_the_plugin_plays_in_the_terminal_app_on_its_own_view(tmp_path: Path) -> None:
    with plugin_registry(write_site(tmp_path / "site")):
        game = apothecary.load(NAME)
        view = view_for(game)
        assert type(view).__module__ == "toy_high_card.terminal"
        session = Session(game, [HUMAN, "rules"], seed=4)

        async def test(app: PlayApp, pilot: Pilot[None]) -> None:
            assert NAME in apothecary.games()
            while not isinstance(app.screen, ResultScreen):
                await until(
                    pilot, lambda: my_turn(app, session) or not isinstance(app.screen, GameScreen)
                )
                if not isinstance(app.screen, GameScreen):
                    break
                assert "Toy high card" in text_of(app, "#board")
                before = len(session.state.history())
                app.screen.query_one("#actions", OptionList).focus()
                await pilot.press("down", "enter")
                await until(pilot, lambda before=before: len(session.state.history()) > before)
            assert session.is_over()
            await until(pilot, lambda: bool(app.screen.query("#result")))

        run_app(PlayApp(session, bot_delay=0), test)
