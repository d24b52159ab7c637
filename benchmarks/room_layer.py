"""The room layer's CPU per move, in-process: no sockets, no database, no clock.

    python benchmarks/room_layer.py [--moves 3000] [--rounds 3] [--old TREE]
        [--games in-vino-morte:4,poison-pot:3,little-drop-of-poison:5] [--json FILE]

Per game, a room with a person in every seat plays seeded random moves
(chance drawn by the room, a rematch when a game ends) until ``--moves``
moves have been made, and times the three things a server does for each
move, as the hub does them:

* ``apply``: ``Room.apply`` (the events of every viewer, the next state);
* ``views``: ``Room.view`` for every seat and one spectator, each from what
  it was sent last (``since``/``noticed``, as the hub keeps them);
* ``json``: each view as the sockets send it (the hub's ``_encode``, compact
  JSON; ``json.dumps`` as the hub called it in a tree without one).

It prints microseconds per move per layer and their total, and a digest of
every message made (SHA-256 of the JSON), so a change that should not alter
the protocol can show it did not: the same seeds give the same digest.

``--old TREE`` measures another worktree of the repository beside this one,
in the same run: each round runs this script once under ``TREE/.venv`` and
once under this tree's interpreter, alternating (old, new, old, new...), and
the table gives both medians and new / old. The script only uses
``Room.create``, ``claim``, ``start``, ``apply``, ``chance_action``,
``view``, ``rematch`` and ``pending``, which are the same back to c54b738.
Times are this thread's CPU time (``time.thread_time_ns``), so other
processes' load shows less than in a wall clock, but caches and clock speed
are still shared: compare within a run, never across runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
TREE = HERE.parents[1]
LAYERS = ("apply", "views", "json")
DEFAULT_GAMES = "in-vino-morte:4,poison-pot:3,little-drop-of-poison:5"


def _encoder() -> Any:
    """How the tree's hub puts a message in JSON: its ``_encode``, or, in a
    tree from before it (c54b738), the ``json.dumps`` it called inline."""
    try:
        from apothecary.server.hub import _encode
    except ImportError:
        return lambda message: json.dumps(message, separators=(",", ":"))
    return _encode


def measure(game: str, players: int, moves: int, seed: int) -> dict[str, Any]:
    """Play ``moves`` seeded moves of ``game`` through a room; µs per move per layer."""
    from apothecary.server.room import Room, Settings

    room, _ = Room.create(game, players, {}, None, Settings(), now=0.0, seed=f"bench{seed}")
    room.code = f"bench{seed}"  # a code is random, and every message names it
    for i in range(players):
        room.claim(f"P{i}", i)
    room.start(0.0)
    rng = random.Random(seed)
    viewers: list[int | None] = [*range(players), None]
    sent = {v: (0, 0, 0) for v in viewers}  # viewer: (game_no, seen, noticed)
    spent = dict.fromkeys(LAYERS, 0)
    digest = hashlib.sha256()
    # CPU time, not wall time: on a shared machine a wall clock also counts the
    # time other processes held the core (it made ratios swing 0.85-1.7).
    clock = time.thread_time_ns
    encode = _encoder()
    made = 0
    now = 0.0
    while made < moves:
        now += 1.0
        if room.status == "over":
            room.rematch(now)
            continue
        pending = room.pending()
        assert pending is not None
        state = room.state
        assert state is not None
        action = (
            room.chance_action() if pending.kind == "chance" else rng.choice(state.legal_actions())
        )
        start = clock()
        room.apply(action, now)
        spent["apply"] += clock() - start
        messages = []
        start = clock()
        for viewer in viewers:
            game_no, seen, noticed = sent[viewer]
            if game_no != room.game_no:
                seen, noticed = 0, 0
            messages.append(room.view(viewer, seen, now, noticed))
            sent[viewer] = (room.game_no, len(room.log), len(room.notices))
        spent["views"] += clock() - start
        start = clock()
        texts = [encode(m) for m in messages]
        spent["json"] += clock() - start
        for text in texts:
            digest.update(text.encode())
        made += 1
    per_move = {layer: spent[layer] / made / 1000 for layer in LAYERS}
    per_move["total"] = sum(per_move[layer] for layer in LAYERS)
    return {"us_per_move": per_move, "digest": digest.hexdigest()[:16], "moves": made}


def one_tree(games: list[tuple[str, int]], moves: int) -> dict[str, Any]:
    """Every game measured in this interpreter (whatever tree it imports)."""
    import apothecary

    out: dict[str, Any] = {"tree": str(Path(apothecary.__file__).resolve().parents[2])}
    for game, players in games:
        measure(game, players, max(50, moves // 10), seed=99)  # warm caches and imports
        out[f"{game}:{players}"] = measure(game, players, moves, seed=1)
    return out


def _run(python: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [str(python), str(HERE), "--one", "--moves", str(args.moves), "--games", args.games]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _games(text: str) -> list[tuple[str, int]]:
    out = []
    for item in text.split(","):
        name, _, players = item.partition(":")
        out.append((name, int(players)))
    return out


def main() -> None:
    """Measure this tree (and ``--old``), print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=3000, help="timed moves per game and run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per tree (alternating)")
    parser.add_argument("--games", default=DEFAULT_GAMES, help="name:players, comma-separated")
    parser.add_argument("--old", type=Path, help="another worktree with its own .venv")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    games = _games(args.games)
    if args.one:
        print(json.dumps(one_tree(games, args.moves)))
        return
    sides = {"new": Path(sys.executable)}
    if args.old is not None:
        sides = {"old": args.old / ".venv" / "bin" / "python", **sides}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for _ in range(args.rounds):
        for side, python in sides.items():
            runs[side].append(_run(python, args))
    if args.json is not None:
        args.json.write_text(json.dumps(runs, indent=1))
    _print(games, runs)


def _print(games: list[tuple[str, int]], runs: dict[str, list[dict[str, Any]]]) -> None:
    for side, results in runs.items():
        print(f"{side}: {results[0]['tree']}")
    print("µs per move, median of the runs (apply / views / json / total)")
    for game, players in games:
        key = f"{game}:{players}"
        medians = {
            side: {
                layer: statistics.median(r[key]["us_per_move"][layer] for r in results)
                for layer in (*LAYERS, "total")
            }
            for side, results in runs.items()
        }
        print(f"{game} {players}p")
        for side, figures in medians.items():
            digests = sorted({r[key]["digest"] for r in runs[side]})
            shown = " / ".join(f"{figures[layer]:7.1f}" for layer in (*LAYERS, "total"))
            print(f"  {side:4} {shown}   digest {','.join(digests)}")
        if "old" in medians:
            ratio = " / ".join(
                f"{medians['new'][layer] / medians['old'][layer]:7.2f}"
                for layer in (*LAYERS, "total")
            )
            print(f"  new/old {ratio}")


if __name__ == "__main__":
    main()
