"""Little Drop of Poison: the words on the buttons of the seat to move
(``action_label``).

A turn is a few buttons: a character to play on, the cards to add, then
``Done`` (or ``Pass`` with an empty hand). A label names the choice only.
"""

from __future__ import annotations

from little_drop_of_poison_records import THREE_SEATS, replay

from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

OPENING = [*THREE_SEATS, "p1 to 0", "u! to 1", "g+p1 to 2"]


def labels(state: LittleDropOfPoisonState) -> dict[str, str]:
    """Notation to label, for every legal action."""
    return {state.action_to_string(a): state.action_label(a) for a in state.legal_actions()}


def test_a_turn_starts_by_choosing_a_character() -> None:
    """Rulebook: "You must play poison cards on one character only, be it on a
    peasant or the king. You may play poison on yourself." """
    assert labels(replay(OPENING)) == {
        "on 0": "Play on your own peasant",
        "on 1": "Play on seat 1's peasant",
        "on 2": "Play on seat 2's peasant",
        "on king": "Play on the king",
    }


def test_cards_are_added_by_name_then_the_play_is_done() -> None:
    """Rulebook: "On a turn, you must play at least one poison card though you may
    play as many as you like." So ``Done`` is offered once a card is down."""
    state = replay([*OPENING, "on king"])
    assert labels(state) == {"b3": "Add blue 3", "p1": "Add purple 1"}
    state.apply_action("b3")
    assert labels(state) == {"p1": "Add purple 1", "done": "Done"}


def test_antidotes_and_multi_coloured_cards_read_as_their_names() -> None:
    """Rulebook: the universal antidote "wipes out all poison (...) for one
    character"; multi-coloured poisons "count as one drop of green poison and one
    drop of purple poison"."""
    state = replay([*OPENING, "on king", "b3", "done", "on 1"])
    assert labels(state) == {"b2": "Add blue 2", "u!": "Add universal antidote"}
    state = replay([*OPENING, "on king", "b3", "done", "on 1", "b2", "done", "on 2"])
    assert labels(state) == {"p1": "Add purple 1", "g+p1": "Add green+purple 1"}


def test_a_player_with_no_card_passes() -> None:
    """rules.md: "A player with no card passes." With a deck of two cards, the
    deal stops before seat 2 gets one."""
    deal = ["weasel king", "rat to 0", "rat to 1", "weasel to 2", "b2 to 0", "b2 to 1"]
    plays = ["on king", "b2", "done", "on 0", "b2", "done"]
    state = replay(deal + plays, deck="blue:2x2")  # asserts a LittleDropOfPoisonState
    assert state.current_player() == 2
    assert labels(state) == {"pass": "Pass"}
