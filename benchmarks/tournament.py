"""Tournament throughput: games per second on 1 and 2 local workers and on Ray.

    python benchmarks/tournament.py [--seconds S] [--games NAME ...] [--write docs/performance.md]

For each game, one process plays games for about ``--seconds`` to learn its
rate; then the same number of games is played by two local worker processes
and by Ray with two workers (a Ray started here with ``num_cpus=2``). Start-up
(spawning workers, starting Ray) is left out: each backend first plays a few
warm-up games, then the timed tournament, with another seed so that no game is
cached. Parallel efficiency is the two-worker rate over twice the one-worker
rate; Ray's overhead is how much slower Ray is than two local workers.

Targets: two workers at least 1.8x one worker; Ray's overhead under 20%.

On a shared machine the wall-clock figures say as much about the other work
as about the tournament, so the CPU efficiency is reported too: the CPU time
one game costs in a single process over what it costs in the parent and the
two local workers together (read from /proc). It is the efficiency two idle
cores would reach, and it does not depend on the load.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import apothecary
from apothecary import bots as bot_registry
from apothecary.arena import plan, run_tournament
from apothecary.arena.tournament import Backend, LocalBackend, RayBackend, SerialBackend

# The player count each game is measured at (a common table) and its line-up:
# the game's rule-based bot against random ones where it has one.
TABLES = {
    "in-vino-morte": 5,
    "little-drop-of-poison": 4,
    "poison-pot": 2,
    "tea-scones-arsenic": 4,
}


def lineup(game: str) -> list[str]:
    names = bot_registry.names(game)
    return ["rules", "random"] if "rules" in names else ["random"]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def local_pids(backend: Backend) -> list[int]:
    """This process and, for the local backend, its workers (a private attribute:
    only this benchmark looks)."""
    pool = getattr(backend, "_pool", None)
    workers = [process.pid for process in pool._pool] if pool is not None else []
    return [os.getpid(), *workers]


def rate(backend: Backend, game: str, players: int, games: int, seed: int) -> tuple[float, float]:
    """Games per second of one tournament on ``backend`` (after a short warm-up),
    and the CPU seconds per game this process and its local workers spent."""
    bots = lineup(game)
    run_tournament(plan(game, players, bots, 2 * backend.workers, seed=seed + 1), backend=backend)
    spec = plan(game, players, bots, games, seed=seed)
    pids = local_pids(backend)
    cpu = cpu_seconds(pids)
    start = time.perf_counter()
    run = run_tournament(spec, backend=backend)
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(pids) - cpu
    assert len(run.results) == games
    return games / elapsed, cpu / games


def calibrate(game: str, players: int, seconds: float) -> int:
    """How many games one process plays in about ``seconds``."""
    bots = lineup(game)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds / 4:
        run_tournament(plan(game, players, bots, 4, seed=1000 + count))
        count += 4
    per_game = (time.perf_counter() - start) / count
    return max(8, int(seconds / per_game))


def measure(games: list[str], seconds: float) -> list[dict[str, Any]]:
    import ray

    rows = []
    local = LocalBackend(2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    distributed = RayBackend(2)
    try:
        for game in games:
            players = TABLES.get(game, apothecary.game_class(game).info.default_players)
            count = calibrate(game, players, seconds)
            one, one_cpu = rate(SerialBackend(), game, players, count, seed=1)
            two, two_cpu = rate(local, game, players, count, seed=1)
            on_ray, _ = rate(distributed, game, players, count, seed=1)
            row = {
                "game": game,
                "players": players,
                "bots": ",".join(lineup(game)),
                "games": count,
                "one": one,
                "two": two,
                "ray": on_ray,
                "efficiency": two / (2 * one),
                "ray_overhead": 1 - on_ray / two,
                # Busy cores make wall-clock efficiency meaningless, so also:
                # the CPU a game costs in one process over what it costs
                # across the parent and two workers -- the efficiency two
                # idle cores would give, whatever else the machine is doing.
                "cpu_efficiency": one_cpu / two_cpu,
            }
            rows.append(row)
            print(
                f"{game:<24}{players}p {count:>6} games  1 worker {one:8.1f}/s  "
                f"2 workers {two:8.1f}/s  Ray(2) {on_ray:8.1f}/s  "
                f"efficiency {row['efficiency']:.0%} (CPU {row['cpu_efficiency']:.0%})  "
                f"Ray overhead {row['ray_overhead']:+.0%}",
                flush=True,
            )
    finally:
        local.close()
        distributed.close()
        ray.shutdown()
    return rows


def table(rows: list[dict[str, Any]], seconds: float, load: tuple[float, float]) -> str:
    lines = [
        f"Measured {date.today().isoformat()} with `python benchmarks/tournament.py "
        f"--seconds {seconds:g}` on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; load average {load[0]:.1f} before and "
        f"{load[1]:.1f} after (on {os.cpu_count()} cores: anything above it means the "
        "workers shared their cores with other work, and efficiency reads low).",
        "",
        "| game | players | bots | games | 1 worker (games/s) | 2 workers | Ray, 2 workers "
        "| parallel efficiency (wall) | CPU efficiency | Ray overhead |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['game']} | {row['players']} | {row['bots']} | {row['games']} "
            f"| {row['one']:.1f} | {row['two']:.1f} | {row['ray']:.1f} "
            f"| {row['efficiency']:.0%} | {row['cpu_efficiency']:.0%} "
            f"| {row['ray_overhead']:+.0%} |"
        )
    return "\n".join(lines)


def write(path: Path, text: str) -> None:
    begin, end = "<!-- tournament:begin -->", "<!-- tournament:end -->"
    page = path.read_text(encoding="utf-8")
    if begin not in page:
        raise SystemExit(f"{path} has no {begin} marker")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="one worker's time per game")
    parser.add_argument("--games", nargs="*", default=None, help="games to measure (default all)")
    parser.add_argument("--write", type=Path, help="put the table into this Markdown file")
    args = parser.parse_args()
    games = args.games or apothecary.games()
    before = os.getloadavg()[0]
    rows = measure(games, args.seconds)
    text = table(rows, args.seconds, (before, os.getloadavg()[0]))
    print(text)
    if args.write:
        write(args.write, text)


if __name__ == "__main__":
    main()
