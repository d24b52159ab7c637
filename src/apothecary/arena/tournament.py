"""Tournaments: many games between bots, over one or several option sets, on
local worker processes or a Ray cluster, kept on disk so they resume.

The plan of a tournament is a :class:`TournamentSpec`. Game ``i`` of it is
fixed by ``(spec, i)`` alone: its option set, who sits where, and every seed
(chance and bots draw from ``random.Random(f"{seed}:{i}")``). So whichever
backend plays it, with however many workers, in whatever order the games
finish, the same spec gives the same games; results are always put back in
game order before anything is summed.

On disk (``--out DIR``) a tournament is two files: ``tournament.json`` (the
spec) and ``games.jsonl.gz`` (one JSON line per finished game, holding its
full :class:`~apothecary.core.records.Record`). Lines are flushed as games
finish, so Ctrl-C -- or even a killed process -- keeps every finished game,
and running the same command again plays only the missing ones.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import os
import random
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from apothecary import bots as bot_registry
from apothecary.arena.match import play_game
from apothecary.core.errors import ApothecaryError, BadOptionError, RecordError
from apothecary.core.game import JSON, Game
from apothecary.core.records import Record
from apothecary.core.registry import load

SPEC_FILE = "tournament.json"
GAMES_FILE = "games.jsonl.gz"
FORMAT = "apothecary-tournament"
VERSION = 1


class TournamentError(ApothecaryError):
    """A tournament that cannot be run or read: bad settings, a bad output folder."""


class TournamentFileError(TournamentError):
    """A line of ``games.jsonl.gz`` that does not check out, or a damaged file.

    Every line must be a game of the tournament's schedule (its index in
    range and not repeated, its seats and option set the ones the schedule
    gives that index) whose record replays to the returns the line states.
    ``line`` is the 1-based line number, or ``None`` for the file as a whole.
    """

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}, line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that decides which games a tournament plays.

    ``variants`` holds one full option set per variant (validated, defaults
    filled in); ``games`` is the number of games *per variant*. Worker count
    and backend are not part of it: they change how fast, never what.
    """

    game: str
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    variants: tuple[dict[str, Any], ...]

    @property
    def total(self) -> int:
        """Games in the whole tournament (every variant)."""
        return self.games * len(self.variants)

    def tables(self) -> list[tuple[str, ...]]:
        """The line-ups that take turns at the table.

        With no more bots than seats, one line-up: the bots in order, the last
        named filling the remaining seats. With more bots than seats, every
        combination of ``players`` different bots (a round robin).
        """
        if len(self.bots) <= self.players:
            return [tuple(_fill(self.bots, self.players))]
        return list(itertools.combinations(self.bots, self.players))

    def schedule(self, index: int) -> tuple[int, list[str]]:
        """Game ``index``'s variant and the bot in each seat.

        Variants interleave (game i plays variant ``i % V``), so a stopped
        tournament has every variant about equally far along. Within a
        variant, each line-up plays ``players`` games in a row, rotated one
        seat per game, so every bot sits in every seat equally often.
        """
        count = len(self.variants)
        variant, j = index % count, index // count
        tables = self.tables()
        seats = self.players
        table = tables[(j // seats) % len(tables)]
        return variant, [table[(seat - j) % seats] for seat in range(seats)]

    def balanced_multiple(self) -> int:
        """``games`` per variant should be a multiple of this for exact seat balance."""
        if len(set(self.bots)) == 1:
            return 1  # a mirror match: every seat has the same bot anyway
        return self.players * len(self.tables())

    def to_json(self) -> dict[str, JSON]:
        """The spec as a JSON-ready dict (what ``tournament.json`` holds)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "players": self.players,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "variants": [dict(v) for v in self.variants],
        }

    @classmethod
    def from_json(cls, data: Any) -> TournamentSpec:
        """Read a spec written by :meth:`to_json`; raises TournamentError."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TournamentError("not an apothecary tournament description")
        if data.get("version") != VERSION:
            raise TournamentError(f"tournament version {data.get('version')!r} is not supported")
        try:
            return cls(
                game=str(data["game"]),
                players=int(data["players"]),
                bots=tuple(str(b) for b in data["bots"]),
                games=int(data["games"]),
                seed=int(data["seed"]),
                variants=tuple(dict(v) for v in data["variants"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise TournamentError(f"tournament description is damaged: {error}") from None

    def make_games(self) -> list[Game]:
        """One configured game per variant."""
        return [load(self.game, self.players, **options) for options in self.variants]


def _fill(bots: Sequence[str], players: int) -> list[str]:
    return [*bots, *[bots[-1]] * (players - len(bots))]


def plan(
    game_name: str,
    players: int | None,
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    variants: Sequence[dict[str, Any]] = ({},),
) -> TournamentSpec:
    """Check every setting and make the spec; raises before any game is played.

    Unknown games, options, option values, player counts and bot names are
    all caught here (each option set is loaded, each bot made once).
    """
    if games < 1:
        raise BadOptionError(f"-n {games}: play at least one game")
    if not bots:
        raise BadOptionError("name at least one bot")
    configured = [load(game_name, players, **options) for options in (variants or [{}])]
    first = configured[0]
    full = [dict(game.options) for game in configured]
    if len({json.dumps(v, sort_keys=True) for v in full}) < len(full):
        raise BadOptionError("two option sets are the same; name each variant once")
    if len(bots) > first.num_players and len(set(bots)) < len(bots):
        raise BadOptionError("a round robin (more bots than seats) needs different bot names")
    for name in dict.fromkeys(bots):
        bot_registry.load(name, first, 0, seed=0)  # unknown names fail now, not mid-run
    return TournamentSpec(
        game=first.name,
        players=first.num_players,
        bots=tuple(bots),
        games=games,
        seed=seed,
        variants=tuple(full),
    )


# -- one game, in whichever process runs it ------------------------------------


@dataclass(frozen=True)
class GameResult:
    """What one finished game contributes: who sat where, how it went, its record."""

    index: int
    variant: int
    seats: list[str]
    returns: list[float]
    length: int
    record: dict[str, JSON]

    @property
    def scores(self) -> list[float]:
        """The game's own score per seat."""
        outcome = self.record.get("outcome") or {}
        return [float(s) for s in outcome.get("scores", [])]

    def to_json(self) -> dict[str, JSON]:
        """One line of ``games.jsonl.gz``."""
        return {
            "index": self.index,
            "variant": self.variant,
            "seats": self.seats,
            "returns": self.returns,
            "length": self.length,
            "record": self.record,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        """Read one line of ``games.jsonl.gz``."""
        return cls(
            index=int(data["index"]),
            variant=int(data["variant"]),
            seats=[str(s) for s in data["seats"]],
            returns=[float(r) for r in data["returns"]],
            length=int(data["length"]),
            record=dict(data["record"]),
        )

    def to_record(self) -> Record:
        """The game's record, ready to replay."""
        return Record.from_json(self.record)


def play_indexed(spec: TournamentSpec, games: Sequence[Game], index: int) -> GameResult:
    """Play game ``index`` of ``spec`` (``games`` from :meth:`TournamentSpec.make_games`)."""
    rng = random.Random(f"{spec.seed}:{index}")
    variant, names = spec.schedule(index)
    game = games[variant]
    seats = [
        bot_registry.load(name, game, seat, seed=rng.getrandbits(32))
        for seat, name in enumerate(names)
    ]
    final = play_game(game, seats, rng)
    return GameResult(
        index=index,
        variant=variant,
        seats=names,
        returns=[float(r) for r in final.returns()],
        length=final.move_number(),
        record=Record.from_state(final, seats=names).to_json(),
    )


# Worker processes keep the configured games of the tournament they serve,
# so a chunk does not rebuild them (some games precompute tables on load).
_WORKER_GAMES: dict[str, tuple[TournamentSpec, list[Game]]] = {}


def play_chunk(spec_json: dict[str, Any], indices: list[int]) -> list[dict[str, Any]]:
    """Play the games ``indices`` of a spec given as JSON; results as JSON dicts.

    A top-level function of plain data in and out, so worker processes
    (spawned, not forked) and Ray tasks can both run it.
    """
    key = json.dumps(spec_json, sort_keys=True)
    cached = _WORKER_GAMES.get(key)
    if cached is None:
        spec = TournamentSpec.from_json(spec_json)
        cached = _WORKER_GAMES[key] = (spec, spec.make_games())
    spec, games = cached
    return [play_indexed(spec, games, i).to_json() for i in indices]


def _quiet_worker() -> None:
    # Ctrl-C is the parent's to handle: it keeps what finished and stops the
    # workers itself, so workers ignore it rather than each print a traceback;
    # and a worker stopped while sending a result just ends, silently.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


# -- backends ------------------------------------------------------------------

Chunk = list[int]
NextChunk = Callable[[], "Chunk | None"]


class Backend(Protocol):
    """Plays chunks of games somewhere, ``workers`` at a time.

    :meth:`run` pulls the next chunk from ``next_chunk`` whenever a worker is
    free (so the runner can size chunks by how fast games turn out to be) and
    yields each chunk's results as it finishes, in any order.
    """

    workers: int

    def run(
        self, spec_json: dict[str, Any], next_chunk: NextChunk
    ) -> Iterator[list[dict[str, Any]]]:
        """Play chunks until ``next_chunk`` returns None; yield their results."""
        ...

    def close(self) -> None:
        """Stop the workers at once; chunks still running are dropped."""
        ...


class SerialBackend:
    """Plays in this process, one game after another (``--workers 1``)."""

    workers = 1

    def run(
        self, spec_json: dict[str, Any], next_chunk: NextChunk
    ) -> Iterator[list[dict[str, Any]]]:
        """Play each chunk in turn."""
        while (chunk := next_chunk()) is not None:
            yield play_chunk(spec_json, chunk)

    def close(self) -> None:
        """Nothing to stop."""


class LocalBackend:
    """Worker processes on this machine (spawned, so the same on every OS)."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing

        self.workers = workers or os.cpu_count() or 1
        context = multiprocessing.get_context("spawn")
        self._pool = context.Pool(self.workers, initializer=_quiet_worker)
        self._closed = False

    def run(
        self, spec_json: dict[str, Any], next_chunk: NextChunk
    ) -> Iterator[list[dict[str, Any]]]:
        """Keep two chunks per worker queued; yield results as workers finish them."""
        import queue

        finished: queue.SimpleQueue[Any] = queue.SimpleQueue()
        in_flight = 0
        exhausted = False
        while True:
            while not exhausted and in_flight < 2 * self.workers:
                chunk = next_chunk()
                if chunk is None:
                    exhausted = True
                    break
                self._pool.apply_async(
                    play_chunk,
                    (spec_json, chunk),
                    callback=finished.put,
                    error_callback=finished.put,
                )
                in_flight += 1
            if in_flight == 0:
                return
            # A timeout keeps the wait interruptible by Ctrl-C on every platform.
            while True:
                try:
                    outcome = finished.get(timeout=0.2)
                    break
                except queue.Empty:
                    continue
            in_flight -= 1
            if isinstance(outcome, BaseException):
                raise outcome
            yield outcome

    def close(self) -> None:
        """Terminate the workers (a finished tournament has nothing left in them)."""
        if not self._closed:
            self._closed = True
            self._pool.terminate()
            self._pool.join()


class RayBackend:
    """Ray tasks, on a cluster (``address``) or on a Ray started here for the run."""

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise TournamentError(
                "--backend ray needs Ray: pip install 'apothecary[ray]'"
            ) from None
        self._ray: Any = ray  # Ray's API is only partly typed
        self._owned = not self._ray.is_initialized()
        if self._owned:
            try:
                if address:
                    ray.init(address=address, log_to_driver=False)
                else:
                    ray.init(
                        num_cpus=workers or os.cpu_count() or 1,
                        include_dashboard=False,
                        log_to_driver=False,
                    )
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise TournamentError(f"cannot start or reach Ray: {error}") from None
        cluster_cpus = int(self._ray.cluster_resources().get("CPU", 1))
        self.workers = workers or max(1, cluster_cpus)
        self._task = self._ray.remote(num_cpus=1)(play_chunk)
        self._pending: list[Any] = []
        self._closed = False

    def run(
        self, spec_json: dict[str, Any], next_chunk: NextChunk
    ) -> Iterator[list[dict[str, Any]]]:
        """Keep two chunks per worker in flight; yield each as it comes back."""
        ray = self._ray
        spec_ref = ray.put(spec_json)
        exhausted = False
        while True:
            while not exhausted and len(self._pending) < 2 * self.workers:
                chunk = next_chunk()
                if chunk is None:
                    exhausted = True
                    break
                self._pending.append(self._task.remote(spec_ref, chunk))
            if not self._pending:
                return
            done, self._pending = ray.wait(self._pending, num_returns=1)
            yield ray.get(done[0])

    def close(self) -> None:
        """Cancel what is still running; shut Ray down if it was started here."""
        if self._closed:
            return
        self._closed = True
        for ref in self._pending:
            self._ray.cancel(ref, force=True)
        self._pending = []
        if self._owned:
            self._ray.shutdown()


def make_backend(name: str, workers: int | None = None, address: str | None = None) -> Backend:
    """``"local"`` (serial when one worker) or ``"ray"``; raises TournamentError."""
    if workers is not None and workers < 1:
        raise TournamentError(f"--workers {workers}: use at least 1")
    if name == "local":
        if address:
            raise TournamentError("--ray-address goes with --backend ray")
        count = workers or os.cpu_count() or 1
        return SerialBackend() if count == 1 else LocalBackend(count)
    if name == "ray":
        return RayBackend(workers, address)
    raise TournamentError(f"--backend {name!r}: expected local or ray")


class Chunker:
    """Hands out the missing games in chunks sized to about :attr:`target` seconds.

    The first chunk per worker is one game, to learn how long a game takes;
    later chunks hold as many games as fit in the target time (at most
    :attr:`largest`). Big enough that messages cost little next to play,
    small enough that workers finish together and Ctrl-C loses little.
    """

    target = 0.5
    largest = 64

    def __init__(self, indices: Sequence[int], workers: int) -> None:
        import time

        self._clock = time.perf_counter
        self._todo = list(indices)
        self._next = 0
        self._workers = workers
        self._started = self._clock()
        self._done = 0

    def finished(self, games: int) -> None:
        """Note that ``games`` more games came back."""
        self._done += games

    def __call__(self) -> Chunk | None:
        """The next chunk, or None when every game has been handed out."""
        if self._next >= len(self._todo):
            return None
        if self._done == 0:
            size = 1
        else:
            seconds_per_game = (self._clock() - self._started) * self._workers / self._done
            size = int(self.target / max(seconds_per_game, 1e-6))
        # Never more than an even share of what is left, so no worker is
        # left holding a long last chunk while the others sit idle.
        share = math.ceil((len(self._todo) - self._next) / self._workers)
        size = max(1, min(size, self.largest, share))
        chunk = self._todo[self._next : self._next + size]
        self._next += size
        return chunk


# -- the folder a tournament lives in -------------------------------------------


class TournamentStore:
    """A tournament's folder: its spec and the finished games, appended as they come."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.spec_path = self.folder / SPEC_FILE
        self.games_path = self.folder / GAMES_FILE

    @classmethod
    def open(cls, folder: str | Path, spec: TournamentSpec) -> tuple[TournamentStore, str | None]:
        """Create the folder for ``spec``, or reopen it to resume the same tournament.

        Returns the store and a note when an existing tournament is resumed or
        extended. Raises TournamentError when the folder cannot be written or
        holds a different tournament.
        """
        store = cls(folder)
        note = None
        if store.folder.exists() and not store.folder.is_dir():
            raise TournamentError(f"--out {store.folder}: exists and is not a folder")
        if store.folder.is_dir() and not store.spec_path.exists() and any(store.folder.iterdir()):
            raise TournamentError(
                f"--out {store.folder}: the folder holds other files and no tournament; "
                "use a new or empty folder"
            )
        if store.spec_path.exists():
            old = store.read_spec()
            store._check_same(old, spec)
            done = len(store.read_results(old))
            if spec.games > old.games:
                note = (
                    f"extending {store.folder} from {old.games} to {spec.games} games per variant"
                )
            else:
                note = f"resuming {store.folder}: {done} of {spec.total} games already played"
        try:
            store.folder.mkdir(parents=True, exist_ok=True)
            temporary = store.spec_path.with_suffix(".tmp")
            temporary.write_text(json.dumps(spec.to_json(), indent=1) + "\n", encoding="utf-8")
            os.replace(temporary, store.spec_path)
        except OSError as error:
            raise TournamentError(
                f"--out {store.folder}: cannot write there ({error.strerror})"
            ) from None
        return store, note

    def _check_same(self, old: TournamentSpec, new: TournamentSpec) -> None:
        for field_name in ("game", "players", "bots", "seed", "variants"):
            was, now = getattr(old, field_name), getattr(new, field_name)
            if was != now:
                raise TournamentError(
                    f"--out {self.folder} holds a different tournament ({field_name} there: "
                    f"{_brief(was)}, here: {_brief(now)}); use the same settings or a new folder"
                )
        if new.games < old.games:
            raise TournamentError(
                f"--out {self.folder} holds {old.games} games per variant; -n {new.games} "
                f"would drop some (use -n {old.games} or more)"
            )

    def read_spec(self) -> TournamentSpec:
        """The spec in ``tournament.json``; raises TournamentError."""
        try:
            text = self.spec_path.read_text(encoding="utf-8")
        except OSError as error:
            raise TournamentError(
                f"{self.folder}: no tournament here ({error.strerror} reading {SPEC_FILE})"
            ) from None
        except UnicodeDecodeError as error:
            raise TournamentError(
                f"{self.spec_path} is not UTF-8 text (byte {error.start}); "
                "it is not a tournament description"
            ) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise TournamentError(f"{self.spec_path} is not valid JSON: {error}") from None
        return TournamentSpec.from_json(data)

    def read_results(self, spec: TournamentSpec | None = None) -> dict[int, GameResult]:
        """Every finished game, by index, each line checked against ``spec``.

        ``spec`` defaults to the one in ``tournament.json``. Only a last line
        cut short by a kill (no newline; or the gzip stream just ends) is
        skipped; any other bad line raises TournamentFileError naming it.
        """
        results: dict[int, GameResult] = {}
        if not self.games_path.exists():
            return results
        if spec is None:
            spec = self.read_spec()
        checker = _LineChecker(spec, self.games_path)
        try:
            with gzip.open(self.games_path, "rb") as lines:
                for number, line in enumerate(_complete_lines(lines, self.games_path), 1):
                    result = checker.check(number, line)
                    results[result.index] = result
        except OSError as error:
            raise TournamentError(f"cannot read {self.games_path}: {error}") from None
        return results

    def appender(self, existing: dict[int, GameResult] | None = None) -> GameWriter:
        """A writer that appends finished games (a new gzip member per session).

        ``existing`` is what :meth:`read_results` returned, if already read.
        """
        if existing is None:
            existing = self.read_results()
        if self.games_path.exists() and not _reads_cleanly(self.games_path):
            # A killed run left a gzip member without its end; rewrite what
            # was readable so the file stays one valid stream after appending.
            temporary = self.games_path.with_suffix(".tmp")
            with gzip.open(temporary, "wb") as out:
                for index in sorted(existing):
                    out.write(_line(existing[index]))
            os.replace(temporary, self.games_path)
        return GameWriter(self.games_path)


def _brief(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, tuple) else json.dumps(list(value))
    return text if len(text) <= 60 else text[:57] + "..."


def _line(result: GameResult) -> bytes:
    return (json.dumps(result.to_json(), separators=(",", ":")) + "\n").encode("utf-8")


def _complete_lines(stream: Any, path: Path) -> Iterator[bytes]:
    """Lines of a gzip stream up to where it ends or breaks off (a killed writer's tail).

    A stream that is cut short just ends; one that is not gzip or is corrupt
    (bad data, a failed checksum) raises TournamentFileError.
    """
    try:
        for line in stream:
            if line.endswith(b"\n"):
                yield line
    except EOFError:
        return
    except (zlib.error, gzip.BadGzipFile) as error:
        raise TournamentFileError(path, None, f"is not a readable gzip file ({error})") from None


def _reads_cleanly(path: Path) -> bool:
    """Whether the file is whole: every gzip member ended, and so is its last line."""
    last = b"\n"
    try:
        with gzip.open(path, "rb") as stream:
            while block := stream.read(1 << 20):
                last = block[-1:]
    except (EOFError, zlib.error, gzip.BadGzipFile):
        return False
    return last == b"\n"


_LINE_KEYS = ("index", "variant", "seats", "returns", "length", "record")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return _whole(value) or (isinstance(value, float) and math.isfinite(value))


class _LineChecker:
    """Checks lines of ``games.jsonl.gz`` against the spec, and each against its record."""

    def __init__(self, spec: TournamentSpec, path: Path) -> None:
        self.spec = spec
        self.path = path
        self.games = spec.make_games()
        self.seen: dict[int, int] = {}

    def check(self, number: int, line: bytes) -> GameResult:
        """The line as a result; raises TournamentFileError naming what is wrong."""

        def fail(problem: str) -> TournamentFileError:
            return TournamentFileError(self.path, number, problem)

        try:
            data = json.loads(line)
        except (ValueError, RecursionError) as error:
            raise fail(f"not valid JSON ({error})") from None
        if not isinstance(data, dict):
            raise fail(f"expected a JSON object, got {_json_kind(data)}")
        missing = [k for k in _LINE_KEYS if k not in data]
        if missing:
            raise fail(f"missing {', '.join(repr(k) for k in missing)}")
        unknown = sorted(set(data) - set(_LINE_KEYS))
        if unknown:
            raise fail(f"unknown field {unknown[0]!r}")
        spec, players = self.spec, self.spec.players
        for key in ("index", "variant", "length"):
            if not _whole(data[key]) or (key == "length" and data[key] < 0):
                raise fail(f"{key!r} must be a whole number, not {_brief(data[key])}")
        seats, returns = data["seats"], data["returns"]
        if not (
            isinstance(seats, list)
            and len(seats) == players
            and all(isinstance(s, str) for s in seats)
        ):
            raise fail(f"'seats' must be a list of {players} bot names, not {_brief(seats)}")
        if not (
            isinstance(returns, list) and len(returns) == players and all(map(_number, returns))
        ):
            raise fail(f"'returns' must be a list of {players} numbers, not {_brief(returns)}")
        if not isinstance(data["record"], dict):
            raise fail(f"'record' must be an object, not {_json_kind(data['record'])}")

        index = data["index"]
        if not 0 <= index < spec.total:
            raise fail(
                f"game index {index} is outside the tournament (games 0 to {spec.total - 1})"
            )
        if index in self.seen:
            raise fail(f"game {index} is already on line {self.seen[index]}")
        variant, names = spec.schedule(index)
        if data["variant"] != variant:
            raise fail(f"game {index} plays option set {variant}, not {_brief(data['variant'])}")
        if seats != names:
            raise fail(
                f"game {index}: the schedule seats {_brief(names)} there, not {_brief(seats)}"
            )

        try:
            record = Record.from_json(data["record"])
        except RecordError as error:
            raise fail(f"its record: {error}") from None
        if record.game != spec.game:
            raise fail(f"its record is of {record.game!r}, not {spec.game!r}")
        if record.seats != names:
            raise fail(f"its record seats {_brief(record.seats)}, not {_brief(names)}")
        if record.outcome is None:
            raise fail("its record is of an unfinished game (no outcome)")
        try:
            final = record.replay(game=self.games[variant])
        except RecordError as error:
            raise fail(f"its record does not replay: {error}") from None
        replayed = [float(r) for r in final.returns()]
        if [float(r) for r in returns] != replayed:
            raise fail(
                f"returns {_brief(returns)} differ from its record's replay {_brief(replayed)}"
            )
        if data["length"] != final.move_number():
            raise fail(
                f"length {data['length']} differs from its record's replay {final.move_number()}"
            )
        self.seen[index] = number
        return GameResult.from_json(data)


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "text", bool: "true or false"}
    if value is None:
        return "null"
    return kinds.get(type(value), "a number")


class GameWriter:
    """Appends finished games to ``games.jsonl.gz``, flushed after each batch."""

    def __init__(self, path: Path) -> None:
        # Open for the whole session (closed by close()): one gzip member per
        # session compresses far better than one per flush.
        self._file = gzip.open(path, "ab")  # noqa: SIM115

    def write(self, results: Iterable[GameResult]) -> None:
        """Append and flush, so the games survive a Ctrl-C or a kill right after."""
        # One write per batch: an interruption leaves whole lines or none of the batch.
        self._file.write(b"".join(_line(result) for result in results))
        self._file.flush()

    def close(self) -> None:
        """Finish the gzip member."""
        self._file.close()


# -- running -------------------------------------------------------------------


@dataclass
class TournamentRun:
    """The outcome of :func:`run_tournament`: the games in index order and whether it finished."""

    spec: TournamentSpec
    results: list[GameResult]
    interrupted: bool = False
    played_now: int = 0


def run_tournament(
    spec: TournamentSpec,
    backend: Backend | None = None,
    store: TournamentStore | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> TournamentRun:
    """Play every game of ``spec`` not yet in ``store`` and return them all, in game order.

    ``progress`` is called with the number of games finished so far (earlier
    sessions included); ``on_game`` with each newly finished game. Ctrl-C
    stops the workers and returns what finished, with ``interrupted`` set.
    """
    results = store.read_results(spec) if store is not None else {}
    missing = [i for i in range(spec.total) if i not in results]
    owned = backend is None
    if backend is None:
        backend = SerialBackend()
    writer = store.appender(results) if store is not None and missing else None
    interrupted = False
    played = 0
    if progress is not None:
        progress(len(results))
    chunks = Chunker(missing, backend.workers)
    try:
        for batch in backend.run(spec.to_json(), chunks):
            chunks.finished(len(batch))
            finished = [GameResult.from_json(item) for item in batch]
            if writer is not None:
                writer.write(finished)
            for result in finished:
                results[result.index] = result
            if on_game is not None:
                for result in finished:
                    on_game(result)
            played += len(finished)
            if progress is not None:
                progress(len(results))
    except KeyboardInterrupt:
        interrupted = True
        backend.close()
    finally:
        if writer is not None:
            writer.close()
        if owned:
            backend.close()
    ordered = [results[i] for i in sorted(results)]
    return TournamentRun(spec, ordered, interrupted=interrupted, played_now=played)


def load_tournament(folder: str | Path) -> tuple[TournamentSpec, list[GameResult]]:
    """A tournament folder's spec and its finished games in game order."""
    store = TournamentStore(folder)
    if not store.folder.is_dir():
        raise TournamentError(f"{store.folder}: no such folder")
    spec = store.read_spec()
    results = store.read_results(spec)
    return spec, [results[i] for i in sorted(results)]
