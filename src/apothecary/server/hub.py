"""The live side of the server: rooms in memory, their connections, bots
thinking in a process pool, turn timers, and the rule that every change is
committed to the store before anyone hears of it.

A :class:`Hub` knows nothing of HTTP: :mod:`apothecary.server.app` turns
requests and socket messages into its calls. Each room has a lock; every
change to a room, and every message made from it, happens under that lock,
so a viewer never reads a change the store has not committed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apothecary.bots.pool import ThinkingPool
from apothecary.core.bot import Bot, RandomBot
from apothecary.core.game import Action, State
from apothecary.server.room import (
    Changes,
    Room,
    RoomError,
    RoomNotFound,
    Settings,
    Viewer,
    hash_token,
)
from apothecary.server.store import Store

log = logging.getLogger("apothecary.server")

PROTOCOL_VERSION = 1
"""The version of the WebSocket protocol (docs/protocol.md)."""


@dataclass
class HubConfig:
    """How a hub runs; the defaults are what ``apothecary serve`` uses."""

    bot_workers: int = 1
    """Processes bots think in; 0 thinks in a thread (for tests and tiny servers)."""
    bot_delay: float = 0.8
    """Seconds before a bot's move is shown, so people can follow the play."""
    next_game_delay: float = 5.0
    """Seconds between the games of a series."""
    allow_seed: bool = False
    """Whether a room may be created with a chosen seed (tests and studies only:
    whoever knows the seed knows every shuffle)."""
    send_queue: int = 256
    """Messages waiting for a slow connection before it is dropped."""
    idle_seconds: float = 3600.0
    """A finished room nobody watches leaves memory after this long (it stays
    in the store, and loads again when someone asks for it)."""
    clock: Callable[[], float] = time.time


class Connection:
    """One WebSocket viewer of a room: its seat (or None), what it has been
    sent, and a queue its writer task drains, so one slow socket never holds
    up a room."""

    def __init__(
        self, room: str, viewer: Viewer, queue_size: int, token_hash: str | None = None
    ) -> None:
        self.room = room
        self.viewer = viewer
        self.token_hash = token_hash
        """The hash of the seat token it joined with: the seat follows the person."""
        self.seen = 0
        """How many of the current game's events it has been sent."""
        self.game_no = -1
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.dropped = False

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message``; a connection that cannot keep up is marked dropped."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(json.dumps(message, separators=(",", ":")))
        except asyncio.QueueFull:
            # Too far behind to catch up: make room for the end-of-queue mark
            # so the writer closes the socket; the client reconnects afresh.
            self.dropped = True
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    def close(self) -> None:
        """Ask the writer to stop."""
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


@dataclass
class _Live:
    room: Room
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    waiter: asyncio.Task[None] | None = None
    touched: float = field(default_factory=time.time)
    """When the room last changed (for letting idle rooms leave memory)."""


class Hub:
    """Every room the server holds, and what drives them."""

    def __init__(self, store: Store, config: HubConfig | None = None) -> None:
        self.store = store
        self.config = config or HubConfig()
        self._rooms: dict[str, _Live] = {}
        # One writer thread: SQLite takes one writer at a time anyway, and
        # commits stay in the order the rooms made them.
        self._db = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        self._pool: ThinkingPool | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.closing = False

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the store (migrating it), start the bot pool, resume every room."""
        await self._run_db(self.store.migrate)
        if self.config.bot_workers > 0:
            self._pool = ThinkingPool(self.config.bot_workers)
        since = self.config.clock() - self.config.idle_seconds
        rooms = await self._run_db(self.store.load_active, since)
        for room in rooms:
            self._rooms[room.code] = _Live(room, touched=self.config.clock())
        for live in self._rooms.values():
            self._schedule(live)
        log.info("resumed %d rooms from %s", len(rooms), self.store.describe())
        self._sweeper = asyncio.create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.config.idle_seconds / 10))
            self.sweep()

    def sweep(self) -> int:
        """Let go of finished rooms that nobody watches and nothing waits on,
        idle for ``idle_seconds``; returns how many left memory."""
        now = self.config.clock()
        gone = [
            code
            for code, live in self._rooms.items()
            if live.room.pending() is None
            and live.room.status == "over"
            and not live.connections
            and not live.lock.locked()
            and now - live.touched > self.config.idle_seconds
        ]
        for code in gone:
            del self._rooms[code]
        return len(gone)

    def close_sockets(self) -> None:
        """Tell every connection the server is going (their writers close them
        with that reason); bots and timers stop scheduling."""
        self.closing = True
        for live in self._rooms.values():
            for connection in live.connections:
                connection.close()

    async def close(self) -> None:
        """Stop bots and timers, close every socket with a reason, let the last
        commits finish. Everything accepted was committed before it was told."""
        self.close_sockets()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for live in self._rooms.values():
            if live.waiter is not None:
                live.waiter.cancel()
        self._db.shutdown(wait=True)
        if self._pool is not None:
            self._pool.close()
        self.store.close()

    async def _run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    # -- rooms ----------------------------------------------------------------------------

    async def create(
        self,
        game: str,
        players: int | None,
        options: dict[str, Any],
        seats: list[str] | None,
        settings: Settings,
        seed: str | None = None,
    ) -> tuple[Room, str]:
        """A new room, committed; and the host's token."""
        if seed is not None and not self.config.allow_seed:
            raise RoomError("this server does not take chosen seeds")
        room, token = Room.create(
            game, players, options, seats, settings, self.config.clock(), seed=seed
        )
        await self._run_db(self.store.commit, room, Changes(), self.config.clock())
        self._rooms[room.code] = _Live(room, touched=self.config.clock())
        return room, token

    async def _live(self, code: str) -> _Live:
        live = self._rooms.get(code)
        if live is None:
            room = await self._run_db(self.store.load, code)
            if room is None:
                raise RoomNotFound(f"no room {code!r}")
            live = self._rooms.setdefault(code, _Live(room, touched=self.config.clock()))
        return live

    def listed(self) -> list[dict[str, Any]]:
        """Every listed room that is not over, for the lobby."""
        return [
            live.room.public_info()
            for live in self._rooms.values()
            if live.room.settings.listed and live.room.status != "over"
        ]

    async def info(self, code: str) -> dict[str, Any]:
        """A room's public facts."""
        live = await self._live(code)
        async with live.lock:
            return live.room.public_info()

    async def change(self, code: str, what: Callable[[Room, float], Changes]) -> Room:
        """Apply ``what`` to a room under its lock, draw any chance that follows,
        commit it all in one transaction, then tell every connection and arm
        what comes next (a bot, a timer). RoomError from ``what`` changes nothing."""
        live = await self._live(code)
        async with live.lock:
            await self._change_locked(live, what)
            return live.room

    async def _change_locked(self, live: _Live, what: Callable[[Room, float], Changes]) -> None:
        room = live.room
        now = self.config.clock()
        changes = what(room, now)
        while (pending := room.pending()) is not None and pending.kind == "chance":
            changes.extend(room.apply(room.chance_action(), now))
        try:
            await self._run_db(self.store.commit, room, changes, now)
        except Exception:
            # The room in memory is ahead of the store: take the store's word.
            log.exception("commit failed for room %s; reloading it", room.code)
            restored = await self._run_db(self.store.load, room.code)
            if restored is not None:
                restored.presence = room.presence
                live.room = restored
            raise
        live.touched = now
        self._broadcast(live, changes)
        self._schedule(live)

    # -- connections --------------------------------------------------------------------

    async def connect(self, code: str, token: object) -> tuple[Connection, dict[str, Any]]:
        """A viewer joins: a seat's token, or None to watch. Returns the
        connection and its welcome message; everyone is told of the presence."""
        live = await self._live(code)
        async with live.lock:
            room = live.room
            viewer: Viewer = None if token is None else room.seat_of(token)
            connection = Connection(
                code,
                viewer,
                self.config.send_queue,
                None if viewer is None else hash_token(str(token)),
            )
            live.connections.add(connection)
            room.presence[viewer] += 1
            welcome = {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "room": room.public_info(),
                "you": viewer,
                "chat": list(room.chat),
            }
            self._broadcast(live, Changes())
            return connection, welcome

    async def disconnect(self, connection: Connection) -> None:
        """A viewer left; everyone is told."""
        live = self._rooms.get(connection.room)
        if live is None or connection not in live.connections:
            return
        async with live.lock:
            live.connections.discard(connection)
            live.room.presence[connection.viewer] -= 1
            if not self.closing:
                self._broadcast(live, Changes())

    async def act(self, connection: Connection, action: object, state_id: object) -> None:
        """A viewer's action: checked by the room, then applied and committed."""

        def play(room: Room, now: float) -> Changes:
            chosen: Action = room.check_action(connection.viewer, action, state_id)
            return room.apply(chosen, now)

        await self.change(connection.room, play)

    async def say(self, connection: Connection, text: object) -> None:
        """A seat's chat message."""
        viewer = connection.viewer
        if viewer is None:
            raise RoomError("spectators cannot chat; take a seat to talk")
        await self.change(connection.room, lambda room, now: room.say(viewer, text, now))

    async def back(self, connection: Connection) -> None:
        """A person takes their seat back from the bot that plays for them."""
        viewer = connection.viewer
        if viewer is None:
            raise RoomError("spectators have no seat to take back")
        await self.change(connection.room, lambda room, now: room.back(viewer, now))

    def _broadcast(self, live: _Live, changes: Changes) -> None:
        room = live.room
        if changes.chat and not changes.actions and changes.new_game is None:
            for connection in list(live.connections):  # words only: the table is as it was
                for entry in changes.chat:
                    connection.send({"type": "chat", **entry})
            return
        for connection in live.connections:
            if connection.game_no != room.game_no:
                # A new game: its log starts afresh, and a rematch may have moved
                # the person one seat on (the room moved the presence counts).
                connection.game_no, connection.seen = room.game_no, 0
                if connection.token_hash is not None:
                    connection.viewer = next(
                        (
                            i
                            for i, s in enumerate(room.seats)
                            if s.token_hash == connection.token_hash
                        ),
                        connection.viewer,
                    )
        made: dict[tuple[Viewer, int], dict[str, Any]] = {}
        now = self.config.clock()
        for connection in list(live.connections):
            key = (connection.viewer, connection.seen)
            if key not in made:
                made[key] = room.view(connection.viewer, connection.seen, now)
            connection.send(made[key])
            connection.seen = len(room.log)
            for entry in changes.chat:
                connection.send({"type": "chat", **entry})

    # -- what comes next: bots, timers, the next game of a series ---------------------------

    def _schedule(self, live: _Live) -> None:
        if live.waiter is not None and not live.waiter.done():
            live.waiter.cancel()
        live.waiter = None
        if self.closing:
            return
        pending = live.room.pending()
        if pending is None:
            return
        if pending.kind == "bot":
            live.waiter = asyncio.create_task(self._bot_turn(live, pending.state_id))
        elif pending.kind == "human" and pending.deadline is not None:
            live.waiter = asyncio.create_task(self._timer(live, pending.state_id, pending.deadline))
        elif pending.kind == "next_game":
            live.waiter = asyncio.create_task(self._next_game(live, pending.state_id))

    async def _bot_turn(self, live: _Live, state_id: str) -> None:
        await asyncio.sleep(self.config.bot_delay)
        async with live.lock:
            room = live.room
            pending = room.pending()
            if pending is None or pending.state_id != state_id or pending.seat is None:
                return
            seat = pending.seat
            bot = room.make_bot(seat)
            state = room.state
            assert state is not None
            position = state.clone()
        # Think without the lock: people may chat, and a person may take the seat back.
        try:
            action = await self._think(bot, position)
        except asyncio.CancelledError:
            raise
        except Exception:
            # A bot that fails must not stall its room: the move is drawn from
            # the step number by the random bot instead, and the failure is logged.
            log.exception("bot %r failed in room %s; a random move is played", bot, room.code)
            action = RandomBot(position.game, seat, seed=position.move_number()).step(position)

        def play(room: Room, now: float) -> Changes:
            if room.state_id != state_id:
                return Changes()  # the position moved on while the bot thought
            return room.apply(action, now, by_bot=True)

        async with live.lock:
            if live.room.state_id == state_id:
                live.waiter = None  # this task is the one that schedules the next
                await self._change_locked(live, play)

    async def _think(self, bot: Bot, position: State) -> Action:
        if self._pool is None:
            return await asyncio.to_thread(bot.step, position)
        try:
            return await asyncio.wrap_future(self._pool.step(bot, position))
        except concurrent.futures.process.BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and retry once.
            log.warning("the bot pool broke; starting it again")
            self._pool.close()
            self._pool = ThinkingPool(self.config.bot_workers)
            return await asyncio.wrap_future(self._pool.step(bot, position))

    async def _timer(self, live: _Live, state_id: str, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - self.config.clock()))
        async with live.lock:
            live.waiter = None
            changes = live.room.timeout(max(self.config.clock(), deadline), state_id)
            if changes is not None:
                await self._change_locked(live, lambda room, now: changes)

    async def _next_game(self, live: _Live, state_id: str) -> None:
        await asyncio.sleep(self.config.next_game_delay)
        async with live.lock:
            live.waiter = None
            pending = live.room.pending()
            if pending is not None and pending.kind == "next_game" and pending.state_id == state_id:
                await self._change_locked(live, lambda room, now: room.next_game(now))

    # -- records ----------------------------------------------------------------------------

    async def record(self, code: str, game_no: int) -> dict[str, Any]:
        """A finished game's full record (every secret in it): only once it is over."""
        live = await self._live(code)
        async with live.lock:
            room = live.room
            room.record(game_no, [], [])  # refuses a game still being played
            notation, seating = await self._run_db(self.store.game_actions, code, game_no)
            record = room.record(game_no, notation, seating)
        state = record.replay()
        final = state.outcome()
        record.outcome = None if final is None else final.to_json()
        result: dict[str, Any] = record.to_json()
        return result
