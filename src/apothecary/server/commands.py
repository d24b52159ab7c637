"""Every command a client can give, as one small typed value with its one handler.

A socket message (``{"type": "act", ...}``), an HTTP request and a request
relayed over Redis all become one of these values, and the same handler does
it wherever it came from. Two kinds:

:class:`SocketCommand`
    sent on a room's socket by one connection (``act``, ``chat``, ``back``,
    ``ping``, ``hello``). Most change the room as the connection's viewer
    (:class:`Change`); in a cluster the relaying process sends them, as
    :meth:`Command.to_json`, to the room's holder. ``ping`` and ``hello`` are
    answered where the socket is (:attr:`SocketCommand.relayed` False).
:class:`RoomCommand`
    about a room named by its code (``claim``, ``start``, ``bot``, ``rematch``,
    ``info``, ``record``): an HTTP request, done by :meth:`RoomCommand.here` on
    the process that holds the room.

A new message type is one new class here (its fields and its handler); the
socket's parser, the hub and the cluster find it by its ``type``. The fields
are what the client sent, unchecked: the room checks them (and refuses with
the same errors whichever way they came).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from apothecary.server.room import Changes, Room, RoomError, Viewer

if TYPE_CHECKING:  # the hub imports this module: only its type is needed here
    from apothecary.server.hub import Connection, Hub


class UnknownType(RoomError):
    """A socket message whose type the server does not know."""

    code = "unknown_type"


class AlreadyJoined(RoomError):
    """A second hello on one socket."""

    code = "already_joined"


@dataclass(frozen=True)
class Command:
    """A client's command: its wire ``type`` and the fields it carries."""

    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The command as named fields (its ``type`` among them), as Redis carries it."""
        return {"type": self.type, **dataclasses.asdict(self)}


SOCKET: dict[str, type[SocketCommand]] = {}
"""The commands a socket may send, by type."""

ROOM: dict[str, type[RoomCommand]] = {}
"""The commands about a room by its code (HTTP requests), by type."""


def _fields(cls: type[Command], data: dict[str, Any]) -> dict[str, Any]:
    # A field the message leaves out is None, as it always was for the room to refuse.
    return {f.name: data.get(f.name) for f in dataclasses.fields(cls)}


@dataclass(frozen=True)
class SocketCommand(Command):
    """A command sent on one connection's socket."""

    relayed: ClassVar[bool] = True
    """Whether a relaying process sends it to the room's holder (else it is
    answered where the socket is)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type:
            SOCKET[cls.type] = cls

    async def handle(self, hub: Hub, connection: Connection) -> None:
        """Do the command for ``connection``, on the process holding its room."""
        raise NotImplementedError

    @staticmethod
    def parse(message: dict[str, Any]) -> SocketCommand:
        """The command a socket message (a dict with a string ``type``) gives;
        UnknownType for a type the protocol has not."""
        kind = message["type"]
        cls = SOCKET.get(kind)
        if cls is None:
            raise UnknownType(f"unknown message type {kind[:40]!r}; see docs/protocol.md")
        return cls(**_fields(cls, message))


@dataclass(frozen=True)
class Change(SocketCommand):
    """A socket command that changes the room as the connection's viewer."""

    def change(self, room: Room, viewer: Viewer, now: float) -> Changes:
        """The change to ``room``; a RoomError changes nothing."""
        raise NotImplementedError

    async def handle(self, hub: Hub, connection: Connection) -> None:
        """Apply the change, commit it, then tell everyone."""
        await hub.change_for(
            connection, lambda room, now: self.change(room, connection.viewer, now)
        )


@dataclass(frozen=True)
class Act(Change):
    """Play an action (its id) in the position ``state_id`` names."""

    type: ClassVar[str] = "act"
    action: object = None
    state_id: object = None

    def change(self, room: Room, viewer: Viewer, now: float) -> Changes:
        """The action, checked by the room, applied."""
        return room.apply(room.check_action(viewer, self.action, self.state_id), now)


@dataclass(frozen=True)
class Chat(Change):
    """Say something in the room's chat."""

    type: ClassVar[str] = "chat"
    text: object = None

    def change(self, room: Room, viewer: Viewer, now: float) -> Changes:
        """The words, from a seat."""
        if viewer is None:
            raise RoomError("spectators cannot chat; take a seat to talk")
        return room.say(viewer, self.text, now)


@dataclass(frozen=True)
class Back(Change):
    """Take the seat back from the bot that plays for its person."""

    type: ClassVar[str] = "back"

    def change(self, room: Room, viewer: Viewer, now: float) -> Changes:
        """The seat is the person's again."""
        if viewer is None:
            raise RoomError("spectators have no seat to take back")
        return room.back(viewer, now)


@dataclass(frozen=True)
class Ping(SocketCommand):
    """Is the socket alive? Answered where the socket is."""

    type: ClassVar[str] = "ping"
    relayed: ClassVar[bool] = False

    async def handle(self, hub: Hub, connection: Connection) -> None:
        """Pong."""
        connection.send({"type": "pong"})


@dataclass(frozen=True)
class Hello(SocketCommand):
    """The first message of a socket; a second one is refused."""

    type: ClassVar[str] = "hello"
    relayed: ClassVar[bool] = False
    token: object = None

    async def handle(self, hub: Hub, connection: Connection) -> None:
        """Refused: the socket has joined already."""
        raise AlreadyJoined("this socket has said hello already")


@dataclass(frozen=True)
class RoomCommand(Command):
    """A command about the room with this code, done where the room is held."""

    code: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type:
            ROOM[cls.type] = cls

    async def here(self, hub: Hub) -> Any:
        """Do the command on the process holding the room; a JSON-ready result."""
        raise NotImplementedError


def from_json(data: dict[str, Any]) -> Command:
    """A command sent as :meth:`Command.to_json` (over Redis) made again."""
    kind = str(data.get("type"))
    cls: type[Command] | None = SOCKET.get(kind) or ROOM.get(kind)
    if cls is None:
        raise UnknownType(f"unknown command {kind[:40]!r}")
    return cls(**_fields(cls, data))


@dataclass(frozen=True)
class Info(RoomCommand):
    """A room's public facts."""

    type: ClassVar[str] = "info"

    async def here(self, hub: Hub) -> Any:
        """Read under the room's lock."""
        live = await hub.held(self.code)
        async with live.lock:
            return live.room.public_info()


@dataclass(frozen=True)
class Claim(RoomCommand):
    """Sit a person down: ``[seat, token]``."""

    type: ClassVar[str] = "claim"
    name: object = None
    seat: object = None

    async def here(self, hub: Hub) -> Any:
        """The room picks the seat and makes its token."""
        taken: list[Any] = []

        def sit(room: Room, _now: float) -> Changes:
            taken.extend(room.claim(self.name, self.seat))
            return Changes()

        await hub.change(self.code, sit)
        return taken


@dataclass(frozen=True)
class HostCommand(RoomCommand):
    """A host's command, checked against the host's token: the room's public
    facts after it."""

    token: object = None

    def change(self, room: Room, now: float) -> Changes:
        """The change, once the token is the host's."""
        raise NotImplementedError

    def checked(self, room: Room, now: float) -> Changes:
        """The host's token checked, then :meth:`change`."""
        room.check_host(self.token)
        return self.change(room, now)

    async def here(self, hub: Hub) -> Any:
        """Changed and committed under the room's lock."""
        return (await hub.change(self.code, self.checked)).public_info()


@dataclass(frozen=True)
class Start(HostCommand):
    """Start the game, bots in the open seats."""

    type: ClassVar[str] = "start"

    def change(self, room: Room, now: float) -> Changes:
        """Started."""
        return room.start(now)


@dataclass(frozen=True)
class SetBot(HostCommand):
    """A bot of ``level`` plays ``seat``."""

    type: ClassVar[str] = "bot"
    seat: object = None
    level: object = None

    def change(self, room: Room, now: float) -> Changes:
        """The seat handed to the bot."""
        return room.set_bot(self.seat, self.level, now)


@dataclass(frozen=True)
class OpenSeat(HostCommand):
    """Free ``seat`` in the lobby; the person who took it is disconnected."""

    type: ClassVar[str] = "open_seat"
    seat: object = None

    async def here(self, hub: Hub) -> Any:
        """Freed and committed, then the freed person's sockets closed (their
        token opens nothing now)."""
        freed: list[str | None] = []

        def free(room: Room, _now: float) -> Changes:
            room.check_host(self.token)
            freed.append(room.open_seat(self.seat))
            return Changes()

        room = await hub.change(self.code, free)
        if freed and freed[0] is not None:
            hub.close_seat(self.code, freed[0])
        return room.public_info()


@dataclass(frozen=True)
class Rematch(HostCommand):
    """Play again, seats rotated."""

    type: ClassVar[str] = "rematch"

    def change(self, room: Room, now: float) -> Changes:
        """The next game set up."""
        return room.rematch(now)


@dataclass(frozen=True)
class GetRecord(RoomCommand):
    """A finished game's full record, every secret included."""

    type: ClassVar[str] = "record"
    game_no: int = 1

    async def here(self, hub: Hub) -> Any:
        """Read from the room and the store: refused while the game is played."""
        return await hub.record_here(self.code, int(self.game_no))


@dataclass(frozen=True)
class Standing(RoomCommand):
    """A room's public facts and who is to move (``to_move``: a seat, or None
    while nobody is), for an account's list of its games."""

    type: ClassVar[str] = "standing"

    async def here(self, hub: Hub) -> Any:
        """Read under the room's lock."""
        live = await hub.held(self.code)
        async with live.lock:
            pending = live.room.pending()
            to_move = None if pending is None or pending.kind == "chance" else pending.seat
            return {**live.room.public_info(), "to_move": to_move}


@dataclass(frozen=True)
class Forget(RoomCommand):
    """The seat whose token hashes to ``token_hash`` is shown as ``label`` from
    now on, and so are its chat lines (its account was deleted):
    ``[seat, old name, game_no]``, or ``[]`` when no seat has that token now."""

    type: ClassVar[str] = "forget"
    token_hash: str = ""
    label: str = ""

    async def here(self, hub: Hub) -> Any:
        """Renamed and committed under the room's lock; everyone is told."""
        found: list[Any] = []

        def forget(room: Room, _now: float) -> Changes:
            for index, place in enumerate(room.seats):
                if place.token_hash is not None and place.token_hash == self.token_hash:
                    found.extend([index, place.name, room.game_no])
                    old, place.name = place.name, self.label
                    if index < len(room.seating) and room.seating[index] == old:
                        room.seating[index] = self.label
                    room.chat = [
                        {**line, "name": self.label} if line.get("name") == old else line
                        for line in room.chat
                    ]
                    return Changes()
            return Changes.nothing()

        await hub.change(self.code, forget)
        return found
