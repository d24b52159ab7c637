"""Solo Tea, Scones and Arsenic: mean score of ``solo-optimal`` against the
game's ``rules`` bot, on the same chance streams (game i uses seed i for
both), with 95% confidence intervals and the slowest move.

    .venv/bin/python benchmarks/tsa_solo.py [-n 200] [--threshold 10] [--bound]

``--bound`` also computes the clairvoyant upper bound exactly (about a minute).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

import apothecary
from apothecary.bots.solvers.tsa_solo import SoloOptimalBot, clairvoyant_bound
from apothecary.core.bot import Bot, game_bots
from apothecary.core.game import sample_chance


def play(bot: Bot, seed: int) -> tuple[float, float]:
    """One solo game: its score and the slowest move in seconds."""
    state = bot.game.new_initial_state()
    rng = random.Random(seed)
    slowest = 0.0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        start = time.perf_counter()
        action = bot.step(state)
        slowest = max(slowest, time.perf_counter() - start)
        state.apply_action(action)
    outcome = state.outcome()
    assert outcome is not None
    return outcome.scores[0], slowest


def main() -> None:
    """Play both bots and print the table row."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--threshold", type=int, default=10)
    parser.add_argument("--bound", action="store_true")
    args = parser.parse_args()
    if args.bound:
        print(f"clairvoyant upper bound: {clairvoyant_bound():.6f}", flush=True)
    if args.n < 2:
        return
    game = apothecary.load("tea-scones-arsenic", players=1)
    rules = game_bots("tea-scones-arsenic")["rules"].factory

    def make(name: str, seed: int) -> Bot:
        if name == "rules":
            return rules(game, 0, seed)
        return SoloOptimalBot(game, 0, seed, threshold=args.threshold)

    for name in ("rules", "solo-optimal"):
        results = [play(make(name, seed), seed) for seed in range(args.n)]
        scores = [r[0] for r in results]
        mean = statistics.fmean(scores)
        half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
        full = sum(s == 31 for s in scores) / len(scores)
        dead = sum(s == 0 for s in scores)
        print(
            f"{name}: n={args.n} mean {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] "
            f"31 in {full:.1%}, deaths {dead}, slowest move {max(r[1] for r in results):.2f}s",
            flush=True,
        )


if __name__ == "__main__":
    main()
