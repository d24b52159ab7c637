"""Each game's view draws every seat's observation; a game without one still plays."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from pilot_helpers import run_app, until
from textual.pilot import Pilot
from textual.widgets import OptionList, Static
from toy_high_card.game import ToyGame

import apothecary
from apothecary.core.game import CHANCE, sample_chance
from apothecary.games.tea_scones_arsenic.terminal import marked_notations
from apothecary.tui.app import GameScreen, PlayApp, ResultScreen
from apothecary.tui.session import HUMAN, Session
from apothecary.tui.views import GameView, view_class, view_for

THE_FOUR = ("in-vino-morte", "little-drop-of-poison", "poison-pot", "tea-scones-arsenic")


def test_the_four_have_a_view_of_their_own_named_by_their_manifest() -> None:
    for name in THE_FOUR:
        cls = view_class(name)
        assert cls is not GameView and cls.__module__.startswith("apothecary.games.")
        assert type(view_for(apothecary.load(name))) is cls


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


# -- Tea, Scones and Arsenic: a marked scone's dose, as far as the viewer knows it --------


def two_marked_scones() -> Session:
    """Seat 0 (a person) and then seat 1 each take a scone, see its dose and put
    it back: back on seat 0's turn, the box holds one marked scone of each.
    The taker "turns it over discreetly to know his dose of poison (the other
    players should not see anything)": seat 0 knows its own, not seat 1's."""
    session = Session(apothecary.load("tea-scones-arsenic", players=2), [HUMAN, "easy"], seed=4)
    for seat, move in ((0, "d1"), (0, "back"), (1, "d2"), (1, "back")):
        while session.to_move() == CHANCE:
            session.play_chance()
        session.play(seat, move)
    while session.to_move() == CHANCE:
        session.play_chance()
    return session


def test_the_move_list_gives_a_marked_scones_dose_only_to_who_knows_it() -> None:
    session = two_marked_scones()
    mine, theirs = session.state.observation(0)["box"]["marked"]
    assert (mine["by"], theirs["by"]) == (0, 1)
    assert mine["dose"] is not None and theirs["dose"] is None  # what seat 0 may know
    lines: dict[str, str] = {}

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, GameScreen)
                and not app.screen.query_one("#actions", OptionList).disabled
            ),
        )
        listing = app.screen.query_one("#actions", OptionList)
        for index in range(listing.option_count):
            line = str(listing.get_option_at_index(index).prompt)
            lines[line.rsplit("(", 1)[1].rstrip(")")] = line  # by notation

    run_app(PlayApp(session, bot_delay=0), test)
    assert lines["d1@0"] == (
        f"Take the marked kind-1 scone seat 0 (you) put back, dose {mine['dose']}  (d1@0)"
    )
    assert lines["d2@1"] == "Take the marked kind-2 scone seat 1 put back  (d2@1)"
    assert all("dose" not in line for notation, line in lines.items() if notation != "d1@0")


def test_the_views_names_of_marked_scones_are_the_games_own() -> None:
    """The view finds a move's marked scone by its notation, named from the
    observation; every name must be the one the game prints for that scone,
    twins (same kind, put back by the same seat) included."""
    game = apothecary.load("tea-scones-arsenic", players=3)
    twins = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            marked = state.observation(0)["box"]["marked"]
            games_names = [
                state.action_to_string(state.string_to_action(f"m{slot + 1}"))
                for slot in range(len(marked))
            ]
            assert marked_notations(marked) == games_names
            twins += sum("." in name for name in games_names)
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert twins > 0  # the case the ".2" suffix is for did come up
