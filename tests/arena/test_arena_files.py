"""Tournament files are checked, not trusted: every line of ``games.jsonl.gz``
must match the schedule and its own record's replay, on resume and in
``report``; a bad line is refused naming the file and line, never skipped."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from apothecary.arena import TournamentError, plan, run_tournament
from apothecary.arena.tournament import GAMES_FILE, TournamentStore, load_tournament
from apothecary.cli import app

GAME = "in-vino-morte"
GAMES = 4
SETTINGS = ["-p", "2", "--bots", "rules,random", "-n", str(GAMES), "--seed", "1", "-w", "1"]
runner = CliRunner()

Line = dict[str, Any]


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A small finished tournament: four games, rules against random."""
    spec = plan(GAME, 2, ["rules", "random"], games=GAMES, seed=1)
    store, _ = TournamentStore.open(tmp_path / "t", spec)
    run_tournament(spec, store=store)
    return tmp_path / "t"


def read_lines(folder: Path) -> list[Line]:
    with gzip.open(folder / GAMES_FILE, "rt", encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def write_raw(folder: Path, lines: list[str]) -> None:
    with gzip.open(folder / GAMES_FILE, "wt", encoding="utf-8") as stream:
        stream.writelines(line + "\n" for line in lines)


def write_lines(folder: Path, lines: list[Any]) -> None:
    write_raw(folder, [json.dumps(line) for line in lines])


def decisive(lines: list[Line]) -> int:
    """The position of a line whose game has a winner (its returns differ)."""
    return next(k for k, line in enumerate(lines) if len(set(line["returns"])) > 1)


def assert_refused(folder: Path, message: str, line: int) -> None:
    """Resuming (API and command line) and reporting all refuse, naming file and line."""
    before = (folder / GAMES_FILE).read_bytes()
    where = f"{GAMES_FILE}, line {line}: "
    with pytest.raises(TournamentError, match=message) as caught:
        load_tournament(folder)
    assert type(caught.value).__name__ == "TournamentFileError"
    assert where in str(caught.value)
    assert getattr(caught.value, "line", None) == line
    for command in (["tournament", GAME, *SETTINGS, "--out", str(folder)], ["report", str(folder)]):
        code, _, err = run(*command)
        assert code == 2, (command, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert where in err and str(folder) in err
    # refused means refused: nothing replayed, appended, rewritten or reported
    assert (folder / GAMES_FILE).read_bytes() == before
    assert not (folder / "report.html").exists()


def test_an_untouched_tournament_resumes_and_reports(folder: Path) -> None:
    code, _, err = run("tournament", GAME, *SETTINGS, "--out", str(folder))
    assert code == 0, err
    assert f"resuming {folder}: {GAMES} of {GAMES} games already played" in err
    code, _, err = run("report", str(folder))
    assert code == 0, err


def test_flipped_returns_are_refused(folder: Path) -> None:
    lines = read_lines(folder)
    k = decisive(lines)
    lines[k]["returns"].reverse()
    write_lines(folder, lines)
    assert_refused(folder, r"returns .* differ from its record's replay", k + 1)


def test_flipped_returns_and_outcome_together_are_refused(folder: Path) -> None:
    lines = read_lines(folder)
    k = decisive(lines)
    lines[k]["returns"].reverse()
    outcome = lines[k]["record"]["outcome"]
    outcome["scores"].reverse()
    outcome["winners"] = [1 - w for w in outcome["winners"]]
    write_lines(folder, lines)
    assert_refused(folder, "does not replay", k + 1)


def test_a_forged_seat_is_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[1]["seats"][0] = "genius"
    lines[1]["record"]["seats"][0] = "genius"
    write_lines(folder, lines)
    assert_refused(folder, r"the schedule seats \[.*\] there, not \[\"genius\"", 2)


def test_seats_swapped_against_the_schedule_are_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[0]["seats"].reverse()
    lines[0]["record"]["seats"].reverse()
    write_lines(folder, lines)
    assert_refused(folder, "the schedule seats", 1)


def test_record_seats_that_differ_from_the_line_are_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[2]["record"]["seats"].reverse()
    write_lines(folder, lines)
    assert_refused(folder, "its record seats", 3)


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (-1, r"game index -1 is outside the tournament \(games 0 to 3\)"),
        (-GAMES, "game index -4 is outside"),
        (GAMES, "game index 4 is outside"),
        (10**6, "game index 1000000 is outside"),
    ],
)
def test_an_index_out_of_range_is_refused(folder: Path, index: int, message: str) -> None:
    lines = read_lines(folder)
    extra = copy.deepcopy(lines[0])
    extra["index"] = index
    write_lines(folder, [*lines, extra])
    assert_refused(folder, message, GAMES + 1)


def test_a_duplicate_index_is_refused(folder: Path) -> None:
    lines = read_lines(folder)
    write_lines(folder, [*lines, copy.deepcopy(lines[1])])
    assert_refused(folder, "game 1 is already on line 2", GAMES + 1)


def test_truncated_json_is_refused(folder: Path) -> None:
    raw = [json.dumps(line) for line in read_lines(folder)]
    raw[1] = raw[1][: len(raw[1]) // 2]
    write_raw(folder, raw)
    assert_refused(folder, "not valid JSON", 2)


def test_a_blank_line_is_refused(folder: Path) -> None:
    raw = [json.dumps(line) for line in read_lines(folder)]
    write_raw(folder, [raw[0], "", *raw[1:]])
    assert_refused(folder, "not valid JSON", 2)


def _set(key: str, value: Any) -> Callable[[Line], None]:
    def change(line: Line) -> None:
        line[key] = value

    return change


def _drop(key: str) -> Callable[[Line], None]:
    def change(line: Line) -> None:
        del line[key]

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set("index", "1"), "'index' must be a whole number"),
        (_set("index", 1.0), "'index' must be a whole number"),
        (_set("index", True), "'index' must be a whole number"),
        (_set("variant", None), "'variant' must be a whole number"),
        (_set("variant", 1), "game 2 plays option set 0, not 1"),
        (_set("seats", "rules,random"), "'seats' must be a list of 2 bot names"),
        (_set("seats", ["rules", 3]), "'seats' must be a list of 2 bot names"),
        (_set("returns", "1,-1"), "'returns' must be a list of 2 numbers"),
        (_set("returns", [1.0]), "'returns' must be a list of 2 numbers"),
        (_set("returns", [True, False]), "'returns' must be a list of 2 numbers"),
        (_set("length", -3), "'length' must be a whole number"),
        (_set("length", 1), "length 1 differs from its record's replay"),
        (_set("record", [1, 2]), "'record' must be an object"),
        (_set("record", {"format": "other"}), "its record: not an apothecary record"),
        (_drop("returns"), "missing 'returns'"),
        (_set("winner", "random"), "unknown field 'winner'"),
    ],
)
def test_wrong_keys_and_types_are_refused(
    folder: Path, change: Callable[[Line], None], message: str
) -> None:
    lines = read_lines(folder)
    change(lines[2])
    write_lines(folder, lines)
    assert_refused(folder, message, 3)


def test_a_line_that_is_not_an_object_is_refused(folder: Path) -> None:
    lines: list[Any] = read_lines(folder)
    lines[0] = [lines[0]]
    write_lines(folder, lines)
    assert_refused(folder, "expected a JSON object, got a list", 1)


def test_a_record_that_does_not_replay_is_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[3]["record"]["actions"][0] = "no such move"
    write_lines(folder, lines)
    assert_refused(folder, r"its record does not replay: action 0 \('no such move'\)", 4)


def test_a_record_of_another_option_set_is_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[0]["record"]["options"]["cheese"] = not lines[0]["record"]["options"]["cheese"]
    write_lines(folder, lines)
    assert_refused(folder, "does not replay", 1)


def test_a_record_of_an_unfinished_game_is_refused(folder: Path) -> None:
    lines = read_lines(folder)
    lines[1]["record"]["actions"].pop()
    lines[1]["record"]["outcome"] = None
    write_lines(folder, lines)
    assert_refused(folder, "its record is of an unfinished game", 2)


def test_a_file_that_is_not_gzip_is_refused_not_overwritten(folder: Path) -> None:
    (folder / GAMES_FILE).write_text('{"index": 0}\n', encoding="utf-8")
    assert_refused_whole_file(folder, "is not a readable gzip file")


def assert_refused_whole_file(folder: Path, message: str) -> None:
    before = (folder / GAMES_FILE).read_bytes()
    with pytest.raises(TournamentError, match=message):
        load_tournament(folder)
    for command in (["tournament", GAME, *SETTINGS, "--out", str(folder)], ["report", str(folder)]):
        code, _, err = run(*command)
        assert code == 2 and len(err.strip().splitlines()) == 1, (command, err)
        assert message in err
    assert (folder / GAMES_FILE).read_bytes() == before


def test_a_killed_writers_unfinished_last_line_is_still_only_dropped(folder: Path) -> None:
    # the one tolerated flaw: a last line with no newline, cut short by a kill
    raw = [json.dumps(line) for line in read_lines(folder)]
    with gzip.open(folder / GAMES_FILE, "wt", encoding="utf-8") as stream:
        stream.write("\n".join(raw[:-1]) + "\n" + raw[-1][:30])
    _, results = load_tournament(folder)
    assert [r.index for r in results] == list(range(GAMES - 1))
    code, _, err = run("tournament", GAME, *SETTINGS, "--out", str(folder))
    assert code == 0, err
    assert [line["index"] for line in read_lines(folder)] == list(range(GAMES))
