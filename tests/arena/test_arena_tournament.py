"""Tournaments: fair seating, the same games whatever runs them, records kept,
Ctrl-C and kills survive, resuming checks the settings."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from apothecary import Record
from apothecary.arena import TournamentError, plan, run_match, run_tournament
from apothecary.arena.tournament import (
    GAMES_FILE,
    GameResult,
    LocalBackend,
    TournamentSpec,
    TournamentStore,
    load_tournament,
    play_indexed,
)
from apothecary.core.errors import BadOptionError, PlayerCountError, UnknownBotError

GAME = "in-vino-morte"  # short games (about nine actions), a rule-based bot


def fingerprint(results: list[GameResult]) -> list[tuple[int, list[str], list[str]]]:
    return [(r.index, r.seats, r.record["actions"]) for r in results]


def test_every_bot_sits_in_every_seat_equally_often() -> None:
    spec = plan(GAME, 4, ["rules", "random"], games=8)
    seatings = Counter(
        (seat, name) for i in range(spec.total) for seat, name in enumerate(spec.schedule(i)[1])
    )
    assert {seat for seat, _ in seatings} == {0, 1, 2, 3}
    assert all(seatings[(seat, "rules")] == 2 for seat in range(4))
    assert all(seatings[(seat, "random")] == 6 for seat in range(4))


def test_more_bots_than_seats_is_a_round_robin_of_every_table() -> None:
    spec = TournamentSpec(GAME, 2, ("a", "b", "c"), games=6, seed=0, variants=({},))
    assert spec.tables() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert spec.balanced_multiple() == 6
    seatings = Counter(
        (seat, name) for i in range(spec.total) for seat, name in enumerate(spec.schedule(i)[1])
    )
    assert seatings == {(seat, name): 2 for seat in (0, 1) for name in "abc"}
    with pytest.raises(BadOptionError, match="different bot names"):
        plan(GAME, 2, ["rules", "random", "rules"], games=6)


def test_variants_interleave_and_each_rotates_its_seats() -> None:
    spec = plan(GAME, 2, ["rules", "random"], games=4, variants=[{}, {"cheese": True}])
    # variants alternate game by game, so a stopped run covers both
    assert [spec.schedule(i)[0] for i in range(4)] == [0, 1, 0, 1]
    assert spec.total == 8
    # within a variant, the line-up rotates one seat per game
    assert [spec.schedule(i)[1] for i in (0, 2)] == [["rules", "random"], ["random", "rules"]]


def test_bad_settings_fail_before_any_game() -> None:
    with pytest.raises(UnknownBotError, match="unknown bot 'genius'"):
        plan(GAME, 4, ["rules", "genius"], games=10)
    with pytest.raises(PlayerCountError, match="12 players is not allowed"):
        plan(GAME, 12, ["random"], games=10)
    with pytest.raises(BadOptionError, match="unknown option 'colour'"):
        plan(GAME, 4, ["random"], games=10, variants=[{}, {"colour": "red"}])
    with pytest.raises(BadOptionError, match="the same"):
        plan(GAME, 4, ["random"], games=10, variants=[{}, {"cheese": False}])


def test_the_same_seed_plays_the_same_games_serially_and_on_two_workers() -> None:
    spec = plan(GAME, 4, ["rules", "random"], games=40, seed=11)
    serial = run_tournament(spec)
    backend = LocalBackend(2)
    try:
        parallel = run_tournament(spec, backend=backend)
    finally:
        backend.close()
    assert len(serial.results) == 40
    assert fingerprint(serial.results) == fingerprint(parallel.results)
    other = run_tournament(plan(GAME, 4, ["rules", "random"], games=40, seed=12))
    assert fingerprint(other.results) != fingerprint(serial.results)


def test_simulate_and_tournament_play_the_same_games() -> None:
    match = run_match(GAME, players=4, bots=["rules", "random"], games=24, seed=5)
    run = run_tournament(plan(GAME, 4, ["rules", "random"], games=24, seed=5))
    from apothecary.arena.match import summarise

    assert summarise(run.spec, run.results)[0].table() == match.table()


def test_records_are_kept_compressed_and_replay(tmp_path: Path) -> None:
    spec = plan(GAME, 3, ["rules", "random"], games=12, variants=[{}, {"cheese": True}])
    store, note = TournamentStore.open(tmp_path / "t", spec)
    assert note is None
    run_tournament(spec, store=store)
    with gzip.open(tmp_path / "t" / GAMES_FILE, "rt") as lines:
        assert sum(1 for _ in lines) == 24
    _, results = load_tournament(tmp_path / "t")
    assert [r.index for r in results] == list(range(24))
    for result in results:
        record = Record.from_json(result.record)
        assert record.options["cheese"] is (result.variant == 1)
        final = record.replay()  # checks the stated outcome against the replay
        assert final.returns() == result.returns
        assert record.seats == result.seats


def test_ctrl_c_keeps_finished_games_and_the_same_command_resumes(tmp_path: Path) -> None:
    spec = plan(GAME, 4, ["rules", "random"], games=200, seed=3)
    whole = run_tournament(spec)

    seen = []

    def interrupt_after_seven(result: GameResult) -> None:
        seen.append(result.index)
        if len(seen) == 7:
            raise KeyboardInterrupt

    store, _ = TournamentStore.open(tmp_path, spec)
    first = run_tournament(spec, store=store, on_game=interrupt_after_seven)
    assert first.interrupted
    assert 7 <= len(first.results) < 200
    # every game that finished was flushed to disk before the interruption
    assert fingerprint(load_tournament(tmp_path)[1]) == fingerprint(first.results)

    store, note = TournamentStore.open(tmp_path, spec)
    assert note is not None and "resuming" in note
    second = run_tournament(spec, store=store)
    assert not second.interrupted
    assert second.played_now == 200 - len(first.results)
    assert fingerprint(second.results) == fingerprint(whole.results)


def test_a_killed_writer_loses_only_its_last_line(tmp_path: Path) -> None:
    spec = plan(GAME, 4, ["random"], games=20)
    store, _ = TournamentStore.open(tmp_path, spec)
    run_tournament(spec, store=store)
    path = tmp_path / GAMES_FILE
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut inside the last gzip block
    kept = store.read_results()
    assert 0 < len(kept) < 20
    store, _ = TournamentStore.open(tmp_path, spec)
    again = run_tournament(spec, store=store)
    assert [r.index for r in again.results] == list(range(20))
    assert len(store.read_results()) == 20
    with gzip.open(path, "rb") as stream:
        assert stream.read().count(b"\n") == 20  # one valid stream again


def test_resuming_with_other_settings_is_refused_and_a_larger_n_extends(tmp_path: Path) -> None:
    spec = plan(GAME, 4, ["rules", "random"], games=8)
    store, _ = TournamentStore.open(tmp_path, spec)
    run_tournament(spec, store=store)
    with pytest.raises(TournamentError, match=r"holds a different tournament \(bots there"):
        TournamentStore.open(tmp_path, plan(GAME, 4, ["random"], games=8))
    with pytest.raises(TournamentError, match="seed there: 0, here: 9"):
        TournamentStore.open(tmp_path, plan(GAME, 4, ["rules", "random"], games=8, seed=9))
    with pytest.raises(TournamentError, match="-n 4 would drop some"):
        TournamentStore.open(tmp_path, plan(GAME, 4, ["rules", "random"], games=4))
    bigger = plan(GAME, 4, ["rules", "random"], games=12)
    store, note = TournamentStore.open(tmp_path, bigger)
    assert note is not None and "extending" in note
    extended = run_tournament(bigger, store=store)
    assert extended.played_now == 4
    assert fingerprint(extended.results) == fingerprint(run_tournament(bigger).results)


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    spec = plan(GAME, 4, ["random"], games=4)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(TournamentError, match="is not a folder"):
        TournamentStore.open(blocker, spec)
    with pytest.raises(TournamentError, match="cannot write there"):
        TournamentStore.open(blocker / "below", spec)


def test_a_real_ctrl_c_stops_the_workers_and_keeps_the_finished_games(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "t"
    command = [
        sys.executable, "-c", "from apothecary.cli import main; main()",
        "tournament", "poison-pot", "--bots", "rules", "-n", "5000", "-w", "2", "--out", str(out),
    ]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store = TournamentStore(out)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not store.read_results():
            time.sleep(0.2)  # games are flushed as they finish: readable mid-run
        child.send_signal(signal.SIGINT)
        text, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert "interrupted:" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    spec, kept = load_tournament(out)
    assert 0 < len(kept) < 5000
    assert f"{len(kept)} of 5000 games kept" in text
    games = spec.make_games()
    for result in kept[:3]:
        assert play_indexed(spec, games, result.index).record == result.record
