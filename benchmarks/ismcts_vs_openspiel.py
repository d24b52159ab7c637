"""Our ISMCTS side by side with OpenSpiel's Python ISMCTSBot, through the OpenSpiel adapter.

    python benchmarks/ismcts_vs_openspiel.py [--seconds-per-move 0.1] [--games N]
        [--only GAME] [--rollout BOT] [--write docs/performance.md [--marker NAME]]

1. Simulations per second: both bots search the same positions (taken from
   seeded random play) with the same number of simulations, taking turns
   position by position; the ratio of the rates is reported.
2. Head-to-head at equal wall-clock time per move: our bot gets a time budget
   of S seconds a move; OpenSpiel's bot, which has no time budget, gets the
   number of simulations it managed in S seconds in part 1. Every assignment
   of the two bots to the seats (both present) is played equally often with
   the same chance seeds, so parity is a 50% share of the wins. The number of
   games differs by game (GAMES below): short games get many, so that every
   interval says something within about 25 minutes for the whole run.

``--rollout rules`` gives our bot its playout policy option (the game's rules
bot plays the playouts) for the head-to-head; OpenSpiel's keeps its random
rollouts. That compares what each bot offers out of the box, not the same
algorithm, and is reported apart from the default run.

Poison Pot has perfect information, which OpenSpiel's ISMCTSBot refuses; it is
compared with OpenSpiel's MCTSBot there. Needs ``pip install -e '.[rl]'``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import time
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-not-found,import-untyped,unused-ignore]

import apothecary
from apothecary import bots
from apothecary.arena.match import wilson
from apothecary.interop import openspiel

TABLES = {
    "in-vino-morte": 3,
    "little-drop-of-poison": 3,
    "poison-pot": 2,
    "tea-scones-arsenic": 3,
}
# Long games (Little Drop of Poison plays to 10 points) are shortened for the
# head-to-head so that both bots' random rollouts stay affordable.
SHORTER: dict[str, dict[str, Any]] = {"little-drop-of-poison": {"target": 4}}
# Head-to-head games per game at 0.1 s a move, multiples of the number of
# mixed seatings (6 for three players, 2 for two): about 23 minutes in all on
# a busy 2-core machine. In Vino Morte lasts a few moves, Little Drop of
# Poison over a hundred.
GAMES = {
    "in-vino-morte": 360,
    "tea-scones-arsenic": 144,
    "poison-pot": 24,
    "little-drop-of-poison": 72,
}
UCT_C = 0.7


def openspiel_bot(game: Any, simulations: int, seed: int) -> Any:
    """OpenSpiel's Python search bot for ``game`` with a simulation budget."""
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        return mcts.MCTSBot(game, UCT_C, simulations, evaluator, random_state=rng)
    return ismcts.ISMCTSBot(game, evaluator, UCT_C, simulations, random_state=rng)


def positions(game: Any, count: int, seed: int) -> list[Any]:
    """Decision positions with a real choice, from seeded random play."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            if len(state.legal_actions()) > 1 and rng.random() < 0.3:
                found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return found


def simulation_rates(game: Any, spots: list[Any], simulations: int) -> tuple[float, float]:
    """Simulations per second of (ours, OpenSpiel's) on the same positions."""
    ours_time = theirs_time = 0.0
    for index, spot in enumerate(spots):
        seat = spot.current_player()
        ours = bots.ISMCTSBot(
            spot.apothecary_state.game,
            seat,
            seed=index,
            iterations=simulations,
            exploration=UCT_C,
        )
        start = time.perf_counter()
        ours.step(spot.apothecary_state)
        ours_time += time.perf_counter() - start
        theirs = openspiel_bot(game, simulations, index)
        start = time.perf_counter()
        theirs.step(spot.clone())
        theirs_time += time.perf_counter() - start
    total = simulations * len(spots)
    return total / ours_time, total / theirs_time


def head_to_head(
    game: Any,
    seconds: float,
    their_simulations: int,
    games: int,
    seed: int,
    rollout: str = "random",
) -> tuple[float, float, float, int, float]:
    """Our share of the wins over every mixed seating: (share, low, high, games
    played, our mean iterations a searched move)."""
    players = game.num_players()
    seatings = [
        s for s in itertools.product((True, False), repeat=players) if any(s) and not all(s)
    ]
    ours_wins = theirs_wins = 0.0
    played = 0
    searched: list[int] = []
    for round_index in range(max(1, games // len(seatings))):
        for seating in seatings:
            rng = random.Random(f"{seed}:{round_index}")  # the same chance for every seating
            seats: list[Any] = []
            for seat, is_ours in enumerate(seating):
                if is_ours:
                    bot = bots.load(
                        "ismcts",
                        game.apothecary_game,
                        seat,
                        seed=rng.getrandbits(32),
                        seconds=seconds,
                        exploration=UCT_C,
                        rollout=rollout,
                    )
                    seats.append(openspiel.SpielBot(bot))
                else:
                    seats.append(openspiel_bot(game, their_simulations, rng.getrandbits(32)))
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(actions, probs)[0])
                else:
                    seat = state.current_player()
                    state.apply_action(int(seats[seat].step(state)))
                    if seating[seat]:
                        iterations = seats[seat].bot.last_iterations
                        if iterations:  # 0: a forced move, not searched
                            searched.append(iterations)
            returns = state.returns()
            ours_wins += sum(r for r, mine in zip(returns, seating, strict=True) if mine)
            theirs_wins += sum(r for r, mine in zip(returns, seating, strict=True) if not mine)
            played += 1
    decided = ours_wins + theirs_wins
    share, low, high = wilson(ours_wins, round(decided)) if decided else (float("nan"),) * 3
    mean_iterations = sum(searched) / len(searched) if searched else float("nan")
    return share, low, high, played, mean_iterations


def main() -> None:
    """Measure every game and print (or write) a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds-per-move", type=float, default=0.1)
    parser.add_argument(
        "--games", type=int, help="head-to-head games for every game (default: GAMES)"
    )
    parser.add_argument("--simulations", type=int, default=200, help="per position, part 1")
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--only", help="one game name")
    parser.add_argument("--rollout", default="random", help="our playout policy (a bot name)")
    parser.add_argument("--write", help="replace the figures in this markdown file")
    parser.add_argument("--marker", default="ismcts", help="which <!-- NAME:begin --> block")
    args = parser.parse_args()
    openspiel.register()
    rows = []
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    for name in apothecary.games():
        if args.only and name != args.only:
            continue
        players = TABLES.get(name, apothecary.game_class(name).info.default_players)
        game = openspiel.load(name, players=players, **SHORTER.get(name, {}))
        spots = positions(game, args.positions, seed=1)
        ours_rate, their_rate = simulation_rates(game, spots, args.simulations)
        budget = max(1, round(their_rate * args.seconds_per_move))
        games = args.games if args.games is not None else GAMES.get(name, 24)
        share, low, high, played, ours_per_move = head_to_head(
            game, args.seconds_per_move, budget, games, seed=2, rollout=args.rollout
        )
        opponent = "MCTSBot" if name == "poison-pot" else "ISMCTSBot"
        rows.append(
            f"| {name} | {players} | {opponent} | {ours_rate:,.0f} | {their_rate:,.0f} | "
            f"{ours_rate / their_rate:.1f}x | {ours_per_move:,.0f} / {budget:,} | {played} | "
            f"{share:.2f} [{low:.2f}, {high:.2f}] |"
        )
        print(rows[-1], f"({time.perf_counter() - started:.0f} s so far)", flush=True)
    minutes = (time.perf_counter() - started) / 60
    load_after = os.getloadavg()[0]
    table = "\n".join(
        [
            f"{time.strftime('%Y-%m-%d')}, one run of {minutes:.0f} minutes (load average "
            f"{load_before:.1f} at the start, {load_after:.1f} at the end): "
            f"{args.simulations} simulations on each of {args.positions} positions a game "
            f"for the rates; head-to-head at {args.seconds_per_move:g} s a move"
            + ("." if args.rollout == "random" else f", our playouts by `{args.rollout}`."),
            "",
            "| game | players | OpenSpiel bot | ours sims/s | OpenSpiel sims/s | ratio "
            "| sims a move (ours / OpenSpiel's) | games | our win share (95% CI) |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |",
            *rows,
        ]
    )
    print(table)
    if args.write:
        from pathlib import Path

        begin, end = f"<!-- {args.marker}:begin -->", f"<!-- {args.marker}:end -->"
        path = Path(args.write)
        page = path.read_text(encoding="utf-8")
        if begin not in page:
            page += f"\n{begin}\n{end}\n"
        head, _, rest = page.partition(begin)
        _, _, tail = rest.partition(end)
        path.write_text(f"{head}{begin}\n{table}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
