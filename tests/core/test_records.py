"""Records: JSON that replays exactly, and clear errors for bad ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toy_high_card.game import ToyGame

from apothecary import Record, RecordError


def finished_record() -> Record:
    state = ToyGame().new_initial_state()
    for move in ["deal 1", "deal 2", "bet", "call"]:
        state.apply_action(move)
    return Record.from_state(state, seats=["ann", "bob"])


def test_record_round_trips_and_replays(toy_registered: type[ToyGame], tmp_path: Path) -> None:
    record = finished_record()
    assert record.outcome == {
        "winners": [1],
        "scores": [0.0, 1.0],
        "reason": "the higher card won the showdown",
    }
    path = tmp_path / "game.json"
    record.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "apothecary-record" and data["version"] == 1
    again = Record.load(path)
    assert again == record
    final = again.replay()
    assert final.is_terminal() and final.history_notation() == record.actions
    assert again.replay(upto=2).current_player() == 0


def test_first_bad_action_is_reported_by_index(toy_registered: type[ToyGame]) -> None:
    record = finished_record()
    record.actions[2] = "fold"
    record.outcome = None
    with pytest.raises(RecordError, match=r"action 2 \('fold'\): .* not legal") as caught:
        record.replay()
    assert caught.value.index == 2
    record.actions[2] = "bett"
    with pytest.raises(RecordError, match=r"action 2 \('bett'\): .*cannot read"):
        record.replay()


def test_a_wrong_outcome_is_caught(toy_registered: type[ToyGame]) -> None:
    record = finished_record()
    assert record.outcome is not None
    record.outcome["winners"] = [0]
    with pytest.raises(RecordError, match="differs from the replay"):
        record.replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "a JSON object"),
        ('{"format": "pgn"}', "not an apothecary record"),
        ('{"format": "apothecary-record", "version": 9}', "version 9 is not supported"),
        ('{"format": "apothecary-record", "version": 1, "game": "x"}', "missing players"),
        (
            '{"format": "apothecary-record", "version": 1, "game": "x", "players": "2",'
            ' "actions": []}',
            "'players' must be a int",
        ),
        (
            '{"format": "apothecary-record", "version": 1, "game": "x", "players": 2,'
            ' "actions": [], "extra": 1}',
            "unknown field 'extra'",
        ),
        (
            '{"format": "apothecary-record", "version": 1, "game": "x", "players": 2,'
            ' "actions": [], "seats": ["a"]}',
            "must name 2 seats",
        ),
    ],
)
def test_malformed_records_are_refused(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        Record.loads(text)


def test_unknown_game_or_bad_options_in_a_record() -> None:
    with pytest.raises(RecordError, match="cannot be made: unknown game 'chess'"):
        Record(game="chess", players=2).replay()


def test_replay_position_out_of_range(toy_registered: type[ToyGame]) -> None:
    with pytest.raises(RecordError, match="--at 9: the record has 4 actions"):
        finished_record().replay(upto=9)


def test_non_text_action(toy_registered: type[ToyGame]) -> None:
    record = finished_record()
    record.actions[0] = 3  # type: ignore[call-overload]
    with pytest.raises(RecordError, match="action 0: expected notation text"):
        record.replay()


def test_a_missing_file() -> None:
    with pytest.raises(RecordError, match=r"cannot read record /nonexistent\.json"):
        Record.load("/nonexistent.json")
