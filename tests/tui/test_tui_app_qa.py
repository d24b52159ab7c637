"""What a QA pass at 80x24 and 120x40 found in the app shell: the setup form
(focus, a solo game, labels), messages that outlive their moment, typed text
after an error, and lines cut at 80 columns.

Each test drives the app through Textual's pilot with keys, and reads what the
terminal would show (the rendered screen, not the widgets' strings), so a
text cut at the window's edge is caught as a person would see it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pilot_helpers import my_turn, run_app, text_of, until
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, OptionList, Static

import apothecary
from apothecary.core.game import CHANCE
from apothecary.tui.app import (
    TYPE_HINT,
    GameLog,
    GameScreen,
    HandOverScreen,
    PlayApp,
    ResultScreen,
    SaveScreen,
    SetupScreen,
    SummaryScreen,
)
from apothecary.tui.session import HUMAN, Session
from apothecary.tui.views.base import BOARD_WIDTH


def shown(app: PlayApp, widget: Widget) -> str:
    """What the terminal shows inside ``widget``'s region, its lines joined
    by spaces and runs of spaces made one (so wrapped text reads as one line)."""
    region = widget.region
    rows = app.screen._compositor.render_strips()[region.y : region.bottom]
    text = " ".join(strip.text[region.x : region.right] for strip in rows)
    return " ".join(text.split())


def whole(text: str) -> str:
    return " ".join(text.split())


async def open_setup(app: PlayApp, pilot: Pilot[None], game: str) -> SetupScreen:
    """The setup form of ``game``, opened from the menu with keys."""
    games = app.screen.query_one("#games", OptionList)
    games.focus()
    index = next(i for i in range(games.option_count) if games.get_option_at_index(i).id == game)
    games.highlighted = index
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, SetupScreen))
    await pilot.pause()
    assert isinstance(app.screen, SetupScreen)
    return app.screen


# -- the setup form ---------------------------------------------------------------------


def test_the_setup_form_opens_with_the_first_field_ready_for_typing() -> None:
    """Typed keys used to go nowhere until Tab: the scrolling form had the focus."""

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        players = setup.query_one("#players", Input)
        assert app.focused is players
        await pilot.press("3")  # the pre-filled 4 is selected: the key replaces it
        assert players.value == "3"

    run_app(PlayApp(None, bot_delay=0), test, size=(80, 24))


def test_a_solo_game_starts_from_the_forms_defaults() -> None:
    """Tea, Scones and Arsenic may be played alone ("1 to 6" players); the
    pre-filled ``easy`` of the seats field used to fail it ("--seat-bots names
    1 seats, but 1 players leave 0 beside yours")."""

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        await pilot.press("1")
        await pilot.pause()
        assert setup.query_one("#seat-bots", Input).disabled  # nobody to seat
        setup.query_one("#start", Button).press()
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert isinstance(app.screen, GameScreen)
        assert app.screen.session.seats == [HUMAN]

    run_app(PlayApp(None, bot_delay=0), test, size=(80, 24))


def test_too_many_seats_name_the_forms_field_and_say_the_fix() -> None:
    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        await pilot.press("2")
        setup.query_one("#seat-bots", Input).value = "easy,hard"
        setup.query_one("#start", Button).press()
        await pilot.pause()
        said = text_of(app, "#setup-error")
        assert said == (
            "✗ “Other seats” names 2 seats, but 2 players leave 1 seat beside yours: "
            "name at most 1, or choose more players"
        )
        assert app.screen is setup

    run_app(PlayApp(None, bot_delay=0), test, size=(80, 24))


@pytest.mark.parametrize("size", [(80, 40), (120, 40)])
def test_every_setup_label_is_shown_whole_and_the_switch_in_words(size: tuple[int, int]) -> None:
    """The seats label was cut at "... You ar" (120 columns), the switch's at
    "another play" (80); the switch read "(true or false)"."""

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        labels = list(setup.query(Label))
        assert len(labels) >= 4
        for label in labels:
            assert shown(app, label) == whole(str(label.content))
        spoon = shown(app, labels[1])
        assert spoon.startswith("little_spoon:") and "true or false" not in spoon
        assert spoon.endswith("(on or off; Space switches it)")

    run_app(PlayApp(None, bot_delay=0), test, size=size)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("field", ["#players", "#seed"])
def test_enter_in_a_field_starts_the_game(size: tuple[int, int], field: str) -> None:
    """Enter in a field did nothing (no start, no message): only Tab to the
    Start button started the game. A form starts on Enter."""

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        setup.query_one(field, Input).focus()
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), seconds=10)
        assert isinstance(app.screen, GameScreen)
        assert len(app.screen.session.seats) == 4  # the form's pre-filled players

    run_app(PlayApp(None, bot_delay=5), test, size=size)


def test_enter_in_a_field_checks_the_settings_as_the_button_does() -> None:
    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        await pilot.press("9", "enter")  # Tea, Scones and Arsenic seats 1 to 6
        await pilot.pause()
        assert app.screen is setup
        assert text_of(app, "#setup-error").startswith("✗ ")
        assert "9" in text_of(app, "#setup-error")

    run_app(PlayApp(None, bot_delay=0), test, size=(80, 24))


@pytest.mark.parametrize("field", ["#players", "#option-little_spoon", "#seat-bots", "#seed"])
def test_the_focused_fields_label_is_on_screen(field: str) -> None:
    """At 80x24 the form opened scrolled down so far that the focused
    Players field showed without its label ("Players (1 to 6):" above the
    top edge); Tab to a field keeps its label in sight too."""

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        setup = await open_setup(app, pilot, "tea-scones-arsenic")
        target = setup.query_one(field)
        while app.focused is not target:
            await pilot.press("tab")
        await pilot.pause()
        form = setup.query_one("#setup")
        rows = list(form.children)
        row = target if target.parent is form else target.parent
        assert row is not None
        label = rows[rows.index(row) - 1]
        assert isinstance(label, Label)
        assert shown(app, label) == whole(str(label.content))
        screen_rows = app.screen.size.height
        assert label.region.y >= 0 and label.region.bottom <= screen_rows
        assert row.region.bottom <= screen_rows - 1  # above the footer

    run_app(PlayApp(None, bot_delay=0), test, size=(80, 24))


# -- messages and the notation field ----------------------------------------------------


async def refuse_zz9(app: PlayApp, pilot: Pilot[None], session: Session) -> Input:
    """On seat 0's turn, type "zz9" (no move of Poison Pot) and have it refused."""
    await until(pilot, lambda: my_turn(app, session))
    entry = app.screen.query_one("#entry", Input)
    entry.focus()
    await pilot.press("z", "z", "9", "enter")
    await pilot.pause()
    assert "“zz9” is not a move" in text_of(app, "#error")
    assert entry.value == "zz9"
    return entry


def test_after_a_refused_move_the_next_typing_replaces_it() -> None:
    """Poison Pot: after "e5" was refused, typing "f3" made "e5f3", refused
    as "cannot be played" for a move never meant. The refused text is kept,
    selected, beside its message; a key replaces it."""
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=2)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        entry = await refuse_zz9(app, pilot, session)
        legal = session.state.action_to_string(session.state.legal_actions()[0])
        await pilot.press(*legal)
        assert entry.value == legal
        assert "“zz9” is not a move" in text_of(app, "#error")  # still there to read
        await pilot.press("enter")  # and the move typed afresh plays
        await until(pilot, lambda: session.state.move_number() > 0 and entry.value == "")

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


def test_a_key_typed_in_the_list_replaces_a_refused_move_too() -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=2)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        entry = await refuse_zz9(app, pilot, session)
        await pilot.press("escape")  # to the list; the field keeps its selection
        assert app.focused is app.screen.query_one("#actions", OptionList)
        await pilot.press("c")
        assert app.focused is entry and entry.value == "c"

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


# -- nothing cut at 80 columns ----------------------------------------------------------


def test_at_80x24_the_footer_the_field_and_the_save_title_are_whole() -> None:
    """The footer ended "^q Q", the field's hint "... Escape picks", the save
    dialog's title "... Escape cancels"."""
    session = Session(apothecary.load("in-vino-morte", players=4), [HUMAN, *["easy"] * 3], seed=1)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        await pilot.pause()
        screen = app.screen
        assert "^q Quit" in shown(app, screen.query_one(Footer))
        entry = screen.query_one("#entry", Input)
        assert entry.value == "" and shown(app, entry) == whole(TYPE_HINT)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SaveScreen))
        await pilot.pause()
        title = app.screen.query_one("#save-title", Static)
        assert shown(app, title) == whole(str(title.content))
        assert shown(app, title).endswith("Esc cancels):")

    run_app(PlayApp(session, bot_delay=5), test, size=(80, 24))


# -- no move invited from a seat that has none ------------------------------------------


def peasant_dead_while_others_play(seed: int) -> Session:
    """A Little Drop of Poison game played at random until seat 0's peasant
    is dead and another seat is to move."""
    rng = random.Random(seed)
    session = Session(
        apothecary.load("little-drop-of-poison", players=3), [HUMAN, "easy", "easy"], seed=seed
    )
    while not session.is_over():
        mover = session.to_move()
        if mover == CHANCE:
            session.play_chance()
            continue
        seat0 = session.state.observation(0)["seats"][0]
        if not seat0["alive"] and mover != 0:
            return session
        session.play(mover, rng.choice(session.state.legal_actions()))
    raise AssertionError("seat 0's peasant never died with the game going on")


def test_a_dead_peasant_is_not_invited_to_type_a_move() -> None:
    """Little Drop of Poison: a killed peasant is "removed from the
    assassination round", so its seat has no move until the next one; the
    field said "(you may type your move now)" all the same."""
    session = peasant_dead_while_others_play(seed=4)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.pause()
        hint = app.screen.query_one("#entry", Input).placeholder
        assert hint.startswith("waiting for seat ")
        assert "type" not in hint and hint.endswith("you have no move now")
        assert shown(app, app.screen.query_one("#entry", Input)) == whole(hint)

    run_app(PlayApp(session, bot_delay=5), test, size=(80, 24))


def test_a_living_seat_waiting_is_invited_to_type_ahead() -> None:
    """The other side of the check: alive, the seat may type its move ahead."""
    session = Session(apothecary.load("tea-scones-arsenic", players=2), ["easy", HUMAN], seed=3)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        assert session.to_move() == 0
        hint = app.screen.query_one("#entry", Input).placeholder
        assert hint == "waiting for seat 0 (easy); you may type ahead"

    run_app(PlayApp(session, bot_delay=5), test, size=(80, 24))


# -- hot-seat news ------------------------------------------------------------------------


def test_in_hot_seat_everyone_reads_the_round_over_before_play_goes_on() -> None:
    """In Vino Morte, seats 0 and 1 people, seat 2 a bot: seat 1 drank, the
    bot's move ended the round ("Play continues clockwise until every player,
    except the dealer, has taken a turn. When it's the dealer's turn, every
    player who hasn't drunk flips over their own card."), and only seat 0,
    next to play, saw the round-over panel; seat 1 saw it a whole turn later.
    Now each person reads it behind their own hand-over before anyone plays
    on, and nobody's panel is shown while another seat holds the keyboard."""
    session = Session(apothecary.load("in-vino-morte", players=3), [HUMAN, HUMAN, "easy"], seed=3)
    at_keyboard: list[int] = []  # who holds the keyboard, as the hand-overs said
    told: dict[int, list[str]] = {0: [], 1: []}

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        while True:
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, HandOverScreen | SummaryScreen | ResultScreen)
                    or my_turn(app, session, session.to_move())
                ),
            )
            screen = app.screen
            if isinstance(screen, HandOverScreen):
                at_keyboard.append(screen.seat)
            elif isinstance(screen, SummaryScreen):
                game = app.screen_stack[-2]
                assert isinstance(game, GameScreen) and game.viewer is not None
                assert game.viewer == at_keyboard[-1]  # never another seat's panel
                told[game.viewer].append(screen.text)
            elif isinstance(screen, GameScreen):
                if any("Round 1 is over" in line for line in session.summaries(None)):
                    break  # the first move after the round's end
                before = len(session.state.history())
                state = session.state
                moves = [state.action_to_string(a) for a in state.legal_actions()]
                screen.query_one("#entry", Input).value = "drink" if "drink" in moves else moves[0]
                await pilot.press("f2", "enter")
                await until(pilot, lambda before=before: len(session.state.history()) > before)
                continue
            else:
                raise AssertionError("the game ended before its first round did")
            await pilot.press("enter")

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))
    for seat in (0, 1):
        assert any("Round 1 is over" in text for text in told[seat]), (seat, told)


# -- the log panels -----------------------------------------------------------------------


def played_on(moves: int, seed: int = 3) -> Session:
    """An In Vino Morte game for seat 0 against three bots, played ``moves`` moves in."""
    session = Session(
        apothecary.load("in-vino-morte", players=4), [HUMAN, "easy", "easy", "easy"], seed=seed
    )
    while len(session.log) < moves and not session.is_over():
        mover = session.to_move()
        if mover == CHANCE:
            session.play_chance()
        else:
            session.play(mover, session.state.legal_actions()[0])
    return session


def test_the_result_logs_text_keeps_a_space_from_the_panels_edge() -> None:
    """The result's log ran into its edge: "│  1. seat 0..." then "│scone from"."""
    session = played_on(10_000)
    assert session.is_over()

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.pause()
        panel = app.screen.query_one("#result-log")
        region = panel.region
        rows = app.screen._compositor.render_strips()[region.y : region.bottom]
        edges = [strip.text[region.x : region.x + 2] for strip in rows]
        written = [edge for edge in edges if edge[0] == "│" and edge != "│ "]
        assert len(edges) > 5 and not written, edges

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


def test_the_game_log_wraps_again_when_the_window_is_resized() -> None:
    """The log's lines kept the wrap width of the window they were written
    in: after widening it they stayed cut short, a wide panel half empty."""
    session = played_on(12)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        log = app.screen.query_one("#log", GameLog)
        await until(pilot, lambda: len(log.lines) > 0)
        narrow = [line.text.rstrip() for line in log.lines]
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        width = log.scrollable_content_region.width
        wide = [line.text.rstrip() for line in log.lines]
        assert width > max(len(line) for line in narrow) + 5
        assert len(wide) < len(narrow)  # fewer lines: each long entry is on fewer
        assert max(len(line) for line in wide) > max(len(line) for line in narrow)
        assert all(len(line) <= width for line in wide)
        # The same words, in the same order.
        assert " ".join(" ".join(wide).split()) == " ".join(" ".join(narrow).split())

    run_app(PlayApp(session, bot_delay=5), test, size=(80, 24))


def test_the_board_is_drawn_to_the_width_its_pane_has() -> None:
    """The views wrap a board to the width they are given; the game screen gives
    its pane's real width (49 columns at 80x24, wider in a wider window, again
    after a resize), so a 120-column window is not wrapped as if it had 80."""
    game = apothecary.load("little-drop-of-poison", players=3)
    session = Session(game, [HUMAN, "easy", "easy"], seed=4)
    widths: list[int] = []
    draw = session.view.board

    def board(obs: Any, viewer: int | None, width: int = BOARD_WIDTH) -> Any:
        widths.append(width)
        return draw(obs, viewer, width)

    session.view.board = board  # type: ignore[method-assign]

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        await pilot.pause()
        assert widths and widths[-1] == BOARD_WIDTH, widths
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        assert widths[-1] >= 70, widths

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))
