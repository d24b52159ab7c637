"""The terminal app driven through Textual's pilot, as a person would use it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import my_turn, run_app, text_of, until
from textual.pilot import Pilot
from textual.widgets import Button, Input, Markdown, OptionList, Static

import apothecary
from apothecary.core.game import CHANCE
from apothecary.tui.app import (
    ConfirmScreen,
    GameScreen,
    HandOverScreen,
    MenuScreen,
    PlayApp,
    ResultScreen,
    RulesScreen,
    SaveScreen,
    SetupScreen,
    SummaryScreen,
)
from apothecary.tui.session import HUMAN, Session

# Options that keep a whole game short; a game not named plays with its defaults.
SHORT = {"little-drop-of-poison": {"target": 1}, "poison-pot": {"radius": 1}}


@pytest.mark.parametrize("name", apothecary.games())
def test_a_whole_game_against_bots_reaches_the_result_screen(name: str) -> None:
    cls = apothecary.game_class(name)
    game = apothecary.load(name, players=max(2, cls.info.min_players), **SHORT.get(name, {}))
    seats = [HUMAN] + ["easy"] * (game.num_players - 1)
    session = Session(game, seats, seed=3)
    rng = random.Random(3)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        moves = 0
        while not isinstance(app.screen, ResultScreen):
            await until(
                pilot, lambda: my_turn(app, session) or not isinstance(app.screen, GameScreen)
            )
            if isinstance(app.screen, SummaryScreen):
                await pilot.press("enter")  # a round's end or a death: read, go on
                continue
            if isinstance(app.screen, ResultScreen):
                break
            before = len(session.state.history())
            if moves % 2 == 0:  # pick from the list (down to the first line)...
                app.screen.query_one("#actions", OptionList).focus()
                await pilot.press("down", "enter")
                if isinstance(app.screen, ConfirmScreen):
                    await pilot.press("y")
            else:  # ...or type the notation
                action = rng.choice(session.state.legal_actions())
                entry = app.screen.query_one("#entry", Input)
                entry.focus()
                entry.value = session.state.action_to_string(action)
                await pilot.press("enter")
            await until(pilot, lambda before=before: len(session.state.history()) > before)
            moves += 1
        assert session.is_over()
        await until(pilot, lambda: bool(app.screen.query("#result")))  # composed
        outcome = session.state.outcome()
        assert outcome is not None
        assert outcome.reason in text_of(app, "#result")
        assert "seat 0 (human)" in text_of(app, "#result")

    run_app(PlayApp(session, bot_delay=0), test)


def test_hot_seat_hand_over_hides_the_dealers_glasses() -> None:
    game = apothecary.load("in-vino-morte", players=2)
    session = Session(game, [HUMAN, HUMAN], seed=5)
    dealer = session.to_move()
    drinker = 1 - dealer

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        # Several people: nothing is shown until the first one says they are ready.
        assert isinstance(app.screen, HandOverScreen) and app.screen.seat == dealer
        await pilot.press("enter")
        game_screen = app.screen
        assert isinstance(game_screen, GameScreen) and game_screen.viewer == dealer
        await until(pilot, lambda: my_turn(app, session, dealer))
        game_screen.query_one("#entry", Input).value = "deal poison"
        await pilot.press("f2", "enter")
        await until(pilot, lambda: len(session.state.history()) == 1)
        board = text_of(app, "#board")
        assert "glass [P] POISON" in board  # the dealer sees what it poured
        game_screen.query_one("#entry", Input).value = "deal wine"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, HandOverScreen))
        # The hand-over covers the terminal, and the screen under it is blank.
        assert isinstance(app.screen, HandOverScreen) and app.screen.seat == drinker
        assert game_screen.hidden and game_screen.viewer is None
        assert str(game_screen.query_one("#board", Static).content) == ""
        hand_over = str(app.screen.query_one("#handover-text", Static).content)
        assert "POISON" not in hand_over and "wine" not in hand_over
        await pilot.press("enter")
        assert app.screen is game_screen and game_screen.viewer == drinker
        board = text_of(app, "#board")
        assert "[P]" not in board and "[W]" not in board
        assert board.count("glass [?] covered") == 2
        shown = " ".join(str(line.text) for line in game_screen.query_one("#log").lines)
        log = " ".join(shown.split())  # the panel wraps long lines
        assert "deals a covered glass to seat" in log
        assert "poison" not in log and "wine" not in log

    run_app(PlayApp(session, bot_delay=0), test)


def test_hot_seat_with_a_bot_between_people_shows_only_public_views() -> None:
    game = apothecary.load("in-vino-morte", players=3)
    session = Session(game, [HUMAN, "random", HUMAN], seed=2)
    bot = session.bots[1]
    think = bot.step
    # What the screen showed each time the bot was asked to move.
    shown: list[tuple[object, str, str]] = []

    def watched_step(state: Any) -> int:
        screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        spectator = session.view.board(session.state.observation(None), None).plain
        board = str(screen.query_one("#board", Static).content)
        shown.append((screen.viewer, board, spectator))
        return think(state)

    bot.step = watched_step  # type: ignore[method-assign]

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        hand_overs = 0
        while not isinstance(app.screen, ResultScreen):
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, HandOverScreen | ResultScreen | SummaryScreen)
                    or my_turn(app, session, session.to_move())
                ),
            )
            screen = app.screen
            if isinstance(screen, HandOverScreen | SummaryScreen):
                hand_overs += isinstance(screen, HandOverScreen)
                await pilot.press("enter")
                continue
            if isinstance(screen, GameScreen):
                before = len(session.state.history())
                assert screen.viewer == session.to_move()
                screen.query_one("#actions", OptionList).focus()
                await pilot.press("down", "enter")
                await until(pilot, lambda before=before: len(session.state.history()) > before)
        assert hand_overs >= 2
        assert app.screen.viewer is None  # the result as anyone may see it

    app = PlayApp(session, bot_delay=0)
    run_app(app, test)
    assert shown  # the bot moved between the people...
    for viewer, board, spectator in shown:
        assert viewer is None  # ...while the table showed what a spectator sees
        assert board == spectator


def test_a_bad_entry_is_explained_in_place_and_changes_nothing() -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=2)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        history, board = session.state.history(), text_of(app, "#board")
        entry = app.screen.query_one("#entry", Input)
        for typed, message in (
            ("zz9", "“zz9” is not a move of Poison Pot"),
            ("c3", "it is time to slide a piece"),  # a placement, but it is time to slide
            ("a1-a2", "there is no piece on a1"),
        ):
            entry.focus()
            entry.value = typed
            await pilot.press("enter")
            await pilot.pause()
            said = text_of(app, "#error")
            assert message in said
            assert "action" not in said  # never an internal action id
            for example in said.split("e.g., ")[1].split(";")[0].rstrip(".").split(", "):
                # The examples offered are moves legal in this very position.
                assert session.state.string_to_action(example) in session.state.legal_actions()
            assert session.state.history() == history
            assert text_of(app, "#board") == board
            assert my_turn(app, session)
        # A good entry afterwards plays, and clears the error.
        entry.value = session.state.action_to_string(session.state.legal_actions()[0])
        await pilot.press("enter")
        await until(pilot, lambda: len(session.state.history()) > len(history))
        assert text_of(app, "#error") == ""

    run_app(PlayApp(session, bot_delay=0), test)


def test_typing_completes_from_the_legal_actions() -> None:
    session = Session(apothecary.load("tea-scones-arsenic", players=2), [HUMAN, "random"], seed=1)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        assert "stop" in [session.state.action_to_string(a) for a in session.state.legal_actions()]
        entry = app.screen.query_one("#entry", Input)
        entry.focus()
        await pilot.press("s", "t")
        await pilot.pause()
        await pilot.press("right")  # accepts the suggestion
        assert entry.value == "stop"

    run_app(PlayApp(session, bot_delay=0), test)


def test_save_at_any_time_and_resume_the_same_position(tmp_path: Path) -> None:
    game = apothecary.load("poison-pot", players=2)
    session = Session(game, [HUMAN, "random"], seed=8)
    target = tmp_path / "saved.json"
    seen: dict[str, Any] = {}

    async def play_and_save(app: PlayApp, pilot: Pilot[None]) -> None:
        for _ in range(2):
            await until(pilot, lambda: my_turn(app, session))
            before = len(session.state.history())
            app.screen.query_one("#actions", OptionList).focus()
            await pilot.press("down", "enter")
            await until(pilot, lambda before=before: len(session.state.history()) > before)
        await until(pilot, lambda: my_turn(app, session))
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SaveScreen)
        app.screen.query_one("#save-path", Input).value = str(target)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        seen["history"] = session.state.history()
        seen["board"] = text_of(app, "#board")

    run_app(PlayApp(session, bot_delay=0), play_and_save)
    assert target.is_file()
    record = apothecary.Record.load(target)
    assert record.seats == [HUMAN, "random"]
    resumed = Session.resume(record, seed=8)
    assert resumed.state.history() == seen["history"]

    async def look(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, resumed))
        assert text_of(app, "#board") == seen["board"]
        assert resumed.state.current_player() == 0

    run_app(PlayApp(resumed, bot_delay=0), look)


def test_a_file_that_cannot_be_written_is_said_in_place(tmp_path: Path) -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=8)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        await pilot.press("ctrl+s")
        app.screen.query_one("#save-path", Input).value = str(tmp_path / "no" / "such" / "x.json")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SaveScreen)
        assert "Cannot write" in str(app.screen.query_one("#save-error", Static).content)
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)

    run_app(PlayApp(session, bot_delay=0), test)


def test_question_mark_shows_the_rules() -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=8)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        app.screen.query_one("#entry", Input).focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        markdown = app.screen.query_one("#rules", Markdown)
        assert "Poison Pot" in markdown.source
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)
        assert app.screen.query_one("#entry", Input).value == ""  # '?' was not typed

    run_app(PlayApp(session, bot_delay=0), test)


def test_the_menu_lists_the_games_and_sets_one_up_from_its_options() -> None:
    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, MenuScreen)
        listing = app.screen.query_one("#games", OptionList)
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        assert ids == apothecary.games()
        pot = str(listing.get_option("poison-pot").prompt)
        assert "Poison Pot" in pot and "2-3 players" in pot and "options: radius" in pot
        listing.focus()
        listing.highlighted = ids.index("poison-pot")
        await pilot.press("enter")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        radius = setup.query_one("#option-radius", Input)
        assert radius.value == "3"
        setup.query_one("#players", Input).value = "9"
        setup.query_one("#start", Button).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "9 players is not allowed" in str(setup.query_one("#setup-error", Static).content)
        assert app.screen is setup
        setup.query_one("#players", Input).value = "3"
        radius.value = "2"
        setup.query_one("#seat-bots", Input).value = "random"
        assert setup.query_one("#seed", Input).value == "4"  # from --seed
        start = setup.query_one("#start", Button)
        await until(pilot, lambda: not start.has_class("-active"))  # a press ignores presses
        start.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert isinstance(app.screen, GameScreen)
        session = app.screen.session
        assert session.game == apothecary.load("poison-pot", players=3, radius=2)
        assert session.seats == [HUMAN, "random", "random"] and session.seed == 4

    run_app(PlayApp(None, bot_delay=0, seed=4), test, size=(100, 60))


def test_bots_think_off_the_ui_thread() -> None:
    """While a slow bot thinks, the screen still answers keys (the rules page opens)."""
    game = apothecary.load("poison-pot", players=2)
    session = Session(game, ["ismcts:iterations=300", HUMAN], seed=6)  # the bot moves first

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        assert session.to_move() == 0 and not session.is_human(0)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)  # answered while the bot thinks
        await pilot.press("escape")
        await until(pilot, lambda: my_turn(app, session, seat=1), seconds=120)
        assert session.state.current_player() == 1
        assert any(entry.actor not in (CHANCE, 1) for entry in session.log)

    run_app(PlayApp(session, bot_delay=1.0), test)


def test_resuming_a_finished_game_opens_the_result(tmp_path: Path) -> None:
    game = apothecary.load("in-vino-morte", players=2)
    session = Session(game, [HUMAN, "random"], seed=3)
    while not session.is_over():
        mover = session.to_move()
        session.play(mover, session.state.legal_actions()[0])
    path = session.save(tmp_path / "over.json")
    resumed = Session.resume(apothecary.Record.load(path))

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: bool(app.screen.query("#result")))
        outcome = resumed.state.outcome()
        assert outcome is not None and outcome.reason in text_of(app, "#result")

    run_app(PlayApp(resumed, bot_delay=0), test)


def test_quitting_an_unsaved_game_asks_twice() -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=8)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, GameScreen)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running)

    run_app(PlayApp(session, bot_delay=0), test)
