"""Every parser of outside input answers random text and JSON with a result or
one of the project's own errors (``ApothecaryError``), never a bare
ValueError, TypeError, RecursionError or UnicodeDecodeError (a traceback on
the command line).

The parsers: every game's notation, game options (as text and as JSON
values), Little Drop of Poison's deck specs, records, bot specs, and a
tournament's files. Besides wholly random text, each gets text built from its
own words with the troublesome numbers mixed in: thousands of digits (more
than Python turns into an int), superscripts and other Unicode digits.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apothecary
from apothecary import bots
from apothecary.arena.tournament import TournamentSpec, TournamentStore
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import MAX_NOTATION, State, sample_chance
from apothecary.core.records import Record

GAMES = sorted(apothecary.games())
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- pieces of input -------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
UNICODE_DIGITS = "²³¹⁰₃٣٠۳३১๓１𝟑"
numbers = st.one_of(
    st.integers(-20, 400).map(str),
    st.integers(4_290, 5_000).map(lambda k: "9" * k),
    st.text(alphabet=UNICODE_DIGITS + "0123456789", min_size=1, max_size=4),
    st.sampled_from(["-1", "+3", "1_0", "0x1", "1e3", "½", "nan", "inf", "٣.٥", "00"]),
)


def worded(words: list[str]) -> st.SearchStrategy[str]:
    """Text made of ``words``, numbers and separators, joined at random."""
    piece = st.sampled_from(words) | numbers | st.sampled_from([" ", "-", ":", "+", ",", ";", "x"])
    return st.lists(piece, min_size=1, max_size=6).map("".join)


def notation_words(state: State) -> list[str]:
    """The words of every legal action's notation in ``state``, and the whole texts."""
    texts = [state.action_to_string(a) for a in state.legal_actions()]
    words = {w for text in texts for w in text.replace("-", " ").replace("+", " ").split()}
    return sorted(words | set(texts)) or ["x"]


def positions(name: str, count: int = 6) -> list[State]:
    """The start of a seeded random game of ``name`` and a few later positions."""
    rng = random.Random(name)
    state = apothecary.load(name).new_initial_state()
    found = [state.clone()]
    while not state.is_terminal() and len(found) < count:
        for _ in range(rng.randrange(1, 12)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        found.append(state.clone())
    return found


POSITIONS = {name: positions(name) for name in GAMES}
WORDS = {name: sorted({w for s in POSITIONS[name] for w in notation_words(s)}) for name in GAMES}

# -- notation --------------------------------------------------------------------------------


def read_notation(name: str, index: int, text: str) -> None:
    state = POSITIONS[name][index % len(POSITIONS[name])].clone()
    before = str(state)
    try:
        action = state.string_to_action(text)
    except ApothecaryError as error:
        assert len(str(error)) < 2 * MAX_NOTATION, "the message grows with the input"
        return
    assert isinstance(action, int)
    with contextlib.suppress(ApothecaryError):
        state.apply_action(text)
        return
    assert str(state) == before


@FUZZ
@given(st.sampled_from(GAMES), st.integers(0, 5), st.text())
def test_random_text_is_an_action_or_an_apothecary_error(name: str, index: int, text: str) -> None:
    read_notation(name, index, text)


@FUZZ
@given(st.data())
def test_notation_like_text_is_an_action_or_an_apothecary_error(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(GAMES))
    text = data.draw(worded(WORDS[name]))
    read_notation(name, data.draw(st.integers(0, 5)), text)


def test_unicode_digits_and_huge_numbers_are_refused_in_every_game() -> None:
    """ASCII digits only: a superscript, an Arabic-Indic digit or a number of
    thousands of digits is a MalformedActionError, quoted shortened."""
    for name in GAMES:
        state = apothecary.load(name).new_initial_state()
        for text in ["swap ٣", "dose²", "d4 ³ w", "on " + "9" * 5000, "x" * 10_000_000]:
            try:
                state.string_to_action(text)
            except apothecary.MalformedActionError as error:
                assert len(str(error)) < 500
            else:
                raise AssertionError(f"{name} read {text[:20]!r}")


# -- options ---------------------------------------------------------------------------------

SPECS = [(name, spec) for name in GAMES for spec in apothecary.game_class(name).option_specs]


@FUZZ
@given(st.sampled_from(SPECS), st.text() | numbers)
def test_option_text_is_a_value_or_a_bad_option_error(pair: Any, text: str) -> None:
    name, spec = pair
    try:
        value = spec.parse(text)
    except ApothecaryError as error:
        assert len(str(error)) < 2_000
        return
    assert isinstance(value, spec.type)
    # A value that parses is one every game of that name accepts (or refuses clearly).
    with contextlib.suppress(ApothecaryError):
        apothecary.load(name, **{spec.name: value})


@FUZZ
@given(st.sampled_from(GAMES), st.dictionaries(st.text(max_size=20), json_values, max_size=3))
def test_option_values_from_json_make_a_game_or_an_apothecary_error(
    name: str, options: dict[str, Any]
) -> None:
    with contextlib.suppress(ApothecaryError):
        apothecary.load(name, **options)


@pytest.mark.parametrize("key", ["name", "self", "players", "cls", "options"])
def test_an_option_named_like_a_parameter_is_an_apothecary_error(key: str) -> None:
    """Found by the fuzz above: an option called ``name`` collided with
    ``load``'s own parameter and escaped as a bare TypeError."""
    with pytest.raises(ApothecaryError):
        apothecary.load("poison-pot", **{key: 1})


@FUZZ
@given(st.sampled_from(GAMES), json_values)
def test_any_player_count_makes_a_game_or_an_apothecary_error(name: str, players: Any) -> None:
    with contextlib.suppress(ApothecaryError):
        apothecary.load(name, players)


def test_option_numbers_are_ascii_digits_only() -> None:
    spec = next(s for s in apothecary.game_class("in-vino-morte").option_specs)
    limit = next(s for s in apothecary.game_class("in-vino-morte").option_specs if s.type is int)
    assert spec is not None and limit.parse(" 7 ") == 7
    for text in ["٣", "３", "²", "1_0", "9" * 5000]:
        try:
            limit.parse(text)
        except apothecary.BadOptionError as error:
            assert len(str(error)) < 300
        else:
            raise AssertionError(f"{limit.name}={text[:10]!r} was accepted")


# -- Little Drop of Poison's deck specs ------------------------------------------------------

DECK_WORDS = ["blue", "green", "purple", "red", "b", "g", "antidote(blue)", "antidote(", ")"]
DECK_WORDS += ["universal", "u", "+", "x1", "x2", "x3", "6x1", "4x2", "default", "green+purple"]


@FUZZ
@given(st.text() | worded(DECK_WORDS))
def test_deck_specs_make_a_game_or_an_apothecary_error(deck: str) -> None:
    with contextlib.suppress(ApothecaryError):
        apothecary.load("little-drop-of-poison", deck=deck)


def test_unicode_digits_and_huge_numbers_in_a_deck_spec_are_refused() -> None:
    for deck in ["universal:²", "blue:٣x1", "blue:" + "9" * 5000 + "x1", "blue:1x" + "9" * 5000]:
        try:
            apothecary.load("little-drop-of-poison", deck=deck)
        except apothecary.BadOptionError as error:
            assert len(str(error)) < 500
        else:
            raise AssertionError(f"deck {deck[:12]!r} was accepted")


# -- records ---------------------------------------------------------------------------------


@FUZZ
@given(st.text() | st.binary() | json_values.map(json.dumps))
def test_records_replay_or_raise_an_apothecary_error(text: Any) -> None:
    try:
        record = Record.loads(text)
    except ApothecaryError:
        return
    with contextlib.suppress(ApothecaryError):
        record.replay()


@FUZZ
@given(st.sampled_from(GAMES), st.lists(st.text(max_size=12) | numbers, max_size=4))
def test_records_of_random_notation_replay_or_raise_an_apothecary_error(
    name: str, actions: list[str]
) -> None:
    record = Record(game=name, players=apothecary.load(name).num_players, actions=actions)
    with contextlib.suppress(ApothecaryError):
        Record.loads(record.dumps()).replay()


# -- bot specs -------------------------------------------------------------------------------

BOT_WORDS = ["random", "rules", "ismcts", "rollout", "careless", "easy", "hard", ":", "=", ","]
BOT_WORDS += ["iterations", "seconds", "rollouts", "policy", "mistakes", "margin", "exploration"]


@FUZZ
@given(st.sampled_from(GAMES), st.text() | worded(BOT_WORDS))
def test_bot_specs_make_a_bot_or_an_apothecary_error(name: str, spec: str) -> None:
    game = apothecary.load(name)
    try:
        bots.parse_spec(spec)
    except ApothecaryError:
        return
    try:
        bots.split_specs(spec)
        bots.load(spec, game, 0, seed=1)
    except ApothecaryError as error:
        assert len(str(error)) < 1_000 + len(bots.names(name)) * 40


def test_bot_budgets_are_ascii_numbers_and_short() -> None:
    """A budget of ``٣`` is text (which the bot refuses), not 3; a value of
    thousands of characters is refused before any bot quotes it whole."""
    assert bots.parse_spec("ismcts:iterations=٣") == ("ismcts", {"iterations": "٣"})
    assert bots.parse_spec("careless:mistakes=.5,policy=rules") == (
        "careless",
        {"mistakes": 0.5, "policy": "rules"},
    )
    game = apothecary.load("poison-pot")
    for spec in ["ismcts:iterations=٣", "ismcts:iterations=" + "9" * 5000]:
        try:
            bots.load(spec, game, 0)
        except apothecary.BadOptionError as error:
            assert len(str(error)) < 300
        else:
            raise AssertionError(f"{spec[:24]!r} made a bot")


# -- tournament files ------------------------------------------------------------------------

SPEC = TournamentSpec(
    game="poison-pot", players=2, bots=("random", "random"), games=2, seed=1, variants=({},)
)


@FUZZ
@given(json_values | st.fixed_dictionaries({k: json_values for k in SPEC.to_json()}))
def test_tournament_descriptions_load_or_raise_an_apothecary_error(data: Any) -> None:
    with contextlib.suppress(ApothecaryError):
        TournamentSpec.from_json(data)
    with contextlib.suppress(ApothecaryError):
        TournamentSpec.from_json({**SPEC.to_json(), **(data if isinstance(data, dict) else {})})


@FUZZ
@given(st.text(), st.lists(json_values | st.text(), max_size=3))
def test_tournament_files_read_or_raise_an_apothecary_error(spec_text: str, lines: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = TournamentStore(folder)
        Path(store.spec_path).write_text(spec_text, encoding="utf-8")
        with contextlib.suppress(ApothecaryError):
            store.read_spec()
        Path(store.spec_path).write_text(json.dumps(SPEC.to_json()), encoding="utf-8")
        body = b"".join(
            (json.dumps(line) if not isinstance(line, str) else line).encode() + b"\n"
            for line in lines
        )
        with gzip.open(store.games_path, "wb") as games:
            games.write(body)
        with contextlib.suppress(ApothecaryError):
            store.read_results()
        Path(store.games_path).write_bytes(body)  # not gzip at all
        with contextlib.suppress(ApothecaryError):
            store.read_results()


def test_a_tournament_description_that_is_not_utf8_is_an_apothecary_error() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = TournamentStore(folder)
        Path(store.spec_path).write_bytes(b"\x80{}")
        with pytest.raises(ApothecaryError, match="not UTF-8"):
            store.read_spec()
