"""Solo Tea, Scones and Arsenic: the exact optimum, the ``solo-optimal`` bot's
measured mean over seeded games with its 95% interval (which should contain
the optimum), the ``rules`` bot on the same chance streams, and the
clairvoyant upper bound with the gaps between them.

    .venv/bin/python benchmarks/tsa_solo.py [-n 10000] [--rules N] [--bound]

Game i uses chance seed i for every bot. The exact table is loaded from the
cache (or solved first, a few minutes; ``apothecary solve tea-scones-arsenic
--players 1`` does the same and prints the time). ``--bound`` computes the
clairvoyant bound exactly (about a minute and a half).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

import apothecary
from apothecary.core.bot import Bot, game_bots
from apothecary.core.game import sample_chance
from apothecary.games.tea_scones_arsenic.solo import SoloOptimalBot, clairvoyant_bound
from apothecary.games.tea_scones_arsenic.solo_table import obtain


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


def report(name: str, results: list[tuple[float, float]], exact: float) -> None:
    """Print one bot's row: mean with its 95% normal interval, and more."""
    scores = [r[0] for r in results]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
    inside = "contains" if mean - half <= exact <= mean + half else "MISSES"
    print(
        f"{name}: n={len(scores)} mean {mean:.4f} [{mean - half:.4f}, {mean + half:.4f}] "
        f"({inside} the optimum; mean - optimum {mean - exact:+.4f}), "
        f"31 in {sum(s == 31 for s in scores) / len(scores):.1%}, "
        f"deaths {sum(s == 0 for s in scores)}, slowest move {max(r[1] for r in results):.4f} s",
        flush=True,
    )


def main() -> None:
    """Solve (or load), play, print."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", type=int, default=10_000, help="games of solo-optimal")
    parser.add_argument("--rules", type=int, default=0, help="games of the rules bot")
    parser.add_argument("--bound", action="store_true", help="compute the clairvoyant bound")
    args = parser.parse_args()
    solution = obtain()
    exact = float(solution.value)
    print(f"exact optimum: {exact:.12f} (table solved in {solution.seconds:.1f} s)", flush=True)
    game = apothecary.load("tea-scones-arsenic", players=1)
    if args.n > 1:
        start = time.perf_counter()
        bot = SoloOptimalBot(game, 0, solution=solution)
        results = [play(bot, seed) for seed in range(args.n)]
        report("solo-optimal", results, exact)
        print(f"  ({time.perf_counter() - start:.1f} s)", flush=True)
    if args.rules > 1:
        rules = game_bots("tea-scones-arsenic")["rules"].factory
        results = [play(rules(game, 0, seed), seed) for seed in range(args.rules)]
        report("rules", results, exact)
    if args.bound:
        bound = clairvoyant_bound()
        print(f"clairvoyant bound: {bound:.9f}; gap to the optimum {bound - exact:.9f}")


if __name__ == "__main__":
    main()
