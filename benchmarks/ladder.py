"""The strength ladder: every difficulty level against the weaker ones, with think times.

    python benchmarks/ladder.py GAME [--players N] [-n GAMES] [--games-for LEVEL=N ...]
        [--seed S] [--workers W]

For each pair (stronger, weaker) of random < easy < medium < hard, the
stronger bot sits in one seat and the weaker fills the others, seats rotated
game by game; its win rate is compared with parity (1/N, what it would win if
it were no better). Think time is the median (and 95th percentile) of
``step`` over positions met in seeded random play. Output is a markdown table
for docs/bots.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import apothecary
from apothecary import bots
from apothecary.arena import run_match
from apothecary.testing import decision_positions

LADDER = ("random", "easy", "medium", "hard")


def think_times(game_name: str, players: int, level: str, positions: int, seed: int) -> list[float]:
    """Seconds per decision of ``level`` over positions from seeded random play."""
    game = apothecary.load(game_name, players=players)
    times: list[float] = []
    for index, state in enumerate(decision_positions(game, positions, random.Random(seed), 0.25)):
        bot = bots.load(level, game, state.current_player(), seed=index)
        start = time.perf_counter()
        bot.step(state)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    """Run the ladder for one game and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int)
    parser.add_argument("-n", "--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--positions", type=int, default=60, help="for think times")
    parser.add_argument("--levels", default=",".join(LADDER), help="comma-separated, weakest first")
    parser.add_argument(
        "--games-for",
        action="append",
        default=[],
        metavar="LEVEL[:WEAKER]=N",
        help="games for the pairs LEVEL plays as the stronger, or for one pair",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="STRONGER:WEAKER",
        help="play only these pairs (repeatable); default every pair",
    )
    args = parser.parse_args()
    games_for = {level: int(n) for level, n in (item.split("=") for item in args.games_for)}

    def pair_games(strong: str, weak: str) -> int:
        return games_for.get(f"{strong}:{weak}", games_for.get(strong, args.games))

    players = args.players or apothecary.game_class(args.game).info.default_players
    ladder = args.levels.split(",")
    described = bots.levels(args.game)
    print(f"{args.game}, {players} players, seed {args.seed}\n")
    print("| level | plays | median think time | 95th percentile |")
    print("| --- | --- | ---: | ---: |")
    for level in ladder:
        what = "uniformly random" if level == "random" else described[level].help
        times = think_times(args.game, players, level, args.positions, args.seed)
        median, high = statistics.median(times), statistics.quantiles(times, n=20)[-1]
        print(f"| {level} | {what} | {median * 1000:.1f} ms | {high * 1000:.1f} ms |", flush=True)
    parity = 1 / players
    print("\n| stronger | weaker | games | stronger's win rate (95% CI) | parity | above parity |")
    print("| --- | --- | ---: | --- | ---: | --- |")
    for i, weak in enumerate(ladder):
        for strong in ladder[i + 1 :]:
            if args.only and f"{strong}:{weak}" not in args.only:
                continue
            result = run_match(
                args.game,
                players=players,
                bots=[strong, weak],
                games=pair_games(strong, weak),
                seed=args.seed,
                workers=args.workers,
            )
            rate, low, high = result.by_bot[strong].win_rate()
            verdict = "yes" if low > parity else ("no (below)" if high < parity else "not shown")
            print(
                f"| {strong} | {weak} | {pair_games(strong, weak)} | "
                f"{rate:.3f} [{low:.3f}, {high:.3f}] | {parity:.3f} | "
                f"{verdict} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
