"""Solve In Vino Morte (default deck, no Cheese) at 2-5 players by CFR+ and
store the average strategies for the ``cfr`` bot.

Rounds are solved bottom-up (2, 3, 4, then 5 players in the round); each
round's NashConv is that of the whole game starting with that many players.
Writes ``src/apothecary/bots/solvers/data/in_vino_morte_cfr.json.gz`` and
prints the convergence table (iterations, NashConv) used in docs/solvers.md.

    .venv/bin/python benchmarks/solve_in_vino_morte.py [--iterations 3:4000,4:3000,5:1500]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from apothecary.bots.solvers.ivm_cfr import DATA_FILE, RoundSolver, build_round

OUT = Path(__file__).resolve().parent.parent / "src/apothecary/bots/solvers/data" / DATA_FILE


def main() -> None:
    """Solve, print the convergence, write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", default="2:200,3:4000,4:3000,5:1500")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    budget = {int(k): int(v) for k, v in (p.split(":") for p in args.iterations.split(","))}
    below: dict[int, RoundSolver] = {}
    strategy: dict[str, dict[str, float]] = {}
    convergence: dict[str, list[list[float]]] = {}
    summary: dict[str, dict[str, object]] = {}
    for k in (2, 3, 4, 5):
        start = time.perf_counter()
        tree = build_round(k)
        solver = RoundSolver(tree, below)
        total = budget.get(k, 200)
        # every 100 iterations after the first few: CFR with three or more
        # players does not converge, so the profile kept is the checkpoint
        # with the lowest NashConv (the whole curve is stored and printed)
        marks = {1, 10, 30, total, *range(100, total + 1, 100)}
        checkpoints = sorted(c for c in marks if c <= total)
        curve = []
        best: tuple[float, int, list[list[float]]] | None = None
        for c in checkpoints:
            solver.iterate(c - solver.iterations)
            nc = solver.nash_conv()
            curve.append([c, nc])
            print(f"k={k} iterations={c} nashconv={nc:.6f}", flush=True)
            if best is None or nc < best[0]:
                best = (nc, c, [list(t) for t in solver.total])
        assert best is not None
        solver.keep_average(best[2])
        print(f"k={k} kept the average at {best[1]} iterations, nashconv={best[0]:.6f}")
        seconds = time.perf_counter() - start
        below[k] = solver
        strategy.update(solver.table())
        convergence[str(k)] = curve
        summary[str(k)] = {
            "nodes": len(tree.player),
            "infosets": len(tree.keys),
            "iterations": total,
            "nashconv": best[0],
            "kept_at": best[1],
            "values": [round(v, 6) for v in solver.value()],
            "seconds": round(seconds, 1),
        }
        print(json.dumps({k: summary[str(k)]}), flush=True)
    payload = {
        "game": "in-vino-morte",
        "options": {"deck": "8+8", "cheese": False},
        "summary": summary,
        "convergence": convergence,
        "strategy": strategy,
    }
    args.out.write_bytes(gzip.compress(json.dumps(payload, sort_keys=True).encode(), mtime=0))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
