"""``apothecary play``: flags checked before the app opens, one line and exit 2 when wrong."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import apothecary
from apothecary.cli import app
from apothecary.tui.app import PlayApp
from apothecary.tui.session import HUMAN, Session

runner = CliRunner()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[PlayApp]:
    """Instead of taking over the terminal, note the app that would have run."""
    apps: list[PlayApp] = []

    def run(self: PlayApp, *args: Any, **kwargs: Any) -> None:
        apps.append(self)

    monkeypatch.setattr(PlayApp, "run", run)
    return apps


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["play", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("chess",), "error: unknown game 'chess'"),
        (("poison-pot", "--players", "9"), "9 players is not allowed"),
        (("poison-pot", "--option", "radius=9"), "option radius=9: expected int"),
        (("poison-pot", "--option", "colour=red"), "unknown option 'colour'"),
        (("poison-pot", "--option", "radius"), "write it as name=value"),
        (("poison-pot", "--seat-bots", "godlike"), "unknown level or bot 'godlike'"),
        (("poison-pot", "--seat-bots", "easy,easy"), "names 2 seats"),
        (("poison-pot", "--seat", "2"), "--seat 2"),
        (("poison-pot", "--bot-delay", "-1"), "--bot-delay"),
        (("poison-pot", "--bot-delay", "inf"), "from 0 to 10"),
        (("poison-pot", "--bot-delay", "nan"), "from 0 to 10"),
        (("poison-pot", "--bot-delay", "3600"), "from 0 to 10"),
        (("poison-pot", "--save", "/no/such/folder/game.json"), "--save /no/such/folder"),
        (("poison-pot", "--save", "."), "that is a folder"),
        (("--save", "/no/such/folder/game.json"), "there is no folder"),
        (("--players", "3"), "--players needs a game"),
        (("--resume", "no-such-file.json"), "cannot read record"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(
    args: tuple[str, ...], message: str, opened: list[PlayApp]
) -> None:
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not opened  # refused before the app opens
    assert opened == []


def test_a_bad_record_and_clashing_resume_flags_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    code, _, err = invoke("--resume", str(broken))
    assert code == 2 and "not valid JSON" in err
    state = apothecary.load("poison-pot", players=2).new_initial_state()
    good = tmp_path / "good.json"
    apothecary.Record.from_state(state, seats=[HUMAN, "easy"]).save(good)
    code, _, err = invoke("--resume", str(good), "--players", "3")
    assert code == 2 and "drop --players" in err
    code, _, err = invoke("in-vino-morte", "--resume", str(good))
    assert code == 2 and "is a game of poison-pot, not in-vino-morte" in err


def test_play_opens_the_game_with_the_seats_asked_for(opened: list[PlayApp]) -> None:
    code, _, err = invoke(
        "in-vino-morte", "-p", "4", "--seat-bots", "hard,human,random", "--seed", "7"
    )
    assert code == 0, err
    (play,) = opened
    session = play.session
    assert isinstance(session, Session)
    assert session.game == apothecary.load("in-vino-morte", players=4)
    assert session.seats == [HUMAN, "hard", HUMAN, "random"]
    assert session.humans == [0, 2] and session.seed == 7


def test_play_with_options_your_seat_and_save(opened: list[PlayApp], tmp_path: Path) -> None:
    save = tmp_path / "autosave.json"
    code, _, err = invoke(
        "poison-pot", "-p", "3", "-o", "radius=2", "--seat", "1", "--save", str(save)
    )
    assert code == 0, err
    session = opened[0].session
    assert session is not None
    assert session.game == apothecary.load("poison-pot", players=3, radius=2)
    assert session.seats == ["easy", HUMAN, "easy"]
    assert opened[0].save_path == save


def test_play_without_a_game_opens_the_menu(opened: list[PlayApp]) -> None:
    code, _, err = invoke("--seed", "5")
    assert code == 0, err
    assert opened[0].session is None and opened[0].seed == 5


def test_resume_replays_the_record_with_its_seats(opened: list[PlayApp], tmp_path: Path) -> None:
    game = apothecary.load("poison-pot", players=2)
    session = Session(game, ["random", HUMAN], seed=3)
    while session.state.move_number() < 7:
        if session.to_move() == apothecary.CHANCE:
            session.play_chance()
        else:
            mover = session.to_move()
            session.play(mover, session.state.legal_actions()[0])
    path = session.save(tmp_path / "mid.json")
    code, _, err = invoke("--resume", str(path))
    assert code == 0, err
    resumed = opened[0].session
    assert resumed is not None
    assert resumed.state.history() == session.state.history()
    assert resumed.seats == ["random", HUMAN]
    code, _, err = invoke("--resume", str(path), "--seat-bots", "human")
    assert code == 0, err
    assert opened[1].session is not None and opened[1].session.seats == [HUMAN, HUMAN]


def test_play_has_help_and_the_command_line_stays_light() -> None:
    code, out, _ = invoke("--help")
    assert code == 0 and "--seat-bots" in out and "--resume" in out
    probe = "import sys, apothecary.cli; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr
