"""Poison Pot: the words on the buttons of the seat to move (``action_label``).

A slide names the piece and both circles; a placement the cauldron drawn and
its circle.
"""

from __future__ import annotations

from apothecary import Record
from apothecary.games.poison_pot.rules import PoisonPotState


def play(actions: list[str], players: int = 2) -> PoisonPotState:
    state = Record(game="poison-pot", players=players, actions=actions).replay()
    assert isinstance(state, PoisonPotState)
    return state


def labels(state: PoisonPotState) -> dict[str, str]:
    """Notation to label, for every legal action."""
    return {state.action_to_string(a): state.action_label(a) for a in state.legal_actions()}


def test_the_first_slide_moves_the_pot() -> None:
    """Rulebook: "Place the POISON POT (dark cauldron) on the center circle of the
    playing surface." and "A player moves the POISON POT, or ANY other cauldron
    already on the playing surface, any number of empty spaces and in a straight
    line." On an empty board only the pot can move: 18 slides from d4."""
    told = labels(play([]))
    assert len(told) == 18
    assert told["d4-a1"] == "Slide the pot from d4 to a1"
    assert told["d4-d5"] == "Slide the pot from d4 to d5"
    assert all(label.startswith("Slide the pot from d4 to ") for label in told.values())


def test_any_cauldron_may_slide_whatever_its_colour() -> None:
    """Rulebook: "ANY other cauldron already on the playing surface": blue may
    slide red's cauldron."""
    told = labels(play(["d4-a1", "red", "c2"]))
    assert told["c2-b2"] == "Slide the red cauldron from c2 to b2"
    assert told["a1-d4"] == "Slide the pot from a1 to d4"
    assert len(set(told.values())) == len(told)


def test_a_placement_names_the_cauldron_drawn() -> None:
    """Rulebook: "You must place the cauldron that you take, irrespective of its
    color." Every empty circle is a button."""
    for colour in ("red", "blue", "yellow"):
        told = labels(play(["d4-a1", colour]))
        assert len(told) == 36  # 37 circles, the pot on one
        assert told["d4"] == f"Place the {colour} cauldron on d4"
        assert "a1" not in told


def test_every_move_is_the_action_as_data() -> None:
    """A legal action's ``move`` (rules.md, "What the server sends") says the same
    as its notation: a slide's two circles and the piece on the first, a
    placement's circle and the colour drawn."""
    state = play(["d4-a1", "red", "c2", "c2-b2"])
    for action in state.legal_actions():  # blue's turn: the draw is chance, not a move
        assert state.action_move(action) == {
            "kind": "draw",
            "colour": state.action_to_string(action),
        }
    state.apply_action("blue")
    for action in state.legal_actions():
        move = state.action_move(action)
        assert move == {"kind": "place", "on": state.action_to_string(action), "colour": "blue"}
    state.apply_action("d4")
    pieces = {"a1": "pot", "b2": "red", "d4": "blue"}
    moves = [state.action_move(a) for a in state.legal_actions()]
    for action, move in zip(state.legal_actions(), moves, strict=True):
        origin, target = state.action_to_string(action).split("-")
        assert move == {"kind": "slide", "from": origin, "to": target, "piece": pieces[origin]}
    assert {move["piece"] for move in moves} == set(pieces.values())
