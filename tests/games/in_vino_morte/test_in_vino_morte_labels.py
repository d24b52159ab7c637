"""In Vino Morte: the words on the buttons of the seat to move (``action_label``).

A label is read before the action is chosen, so it names the choice and
nothing the mover cannot see: above all, never what a covered glass holds.
"""

from __future__ import annotations

from typing import Any

from apothecary import Record
from apothecary.games.in_vino_morte.rules import InVinoMorteState


def play(players: int, actions: list[str], **options: Any) -> InVinoMorteState:
    state = Record(game="in-vino-morte", players=players, options=options, actions=actions).replay()
    assert isinstance(state, InVinoMorteState)
    return state


def labels(state: InVinoMorteState) -> dict[str, str]:
    """Notation to label, for every legal action."""
    return {state.action_to_string(a): state.action_label(a) for a in state.legal_actions()}


def test_the_dealer_pours_for_each_seat_in_turn() -> None:
    """Rulebook: "The dealer takes all 16 cards, looks at them, then chooses and
    places one face-down card in front of each player (including themself)." """
    assert labels(play(3, [])) == {
        "deal 1 wine": "Pour wine for seat 1",
        "deal 1 poison": "Pour poison for seat 1",
    }
    # The dealer's own glass comes last; after two Wines it must be Poison.
    assert labels(play(3, ["deal 1 wine", "deal 2 wine"])) == {
        "deal 0 poison": "Pour poison into your own glass",
    }


def test_cheese_is_poured_with_a_glass() -> None:
    """Rulebook (Caseus Vitae): "When you deal out the cards, you may also deal out
    Cheese cards to whomever you choose." """
    assert labels(play(4, ["deal 1 wine"], cheese=True)) == {
        "deal 2 wine": "Pour wine for seat 2",
        "deal 2 poison": "Pour poison for seat 2",
        "deal 2 wine+cheese": "Pour wine for seat 2, with cheese",
        "deal 2 poison+cheese": "Pour poison for seat 2, with cheese",
    }


def test_a_drinker_drinks_or_swaps_with_a_covered_glass() -> None:
    """Rulebook: "each player will choose to Drink or to Swap" and "they swap their
    card with any other player who has a face-down card." """
    state = play(4, ["deal 1 wine", "deal 2 poison", "deal 3 wine", "deal 0 wine", "drink"])
    assert labels(state) == {
        "drink": "Drink your glass",
        "swap 0": "Swap glasses with seat 0 (the dealer)",
        "swap 3": "Swap glasses with seat 3",  # seat 1's glass is drunk: not offered
    }


def test_the_drink_reads_the_same_whatever_the_glass_holds() -> None:
    """Rulebook: "Players may not look at their own cards." The button is read
    before the drink, and only the dealer knows the glass: Wine or Poison, the
    drinker reads the same words (and so does one whose glass came by a swap)."""
    for cheese in ("", "+cheese"):
        buttons = []
        for glass in ("wine", "poison"):
            deal = [f"deal 1 {glass}{cheese}", "deal 2 wine", "deal 3 poison", "deal 0 wine"]
            state = play(4, deal, cheese=True)
            assert state.current_player() == 1
            assert labels(state)["drink"] == "Drink your glass"
            buttons.append(labels(state))
            state.apply_action("swap 2")  # seat 2 now holds seat 1's glass
            assert labels(state)["drink"] == "Drink your glass"
            buttons.append(labels(state))
        assert buttons[0] == buttons[2] and buttons[1] == buttons[3]


def test_a_steal_names_the_holder_of_the_cheese() -> None:
    """Rulebook: "a player may Drink or Swap glasses normally, or choose to steal
    the cheese from another player instead." """
    state = play(3, ["deal 1 wine", "deal 2 poison+cheese", "deal 0 wine"], cheese=True)
    assert labels(state)["steal 2"] == "Steal seat 2's cheese"


def test_every_move_is_its_action_as_data() -> None:
    """``action_move`` says what each legal action does, seats as numbers, and
    the label's words name the same seats as data; the notation is built here
    from the move alone, so a move that pointed at the wrong seat or glass
    would not give its action back. Seeded random games with cheese reach
    every kind."""
    import random

    seen: set[str] = set()
    for seed in range(4):
        rng = random.Random(seed)
        state = play(5, [], cheese=True, round_limit=6)
        while not state.is_terminal():
            for action in state.legal_actions():
                move = state.action_move(action)
                seen.add(move["kind"])
                if move["kind"] == "deal":
                    again = f"deal {move['to']} {move['glass']}" + (
                        "+cheese" if move["cheese"] else ""
                    )
                elif move["kind"] == "drink":
                    again = "drink"
                else:
                    other = move["with"] if move["kind"] == "swap" else move["from"]
                    again = f"{move['kind']} {other}"
                assert again == state.action_to_string(action)
                words = state.action_words(action)
                assert str(words) == state.action_label(action)
                named = [move[k] for k in ("to", "with", "from") if k in move]
                if named and named[0] != state.current_player():
                    assert words.seat_numbers() == named, (words.runs(), move)
                else:
                    assert words.seat_numbers() == []
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen == {"deal", "drink", "swap", "steal"}
