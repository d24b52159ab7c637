"""The conformance suite passes a correct game and catches each planted bug."""

from __future__ import annotations

import pytest
from toy_game import ToyGame

from apothecary.testing import ConformanceError, check_game


def check_toy(bug: str) -> None:
    check_game("toy-high-card", games=30, seed=3, game_factory=lambda: ToyGame(bug=bug))


def test_a_correct_game_passes() -> None:
    report = check_game("toy-high-card", games=30, seed=3, game_factory=ToyGame)
    assert report.games == 30
    assert report.resamples > 30
    assert 0 < report.resamples_differing < report.resamples
    assert all(3 <= n <= 4 for n in report.lengths)


@pytest.mark.parametrize(
    ("bug", "message"),
    [
        ("leak", "changed seat"),
        ("unsorted", "not sorted"),
        ("chance", "sum to"),
        ("resampler", "changed seat"),
        ("peeks", "depends on more than the seat's information"),
        ("clone", "share something mutable"),
        ("notation", "parses to"),
        ("length", "max_game_length"),
    ],
)
def test_each_planted_bug_is_caught(bug: str, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_toy(bug)


def test_a_failure_names_the_moves_to_replay_it() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_toy("leak")
    text = str(caught.value)
    assert "seed=3" in text
    assert "actions: ['deal" in text
