"""Solve In Vino Morte (no Cheese) at 2-5 players to NashConv below 1e-3 and
store the profiles for the ``cfr`` bot.

Rounds are solved bottom-up (2, 3, 4, then 5 players in the round, each
round's leaves worth the values of the solved rounds below): linear CFR with
alternating updates, then Newton's method on the equilibrium conditions
(:mod:`apothecary.games.in_vino_morte.cfr_solve`). Every NashConv printed is that of
the whole game starting with that many players, from exact best responses.
The stored (rounded) table is then checked again: by the pure-Python best
response of :mod:`apothecary.games.in_vino_morte.cfr`, and with ``--openspiel``
by OpenSpiel's own ``exploitability.nash_conv`` on the whole game tree through
the adapter (``--openspiel 3``: the 3-player game, 0.1 s; ``--openspiel 3 4``
also the 4-player game, 17 s more).

Writes ``src/apothecary/bots/solvers/data/in_vino_morte_cfr.json.gz`` and
prints the convergence table used in docs/solvers.md (needs the ``study``
extra for numpy and scipy, and ``rl`` for ``--openspiel``):

    .venv/bin/python benchmarks/solve_in_vino_morte.py --openspiel 3
    .venv/bin/python benchmarks/solve_in_vino_morte.py --cheese

Each run replaces its own variant's part of the data file (keys of the Cheese
rounds start with ``C``) and keeps the other's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path
from typing import Any

from apothecary.games.in_vino_morte.cfr import DATA_FILE, build_round, table_solvers
from apothecary.games.in_vino_morte.cfr_solve import (
    Solved,
    VecRound,
    evaluate,
    from_table,
    openspiel_nash_conv,
    solve,
    to_table,
)

OUT = Path(__file__).resolve().parent.parent / "src/apothecary/bots/solvers/data" / DATA_FILE


def main() -> None:
    """Solve, print the convergence, check the stored table, write it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", default=None, help="CFR iterations per round size")
    parser.add_argument("--cheese", action="store_true", help="solve Caseus Vitae instead")
    parser.add_argument("--restarts", type=int, default=4, help="Newton restarts (0: CFR only)")
    parser.add_argument("--seconds", type=float, default=300.0, help="Cheese: per round size")
    parser.add_argument("--openspiel", type=int, nargs="*", default=[], help="players to check")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    default = "2:100,3:1000,4:1000" if args.cheese else "2:100,3:3000,4:2000,5:1000"
    spec = args.iterations or default
    budget = {int(k): int(v) for k, v in (p.split(":") for p in spec.split(","))}
    prefix = "C" if args.cheese else ""

    def report(k: int, row: dict[str, Any]) -> None:
        values = " ".join(f"{v:.6f}" for v in row["values"])
        print(
            f"{prefix}k={k} iterations={row['iterations']} nashconv={row['nashconv']:.3e} "
            f"values={values} ({row['seconds']} s)",
            flush=True,
        )

    solved: dict[int, Solved] = {}
    vecs: dict[int, VecRound] = {}
    strategy: dict[str, dict[str, float]] = {}
    for k in sorted(budget):
        vecs[k] = VecRound(build_round(k, cheese=args.cheese))
        solved[k] = solve(
            k,
            vecs[k],
            solved,
            budget[k],
            restarts=args.restarts,
            report=report,
            seconds=args.seconds,
        )
        strategy.update(to_table(vecs[k], solved[k].sigma))
    # The table as stored (rounded), checked from scratch: numpy and, without
    # Cheese, pure Python.
    summary: dict[str, dict[str, Any]] = {}
    stored: dict[int, Solved] = {}
    for k in sorted(budget):
        sigma = from_table(vecs[k], strategy)
        values, best = evaluate(vecs[k], sigma, stored)
        stored[k] = Solved(k, sigma, values, best, [], 0.0)
        summary[f"{prefix}{k}"] = entry = {
            "nodes": len(vecs[k].tree.player),
            "infosets": len(vecs[k].tree.keys),
            "iterations": budget[k],
            "nashconv": stored[k].nash_conv,
            "values": [round(float(v), 9) for v in values],
            "best_response": [round(float(v), 9) for v in best],
            "seconds": round(solved[k].seconds, 1),
        }
        line = f"stored {prefix}k={k}: nashconv {stored[k].nash_conv:.3e} (numpy)"
        if not args.cheese:
            entry["nashconv_pure_python"] = check = table_solvers(strategy, k)[k].nash_conv()
            line += f", {check:.3e} (pure Python)"
        print(line, flush=True)
    for players in args.openspiel:
        start = time.perf_counter()
        theirs = openspiel_nash_conv(players, strategy)
        seconds = time.perf_counter() - start
        summary[str(players)]["nashconv_openspiel"] = theirs
        print(f"OpenSpiel nash_conv, {players} players, whole game: {theirs:.3e} ({seconds:.1f} s)")
    # Each variant replaces only its own part of the file.
    payload: dict[str, Any] = {"game": "in-vino-morte", "summary": {}, "convergence": {}}
    payload["strategy"] = {}
    if args.out.exists():
        payload = json.loads(gzip.decompress(args.out.read_bytes()))
        for part in ("summary", "convergence", "strategy"):
            kept = payload.get(part, {}).items()
            payload[part] = {key: v for key, v in kept if key.startswith("C") != args.cheese}
    payload.pop("options", None)
    payload["summary"].update(summary)
    payload["convergence"].update({f"{prefix}{k}": s.curve for k, s in solved.items()})
    payload["strategy"].update(strategy)
    args.out.write_bytes(gzip.compress(json.dumps(payload, sort_keys=True).encode(), mtime=0))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
