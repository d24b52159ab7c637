"""Random playouts on the batch engines, beside the scalar engine and OpenSpiel's C++ loop.

    python benchmarks/batch.py [--seconds S] [--sizes 1,64,1024,4096]
        [--write docs/performance.md]

For each game with a batch engine, at its usual table sizes, one run
measures: the scalar engine under benchmarks/playout.py's driver loop (random
legal action, chance drawn by its probabilities), then the numpy batch engine
at each batch size, each game of the batch taking a random legal action per
step (``apothecary.batch.random_legal_actions``, part of the measured time),
without and with every seat's observation tensor built at every step (into
one buffer, ``observation(state, out=...)``, as a training loop would).
OpenSpiel's C++ ``kuhn_poker`` under the same Python driver loop is measured
first and last (with ``open_spiel`` installed), as in playout.py.

Actions are counted as the scalar engine counts them: decisions and chance
events (a Poison Pot slide's step is two, the slide and its draw, as is a
Tea, Scones and Arsenic draw by kind, the draw and its dose; a Little Drop
of Poison step that ends a poison round is also its deals); the step that
restarts a finished game is not an action, but its opening chance events
(Little Drop of Poison's king, peasants and deals) are. One process, one core: numpy
here uses no threads for these element-wise programs. Every rate is on the
process's CPU time (``time.process_time``), not wall time: on a shared
machine a process is often waiting for a core, and a batch step of several
milliseconds waited through would be counted against the batch alone.
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import apothecary
from apothecary import batch
from playout import playout_rate, replace_between

CONFIGURATIONS: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("in-vino-morte", 4, {}),
    ("in-vino-morte", 9, {}),
    ("in-vino-morte", 4, {"cheese": True}),
    ("poison-pot", 2, {}),
    ("poison-pot", 3, {}),
    ("tea-scones-arsenic", 2, {}),
    ("tea-scones-arsenic", 4, {}),
    ("tea-scones-arsenic", 6, {"little_spoon": True}),
    ("little-drop-of-poison", 4, {}),
    ("little-drop-of-poison", 8, {}),
)
SIZES = (1, 64, 1024, 4096)


def batch_rate(engine: batch.BatchGame[Any], size: int, seconds: float, observe: bool) -> float:
    """Actions per second of random playouts over a batch of ``size`` games."""
    rng = np.random.default_rng(0)
    state = engine.init(0, size)
    buffer = np.empty((size, engine.num_players, engine.observation_tensor_size()), np.float32)
    actions = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        new = engine.step(state, batch.random_legal_actions(state.legal_action_mask, rng))
        if observe:
            engine.observation(new, out=buffer)
        live = ~state.terminated
        # The chance events of the step: a restarted game's are its opening ones.
        actions += int(live.sum()) + int((new.draws - np.where(live, state.draws, 0)).sum())
        state = new
        if time.process_time() >= deadline:
            break
    return actions / (time.process_time() - start)


def measure_batches(seconds: float, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """One row per configuration: the scalar rate, and per size both batch rates."""
    rows = []
    for name, players, options in CONFIGURATIONS:
        game = apothecary.load(name, players=players, **options)
        engine = batch.load(name, players=players, **options)
        row: dict[str, Any] = {
            "game": name,
            "players": players,
            "options": ", ".join(f"{k}={v}" for k, v in options.items()) or "-",
            "scalar": playout_rate(game.new_initial_state, seconds, clock=time.process_time),
        }
        for size in sizes:
            row[size] = batch_rate(engine, size, seconds, observe=False)
            row[("obs", size)] = batch_rate(engine, size, seconds, observe=True)
        rows.append(row)
    return rows


def kuhn_rate(seconds: float) -> float | None:
    """OpenSpiel's C++ kuhn_poker under playout.py's loop, or None without OpenSpiel."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("kuhn_poker")
    return playout_rate(game.new_initial_state, seconds, clock=time.process_time)


def batch_table(rows: list[dict[str, Any]], sizes: tuple[int, ...], kuhn: float | None) -> str:
    """Markdown: per configuration the scalar rate, then per batch size the
    batch's rate and its ratio to the scalar engine (and to the C++ loop)."""
    head = "| game | players | options | scalar actions/s |"
    rule = "| --- | ---: | --- | ---: |"
    for size in sizes:
        head += f" batch {size:,} |"
        rule += " ---: |"
    lines = [head, rule]
    for row in rows:
        for observe in (False, True):
            mode = "+ observation" if observe else "mask only"
            cells = f"| {row['game']} | {row['players']} | {row['options']}, {mode} |"
            cells += f" {row['scalar']:,.0f} |"
            for size in sizes:
                rate = row[("obs", size) if observe else size]
                ratio = f"{rate / row['scalar']:.1f}× scalar"
                if kuhn:
                    ratio += f", {rate / kuhn:.2f}× C++"
                cells += f" {rate:,.0f} ({ratio}) |"
            lines.append(cells)
    if kuhn:
        lines += [
            "",
            f"C++ is OpenSpiel's kuhn_poker under the same Python driver loop, {kuhn:,.0f} "
            "actions/s (the mean of its runs before and after).",
        ]
    return "\n".join(lines)


def main() -> None:
    """Measure, print, and optionally write the figures into a docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument(
        "--sizes",
        type=lambda text: tuple(int(part) for part in text.split(",")),
        default=SIZES,
        help="batch sizes, comma-separated",
    )
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    args = parser.parse_args()
    before = kuhn_rate(args.seconds)
    rows = measure_batches(args.seconds, args.sizes)
    after = kuhn_rate(args.seconds)
    kuhn = None if before is None or after is None else (before + after) / 2
    text = batch_table(rows, args.sizes, kuhn)
    machine = (
        f"{date.today()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}; {args.seconds:g} s of CPU time per measurement"
    )
    print(machine)
    print(text)
    if args.write:
        page = args.write.read_text(encoding="utf-8")
        page = replace_between(
            page, "<!-- batch:begin -->", "<!-- batch:end -->", f"{machine}\n\n{text}"
        )
        args.write.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
