"""In Vino Morte: what each viewer reads of an action (``describe_action``).

Each test quotes the rulebook sentence that makes something secret or public
and checks the event the actor, another seat and a spectator read.
"""

from __future__ import annotations

from typing import Any

from apothecary import Record
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
    assert dealer == {
        "actor": 0,
        "kind": "deal",
        "notation": "deal 2 wine",
        "text": "seat 0 deals a glass of wine to seat 2",
        "words": ["seat 0 deals a glass of wine to seat 2"],
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
