"""The command line: each command works, and user errors are one line, exit 2."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from toy_high_card.game import ToyGame
from typer.testing import CliRunner

import apothecary
from apothecary import Record
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
    assert "Toy High Card" in out and "# Toy" not in out  # laid out, not raw markdown
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


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"apothecary {apothecary.__version__}"


def test_rules_lay_out_a_real_page_for_the_terminal() -> None:
    code, out, _ = run("rules", "poison-pot")
    assert code == 0
    page = apothecary.game_class("poison-pot").rules_page()
    assert page is not None and "\n## " in page and "|---" in page.replace(" ", "")
    assert "\n## " not in out and "|---" not in out.replace(" ", "")  # headings, tables drawn
    assert "\x1b" not in out  # and no colour codes when the output is not a terminal


def test_replay_escapes_control_characters_from_the_record(tmp_path: Path) -> None:
    game = apothecary.load("in-vino-morte", players=2)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    path = tmp_path / "evil.json"
    record = Record.from_state(state, seats=["\x1b[2J\x1b[31mMallory\x07", "Bob\rEve"])
    record.save(path)
    winner = state.outcome().winners[0]  # type: ignore[union-attr]
    code, out, err = run("replay", str(path))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert ("\\x1b[2J\\x1b[31mMallory\\x07" if winner == 0 else "Bob\\rEve") in out


def test_replay_names_a_bad_move_by_its_notation_not_an_action_id(tmp_path: Path) -> None:
    game = apothecary.load("poison-pot", players=2)
    state = game.new_initial_state()
    path = tmp_path / "bad.json"
    record = Record.from_state(state)
    record.actions = ["c3"]  # a placement where the first move must be a slide
    path.write_text(record.dumps())
    code, _, err = run("replay", str(path))
    assert code == 2 and "'c3'" in err and "not legal now" in err
    assert "(action " not in err


def test_ctrl_c_during_simulate_prints_the_games_finished(
    toy_registered: type[ToyGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    import apothecary.arena.cli as arena_cli

    @contextmanager
    def stopped_after_a_batch(label: str, total: int) -> Iterator[Callable[[int], None]]:
        def update(done: int) -> None:
            if done > 0:  # Ctrl-C as the first games come in
                raise KeyboardInterrupt

        yield update

    monkeypatch.setattr(arena_cli, "_progress_bar", stopped_after_a_batch)
    code, out, err = run("simulate", "toy-high-card", "-n", "4000", "--seed", "7")
    assert code == 130
    finished = int(out.split("2 players, ")[1].split(" games")[0])  # the summary so far
    assert 0 < finished < 4000
    assert "interrupted" in err and f"the {finished} of 4000 games that finished" in err


@pytest.mark.parametrize(
    ("command", "missing"), [("tournament", "openskill"), ("report", "matplotlib")]
)
def test_a_missing_extra_is_said_before_any_game(
    command: str, missing: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a)
    )
    out = tmp_path / "t"
    args = ["poison-pot", "-n", "2", "--out", str(out)] if command == "tournament" else [str(out)]
    code, _, err = run(command, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"needs the [study] extra ({missing} missing)" in err
    assert "pip install -e '.[study]'" in err and "pip install 'apothecary[study]'" in err
    assert not out.exists()  # nothing was played
