"""Replays of finished games, their analysis, and hints: an APIRouter over the store.

Everything here reads the store's committed rows, never a hub's memory, so
any server process sharing the database answers alike. A finished game is
rebuilt as a :class:`Room` (its actions replayed, so its log is made again by
``describe_action``) and what a viewer sees at a step comes from
:meth:`Room.replay_view`, the replay's twin of the live ``game_view``.
"Everything revealed" is every seat's view side by side and the full state:
only for a game that is over; an unfinished game's replay is refused.

A record file uploaded (or opened with ``apothecary replay --web FILE``) is
checked by replaying it, then kept as a finished, unlisted room of one game,
so its replay has a link like any other. Analyses run in a bot pool
(:class:`~apothecary.bots.pool.ThinkingPool`), one decision at a time, with
their progress readable while they run. A finished analysis is written to the
store once (table ``analyses``) and read from it before any is started, so a
restarted server, or any other process on the same database, serves it at
once; only a running analysis's progress lives in this process's memory.
"""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

import sqlalchemy as sa

from apothecary import analysis
from apothecary.bots.pool import ThinkingPool, ThinkingTooLong
from apothecary.core.bot import Bot
from apothecary.core.errors import ApothecaryError, RecordError
from apothecary.core.game import CHANCE, JSON, ROOM_ACTIONS, Game, State
from apothecary.core.records import Record
from apothecary.core.registry import load
from apothecary.server.room import (
    HUMAN,
    GameTooLong,
    Room,
    RoomError,
    RoomNotFound,
    Seat,
    Settings,
    hash_token,
    new_code,
    new_token,
)
from apothecary.server.store import IMPORT_PART, Store

RECORD_LIMIT = 2_000_000
"""The largest record file the server takes, in bytes."""

RECORD_ACTIONS = ROOM_ACTIONS
"""The most actions (chance's included) a record the server takes may hold: the
longest game a room plays. Every action is replayed and kept as a step, so this,
not the file's size, bounds what one upload costs: a legal record of 169k actions
fits in 2 MB. Ten times the longest game measured at default options (about
2,000 actions with random play, the largest game at its most seats)."""

ANALYSIS_PLAYOUTS = 4
"""Playouts per legal move in a server's analysis (the command line's default is more) ..."""

ANALYSIS_BUDGET = 120
"""... and at most this many a decision (fewer a move where there are many moves)."""

HINT_PLAYOUTS = 8
"""Playouts per legal move for a hint ..."""

HINT_BUDGET = 120
"""... and at most this many in all, so a hint stays quick."""

UPLOADS_PER_MINUTE = 20
"""Records one client address may upload a minute (each is kept in the database)."""

REPLAY_CACHE_BYTES = 64 * 1024 * 1024
"""Bytes of finished games kept rebuilt in memory (they never change), least
recently read leaving first. A game's size is :func:`footprint`'s estimate: its
events as JSON plus its checkpoints pickled (Python holds somewhat more). A game
larger than the whole budget is served but not kept. ``WebConfig.replay_cache_bytes``
and ``apothecary serve --replay-cache-mb`` set it."""

CHECKPOINT_EVERY = 256
"""A finished game keeps a copy of its position every this many actions; a
step view is rebuilt from the checkpoint before it by replaying at most this
many actions (never a copy of every position)."""

REPLAY_SECONDS = 30.0
"""Wall-clock limit of one replay call: rebuilding a finished game (a worker
keeps it, within :data:`REPLAY_CACHE_BYTES`), its summary, a step view, or
checking an uploaded record. Each runs in the replay pool's own worker
process, never in the server's; one still running at the limit has its worker
ended and answers 503 ``replay_too_slow``. The slowest legal game measured (8
seats, 1,661 actions) rebuilds in about 4 s. ``WebConfig.replay_seconds`` and
``apothecary serve --replay-seconds`` set it."""

REPLAY_WORKERS = 1
"""Processes replays are rebuilt in (apart from the bots' and the analyses'
pools, so a long analysis or hint never delays a replay)."""

KEPT_STORED = 64
"""Finished games whose stored rows (room row, actions, seating: a few bytes an
action) this process keeps, so a step view reads the database once a game."""

ANALYSIS_DECISIONS = 4_000
"""The most decisions (a seat's moves, chance's left out) one analysis of the
server values; a game with more is refused (``analysis_too_large``) before any
is valued. Each costs up to :data:`ANALYSIS_BUDGET` playouts in the pool; the
longest default games have about 1,000. ``WebConfig.analysis_decisions`` and
``apothecary serve --analysis-decisions`` set it."""

KEPT_ANALYSES = 64
"""Analyses (running or done) kept in this process's memory; a finished one
evicted from here is read from the store again when asked for."""

ANALYSIS_FORMAT = 1
"""The version of the decisions' JSON as the store keeps it (``Decision.to_json``
and the plan key): raise it when either changes, and older rows are never read."""

ANALYSIS_SEED = 0
"""The base seed of a server's analysis (decision ``k`` gets ``derived_seed(0, k)``)."""

DECISION_KEYS = frozenset(
    ("step", "seat", "method", "moves", "best", "played", "gap", "outlook", "after")
)
"""What every kept decision holds; a row missing any is not served."""

log = logging.getLogger("apothecary.server.replays")

T = TypeVar("T")


class NotFinished(RoomError):
    """A replay, its secrets or its analysis asked for before the game is over."""

    code = "not_finished"
    status = 409


class TooManyAnalyses(RoomError):
    """More analyses running than the server, or one address, may start."""

    code = "too_many_analyses"
    status = 429


ANALYSES_AT_ONCE = 4
"""Analyses this process runs at once; one more is refused (``too_many_analyses``) ..."""

ANALYSES_PER_ADDRESS = 1
"""... and those started by one client address (a finished one frees its place)."""


class ReplayTooSlow(RoomError):
    """A replay call (rebuilding a game, a step view, an upload's check) ran past
    :data:`REPLAY_SECONDS`, and its worker was ended."""

    code = "replay_too_slow"
    status = 503


class BadRecord(RoomError):
    """An uploaded record that cannot be read or does not replay."""

    code = "bad_record"


class TooLarge(RoomError):
    """An uploaded record over :data:`RECORD_LIMIT`."""

    code = "too_large"
    status = 413


class AnalysisTooLarge(RoomError):
    """An analysis asked of a game with more decisions than the server values."""

    code = "analysis_too_large"
    status = 413


class TooLong(RoomError):
    """An uploaded record of more than :data:`RECORD_ACTIONS` actions."""

    code = "too_long"
    status = 413


# -- reading a finished game from the store ----------------------------------------------


@dataclass(frozen=True)
class Stored:
    """A finished game as the store keeps it: its room's row, its actions and who
    sat where. Small (a few bytes an action) and picklable: what a replay
    worker rebuilds the game from."""

    code: str
    game_no: int
    row: dict[str, Any]
    actions: tuple[int, ...]
    seating: tuple[str, ...]

    @property
    def key(self) -> tuple[str, int]:
        """The game's key: (room code, game number)."""
        return self.code, self.game_no


def read_finished(store: Store, code: str, game_no: int) -> Stored:
    """Game ``game_no`` of room ``code`` as the store keeps it (reads only; no replay).

    RoomNotFound for no such room or game; NotFinished while it is played.
    """
    found = store.load_game(code, game_no)
    if found is None:
        raise RoomNotFound(f"no room {code!r}")
    row, game, played = found
    if game is None:
        raise RoomNotFound(f"room {code} has no game {game_no}")
    if game["outcome"] is None:
        raise NotFinished(
            f"game {game_no} of room {code} is not over: its replay, with every "
            "secret in it, opens once it ends"
        )
    stored = {**row, "game_no": game_no, "status": "over", "deadline": None}
    return Stored(code, game_no, stored, tuple(played), tuple(game["seating"] or ()))


def rebuild(stored: Stored) -> Room:
    """The stored game replayed as a finished room (CPU work: a replay worker's)."""
    room = Room.restore(stored.row, list(stored.actions), list(stored.seating))
    if room.state is None or not room.state.is_terminal():
        raise NotFinished(f"game {stored.game_no} of room {stored.code} does not replay to its end")
    return room


def load_finished(store: Store, code: str, game_no: int) -> Room:
    """Game ``game_no`` of room ``code``, rebuilt from the store as a finished room.

    RoomNotFound for no such room or game; NotFinished while it is played.
    """
    return rebuild(read_finished(store, code, game_no))


def load_room(store: Store, code: str) -> Room:
    """Room ``code`` as committed (its current game replayed)."""
    room = store.load(code)
    if room is None:
        raise RoomNotFound(f"no room {code!r}")
    return room


@dataclass(frozen=True)
class Checked:
    """An uploaded record that replayed to its end (:func:`check_record`): what
    the store keeps of it, each action with its actor and notation."""

    game: str
    players: int
    options: dict[str, Any]
    seats: tuple[str, ...]
    outcome: JSON
    history: tuple[int, ...]
    moves: tuple[tuple[int, str], ...]


def check_record(record: Record, bounded: bool = True) -> Checked:
    """A record replayed and checked (CPU work: the replay pool's, within its limit).

    BadRecord names its first bad action, NotFinished refuses a game that is not
    over, TooLong one of more than :data:`RECORD_ACTIONS` actions (before
    replaying any) and GameTooLong options no room takes, unless not ``bounded``
    (one's own file replayed on one's own machine, ``replay --web``).
    """
    if bounded and len(record.actions) > RECORD_ACTIONS:
        raise TooLong(
            f"the record has {len(record.actions):,} actions; the server replays at most "
            f"{RECORD_ACTIONS:,}"
        )
    try:
        too_long = record.make_game().room_problem() if bounded else None
    except RecordError as error:
        raise BadRecord(str(error)) from None
    if too_long is not None:  # as a room would refuse them: the options a server plays
        raise GameTooLong(too_long)
    try:
        final, moves = walk_record(record)
    except RecordError as error:
        raise BadRecord(str(error)) from None
    if not final.is_terminal():
        raise NotFinished(
            f"the record stops after {len(record.actions)} actions, before the game is over; "
            "only finished games are replayed with their secrets"
        )
    outcome = final.outcome()
    assert outcome is not None
    return Checked(
        final.game.name,
        final.game.num_players,
        dict(final.game.options),
        tuple(record.seats),
        outcome.to_json(),
        tuple(final.history()),
        tuple(moves),
    )


def record_rows(
    checked: Checked, now: float | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A checked record as a new unlisted room of one game: its room row and its
    action rows, to keep (:func:`keep_record`, or in parts by :meth:`Replays.upload`)."""
    when = time.time() if now is None else now
    code = new_code()
    settings = Settings(listed=False)
    row = {
        "code": code,
        "game": checked.game,
        "players": checked.players,
        "options": dict(checked.options),
        "settings": settings.to_json(),
        "seed": secrets.token_hex(16),
        "host_hash": hash_token(new_token()),  # nobody holds it: nothing to host
        "seats": [Seat(HUMAN, "medium", name=name).to_json() for name in checked.seats],
        "status": "over",
        "game_no": 1,
        "deadline": None,
        "created": when,
        "updated": when,
    }
    steps = [
        {
            "room": code,
            "game_no": 1,
            "step": step,
            "action": action,
            "notation": notation,
            "actor": actor,
            "at": when,
        }
        for step, (action, (actor, notation)) in enumerate(
            zip(checked.history, checked.moves, strict=True)
        )
    ]
    return row, steps


def keep_record(store: Store, checked: Checked, now: float | None = None) -> str:
    """Keep a checked record as an unlisted room of one game; its code (call it
    on the store's writer)."""
    row, steps = record_rows(checked, now)
    store.insert_finished(row, list(checked.seats), checked.outcome, steps)
    return str(row["code"])


def import_record(
    store: Store, record: Record, now: float | None = None, *, bounded: bool = True
) -> str:
    """Keep a finished game's record as an unlisted room of one game; its code:
    :func:`check_record` then :func:`keep_record`, here (a server checks in its
    replay pool)."""
    return keep_record(store, check_record(record, bounded), now)


def walk_record(record: Record) -> tuple[State, list[tuple[int, str]]]:
    """The record replayed once, with no copy of any position kept (a copy of
    each cost about 1 GB for a long record): its last position, and each
    action's actor and notation as the position before it reads it. RecordError
    names the first bad action, or an outcome that does not match."""
    moves: list[tuple[int, str]] = []
    final: State | None = None
    for index, state in enumerate(record.states()):
        final = state
        if index < len(record.actions):
            try:
                action = state.string_to_action(record.actions[index])
            except ApothecaryError:
                continue  # states() names the bad action at its next step
            moves.append((state.current_player(), state.action_to_string(action)))
    assert final is not None
    if record.outcome is not None:
        record.replay()  # checks the stated outcome against the replay
    return final, moves


# -- what the replay shows ------------------------------------------------------------------


def revealed_moves(room: Room) -> list[dict[str, JSON]]:
    """Every action of a finished game in words, as its actor read it (chance: with
    its outcome): the move list of the replay, for a game that is over."""
    state = room.state
    assert state is not None and state.is_terminal()
    spectator = len(room.seats)
    moves: list[dict[str, JSON]] = []
    replay = room.game.new_initial_state()
    for step, (events, action) in enumerate(zip(room.log, state.history(), strict=True)):
        actor = replay.current_player()
        event = dict(events[actor if actor >= 0 else spectator])
        notation = replay.action_to_string(action)
        if actor == CHANCE:
            event["text"] = f"{event.get('text', 'chance')} ({notation})"
        moves.append(
            {"step": step, "actor": actor, "notation": notation, "text": event.get("text", "")}
        )
        replay.apply_action(action)
    return moves


def seat_names(seating: Sequence[str]) -> list[str]:
    """Each seat's name as the room showed it, from a game's ``seating``: the name
    alone ("Ann", "medium bot"), with its seat where two seats share it
    ("easy bot (seat 1)"), and "seat N" for a seat with no name (a record may
    name none)."""
    names = [name.strip() or f"seat {seat}" for seat, name in enumerate(seating)]
    shared = Counter(names)
    return [
        f"{name} (seat {seat})" if shared[name] > 1 else name for seat, name in enumerate(names)
    ]


def summary(room: Room, code: str, game_no: int) -> dict[str, JSON]:
    """A finished game's replay facts: the game, who sat where, the outcome, the moves."""
    state = room.state
    assert state is not None
    outcome = state.outcome()
    return {
        "code": code,
        "game_no": game_no,
        "game": room.game.name,
        "title": room.game.info.title,
        "players": room.game.num_players,
        "options": dict(room.game.options),
        "seats": list(room.seating),
        "names": list(seat_names(room.seating)),
        "outcome": None if outcome is None else outcome.to_json(words=True),
        "steps": state.move_number(),
        "moves": revealed_moves(room),
        "link": f"/replay/{code}/{game_no}",
    }


def state_at(room: Room, step: int) -> State:
    """The finished game's position after ``step`` actions, replayed from the start."""
    assert room.state is not None
    then = room.game.new_initial_state()
    for action in room.state.history()[:step]:
        then.apply_action(action)
    return then


@dataclass
class Finished:
    """A finished game kept rebuilt: its room, a copy of its position every
    ``every`` actions, the steps a seat chose (not chance), and its estimated
    size in bytes (:func:`footprint`)."""

    room: Room
    checkpoints: list[State]
    every: int
    size: int = 0
    decisions: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, room: Room, every: int = CHECKPOINT_EVERY) -> Finished:
        """``room``'s game with its checkpoints, made in one replay."""
        assert room.state is not None
        history = room.state.history()
        position = room.game.new_initial_state()
        checkpoints = [position.clone()]
        decisions = []
        for index, action in enumerate(history, start=1):
            if position.current_player() >= 0:
                decisions.append(index - 1)
            position.apply_action(action)
            if index % every == 0:
                checkpoints.append(position.clone())
        made = cls(room, checkpoints, every, decisions=decisions)
        made.size = footprint(made)
        return made

    def state_at(self, step: int) -> State:
        """The position after ``step`` actions: its checkpoint's copy, played on."""
        assert self.room.state is not None
        history = self.room.state.history()
        if not 0 <= step <= len(history):
            raise RoomError(f"step {step!r}: the game has steps 0 to {len(history)}")
        base = min(step // self.every, len(self.checkpoints) - 1)
        then = self.checkpoints[base].clone()
        for action in history[base * self.every : step]:
            then.apply_action(action)
        return then


class FinishedCache:
    """Finished games kept rebuilt, by bytes (their :func:`footprint`), least
    recently read leaving first; a game larger than the whole budget is
    served but not kept. Each replay worker has one (:func:`replay_work`).

    A game is kept under its key and its seating: a deleted account's seat is
    renamed in the store (:mod:`apothecary.server.seats`), and the renamed game
    must not be served from the copy that still shows the old name."""

    def __init__(self, budget: int = REPLAY_CACHE_BYTES) -> None:
        self.budget = budget
        self.kept: OrderedDict[tuple[str, int, tuple[str, ...]], Finished] = OrderedDict()

    @property
    def size(self) -> int:
        """The estimated bytes kept now (at most :attr:`budget`)."""
        return sum(kept.size for kept in self.kept.values())

    def get(self, stored: Stored, every: int = CHECKPOINT_EVERY) -> Finished:
        """The stored game rebuilt: the kept copy, or a new one (then kept if it fits)."""
        key = (*stored.key, stored.seating)
        kept = self.kept.get(key)
        if kept is not None:
            self.kept.move_to_end(key)
            return kept
        made = Finished.of(rebuild(stored), every)
        if made.size <= self.budget:
            self.kept[key] = made
            while self.size > self.budget:
                self.kept.popitem(last=False)
        return made


_IN_THIS_WORKER: dict[str, FinishedCache] = {}
"""The replay worker's own cache (one per process; a worker ended at its limit
takes its cache with it)."""


def replay_work(
    stored: Stored,
    what: str,
    at: tuple[int, str] | None = None,
    budget: int = REPLAY_CACHE_BYTES,
    every: int = CHECKPOINT_EVERY,
    cache: FinishedCache | None = None,
) -> Any:
    """One replay call, in a replay worker: the stored game rebuilt (or found
    in ``cache``, by default the worker's own of ``budget`` bytes), then its
    ``summary``, its ``decisions`` (the steps a seat chose) or the ``frame`` at
    ``at`` (step, view). Only the answer, as JSON, goes back to the server."""
    if cache is None:
        cache = _IN_THIS_WORKER.setdefault("cache", FinishedCache(budget))
        cache.budget = budget
    kept = cache.get(stored, every)
    if what == "summary":
        return summary(kept.room, stored.code, stored.game_no)
    if what == "decisions":
        return list(kept.decisions)
    assert what == "frame" and at is not None
    return frame(kept.room, at[0], at[1], kept)


def footprint(finished: Finished) -> int:
    """A kept game's size in bytes, estimated: its room's events as compact JSON
    and its checkpoints pickled."""
    events = len(json.dumps(finished.room.log, separators=(",", ":"), default=str))
    return events + sum(len(pickle.dumps(state)) for state in finished.checkpoints)


def frame(room: Room, step: int, view: str, at: Finished | None = None) -> dict[str, JSON]:
    """What the replay shows at ``step`` from ``view``: a seat number, ``spectator``,
    or ``all`` (every seat's view side by side and the whole state). The position
    is rebuilt once, from ``at``'s checkpoints when given, and read by every view."""
    then = at.state_at(step) if at is not None else None
    if view == "all":
        views = [room.replay_view(seat, step, then) for seat in range(len(room.seats))]
        return {
            "view": "all",
            "step": step,
            "views": views,
            "spectator": room.replay_view(None, step, then),
            "truth": str(then if then is not None else state_at(room, step)),
        }
    if view == "spectator":
        return {"view": view, "step": step, "you": None, **room.replay_view(None, step, then)}
    if not view.isdigit():
        raise RoomError(f"view {view!r}: a seat number, 'spectator' or 'all'")
    seat = int(view)
    return {"view": view, "step": step, "you": seat, **room.replay_view(seat, step, then)}


# -- analysis jobs ----------------------------------------------------------------------


def _decision_steps(start: State, history: list[int]) -> list[int]:
    """Indices of the actions in ``history`` a seat chose (not chance), replayed from ``start``."""
    steps = []
    for index, action in enumerate(history):
        if start.current_player() >= 0:
            steps.append(index)
        start.apply_action(action)
    return steps


def server_plan(game: Game) -> analysis.Plan:
    """The plan of the server's analysis of a game of ``game``'s table."""
    return replace(
        analysis.plan(game, analysis.DEFAULT_BOT, ANALYSIS_PLAYOUTS), budget=ANALYSIS_BUDGET
    )


@dataclass(frozen=True)
class Played:
    """What an analysis needs of a finished game: its table, its actions, and
    the indices of those a seat chose (a server has them from its replay worker)."""

    game: Game
    history: tuple[int, ...]
    steps: tuple[int, ...]

    @classmethod
    def of(cls, room: Room) -> Played:
        """A finished room's game (its decisions found by replaying it here)."""
        assert room.state is not None
        history = room.state.history()
        steps = _decision_steps(room.game.new_initial_state(), history)
        return cls(room.game, tuple(history), tuple(steps))


def plan_key(the_plan: analysis.Plan, seed: int = ANALYSIS_SEED) -> str:
    """Everything besides the game that decides an analysis's result, as one
    canonical text: the store's key for it (with :data:`ANALYSIS_FORMAT`)."""
    return json.dumps(
        {"plan": the_plan.to_json(), "seed": seed}, sort_keys=True, separators=(",", ":")
    )


def well_formed(data: object, steps: list[int]) -> TypeGuard[list[dict[str, JSON]]]:
    """Whether a kept analysis's decisions are one for each decision at ``steps``, in
    order, each with every field a viewer reads (a row written by a bug, or edited
    by hand, is then recomputed instead of served)."""
    return (
        isinstance(data, list)
        and len(data) == len(steps)
        and all(
            isinstance(decision, dict)
            and decision.keys() >= DECISION_KEYS
            and decision["step"] == step
            and isinstance(decision["moves"], list)
            for decision, step in zip(data, steps, strict=True)
        )
    )


@dataclass
class Job:
    """One game's analysis, running or done."""

    total: int
    plan: analysis.Plan
    done: int = 0
    decisions: list[dict[str, JSON]] = field(default_factory=list)
    error: str | None = None
    task: asyncio.Task[None] | None = None

    def to_json(self) -> dict[str, JSON]:
        """The job's progress and the decisions valued so far."""
        status = "failed" if self.error else ("done" if self.done == self.total else "running")
        return {
            "status": status,
            "done": self.done,
            "total": self.total,
            "error": self.error,
            "plan": self.plan.to_json(),
            "decisions": self.decisions,
        }


class Analyses:
    """The analyses of this process, the pool they think in, and the store
    that keeps the finished ones for every process."""

    def __init__(
        self,
        store: Store,
        workers: int = 1,
        max_decisions: int = ANALYSIS_DECISIONS,
        seconds: float | None = None,
    ) -> None:
        self.store = store
        self.workers = workers
        self.max_decisions = max_decisions
        """The most decisions one new analysis may value (:data:`ANALYSIS_DECISIONS`)."""
        self.seconds = seconds
        """Wall-clock limit of one decision (a hint is one): its worker is then stopped."""
        self.jobs: OrderedDict[tuple[str, int], Job] = OrderedDict()
        self.starters: dict[tuple[str, int], str | None] = {}
        """The client address that started each analysis still running."""
        self._pool: ThinkingPool | None = None
        # Held while a start looks for an analysis and launches one: two requests
        # for one game at once then start one analysis, not two.
        self._starting = asyncio.Lock()

    def pool(self) -> ThinkingPool | None:
        """The pool (made on first use; None: think in a thread)."""
        if self._pool is None and self.workers > 0:
            self._pool = ThinkingPool(self.workers, self.seconds)
        return self._pool

    async def value(
        self, state: State, the_plan: analysis.Plan, seed: int, owner: object = None
    ) -> dict[str, Any]:
        """One decision valued in the pool, as an :class:`~apothecary.analysis.Analyst`,
        stopped after :attr:`seconds` (``ThinkingTooLong``); the pool takes
        ``owner``'s calls in turn with other owners'."""
        analyst = analysis.Analyst(state.game, state.current_player(), seed=seed, the_plan=the_plan)
        await self.think(analyst, state, owner)
        assert analyst.decision is not None
        return analyst.decision

    async def think(self, bot: Bot, state: State, owner: object = None) -> None:
        """``bot.step(state)`` in the pool within :attr:`seconds` (a thread, with
        no pool, is only no longer waited for)."""
        pool = self.pool()
        if pool is None:
            try:
                await asyncio.wait_for(asyncio.to_thread(bot.step, state), self.seconds)
            except TimeoutError:
                raise ThinkingTooLong(f"no answer within its limit of {self.seconds:g} s") from None
        else:
            await asyncio.wrap_future(pool.step(bot, state, owner=owner))

    def _kept(
        self, key: tuple[str, int], played: Played, plan: str
    ) -> list[dict[str, JSON]] | None:
        """The finished analysis the store keeps for this game, if it is one
        this version reads (blocks: called on the store's writer, as it may delete one)."""
        data = self.store.kept_analysis(*key, plan, ANALYSIS_FORMAT)
        if data is None:
            return None
        if not well_formed(data, list(played.steps)):
            # Not served, and deleted so that the new analysis can be kept in its place.
            log.warning("game %s/%s: its kept analysis is unreadable; computing it again", *key)
            self.store.forget_analysis(*key, plan, ANALYSIS_FORMAT)
            return None
        return data

    async def find(self, key: tuple[str, int], played: Played) -> Job | None:
        """The game's analysis if one is known: in this process's memory (running,
        done or failed), else finished in the store; None if neither."""
        job = self.jobs.get(key)
        if job is not None:
            self.jobs.move_to_end(key)
            return job
        return await self._from_store(key, played)

    async def _from_store(self, key: tuple[str, int], played: Played) -> Job | None:
        the_plan = server_plan(played.game)
        kept = await self.store.run(self._kept, key, played, plan_key(the_plan))
        if kept is None:
            return None
        job = Job(len(kept), the_plan, done=len(kept), decisions=kept)
        self._remember(key, job)
        return job

    async def keep(self, key: tuple[str, int], job: Job) -> None:
        """Write a finished analysis to the store; a write that fails costs only
        a later recomputation, so it is logged, and the analysis is still shown."""
        try:
            await self.store.run(
                self.store.keep_analysis,
                *key,
                plan_key(job.plan),
                ANALYSIS_FORMAT,
                job.decisions,
                time.time(),
            )
        except sa.exc.SQLAlchemyError as error:
            log.warning("game %s/%s: its analysis could not be kept: %s", *key, error)

    def _remember(self, key: tuple[str, int], job: Job) -> None:
        self.jobs[key] = job
        self.jobs.move_to_end(key)
        while len(self.jobs) > KEPT_ANALYSES:
            old_key = next(iter(self.jobs))
            old = self.jobs.pop(old_key)
            if old.task is not None:
                old.task.cancel()

    async def start(self, key: tuple[str, int], played: Played, address: str | None = None) -> Job:
        """The game's analysis: the one in memory (unless it failed), the one
        the store keeps, or a new one started (for client ``address``: see
        :data:`ANALYSES_AT_ONCE`)."""
        job = self._going(key)
        if job is not None:
            return job
        async with self._starting:
            job = self._going(key) or await self._from_store(key, played)
            if job is not None:
                return job
            self._check_room_for_one(address)
            self.starters[key] = address
            return self._launch(key, played)

    def _check_room_for_one(self, address: str | None) -> None:
        """TooManyAnalyses when the server, or ``address``, runs as many as it may."""
        running = [
            key for key, job in self.jobs.items() if job.task is not None and not job.task.done()
        ]
        for key in list(self.starters):
            if key not in running:
                del self.starters[key]
        if len(running) >= ANALYSES_AT_ONCE:
            raise TooManyAnalyses(
                f"the server runs {len(running)} analyses, its most; try again later"
            )
        mine = sum(1 for key in running if self.starters.get(key) == address)
        if address is not None and mine >= ANALYSES_PER_ADDRESS:
            raise TooManyAnalyses(
                "an analysis your address started is still running; wait for it to finish"
            )

    def _going(self, key: tuple[str, int]) -> Job | None:
        """The game's analysis in memory, running or done (not one that failed)."""
        job = self.jobs.get(key)
        if job is None or job.error is not None:
            return None
        self.jobs.move_to_end(key)
        return job

    def _launch(self, key: tuple[str, int], played: Played) -> Job:
        """A new analysis of the game, running as a task."""
        if len(played.steps) > self.max_decisions:
            raise AnalysisTooLarge(
                f"the game has {len(played.steps):,} decisions; this server analyses games "
                f"of at most {self.max_decisions:,}"
            )
        the_plan = server_plan(played.game)
        job = Job(len(played.steps), the_plan)

        async def run() -> None:
            # One walk through the game (applying actions only: no position is
            # described or kept); each decision is valued on a copy, in the pool.
            position = played.game.new_initial_state()
            try:
                for index, action in enumerate(played.history):
                    if position.current_player() >= 0:
                        seed = analysis.derived_seed(ANALYSIS_SEED, index)
                        data = await self.value(position.clone(), the_plan, seed, key)
                        job.decisions.append(analysis.from_json(data, action).to_json())
                        job.done += 1
                    position.apply_action(action)
            except Exception as error:  # shown to whoever watches the job
                job.error = f"the analysis stopped: {error}"
                return
            await self.keep(key, job)

        job.task = asyncio.get_running_loop().create_task(run())
        self._remember(key, job)
        return job

    def close(self) -> None:
        """Stop the jobs and the pool."""
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        if self._pool is not None:
            self._pool.close()
            self._pool = None


# -- what the routes read -------------------------------------------------------------


class Replays:
    """A server's replays and analyses (the routes in
    :mod:`apothecary.server.routes.replays` and ``.hints``).

    Every replay's CPU work (rebuilding a finished game, its summary, a step
    view, checking an upload) runs in the replay pool's worker processes
    (``replay_workers``; 0: in a thread, for tests, which cannot be stopped),
    each call within ``replay_seconds`` (:data:`REPLAY_SECONDS`); a worker keeps
    the games it rebuilt within ``cache_bytes``. This process keeps only the
    stored rows of recent games (:data:`KEPT_STORED`) and does the I/O.
    """

    def __init__(
        self,
        store: Store,
        analysis_workers: int = 1,
        cache_bytes: int = REPLAY_CACHE_BYTES,
        max_decisions: int = ANALYSIS_DECISIONS,
        every: int = CHECKPOINT_EVERY,
        seconds: float | None = None,
        replay_workers: int = REPLAY_WORKERS,
        replay_seconds: float = REPLAY_SECONDS,
    ) -> None:
        self.store = store
        self.cache_bytes = cache_bytes
        """The most bytes of finished games a replay worker keeps (:data:`REPLAY_CACHE_BYTES`)."""
        self.every = every
        self.replay_workers = replay_workers
        self.replay_seconds = replay_seconds
        self.stored: OrderedDict[tuple[str, int], Stored] = OrderedDict()
        self.cache = FinishedCache(cache_bytes)
        """The cache replays use with no pool (``replay_workers=0``)."""
        self._pool: ThinkingPool | None = None
        self.analyses = Analyses(store, analysis_workers, max_decisions, seconds)

    def pool(self) -> ThinkingPool | None:
        """The replay pool (made on first use; None: replay in a thread)."""
        if self._pool is None and self.replay_workers > 0:
            self._pool = ThinkingPool(self.replay_workers, self.replay_seconds)
        return self._pool

    async def stored_game(self, code: str, game_no: int) -> Stored:
        """Game ``game_no`` of room ``code`` as stored (kept: it never changes)."""
        key = (code, game_no)
        kept = self.stored.get(key)
        if kept is None:
            kept = await asyncio.to_thread(read_finished, self.store, code, game_no)
            self.stored[key] = kept
            while len(self.stored) > KEPT_STORED:
                self.stored.popitem(last=False)
        self.stored.move_to_end(key)
        return kept

    async def in_pool(self, function: Callable[..., T], *args: Any, owner: Hashable) -> T:
        """``function(*args)`` in the replay pool within :attr:`replay_seconds`
        (ReplayTooSlow past it); the pool takes ``owner``'s calls in turn."""
        pool = self.pool()
        if pool is None:
            return await asyncio.to_thread(function, *args)
        try:
            answer: T = await asyncio.wrap_future(pool.call(function, *args, owner=owner))
        except ThinkingTooLong:
            raise ReplayTooSlow(
                f"the replay was stopped after this server's limit of {self.replay_seconds:g} s"
            ) from None
        return answer

    async def replay(
        self,
        code: str,
        game_no: int,
        what: str,
        at: tuple[int, str] | None = None,
        owner: Hashable = None,
    ) -> Any:
        """A finished game's ``summary``, ``decisions`` or ``frame`` at ``at``,
        worked out in the replay pool (:func:`replay_work`)."""
        stored = await self.stored_game(code, game_no)
        cache = self.cache if self.replay_workers == 0 else None
        return await self.in_pool(
            replay_work,
            stored,
            what,
            at,
            self.cache_bytes,
            self.every,
            cache,
            owner=("replay", owner if owner is not None else stored.key),
        )

    async def played(self, code: str, game_no: int, owner: Hashable = None) -> Played:
        """What an analysis of the finished game needs (its decisions found in the pool)."""
        stored = await self.stored_game(code, game_no)
        steps = await self.replay(code, game_no, "decisions", owner=owner)
        row = stored.row
        game = load(row["game"], row["players"], **row["options"])
        return Played(game, stored.actions, tuple(steps))

    async def upload(self, record: Record, owner: Hashable = None) -> str:
        """An uploaded record checked in the replay pool, then kept; its room's code."""
        checked = await self.in_pool(check_record, record, owner=("upload", owner))
        row, steps = record_rows(checked)
        store = self.store
        await store.run(store.begin_import, row, list(checked.seats), checked.outcome)
        # In parts, so other rooms' commits on the one writer go between them.
        for start in range(0, len(steps), IMPORT_PART):
            await store.run(store.import_steps, steps[start : start + IMPORT_PART])
        await store.run(store.end_import, row["code"], row["status"], row["updated"])
        return str(row["code"])

    async def hint(self, code: str, token: str | None) -> dict[str, Any]:
        """The strongest bot's suggestion for the seat ``token`` is, on its turn."""
        room = await asyncio.to_thread(load_room, self.store, code)
        seat = room.seat_of(token)
        position = room.hint_position(seat)
        the_plan = replace(
            analysis.plan(room.game, analysis.DEFAULT_BOT, HINT_PLAYOUTS), budget=HINT_BUDGET
        )
        seed = analysis.derived_seed(room.code, room.game_no, position.move_number(), "hint")
        data = await self.analyses.value(position, the_plan, seed, ("hint", room.code, seat))
        return {
            "state_id": room.state_id,
            "seat": seat,
            "suggestion": data["best"],
            "moves": data["moves"],
            "method": data["method"],
        }

    def close(self) -> None:
        """Stop the analyses and both pools."""
        self.analyses.close()
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def read_record(body: bytes) -> Record:
    """An uploaded record file read: TooLarge, or BadRecord saying what is wrong."""
    if len(body) > RECORD_LIMIT:
        raise TooLarge(f"a record is at most {RECORD_LIMIT:,} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRecord(f"record is not UTF-8 text (byte {error.start})") from None
    try:
        return Record.loads(text)
    except RecordError as error:
        raise BadRecord(str(error)) from None


# -- apothecary replay --web ------------------------------------------------------------


def serve_record(path: Path, host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve one record's replay on a local server until Ctrl-C (``replay --web``)."""
    import tempfile

    import typer
    import uvicorn

    from apothecary.i18n.terminal import _
    from apothecary.server.app import WebConfig, create_app
    from apothecary.server.hub import HubConfig

    record = Record.load(path)
    with tempfile.TemporaryDirectory(prefix="apothecary-replay-") as folder:
        store = Store(f"sqlite:///{Path(folder) / 'replay.sqlite3'}")
        store.migrate()
        code = import_record(store, record, bounded=False)
        # One's own file on one's own machine: no replay is stopped for its length.
        app = create_app(store, HubConfig(bot_workers=0), WebConfig(replay_seconds=86_400.0))
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        server = uvicorn.Server(config)

        async def announce() -> None:
            while not server.started:
                await asyncio.sleep(0.05)
            for listener in server.servers:
                for sock in listener.sockets:
                    bound, number = sock.getsockname()[:2]
                    typer.echo(f"replay at http://{bound}:{number}/replay/{code}/1")
                    typer.echo(_("Open that address in a browser; press Ctrl-C to stop."))
                    return

        async def main() -> None:
            watcher = asyncio.create_task(announce())
            await server.serve()
            watcher.cancel()

        try:
            asyncio.run(main())
        finally:
            store.close()
