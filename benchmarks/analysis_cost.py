"""What an analysis costs: one game of each table played by the medium bots
(chance seed 1), then every decision valued as ``apothecary analyse`` does,
in this process, reporting decisions, how many were exact, and seconds.

    .venv/bin/python benchmarks/analysis_cost.py [--playouts 8] [--budget N] [--only GAME]

``--budget`` bounds the playouts of one decision in all, as the server does
(its analysis: 4 a move, 120 a decision). Figures are in docs/analysis.md.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace

from apothecary import analysis, bots
from apothecary.arena.match import play_game
from apothecary.core.records import Record
from apothecary.core.registry import load

TABLES = [
    ("in-vino-morte", 4, {}),
    ("in-vino-morte", 4, {"cheese": True}),
    ("tea-scones-arsenic", 1, {}),
    ("tea-scones-arsenic", 3, {}),
    ("little-drop-of-poison", 3, {}),
    ("poison-pot", 2, {}),
]


def played(name: str, players: int, options: dict[str, object], seed: int) -> Record:
    """A finished game by the medium bots."""
    game = load(name, players, **options)
    seated = [bots.load("medium", game, p, seed=seed + p) for p in range(players)]
    state = play_game(game, seated, random.Random(seed))
    return Record.from_state(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=analysis.DEFAULT_PLAYOUTS)
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--only", default=None, help="one game's name")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| table | actions | decisions | exact | seconds | seconds a decision |")
    print("|---|---|---|---|---|---|")
    for name, players, options in TABLES:
        if args.only and name != args.only:
            continue
        record = played(name, players, options, args.seed)
        positions = analysis.checked_states(record)
        game = positions[0].game
        plan = replace(analysis.plan(game, "hard", args.playouts), budget=args.budget)
        history = positions[-1].history()
        start = time.perf_counter()
        exact = count = 0
        for index, state in analysis.decisions(positions):
            decision = analysis.evaluate(state, plan, analysis.derived_seed(0, index))
            analysis.complete(decision, history[index])
            exact += decision.method == "solver"
            count += 1
        seconds = time.perf_counter() - start
        label = f"{name} {players}p" + "".join(f" {k}={v}" for k, v in options.items())
        print(
            f"| {label} | {len(record.actions)} | {count} | {exact} | {seconds:.1f} "
            f"| {seconds / max(1, count):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
