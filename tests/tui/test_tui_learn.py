"""``apothecary play GAME --learn``: the terminal's tutorial, driven by the pilot.

Issue 32, item 1: "At each step a coach says what is happening and why the
rule matters, points at the part of the table it means, and lets the person
try the move; a wrong move is explained, not refused silently. It ends by
offering a real game against `easy` bots." Each game's lesson is played to
its end here as a person follows the coach, one wrong move made on the way.
"""

from __future__ import annotations

import pytest
from pilot_helpers import my_turn, run_app, text_of, until
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from apothecary.core.errors import BadOptionError, UnknownGameError
from apothecary.core.registry import games, manifest
from apothecary.core.tutorial import GENERIC_WRONG, load_script, scripted_action
from apothecary.tui import learn
from apothecary.tui.app import GameScreen, PlayApp, ResultScreen, SummaryScreen
from apothecary.tui.cli import plan
from apothecary.tui.session import DEFAULT_BOT, HUMAN, SCRIPTED, Session
from apothecary.tui.views import view_for

LESSONS = [name for name in games() if manifest(name).tutorial is not None]


def lesson(game: str) -> Session:
    script = load_script(game)
    assert script is not None
    return Session.learn(script)


def a_wrong_move(session: Session) -> tuple[int, str]:
    """A legal move that is not the lesson's, and what the coach says to it:
    a move the script explains if the step has one, else any other."""
    assert session.script is not None
    state = session.state
    step = session.script.steps[state.move_number()]
    expected = scripted_action(session.script, state)
    for move, why in step.wrong.items():
        return state.string_to_action(move), why
    other = next(a for a in state.legal_actions() if a != expected)
    return other, step.otherwise or GENERIC_WRONG


def test_every_built_in_game_has_a_lesson() -> None:
    assert len(LESSONS) >= 4


@pytest.mark.parametrize("game", LESSONS)
def test_the_session_follows_the_script_and_judges_the_persons_moves(game: str) -> None:
    """Chance and the bots play the script; only the lesson's move is accepted."""
    session = lesson(game)
    assert session.script is not None
    assert session.seats.count(HUMAN) == 1 and session.seats[session.script.seat] == HUMAN
    explained = 0
    while not session.is_over():
        mover = session.to_move()
        if not session.is_human(mover):
            if session.bot_to_move() is None:
                session.play_chance()
            else:
                bot = session.bot_to_move()
                assert bot is not None
                session.play(mover, bot.step(session.state.clone()))
            continue
        expected = session.expected()
        assert expected is not None
        if any(a != expected for a in session.state.legal_actions()):
            wrong, why = a_wrong_move(session)
            assert session.judge(wrong) == why
            explained += 1
        assert session.judge(expected) is None
        session.play(mover, expected)
    assert explained, "the lesson never gave a choice to get wrong"
    played = [entry.notation for entry in session.log]
    assert len(played) == len(session.script.steps)
    coach = session.coach()
    assert coach is not None and coach["finished"]
    real = session.again()
    assert real.script is None and real.seats.count(HUMAN) == 1
    assert set(real.seats) == {HUMAN, DEFAULT_BOT}


async def _follow(app: PlayApp, pilot: Pilot[None], session: Session) -> bool:
    """Play the lesson to its end as the coach says, one wrong move on the
    way; whether that wrong move was explained on screen (and played nothing)."""
    assert session.script is not None
    seat = session.script.seat
    explained = False
    while not session.is_over():
        await until(
            pilot,
            lambda: (
                session.is_over()
                or isinstance(app.screen, SummaryScreen)
                or my_turn(app, session, seat)
            ),
        )
        if isinstance(app.screen, SummaryScreen):
            await pilot.press("enter")
            continue
        if session.is_over():
            break
        coach = session.coach()
        assert coach is not None and coach["now"] is not None
        panel = text_of(app, "#coach")
        assert " ".join(coach["now"]["text"].split()) in " ".join(panel.split())
        entry = app.screen.query_one("#entry", Input)
        expected = session.expected()
        assert expected is not None
        if not explained and any(a != expected for a in session.state.legal_actions()):
            wrong, why = a_wrong_move(session)
            before = session.state.move_number()
            entry.value = session.state.action_to_string(wrong)
            await pilot.press("enter")
            said = why[:30]
            await until(pilot, lambda: said in text_of(app, "#error"))  # noqa: B023
            assert session.state.move_number() == before  # nothing was played
            assert why[:30] in " ".join(text_of(app, "#coach").split())
            explained = True
        listing = app.screen.query_one("#actions", OptionList)
        marked = [
            str(listing.get_option_at_index(i).prompt)
            for i in range(listing.option_count)
            if learn.text("your_move") in str(listing.get_option_at_index(i).prompt)
        ]
        assert len(marked) == 1 and session.state.action_to_string(expected) in marked[0]
        before = session.state.move_number()
        entry.value = session.state.action_to_string(expected)
        await pilot.press("enter")
        await until(pilot, lambda: session.state.move_number() > before)  # noqa: B023
    return explained


@pytest.mark.parametrize("game", LESSONS)
def test_the_lesson_is_played_to_its_end_and_offers_a_real_game(game: str) -> None:
    session = lesson(game)
    assert session.script is not None

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        # The lesson opens on its introduction; Enter starts it.
        await until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        assert session.script is not None
        intro = " ".join(session.script.intro.split())[:40]
        assert intro in " ".join(text_of(app, "#summary-text").split())
        await pilot.press("enter")
        assert await _follow(app, pilot, session), "no wrong move was tried"
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        result = " ".join(text_of(app, "#result").split())
        assert learn.text("done_title") in result
        assert " ".join(session.script.outro.split()) in result
        result_screen = app.screen
        assert isinstance(result_screen, ResultScreen)
        result_screen._shown -= ResultScreen.GRACE_SECONDS
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        real = app.screen
        assert isinstance(real, GameScreen) and real.session is not session
        assert real.session.script is None
        assert sorted(set(real.session.seats)) == sorted({HUMAN, DEFAULT_BOT})

    run_app(PlayApp(session, bot_delay=0), test, size=(100, 40))


def test_the_board_highlights_the_part_the_coach_points_at() -> None:
    """A planted check: the part's text on the board carries the pointer's
    style, and nothing does when no part is named."""
    session = lesson("poison-pot")
    view = view_for(session.game)
    obs = session.state.observation(1)
    board = learn.point_at(view.board(obs, 1), view, "circle-c2", 1)
    spans = [board.plain[s.start : s.end] for s in board.spans if s.style == learn.POINTED]
    assert spans == ["c2"]
    plain = learn.point_at(view.board(obs, 1), view, "", 1)
    assert not [s for s in plain.spans if s.style == learn.POINTED]


@pytest.mark.parametrize(
    ("game", "part", "words"),
    [
        ("poison-pot", "circle-b3", "circle b3"),
        ("in-vino-morte", "seat-1", "seat 1 (you)"),
        ("little-drop-of-poison", "character-king", "the king"),
        ("tea-scones-arsenic", "kind-2", "kind 2"),
    ],
)
def test_each_games_view_names_and_finds_its_parts(game: str, part: str, words: str) -> None:
    session = lesson(game)
    assert session.script is not None
    view = view_for(session.game)
    seat = session.script.seat
    assert words in view.part_words(part, seat)
    while session.to_move() != seat:  # a dealt table, so every part is drawn
        bot = session.bot_to_move()
        if bot is None:
            session.play_chance()
        else:
            session.play(session.to_move(), bot.step(session.state.clone()))
    board = learn.point_at(view.board(session.state.observation(seat), seat), view, part, seat)
    assert any(s.style == learn.POINTED for s in board.spans), f"{part} not found on the board"


def test_the_coach_panel_says_where_to_look_and_why_a_move_was_wrong() -> None:
    session = lesson("poison-pot")
    coach = session.coach()
    assert coach is not None
    view = view_for(session.game)
    text = learn.panel(coach, [], view, 1, wrong="not that one").plain
    assert "step 1 of" in text and "Coach: not that one" in text


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        ({"players": 2}, "--players"),
        ({"seed": 4}, "--seed"),
        ({"option": ["radius=2"]}, "--option"),
        ({"seat_bots": "easy"}, "--seat-bots"),
    ],
)
def test_learn_refuses_the_flags_its_script_fixes(flags: dict[str, object], needle: str) -> None:
    settings: dict[str, object] = {
        "players": None,
        "seat_bots": None,
        "seat": None,
        "option": [],
        "seed": None,
        "save": None,
        "resume": None,
        "bot_delay": 0.5,
    }
    settings.update(flags)
    with pytest.raises(BadOptionError, match=needle):
        plan("poison-pot", learn=True, **settings)  # type: ignore[arg-type]


def test_learn_needs_a_game_and_makes_the_lesson() -> None:
    with pytest.raises(BadOptionError, match="needs a game"):
        plan(None, None, None, None, [], None, None, None, 0.5, learn=True)
    with pytest.raises(UnknownGameError):
        plan("no-such-game", None, None, None, [], None, None, None, 0.5, learn=True)
    setup = plan("poison-pot", None, None, None, [], None, None, None, 0.5, learn=True)
    assert setup.session is not None and setup.session.script is not None
    assert SCRIPTED in setup.session.seats


def test_the_pointed_widget_is_marked_for_the_hand() -> None:
    """In Little Drop of Poison the coach points at the hand: the pinned hand
    is marked as the pointed part while that step is the person's."""
    session = lesson("little-drop-of-poison")
    assert session.script is not None
    steps = session.script.steps

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        await pilot.press("enter")
        await until(pilot, lambda: my_turn(app, session, 0))
        part = steps[session.state.move_number()].part
        pinned = app.screen.query_one("#pinned", Static)
        assert pinned.has_class("pointed") == (part == "hand")
        assert isinstance(pinned.content, Text | str)

    run_app(PlayApp(session, bot_delay=0), test, size=(100, 40))
