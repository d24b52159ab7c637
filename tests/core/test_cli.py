"""The command line: each command works, and user errors are one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toy_game import ToyGame
from typer.testing import CliRunner

from apothecary.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_games_lists_every_registered_game(toy_registered: type[ToyGame]) -> None:
    code, out, _ = run("games")
    assert code == 0
    assert "toy-high-card" in out and "2-2 players" in out


def test_rules_without_a_page_shows_title_and_options(toy_registered: type[ToyGame]) -> None:
    code, out, _ = run("rules", "toy-high-card")
    assert code == 0
    assert "# Toy High Card" in out
    assert "bug = none" in out and "one of none, leak" in out


def test_simulate_reports_rates_and_writes_records(
    toy_registered: type[ToyGame], tmp_path: Path
) -> None:
    code, out, err = run(
        "simulate", "toy-high-card", "-n", "40", "--seed", "7", "--record", str(tmp_path)
    )
    assert code == 0, err
    assert "toy-high-card, 2 players, 40 games" in out
    assert "random" in out and "seat 0" in out and "seat 1" in out
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 40
    again_code, again, _ = run("simulate", "toy-high-card", "-n", "40", "--seed", "7")
    assert again_code == 0 and again == out  # the same seed plays the same games
    code, shown, err = run("replay", str(files[0]), "--seat", "1")
    assert code == 0, err
    assert "after 4 of 4 actions" in shown or "after 3 of 3 actions" in shown
    assert "Outcome:" in shown
    code, shown, _ = run("replay", str(files[0]), "--at", "1")
    assert code == 0 and "after 1 of" in shown and "Outcome" not in shown


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("rules", "chess"), "error: unknown game 'chess'"),
        (("simulate", "chess"), "error: unknown game 'chess'"),
        (("simulate", "toy-high-card", "--players", "5"), "5 players is not allowed"),
        (("simulate", "toy-high-card", "--option", "colour=red"), "unknown option 'colour'"),
        (("simulate", "toy-high-card", "--option", "bug"), "write it as name=value"),
        (
            ("simulate", "toy-high-card", "--option", "bug=boom"),
            "option bug=boom: expected one of none",
        ),
        (("simulate", "toy-high-card", "--bots", "genius"), "unknown bot 'genius'"),
        (("simulate", "toy-high-card", "--bots", "random,random,random"), "3 bots named"),
        (("replay", "/nonexistent.json"), "error: cannot read record"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    toy_registered: type[ToyGame], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in out + err


def test_replay_bad_seat(toy_registered: type[ToyGame], tmp_path: Path) -> None:
    state = ToyGame().new_initial_state()
    state.apply_action("deal 0")
    path = tmp_path / "r.json"
    from apothecary import Record

    Record.from_state(state).save(path)
    assert json.loads(path.read_text())["actions"] == ["deal 0"]
    code, _, err = run("replay", str(path), "--seat", "4")
    assert code == 2 and "--seat 4: the game has seats 0 to 1" in err


def test_a_bad_flag_is_a_usage_error() -> None:
    code, _, err = run("simulate", "--no-such-flag")
    assert code == 2 and "No such option" in err
