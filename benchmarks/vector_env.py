"""Learner steps per second: the batch-backed Gymnasium vector env against
Gymnasium's SyncVectorEnv of the scalar env, both with random opponents.

    python benchmarks/vector_env.py [--seconds S] [--sizes 64,1024,4096]

A learner step is one env's ``step`` for the learning seat (its opponents'
moves and chance inside it), as Gymnasium counts steps; an env resetting on
the next-step autoreset is not counted (as ``benchmark_vector_step`` does).
The learner plays a random legal action (numpy, part of the measured time)
and the loop reads every observation, as a learner would. Rates are on CPU
time (``time.process_time``), as benchmarks/batch.py's.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np

from apothecary import batch
from apothecary.interop.gymnasium import env_id
from apothecary.interop.gymnasium_vector import BatchVectorEnv

CONFIGURATIONS: tuple[tuple[str, int], ...] = (("in-vino-morte", 4), ("poison-pot", 2))
SYNC_ENVS = 16


def rate(envs: Any, seconds: float) -> float:
    """Learner steps per CPU second of random legal play."""
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    resetting = np.zeros(envs.num_envs, dtype=np.bool_)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        mask = np.asarray(infos["action_mask"]).astype(bool)
        _, _, terminated, truncated, infos = envs.step(batch.random_legal_actions(mask, rng))
        steps += int((~resetting).sum())
        resetting = terminated | truncated
    return steps / (time.process_time() - start)


def main() -> None:
    """Measure and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument(
        "--sizes", type=lambda t: tuple(int(p) for p in t.split(",")), default=(64, 1024, 4096)
    )
    args = parser.parse_args()
    print(
        f"| game | players | sync x{SYNC_ENVS} | " + " | ".join(f"batch {s:,}" for s in args.sizes)
    )
    for name, players in CONFIGURATIONS:
        sync = gymnasium.make_vec(
            env_id(name),
            num_envs=SYNC_ENVS,
            vectorization_mode="sync",
            players=players,
            opponents="random",
        )
        base = rate(sync, args.seconds)
        cells = [f"{base:,.0f}"]
        for size in args.sizes:
            fast = rate(BatchVectorEnv(name, num_envs=size, players=players), args.seconds)
            cells.append(f"{fast:,.0f} ({fast / base:.1f}x)")
        print(f"| {name} | {players} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
