"""Several processes sharing rooms: leases, relays, heartbeat and takeover.

In a cluster (several processes on one PostgreSQL database and one Redis,
:mod:`apothecary.server.cluster`) a process holds the rooms whose database
lease it has: it alone changes them, runs their bots and timers and makes
their viewers' messages. A request for a room held elsewhere goes to its
holder as a Redis request, and a socket of such a room is relayed: its
commands go to the holder, and the holder's messages for it, made for its
viewer, come back to be written out as they are. When a holder dies its
leases run out and the rooms are taken over from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from apothecary.server.cluster import Bus, ClusterConfig
from apothecary.server.commands import RoomCommand, SocketCommand, from_json
from apothecary.server.hub import MOVED, Connection, _Live
from apothecary.server.placement import NotHere, Placement, Unavailable
from apothecary.server.room import Room, RoomNotFound
from apothecary.server.store import Lease, LeaseLost

log = logging.getLogger("apothecary.server")


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


class ClusterPlacement(Placement):
    """A process among several: it holds the rooms it has leases of."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self.bus = Bus(config)
        self.process = self.bus.id
        self.lease: Lease = (self.bus.id, config.lease_seconds)
        self._until: dict[str, float] = {}
        """Rooms held here: until when (monotonic time) the lease is known to
        last; past it, a read asks the database first."""
        self._shown: dict[str, dict[str, Any]] = {}
        """What the shared list of open rooms shows of each room held here."""
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

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on Redis, take the rooms nobody holds, start the heartbeat."""
        await self.bus.start(self._answer, self._relayed, self._gone)
        taken = await self._take_orphans()
        log.info(
            "process %s shares rooms through %s and %s; took %d rooms nobody held",
            self.bus.id,
            self.hub.store.describe(),
            self.bus.describe(),
            taken,
        )
        self._heart = asyncio.create_task(self._heartbeat_forever())

    async def close(self) -> None:
        """Stop the heartbeat and give the leases up, so others take the rooms at once."""
        if self._heart is not None:
            self._heart.cancel()
        with contextlib.suppress(Exception):  # a database that is away: they run out anyway
            await self.hub.run_db(self.hub.store.release, self.lease[0])
        await self.bus.close()

    def close_sockets(self) -> None:
        """Close the sockets relayed from here."""
        for connection in self._relays.values():
            connection.close()

    def sockets(self) -> list[Connection]:
        """The sockets relayed from here."""
        return list(self._relays.values())

    # -- rooms held here -------------------------------------------------------------

    async def absent(self, code: str) -> Room:
        """Held elsewhere, or let go a moment ago: the sender asks again."""
        raise NotHere(f"room {code!r} is not held by this process")

    def owns(self, live: _Live) -> bool:
        """Not if the room was let go meanwhile."""
        return self.hub.rooms.get(live.room.code) is live

    async def confirm(self, live: _Live) -> None:
        """A holder that stalled past its lease may have lost the room to
        another process that has changed it since: past the lease it last
        knew of, it asks the database, and lets go of a room it lost."""
        code = live.room.code
        if time.monotonic() < self._until.get(code, 0.0):
            return
        asked = time.monotonic()
        found = (await self.hub.run_db(self.hub.store.holders, [code])).get(code)
        if found is not None and found[0] == self.lease[0] and found[1] > 0:
            self._until[code] = asked + found[1]
            return
        self.hub.let_go(code, "its lease ran out")
        raise NotHere(f"room {code!r} is not held by this process")

    def committed(self, code: str, asked: float) -> None:
        """The commit renewed the room's lease."""
        self._until[code] = asked + self.lease[1]

    def announce(self, live: _Live) -> None:
        """Keep the cluster's list of open rooms up to date with this room."""
        room = live.room
        shown = self._shown.get(room.code)
        if room.settings.listed and room.status != "over":
            info = room.public_info()
            if info != shown:  # most changes are moves, which the list does not show
                self.bus.list_room(room.code, info)
                self._shown[room.code] = info
        elif shown is not None:
            self.bus.list_room(room.code, None)
            del self._shown[room.code]

    def joined(self, connection: Connection) -> None:
        """A socket relayed from elsewhere is known by its id."""
        if isinstance(connection, RemoteConnection):
            self._remote[connection.id] = connection

    def left(self, connection: Connection) -> bool:
        """A socket relayed from here: its holder is told. One relayed to here
        is forgotten, and leaves its room as any other does."""
        if connection.relay_to is not None:
            if self._relays.pop(connection.id, None) is not None:
                self.bus.tell(connection.relay_to, "disconnect", {"conn": connection.id})
            return True
        if isinstance(connection, RemoteConnection):
            self._remote.pop(connection.id, None)
        return False

    def forget(self, code: str, connections: list[Connection]) -> None:
        """What was known of a room let go."""
        self._until.pop(code, None)
        self._shown.pop(code, None)
        for connection in connections:
            self._remote.pop(connection.id, None)

    def released(self, codes: list[str]) -> None:
        """Let the leases go too: whichever process is asked for a room next takes it."""
        for code in codes:
            self._until.pop(code, None)
            if self._shown.pop(code, None) is not None:  # an expired lobby leaves the list
                self.bus.list_room(code, None)
        self.hub.store.submit(self.hub.store.release, self.lease[0], codes)

    async def listed(self) -> list[dict[str, Any]]:
        """Every process's, from the list the holders keep in Redis."""
        found = await self.bus.listed()
        return sorted(found, key=lambda info: float(info.get("created") or 0))

    # -- rooms wherever they are held -------------------------------------------------

    async def ask(self, command: RoomCommand) -> Any:
        """Done here, or by asking the room's holder (the command travels as
        its named fields)."""

        async def there(holder: str) -> Any:
            return await self.bus.request(holder, "room", {"command": command.to_json()})

        return await self._where_held(command.code, lambda: command.here(self.hub), there)

    async def connect(
        self, code: str, token: object, lang: str = "en"
    ) -> tuple[Connection, dict[str, Any]]:
        """Joined here, or relayed to the room's holder (whose words, for now,
        are English: the relay does not carry the language yet)."""
        result: tuple[Connection, dict[str, Any]] = await self._where_held(
            code,
            lambda: self.hub.connect_here(code, token, lang=lang),
            lambda holder: self._connect_there(code, token, holder),
        )
        return result

    async def _connect_there(
        self, code: str, token: object, holder: str
    ) -> tuple[Connection, dict[str, Any]]:
        """A socket of a room ``holder`` holds, relayed to it."""
        connection = Connection(code, None, self.hub.config.send_queue, relay_to=holder)
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

    async def forward(self, connection: Connection, command: SocketCommand) -> None:
        """A relayed socket's command, done by the room's holder; its refusal
        is raised here, after the messages the holder sent before answering."""
        assert connection.relay_to is not None
        try:
            args = {"conn": connection.id, "command": command.to_json()}
            await self.bus.request(connection.relay_to, "socket", args)
        except (NotHere, Unavailable):
            connection.send(
                {"type": "error", "error": "unavailable", "message": "the room moved; reconnecting"}
            )
            connection.close(*MOVED)

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
                self.hub.let_go(code, "its lease ran out")
            if time.monotonic() > give_up:
                raise Unavailable("the room's server is not answering; try again")

    # -- finding the holder, taking rooms over ------------------------------------------

    def _patience(self) -> float:
        """How long an operation waits for a room to be held somewhere: long
        enough for a dead holder's lease to run out and the room to be taken."""
        return 3 * self.config.lease_seconds + self.config.heartbeat_seconds

    async def _holder(self, code: str) -> str | None:
        """None when this process holds the room (it is in memory now); else
        the live process that does. A room whose lease nobody holds, or whose
        holder died and whose lease ran out, is taken over here."""
        if code in self.hub.rooms:
            return None
        known = self._holders.get(code)
        if known is not None and time.monotonic() < known[1]:
            return known[0]
        give_up = time.monotonic() + self._patience()
        while True:
            found = (await self.hub.run_db(self.hub.store.holders, [code])).get(code)
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
        hub = self.hub
        if code in hub.rooms:
            return True
        if hub.closing:
            return False
        asked = time.monotonic()
        got: bool | None = await hub.run_db(hub.store.acquire, code, *self.lease)
        if not got:
            return got
        # Held by nobody since its holder died: its turn timer gets that time back.
        await hub.run_db(hub.store.resume_clocks, hub.config.clock(), code)
        room = await hub.run_db(hub.store.load, code)
        if room is None:
            return None
        if code in hub.rooms:  # taken meanwhile by another task of this process
            return True
        self._until[code] = asked + self.lease[1]
        self._holders.pop(code, None)
        for connection in list(self._relays.values()):
            if connection.room == code:  # relayed to the old holder: come here instead
                connection.close(*MOVED)
        self.announce(hub.adopt(room))
        log.info("process %s holds room %s now", self.lease[0], code)
        return True

    async def _take_orphans(self) -> int:
        """Take the active rooms whose leases nobody holds (their process died
        or let them go); how many this process took."""
        since = self.hub.config.clock() - self.hub.config.idle_seconds
        codes: list[str] = await self.hub.run_db(self.hub.store.orphans, since)
        taken = 0
        for code in codes:
            if code not in self.hub.rooms and await self._take(code):
                taken += 1
        return taken

    # -- what other processes send -------------------------------------------------------

    async def _answer(self, op: str, args: dict[str, Any], sender: str) -> Any:
        """A request from another process, for a room this one holds (else
        NotHere, and the sender asks the database who does)."""
        hub = self.hub
        if op == "connect":
            remote = RemoteConnection(str(args["code"]), self.bus, sender, str(args["conn"]))
            try:
                _connection, welcome = await hub.connect_here(
                    remote.room, args.get("token"), remote
                )
            except LeaseLost:
                hub.let_go(remote.room, "its lease ran out")
                raise NotHere("let go") from None
            return welcome
        if op in ("socket", "disconnect"):
            connection = self._remote.get(str(args.get("conn")))
            if connection is None or connection.room not in hub.rooms:
                if op == "disconnect":
                    return None
                raise NotHere("that socket's room is not held here")
            if op == "disconnect":
                await hub.disconnect(connection)
            else:
                command = from_json(args["command"])
                assert isinstance(command, SocketCommand)
                await command.handle(hub, connection)
            return None
        command = from_json(args["command"])
        assert isinstance(command, RoomCommand)
        if command.code not in hub.rooms:
            raise NotHere(f"room {command.code!r} is not held here")
        try:
            return await command.here(hub)
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
        self._silent[process] = time.monotonic() + self.config.lease_seconds
        for code, (holder, _until) in list(self._holders.items()):
            if holder == process:
                del self._holders[code]
        for connection in list(self._relays.values()):
            if connection.relay_to == process:
                connection.close(*MOVED)
        for remote in list(self._remote.values()):
            if remote.process == process:
                chore = asyncio.create_task(self.hub.disconnect(remote))
                self._chores.add(chore)  # kept until done: the loop holds tasks weakly
                chore.add_done_callback(self._chores.discard)

    # -- the heartbeat ---------------------------------------------------------------------

    async def _heartbeat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.heartbeat_seconds)
            try:
                await self._heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the cluster heartbeat failed; trying again")

    async def _heartbeat(self) -> None:
        """Renew the leases (a room whose lease ran out is let go), take the
        rooms nobody holds, and move sockets whose holder died or changed."""
        hub = self.hub
        mine = list(hub.rooms)  # before renewing: every one of these was taken before it
        asked = time.monotonic()
        held = await hub.run_db(hub.store.renew, *self.lease)
        for code in mine:
            if code not in held:
                hub.let_go(code, "its lease ran out before it was renewed")
            elif code in hub.rooms:
                self._until[code] = asked + self.lease[1]
        await self._take_orphans()
        if self._relays:
            codes = sorted({c.room for c in self._relays.values()})
            holders = await hub.run_db(hub.store.holders, codes)
            alive = await self.bus.alive({str(c.relay_to) for c in self._relays.values()})
            for connection in list(self._relays.values()):
                found = holders.get(connection.room)
                if found is None or found[0] != connection.relay_to or found[0] not in alive:
                    connection.close(*MOVED)
        if self._remote:
            alive = await self.bus.alive({c.process for c in self._remote.values()})
            for remote in list(self._remote.values()):
                if remote.process not in alive:
                    await hub.disconnect(remote)
