"""How fast could a mask-only PettingZoo agent go with no adapter at all?

    python benchmarks/pettingzoo_ceiling.py [--seconds S] [--games NAME,...]

Three loops per game at its default player count, in one run: the native
driver loop of ``benchmarks/playout.py``; the same loop with only the work the
benchmark's mask-only agent does itself at each decision (take the int8 mask
of the legal set, ``nonzero()``, draw an index, ``int()``), the masks of legal
sets made in advance and kept, so no adapter cost is left; and the real
PettingZoo env. The second loop is the ceiling of the third: the share of the
native rate that the agent's own mask handling already costs. Needs
``pip install -e '.[rl]'``.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np

import apothecary
from apothecary.core.game import sample_chance
from playout import pettingzoo_rate, playout_rate


def agent_work_rate(game: Any, seconds: float, seed: int = 0) -> float:
    """Actions per second of the native loop plus the mask-only agent's own work."""
    rng = random.Random(seed)
    size = game.num_distinct_actions()
    masks: dict[tuple[int, ...], np.ndarray[Any, Any]] = {}
    actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                legal = state.legal_actions()
                key = tuple(legal)
                mask = masks.get(key)
                if mask is None:
                    if len(masks) >= 4096:  # Poison Pot's sets rarely repeat
                        masks.clear()
                    flags = bytearray(size)
                    for action in legal:
                        flags[action] = 1
                    mask = masks[key] = np.frombuffer(bytes(flags), dtype=np.int8)
                # Timed from here: what the agent does with the mask it is given.
                chosen = mask.nonzero()[0]
                state.apply_action(int(chosen[rng.randrange(len(chosen))]))
            actions += 1
    return actions / (time.perf_counter() - start)


def main() -> None:
    """Measure and print one line per game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per loop")
    parser.add_argument("--games", help="comma-separated game names (default: all)")
    args = parser.parse_args()
    names = args.games.split(",") if args.games else apothecary.games()
    print("| game | players | native | native + agent's mask work | PettingZoo, mask only |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in names:
        game = apothecary.load(name)
        native = playout_rate(game.new_initial_state, args.seconds)
        ceiling = agent_work_rate(game, args.seconds)
        env = pettingzoo_rate(name, game.num_players, args.seconds, observe=False)
        print(
            f"| {name} | {game.num_players} | {native:,.0f} | {ceiling:,.0f} "
            f"({ceiling / native:.2f}) | {env:,.0f} ({env / native:.2f}) |"
        )


if __name__ == "__main__":
    main()
