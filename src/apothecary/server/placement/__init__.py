"""Where a room lives: the interface the hub asks, and its refusals.

The :class:`~apothecary.server.hub.Hub` drives the rooms it holds (their
locks, commit-then-broadcast, bots, timers). What it does not decide is
*which* rooms it holds and how a command about a room held elsewhere gets
there: that is a :class:`Placement`'s job. There are two:

:class:`~apothecary.server.placement.local.LocalPlacement`
    one process, every room here: a room not in memory is loaded from the
    store, and every command is done at once. No Redis, no leases, and no
    relay packing: a command is never turned into JSON on this path.
:class:`~apothecary.server.placement.cluster.ClusterPlacement`
    several processes on one PostgreSQL database and one Redis
    (:mod:`apothecary.server.cluster`): a process holds the rooms whose
    database lease it has, relays the sockets of rooms held elsewhere to
    their holders, renews its leases by a heartbeat, and takes over the
    rooms of a process that died.

A new placement is one more class with these methods; the hub, the
commands and the routes stay as they are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from apothecary.server.room import Room, RoomError

if TYPE_CHECKING:  # the hub imports this module: only its types are needed here
    from apothecary.server.commands import RoomCommand, SocketCommand
    from apothecary.server.hub import Connection, Hub, _Live
    from apothecary.server.store import Lease

__all__ = ["NotHere", "Placement", "Unavailable"]


def newest_first(created: Any, code: Any) -> tuple[float, str]:
    """The order of the lobby's list: newest first, then by code (so pages do
    not overlap while the list stays as it is)."""
    return (-float(created or 0), str(code))


class Unavailable(RoomError):
    """The process holding the room did not answer (it is moving to another)."""

    code = "unavailable"
    status = 503


class NotHere(RoomError):
    """A request reached a process that does not hold the room (any more):
    the sender asks the database who does. Never shown to a client."""

    code = "not_here"
    status = 409


class Placement(ABC):
    """Which rooms this process holds, and how the others are reached.

    The hub calls :meth:`bind` once, then :meth:`start` when it starts and
    :meth:`close` when it stops; everything else as rooms are used.
    """

    lease: Lease | None = None
    """What each of the hub's commits carries: this process's lease of the
    room, checked and renewed by the store (None: no leases)."""

    process: str | None = None
    """This process's id among several (None: it is alone)."""

    def bind(self, hub: Hub) -> None:
        """The hub this placement places rooms for."""
        self.hub = hub

    # -- life ----------------------------------------------------------------------

    @abstractmethod
    async def start(self) -> None:
        """Bring the rooms this process is to hold into the hub (:meth:`Hub.adopt`)."""

    @abstractmethod
    async def close(self) -> None:
        """Stop what runs in the background and give up what is held."""

    def close_sockets(self) -> None:
        """Tell the sockets this placement keeps (relayed ones) the server is going."""

    def sockets(self) -> list[Connection]:
        """The sockets this placement keeps, beside the rooms' own."""
        return []

    # -- rooms held here -------------------------------------------------------------

    @abstractmethod
    async def absent(self, code: str) -> Room:
        """A room the hub does not have in memory, to hold here; RoomNotFound
        if there is none, NotHere if another process may hold it."""

    def owns(self, live: _Live) -> bool:
        """Whether this process still holds ``live`` (checked under its lock,
        before a change or a join): a room let go meanwhile is not."""
        return True

    async def confirm(self, live: _Live) -> None:
        """Before a read: NotHere if this process no longer holds the room."""

    def committed(self, code: str, asked: float) -> None:
        """A commit asked at ``asked`` (monotonic time) went through, renewing
        whatever the commit renews."""

    def announce(self, live: _Live) -> None:
        """The room changed (or was made): keep any shared list of rooms up to date."""

    def joined(self, connection: Connection) -> None:
        """``connection`` joined a room held here (under the room's lock)."""

    def left(self, connection: Connection) -> bool:
        """``connection`` left; True if this placement dealt with it all (a
        socket relayed to another process), False for the hub to take it
        out of its room."""
        return False

    def forget(self, code: str, connections: list[Connection]) -> None:
        """The hub let go of the room (another process holds it now)."""

    def released(self, codes: list[str]) -> None:
        """These idle rooms left memory: whoever is asked for them next may hold them."""

    @abstractmethod
    async def listed(self) -> list[dict[str, Any]]:
        """Every listed room that is not over, for the lobby."""

    async def listed_page(self, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """How many rooms :meth:`listed` has, and ``limit`` of them from ``offset``,
        newest first (a placement that can, builds only the page)."""
        found = sorted(
            await self.listed(), key=lambda info: newest_first(info.get("created"), info["code"])
        )
        return len(found), found[offset : offset + limit]

    # -- rooms wherever they are held -------------------------------------------------

    @abstractmethod
    async def ask(self, command: RoomCommand) -> Any:
        """Do ``command`` where its room is held; its JSON-ready result."""

    @abstractmethod
    async def connect(
        self, code: str, token: object, lang: str = "en"
    ) -> tuple[Connection, dict[str, Any]]:
        """A socket joins a room wherever it is held, its person reading
        ``lang``: the connection and its welcome."""

    @abstractmethod
    async def forward(self, connection: Connection, command: SocketCommand) -> None:
        """A command of a socket relayed to the room's holder, done there."""
