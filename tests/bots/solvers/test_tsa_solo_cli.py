"""``apothecary solve``: the value and the time for Tea, Scones and Arsenic solo;
one line and exit code 2 for a game or table without a solver, or too big,
before anything is computed."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apothecary.bots.solvers import cli as solve_cli
from apothecary.cli import app
from apothecary.games.tea_scones_arsenic import solo_table as tsa_solo_table
from apothecary.games.tea_scones_arsenic import solve as tsa_solve
from apothecary.games.tea_scones_arsenic.solo_table import SoloBox

SMALL = SoloBox(3, (0, 1, 3), 1, 5)
SMALL_VALUE = Fraction(481, 108)  # the unreduced expectimax of that box, exactly


@pytest.fixture
def no_solving(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any solve started is a failure: a refusal must come first."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a solve started")

    monkeypatch.setattr(tsa_solo_table, "solve", refuse)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["poison-pot", "--players", "2"], "no exact solver for poison-pot"),
        (["tea-scones-arsenic", "--players", "3"], "only solo (--players 1), not at 3"),
        (["tea-scones-arsenic", "--players", "9"], "1 to 6"),
        (["no-such-game"], "no-such-game"),
    ],
)
def test_refusals_are_one_line_and_exit_2(args: list[str], message: str, no_solving: None) -> None:
    result = CliRunner().invoke(app, ["solve", *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


def test_too_big_for_memory_is_refused_before_solving(
    monkeypatch: pytest.MonkeyPatch, no_solving: None
) -> None:
    monkeypatch.setattr(solve_cli, "memory_available", lambda: 10**8)
    result = CliRunner().invoke(app, ["solve", "tea-scones-arsenic", "--players", "1"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "GB of memory" in lines[0] and "0.1 GB is available" in lines[0]


def test_solve_prints_the_value_and_the_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("APOTHECARY_CACHE", str(tmp_path))
    monkeypatch.setattr(tsa_solve, "BOX", SMALL)
    result = CliRunner().invoke(app, ["solve", "tea-scones-arsenic", "--players", "1"])
    assert result.exit_code == 0, result.output
    assert f"optimal expected score {float(SMALL_VALUE):.12g} scones" in result.output
    assert "solved exactly in " in result.output
    saved = tsa_solo_table.load(SMALL, tsa_solo_table.cache_path(SMALL))
    assert saved is not None and saved.value == pytest.approx(float(SMALL_VALUE))


def test_processes_wanting_the_table_at_once_solve_it_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Test workers or bot pools starting together on a fresh machine must not
    each spend minutes solving: one solves, the rest wait and load its file.
    (Without the lock in ``obtain`` both threads below solve: the count is 2.)"""
    import threading
    import time

    real_solve = tsa_solo_table.solve
    solves: list[int] = []

    def slow_solve(*args: object, **kwargs: object) -> object:
        solves.append(1)
        time.sleep(0.5)  # long enough for the other caller to reach the lock
        return real_solve(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tsa_solo_table, "solve", slow_solve)
    where = tmp_path / "table.npz"
    # Each caller misses the in-process memo, as a separate process would.
    monkeypatch.setattr(tsa_solo_table, "_LOADED", {})
    barrier = threading.Barrier(2)
    values: list[float] = []

    def want() -> None:
        barrier.wait()
        values.append(tsa_solo_table.obtain(SMALL, path=where).value)
        tsa_solo_table._LOADED.clear()

    threads = [threading.Thread(target=want) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(solves) == 1
    assert values == [pytest.approx(float(SMALL_VALUE))] * 2
