"""The live side of the server: rooms in memory, their connections, bots
thinking in a process pool, turn timers, and the rule that every change is
committed to the store before anyone hears of it.

A :class:`Hub` knows nothing of HTTP: :mod:`apothecary.server.app` turns
requests and socket messages into its calls. Each room has a lock; every
change to a room, and every message made from it, happens under that lock,
so a viewer never reads a change the store has not committed.

Alone (SQLite, no Redis) a hub holds every room. In a cluster (several
processes on one PostgreSQL database and one Redis, :mod:`.cluster`) a hub
holds the rooms whose database lease it has: it alone changes them, runs
their bots and timers and makes their viewers' messages. A request for a
room held elsewhere goes to its holder as a Redis request, and a socket of
such a room is relayed: its commands go to the holder, and the holder's
messages for it, made for its viewer, come back to be written out as they
are. When a holder dies its leases run out and the rooms are taken over
from the database.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from apothecary.bots.pool import ThinkingPool
from apothecary.core.bot import Bot, RandomBot
from apothecary.core.game import Action, State
from apothecary.server.cluster import Bus, ClusterConfig, NotHere, Unavailable
from apothecary.server.commands import RoomCommand, SocketCommand, from_json
from apothecary.server.room import (
    Changes,
    Room,
    RoomError,
    RoomNotFound,
    Settings,
    Viewer,
    hash_token,
)
from apothecary.server.store import Lease, LeaseLost, Store

log = logging.getLogger("apothecary.server")

PROTOCOL_VERSION = 2
"""The version of the WebSocket protocol (docs/protocol.md)."""

GOING = (1001, "server shutting down")
MOVED = (1012, "the room moved to another server process; reconnect")
"""How a socket is closed when its room is now held by another process (the
client reconnects, and reaches the room wherever it is held)."""
TOO_SLOW = (1008, "too slow: reconnect")


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
    left_after: float = 10.0
    """Seconds a seated person may be without a connection before the log
    says they left (a phone that reconnects sooner is not reported)."""
    idle_seconds: float = 3600.0
    """A finished room nobody watches leaves memory after this long (it stays
    in the store, and loads again when someone asks for it)."""
    clock: Callable[[], float] = time.time
    vouch_seconds: float = 1.0
    """How often the store is told that the rooms with a running turn timer are
    still held: a restart gives the seat to move back the time since then."""


class Connection:
    """One WebSocket viewer of a room: its seat (or None), what it has been
    sent, and a queue its writer task drains, so one slow socket never holds
    up a room."""

    def __init__(
        self,
        room: str,
        viewer: Viewer,
        queue_size: int,
        token_hash: str | None = None,
        relay_to: str | None = None,
    ) -> None:
        self.room = room
        self.viewer = viewer
        self.token_hash = token_hash
        """The hash of the seat token it joined with: the seat follows the person."""
        self.seen = 0
        """How many of the current game's events it has been sent."""
        self.noticed = 0
        """How many of the current game's notices it has been sent."""
        self.game_no = -1
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.dropped = False
        self.id = secrets.token_hex(8)
        self.relay_to = relay_to
        """The process holding the room, when this socket is relayed to it."""
        self.closing: tuple[int, str] | None = None
        """The close code and reason its writer closes the socket with."""
        self.heard = 0
        """A relayed socket: how many messages the holder has sent it."""
        self.writer: asyncio.Task[None] | None = None
        """The task writing the queue out to this process's socket, once it runs."""

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message``; a connection that cannot keep up is marked dropped."""
        self.send_text(json.dumps(message, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Queue a message already in JSON."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            # Too far behind to catch up: make room for the end-of-queue mark
            # so the writer closes the socket; the client reconnects afresh.
            self.dropped = True
            self.closing = TOO_SLOW
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    def close(self, code: int = GOING[0], reason: str = GOING[1]) -> None:
        """Ask the writer to stop, closing the socket with ``code`` and ``reason``."""
        if self.closing is None:
            self.closing = (code, reason)
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


class RemoteConnection(Connection):
    """On the process holding a room: a socket that another process relays.
    What is sent to it goes, as made here, to that process to write out."""

    def __init__(self, room: str, bus: Bus, process: str, connection_id: str) -> None:
        super().__init__(room, None, 1)
        self.bus, self.process, self.id = bus, process, connection_id

    def send_text(self, text: str) -> None:
        """Send a message to the relaying process, for its socket (numbered,
        so the relay notices one lost on the way)."""
        self.heard += 1
        self.bus.send(self.process, {"kind": "out", "conn": self.id, "text": text, "n": self.heard})

    def close(self, code: int = MOVED[0], reason: str = MOVED[1]) -> None:
        """Ask the relaying process to close its socket."""
        message = {"kind": "close", "conn": self.id, "code": code, "reason": reason}
        self.bus.send(self.process, message)


@dataclass
class _Live:
    room: Room
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    waiter: asyncio.Task[None] | None = None
    touched: float = field(default_factory=time.time)
    """When the room last changed (for letting idle rooms leave memory)."""
    shown: dict[str, Any] | None = None
    """What the cluster's list of open rooms shows of it (None: not there)."""
    until: float = 0.0
    """In a cluster: until when (monotonic time) this process's lease of the
    room is known to last; past it, a read asks the database first."""


class Hub:
    """Every room the server holds, and what drives them."""

    def __init__(
        self, store: Store, config: HubConfig | None = None, cluster: ClusterConfig | None = None
    ) -> None:
        self.store = store
        self.config = config or HubConfig()
        self.cluster = cluster
        self.bus: Bus | None = None if cluster is None else Bus(cluster)
        self._lease: Lease | None = (
            None if cluster is None or self.bus is None else (self.bus.id, cluster.lease_seconds)
        )
        self._rooms: dict[str, _Live] = {}
        """The rooms this process holds (alone: all of them)."""
        self._holders: dict[str, tuple[str, float]] = {}
        """Rooms held elsewhere: by which process, and until when (monotonic
        time) its lease was known to last; after that the database is asked
        again, so a holder that stalls past its lease is not waited on."""
        self._relays: dict[str, Connection] = {}
        """Sockets here of rooms held elsewhere, by connection id."""
        self._silent: dict[str, float] = {}
        """Processes a message found nobody listening for, and until when
        (monotonic time) to believe they died, unless Redis says otherwise."""
        self._remote: dict[str, RemoteConnection] = {}
        """Sockets elsewhere of rooms held here, by connection id."""
        self._heart: asyncio.Task[None] | None = None
        self._chores: set[asyncio.Task[None]] = set()
        self._departures: set[asyncio.Task[None]] = set()
        """Waits of :attr:`HubConfig.left_after` before the log says someone left."""
        self._pool: ThinkingPool | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._voucher: asyncio.Task[None] | None = None
        self.closing = False

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the store (migrating it), start the bot pool, resume every room."""
        await self._run_db(self.store.migrate)
        if self.config.bot_workers > 0:
            self._pool = ThinkingPool(self.config.bot_workers)
        if self.bus is None:
            since = self.config.clock() - self.config.idle_seconds
            await self._run_db(self.store.resume_clocks, self.config.clock())
            rooms = await self._run_db(self.store.load_active, since)
            for room in rooms:
                self._rooms[room.code] = _Live(room, touched=self.config.clock())
            for live in self._rooms.values():
                self._schedule(live)
                self._watch_absent(live)
            log.info("resumed %d rooms from %s", len(rooms), self.store.describe())
        else:
            await self.bus.start(self._answer, self._relayed, self._gone)
            taken = await self._take_orphans()
            log.info(
                "process %s shares rooms through %s and %s; took %d rooms nobody held",
                self.bus.id,
                self.store.describe(),
                self.bus.describe(),
                taken,
            )
            self._heart = asyncio.create_task(self._heartbeat_forever())
        self._sweeper = asyncio.create_task(self._sweep_forever())
        self._voucher = asyncio.create_task(self._vouch_forever())

    async def _vouch_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.vouch_seconds)
            timed = [code for code, live in self._rooms.items() if live.room.deadline is not None]
            if not timed:
                continue
            try:
                await self._run_db(self.store.vouch, timed, self.config.clock())
            except Exception:  # a database that is away a moment: the next one may do
                log.exception("could not tell the store the timed rooms are held")

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
        if gone and self._lease is not None:
            # Let the leases go too: whichever process is asked for the room next takes it.
            self.store.submit(self.store.release, self._lease[0], gone)
        return len(gone)

    def close_sockets(self) -> None:
        """Tell every connection the server is going (their writers close them
        with that reason); bots and timers stop scheduling."""
        self.closing = True
        for live in self._rooms.values():
            for connection in live.connections:
                connection.close()
        for connection in self._relays.values():
            connection.close()

    async def sockets_closed(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the writers told by
        :meth:`close_sockets` to have closed their sockets."""
        writers = [
            connection.writer
            for connection in [
                *(c for live in self._rooms.values() for c in live.connections),
                *self._relays.values(),
            ]
            if connection.writer is not None and not connection.writer.done()
        ]
        if writers:
            await asyncio.wait(writers, timeout=timeout)

    async def close(self) -> None:
        """Stop bots and timers, close every socket with a reason, let the last
        commits finish. Everything accepted was committed before it was told.
        In a cluster the leases are given up, so others take the rooms at once."""
        self.close_sockets()
        for task in (self._sweeper, self._heart, self._voucher):
            if task is not None:
                task.cancel()
        for live in self._rooms.values():
            if live.waiter is not None:
                live.waiter.cancel()
        for departure in list(self._departures):
            departure.cancel()
        if self._lease is not None:
            with contextlib.suppress(Exception):
                await self._run_db(self.store.release, self._lease[0])
        if self._pool is not None:
            self._pool.close()
        if self.bus is not None:
            await self.bus.close()
        self.store.close()

    async def _run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.store.run(fn, *args)

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
        # In a cluster the room's lease is this process's from its first commit.
        asked = time.monotonic()
        await self._run_db(self.store.commit, room, Changes(), self.config.clock(), self._lease)
        live = self._rooms[room.code] = _Live(room, touched=self.config.clock())
        live.until = asked + self._lease_seconds()
        self._list(live)
        return room, token

    async def _live(self, code: str) -> _Live:
        live = self._rooms.get(code)
        if live is None:
            if self.bus is not None:  # held elsewhere, or let go a moment ago
                raise NotHere(f"room {code!r} is not held by this process")
            room = await self._run_db(self.store.load, code)
            if room is None:
                raise RoomNotFound(f"no room {code!r}")
            live = self._rooms.setdefault(code, _Live(room, touched=self.config.clock()))
        return live

    async def listed(self) -> list[dict[str, Any]]:
        """Every listed room that is not over, for the lobby (in a cluster,
        every process's, from the list the holders keep in Redis)."""
        if self.bus is not None:
            found = await self.bus.listed()
            return sorted(found, key=lambda info: float(info.get("created") or 0))
        return [
            live.room.public_info()
            for live in self._rooms.values()
            if live.room.settings.listed and live.room.status != "over"
        ]

    def _list(self, live: _Live) -> None:
        """Keep the cluster's list of open rooms up to date with this room."""
        if self.bus is None:
            return
        room = live.room
        if room.settings.listed and room.status != "over":
            info = room.public_info()
            if info != live.shown:  # most changes are moves, which the list does not show
                self.bus.list_room(room.code, info)
                live.shown = info
        elif live.shown is not None:
            self.bus.list_room(room.code, None)
            live.shown = None

    # -- the public operations: done here, or by the process holding the room ---------------

    async def ask(self, command: RoomCommand) -> Any:
        """Do a command about a room where the room is held: here, or by asking
        its holder (the command travels as its named fields)."""

        async def there(holder: str) -> Any:
            assert self.bus is not None
            return await self.bus.request(holder, "room", {"command": command.to_json()})

        return await self._where_held(command.code, lambda: command.here(self), there)

    async def _where_held(
        self,
        code: str,
        here: Callable[[], Awaitable[Any]],
        there: Callable[[str], Awaitable[Any]],
    ) -> Any:
        """``here()`` if this process holds the room, else ``there(holder)``.
        A holder that no longer holds it, or died before hearing the request,
        did nothing: ask the database again. A holder that heard but did not
        answer is Unavailable (it may have done it: never done twice)."""
        give_up = time.monotonic() + self._patience()
        while True:
            holder = await self._holder(code)
            try:
                return await (here() if holder is None else there(holder))
            except NotHere:
                self._holders.pop(code, None)
            except LeaseLost:
                self._let_go(code, "its lease ran out")
            if time.monotonic() > give_up:
                raise Unavailable("the room's server is not answering; try again")

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
        if self.bus is not None and self._rooms.get(room.code) is not live:
            raise NotHere(f"room {room.code!r} is not held by this process")  # let go meanwhile
        now = self.config.clock()
        changes = what(room, now)
        while (pending := room.pending()) is not None and pending.kind == "chance":
            changes.extend(room.apply(room.chance_action(), now))
        asked = time.monotonic()
        try:
            await self._run_db(self.store.commit, room, changes, now, self._lease)
            live.until = asked + self._lease_seconds()  # the commit renewed the lease
        except LeaseLost:
            # Another process holds the room now (this one stalled past its
            # lease): what memory holds is not the room any more. Let it go;
            # nobody heard of the change, and the store has none of it.
            self._let_go(room.code, "another process holds it now")
            raise
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
        connection and its welcome message; everyone is told of the presence.
        In a cluster, a socket of a room held elsewhere is relayed to its holder."""
        if self.bus is None:
            return await self._connect_here(code, token, None)
        result: tuple[Connection, dict[str, Any]] = await self._where_held(
            code,
            lambda: self._connect_here(code, token, None),
            lambda holder: self._connect_there(code, token, holder),
        )
        return result

    async def _connect_there(
        self, code: str, token: object, holder: str
    ) -> tuple[Connection, dict[str, Any]]:
        """A socket of a room ``holder`` holds, relayed to it."""
        assert self.bus is not None
        connection = Connection(code, None, self.config.send_queue, relay_to=holder)
        # Listed before asking, so the messages the holder sends it while it
        # joins (before its answer, on the same channel) are kept.
        self._relays[connection.id] = connection
        try:
            welcome = await self.bus.request(
                holder, "connect", {"code": code, "token": token, "conn": connection.id}
            )
        except BaseException:
            self._relays.pop(connection.id, None)
            raise
        connection.viewer = welcome["you"]
        return connection, welcome

    async def _connect_here(
        self, code: str, token: object, remote: RemoteConnection | None
    ) -> tuple[Connection, dict[str, Any]]:
        live = await self.held(code)
        async with live.lock:
            if self.bus is not None and self._rooms.get(code) is not live:
                raise NotHere(f"room {code!r} is not held by this process")  # let go meanwhile
            room = live.room
            viewer: Viewer = None if token is None else room.seat_of(token)
            token_hash = None if viewer is None else hash_token(str(token))
            connection: Connection
            if remote is None:
                connection = Connection(code, viewer, self.config.send_queue, token_hash)
            else:
                connection, remote.viewer, remote.token_hash = remote, viewer, token_hash
                self._remote[remote.id] = remote
            live.connections.add(connection)
            room.presence[viewer] += 1
            back = viewer is not None and room.gone(viewer)
            welcome = {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "room": room.public_info(),
                "you": viewer,
                "chat": list(room.chat),
            }
            if back and viewer is not None:  # the log said they left: it says they are back
                seat = viewer
                await self._change_locked(live, lambda room, now: room.returned(seat, now))
            else:
                self._broadcast(live, Changes())
            return connection, welcome

    async def disconnect(self, connection: Connection) -> None:
        """A viewer left; everyone is told."""
        if connection.relay_to is not None:
            if self._relays.pop(connection.id, None) is not None and self.bus is not None:
                self.bus.tell(connection.relay_to, "disconnect", {"conn": connection.id})
            return
        if isinstance(connection, RemoteConnection):
            self._remote.pop(connection.id, None)
        live = self._rooms.get(connection.room)
        if live is None or connection not in live.connections:
            return
        async with live.lock:
            live.connections.discard(connection)
            live.room.presence[connection.viewer] -= 1
            if not self.closing:
                self._broadcast(live, Changes())
                if connection.viewer is not None and live.room.leaving(connection.viewer):
                    self._watch_departure(live, connection.token_hash)

    def _watch_absent(self, live: _Live) -> None:
        """A room just resumed or taken over has no connections: whoever does not
        reconnect within ``left_after`` seconds is told to have left, as if
        their socket had closed now (nobody waits on a ghost unawares)."""
        for index, seat in enumerate(live.room.seats):
            if live.room.leaving(index):
                self._watch_departure(live, seat.token_hash)

    def _watch_departure(self, live: _Live, token_hash: str | None) -> None:
        """The log says the person left if no connection of theirs comes back
        within ``left_after`` seconds (reconnects sooner say nothing)."""

        async def wait() -> None:
            await asyncio.sleep(self.config.left_after)
            async with live.lock:
                room = live.room
                if self.closing or self._rooms.get(room.code) is not live:
                    return
                # The person's seat now (a rematch moves everyone one seat on).
                seats = [i for i, s in enumerate(room.seats) if s.token_hash == token_hash]
                if token_hash is not None and seats and room.leaving(seats[0]):
                    await self._change_locked(live, lambda room, now: room.left(seats[0], now))

        task = asyncio.create_task(_quietly(wait()))
        self._departures.add(task)  # kept until done: the loop holds tasks weakly
        task.add_done_callback(self._departures.discard)

    async def do(self, connection: Connection, command: SocketCommand) -> None:
        """A socket's command: done by its handler here, or, for a socket relayed
        to the room's holder, sent there to be done (ping and hello are not)."""
        if connection.relay_to is not None and command.relayed:
            await self._relay(connection, command)
            return
        await command.handle(self, connection)

    async def change_for(
        self, connection: Connection, what: Callable[[Room, float], Changes]
    ) -> None:
        """:meth:`change` for a socket's command; a room that moved away
        closes the socket, to reconnect wherever it is now."""
        try:
            await self.change(connection.room, what)
        except (LeaseLost, NotHere):
            # The room moved to another process: this socket is closed (by the
            # let-go) and its client reconnects to wherever the room is now.
            connection.close(*MOVED)

    async def _relay(self, connection: Connection, command: SocketCommand) -> None:
        """A relayed socket's command, done by the room's holder; its refusal
        is raised here, after the messages the holder sent before answering."""
        assert self.bus is not None and connection.relay_to is not None
        try:
            args = {"conn": connection.id, "command": command.to_json()}
            await self.bus.request(connection.relay_to, "socket", args)
        except (NotHere, Unavailable):
            connection.send(
                {"type": "error", "error": "unavailable", "message": "the room moved; reconnecting"}
            )
            connection.close(*MOVED)

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
                connection.game_no, connection.seen, connection.noticed = room.game_no, 0, 0
                if connection.token_hash is not None:
                    connection.viewer = next(
                        (
                            i
                            for i, s in enumerate(room.seats)
                            if s.token_hash == connection.token_hash
                        ),
                        connection.viewer,
                    )
        made: dict[tuple[Viewer, int, int], dict[str, Any]] = {}
        now = self.config.clock()
        for connection in list(live.connections):
            key = (connection.viewer, connection.seen, connection.noticed)
            if key not in made:
                made[key] = room.view(connection.viewer, connection.seen, now, connection.noticed)
            connection.send(made[key])
            connection.seen, connection.noticed = len(room.log), len(room.notices)
            for entry in changes.chat:
                connection.send({"type": "chat", **entry})
        self._list(live)

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
            live.waiter = asyncio.create_task(_quietly(self._bot_turn(live, pending.state_id)))
        elif pending.kind == "human" and pending.deadline is not None:
            live.waiter = asyncio.create_task(
                _quietly(self._timer(live, pending.state_id, pending.deadline))
            )
        elif pending.kind == "next_game":
            live.waiter = asyncio.create_task(_quietly(self._next_game(live, pending.state_id)))

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

    async def record_here(self, code: str, game_no: int) -> dict[str, Any]:
        """A finished game's record, from a room this process holds."""
        live = await self.held(code)
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

    # -- the cluster: leases, taking rooms over, requests from other processes ---------------

    def _lease_seconds(self) -> float:
        return 0.0 if self.cluster is None else self.cluster.lease_seconds

    async def held(self, code: str) -> _Live:
        """The room, for reading, if this process still holds it. A holder
        that stalled past its lease may have lost the room to another process
        that has changed it since: past the lease it last knew of, it asks the
        database, and lets go of a room it lost (NotHere: ask again)."""
        live = await self._live(code)
        if self._lease is None or time.monotonic() < live.until:
            return live
        asked = time.monotonic()
        found = (await self._run_db(self.store.holders, [code])).get(code)
        if found is not None and found[0] == self._lease[0] and found[1] > 0:
            live.until = asked + found[1]
            return live
        self._let_go(code, "its lease ran out")
        raise NotHere(f"room {code!r} is not held by this process")

    def _patience(self) -> float:
        """How long an operation waits for a room to be held somewhere: long
        enough for a dead holder's lease to run out and the room to be taken."""
        cluster = self.cluster
        return 0.0 if cluster is None else 3 * cluster.lease_seconds + cluster.heartbeat_seconds

    async def _holder(self, code: str) -> str | None:
        """None when this process holds the room (it is in memory now); else
        the live process that does. A room whose lease nobody holds, or whose
        holder died and whose lease ran out, is taken over here."""
        if self.bus is None or code in self._rooms:
            return None
        known = self._holders.get(code)
        if known is not None and time.monotonic() < known[1]:
            return known[0]
        give_up = time.monotonic() + self._patience()
        while True:
            found = (await self._run_db(self.store.holders, [code])).get(code)
            wait = 0.0
            if found is not None and found[0] != self.bus.id and found[1] >= 0:
                # A holder is believed alive (no Redis round trip) unless a message
                # to it lately found nobody listening; then Redis is asked.
                silent = self._silent.get(found[0], 0.0) > time.monotonic()
                if not silent or found[0] in await self.bus.alive({found[0]}):
                    self._silent.pop(found[0], None)
                    self._holders[code] = (str(found[0]), time.monotonic() + found[1])
                    return str(found[0])
                # Its holder died: the room is free once the lease runs out.
                wait = min(found[1] + 0.02, self._patience())
            else:
                taken = await self._take(code)
                if taken is None:
                    raise RoomNotFound(f"no room {code!r}")
                if taken:
                    return None
            if time.monotonic() + wait > give_up:
                raise Unavailable("the room's server is not answering; try again")
            await asyncio.sleep(wait)

    async def _take(self, code: str) -> bool | None:
        """Take the room's lease and load it from the database: True if this
        process holds it now, False if another does, None if there is no such room."""
        if code in self._rooms:
            return True
        if self.closing:
            return False
        assert self._lease is not None
        asked = time.monotonic()
        got: bool | None = await self._run_db(self.store.acquire, code, *self._lease)
        if not got:
            return got
        # Held by nobody since its holder died: its turn timer gets that time back.
        await self._run_db(self.store.resume_clocks, self.config.clock(), code)
        room = await self._run_db(self.store.load, code)
        if room is None:
            return None
        if code in self._rooms:  # taken meanwhile by another task of this process
            return True
        live = self._rooms[code] = _Live(room, touched=self.config.clock())
        live.until = asked + self._lease[1]
        self._holders.pop(code, None)
        for connection in list(self._relays.values()):
            if connection.room == code:  # relayed to the old holder: come here instead
                connection.close(*MOVED)
        self._list(live)
        self._schedule(live)
        self._watch_absent(live)
        log.info("process %s holds room %s now", self._lease[0], code)
        return True

    async def _take_orphans(self) -> int:
        """Take the active rooms whose leases nobody holds (their process died
        or let them go); how many this process took."""
        since = self.config.clock() - self.config.idle_seconds
        codes: list[str] = await self._run_db(self.store.orphans, since)
        taken = 0
        for code in codes:
            if code not in self._rooms and await self._take(code):
                taken += 1
        return taken

    def _let_go(self, code: str, why: str) -> None:
        """Forget a room another process may hold now: its bots and timers stop
        here, and its sockets are closed so they reconnect to wherever it is."""
        live = self._rooms.pop(code, None)
        if live is None:
            return
        if live.waiter is not None and live.waiter is not asyncio.current_task():
            live.waiter.cancel()
        live.waiter = None
        for connection in list(live.connections):
            connection.close(*MOVED)
            self._remote.pop(connection.id, None)
        live.connections.clear()
        log.warning("let go of room %s: %s", code, why)

    async def _answer(self, op: str, args: dict[str, Any], sender: str) -> Any:
        """A request from another process, for a room this one holds (else
        NotHere, and the sender asks the database who does)."""
        assert self.bus is not None
        if op == "connect":
            remote = RemoteConnection(str(args["code"]), self.bus, sender, str(args["conn"]))
            try:
                _connection, welcome = await self._connect_here(
                    remote.room, args.get("token"), remote
                )
            except LeaseLost:
                self._let_go(remote.room, "its lease ran out")
                raise NotHere("let go") from None
            return welcome
        if op in ("socket", "disconnect"):
            connection = self._remote.get(str(args.get("conn")))
            if connection is None or connection.room not in self._rooms:
                if op == "disconnect":
                    return None
                raise NotHere("that socket's room is not held here")
            if op == "disconnect":
                await self.disconnect(connection)
            else:
                command = from_json(args["command"])
                assert isinstance(command, SocketCommand)
                await command.handle(self, connection)
            return None
        command = from_json(args["command"])
        assert isinstance(command, RoomCommand)
        if command.code not in self._rooms:
            raise NotHere(f"room {command.code!r} is not held here")
        try:
            return await command.here(self)
        except LeaseLost:
            raise NotHere("let go") from None

    def _relayed(self, item: dict[str, Any]) -> None:
        """A message or a close from a room's holder, for a socket relayed here."""
        connection = self._relays.get(str(item.get("conn")))
        if connection is None:
            return
        if item["kind"] == "out":
            if item["n"] != connection.heard + 1:  # one was lost: start it afresh
                connection.close(*MOVED)
                return
            connection.heard = int(item["n"])
            connection.send_text(str(item["text"]))
        elif item["kind"] == "close":
            connection.close(int(item["code"]), str(item["reason"]))

    def _gone(self, process: str) -> None:
        """``process`` no longer listens (it died): what was relayed to it is
        closed to reconnect, and its sockets here leave their rooms."""
        self._silent[process] = time.monotonic() + self._lease_seconds()
        for code, (holder, _until) in list(self._holders.items()):
            if holder == process:
                del self._holders[code]
        for connection in list(self._relays.values()):
            if connection.relay_to == process:
                connection.close(*MOVED)
        for remote in list(self._remote.values()):
            if remote.process == process:
                chore = asyncio.create_task(self.disconnect(remote))
                self._chores.add(chore)  # kept until done: the loop holds tasks weakly
                chore.add_done_callback(self._chores.discard)

    async def _heartbeat_forever(self) -> None:
        assert self.cluster is not None
        while True:
            await asyncio.sleep(self.cluster.heartbeat_seconds)
            try:
                await self._heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the cluster heartbeat failed; trying again")

    async def _heartbeat(self) -> None:
        """Renew the leases (a room whose lease ran out is let go), take the
        rooms nobody holds, and move sockets whose holder died or changed."""
        assert self.bus is not None and self._lease is not None
        mine = list(self._rooms)  # before renewing: every one of these was taken before it
        asked = time.monotonic()
        held = await self._run_db(self.store.renew, *self._lease)
        for code in mine:
            if code not in held:
                self._let_go(code, "its lease ran out before it was renewed")
            elif (live := self._rooms.get(code)) is not None:
                live.until = asked + self._lease[1]
        await self._take_orphans()
        if self._relays:
            codes = sorted({c.room for c in self._relays.values()})
            holders = await self._run_db(self.store.holders, codes)
            alive = await self.bus.alive({str(c.relay_to) for c in self._relays.values()})
            for connection in list(self._relays.values()):
                found = holders.get(connection.room)
                if found is None or found[0] != connection.relay_to or found[0] not in alive:
                    connection.close(*MOVED)
        if self._remote:
            alive = await self.bus.alive({c.process for c in self._remote.values()})
            for remote in list(self._remote.values()):
                if remote.process not in alive:
                    await self.disconnect(remote)


async def _quietly(work: Any) -> None:
    """Run a bot's turn, a timer or the next game; one whose room was let go
    (its commit found the lease lost) just ends."""
    with contextlib.suppress(LeaseLost, NotHere):
        await work
