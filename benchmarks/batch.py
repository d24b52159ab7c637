"""Random playouts on the batch engines, beside the scalar engine and OpenSpiel's C++ loop.

    taskset -c 1 python benchmarks/batch.py [--seconds S] [--sizes 1,64,1024,4096]
        [--games in-vino-morte,poison-pot] [--no-jax] [--write docs/performance.md]
        [--plot docs/images/batch-cost.png]

For each game with a batch engine, at its usual table sizes, one run
measures: the scalar engine under benchmarks/playout.py's driver loop (random
legal action, chance drawn by its probabilities), then the numpy batch engine
at each batch size, each game of the batch taking a random legal action per
step (``apothecary.batch.random_legal_actions``, part of the measured time),
without and with every seat's observation tensor built at every step (into
one buffer, ``observation(state, out=...)``, as a training loop would).
OpenSpiel's C++ ``kuhn_poker`` under the same Python driver loop is measured
first and last (with ``open_spiel`` installed), as in playout.py.

With JAX installed (``[jax]``), the JAX backend (:mod:`apothecary.batch.jax`)
of each game that has one is measured at the same sizes, three ways: a
Python loop of ``step(..., check=False)`` calls with the random legal
action chosen by a jitted JAX function (the legal action with the largest
hash of the game's key, the step's number and the action: uniform, as
numpy's ``random_legal_actions``, by another rule, since XLA's CPU backend
runs cumsum and argmax slowly); the same with every
seat's observation; and a jitted rollout (``lax.scan`` over 16 steps of
choice and step, one call), which is how a JAX training loop runs. Every
JAX figure is after warm-up: the compile time (the first call of each
program) is measured separately and reported. XLA is told to use one thread
(``XLA_FLAGS``, set before JAX is imported unless already set); pin the
process with ``taskset -c 1`` as well.

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
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

# One thread for XLA (the one core), before anything imports JAX.
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

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


class JaxRunner:
    """The jitted pieces of the JAX measurements for one engine."""

    def __init__(self, engine: Any) -> None:
        import jax
        import jax.numpy as jnp

        from apothecary.batch.keys import uniform

        self.engine, self.jax, self.jnp = engine, jax, jnp

        width = engine.num_distinct_actions()
        words = -(-width // 16)
        bit = jnp.left_shift(jnp.int32(1), jnp.arange(16, dtype=jnp.int32))

        def choose(mask: Any, key: Any, turn: Any) -> Any:
            # A uniformly random legal action by numpy's rule
            # (batch.legal_action_at: the floor(u * count)-th legal action,
            # u from the game's key and the step's number), without a pass
            # of work per mask entry beyond packing it: the mask is packed
            # into 16-bit words, the word holding the chosen action found from
            # the words' running popcounts (an associative scan), and the bit
            # within it from that word's bits. On XLA's CPU backend a sum or
            # cumsum along a 1,409-wide row costs ten to twenty times this
            # whole choice (about 50 ms at 4,096 games, an idle core).
            n = mask.shape[0]
            padded = jnp.pad(mask, ((0, 0), (0, words * 16 - width))).reshape(n, words, 16)
            packed = jnp.sum(jnp.where(padded, bit, 0), axis=2, dtype=jnp.int32)
            counts = jax.lax.population_count(packed)
            cumulative = jax.lax.associative_scan(jnp.add, counts, axis=1)
            u = uniform(key ^ np.uint64(0x5DEECE66D), turn + jnp.zeros(key.shape, jnp.int64))
            target = (u * cumulative[:, -1]).astype(jnp.int32)
            word = (cumulative <= target[:, None]).sum(axis=1)
            at_word = jnp.arange(words)[None, :] == word[:, None]
            before = jnp.sum(jnp.where(at_word, cumulative - counts, 0), axis=1)
            bits = jnp.sum(jnp.where(at_word, packed, 0), axis=1)
            set_bits = (bits[:, None] >> jnp.arange(16, dtype=jnp.int32)) & 1
            within = jax.lax.associative_scan(jnp.add, set_bits, axis=1)
            position = (within <= (target - before)[:, None]).sum(axis=1)
            # A game with no legal action (ended: its action is ignored) gets 0.
            return jnp.where(cumulative[:, -1] > 0, word * 16 + position, 0).astype(jnp.int64)

        def counted(old: Any, new: Any) -> Any:
            live = ~old.terminated
            return live.sum() + (new.draws - jnp.where(live, old.draws, 0)).sum()

        def rollout(state: Any, turn: Any) -> Any:
            chance = jnp.full((state.terminated.shape[0], engine.max_chance_per_step), -1)

            def one(carry: Any, t: Any) -> Any:
                s, total = carry
                new = engine._step_all(s, choose(s.legal_action_mask, s.key, t), chance)
                return (new, total + counted(s, new)), None

            (state, total), _ = jax.lax.scan(one, (state, 0), turn + jnp.arange(16))
            return state, total

        self.choose = jax.jit(choose)
        self.counted = jax.jit(counted)
        self.rollout = jax.jit(rollout)

    def rate(self, size: int, seconds: float, mode: str) -> tuple[float, float]:
        """Actions per CPU second at ``size`` games in ``mode`` (``step``,
        ``obs`` or ``scan``), and the CPU seconds its first call took (compiling)."""
        jax, engine = self.jax, self.engine
        from apothecary.batch.jax.core import x64

        with x64():
            state = engine.init(0, size)

            def once(state: Any, turn: int) -> tuple[Any, Any]:
                if mode == "scan":
                    return self.rollout(state, turn)  # type: ignore[no-any-return]
                actions = self.choose(state.legal_action_mask, state.key, turn)
                new = engine.step(state, actions, check=False)
                if mode == "obs":
                    engine.observation(new).block_until_ready()
                return new, self.counted(state, new)

            start = time.process_time()
            state, count = once(state, 0)
            jax.block_until_ready(count)
            compile_seconds = time.process_time() - start
            total = 0
            turn = 1
            start = time.process_time()
            deadline = start + seconds
            while True:
                state, count = once(state, turn)
                turn += 16 if mode == "scan" else 1
                total += count
                if time.process_time() >= deadline:
                    break
            actions = int(jax.block_until_ready(total))
            return actions / (time.process_time() - start), compile_seconds


def jax_engine(name: str, players: int, options: dict[str, Any]) -> Any | None:
    """The game's JAX engine, or None (no JAX, or no program for the game)."""
    try:
        from apothecary.batch import jax as batch_jax
    except ImportError:
        return None
    if name not in batch_jax.engines():
        return None
    return batch_jax.load(name, players, **options)


JAX_MODES = ("step", "obs", "scan")


def measure_batches(
    seconds: float, sizes: tuple[int, ...], names: set[str] | None = None, use_jax: bool = True
) -> list[dict[str, Any]]:
    """One row per configuration: the scalar rate, and per size the numpy
    rates and, where there is a JAX program, the JAX rates and compile times."""
    rows = []
    for name, players, options in CONFIGURATIONS:
        if names is not None and name not in names:
            continue
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
        fast = jax_engine(name, players, options) if use_jax else None
        if fast is not None:
            runner = JaxRunner(fast)
            for size in sizes:
                for mode in JAX_MODES:
                    row[("jax", mode, size)], row[("compile", mode, size)] = runner.rate(
                        size, seconds, mode
                    )
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
    modes: list[tuple[str, Any]] = [("numpy, mask only", None), ("numpy, + observation", "obs")]
    modes += [
        ("JAX, mask only", ("jax", "step")),
        ("JAX, + observation", ("jax", "obs")),
        ("JAX, jit rollout", ("jax", "scan")),
    ]
    for row in rows:
        for label, mode in modes:

            def key(size: int, mode: Any = mode) -> Any:
                return size if mode is None else (*mode, size) if mode[0] == "jax" else (mode, size)

            if key(sizes[0]) not in row:
                continue
            cells = f"| {row['game']} | {row['players']} | {row['options']}, {label} |"
            cells += f" {row['scalar']:,.0f} |"
            for size in sizes:
                rate = row[key(size)]
                ratio = f"{rate / row['scalar']:.1f}× scalar"
                if kuhn:
                    ratio += f", {rate / kuhn:.2f}× C++"
                cells += f" {rate:,.0f} ({ratio}) |"
            lines.append(cells)
    compiled = [row for row in rows if ("compile", "step", sizes[0]) in row]
    if compiled:
        lines += [
            "",
            "JAX compile time (CPU seconds of each program's first call: step and "
            "choice, observation, 16-step rollout), per batch size:",
            "",
            "| game | players | options | " + " | ".join(f"batch {s:,}" for s in sizes) + " |",
            "| --- | ---: | --- |" + " ---: |" * len(sizes),
        ]
        for row in compiled:
            cells = f"| {row['game']} | {row['players']} | {row['options']} |"
            for size in sizes:
                parts = [row[("compile", mode, size)] for mode in JAX_MODES]
                cells += " " + " / ".join(f"{p:.1f}" for p in parts) + " s |"
            lines.append(cells)
    if kuhn:
        lines += [
            "",
            f"C++ is OpenSpiel's kuhn_poker under the same Python driver loop, {kuhn:,.0f} "
            "actions/s (the mean of its runs before and after).",
        ]
    return "\n".join(lines)


def plot_costs(
    rows: list[dict[str, Any]], sizes: tuple[int, ...], kuhn: float | None, path: Path
) -> None:
    """Microseconds of CPU per action against batch size (log-log), numpy and
    JAX (mask only), a panel per game, with the scalar and C++ loops as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = sorted({row["game"] for row in rows})
    fig, axes = plt.subplots(1, len(games), figsize=(4.2 * len(games), 3.8), squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        for index, row in enumerate(r for r in rows if r["game"] == game):
            colour = f"C{index}"
            label = f"{row['players']}p {row['options']}".replace(" -", "")
            ax.plot(
                sizes, [1e6 / row[s] for s in sizes], "o-", color=colour, label=f"{label} numpy"
            )
            if ("jax", "step", sizes[0]) in row:
                ax.plot(
                    sizes,
                    [1e6 / row[("jax", "step", s)] for s in sizes],
                    "s--",
                    color=colour,
                    label=f"{label} JAX",
                )
                ax.plot(
                    sizes,
                    [1e6 / row[("jax", "scan", s)] for s in sizes],
                    "^:",
                    color=colour,
                    label=f"{label} JAX rollout",
                )
            ax.axhline(1e6 / row["scalar"], color=colour, linewidth=0.6, alpha=0.6)
        if kuhn:
            ax.axhline(1e6 / kuhn, color="black", linestyle="-.", label="C++ loop")
            ax.axhline(1e5 / kuhn, color="red", linestyle="-.", label="target (10× C++)")
        ax.set(xscale="log", yscale="log", title=game, xlabel="batch size")
        ax.set_ylabel("µs of CPU per action")
        ax.legend(fontsize=6)
    fig.suptitle(
        "Cost per action against batch size (thin lines: each configuration's scalar loop)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


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
    parser.add_argument("--games", help="only these games, comma-separated")
    parser.add_argument("--no-jax", action="store_true", help="skip the JAX backend")
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    parser.add_argument("--plot", type=Path, help="draw cost per action against batch size (PNG)")
    args = parser.parse_args()
    names = set(args.games.split(",")) if args.games else None
    before = kuhn_rate(args.seconds)
    rows = measure_batches(args.seconds, args.sizes, names, use_jax=not args.no_jax)
    after = kuhn_rate(args.seconds)
    kuhn = None if before is None or after is None else (before + after) / 2
    text = batch_table(rows, args.sizes, kuhn)
    machine = (
        f"{date.today()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}; {args.seconds:g} s of CPU time per measurement"
    )
    print(machine)
    print(text)
    if args.plot:
        plot_costs(rows, args.sizes, kuhn, args.plot)
    if args.write:
        page = args.write.read_text(encoding="utf-8")
        page = replace_between(
            page, "<!-- batch:begin -->", "<!-- batch:end -->", f"{machine}\n\n{text}"
        )
        args.write.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
