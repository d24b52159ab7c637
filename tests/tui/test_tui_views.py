"""Each game's view draws every seat's observation; a game without one still plays."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from textual.widgets import OptionList, Static
from toy_game import ToyGame

import apothecary
from apothecary.core.game import CHANCE, sample_chance
from apothecary.tui.app import GameScreen, PlayApp, ResultScreen
from apothecary.tui.session import HUMAN, Session
from apothecary.tui.views import VIEWS, GameView, view_for

THE_FOUR = ("in-vino-morte", "little-drop-of-poison", "poison-pot", "tea-scones-arsenic")


def test_every_view_is_for_a_registered_game_and_the_four_have_one() -> None:
    assert set(VIEWS) <= set(apothecary.games())
    for name in THE_FOUR:
        assert type(view_for(apothecary.load(name))) is VIEWS[name]


@pytest.mark.parametrize("name", apothecary.games())
def test_the_view_draws_every_seat_at_every_step(name: str) -> None:
    options = {"target": 2} if name == "little-drop-of-poison" else {}
    game = apothecary.load(name, **options)
    view = view_for(game)
    rng = random.Random(5)
    state = game.new_initial_state()
    steps = 0
    while True:
        for viewer in [*range(game.num_players), None]:
            obs = state.observation(viewer)
            board = view.board(obs, viewer)
            assert board.plain.strip()
            assert view.status(obs, viewer)
            assert len(view.scores(obs)) in (0, game.num_players)
            if viewer is not None and name in THE_FOUR:
                assert f"seat {viewer} (you)" in board.plain  # the viewer finds itself
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.reason in view.status(state.observation(0), 0)
    assert len(view.scores(state.observation(None))) == game.num_players
    assert steps > 0


def test_a_game_with_no_view_plays_with_the_generic_one(
    toy_registered: type[ToyGame],
) -> None:
    game = ToyGame()
    session = Session(game, [HUMAN, "random"], seed=1)
    assert type(session.view) is GameView

    async def main() -> None:
        app = PlayApp(session, bot_delay=0)
        async with app.run_test(size=(90, 30)) as pilot:
            while not isinstance(app.screen, ResultScreen):
                await pilot.pause(0.01)
                screen = app.screen
                if (
                    isinstance(screen, GameScreen)
                    and session.to_move() == 0
                    and not screen.query_one("#actions", OptionList).disabled
                ):
                    board = str(screen.query_one("#board", Static).content)
                    assert json.loads(board) == session.state.observation(0)
                    screen.query_one("#actions", OptionList).focus()
                    await pilot.press("down", "enter")  # nothing is chosen until moved to
            assert session.is_over()

    asyncio.run(main())
    # A game that does not say what is public of its actions (the toy keeps
    # the generic describe_action) shows seat 0 its own moves whole, and only
    # that something happened of other seats' moves and chance.
    for entry in session.log:
        if entry.actor == 0:
            assert entry.whole(0) and f"({entry.notation})" in entry.line(0)
        else:
            assert not entry.whole(0) and entry.notation not in entry.line(0)
            assert entry.line(0).endswith("acts")
