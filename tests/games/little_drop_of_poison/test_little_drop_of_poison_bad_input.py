"""Bad notation and bad deck specs: always the project's own errors, with short
messages, and numbers only in ASCII digits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apothecary import ApothecaryError, BadOptionError, MalformedActionError, load
from apothecary.cli_common import parse_options
from apothecary.games.little_drop_of_poison.deck import DeckSpecError, parse_deck
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

GAME = "little-drop-of-poison"
HUGE = "9" * 5000
"""A number int() refuses to read (more than 4,300 digits)."""


def at_first_turn() -> LittleDropOfPoisonState:
    """Seat 0 to choose a character, after the king, the peasants and the deal."""
    state = load(GAME, players=3).new_initial_state()
    assert isinstance(state, LittleDropOfPoisonState)
    for action in ["rat king", "rat to 0", "rat to 1", "weasel to 2"]:
        state.apply_action(action)
    for _ in range(6):
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 0
    return state


@pytest.mark.parametrize(
    "text",
    [f"on {HUGE}", f"@{HUGE}", HUGE, "on ²", "on ١", "١", "@١", "on ０", "on 1²"],
)
def test_a_seat_number_is_a_few_ascii_digits(text: str) -> None:
    state = at_first_turn()
    with pytest.raises(MalformedActionError):
        state.apply_action(text)
    assert state.move_number() == 10  # left as it was


@pytest.mark.parametrize("text", [f"b1 to {HUGE}", "b1 to ٠", "b1 to ⁰", "rat to ٠"])
def test_a_chance_event_names_its_seat_in_ascii_digits(text: str) -> None:
    state = load(GAME, players=3).new_initial_state()
    state.apply_action("rat king")
    if text.startswith("b1"):
        for action in ["rat to 0", "rat to 1", "weasel to 2"]:
            state.apply_action(action)
    with pytest.raises(MalformedActionError):
        state.apply_action(text)


def test_ascii_seat_numbers_still_read() -> None:
    state = at_first_turn()
    assert state.string_to_action("on 2") == 2
    assert state.string_to_action("@1") == 1


BAD_SPECS = [
    "universal:²",
    "blue:3x1;universal:²",
    f"blue:{HUGE[:1500]}x1",
    f"blue:3x{HUGE[:1500]}",
    "blue:٣x1",
    "blue:3x٣",
    "blue:¹x1",
    f"blue:{HUGE}x1",  # longer than any deck spec needs
    "blue:3x1;antidote(" + "q" * 500 + "):1",
    "b" * 500 + "!:3x1",
    "blue:3x10",
    "blue:0x1",
]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_a_bad_deck_spec_is_a_short_option_error(spec: str) -> None:
    with pytest.raises(DeckSpecError) as raised:
        parse_deck(spec)
    assert isinstance(raised.value, BadOptionError)
    assert len(str(raised.value)) < 200
    with pytest.raises(BadOptionError):
        load(GAME, players=3, deck=spec)
    with pytest.raises(BadOptionError):
        parse_options(GAME, [f"deck={spec}"])


@pytest.mark.parametrize("spec", ["universal:²", "blue:٣x1", f"blue:{HUGE[:1500]}x1"])
def test_a_bad_deck_spec_through_openspiel_is_an_option_error(spec: str) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from apothecary.interop import openspiel, openspiel_name

    openspiel.register([GAME])
    with pytest.raises(BadOptionError):
        openspiel.load(GAME, deck=spec)
    with pytest.raises(BadOptionError):
        pyspiel.load_game(openspiel_name(GAME), {"deck": spec})


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_deck_spec_text_reads_or_is_a_deck_spec_error(text: str) -> None:
    try:
        deck = parse_deck(text)
    except DeckSpecError:
        return
    assert parse_deck(deck.spec()) == deck


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_notation_reads_or_is_the_projects_error(text: str) -> None:
    state = at_first_turn()
    try:
        action = state.string_to_action(text)
    except ApothecaryError:
        return
    assert 0 <= action < state.game.num_distinct_actions()
