"""The room layer's CPU per move, in-process: no sockets, no database, no clock.

    python benchmarks/room_layer.py [--moves 3000] [--rounds 3] [--old TREE] [--hub]
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

``--hub`` also measures the layer above the room, per move, in the same
runs (:func:`measure_hub`): a socket's text taken as the app's socket loop
takes it, the hub's command, change, SQLite commit and broadcast, and every
queue drained through a permessage-deflate compressor; it prints the
process's CPU a move (``hub``, the store's writer thread included), the part
outside the event loop's thread (``commit``), the compression (``wire``) and
the compressed bytes a move. The uvicorn/Starlette frames themselves are not
in it (the same code in both trees).

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
import asyncio
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


def _socket_limits() -> Any:
    """What the tree's socket loop asks before it reads a message: the app's
    per-seat and per-address buckets, or (c54b738) one bucket per socket."""
    from apothecary.server import app

    # Shares no loop of moves runs out of (as server_load.py's --socket-rate):
    # the buckets are measured taking a token, never refusing one.
    web = app.WebConfig()
    for name in ("rate_per_second", "rate_burst", "address_rate_per_second", "address_rate_burst"):
        if hasattr(web, name):  # c54b738 had no address shares
            setattr(web, name, 10**9)
    limits = getattr(app, "_SocketLimits", None)
    if limits is not None:
        shared = limits(web)
        return lambda connection, bucket: shared.take(connection, "127.0.0.1")
    return lambda connection, bucket: bucket.take()


async def measure_hub(game: str, players: int, moves: int, seed: int) -> dict[str, Any]:
    """The layer above the room: ``moves`` seeded moves of ``game``, each sent as
    a socket's text and taken as the app's socket loop takes it (rate buckets,
    ``_parse``, ``_handle``: the command, ``Hub.change``, the SQLite commit on
    the store's writer thread, the broadcast into every connection's queue),
    then every queue drained and each text compressed as permessage-deflate
    would (one compressor a socket, its context kept). µs of CPU per move:
    ``hub`` is the whole process's (the writer thread included), ``commit`` the
    part outside this thread, ``wire`` the compression, and bytes a move."""
    import tempfile
    import zlib

    from apothecary.server import app
    from apothecary.server.hub import Hub, HubConfig
    from apothecary.server.room import Changes, Settings
    from apothecary.server.store import Store

    try:
        from apothecary.server.routes.deps import Bucket
    except ImportError:
        from apothecary.server.app import Bucket  # type: ignore[attr-defined,no-redef]

    folder = tempfile.TemporaryDirectory()
    store = Store(f"sqlite:///{folder.name}/hub.sqlite")
    config = HubConfig(bot_workers=0, allow_seed=True)
    if hasattr(config, "presence_delay"):  # c54b738 sent a whole update on each join
        config.presence_delay = 0.0
    hub = Hub(store, config)
    await hub.start()
    room, _ = await hub.create(game, players, {}, None, Settings(), f"bench{seed}")
    code = room.code
    tokens: list[str] = []
    for i in range(players):

        def sit(room: Any, _now: float, i: int = i) -> Any:
            tokens.append(room.claim(f"P{i}", i)[1])
            return Changes()

        await hub.change(code, sit)
    await hub.change(code, lambda room, now: room.start(now))
    sockets = [(await hub.connect(code, token))[0] for token in [*tokens, None]]
    await asyncio.sleep(0.01)  # the presence message goes out
    squeezers = {id(c): zlib.compressobj(6, zlib.DEFLATED, -15) for c in sockets}
    buckets = {id(c): Bucket(10_000.0, 10_000) for c in sockets}
    take = _socket_limits()
    limit = app.WebConfig().max_message_bytes
    rng = random.Random(seed)
    spent = {"hub": 0, "commit": 0, "wire": 0}
    sent_bytes = 0

    def drain(squeeze: bool) -> int:
        size = 0
        for connection in sockets:
            while not connection.queue.empty():
                text = connection.queue.get_nowait()
                if squeeze and text is not None:
                    z = squeezers[id(connection)]
                    size += len(z.compress(text.encode()) + z.flush(zlib.Z_SYNC_FLUSH))
        return size

    made = 0
    while made < moves:
        drain(False)
        live = hub._rooms[code]
        current = live.room
        if current.status == "over":
            await hub.change(code, lambda room, now: room.rematch(now))
            continue
        pending = current.pending()
        assert pending is not None and pending.seat is not None and current.state is not None
        mover = next(c for c in sockets if c.viewer == pending.seat)
        action = rng.choice(current.state.legal_actions())
        before = current.state_id
        text = json.dumps({"type": "act", "action": action, "state_id": before})
        wall, mine = time.process_time_ns(), time.thread_time_ns()
        if take(mover, buckets[id(mover)]):
            message = app._parse(text, limit)
            assert isinstance(message, dict)
            await app._handle(hub, mover, message)
        done_wall, done_mine = time.process_time_ns(), time.thread_time_ns()
        # A move refused (a bucket, a check) would time nothing worth timing.
        assert hub._rooms[code].room.state_id != before, "the move was refused"
        spent["hub"] += done_wall - wall
        spent["commit"] += (done_wall - wall) - (done_mine - mine)
        start = time.thread_time_ns()
        sent_bytes += drain(True)
        spent["wire"] += time.thread_time_ns() - start
        made += 1
    await hub.close()
    folder.cleanup()
    per_move: dict[str, float] = {layer: spent[layer] / made / 1000 for layer in spent}
    per_move["bytes"] = sent_bytes / made
    return {"us_per_move": per_move, "moves": made}


def one_tree(games: list[tuple[str, int]], moves: int, hub: bool = False) -> dict[str, Any]:
    """Every game measured in this interpreter (whatever tree it imports)."""
    import apothecary

    out: dict[str, Any] = {"tree": str(Path(apothecary.__file__).resolve().parents[2])}
    for game, players in games:
        measure(game, players, max(50, moves // 10), seed=99)  # warm caches and imports
        out[f"{game}:{players}"] = measure(game, players, moves, seed=1)
        if hub:
            asyncio.run(measure_hub(game, players, max(50, moves // 10), seed=99))
            out[f"hub {game}:{players}"] = asyncio.run(measure_hub(game, players, moves, seed=1))
    return out


def _run(python: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [str(python), str(HERE), "--one", "--moves", str(args.moves), "--games", args.games]
    if args.hub:
        command.append("--hub")
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
    parser.add_argument(
        "--hub", action="store_true", help="also the hub and socket layer (measure_hub)"
    )
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    games = _games(args.games)
    if args.one:
        print(json.dumps(one_tree(games, args.moves, args.hub)))
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
    if args.hub:
        _print_hub(games, runs)


def _print_hub(games: list[tuple[str, int]], runs: dict[str, list[dict[str, Any]]]) -> None:
    figures = ("hub", "commit", "wire", "bytes")
    print("the hub and socket layer, median of the runs (hub / commit / wire µs, bytes a move)")
    for game, players in games:
        key = f"hub {game}:{players}"
        medians = {
            side: {f: statistics.median(r[key]["us_per_move"][f] for r in results) for f in figures}
            for side, results in runs.items()
        }
        print(f"{game} {players}p")
        for side, values in medians.items():
            print(f"  {side:4} " + " / ".join(f"{values[f]:7.1f}" for f in figures))
        if "old" in medians:
            ratio = " / ".join(f"{medians['new'][f] / medians['old'][f]:7.2f}" for f in figures)
            print(f"  new/old {ratio}")


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
