"""Clone cost early and late in a long game: does a clone grow with the history?

    python benchmarks/clone_cost.py [--players N] [--seed S]

Plays one seeded random game of Little Drop of Poison (its histories are the
longest here, up to about 1,700 actions) and times ``State.clone()`` at move
10 and at move 1,500 side by side, in the same run, so the ratio shows how
much of a clone's cost is the length of the game. It also times clone plus
one applied action (how search uses a clone), since a history shared on
clone must not move the copy to the first append.
"""

from __future__ import annotations

import argparse
import random
import timeit
from typing import Any

import apothecary
from apothecary.core.game import sample_chance

MOVES = (10, 1500)


def positions(players: int, seed: int) -> dict[int, Any]:
    """Seeded random games until one reaches the last of MOVES; the states at each of MOVES."""
    rng = random.Random(seed)
    game = apothecary.load("little-drop-of-poison", players=players)
    while True:
        state = game.new_initial_state()
        found: dict[int, Any] = {}
        while not state.is_terminal():
            if state.move_number() in MOVES:
                found[state.move_number()] = state.clone()
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
        if len(found) == len(MOVES):
            return found


def best_microseconds(call: Any) -> float:
    """Best-of-5 mean time of one call, in microseconds."""
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(5, number)) / number * 1e6


def main() -> None:
    """Print clone and clone-plus-step times at each of MOVES."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    found = positions(args.players, args.seed)
    print(f"Little Drop of Poison, {args.players} players, seed {args.seed}")
    print("| move | clone (µs) | clone + one action (µs) |")
    print("|---:|---:|---:|")
    for move, state in sorted(found.items()):
        action = state.legal_actions()[0]

        def clone_and_step(state: Any = state, action: int = action) -> None:
            state.clone().apply_action(action)

        print(
            f"| {move} | {best_microseconds(state.clone):.1f} "
            f"| {best_microseconds(clone_and_step):.1f} |"
        )


if __name__ == "__main__":
    main()
