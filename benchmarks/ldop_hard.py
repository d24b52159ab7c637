"""Little Drop of Poison: one bot against a table of rules bots, win share and think time.

    python benchmarks/ldop_hard.py [--bot hard] [--players 4,6] [-n GAMES] [--seed S]

For each table size, ``GAMES`` games of the bot in one seat and ``rules`` bots
in the others, the bot's seat rotated game by game (game i seats it at
``i % players``); game i draws its chance and bot seeds from ``(seed, i)``
alone, so a run is reproducible. Prints the bot's win share with its 95%
Wilson interval against parity (1/players), and the median and 90th
percentile of its think time per decision it was asked for (every step of
its turns, those with one legal action included, timed in the real games).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import apothecary
from apothecary import bots
from apothecary.arena.match import wilson
from apothecary.core.game import sample_chance

GAME = "little-drop-of-poison"


def play(bot: str, players: int, index: int, seed: int) -> tuple[float, list[float]]:
    """Game ``index``: the bot's win share and its think times (seconds)."""
    game = apothecary.load(GAME, players=players)
    rng = random.Random(f"{seed}:{players}:{index}")
    hero = index % players
    seats = [
        bots.load(bot if seat == hero else "rules", game, seat, seed=rng.getrandbits(32))
        for seat in range(players)
    ]
    state = game.new_initial_state()
    times: list[float] = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = state.current_player()
        start = time.perf_counter()
        action = seats[player].step(state)
        if player == hero:
            times.append(time.perf_counter() - start)
        state.apply_action(action)
    returns = state.returns()
    # returns are win shares: 1/k to each of k tied winners.
    return returns[hero], times


def main() -> None:
    """Run the tables and print one markdown row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="hard")
    parser.add_argument("--players", default="4,6")
    parser.add_argument("-n", "--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.bot} against rules bots, {args.games} games a table, seed {args.seed}\n")
    print("| players | parity | win share (95% CI) | above parity | think median | 90th pct. |")
    print("| ---: | ---: | --- | --- | ---: | ---: |")
    for players in (int(p) for p in args.players.split(",")):
        wins = 0.0
        times: list[float] = []
        for index in range(args.games):
            share, spent = play(args.bot, players, index, args.seed)
            wins += share
            times += spent
        rate, low, high = wilson(wins, args.games)
        parity = 1 / players
        verdict = "yes" if low > parity else ("no (below)" if high < parity else "not shown")
        median = statistics.median(times)
        p90 = statistics.quantiles(times, n=10)[-1]
        print(
            f"| {players} | {parity:.3f} | {rate:.3f} [{low:.3f}, {high:.3f}] | {verdict} | "
            f"{median * 1000:.1f} ms | {p90 * 1000:.1f} ms |",
            flush=True,
        )


if __name__ == "__main__":
    main()
