"""A server's rooms take game options only up to each option's room bound
(``OptionSpec.room_maximum``), so no game it accepts is longer than it replays:
checked for every game against a real ``apothecary serve``, and the bounds
themselves checked against the replay limit."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from random_play import random_length
from serving import server_process, sqlite_url

from apothecary.core.game import Game, OptionSpec
from apothecary.core.records import Record
from apothecary.core.registry import game_class, games
from apothecary.server.replays import RECORD_ACTIONS
from apothecary.server.room import GameTooLong, Room, Settings

BOUNDED = [
    (name, spec)
    for name in games()
    for spec in game_class(name).option_specs
    if spec.room_maximum is not None
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module; the room and upload shares lifted (many asks)."""
    url = sqlite_url(tmp_path_factory.mktemp("bounds"))
    lifted = ("--rooms-per-address", "1000")
    with server_process(url, *lifted) as (address, _process):
        yield address


def test_some_game_bounds_its_options_for_rooms() -> None:
    assert BOUNDED  # else the tests below check nothing


@pytest.mark.parametrize(("name", "spec"), BOUNDED, ids=[f"{n}-{s.name}" for n, s in BOUNDED])
def test_a_room_past_an_options_bound_is_refused(base: str, name: str, spec: OptionSpec) -> None:
    assert spec.room_maximum is not None
    limit = spec.room_maximum
    with httpx.Client(base_url=base, timeout=10) as client:
        listed = client.get(f"/api/games/{name}").json()["options"]
        assert {o["name"]: o["room_maximum"] for o in listed}[spec.name] == limit
        at = client.post("/api/rooms", json={"game": name, "options": {spec.name: limit}})
        assert at.status_code == 201, at.text
        past = client.post("/api/rooms", json={"game": name, "options": {spec.name: limit + 1}})
        assert past.status_code == 400, past.text
        assert past.json()["error"] == "game_too_long", past.text
        assert str(limit) in past.json()["message"]


@pytest.mark.parametrize(("name", "spec"), BOUNDED, ids=[f"{n}-{s.name}" for n, s in BOUNDED])
def test_an_uploaded_record_past_an_options_bound_is_refused(
    base: str, name: str, spec: OptionSpec
) -> None:
    assert spec.room_maximum is not None
    players = game_class(name).info.default_players
    with httpx.Client(base_url=base, timeout=10) as client:
        for value, answer in [(spec.room_maximum, "not_finished"), (spec.room_maximum + 1, None)]:
            # No actions: within the bound the replay finds the game unfinished;
            # past it, the options are refused before any replay.
            record = Record(game=name, players=players, options={spec.name: value})
            sent = client.post("/api/replays", content=record.dumps())
            assert sent.json()["error"] == (answer or "game_too_long"), sent.text


def longest_settings(cls: type[Game]) -> Iterator[dict[str, Any]]:
    """Every option at its room bound, with every mix of the options that have
    a few values (choices, true or false); the others at their defaults."""
    fixed = {s.name: s.room_maximum for s in cls.option_specs if s.room_maximum is not None}
    few = [
        [(s.name, v) for v in (s.choices or (False, True))]
        for s in cls.option_specs
        if s.choices is not None or s.type is bool
    ]
    for mix in itertools.product(*few):
        yield {**fixed, **dict(mix)}


@pytest.mark.parametrize("name", games())
def test_no_game_at_its_room_bounds_is_longer_than_a_server_replays(name: str) -> None:
    cls = game_class(name)
    for options in longest_settings(cls):
        game = cls(players=cls.info.max_players, **options).for_room()
        assert game.room_problem() is None and game.unbounded_problem() is None
        # Proved, not sampled: the game's own true bound is within the limit.
        assert game.max_game_length() <= RECORD_ACTIONS, (name, options)


def test_a_room_past_the_longest_game_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted: the limit of actions lowered under a game's longest, its room is refused.
    name = next(n for n in games() if game_class(n)().max_game_length() > 100)
    monkeypatch.setattr("apothecary.core.game.ROOM_ACTIONS", 100)
    with pytest.raises(GameTooLong, match="at most 100"):
        Room.create(name, None, {}, None, Settings(), now=0.0)


def test_a_bound_past_the_limit_would_be_caught() -> None:
    # The check above proves itself: the bounds lifted to the greatest values,
    # a game is longer than a server replays.
    for name, _spec in BOUNDED:
        cls = game_class(name)
        greatest = {s.name: s.maximum for s in cls.option_specs if s.room_maximum is not None}
        game = cls(players=cls.info.max_players, **greatest)
        if game.max_game_length() > RECORD_ACTIONS and random_length(game, 0) > RECORD_ACTIONS:
            return
    pytest.fail("no game's options reach past the replay limit: the bounds are not needed")


ROOM_DEFAULTS = [
    (name, spec)
    for name in games()
    for spec in game_class(name).option_specs
    if spec.room_default is not None
]


def unbounded_mixes(name: str) -> list[dict[str, Any]]:
    """The mixes of a game's few-valued options (the rest at their defaults)
    whose games have no longest length."""
    cls = game_class(name)
    few = [
        [(s.name, v) for v in (s.choices or (False, True))]
        for s in cls.option_specs
        if s.choices is not None or s.type is bool
    ]
    mixes = [dict(mix) for mix in itertools.product(*few)]
    return [mix for mix in mixes if cls(**mix).unbounded_problem() is not None]


@pytest.mark.parametrize(
    ("name", "spec"), ROOM_DEFAULTS, ids=[f"{n}-{s.name}" for n, s in ROOM_DEFAULTS]
)
def test_a_room_plays_an_unbounded_default_as_its_room_default(
    base: str, name: str, spec: OptionSpec
) -> None:
    # The option's help says what a room does (the lobby shows it).
    assert str(spec.room_default) in spec.help
    mixes = unbounded_mixes(name)
    assert mixes  # else the room default is never used
    with httpx.Client(base_url=base, timeout=10) as client:
        listed = client.get(f"/api/games/{name}").json()["options"]
        assert {o["name"]: o["room_default"] for o in listed}[spec.name] == spec.room_default
        for mix in mixes:
            # Left out, or sent at its default (as the lobby's form sends it).
            for options in (mix, {**mix, spec.name: spec.default}):
                made = client.post("/api/rooms", json={"game": name, "options": options})
                assert made.status_code == 201, made.text
                played = made.json()["room"]["options"]
                assert played[spec.name] == spec.room_default, (options, played)
                assert game_class(name)(**played).unbounded_problem() is None


def test_a_room_left_unbounded_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted: the room default taken away, the unbounded game is refused, not played.
    assert ROOM_DEFAULTS
    name, spec = ROOM_DEFAULTS[0]
    cls = game_class(name)
    planted = tuple(replace(s, room_default=None) if s is spec else s for s in cls.option_specs)
    monkeypatch.setattr(cls, "option_specs", planted)
    with pytest.raises(GameTooLong, match="longest length"):
        Room.create(name, None, unbounded_mixes(name)[0], None, Settings(), now=0.0)
