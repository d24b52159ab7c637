"""A long game's information states cost memory in proportion to the game, not
its square, and never grow what is pickled (what goes to worker processes).

Figures per action at 1,000 to 100,000 actions are in benchmarks/long_games.py
and docs/performance.md; this checks the shape on one game of each, a few
thousand actions long where the game can be made that long.
"""

from __future__ import annotations

import gc
import pickle
import random
import tracemalloc
from typing import Any

import pytest

import apothecary
from apothecary.core.game import State, sample_chance
from apothecary.games.in_vino_morte import rules as ivm

LENGTH = 4_000

# name: (players, options); In Vino Morte and Little Drop of Poison are made
# long (see benchmarks/long_games.py), the other two end when they end.
SETUPS: dict[str, tuple[int, dict[str, Any]]] = {
    "in-vino-morte": (4, {"cheese": True}),
    "little-drop-of-poison": (
        3,
        {
            "deck": "blue:4x1,1x3;antidote(blue):3;universal:2",
            "target": 1000,
            "max_poison_rounds": 1000,
            "max_assassination_rounds": 1000,
        },
    ),
    "poison-pot": (3, {"radius": 4}),
    "tea-scones-arsenic": (6, {}),
}


def long_game(name: str) -> State:
    """A seeded game of ``name`` played to LENGTH actions or to its end; In
    Vino Morte on the line where nobody dies (Poison with Cheese for the
    dealer's left, Wine for the others, everyone drinks)."""
    players, options = SETUPS[name]
    state = apothecary.load(name, players, **options).new_initial_state()
    rng = random.Random(name)
    while state.move_number() < LENGTH and not state.is_terminal():
        if isinstance(state, ivm.InVinoMorteState):
            if state.phase == ivm.DEAL_PHASE:
                action = ivm.DEAL_POISON_CHEESE if state.step == 0 else ivm.DEAL_WINE
            else:
                action = ivm.DRINK
        elif state.is_chance_node():
            action = sample_chance(state, rng)
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    return state


def kept(work: Any) -> int:
    """Bytes that calling ``work()`` left allocated."""
    gc.collect()
    tracemalloc.start()
    try:
        work()
        gc.collect()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return size


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_information_states_cost_memory_in_proportion_to_the_game(name: str) -> None:
    holder: list[State] = []
    state_bytes = kept(lambda: holder.append(long_game(name)))
    state = holder[0]
    if name in ("in-vino-morte", "little-drop-of-poison"):
        assert state.move_number() == LENGTH
    pickled = len(pickle.dumps(state))

    def ask_every_seat() -> None:
        for seat in range(state.game.num_players):
            state.information_state_string(seat)

    added = kept(ask_every_seat)
    # What the calls keep (each seat's text, In Vino Morte's table of formatted
    # lines, bounded at 100,000 lines) is a few times the state's size; the text
    # up to every reveal kept per seat (the bug) is some seventy times it at
    # this length, and grows with the length.
    assert added <= 10 * state_bytes + 1_000_000, (added, state_bytes)
    assert len(pickle.dumps(state)) <= pickled * 1.1 + 100
