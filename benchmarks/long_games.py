"""Costs per action in long games: time and memory at 1,000, 10,000 and 100,000 actions.

    .venv/bin/python benchmarks/long_games.py [--lengths 1000,10000,100000]
        [--games in-vino-morte,...] [--write docs/performance.md]

For every game, one seeded game is played to each length in a fresh
subprocess (so memory is measured from a clean start, and a blow-up stops
at a 4 GB address-space limit instead of taking the machine with it), and
these are measured, each divided by the number of actions (times in CPU
seconds of that process, the best of three freshly played games):

- **play**: applying the actions (chance drawn from a seeded rng, the
  random mover's choices included);
- **record**: ``Record.from_state`` (which writes the notation by replaying
  the game) and replaying the record;
- **info state**: one ``information_state_string`` per seat at the end;
- **state** memory: what the state holds (tracemalloc, after a garbage
  collection), before and after those information-state calls;
- **pickle**: the pickled state's size (a state pickles as its history).

Costs that stay flat as the length grows tenfold are linear in the game's
length; a figure that grows with the length is a quadratic cost.

Long games are forced with the games' own options and scripted lines:

- In Vino Morte: four players with Cheese and no round limit, every round
  dealt Poison with Cheese to the dealer's left and Wine to the others, and
  everyone drinks, so nobody ever dies;
- Little Drop of Poison: three players, a small deck in which kills are rare
  (``blue:4x1,1x3;antidote(blue):3;universal:2``), target and round limits
  1,000, random play;
- Poison Pot and Tea, Scones and Arsenic cannot be made long: a Poison Pot
  game is three actions per cauldron (180 at most, on the radius-4 board),
  and a Tea, Scones and Arsenic game is bounded by its scones (492 actions at
  most, at six players). They are measured once, at the end of a random game
  on their largest setting, for comparison.
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import platform
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import apothecary
from apothecary import Record
from apothecary.core.game import Game, State, sample_chance
from apothecary.games.in_vino_morte import rules as ivm
from playout import replace_between

LENGTHS = (1_000, 10_000, 100_000)
REPEATS = 3
MEMORY_LIMIT = 4 * 1024**3
"""Address-space limit of each measuring subprocess, in bytes."""

SMALL_DECK = "blue:4x1,1x3;antidote(blue):3;universal:2"


def random_mover(rng: random.Random) -> Callable[[State], int]:
    """Uniformly random actions, chance by its probabilities."""

    def move(state: State) -> int:
        if state.is_chance_node():
            return sample_chance(state, rng)
        return rng.choice(state.legal_actions())

    return move


def nobody_dies(rng: random.Random) -> Callable[[State], int]:
    """In Vino Morte with Cheese: the round's first glass is Poison with Cheese
    (its drinker is spared by the reversal), the rest Wine, and all drink."""
    del rng

    def move(state: State) -> int:
        assert isinstance(state, ivm.InVinoMorteState)
        if state.phase == ivm.DEAL_PHASE:
            return ivm.DEAL_POISON_CHEESE if state.step == 0 else ivm.DEAL_WINE
        return ivm.DRINK

    return move


# name: (players, options, mover, longest it can be made or None)
SETUPS: dict[str, tuple[int, dict[str, Any], Callable[[random.Random], Any], int | None]] = {
    "in-vino-morte": (4, {"cheese": True, "round_limit": 0}, nobody_dies, None),
    "little-drop-of-poison": (
        3,
        {
            "deck": SMALL_DECK,
            "target": 1000,
            "max_poison_rounds": 1000,
            "max_assassination_rounds": 1000,
        },
        random_mover,
        None,
    ),
    "poison-pot": (3, {"radius": 4}, random_mover, 180),
    "tea-scones-arsenic": (6, {}, random_mover, 492),
}


def make(name: str) -> tuple[Game, Callable[[State], int]]:
    """The game of ``name`` set up for long games, and its seeded mover."""
    players, options, mover, _ = SETUPS[name]
    return apothecary.load(name, players, **options), mover(random.Random(f"long:{name}"))


def play(game: Game, move: Callable[[State], int], length: int) -> State:
    """A state after ``length`` actions (or at the end, if the game ends first)."""
    state = game.new_initial_state()
    while state.move_number() < length and not state.is_terminal():
        state.apply_action(move(state))
    return state


def held(build: Callable[[], Any]) -> tuple[Any, int]:
    """What ``build()`` returns and the bytes it holds once built (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        value = build()
        gc.collect()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, size


def one_run(name: str, length: int) -> tuple[State, dict[str, float], tuple[int, int]]:
    """A freshly played game of ``name`` to ``length`` actions; the CPU seconds
    (this process only: the machines are shared) of playing it, of its record
    and of one information state per seat; its pickled size before and after."""
    game, move = make(name)
    start = time.process_time()
    state = play(game, move, length)
    played = time.process_time()
    Record.from_state(state).replay(game=game)
    recorded = time.process_time()
    before = len(pickle.dumps(state))
    infostate_start = time.process_time()
    for seat in range(game.num_players):
        state.information_state_string(seat)
    done = time.process_time()
    seconds = {
        "play": played - start,
        "record": recorded - played,
        "infostate": done - infostate_start,
    }
    return state, seconds, (before, len(pickle.dumps(state)))


def measure_one(name: str, length: int) -> dict[str, Any]:
    """Every figure for one game played to ``length`` actions (run in a subprocess).

    Times are the best of :data:`REPEATS` runs, each on a freshly played game
    (a second information-state call on the same state would be a cache hit).
    """
    runs = [one_run(name, length) for _ in range(REPEATS)]
    state, _, (pickled_before, pickled_after) = runs[-1]
    played, recorded, infostate = (
        min(r[1][key] for r in runs) for key in ("play", "record", "infostate")
    )
    n = state.move_number()
    seats = range(state.game.num_players)
    del runs, state
    # Memory: the same game again, under tracemalloc (which slows it down).
    game, move = make(name)
    state, before = held(lambda: play(game, move, length))

    def ask_every_seat() -> None:
        # What the state keeps after this is what the calls added to it
        # (the strings themselves are dropped).
        for seat in seats:
            state.information_state_string(seat)

    _, after = held(ask_every_seat)
    return {
        "game": name,
        "players": state.game.num_players,
        "length": n,
        "play_us": 1e6 * played / n,
        "record_us": 1e6 * recorded / n,
        "infostate_us": 1e6 * infostate / n,
        "state_bytes": before / n,
        "infostate_bytes": after / n,
        "kept_bytes": after,
        "pickle_before": pickled_before,
        "pickle_after": pickled_after,
    }


def run_one(name: str, length: int) -> dict[str, Any]:
    """:func:`measure_one` in a fresh interpreter with a memory limit."""
    command = [sys.executable, __file__, "--one", name, str(length)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"game": name, "length": length, "failed": tail}
    row: dict[str, Any] = json.loads(done.stdout)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The figures as a markdown table."""
    lines = [
        "| game | players | actions | play µs/action | record µs/action | "
        "info states µs/action | state bytes/action | + info states bytes/action | "
        "pickle bytes (before / after info states) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        if "failed" in row:
            lines.append(f"| {row['game']} | | {row['length']:,} | failed: {row['failed']} |")
            continue
        lines.append(
            f"| {row['game']} | {row['players']} | {row['length']:,} | {row['play_us']:.1f} | "
            f"{row['record_us']:.1f} | {row['infostate_us']:.2f} | {row['state_bytes']:.0f} | "
            f"{row['infostate_bytes']:.0f} | {row['pickle_before']:,} / {row['pickle_after']:,} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure every game at every length, print, and optionally write a docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)))
    parser.add_argument("--games", default=",".join(SETUPS))
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    parser.add_argument("--one", nargs=2, metavar=("GAME", "LENGTH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        print(json.dumps(measure_one(args.one[0], int(args.one[1]))))
        return
    lengths = [int(x) for x in args.lengths.split(",")]
    rows = []
    for name in args.games.split(","):
        longest = SETUPS[name][3]
        wanted = lengths if longest is None else [longest]
        for length in wanted:
            row = run_one(name, length)
            print(json.dumps(row), flush=True)
            rows.append(row)
    text = table(rows)
    print(text)
    if args.write:
        machine = (
            f"Measured {date.today()} on {platform.machine()}, Python {platform.python_version()}."
        )
        page = args.write.read_text(encoding="utf-8")
        page = replace_between(
            page, "<!-- long-games:begin -->", "<!-- long-games:end -->", f"{machine}\n\n{text}"
        )
        args.write.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
