"""Random-playout speed and clone cost for every game, next to OpenSpiel's Kuhn poker.

    python benchmarks/playout.py [--seconds S] [--write docs/performance.md]

The same Python driver loop runs over every game here and over OpenSpiel's
C++ ``kuhn_poker`` (the floor the Python driver itself sets) and its Python
``python_kuhn_poker``, in one run, so the ratios compare like with like on
whatever the machine is doing. Needs ``pip install open_spiel`` for the
reference rows; without it they are left out.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
import timeit
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import apothecary

# Player counts worth measuring per game (its common tables).
COMMON_PLAYERS = {
    "in-vino-morte": (3, 5, 9),
    "little-drop-of-poison": (3, 5, 8),
    "poison-pot": (2, 3),
    "tea-scones-arsenic": (1, 2, 4, 6),
}


def playout_rate(new_state: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Actions per second (chance included) of uniformly random playouts."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r = rng.random()
                total = 0.0
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if r < total:
                        action = outcome
                        break
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            actions += 1
    return actions / (time.perf_counter() - start)


def mid_game(new_state: Callable[[], Any], seed: int = 1) -> Any:
    """A state about half-way through a random game."""
    rng = random.Random(seed)
    trajectory = []
    state = new_state()
    while not state.is_terminal():
        trajectory.append(state.clone())
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return trajectory[len(trajectory) // 2]


def clone_microseconds(state: Any) -> float:
    """Best-of-5 mean time of one ``clone()``, in microseconds."""
    timer = timeit.Timer(state.clone)
    number, _ = timer.autorange()
    return min(timer.repeat(5, number)) / number * 1e6


def measure(seconds: float) -> list[dict[str, Any]]:
    """One row per game configuration and reference game."""
    rows: list[dict[str, Any]] = []
    try:
        import pyspiel  # type: ignore[import-not-found]
        from open_spiel.python.games import kuhn_poker  # noqa: F401  (registers it)
    except ImportError:
        pyspiel = None
    if pyspiel is not None:
        for name in ("kuhn_poker", "python_kuhn_poker"):
            game = pyspiel.load_game(name)
            rows.append(
                {
                    "game": f"OpenSpiel {name}",
                    "players": 2,
                    "rate": playout_rate(game.new_initial_state, seconds),
                    "clone": clone_microseconds(mid_game(game.new_initial_state)),
                }
            )
    for name in apothecary.games():
        for players in COMMON_PLAYERS.get(name, (apothecary.game_class(name).info.default_players,)):
            game = apothecary.load(name, players=players)
            rows.append(
                {
                    "game": name,
                    "players": players,
                    "rate": playout_rate(game.new_initial_state, seconds),
                    "clone": clone_microseconds(mid_game(game.new_initial_state)),
                }
            )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown table with ratios to OpenSpiel's C++ Kuhn poker loop."""
    floor = next((r["rate"] for r in rows if r["game"] == "OpenSpiel kuhn_poker"), None)
    lines = [
        "| game | players | actions/s | vs C++ kuhn_poker loop | clone (µs) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        ratio = f"{row['rate'] / floor:.2f}" if floor else "n/a"
        lines.append(
            f"| {row['game']} | {row['players']} | {row['rate']:,.0f} | {ratio} | "
            f"{row['clone']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure, print, and optionally write the figures into a docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration")
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    args = parser.parse_args()
    rows = measure(args.seconds)
    text = table(rows)
    machine = (
        f"{date.today()}, Python {platform.python_version()}, {platform.machine()}, "
        f"{platform.processor() or 'cpu'}; {args.seconds:g} s per configuration"
    )
    print(machine)
    print(text)
    if args.write:
        begin, end = "<!-- playout:begin -->", "<!-- playout:end -->"
        page = args.write.read_text(encoding="utf-8")
        head, _, rest = page.partition(begin)
        _, _, tail = rest.partition(end)
        args.write.write_text(
            f"{head}{begin}\n{machine}\n\n{text}\n{end}{tail}", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
