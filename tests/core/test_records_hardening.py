"""Records: every bad input is a RecordError (never a bare ValueError, TypeError,
RecursionError or UnicodeDecodeError), sizes are checked before anything is
built, and long input is quoted shortened."""

from __future__ import annotations

import contextlib
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_high_card.game import ToyGame

import apothecary
from apothecary import ApothecaryError, Record, RecordError
from apothecary.core import registry


def document(**fields: Any) -> dict[str, Any]:
    """A valid record of a short finished toy game, with ``fields`` replaced."""
    data: dict[str, Any] = {
        "format": "apothecary-record",
        "version": 1,
        "game": "toy-high-card",
        "players": 2,
        "options": {},
        "seats": ["ann", "bob"],
        "actions": ["deal 1", "deal 2", "bet", "call"],
        "outcome": {
            "winners": [1],
            "scores": [0.0, 1.0],
            "reason": "the higher card won the showdown",
        },
    }
    data.update(fields)
    return data


def refused(text: str, match: str | None = None) -> RecordError:
    """Record.loads refuses ``text`` with a RecordError whose message matches."""
    with pytest.raises(ApothecaryError) as caught:
        Record.loads(text)
    assert isinstance(caught.value, RecordError), repr(caught.value)
    if match is not None:
        assert match in str(caught.value), str(caught.value)
    return caught.value


OUTCOMES = [
    pytest.param(
        {"winners": "1", "scores": [0.0, 1.0], "reason": "r"}, "winners", id="winners-str"
    ),
    pytest.param({"winners": 1, "scores": [0.0, 1.0], "reason": "r"}, "winners", id="winners-int"),
    pytest.param({"winners": [True], "scores": [0, 1], "reason": "r"}, "winners", id="winner-bool"),
    pytest.param({"winners": ["1"], "scores": [0, 1], "reason": "r"}, "winners", id="winner-str"),
    pytest.param({"winners": [1.0], "scores": [0, 1], "reason": "r"}, "winners", id="winner-float"),
    pytest.param({"winners": [2], "scores": [0, 1], "reason": "r"}, "winners", id="winner-range"),
    pytest.param({"winners": [-1], "scores": [0, 1], "reason": "r"}, "winners", id="winner-neg"),
    pytest.param({"winners": [1], "scores": ["a", 1], "reason": "r"}, "scores", id="score-str"),
    pytest.param({"winners": [1], "scores": [None, 1], "reason": "r"}, "scores", id="score-null"),
    pytest.param({"winners": [1], "scores": [False, 1], "reason": "r"}, "scores", id="score-bool"),
    pytest.param({"winners": [1], "scores": 7, "reason": "r"}, "scores", id="scores-int"),
    pytest.param({"winners": [1], "scores": [1], "reason": "r"}, "scores", id="scores-short"),
    pytest.param(
        {"winners": [1], "scores": [0, 10**400], "reason": "r"}, "scores", id="score-huge"
    ),
    pytest.param({"winners": [1], "scores": [0, 1], "reason": 3}, "reason", id="reason-int"),
    pytest.param({"winners": [1], "scores": [0, 1]}, "reason", id="reason-missing"),
    pytest.param({"scores": [0, 1], "reason": "r"}, "winners", id="winners-missing"),
    pytest.param(
        {"winners": [1], "scores": [0, 1], "reason": "r", "margin": 3}, "margin", id="unknown-key"
    ),
]


@pytest.mark.parametrize(("outcome", "word"), OUTCOMES)
def test_a_malformed_outcome_is_refused_on_reading(
    toy_registered: type[ToyGame], outcome: dict[str, Any], word: str
) -> None:
    error = refused(json.dumps(document(outcome=outcome)), "outcome")
    assert word in str(error)


@pytest.mark.parametrize(("outcome", "word"), OUTCOMES)
def test_a_malformed_outcome_is_refused_on_replay(
    toy_registered: type[ToyGame], outcome: dict[str, Any], word: str
) -> None:
    assert Record.loads(json.dumps(document())).replay().is_terminal()
    record = Record.loads(json.dumps(document(outcome=None)))
    record.outcome = outcome
    with pytest.raises(ApothecaryError) as caught:
        record.replay()
    assert isinstance(caught.value, RecordError), repr(caught.value)
    assert word in str(caught.value)


def test_json_nested_very_deep_is_refused() -> None:
    refused("[" * 100_000 + "]" * 100_000, "nested")
    refused('{"a":' * 100_000 + "1" + "}" * 100_000, "nested")


def test_a_five_thousand_digit_integer_is_refused() -> None:
    error = refused(
        json.dumps(document(players=0)).replace('"players": 0', '"players": ' + "9" * 5000)
    )
    assert len(str(error)) < 300


@pytest.mark.parametrize("version", ["1.0", "true", '"1"', "1e0"])
def test_version_must_be_exactly_the_integer_one(version: str) -> None:
    text = json.dumps(document()).replace('"version": 1', f'"version": {version}')
    refused(text, "version")


def test_a_long_version_is_quoted_shortened() -> None:
    error = refused(json.dumps(document(version="v" * 100_000)), "version")
    assert len(str(error)) < 300 and "vvvv" in str(error)


def test_long_unknown_field_and_bad_action_are_quoted_shortened(
    toy_registered: type[ToyGame],
) -> None:
    data = document()
    data["k" * 100_000] = 1
    error = refused(json.dumps(data), "unknown field")
    assert len(str(error)) < 300
    record = Record.loads(json.dumps(document(outcome=None, actions=[["x"] * 100_000])))
    with pytest.raises(RecordError) as caught:
        record.replay()
    assert len(str(caught.value)) < 300


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(
        json.dumps(document(seats=["Zoë", "bob"]), ensure_ascii=False).encode("latin-1")
    )
    with pytest.raises(ApothecaryError) as caught:
        Record.load(path)
    assert isinstance(caught.value, RecordError) and "UTF-8" in str(caught.value)


def test_a_path_with_a_nul_byte_is_refused() -> None:
    with pytest.raises(RecordError):
        Record.load("record\0.json")


def test_text_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(RecordError):
        Record.loads(b"\xff\xfe{" + bytes(10))  # type: ignore[arg-type]
    with pytest.raises(RecordError):
        Record.loads(3)  # type: ignore[arg-type]


def test_a_huge_player_count_is_refused_before_anything_is_built() -> None:
    text = json.dumps(document(game="in-vino-morte", players=30_000_000, outcome=None))
    del_seats = json.loads(text)
    del del_seats["seats"]
    text = json.dumps(del_seats)
    tracemalloc.start()
    try:
        error = refused(text, "30000000")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "2 to 9" in str(error)
    assert peak < 10_000_000


@pytest.mark.parametrize("players", [0, 1, 10, -3])
def test_the_player_count_is_checked_against_the_game(players: int) -> None:
    data = document(game="in-vino-morte", players=players, outcome=None, actions=[])
    del data["seats"]
    refused(json.dumps(data), "players")


def test_a_huge_player_count_of_an_unregistered_game_is_refused() -> None:
    data = document(game="not-registered", players=30_000_000, outcome=None)
    del data["seats"]
    refused(json.dumps(data), "players")
    # The conformance suite replays records of games it was handed, not registered.
    record = Record.loads(json.dumps(document(game="not-registered", options={"bug": "none"})))
    assert record.replay(game=ToyGame()).is_terminal()


@pytest.mark.parametrize("key", ["players", "name", "self"])
def test_an_option_named_like_a_parameter_is_refused(key: str) -> None:
    data = document(game="in-vino-morte", players=3, outcome=None, actions=[])
    del data["seats"]
    data["options"] = {key: 3}
    record = Record.loads(json.dumps(data))
    with pytest.raises(ApothecaryError) as caught:
        record.replay()
    assert isinstance(caught.value, RecordError) and key in str(caught.value)


@pytest.mark.parametrize("upto", [True, "2", 1.5])
def test_replay_upto_must_be_a_whole_number(toy_registered: type[ToyGame], upto: Any) -> None:
    record = Record.loads(json.dumps(document()))
    with pytest.raises(ApothecaryError) as caught:
        record.replay(upto=upto)
    assert isinstance(caught.value, RecordError)


# -- random input: an ApothecaryError or a record, nothing else ------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
field_names = st.sampled_from(
    ["format", "version", "game", "players", "options", "seats", "actions", "outcome"]
)
outcome_values = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"winners": json_values, "scores": json_values, "reason": json_values},
        optional={"extra": json_values},
    ),
    st.fixed_dictionaries(
        {
            "winners": st.lists(st.integers(-2, 4), max_size=3),
            "scores": st.lists(st.integers(-2, 4) | st.floats(), max_size=4),
            "reason": st.text(max_size=5),
        }
    ),
)
documents = st.fixed_dictionaries(
    {
        "format": st.just("apothecary-record") | json_values,
        "version": st.sampled_from([1, 1.0, True, 2, "1"]),
        "game": st.sampled_from([*apothecary.games(), "toy-high-card"]) | json_values,
        "players": st.integers(-2, 12) | st.just(30_000_000) | json_values,
        "actions": st.lists(st.text(max_size=10) | json_values, max_size=4) | json_values,
    },
    optional={
        "options": st.dictionaries(st.text(max_size=12), json_values, max_size=3) | json_values,
        "seats": st.lists(st.text(max_size=4), max_size=4) | json_values,
        "outcome": outcome_values,
    },
) | st.dictionaries(field_names | st.text(max_size=6), json_values, max_size=9)


finished_documents = st.builds(lambda outcome: document(outcome=outcome), outcome_values)


def only_apothecary_errors(text: Any) -> None:
    registry.register(ToyGame)
    try:
        try:
            record = Record.loads(text)
        except ApothecaryError:
            return
        with contextlib.suppress(ApothecaryError):
            record.replay()
    finally:
        registry._GAMES.pop(ToyGame.info.name, None)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text() | st.binary())
def test_random_text_is_a_record_or_an_apothecary_error(text: Any) -> None:
    only_apothecary_errors(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values | documents | finished_documents)
def test_random_json_is_a_record_or_an_apothecary_error(value: Any) -> None:
    only_apothecary_errors(json.dumps(value))
    with contextlib.suppress(ApothecaryError):
        Record.from_json(value)
