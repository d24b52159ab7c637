"""The terminal app's game logic without a terminal: seats, the per-seat log, records."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import apothecary
from apothecary.core.errors import (
    BadOptionError,
    GameOverError,
    IllegalActionError,
    UnknownBotError,
)
from apothecary.core.game import CHANCE
from apothecary.core.records import Record
from apothecary.tui.session import HUMAN, Session, plan_seats, seats_from_record

# Options that keep a whole game short enough for a test; other games play as they are.
SHORT = {"little-drop-of-poison": {"target": 1}, "poison-pot": {"radius": 2}}


def short_game(name: str, players: int | None = None) -> apothecary.Game:
    return apothecary.load(name, players=players, **SHORT.get(name, {}))


def play_out(session: Session, rng: random.Random, stop_after: int | None = None) -> None:
    """Bots move for themselves; people's seats move at random."""
    moves = 0
    while not session.is_over() and (stop_after is None or moves < stop_after):
        mover = session.to_move()
        if mover == CHANCE:
            session.play_chance()
        elif session.is_human(mover):
            session.play(mover, rng.choice(session.state.legal_actions()))
        else:
            bot = session.bot_to_move()
            assert bot is not None
            session.play(mover, bot.step(session.state.clone()))
        moves += 1


def test_seat_bots_fill_the_other_seats_in_order_and_the_last_fills_the_rest() -> None:
    assert plan_seats("in-vino-morte", 4, []) == [HUMAN, "easy", "easy", "easy"]
    assert plan_seats("in-vino-morte", 4, ["hard", "random"]) == [
        HUMAN,
        "hard",
        "random",
        "random",
    ]
    assert plan_seats("in-vino-morte", 3, ["human"]) == [HUMAN, HUMAN, HUMAN]
    assert plan_seats("poison-pot", 3, ["medium"], human_seat=2) == ["medium", "medium", HUMAN]
    assert plan_seats("poison-pot", 3, ["easy", "hard"], human_seat=1) == ["easy", HUMAN, "hard"]
    # A bot may carry its budget.
    spec = "ismcts:iterations=50"
    assert plan_seats("poison-pot", 2, [spec]) == [HUMAN, spec]


def test_a_record_names_bots_with_budgets_and_people() -> None:
    record = Record(
        game="poison-pot",
        players=3,
        options={},
        seats=["ismcts:iterations=50", "Alice: the host", "medium"],
        actions=[],
    )
    assert seats_from_record(record) == ["ismcts:iterations=50", HUMAN, "medium"]


@pytest.mark.parametrize(
    ("seat_bots", "seat", "error", "words"),
    [
        (["godlike"], 0, UnknownBotError, "unknown level or bot 'godlike'"),
        (["godlike:iterations=5"], 0, UnknownBotError, "unknown level or bot 'godlike:"),
        (["easy", "easy", "easy"], 0, BadOptionError, "3 seats, but 2 players leave 1 seat "),
        ([], 5, BadOptionError, "--seat 5"),
    ],
)
def test_bad_seat_plans_say_what_is_wrong(
    seat_bots: list[str], seat: int, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        plan_seats("poison-pot", 2, seat_bots, seat)


def test_too_many_seat_names_are_counted_in_good_english_and_say_the_fix() -> None:
    """One name for a one-player game: "1 seat", "1 player leaves", and what to do;
    the setup form passes its own field's name for the flag's."""
    with pytest.raises(BadOptionError) as raised:
        plan_seats("tea-scones-arsenic", 1, ["easy"], field="“Other seats”")
    assert str(raised.value) == (
        "“Other seats” names 1 seat, but 1 player leaves no seat beside yours: "
        "name none, or choose more players"
    )
    with pytest.raises(BadOptionError, match="name at most 2, or choose more players"):
        plan_seats("tea-scones-arsenic", 3, ["easy", "easy", "hard"])


def test_a_move_out_of_turn_or_illegal_changes_nothing() -> None:
    session = Session(apothecary.load("poison-pot", players=2), [HUMAN, "random"], seed=1)
    before = session.state.observation(0), session.state.history(), len(session.log)
    with pytest.raises(IllegalActionError, match="seat 0's turn, not seat 1's"):
        session.play(1, session.state.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="not legal now"):
        session.play(0, "c3")  # a placement, but it is time to slide
    with pytest.raises(ValueError, match="cannot read 'zz9'"):
        session.play(0, "zz9")
    assert (session.state.observation(0), session.state.history(), len(session.log)) == before


@pytest.mark.parametrize("name", apothecary.games())
def test_the_log_reveals_nothing_a_seat_could_not_know(name: str) -> None:
    """A world redrawn from what seat 0 knows must give seat 0 the very same log."""
    game = short_game(name)
    if not game.info.has_hidden_information:
        pytest.skip("nothing is hidden in this game")
    seats = [HUMAN] + ["random"] * (game.num_players - 1)
    checked = hidden = 0
    for seed, stop_after in enumerate((2, 3, 5, 8, 13, 21, 34)):
        session = Session(game, seats, seed=seed)
        play_out(session, random.Random(seed), stop_after=stop_after)
        if session.is_over():
            continue  # the end may reveal everything; check mid-game positions
        for draw in range(3):
            world = session.state.resample_from_infostate(0, random.Random(draw))
            other = Session(game, seats, seed=seed, state=world)
            assert other.log_lines(0) == session.log_lines(0)
            checked += 1
        hidden += sum(not entry.whole(0) for entry in session.log)
    assert checked > 0
    assert hidden > 0  # ...and the log really does keep something from seat 0


def test_other_seats_secrets_are_logged_only_for_their_owner() -> None:
    game = apothecary.load("in-vino-morte", players=3)
    session = Session(game, [HUMAN, HUMAN, HUMAN], seed=4)
    dealer = session.to_move()
    session.play(dealer, "deal poison")
    owner_line = session.log[-1].line(dealer)
    others = [seat for seat in range(3) if seat != dealer]
    assert "poison" in owner_line
    for seat in [*others, None]:
        line = session.log[-1].line(seat)
        assert "poison" not in line and "wine" not in line
        assert "deals a covered glass to seat" in line


def test_resuming_a_record_gives_the_same_position_seats_and_log(tmp_path: Path) -> None:
    game = apothecary.load("tea-scones-arsenic", players=3)
    session = Session(game, [HUMAN, "easy", "random"], seed=9)
    play_out(session, random.Random(2), stop_after=12)
    path = session.save(tmp_path / "game.json")
    record = apothecary.Record.load(path)
    assert record.seats == [HUMAN, "easy", "random"]
    assert seats_from_record(record) == [HUMAN, "easy", "random"]
    again = Session.resume(record, seed=9)
    assert again.state.history() == session.state.history()
    for seat in range(3):
        assert again.state.observation(seat) == session.state.observation(seat)
    assert again.log_lines(0) == session.log_lines(0)
    assert again.seats == session.seats


def test_unknown_seat_names_in_a_record_are_people() -> None:
    state = apothecary.load("poison-pot", players=2).new_initial_state()
    record = apothecary.Record.from_state(state, seats=["Alice", "rules"])
    assert seats_from_record(record) == [HUMAN, "rules"]


def test_the_same_seed_draws_the_same_chance() -> None:
    game = apothecary.load("poison-pot", players=2)
    histories = []
    for _ in range(2):
        session = Session(game, [HUMAN, "random"], seed=12)
        play_out(session, random.Random(0), stop_after=20)
        histories.append(session.state.history())
    assert histories[0] == histories[1]


def test_a_move_after_the_end_says_the_game_is_over() -> None:
    session = Session(apothecary.load("in-vino-morte", players=2), [HUMAN, "random"], seed=3)
    play_out(session, random.Random(1))
    with pytest.raises(GameOverError, match="the game is over"):
        session.play(0, "drink")
