"""In Vino Morte's information-state tensor: what a seat has seen, laid out as
rules.md says (the viewer, then a block per round: dealer, deals, turns,
reveal). Each test quotes the rule it checks."""

from __future__ import annotations

from typing import Any

import pytest

from apothecary import BadOptionError, Record
from apothecary.games.in_vino_morte.rules import InVinoMorteState

N = 4
BLOCK = 8 * N + (N - 1) * (2 * N + 3)
"""A round's numbers at 4 players: dealer, 4 per seat, 3 turns, the reveal."""


def play(actions: list[str], **options: Any) -> InVinoMorteState:
    state = Record(game="in-vino-morte", players=N, options=options, actions=actions).replay()
    assert isinstance(state, InVinoMorteState)
    return state


def round_block(state: InVinoMorteState, seat: int, number: int) -> list[float]:
    start = N + (number - 1) * BLOCK
    return state.information_state_tensor(seat)[start : start + BLOCK]


def test_the_size_is_a_block_per_round_the_game_can_last() -> None:
    # Without Cheese every round kills its Poison holder: at most n - 1 rounds.
    assert play([]).game.information_state_tensor_size() == N + (N - 1) * BLOCK == 199
    # With Cheese the round limit bounds the game.
    game = play([], cheese=True, round_limit=5).game
    assert game.information_state_tensor_size() == N + 5 * BLOCK


def test_with_cheese_and_no_round_limit_there_is_no_fixed_length() -> None:
    game = play([], cheese=True).game
    with pytest.raises(BadOptionError, match="set round_limit"):
        game.information_state_tensor_size()


def test_only_the_dealer_sees_the_glasses_it_deals() -> None:
    """'The dealer takes all 16 cards, looks at them, then chooses and places one
    face-down card in front of each player (including themself).'"""
    a = play(["deal 1 poison", "deal 2 wine", "deal 3 wine", "deal 0 wine"])
    b = play(["deal 1 wine", "deal 2 poison", "deal 3 wine", "deal 0 wine"])
    assert a.information_state_tensor(0) != b.information_state_tensor(0)
    for seat in (1, 2, 3):
        assert a.information_state_tensor(seat) == b.information_state_tensor(seat)
        assert a.information_state_string(seat) == b.information_state_string(seat)
    deals = round_block(a, 0, 1)[N : 5 * N]
    # Per seat: dealt, with Cheese, Wine, Poison (the dealer's view).
    assert deals[4 * 1 : 4 * 1 + 4] == [1.0, 0.0, 0.0, 1.0]
    assert deals[4 * 2 : 4 * 2 + 4] == [1.0, 0.0, 1.0, 0.0]
    assert round_block(a, 1, 1)[N + 4 : N + 8] == [1.0, 0.0, 0.0, 0.0]


def test_a_round_ends_with_every_covered_glass_revealed_to_all() -> None:
    """'When it's the dealer's turn, every player who hasn't drunk flips over
    their own card. Anyone who reveals the Poison dies': a seat that never saw
    the deal keeps what the reveal showed, in the round's block, and the next
    round has a block of its own."""
    actions = ["deal 1 poison", "deal 2 wine", "deal 3 wine", "deal 0 wine"]
    # Seat 1 swaps its Poison to the dealer, seat 2 takes it from the dealer,
    # seat 3 drinks its Wine.
    state = play([*actions, "swap 0", "swap 0", "drink"])
    block = round_block(state, 3, 1)
    size = 2 * N + 3
    reveal = block[5 * N + (N - 1) * size :]
    per_seat = [reveal[3 * s : 3 * s + 3] for s in range(N)]
    # Revealed Wine, revealed Poison, died: seats 0 and 1 show Wine, seat 2
    # Poison and dies; seat 3 drank, so it reveals nothing.
    assert per_seat == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    turns = block[5 * N : 5 * N + (N - 1) * size]
    # Drink, Wine, Poison, then the seat swapped with: seats 1 and 2 with 0.
    assert turns[0:size] == [0.0, 0.0, 0.0, 1.0] + [0.0] * (2 * N - 1)
    assert turns[size : 2 * size] == turns[0:size]
    assert turns[2 * size : 2 * size + 3] == [1.0, 1.0, 0.0]
    # Round 2 (dealt by the dealer's right, seat 3) has not started yet.
    assert set(round_block(state, 3, 2)) == {0.0}
    assert state.information_state_tensor(3)[:N] == [0.0, 0.0, 0.0, 1.0]
