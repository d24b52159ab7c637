"""Tea, Scones and Arsenic: the words on the buttons of the seat to move
(``action_label``).

A label is read before the action is chosen: it names the choice, never a
dose (only those who saw a scone know it).
"""

from __future__ import annotations

from typing import Any

from apothecary import Record
from apothecary.games.tea_scones_arsenic.rules import PASS, SPOON, TeaSconesArsenicState


def play(players: int, actions: list[str], **options: Any) -> TeaSconesArsenicState:
    record = Record(game="tea-scones-arsenic", players=players, options=options, actions=actions)
    state = record.replay()
    assert isinstance(state, TeaSconesArsenicState)
    return state


def labels(state: TeaSconesArsenicState) -> dict[str, str]:
    """Notation to label, for every legal action."""
    return {state.action_to_string(a): state.action_label(a) for a in state.legal_actions()}


def test_a_turn_starts_with_stopping_or_taking_a_scone() -> None:
    """Rulebook: "Each player, at the start of their turn (before playing), during
    their turn, can decide that they have had enough, and stop playing", and
    "The 1st player takes a Scone in hand"."""
    assert labels(play(3, [])) == {
        "stop": "Stop eating",
        **{f"d{kind}": f"Take a kind-{kind} scone" for kind in range(1, 7)},
    }


def test_eat_or_put_back_for_a_sugar_cube() -> None:
    """Rulebook: "Either he eats it (...). Either he puts it back in its place in
    the box and consumes Sugar Cube to delay (he can shuffle the Scones afterward
    if he want to)." The dose the drawer saw is not on the buttons."""
    for dose in ("dose0", "dose3"):
        assert labels(play(3, ["d2", dose])) == {
            "eat": "Eat the kind-2 scone",
            "back": "Put it back for a sugar cube",
            "back+shuffle": "Put it back for a sugar cube and shuffle the box",
        }


def test_a_marked_scone_is_named_by_who_put_it_back() -> None:
    """Rulebook: the scone goes back in the box; ours is marked "put back by" that
    player (rules.md), and "he can before shuffle the Scones if he want to"."""
    state = play(3, ["d2", "dose3", "back", "d2@0", "back", "d5", "dose1", "eat"])
    told = labels(state)
    assert told["shuffle"] == "Shuffle the box"
    assert told["d2@1"] == "Take the marked kind-2 scone seat 1 put back"
    # Seat 0 has seen that scone's dose (it drew it first), seat 2 has not:
    # the button is the same for both.
    state = play(3, ["d2", "dose3", "back", "d2@0", "back"])
    assert labels(state)["d2@1"] == told["d2@1"]


def test_two_marked_scones_alike_are_told_apart_by_their_order() -> None:
    """Notation (rules.md): "d3@1.2 -- the second such scone, in the order they
    went back"."""
    state = play(2, ["d4", "dose0", "back", "d1", "dose1", "eat", "d4", "dose1", "back"])
    assert state.current_player() == 1
    told = labels(state)
    assert told["d4@0"] == "Take the 1st marked kind-4 scone seat 0 put back"
    assert told["d4@0.2"] == "Take the 2nd marked kind-4 scone seat 0 put back"


def test_with_no_cube_left_the_only_button_is_eat() -> None:
    """Rulebook: "When a player runs out of Sugar Cube, he is forced to eat the
    Scone." """
    # Seats 0 and 1 pass one scone back and forth until their cubes are gone.
    backs = ["d1", "dose0", "back", "d1@0", "back", *(["d1@1", "back", "d1@0", "back"] * 2)]
    state = play(2, [*backs, "d3", "dose2"])
    assert state.current_player() == 0 and state.cubes[0] == 0
    assert labels(state) == {"eat": "Eat the kind-3 scone"}


def test_the_little_spoon_is_offered_as_a_choice() -> None:
    """Rulebook (The Little Spoon): it "allows a player to force an opponent of
    their choice to put back the Scone they just drew, and intended to keep"."""
    state = play(3, ["d6", "dose2", "eat"], little_spoon=True)
    assert state.current_player() == 1
    assert labels(state) == {
        "spoon": "Use the little spoon on seat 0's scone",
        "pass": "Let seat 0 eat",
    }


def test_the_seats_a_label_names_are_data() -> None:
    """A label's ``words`` keep each seat it names as a number, so a front end
    puts in a name without reading the label (docs/protocol.md)."""
    state = play(
        3, ["d2", "dose3", "back", "d2@0", "back", "d6", "dose2", "eat"], little_spoon=True
    )
    assert state.current_player() == 0  # seat 2 chose to eat; seat 0 holds a spoon
    assert state.action_words(SPOON).runs() == ["Use the little spoon on ", {"seat": 2}, "'s scone"]
    assert state.action_words(PASS).runs() == ["Let ", {"seat": 2}, " eat"]
    marked = play(3, ["d2", "dose3", "back", "d2@0", "back"])
    slot = marked.legal_actions()[-1]
    assert marked.action_words(slot).runs() == [
        "Take the marked kind-2 scone ",
        {"seat": 1},
        " put back",
    ]


def test_every_move_is_data_the_table_can_find() -> None:
    """``action_move`` (rules.md, "What the server sends"): each decision as a
    kind with its arguments, the marked scone by its index in ``box.marked``."""
    state = play(3, ["d2", "dose3", "back", "d5", "dose1", "back"], little_spoon=True)
    moves = {state.action_to_string(a): state.action_move(a) for a in state.legal_actions()}
    assert moves["stop"] == {"kind": "stop"}
    assert moves["shuffle"] == {"kind": "shuffle"}
    assert moves["d4"] == {"kind": "draw", "scone": 4, "marked": None, "by": None}
    assert moves["d2@0"] == {"kind": "draw", "scone": 2, "marked": 0, "by": 0}
    assert moves["d5@1"] == {"kind": "draw", "scone": 5, "marked": 1, "by": 1}
    held = play(3, ["d6", "dose2"], little_spoon=True)
    assert [held.action_move(a) for a in held.legal_actions()] == [
        {"kind": "eat"},
        {"kind": "back", "shuffle": False},
        {"kind": "back", "shuffle": True},
    ]
    asked = play(3, ["d6", "dose2", "eat"], little_spoon=True)
    assert [asked.action_move(a) for a in asked.legal_actions()] == [
        {"kind": "spoon", "eater": 0},
        {"kind": "pass", "eater": 0},
    ]
    drawn = play(3, ["d6"])
    assert {tuple(drawn.action_move(a).items()) for a in drawn.legal_actions()} <= {
        (("kind", "dose"), ("dose", d)) for d in range(4)
    }
