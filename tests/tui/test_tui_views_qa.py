"""The game views as a QA pass found them at 80×24 and 120×40: lines cut at the
board's edge, the cheese never named, raw lists on the final boards, a death
told as if the game went on, generic refusals. Each test fails on the views
as they were."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pilot_helpers import my_turn, run_app, text_of, until
from rich.cells import cell_len
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.widgets import Input, Static

import apothecary
from apothecary.core.game import CHANCE, Game, State, sample_chance
from apothecary.games.little_drop_of_poison.events import card_words as words
from apothecary.tui.app import PlayApp
from apothecary.tui.session import HUMAN, Session
from apothecary.tui.views import view_for
from apothecary.tui.views.base import BOARD_WIDTH, Observation


def flat(text: str) -> str:
    """The words of a board with its line breaks (and wrap indents) undone."""
    return " ".join(text.split())


def scripted(game: Game, moves: list[str]) -> list[State]:
    """The states of ``game`` after each of ``moves`` (notations), the first state first."""
    state = game.new_initial_state()
    states = [state.clone()]
    for move in moves:
        state.apply_action(state.string_to_action(move))
        states.append(state.clone())
    return states


def seats_to_move(game: Game, seed: int) -> Iterator[tuple[State, int, Observation]]:
    """Each position of one random game where a seat is to move: the state, the
    seat and its observation."""
    for state in random_states(game, seed):
        mover = state.current_player()
        if mover != CHANCE and not state.is_terminal():
            yield state, mover, state.observation(mover)


def random_states(game: Game, seed: int, avoid: tuple[str, ...] = ()) -> list[State]:
    """Every state of one random game of ``game``, moves in ``avoid`` (notations)
    played only when nothing else is legal (a Tea game that never stops runs long)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            wanted = [a for a in legal if state.action_to_string(a) not in avoid]
            state.apply_action(rng.choice(wanted or legal))
        states.append(state.clone())
    return states


# -- nothing cut at the board's edge (defects 2 and 7) -------------------------------------

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("in-vino-morte", {"players": 4, "cheese": True, "round_limit": 6}),
    ("little-drop-of-poison", {"players": 6, "target": 4}),
    ("tea-scones-arsenic", {"players": 1}),
    ("tea-scones-arsenic", {"players": 3}),
]


def test_at_80x24_the_board_shows_lines_of_its_width_whole() -> None:
    """The width every view wraps to is what the board keeps at the smallest
    window, its scroll bar drawn (the six-seat board is taller than the window)."""
    session = Session(
        apothecary.load("little-drop-of-poison", players=6), [HUMAN, *["easy"] * 5], seed=2
    )

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        await pilot.pause()
        scroll = app.screen.query_one("#board-scroll", ScrollableContainer)
        assert scroll.show_vertical_scrollbar
        shown = scroll.scrollable_content_region.width
        assert shown >= BOARD_WIDTH
        lines = text_of(app, "#board").splitlines()
        assert max(cell_len(line) for line in lines) <= shown, lines

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_no_board_line_is_wider_than_the_board_and_cups_read_whole(
    name: str, options: dict[str, Any]
) -> None:
    """In Vino Morte's legend ("✝ dead") and "(has played)", Little Drop of
    Poison's "starting seat", "on it: nothing" and its legend, the reveal
    lines, and a Tea cup of 14 scones or more were cut; all must now wrap."""
    game = apothecary.load(name, **options)
    view = view_for(game)
    longest_cup = 0
    for seed in range(3):
        for state in random_states(game, seed, avoid=("stop",)):
            for viewer in [*range(game.num_players), None]:
                obs = state.observation(viewer)
                board = view.board(obs, viewer).plain
                too_wide = [line for line in board.splitlines() if cell_len(line) > BOARD_WIDTH]
                assert not too_wide, too_wide
                for seat in obs.get("seats", []) if name == "tea-scones-arsenic" else []:
                    cup = " ".join(
                        f"k{s['kind']}:{'?' if s['dose'] is None else s['dose']}"
                        for s in seat["cup"]
                    )
                    assert cup in flat(board)
                    longest_cup = max(longest_cup, len(seat["cup"]))
    assert name != "tea-scones-arsenic" or longest_cup >= 14


# -- Tea, Scones and Arsenic: your own dose stays in sight (defect 1) ------------------------


def test_at_80x24_your_own_dose_stays_in_sight_beside_the_marked_scones() -> None:
    """The total dose against the lethal dose is what every choice turns on
    ("A player whose total dose reaches the lethal dose or more dies at
    once"): with marked scones in the box, it was scrolled out of the board."""
    game = apothecary.load("tea-scones-arsenic", players=3)
    session = Session(game, [HUMAN, "easy", "easy"], seed=4)
    for seat, move in ((0, "d1"), (0, "back"), (1, "d2"), (1, "back"), (2, "d3"), (2, "back")):
        while session.to_move() == CHANCE:
            session.play_chance()
        session.play(seat, move)

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        obs = session.state.observation(0)
        assert len(obs["box"]["marked"]) == 3
        mine = obs["seats"][0]
        pinned = app.screen.query_one("#pinned", Static)
        assert str(pinned.content).startswith(
            f"You: dose {mine['total']} of a lethal {obs['lethal_dose']}, "
            f"{mine['scones']} scones, {mine['cubes']} cubes"
        )
        assert pinned.region.height > 0 and pinned.region.bottom <= 24

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


# -- In Vino Morte: the cheese where it decided (defect 3) -----------------------------------

CHEESE = apothecary.load("in-vino-morte", players=3, cheese=True)


def test_a_poison_the_cheese_turned_is_named_with_it_at_the_reveal() -> None:
    """ "A player who drinks while holding Cheese has the result reversed: Wine
    kills them and Poison does not. By default the same holds at the final
    reveal." Seat 1 swaps its wine for seat 2's poison and keeps its cheese:
    "seat 1 poison ... Died: nobody" read like a rules error."""
    view = view_for(CHEESE)
    *_, before, after = scripted(
        CHEESE, ["deal 1 wine+cheese", "deal 2 poison", "deal 0 wine", "swap 2", "drink"]
    )
    for viewer in (0, 1):
        summary = view.summary(before.observation(viewer), after.observation(viewer), viewer)
        assert summary is not None
        me = " (you)" if viewer == 1 else ""
        assert f"seat 1{me} poison + cheese" in summary
        assert "Died at the reveal: nobody" in summary
        # A glass the cheese did not turn is told without it.
        assert "seat 2 wine" in summary and "seat 2 wine +" not in summary
        board = flat(view.board(after.observation(viewer), viewer).plain)
        assert f"Round 1 reveal: seat 1{me} poison + cheese, seat 0" in board


def test_a_drink_the_cheese_turned_says_so() -> None:
    view = view_for(CHEESE)
    *_, state = scripted(CHEESE, ["deal 1 poison+cheese", "deal 2 wine", "deal 0 wine", "drink"])
    board = flat(view.board(state.observation(2), 2).plain)
    assert "seat 1 drinks poison and lives (cheese reverses it)" in board


# -- final boards in words (defect 4), the death that ends the game (defect 5) ---------------

BOTH_DIE = ["deal 1 poison", "deal 2 poison", "deal 0 wine", "drink", "drink"]


def test_in_vino_mortes_final_board_names_the_dead() -> None:
    game = apothecary.load("in-vino-morte", players=3)
    *_, end = scripted(game, BOTH_DIE)
    board = flat(view_for(game).board(end.observation(2), 2).plain)
    assert "died drinking: seat 1 and seat 2 (you) died at the reveal: nobody" in board, board


def test_you_died_says_the_others_play_on_only_when_they_do() -> None:
    """Seat 1 drinks poison and the round goes on; seat 2's poison ends the
    game in the same round: nobody plays on after it."""
    game = apothecary.load("in-vino-morte", players=3)
    view = view_for(game)
    states = scripted(game, BOTH_DIE)
    first = view.summary(states[3].observation(1), states[4].observation(1), 1)
    assert first == "You died: your glass held poison. The others play on without you."
    last = view.summary(states[4].observation(2), states[5].observation(2), 2)
    assert last is not None and last.startswith("You died: your glass held poison. Round 1")
    assert "play on" not in last


def test_a_solo_tea_death_has_no_others_to_play_on() -> None:
    game = apothecary.load("tea-scones-arsenic", players=1)
    view = view_for(game)
    for seed in range(20):
        states = random_states(game, seed, avoid=("stop", "back", "backshuffle"))
        obs = [s.observation(0) for s in states]
        deaths = [i for i in range(1, len(obs)) if not obs[i]["seats"][0]["alive"]]
        if deaths:
            said = view.summary(obs[deaths[0] - 1], obs[deaths[0]], 0)
            assert said is not None and said.startswith("You died at dose")
            assert "others" not in said
            return
    raise AssertionError("no solo game of these seeds ended in a death")


def test_little_drop_of_poisons_reveal_names_killers_and_points_in_words() -> None:
    """It read "died: 0 (by 1), king (by 2, 0); points [3, 1, 3" (cut)."""
    game = apothecary.load("little-drop-of-poison", players=3, target=4)
    view = view_for(game)
    checked = 0
    for seed in range(6):
        for state in random_states(game, seed):
            obs = state.observation(0)
            reveal = obs.get("last_reveal")
            if not reveal or not reveal["deaths"]:
                continue
            board = flat(view.board(obs, 0).plain)
            assert "[" not in board.split("Reveal of round")[1].split("bN")[0]
            points = ", ".join(
                f"seat {s}{' (you)' if s == 0 else ''} +{p}"
                for s, p in enumerate(reveal["points"])
                if p
            )
            assert f"points: {points or 'none'}" in board
            assert re.search(r"died, poisoned by (seat \d( \(you\))?( and |, )?)+", board), board
            checked += 1
    assert checked


# -- the game's reasons for a refused move (defect 6) ----------------------------------------


def test_a_cheese_past_the_limit_is_refused_with_the_limit() -> None:
    """ "players in the round 3-4: Cheese allowed 0-1"; the first glass took it."""
    session = Session(CHEESE, [HUMAN, "easy", "easy"], seed=1)
    session.play(0, "deal 1 poison+cheese")

    async def test(app: PlayApp, pilot: Pilot[None]) -> None:
        await until(pilot, lambda: my_turn(app, session))
        app.screen.query_one("#entry", Input).value = "deal 2 wine+cheese"
        await pilot.press("f2", "enter")
        await pilot.pause()
        error = text_of(app, "#error")
        assert "a round of 3 players gets at most 1 cheese, all dealt already" in error, error
        assert len(session.state.history()) == 1

    run_app(PlayApp(session, bot_delay=0), test, size=(80, 24))


def test_steals_the_rules_forbid_are_refused_in_their_words() -> None:
    """ "Nobody may hold two, so a player who holds Cheese cannot steal"; and
    only a seat that holds one can be stolen from."""
    view = view_for(CHEESE)
    states = scripted(CHEESE, ["deal 1 wine+cheese", "deal 2 poison", "deal 0 wine", "swap 2"])
    holder = states[3].observation(1)
    assert view.why_illegal(holder, "steal 2") == (
        "you hold a cheese already, and nobody may hold two"
    )
    assert view.why_illegal(states[4].observation(2), "c0") == "seat 0 holds no cheese"


def test_a_second_target_and_a_pass_with_cards_are_refused() -> None:
    game = apothecary.load("little-drop-of-poison", players=3)
    view = view_for(game)
    for state, mover, obs in seats_to_move(game, 3):
        if obs["phase"] == "play" and obs["hand"] and obs["seats"][mover]["played_on"] is None:
            assert view.why_illegal(obs, "pass") == (
                "only a seat with no card may pass; with cards, choose whom to play on"
            )
            assert view.why_illegal(obs, "b1") == (
                "choose whom to play on first (on king, or on a seat's number)"
            )
            state.apply_action(state.string_to_action("on king"))
            again = view.why_illegal(state.observation(mover), "on 1")
            assert again == "you have chosen to play on the king this round already"
            return
    raise AssertionError("no seat with cards came to choose whom to play on")


def test_a_card_not_in_hand_is_refused_naming_only_your_own_hand() -> None:
    game = apothecary.load("little-drop-of-poison", players=3)
    view = view_for(game)
    for state, mover, obs in seats_to_move(game, 3):
        if obs["phase"] != "play" or obs["seats"][mover]["played_on"] is None:
            continue
        legal = {state.action_to_string(a) for a in state.legal_actions()}
        missing = next(code for code in game.codes if code not in obs["hand"])
        assert missing not in legal
        reason = view.why_illegal(obs, missing)
        hand = " ".join(c for c, n in obs["hand"].items() for _ in range(n)) or "no card"
        assert reason == f"you hold no {missing} (your hand: {hand})"
        return
    raise AssertionError("no seat chose whom to play on in this game")


# -- wording (defect 8) --------------------------------------------------------------------


def test_one_point_is_one_pt_and_the_cheese_turn_reads_as_english() -> None:
    game = apothecary.load("little-drop-of-poison", players=3)
    obs = game.new_initial_state().observation(0)
    obs["seats"][1]["score"] = 1
    board = view_for(game).board(obs, 0).plain
    assert "1 pt" in board and "1 pts" not in board
    state = scripted(CHEESE, ["deal 1 wine", "deal 2 poison", "deal 0 wine"])[-1]
    status = view_for(CHEESE).status(state.observation(1), 1)
    assert status == "seat 1 (you) drinks, swaps glasses with a seat, or steals a cheese"


# -- the second QA pass ----------------------------------------------------------------------


def test_the_reveal_line_tells_deaths_by_drinking_from_deaths_at_the_reveal() -> None:
    """ "Anyone who has not drunk reveals their glass" at the round's end. It read
    "Round 2 reveal: seat 0 wine, seat 3 wine; died: seat 1 (you) and seat 2"
    when those two had died drinking and the reveal killed nobody."""
    game = apothecary.load("in-vino-morte", players=4, cheese=True, round_limit=6)
    view = view_for(game)
    both = 0
    for seed in range(8):
        for state in random_states(game, seed):
            for viewer in (0, None):
                last = state.observation(viewer)["last_round"]
                if not last:
                    continue
                board = flat(view.board(state.observation(viewer), viewer).plain)
                drank = [s for s in last["died"] if s not in last["revealed"]]
                at_reveal = [s for s in last["died"] if s in last["revealed"]]
                names = [f"seat {s}{' (you)' if s == viewer else ''}" for s in at_reveal]
                told = " and ".join(names[-2:]) if len(names) < 3 else ", ".join(names)
                assert f"died at the reveal: {told or 'nobody'}" in board, board
                assert ("died drinking: " in board) == bool(drank), board
                both += bool(drank)
    assert both  # a round with a death by drinking came up


def test_a_seat_row_is_one_line_with_its_cheese_and_turn() -> None:
    """At 80×24 "glass [?] covered C" left "cheese", and "(played)", alone on
    the next line; every seat's row must now fit the board whole."""
    game = apothecary.load("in-vino-morte", players=4, cheese=True, round_limit=6)
    view = view_for(game)
    marked = 0
    for seed in range(3):
        for state in random_states(game, seed):
            for viewer in (*range(4), None):
                obs = state.observation(viewer)
                lines = view.board(obs, viewer).plain.splitlines()
                first = next(i for i, line in enumerate(lines) if line[2:].startswith("seat 0"))
                rows = lines[first : first + obs["players"]]
                assert [row[2:8] for row in rows] == [f"seat {s}" for s in range(4)], lines
                assert lines[first + obs["players"]] == "", lines
                marked += any("cheese" in row and "played" in row for row in rows)
    assert marked


def test_little_drop_of_poisons_reveal_away_from_the_legend_says_cards_in_words() -> None:
    """The reveal's pause and "How it went" read "seat 2 had played b! ... p2 p2"
    with no legend in sight; each card is now in words, its code beside it, and
    no card a seat played is left out. Death by poison without nested brackets:
    "died (by seat 0 (you))" read badly."""
    game = apothecary.load("little-drop-of-poison", players=4, target=4)
    view = view_for(game)
    types = {card.code: card for card in game.deck.types}  # type: ignore[attr-defined]
    seen = 0
    for seed in range(3):
        states = random_states(game, seed)
        for before, after in itertools.pairwise(states):
            said = view.summary(before.observation(1), after.observation(1), 1)
            if said is None:
                continue
            for play in after.observation(1)["last_reveal"]["plays"]:
                for code, count in play["cards"].items():
                    assert said.count(f"{words(types[code])} ({code})") >= count, said
            assert "(by " not in said
            seen += "poisoned by" in said
    assert seen


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_a_board_wraps_to_the_width_it_is_given(name: str, options: dict[str, Any]) -> None:
    """At 120×40 the board's pane is 80 wide, yet legends and "discard pile"
    wrapped at 49: a caller that knows the real width passes it, and the board
    fills it (and never passes it)."""
    game = apothecary.load(name, **options)
    view = view_for(game)
    wider = 0
    states = [s for seed in range(3) for s in random_states(game, seed, avoid=("stop",))]
    for state in states[::3]:
        for viewer in (0, None):
            obs = state.observation(viewer)
            lines = view.board(obs, viewer, width=80).plain.splitlines()
            assert max(cell_len(line) for line in lines) <= 80, lines
            narrow = view.board(obs, viewer).plain.splitlines()
            assert flat("\n".join(lines)) == flat("\n".join(narrow))  # the same words
            wider += len(lines) < len(narrow)
    assert wider  # some line that wrapped at 49 fits whole at 80
