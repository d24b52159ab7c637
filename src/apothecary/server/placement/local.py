"""One process holds every room: the placement of ``apothecary serve`` alone.

Nothing here knows of Redis, leases or relays, and nothing is packed into
JSON to be sent anywhere: a command is done by its handler at once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from apothecary.server.placement import Placement, newest_first
from apothecary.server.room import Room, RoomNotFound

if TYPE_CHECKING:
    from apothecary.server.commands import RoomCommand, SocketCommand
    from apothecary.server.hub import Connection

log = logging.getLogger("apothecary.server")


class LocalPlacement(Placement):
    """Every room is here; one not in memory is loaded from the store."""

    async def start(self) -> None:
        """Resume every active room from the store, its turn timer given back
        the time the server was down."""
        hub = self.hub
        now = hub.config.clock()
        since = now - hub.config.idle_seconds
        await hub.run_db(hub.store.resume_clocks, now)
        # Expired lobbies and abandoned games stay asleep (their links still load them).
        rooms: list[Room] = await hub.run_db(
            hub.store.load_active,
            since,
            now - hub.config.lobby_expiry,
            now - hub.config.abandoned_expiry,
        )
        for room in rooms:
            hub.adopt(room)
        log.info("resumed %d rooms from %s", len(rooms), hub.store.describe())

    async def close(self) -> None:
        """Nothing runs here and nothing is held."""

    async def absent(self, code: str) -> Room:
        """The room, from the store (a finished room that left memory comes back)."""
        room: Room | None = await self.hub.run_db(self.hub.store.load, code)
        if room is None:
            raise RoomNotFound(f"no room {code!r}")
        return room

    async def listed(self) -> list[dict[str, Any]]:
        """The rooms in memory that are listed and not over."""
        return [room.public_info() for room in self._listed()]

    async def listed_page(self, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """The page's rooms alone are described (a long list costs a sort, no more)."""
        rooms = sorted(self._listed(), key=lambda room: newest_first(room.created, room.code))
        return len(rooms), [room.public_info() for room in rooms[offset : offset + limit]]

    def _listed(self) -> list[Room]:
        return [
            live.room
            for live in self.hub.rooms.values()
            if live.room.settings.listed and live.room.status != "over"
        ]

    async def ask(self, command: RoomCommand) -> Any:
        """Done here, by the command's handler."""
        return await command.here(self.hub)

    async def connect(
        self, code: str, token: object, lang: str = "en"
    ) -> tuple[Connection, dict[str, Any]]:
        """Joined here."""
        return await self.hub.connect_here(code, token, lang=lang)

    async def forward(self, connection: Connection, command: SocketCommand) -> None:
        """No socket is relayed on one process: done here like any other."""
        await command.handle(self.hub, connection)
