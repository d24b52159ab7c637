"""Poison Pot's ties for first and who they favour, per seat, under random,
rules and hard play.

    .venv/bin/python benchmarks/poison_pot_ties.py [--players 2] [-n 2000]
        [--levels random,medium,hard] [--games-for hard=300] [--seed 1]

The tie rule (only when two or more share the highest score, the last placer
adds 1/2 and the one before takes 1/2 away) is decided by seating: with 2
players seat 1 always places last, so every tie for first is seat 1's win. A
game had a tie for first exactly when its outcome's scores are not all whole
numbers (the half points are added only then), which the script reads from the
outcome alone. Every seat plays the same level, the seat to start is seat 0
(the rules page's setup), and game i is seeded from ``(seed, i)`` alone.

Prints, per level: games, ties for first as a share of games (95% Wilson
interval), each seat's share of the ties it won, each seat's win rate, and each
seat's win rate among the games without a tie (what the seats win on the
board). Output is Markdown for docs/study.md.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field

import apothecary
from apothecary import bots
from apothecary.arena.match import play_game, wilson

GAME = "poison-pot"


@dataclass
class TieTally:
    """Counts over the games of one level."""

    players: int
    games: int = 0
    ties: int = 0
    tie_wins: list[int] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    clean_wins: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tie_wins = [0] * self.players
        self.wins = [0.0] * self.players
        self.clean_wins = [0.0] * self.players

    def add(self, scores: list[float], returns: list[float]) -> None:
        """Count one finished game from its outcome's scores and returns."""
        self.games += 1
        tied = any(score != int(score) for score in scores)
        self.ties += tied
        for seat, share in enumerate(returns):
            self.wins[seat] += share
            if tied:
                self.tie_wins[seat] += share > 0
            else:
                self.clean_wins[seat] += share


def measure(level: str, players: int, games: int, seed: int) -> TieTally:
    """Play ``games`` games with every seat at ``level``."""
    game = apothecary.load(GAME, players=players)
    tally = TieTally(players)
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        seats = [bots.load(level, game, seat, seed=rng.getrandbits(32)) for seat in range(players)]
        state = play_game(game, seats, rng)
        outcome = state.outcome()
        assert outcome is not None
        tally.add(list(outcome.scores), state.returns())
    return tally


def main() -> None:
    """Measure every level and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("-n", "--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="random,medium,hard")
    parser.add_argument("--games-for", action="append", default=[], metavar="LEVEL=N")
    args = parser.parse_args()
    games_for = {level: int(n) for level, n in (item.split("=") for item in args.games_for)}
    seats = range(args.players)
    print(f"{GAME}, {args.players} players, seed {args.seed}\n")
    print(
        "| level | games | ties for first (95% CI) | "
        + " | ".join(f"seat {s} wins of the ties" for s in seats)
        + " | "
        + " | ".join(f"seat {s} win rate" for s in seats)
        + " | "
        + " | ".join(f"seat {s} win rate without ties" for s in seats)
        + " | seconds |"
    )
    print("|---" * (3 + 3 * args.players + 1) + "|")
    for level in args.levels.split(","):
        n = games_for.get(level, args.games)
        start = time.perf_counter()
        t = measure(level, args.players, n, args.seed)
        rate, low, high = wilson(t.ties, t.games)
        clean = t.games - t.ties
        cells = [f"{level}", f"{t.games}", f"{rate:.3f} [{low:.3f}, {high:.3f}]"]
        cells += [f"{w / t.ties:.2f}" if t.ties else "-" for w in t.tie_wins]
        cells += [f"{w / t.games:.3f}" for w in t.wins]
        cells += [f"{w / clean:.3f}" if clean else "-" for w in t.clean_wins]
        cells.append(f"{time.perf_counter() - start:.0f}")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
