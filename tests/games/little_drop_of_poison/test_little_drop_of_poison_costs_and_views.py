"""What a learning agent sees, and what long games cost.

The observation tensor must hold every fact of the seat's observation: two
positions a seat tells apart by its observation must give it different
tensors. And a seat's information state must cost memory in proportion to the
game's length, not to its square.
"""

from __future__ import annotations

import pickle
import random
import tracemalloc
from array import array
from typing import Any

import pytest

from apothecary import load
from apothecary.core.game import State, sample_chance
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

GAME = "little-drop-of-poison"

SMALL_DECK = "blue:4x1,2x2;green:4x1,2x2;green+blue:2x1;antidote(blue):1;universal:1"


def random_step(state: State, rng: random.Random) -> None:
    """Play one random action: chance by its odds, a seat uniformly."""
    if state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def tensor_collision(
    players: int, games: int, seed: int, **options: Any
) -> tuple[int, str, str] | None:
    """Random games; the first ``(seat, observation, other observation)`` whose
    two different observations the seat is given the same tensor for, or None."""
    rng = random.Random(seed)
    seen: list[dict[bytes, str]] = [{} for _ in range(players)]
    for _ in range(games):
        state = load(GAME, players=players, **options).new_initial_state()
        while True:
            for seat in range(players):
                text = state.observation_string(seat)
                # As float32, which is what the adapters give a learning agent.
                tensor = array("f", state.observation_tensor(seat)).tobytes()
                before = seen[seat].setdefault(tensor, text)
                if before != text:
                    return seat, before, text
            if state.is_terminal():
                break
            random_step(state, rng)
    return None


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, {}), (4, {"deck": SMALL_DECK}), (6, {})],
)
def test_different_observations_give_different_tensors(
    players: int, options: dict[str, Any]
) -> None:
    assert tensor_collision(players, games=2, seed=players, target=4, **options) is None


def test_the_check_catches_a_tensor_without_the_last_reveal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A planted bug: the tensor forgets the last reveal."""

    def forgetful(self: LittleDropOfPoisonState) -> list[float]:
        n, t = self.game.num_players, self.game.num_types
        return [0.0] * (3 + n * (n + 1 + t) + (n + 1) * (n + 1) + n + n * t)

    monkeypatch.setattr(LittleDropOfPoisonState, "_reveal_tensor", forgetful)
    assert tensor_collision(3, games=5, seed=3, target=2) is not None


def test_the_check_catches_the_old_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted bug: the tensor as it was, without the rounds, the starting
    seat and the last reveal (which the observation has)."""
    full = LittleDropOfPoisonState.observation_tensor

    def old(self: LittleDropOfPoisonState, player: int) -> list[float]:
        n, t, c = self.game.num_players, self.game.num_types, self.game.num_colours
        return full(self, player)[: n * (8 + n) + 3 + (n + 1) * (t + c) + 3 * t + 6 + 2 * n]

    monkeypatch.setattr(LittleDropOfPoisonState, "observation_tensor", old)
    assert tensor_collision(3, games=2, seed=3, target=4) is not None


def long_game(seed: int) -> LittleDropOfPoisonState:
    """A finished game of a few thousand actions: a small deck (kills are rare,
    the deck is refilled often) and round limits far above the usual game."""
    deck = "blue:3x1;green:3x1;antidote(blue):2;antidote(green):2;universal:2"
    game = load(GAME, players=4, deck=deck, max_poison_rounds=30, max_assassination_rounds=30)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        random_step(state, rng)
    assert isinstance(state, LittleDropOfPoisonState)
    return state


def test_information_states_cost_memory_linear_in_the_game() -> None:
    """Once every seat's information state has been asked for, what the state
    keeps is about the size of those texts, not of a text per reveal; and its
    pickle (what goes to worker processes) does not grow at all."""
    state = long_game(seed=5)
    assert state.move_number() > 3000
    players = state.game.num_players
    pickled = len(pickle.dumps(state))
    tracemalloc.start()
    try:
        before, _peak = tracemalloc.get_traced_memory()
        total = sum(len(state.information_state_string(seat)) for seat in range(players))
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total > 100_000  # long enough that a per-reveal copy would show
    # A text of n characters takes about n bytes; the caches hold each line once per seat.
    assert kept - before < 3 * total
    assert len(pickle.dumps(state)) <= 2 * pickled
    # And a second round of calls reuses what the first kept.
    again = [state.information_state_string(seat) for seat in range(players)]
    assert sum(map(len, again)) == total
