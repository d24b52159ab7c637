"""Tea, Scones and Arsenic: what each viewer reads of an action (``describe_action``).

Each test quotes the rulebook sentence that makes something secret or public
and checks the event the actor, another seat and a spectator read.
"""

from __future__ import annotations

from typing import Any

from apothecary import Record
from apothecary.core.game import CHANCE
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState


def play(players: int, actions: list[str], **options: Any) -> TeaSconesArsenicState:
    record = Record(game="tea-scones-arsenic", players=players, options=options, actions=actions)
    state = record.replay()
    assert isinstance(state, TeaSconesArsenicState)
    return state


def test_a_dose_is_read_by_the_drawer_alone() -> None:
    """Rulebook: "The 1st player takes a Scone in hand and turns it over discreetly
    to know his dose of poison (the other players should not see anything)",
    and eats it by placing it "in his Cup in front of him, Poison side hidden"."""
    state = play(3, ["d2"])
    mine = state.describe_action("dose3", 0)
    assert mine["actor"] == CHANCE and mine["notation"] == "dose3" and mine["dose"] == 3
    assert mine["text"] == "seat 0 sees dose 3 on the kind-2 scone"
    for viewer in (1, None):
        told = state.describe_action("dose3", viewer)
        assert told["text"] == "seat 0 looks at the dose of the kind-2 scone"
        assert told["notation"] is None and told["dose"] is None
        assert state.describe_action("dose0", viewer) == told  # any dose reads the same
    state.apply_action("dose3")
    assert state.describe_action("eat", 0)["text"] == "seat 0 eats the kind-2 scone (dose 3)"
    for viewer in (1, None):
        told = state.describe_action("eat", viewer)
        assert told["text"] == "seat 0 eats the kind-2 scone"
        assert told["notation"] == "eat" and told["dose"] is None  # the choice is public


def test_a_marked_scone_shows_its_dose_to_whoever_saw_it() -> None:
    """Rules page: "Everyone can follow a marked scone; only those who have seen
    its dose know it." Seat 0 put a 3 back; when seat 1 takes it, seat 0 and
    seat 1 read its dose, seat 2 and a spectator only which scone it was."""
    state = play(3, ["d2", "dose3", "back"])
    for viewer in (0, 1):
        told = state.describe_action("d2@0", viewer)
        assert told["text"] == "seat 1 takes the marked kind-2 scone seat 0 put back (dose 3)"
        assert told["dose"] == 3
    for other in (2, None):
        told = state.describe_action("d2@0", other)
        assert told["text"] == "seat 1 takes the marked kind-2 scone seat 0 put back"
        assert told["dose"] is None and told["notation"] == "d2@0"


def test_a_death_and_its_total_are_read_by_everyone() -> None:
    """Rulebook: "If a player reaches his natural resistance to poison (...), he
    dies (he is eliminated and his Scones are not counted)." The death is told
    to all, with the total it came at; the dose eaten stays the eater's."""
    zeros = [action for kind in (3, 4, 5, 6, 3) for action in (f"d{kind}", "dose0", "eat")]
    state = play(6, ["d1", "dose3", "eat", *zeros, "d2", "dose3"])  # lethal dose 6
    told = {viewer: state.describe_action("eat", viewer) for viewer in (0, 1, None)}
    for event in told.values():
        assert event["deaths"] == [{"seat": 0, "total": 6}]
        assert event["then"] == ["seat 0 dies at dose 6"]
    assert told[0]["text"] == "seat 0 eats the kind-2 scone (dose 3); seat 0 dies at dose 6"
    assert (
        told[1]["text"]
        == told[None]["text"]
        == "seat 0 eats the kind-2 scone; seat 0 dies at dose 6"
    )


def test_taking_back_your_own_marked_scone_reads_they() -> None:
    """Rules page: the scone goes back into the box "marked "put back by" that
    player. Everyone can follow a marked scone". The seat that put it back may
    take it again; the log then says "they put back" rather than naming the
    taker twice."""
    state = play(2, ["d2", "dose3", "back", "d1", "dose0", "eat"])
    assert state.current_player() == 0 and "d2@0" in [
        state.action_to_string(a) for a in state.legal_actions()
    ]
    for viewer in (0, 1, None):
        told = state.describe_action("d2@0", viewer)
        assert told["text"].startswith("seat 0 takes the marked kind-2 scone they put back")
        assert "seat 0 put back" not in told["text"]


def test_the_seats_an_event_names_are_data() -> None:
    """Every seat an event's words and then-clauses name is a number in its
    ``words`` and ``then_words`` (the text is their English), and the totals a
    move turns over are data too."""
    zeros = [action for kind in (3, 4, 5, 6, 3) for action in (f"d{kind}", "dose0", "eat")]
    state = play(6, ["d1", "dose3", "eat", *zeros, "d2", "dose3"])
    event = state.describe_action("eat", 1)
    assert event["words"] == [{"seat": 0}, " eats the kind-2 scone"]
    assert event["then_words"] == [[{"seat": 0}, " dies at dose 6"]]
    assert event["turned_over"] == []
    stop = play(2, ["d1", "dose0", "eat", "d2", "dose0", "eat"]).describe_action("stop", None)
    assert stop["words"] == [{"seat": 0}, " stops eating"]
    assert stop["then_words"] == [[{"seat": 1}, " owes 2 honour turns"]]
