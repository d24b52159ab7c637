"""Information-state tensor and OpenSpiel state costs, and OpenSpiel's random_sim_test.

    .venv/bin/python benchmarks/infostate_cost.py [--players 3,4,5,6,7,8]
        [--sims 2] [--no-sim] [--write docs/performance.md]

Little Drop of Poison's information-state tensor is about 65,000 numbers at
every player count, nearly all zeros. Per player count, one seeded random
game is played to move 1,000 (or its end, if sooner), and at that position
these are timed (microseconds of CPU time a call, the best of five repeats;
CPU time, since the machine may be shared):

- **observation**: ``observation_tensor(0)``, the yardstick;
- **infostate list**: ``information_state_tensor(0)``, the list of every number;
- **infostate array**: ``write_information_state_tensor(0, array)``, into a
  float32 NumPy array (what OpenSpiel's observer does; ``-`` where the code
  measured has no such method);
- **observer**: the OpenSpiel perfect-recall observer's ``set_from``;
- **first call**: the list call on a state just rebuilt from its history (no
  reveal has its stretch kept yet), once;
- **clone** and **deepcopy**: the OpenSpiel state's ``clone()`` and
  ``copy.deepcopy``.

Then OpenSpiel's own ``pyspiel.random_sim_test`` (``serialize=True``, which
reads every seat's information-state and observation tensors at every step)
runs ``--sims`` simulations of every game at every player count, and the
CPU seconds per simulation are printed (the game's default options; In Vino
Morte with Cheese is not among them: it needs a round limit in OpenSpiel).

To measure other code with this same script, put its ``src`` first on the
path: ``PYTHONPATH=/path/to/other/src .venv/bin/python benchmarks/infostate_cost.py``.
"""

from __future__ import annotations

import argparse
import copy
import pickle
import platform
import random
import time
import timeit
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import apothecary
from apothecary.interop import openspiel

NAME = "little-drop-of-poison"
MOVE = 1000


def position(players: int, seed: int = 0) -> Any:
    """The OpenSpiel state at move MOVE of a seeded random game (or its last one)."""
    rng = random.Random(seed)
    state = openspiel.load(NAME, players).new_initial_state()
    while len(state.history()) < MOVE:
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(actions, probabilities)[0]
        else:
            action = rng.choice(state.legal_actions())
        child = state.child(action)
        if child.is_terminal():
            break
        state = child
    return state


def microseconds(call: Callable[[], Any]) -> float:
    """Best-of-5 mean time of one call, in microseconds."""
    timer = timeit.Timer(call, timer=time.process_time)  # CPU time: the machine is shared
    number, _ = timer.autorange()
    return min(timer.repeat(5, number)) / number * 1e6


def costs(players: int) -> dict[str, Any]:
    """The per-call costs at one player count's position."""
    state = position(players)
    inner = state.apothecary_state
    game = inner.game
    array = np.zeros(game.information_state_tensor_size(), np.float32)
    observer = state.get_game().make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    rebuilt = pickle.loads(pickle.dumps(inner))
    start = time.process_time()
    rebuilt.information_state_tensor(0)
    first = (time.process_time() - start) * 1e6
    write = getattr(inner, "write_information_state_tensor", None)
    return {
        "players": players,
        "moves": len(inner.history()),
        "size": game.information_state_tensor_size(),
        "observation": microseconds(lambda: inner.observation_tensor(0)),
        "list": microseconds(lambda: inner.information_state_tensor(0)),
        "array": None if write is None else microseconds(lambda: write(0, array)),
        "observer": microseconds(lambda: observer.set_from(state, 0)),
        "first": first,
        "clone": microseconds(state.clone),
        "deepcopy": microseconds(lambda: copy.deepcopy(state)),
    }


def costs_table(rows: list[dict[str, Any]]) -> str:
    """The cost rows as a markdown table."""
    lines = [
        "| players | move | tensor size | observation (µs) | infostate list (µs) "
        "| infostate array (µs) | observer (µs) | first call (µs) | clone (µs) "
        "| deepcopy (µs) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        array = "-" if r["array"] is None else f"{r['array']:,.0f}"
        lines.append(
            f"| {r['players']} | {r['moves']:,} | {r['size']:,} | {r['observation']:,.0f} "
            f"| {r['list']:,.0f} | {array} | {r['observer']:,.0f} | {r['first']:,.0f} "
            f"| {r['clone']:,.0f} | {r['deepcopy']:,.0f} |"
        )
    return "\n".join(lines)


def random_sims(sims: int) -> list[tuple[str, int, float]]:
    """``(game, players, seconds per simulation)`` of random_sim_test, every game
    at every player count."""
    rows = []
    for name in apothecary.games():
        info = apothecary.game_class(name).info
        for players in range(info.min_players, info.max_players + 1):
            game = openspiel.load(name, players)
            start = time.process_time()
            pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
            seconds = (time.process_time() - start) / sims
            rows.append((name, players, seconds))
            print(f"  {name} {players}p: {seconds:.2f} s a simulation", flush=True)
    return rows


def sims_table(rows: list[tuple[str, int, float]]) -> str:
    """Seconds per simulation as a markdown table, a row per game."""
    counts = sorted({players for _, players, _ in rows})
    lines = [
        "| game | " + " | ".join(f"{p} players" for p in counts) + " |",
        "|---|" + "---|" * len(counts),
    ]
    for name in dict.fromkeys(name for name, _, _ in rows):
        found = {players: seconds for n, players, seconds in rows if n == name}
        cells = [f"{found[p]:.2f}" if p in found else "" for p in counts]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def replace_between(page: str, begin: str, end: str, text: str) -> str:
    """``page`` with the text between the markers ``begin`` and ``end`` replaced."""
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{text}\n{end}{tail}"


def main() -> None:
    """Measure, print, and optionally write the figures into a docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="3,4,5,6,7,8", help="player counts, comma-separated")
    parser.add_argument("--sims", type=int, default=2, help="random_sim_test simulations each")
    parser.add_argument("--no-sim", action="store_true", help="leave out random_sim_test")
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    args = parser.parse_args()
    openspiel.register()
    machine = (
        f"Measured {date.today().isoformat()} with `benchmarks/infostate_cost.py` on "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}"
    )
    print(machine)
    rows = [costs(int(p)) for p in args.players.split(",")]
    parts = {"infostate": f"{machine}\n\n{costs_table(rows)}"}
    print(costs_table(rows))
    if not args.no_sim:
        sims = sims_table(random_sims(args.sims))
        print(sims)
        parts["random-sim"] = f"{machine}, {args.sims} simulations each\n\n{sims}"
    if args.write:  # read at the end, so edits made while it measured are kept
        page = args.write.read_text(encoding="utf-8")
        for marker, text in parts.items():
            page = replace_between(page, f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->", text)
        args.write.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
