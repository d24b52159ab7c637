"""In Vino Morte: what each viewer reads of an action (``describe_action``).

Each test quotes the rulebook sentence that makes something secret or public
and checks the event the actor, another seat and a spectator read.
"""

from __future__ import annotations

import gettext
from typing import Any

from apothecary import Record
from apothecary.core.words import render
from apothecary.games.in_vino_morte.rules import InVinoMorteState


def play(players: int, actions: list[str], **options: Any) -> InVinoMorteState:
    state = Record(game="in-vino-morte", players=players, options=options, actions=actions).replay()
    assert isinstance(state, InVinoMorteState)
    return state


def test_only_the_dealer_reads_what_it_pours() -> None:
    """Rulebook: "The dealer takes all 16 cards, looks at them, then chooses and
    places one face-down card in front of each player (including themself)."
    and "Players may not look at their own cards." """
    state = play(3, ["deal 1 poison"])
    before = str(state)
    dealer = state.describe_action("deal 2 wine", 0)
    # The words' message (for other languages) says, in English, the words themselves.
    message, then_message = dealer.pop("msg"), dealer.pop("then_msg")
    assert render(message, gettext.NullTranslations()) == dealer["words"] and then_message == []
    assert dealer == {
        "actor": 0,
        "kind": "deal",
        "notation": "deal 2 wine",
        "text": "seat 0 deals a glass of wine to seat 2",
        "words": [{"seat": 0}, " deals a glass of wine to ", {"seat": 2}],
        "to": 2,
        "cheese": False,
        "glass": "wine",
        "reveal": None,
        "then": [],
        "then_words": [],
    }
    for viewer in (2, 1, None):  # the seat dealt the glass, another seat, a spectator
        told = state.describe_action("deal 2 wine", viewer)
        assert told["notation"] is None and told["glass"] is None
        assert told["text"] == "seat 0 deals a covered glass to seat 2"
        # Whatever the dealer poured, the others read the very same event.
        assert state.describe_action("deal 2 poison", viewer) == told
    assert str(state) == before  # describing changes nothing


def test_the_cheese_dealt_is_public_the_glass_under_it_is_not() -> None:
    """Rulebook (Caseus Vitae): "When you deal out the cards, you may also deal out
    Cheese cards to whomever you choose." Our cheese lies face up, the glass
    covered: the others read that seat 1 got cheese, not what it drinks."""
    state = play(3, [], cheese=True)
    for viewer in (1, 2, None):
        told = state.describe_action("deal 1 poison+cheese", viewer)
        assert told["text"] == "seat 0 deals a covered glass to seat 1, with cheese"
        assert told["cheese"] is True and told["notation"] is None
    assert state.describe_action("deal 1 poison+cheese", 0)["text"] == (
        "seat 0 deals a glass of poison to seat 1, with cheese"
    )


def test_a_drink_and_the_reveal_are_read_by_everyone() -> None:
    """Rulebook: "If they choose to drink, they flip over their card." and "When
    it's the dealer's turn, every player who hasn't drunk flips over their own
    card. Anyone who reveals the Poison dies." """
    state = play(3, ["deal 1 poison", "deal 2 wine", "deal 0 wine"])
    drink = [state.describe_action("drink", viewer) for viewer in (1, 0, 2, None)]
    assert all(told == drink[0] for told in drink)
    assert drink[0]["text"] == "seat 1 drinks poison and dies"
    assert drink[0]["notation"] == "drink" and drink[0]["died"] is True
    state.apply_action("drink")
    # Seat 2's turn is the round's last: its swap brings the reveal, for all to read.
    last = [state.describe_action("swap 0", viewer) for viewer in (2, 0, 1, None)]
    assert all(told == last[0] for told in last)
    assert last[0]["reveal"] == [
        {"seat": 2, "glass": "wine", "cheese": False, "died": False},
        {"seat": 0, "glass": "wine", "cheese": False, "died": False},
    ]
    assert last[0]["then"] == [
        "the glasses are turned over: seat 2 wine, seat 0 wine",
        "nobody dies",
    ]
    assert last[0]["text"] == (
        "seat 2 swaps glasses with seat 0; the glasses are turned over: "
        "seat 2 wine, seat 0 wine; nobody dies"
    )


def test_the_reveal_and_the_end_name_their_seats_as_data() -> None:
    """The clauses a round's last turn sets off, and the outcome's reason, keep
    every seat they name as a number (what a client puts a name in for)."""
    state = play(2, ["deal 1 poison", "deal 0 wine"])
    event = state.describe_action("swap 0", None)
    assert event["words"] == [{"seat": 1}, " swaps glasses with ", {"seat": 0}]
    assert event["then_words"] == [
        ["the glasses are turned over: ", {"seat": 1}, " wine, ", {"seat": 0}, " poison"],
        [{"seat": 0}, " dies"],
        [{"seat": 1}, " is the last player alive after round 1"],
    ]
    state.apply_action("swap 0")
    outcome = state.outcome()
    assert outcome is not None and outcome.words is not None
    assert outcome.words.runs() == [{"seat": 1}, " is the last player alive after round 1"]
    assert outcome.to_json(words=True)["reason_words"] == outcome.words.runs()


def test_everyone_dying_together_shares_the_win_by_seats() -> None:
    """Caseus Vitae: a reveal that kills everyone left ends the game with them
    all sharing the win, named as a list of seats."""
    state = play(3, ["deal 1 wine+cheese", "deal 2 poison", "deal 0 poison", "swap 2"], cheese=True)
    event = state.describe_action("swap 1", None)
    state.apply_action("swap 1")
    outcome = state.outcome()
    assert outcome is not None and outcome.words is not None
    assert set(outcome.winners) == {0, 1, 2}
    runs = outcome.words.runs()
    assert {"seats": [0, 1, 2]} in runs
    assert event["then_words"][-1] == runs
    assert (
        outcome.reason == "everyone left died in round 1: seat 0, seat 1 and seat 2 share the win"
    )


def test_the_observation_tells_the_round_in_the_events_schema() -> None:
    """One schema: each turn the observation lists has the event's ``actor`` and
    ``kind`` and the same values for every key they share (the event's own
    ``notation``, ``text`` and the like aside)."""
    deals = [
        "deal 1 wine",
        "deal 2 wine",
        "deal 3 poison+cheese",
        "deal 4 wine+cheese",
        "deal 0 wine",
    ]
    state = play(5, deals, cheese=True)
    told = []
    for action in ["steal 4", "swap 0", "drink"]:
        told.append(state.describe_action(action, None))
        state.apply_action(action)
    listed = state.observation(None)["events"]
    assert [e["kind"] for e in listed] == ["steal", "swap", "drink"]
    for event, entry in zip(told, listed, strict=True):
        assert set(entry) <= set(event), (entry, event)
        assert {key: event[key] for key in entry} == entry
    # Cheese reversed the poison: the entry says so, as the drink's event did.
    assert listed[2] == {
        "actor": 3,
        "kind": "drink",
        "glass": "poison",
        "cheese": True,
        "died": False,
    }
