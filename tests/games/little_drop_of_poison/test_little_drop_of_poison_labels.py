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


def test_a_label_names_its_seat_as_data_and_each_move_is_its_kind() -> None:
    """A label's seat is a run of its words (the English is the label), and each
    legal action's move is the kind and keys of the event it makes (rules.md,
    "What the server sends")."""
    state = replay(OPENING)
    by_notation = {state.action_to_string(a): a for a in state.legal_actions()}
    assert state.action_words(by_notation["on 1"]).runs() == ["Play on ", {"seat": 1}, "'s peasant"]
    assert state.action_words(by_notation["on 0"]).runs() == ["Play on your own peasant"]
    moves = {n: state.action_move(a) for n, a in by_notation.items()}
    assert moves == {
        "on 0": {"kind": "target", "on": "0", "seat": 0},
        "on 1": {"kind": "target", "on": "1", "seat": 1},
        "on 2": {"kind": "target", "on": "2", "seat": 2},
        "on king": {"kind": "target", "on": "king", "seat": None},
    }
    state.apply_action("on king")
    state.apply_action("b3")
    moves = {state.action_to_string(a): state.action_move(a) for a in state.legal_actions()}
    assert moves == {"p1": {"kind": "card", "card": "p1"}, "done": {"kind": "done"}}
    for action in state.legal_actions():  # the move's kind is its event's
        assert state.action_move(action)["kind"] == state.describe_action(action, 1)["kind"]


def test_the_chance_moves_are_their_events_kinds() -> None:
    """Chance actions read as data too: the king drawn, a peasant, a card dealt."""
    start = replay([])
    crown = start.legal_actions()[0]
    assert start.action_move(crown) == {"kind": "king", "king": "rat"}
    state = replay(THREE_SEATS[:2])
    moves = [state.action_move(a) for a in state.legal_actions()]
    assert moves == [
        {"kind": "peasant", "seat": 1, "peasant": "rat"},
        {"kind": "peasant", "seat": 1, "peasant": "weasel"},
    ]
    state = replay(THREE_SEATS)
    move = state.action_move(state.legal_actions()[0])
    assert move["kind"] == "deal" and move["to"] == 0 and move["card"] in state.game.codes
