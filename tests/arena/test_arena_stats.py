"""Statistics from known games: tallies, head to head, ratings, report tables."""

from __future__ import annotations

import pytest

from apothecary.arena.match import summarise
from apothecary.arena.report import build
from apothecary.arena.stats import ratings
from apothecary.arena.tournament import GameResult, TournamentSpec

SPEC = TournamentSpec("in-vino-morte", 3, ("strong", "weak"), games=30, seed=0, variants=({},))


def game(index: int, seats: list[str], winner: int | None, length: int = 9) -> GameResult:
    returns = [0.0, 0.0, 0.0]
    if winner is not None:
        returns[winner] = 1.0
    record = {"outcome": {"winners": [] if winner is None else [winner], "scores": returns}}
    return GameResult(index, 0, seats, returns, length, record)


def strong_always_wins() -> list[GameResult]:
    results = []
    for i in range(30):
        seats = SPEC.schedule(i)[1]
        results.append(game(i, seats, seats.index("strong"), length=8 + i % 3))
    return results


def test_tallies_and_head_to_head_count_what_happened() -> None:
    summary = summarise(SPEC, strong_always_wins())[0]
    assert summary.games == 30
    assert summary.by_bot["strong"].games == 30 and summary.by_bot["weak"].games == 60
    assert summary.by_bot["strong"].win_rate()[0] == 1.0
    assert summary.by_bot["weak"].win_rate()[0] == 0.0
    assert [t.games for t in summary.by_seat] == [30, 30, 30]
    # rotation: strong sat in each seat 10 times and always won
    assert [t.win_rate()[0] for t in summary.by_seat] == pytest.approx([1 / 3] * 3)
    # two weak seats meet one strong seat per game: 60 meetings, strong always ahead
    assert summary.pairwise[("strong", "weak")] == [60.0, 60]
    assert summary.pairwise[("weak", "strong")] == [0.0, 60]
    assert summary.lengths == [8 + i % 3 for i in range(30)]


def test_ratings_put_the_winner_first_and_skip_one_bot_games() -> None:
    rows = ratings(strong_always_wins())
    assert [r.name for r in rows] == ["strong", "weak"]
    assert rows[0].mu > 25 > rows[1].mu
    assert rows[0].games == rows[1].games == 30
    lone = [game(0, ["weak", "weak", "weak"], 1)]
    assert ratings(lone) == []


def test_a_nobody_wins_game_is_a_tie_for_every_seat() -> None:
    summary = summarise(SPEC, [game(0, ["strong", "weak", "weak"], None)])[0]
    assert summary.pairwise[("strong", "weak")] == [1.0, 2]  # two ties of 1/2


def test_report_shows_the_seat_advantage_and_no_options_table_for_one_set() -> None:
    report = build(SPEC, strong_always_wins())
    titles = [t.title for t in report.tables]
    assert "By seat" in titles and "Effect of the options" not in titles
    seat = next(t for t in report.tables if t.title == "By seat")
    assert "0.333" in seat.note
    assert seat.rows[0][:2] == ["seat 0", "30"]
    assert set(report.plots) == {
        "seat-win-rate.png",
        "bot-win-rate.png",
        "scores.png",
        "length.png",
    }


def test_bot_by_seat_cells_split_each_bot_over_the_seats() -> None:
    summary = summarise(SPEC, strong_always_wins())[0]
    assert [summary.by_bot_seat[("strong", seat)].games for seat in range(3)] == [10, 10, 10]
    assert [summary.by_bot_seat[("weak", seat)].games for seat in range(3)] == [20, 20, 20]
    assert summary.by_bot_seat[("strong", 1)].win_rate()[0] == 1.0
    table = next(t for t in build(SPEC, strong_always_wins()).tables if "bot and seat" in t.title)
    assert table.header == ["bot", "seat 0", "seat 1", "seat 2"]
    assert table.rows[1][0] == "weak" and table.rows[1][1].startswith("0.000 [")
