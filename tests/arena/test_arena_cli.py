"""``apothecary tournament``, ``report`` and ``extract`` from the command line."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apothecary.arena.tournament import GAMES_FILE, SPEC_FILE
from apothecary.cli import app

runner = CliRunner()
GAME = "in-vino-morte"


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_tournament_then_report_then_extract_and_replay(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, text, err = run(
        "tournament", GAME, "-p", "3", "--bots", "rules,random", "-n", "30",
        "--variant", "default", "--variant", "cheese=true round_limit=50",
        "--seed", "4", "-w", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "in-vino-morte, 3 players, 30 games" in text
    assert "options {'cheese': True, 'round_limit': 50}" in text
    assert "rules vs random" in text and "rating (openskill)" in text
    assert f"60 of 60 games kept in {out}" in text
    assert (out / SPEC_FILE).is_file() and (out / GAMES_FILE).is_file()

    code, again, err = run(
        "tournament", GAME, "-p", "3", "--bots", "rules,random", "-n", "30",
        "--variant", "default", "--variant", "cheese=true round_limit=50",
        "--seed", "4", "-w", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0 and again == text  # nothing left to play: the same summary
    assert "resuming" in err and "60 of 60 games already played" in err

    code, listing, err = run("report", str(out))
    assert code == 0, err
    assert str(out / "report.html") in listing
    page = (out / "report.html").read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 5  # seats, bots, scores, length, options
    assert all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    assert "Effect of the options" in page and "cheese=true round_limit=50" in page
    assert "seat 2" in page and "Ratings (openskill" in page
    for name in (
        "seat-win-rate.png",
        "bot-win-rate.png",
        "scores.png",
        "length.png",
        "options.png",
    ):
        assert (out / "plots" / name).read_bytes().startswith(b"\x89PNG")
    assert "![options.png](plots/options.png)" in (out / "report.md").read_text()

    record = tmp_path / "game-7.json"
    code, _, err = run("extract", str(out), "7", "--to", str(record))
    assert code == 0, err
    code, shown, err = run("replay", str(record))
    assert code == 0, err
    assert "Outcome:" in shown and "cheese=True" in shown  # game 7 is of the second variant


def test_local_workers_print_the_same_tables_as_one_process(tmp_path: Path) -> None:
    args = ("tournament", GAME, "-p", "4", "--bots", "rules,random", "-n", "40", "--seed", "2")
    code, one, err = run(*args, "-w", "1", "--out", str(tmp_path / "a"))
    assert code == 0, err
    code, two, err = run(*args, "-w", "2", "--out", str(tmp_path / "b"))
    assert code == 0, err
    assert one.replace(str(tmp_path / "a"), "") == two.replace(str(tmp_path / "b"), "")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bots", "rules,genius"), "unknown bot 'genius' for in-vino-morte"),
        (("--option", "colour=red"), "unknown option 'colour'"),
        (("--variant", "cheese=maybe"), "option cheese='maybe': expected true or false"),
        (("--variant", "cheese=true", "--variant", "cheese=true"), "two option sets are the same"),
        (("--players", "12"), "12 players is not allowed; it takes 2 to 9"),
        (("--backend", "slurm"), "--backend 'slurm': expected local or ray"),
        (("--workers", "0"), "--workers 0: use at least 1"),
        (("--bots", "rules,random,rules", "-p", "2"), "needs different bot names"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_plays_nothing(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    out = tmp_path / "t"
    code, text, err = run("tournament", GAME, "-n", "5", "--out", str(out), *args)
    assert code == 2, text + err
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in text + err
    assert not (out / GAMES_FILE).exists()


def test_an_unwritable_or_different_out_folder_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run("tournament", GAME, "-n", "4", "--out", str(blocker / "t"))
    assert code == 2 and "cannot write there" in err and len(err.strip().splitlines()) == 1
    out = tmp_path / "t"
    code, _, err = run("tournament", GAME, "-n", "4", "-w", "1", "--out", str(out))
    assert code == 0, err
    code, _, err = run("tournament", GAME, "-n", "4", "--seed", "1", "--out", str(out))
    assert code == 2 and "holds a different tournament (seed there: 0, here: 1)" in err


def test_a_folder_of_other_files_or_a_damaged_description_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run("tournament", GAME, "-n", "2", "--out", str(tmp_path))
    assert code == 2 and "holds other files and no tournament" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    out = tmp_path / "t"
    out.mkdir()
    (out / SPEC_FILE).write_text("{not json")
    code, _, err = run("tournament", GAME, "-n", "2", "--out", str(out))
    assert code == 2 and "tournament.json is not valid JSON" in err
    assert len(err.strip().splitlines()) == 1
    assert not (out / GAMES_FILE).exists()


def test_report_and_extract_errors_are_one_line(tmp_path: Path) -> None:
    code, _, err = run("report", str(tmp_path / "missing"))
    assert code == 2 and "no such folder" in err
    code, _, err = run("report", str(tmp_path))
    assert code == 2 and "no tournament here" in err
    out = tmp_path / "t"
    code, _, _ = run("tournament", GAME, "-n", "2", "-w", "1", "--out", str(out))
    assert code == 0
    code, _, err = run("extract", str(out), "5")
    assert code == 2 and "has no finished game 5 (games 0 to 1, 2 finished)" in err


def test_help_is_light() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, apothecary.cli; "
        "print([m for m in ('matplotlib', 'openskill', 'ray') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_simulate_takes_bots_with_budgets() -> None:
    spec = "rollout:rollouts=6,policy=random"
    code, text, err = run("simulate", GAME, "-p", "3", "--bots", f"{spec},random", "-n", "6")
    assert code == 0, err
    assert spec in text and "random" in text
    code, _, err = run("simulate", GAME, "-p", "3", "--bots", "rollout:rollouts=0,random")
    assert code == 2 and "rollouts=0: expected 1 to" in err
