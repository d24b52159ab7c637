"""The live side of the server: rooms in memory, their connections, bots
thinking in a process pool, turn timers, and the rule that every change is
committed to the store before anyone hears of it.

A :class:`Hub` knows nothing of HTTP: :mod:`apothecary.server.app` turns
requests and socket messages into its calls. Each room has a lock; every
change to a room, and every message made from it, happens under that lock,
so a viewer never reads a change the store has not committed.

Which rooms the hub holds, and how a room held elsewhere is reached, is its
:class:`~apothecary.server.placement.Placement`'s business: alone (the
default, :class:`~apothecary.server.placement.local.LocalPlacement`) every
room is here; in a cluster
(:class:`~apothecary.server.placement.cluster.ClusterPlacement`) the hub
holds the rooms whose database lease it has, and the placement relays the
rest to their holders and takes over a dead holder's rooms.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from apothecary.bots.pool import ThinkingPool, ThinkingTooLong, WorkerDied
from apothecary.core.bot import Bot, RandomBot
from apothecary.core.game import Action, State
from apothecary.i18n import DEFAULT as DEFAULT_LANGUAGE
from apothecary.i18n import localized
from apothecary.server.commands import RoomCommand, SocketCommand
from apothecary.server.placement import NotHere, Placement
from apothecary.server.placement.local import LocalPlacement
from apothecary.server.room import (
    Changes,
    Room,
    RoomError,
    Settings,
    Viewer,
    hash_token,
)
from apothecary.server.store import IMPORT_GRACE, LeaseLost, Store

log = logging.getLogger("apothecary.server")

PROTOCOL_VERSION = 3
"""The version of the WebSocket protocol (docs/protocol.md)."""

GOING = (1001, "server shutting down")
MOVED = (1012, "the room moved to another server process; reconnect")
"""How a socket is closed when its room is now held by another process (the
client reconnects, and reaches the room wherever it is held)."""
TOO_SLOW = (1008, "too slow: reconnect")
SEAT_FREED = (4003, "the host freed your seat")


class ServerFull(RoomError):
    """The server holds as many rooms as it may (``HubConfig.max_rooms``)."""

    code = "server_full"
    status = 503


class RoomFull(RoomError):
    """A room has as many sockets as it may (``HubConfig.sockets_per_room``)."""

    code = "room_full"
    status = 503
    close_code = 1013
    """The WebSocket close code its socket is closed with ("try again later")."""


class TooManyRooms(RoomError):
    """One address has as many rooms not over as it may (``HubConfig.rooms_per_address``)."""

    code = "too_many_rooms"
    status = 429


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
    lobby_expiry: float = 3600.0
    """A lobby nobody is connected to and nothing changed in for this long
    expires: it leaves memory and the list, and a restart does not resume it
    (it stays in the store: its invite link still loads it)."""
    abandoned_expiry: float = 6 * 3600.0
    """The same for a game in play: nobody connected, no move for this long."""
    max_rooms: int = 2000
    """Rooms not over the server holds at once; a new one past it is refused
    (``server_full``)."""
    rooms_per_address: int = 20
    """Rooms not over that one client address may have made (since the server
    started); one more is refused (``too_many_rooms``)."""
    sockets_per_room: int = 256
    """Sockets one room may have open at once (seats and spectators, on every
    process of a cluster that relays to it); one more is refused with
    ``room_full`` and closed with code 1013."""
    presence_delay: float = 0.05
    """Seconds joins and leaves are gathered before one ``presence`` message
    tells every viewer of them all (a burst of joins costs each viewer one
    small message, not a full update per join)."""
    clock: Callable[[], float] = time.time
    vouch_seconds: float = 1.0
    """How often the store is told that the rooms with a running turn timer are
    still held: a restart gives the seat to move back the time since then."""
    bot_seconds: float = 10.0
    """Wall-clock limit of one bot move. A bot still thinking then is stopped
    (its worker process is ended and replaced) and a random legal move, drawn
    from the step number, is played instead. With ``bot_workers=0`` a thread
    cannot be stopped: the room only stops waiting for it."""
    hint_seconds: float = 60.0
    """Wall-clock limit of one hint, and of each decision of an analysis: its
    worker is stopped, and the hint answers 503 ``thinking_too_long``."""
    pause_after: float = 60.0
    """A room with nobody connected (no seat's socket, no spectator's) for this
    long stops playing: no bot thinks, and no next game of a series starts,
    until someone connects again. A person watching sees the bots play on."""


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
        self.lang = DEFAULT_LANGUAGE
        """The language its person reads the table in (their hello said it)."""
        self.told_presence: dict[str, Any] | None = None
        """The room's presence as this connection was last told it (an update or
        a presence message): it is sent a presence message only when that is not so."""

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message``; a connection that cannot keep up is marked dropped."""
        self.send_text(_encode(message))

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


@dataclass
class _Live:
    room: Room
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    waiter: asyncio.Task[None] | None = None
    touched: float = field(default_factory=time.time)
    """When the room last changed (for letting idle rooms leave memory)."""
    address: str | None = None
    """The client address that made it (None for a room resumed or taken over)."""
    watched: float | None = None
    """When someone was last connected (at first: when it came into memory)."""
    presence_due: asyncio.Task[None] | None = None
    """The task that will tell everyone of the joins and leaves since the last telling."""

    def __post_init__(self) -> None:
        if self.watched is None:
            self.watched = self.touched


class Hub:
    """Every room the server holds, and what drives them; its placement
    says which rooms those are and reaches the others."""

    def __init__(
        self, store: Store, config: HubConfig | None = None, placement: Placement | None = None
    ) -> None:
        self.store = store
        self.config = config or HubConfig()
        self.placement = placement or LocalPlacement()
        self.placement.bind(self)
        self._rooms: dict[str, _Live] = {}
        """The rooms this process holds (alone: all of them)."""
        self._departures: set[asyncio.Task[None]] = set()
        """Waits of :attr:`HubConfig.left_after` before the log says someone left."""
        self._pool: ThinkingPool | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._voucher: asyncio.Task[None] | None = None
        self.closing = False

    @property
    def rooms(self) -> dict[str, _Live]:
        """The rooms this process holds, by code (for its placement to read)."""
        return self._rooms

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the store (migrating it), start the bot pool, and let the
        placement bring in the rooms this process holds."""
        await self.run_db(self.store.migrate)
        # An upload a stopped server left half-kept (another process may be
        # keeping one now, hence the hour's grace).
        await self.run_db(self.store.drop_imports, self.config.clock() - IMPORT_GRACE)
        if self.config.bot_workers > 0:
            self._pool = ThinkingPool(self.config.bot_workers, self.config.bot_seconds)
        await self.placement.start()
        self._sweeper = asyncio.create_task(self._sweep_forever())
        self._voucher = asyncio.create_task(self._vouch_forever())

    def adopt(self, room: Room) -> _Live:
        """Hold ``room`` here from now on (resumed, or taken over): its bot or
        timer is armed, and whoever does not come back is told to have left."""
        live = self._rooms[room.code] = _Live(room, touched=self.config.clock())
        self._schedule(live)
        self._watch_absent(live)
        return live

    def let_go(self, code: str, why: str) -> None:
        """Forget a room another process may hold now: its bots and timers stop
        here, and its sockets are closed so they reconnect to wherever it is."""
        live = self._rooms.pop(code, None)
        if live is None:
            return
        if live.waiter is not None and live.waiter is not asyncio.current_task():
            live.waiter.cancel()
        live.waiter = None
        if live.presence_due is not None:
            live.presence_due.cancel()
        connections = list(live.connections)
        for connection in connections:
            connection.close(*MOVED)
        live.connections.clear()
        self.placement.forget(code, connections)
        log.warning("let go of room %s: %s", code, why)

    async def _vouch_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.vouch_seconds)
            timed = [code for code, live in self._rooms.items() if live.room.deadline is not None]
            if not timed:
                continue
            try:
                await self.run_db(self.store.vouch, timed, self.config.clock())
            except Exception:  # a database that is away a moment: the next one may do
                log.exception("could not tell the store the timed rooms are held")

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.config.idle_seconds / 10))
            self.sweep()

    def sweep(self) -> int:
        """Let go of finished rooms that nobody watches and nothing waits on,
        idle for ``idle_seconds``, and of expired lobbies and abandoned games
        (:meth:`expired`); returns how many left memory."""
        now = self.config.clock()
        gone = [
            code
            for code, live in self._rooms.items()
            if not live.connections
            and not live.lock.locked()
            and (
                (
                    live.room.pending() is None
                    and live.room.status == "over"
                    and now - live.touched > self.config.idle_seconds
                )
                or self.expired(live.room.status, live.touched, now)
            )
        ]
        for code in gone:
            live = self._rooms.pop(code)
            if live.waiter is not None:  # an abandoned game's bot or timer stops
                live.waiter.cancel()
                live.waiter = None
        if gone:
            self.placement.released(gone)
        return len(gone)

    def expired(self, status: str, touched: float, now: float) -> bool:
        """Whether a room not over, last changed at ``touched``, has expired by
        ``now`` (nobody connected is the caller's to check)."""
        if status == "lobby":
            return now - touched > self.config.lobby_expiry
        return status != "over" and now - touched > self.config.abandoned_expiry

    def close_sockets(self) -> None:
        """Tell every connection the server is going (their writers close them
        with that reason); bots and timers stop scheduling."""
        self.closing = True
        for live in self._rooms.values():
            for connection in live.connections:
                connection.close()
        self.placement.close_sockets()

    async def sockets_closed(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the writers told by
        :meth:`close_sockets` to have closed their sockets."""
        writers = [
            connection.writer
            for connection in [
                *(c for live in self._rooms.values() for c in live.connections),
                *self.placement.sockets(),
            ]
            if connection.writer is not None and not connection.writer.done()
        ]
        if writers:
            await asyncio.wait(writers, timeout=timeout)

    async def close(self) -> None:
        """Stop bots and timers, close every socket with a reason, let the last
        commits finish. Everything accepted was committed before it was told.
        The placement stops too (in a cluster, giving its leases up, so others
        take the rooms at once)."""
        self.close_sockets()
        for task in (self._sweeper, self._voucher):
            if task is not None:
                task.cancel()
        for live in self._rooms.values():
            for task in (live.waiter, live.presence_due):
                if task is not None:
                    task.cancel()
        for departure in list(self._departures):
            departure.cancel()
        await self.placement.close()
        if self._pool is not None:
            self._pool.close()
        self.store.close()

    async def run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the store's one writer thread."""
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
        address: str | None = None,
    ) -> tuple[Room, str]:
        """A new room, committed; and the host's token. ``address`` (the
        client's) may have at most ``rooms_per_address`` rooms not over."""
        if seed is not None and not self.config.allow_seed:
            raise RoomError("this server does not take chosen seeds")
        open_rooms = [live for live in self._rooms.values() if live.room.status != "over"]
        if len(open_rooms) >= self.config.max_rooms:
            raise ServerFull(f"the server holds {len(open_rooms)} rooms, its most; try again later")
        if address is not None:
            mine = sum(1 for live in open_rooms if live.address == address)
            if mine >= self.config.rooms_per_address:
                raise TooManyRooms(
                    f"your address has {mine} rooms not over, the most it may have;"
                    " finish one or wait for it to expire"
                )
        room, token = Room.create(
            game, players, options, seats, settings, self.config.clock(), seed=seed
        )
        # In a cluster the room's lease is this process's from its first commit.
        asked = time.monotonic()
        await self.run_db(
            self.store.commit, room, Changes(), self.config.clock(), self.placement.lease
        )
        live = self._rooms[room.code] = _Live(room, touched=self.config.clock(), address=address)
        self.placement.committed(room.code, asked)
        self.placement.announce(live)
        return room, token

    async def _live(self, code: str) -> _Live:
        live = self._rooms.get(code)
        if live is None:
            room = await self.placement.absent(code)
            live = self._rooms.setdefault(code, _Live(room, touched=self.config.clock()))
        return live

    async def held(self, code: str) -> _Live:
        """The room, for reading, if this process still holds it (else
        NotHere: ask again, wherever it is now)."""
        live = await self._live(code)
        await self.placement.confirm(live)
        return live

    async def listed(self) -> list[dict[str, Any]]:
        """Every listed room that is not over, for the lobby (in a cluster,
        every process's)."""
        return await self.placement.listed()

    async def listed_page(self, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """How many rooms :meth:`listed` has, and one page of them, newest first."""
        return await self.placement.listed_page(offset, limit)

    # -- the public operations: done here, or by the process holding the room ---------------

    async def ask(self, command: RoomCommand) -> Any:
        """Do a command about a room where the room is held (the placement
        says where, and takes it there)."""
        return await self.placement.ask(command)

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
        if not self.placement.owns(live):
            raise NotHere(f"room {room.code!r} is not held by this process")  # let go meanwhile
        now = self.config.clock()
        changes = what(room, now)
        while (pending := room.pending()) is not None and pending.kind == "chance":
            changes.extend(room.apply(room.chance_action(), now))
        if changes.unchanged:  # nothing to write and nothing to tell
            return
        asked = time.monotonic()
        try:
            await self.run_db(self.store.commit, room, changes, now, self.placement.lease)
            self.placement.committed(room.code, asked)
        except LeaseLost:
            # Another process holds the room now (this one stalled past its
            # lease): what memory holds is not the room any more. Let it go;
            # nobody heard of the change, and the store has none of it.
            self.let_go(room.code, "another process holds it now")
            raise
        except Exception:
            # The room in memory is ahead of the store: take the store's word.
            log.exception("commit failed for room %s; reloading it", room.code)
            restored = await self.run_db(self.store.load, room.code)
            if restored is not None:
                restored.presence = room.presence
                live.room = restored
            raise
        live.touched = now
        self._broadcast(live, changes)
        self._schedule(live)

    # -- connections --------------------------------------------------------------------

    async def connect(
        self, code: str, token: object, lang: str = DEFAULT_LANGUAGE
    ) -> tuple[Connection, dict[str, Any]]:
        """A viewer joins: a seat's token, or None to watch, reading ``lang``.
        Returns the connection and its welcome message; everyone is told of the
        presence. In a cluster, a socket of a room held elsewhere is relayed to
        its holder (which, for now, says its words in English)."""
        return await self.placement.connect(code, token, lang)

    async def connect_here(
        self,
        code: str,
        token: object,
        connection: Connection | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> tuple[Connection, dict[str, Any]]:
        """A viewer joins a room this process holds, as ``connection`` if it is
        given (a socket relayed from another process), else on a new one."""
        live = await self.held(code)
        async with live.lock:
            if not self.placement.owns(live):
                raise NotHere(f"room {code!r} is not held by this process")  # let go meanwhile
            if len(live.connections) >= self.config.sockets_per_room:
                raise RoomFull(
                    f"room {code} has {len(live.connections)} connections, its most; "
                    "try again later"
                )
            room = live.room
            viewer: Viewer = None if token is None else room.seat_of(token)
            token_hash = None if viewer is None else hash_token(str(token))
            if connection is None:
                connection = Connection(code, viewer, self.config.send_queue, token_hash)
                connection.lang = lang
            else:
                connection.viewer, connection.token_hash = viewer, token_hash
            self.placement.joined(connection)
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
            else:  # the newcomer gets the whole room; the others, soon, a presence message
                self._broadcast(live, Changes(), to=[connection])
                self._presence_changed(live)
                if live.waiter is None:  # paused while nobody was here: play on
                    self._schedule(live)
            return connection, welcome

    async def disconnect(self, connection: Connection) -> None:
        """A viewer left; everyone is told."""
        if self.placement.left(connection):
            return
        live = self._rooms.get(connection.room)
        if live is None or connection not in live.connections:
            return
        async with live.lock:
            live.connections.discard(connection)
            live.room.presence[connection.viewer] -= 1
            if not live.connections:
                live.watched = self.config.clock()
            if not self.closing:
                self._presence_changed(live)
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
            await self.placement.forward(connection, command)
            return
        await command.handle(self, connection)

    def close_seat(self, code: str, token_hash: str) -> None:
        """Close this process's sockets of the person whose token hash this
        was (the host freed their seat)."""
        live = self._rooms.get(code)
        for connection in [] if live is None else list(live.connections):
            if connection.token_hash == token_hash:
                connection.close(*SEAT_FREED)

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

    def _presence_changed(self, live: _Live) -> None:
        """Someone joined or left: every viewer is told, in one presence message
        for all the joins and leaves of the next ``presence_delay`` seconds."""
        if live.presence_due is None and not self.closing:
            live.presence_due = asyncio.create_task(_quietly(self._tell_presence(live)))

    async def _tell_presence(self, live: _Live) -> None:
        await asyncio.sleep(self.config.presence_delay)
        async with live.lock:  # no seat change the store has not committed shows
            live.presence_due = None  # a join from now on is told by the next one
            if self.closing or self._rooms.get(live.room.code) is not live:
                return
            presence = live.room.presence_view()
            text = _encode(presence)
            for connection in list(live.connections):
                # Not the newcomer, nor anyone when joins and leaves cancelled out.
                if connection.told_presence != presence:
                    connection.send_text(text)
                    connection.told_presence = presence
            self.placement.announce(live)

    def _broadcast(self, live: _Live, changes: Changes, to: list[Connection] | None = None) -> None:
        """Send each connection (or only those of ``to``) its update, and the new chat."""
        room = live.room
        targets = list(live.connections) if to is None else to
        if changes.chat and not changes.actions and changes.new_game is None:
            for connection in targets:  # words only: the table is as it was
                for entry in changes.chat:
                    connection.send({"type": "chat", **entry})
            return
        for connection in targets:
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
        # Each distinct update is made and put in JSON once: the sockets of one
        # viewer that have been sent as much share it (a seat's tabs, spectators).
        made: dict[tuple[Viewer, int, int, str], str] = {}
        chat = [_encode({"type": "chat", **entry}) for entry in changes.chat]
        now = self.config.clock()
        presence = room.presence_view()  # what every update made here says of it
        for connection in targets:
            connection.told_presence = presence
            key = (connection.viewer, connection.seen, connection.noticed, connection.lang)
            if key not in made:
                view = room.view(connection.viewer, connection.seen, now, connection.noticed)
                made[key] = _encode(localized(view, connection.lang))
            connection.send_text(made[key])
            connection.seen, connection.noticed = len(room.log), len(room.notices)
            for text in chat:
                connection.send_text(text)
        if to is None:
            self.placement.announce(live)

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
        if pending.kind in ("bot", "next_game") and self._unwatched(live):
            return  # paused: connect_here schedules it again
        if pending.kind == "bot":
            live.waiter = asyncio.create_task(_quietly(self._bot_turn(live, pending.state_id)))
        elif pending.kind == "human" and pending.deadline is not None:
            live.waiter = asyncio.create_task(
                _quietly(self._timer(live, pending.state_id, pending.deadline))
            )
        elif pending.kind == "next_game":
            live.waiter = asyncio.create_task(_quietly(self._next_game(live, pending.state_id)))

    def _unwatched(self, live: _Live) -> bool:
        """Whether nobody has been connected to the room for ``pause_after`` seconds."""
        watched = live.touched if live.watched is None else live.watched
        return not live.connections and self.config.clock() - watched >= self.config.pause_after

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
            action = await self._think(bot, position, room.code)
        except asyncio.CancelledError:
            raise
        except (ThinkingTooLong, TimeoutError):
            # Stopped at its limit: the room goes on with a random legal move.
            log.warning(
                "bot %r in room %s thought past %g s; a random move is played",
                bot,
                room.code,
                self.config.bot_seconds,
            )
            action = RandomBot(position.game, seat, seed=position.move_number()).step(position)
        except Exception:
            # A bot that fails must not stall its room: the move is drawn from
            # the step number by the random bot instead, and the failure is logged.
            log.exception("bot %r failed in room %s; a random move is played", bot, room.code)
            action = RandomBot(position.game, seat, seed=position.move_number()).step(position)

        def play(room: Room, now: float) -> Changes:
            if room.state_id != state_id:
                return Changes.nothing()  # the position moved on while the bot thought
            return room.apply(action, now, by_bot=True)

        async with live.lock:
            if live.room.state_id == state_id:
                live.waiter = None  # this task is the one that schedules the next
                await self._change_locked(live, play)

    async def _think(self, bot: Bot, position: State, code: str) -> Action:
        """The bot's move, thought in the pool (its calls are taken in turn
        between rooms) within ``bot_seconds``."""
        limit = self.config.bot_seconds
        if self._pool is None:
            return await asyncio.wait_for(asyncio.to_thread(bot.step, position), limit)
        try:
            return await asyncio.wrap_future(self._pool.step(bot, position, owner=code))
        except WorkerDied:
            # A worker died (killed, out of memory): the pool has started a fresh one; retry once.
            log.warning("a bot worker died in room %s; asking again", code)
            return await asyncio.wrap_future(self._pool.step(bot, position, owner=code))

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
            notation, seating = await self.run_db(self.store.game_actions, code, game_no)
            record = room.record(game_no, notation, seating)
        state = record.replay()
        final = state.outcome()
        record.outcome = None if final is None else final.to_json()
        result: dict[str, Any] = record.to_json()
        return result


def _encode(message: dict[str, Any]) -> str:
    """A message as the sockets send it: compact JSON, non-ASCII as UTF-8.

    orjson makes the text in a fifth to a tenth of ``json.dumps``'s time (an
    update is encoded once per distinct viewer, every move); the value is the
    same JSON. What orjson refuses and ``json`` takes (a lone surrogate in a
    string, an integer past 64 bits) goes through ``json`` as before."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        # No check for cycles: a message is a tree the room made afresh.
        return json.dumps(message, separators=(",", ":"), check_circular=False)


async def _quietly(work: Any) -> None:
    """Run a bot's turn, a timer or the next game; one whose room was let go
    (its commit found the lease lost) just ends."""
    with contextlib.suppress(LeaseLost, NotHere):
        await work
