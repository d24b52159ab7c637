"""Seats that belong to accounts: "your seats follow you" and "my games" (issue #31).

A seat is still a room's seat with its secret token, as for a guest; what this
module adds is a row (``seat_links``) saying which account a seat belongs to.
A seat is linked by proving its token, the same proof that plays it: right
after a signed-in person claims it, or when a guest signs up or in and the
browser sends the tokens it kept. Another device signed in to the account is
given the token back (:meth:`Seats.credentials`) and plays the seat as the
first device does. The link names the seat by its token's hash, so it follows
the person whichever chair a rematch rotates them to, and ends when the host
frees the seat (its token then opens nothing).

Deleting an account names its seats :data:`DELETED` in their rooms, in every
game's seating of those rooms and in their chat (:meth:`Seats.forget`), so no
record names the account. docs/accounts.md says why and what is kept.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from apothecary.core.errors import ApothecaryError
from apothecary.core.registry import game_class
from apothecary.server.accounts import AccountError, User
from apothecary.server.commands import Forget, Standing
from apothecary.server.room import RoomError, hash_token
from apothecary.server.store import actions, chat, games, rooms, seat_links

if TYPE_CHECKING:  # the hub is the app's; only its type is needed here
    from apothecary.server.hub import Hub

log = logging.getLogger(__name__)

DELETED = "deleted player"
"""What a seat of a deleted account is called from then on, in its room and records."""

CLAIMS_MAX = 200
"""The most seats one request may claim (a browser keeps a seat token per room it sat in)."""

SEAT_TOKEN_MAX = 64
"""The longest text taken as a seat token (a real one is 32 characters)."""


class BadSeatToken(AccountError):
    """A seat token that is no seat's of that room (or no such room)."""

    code = "bad_seat_token"
    status = 403


class SeatLinked(AccountError):
    """A seat that belongs to another account already."""

    code = "seat_linked"
    status = 409


class NoSeat(AccountError):
    """The account has no seat in that room (or the host freed it)."""

    code = "no_seat"
    status = 404


@dataclass(frozen=True)
class Claimed:
    """A seat linked to an account: its room and its chair now."""

    room: str
    seat: int


def _chair(seats: Sequence[dict[str, Any]], hashed: str) -> int | None:
    """Which chair of a room's stored seats has the token of this hash now."""
    for index, place in enumerate(seats):
        stored = place.get("token_hash")
        if stored is not None and secrets.compare_digest(str(stored), hashed):
            return index
    return None


def chair_in_game(chair: int, game_no: int, current: int, players: int) -> int:
    """The chair in game ``game_no`` of a person in ``chair`` at game ``current``:
    every next game moves everyone one chair on (``Room.next_game``)."""
    return (chair - (current - game_no)) % players


def result(outcome: dict[str, Any] | None, chair: int) -> str | None:
    """How a finished game went for ``chair``: ``won``, ``lost`` or ``drawn``
    (nobody won); None while it is not over."""
    if outcome is None:
        return None
    winners = list(outcome.get("winners") or [])
    if not winners:
        return "drawn"
    return "won" if chair in winners else "lost"


def game_title(game: str) -> str:
    """A game's title, by its registry name (the name itself for a game gone from it)."""
    try:
        return game_class(game).info.title
    except ApothecaryError:  # a room of a game uninstalled since: still listed
        return game


class Seats:
    """The seats of accounts in ``hub``'s store (the rooms' own rows say which
    chair a token has now; ``hub`` is asked who is to move and renames seats)."""

    def __init__(self, hub: Hub) -> None:
        self.hub, self.store = hub, hub.store

    # -- linking a seat to an account ------------------------------------------------------

    async def claim(self, user: User, code: str, token: str, now: float) -> Claimed:
        """Link the seat of ``token`` in room ``code`` to the account (proving
        the token is proving the seat); :class:`BadSeatToken` or
        :class:`SeatLinked` if not. Linking a seat twice changes nothing."""
        if not token or len(token) > SEAT_TOKEN_MAX:
            raise BadSeatToken("that is not a seat token")
        return await self.store.run(self._claim, user.id, code, token, now)

    def _claim(self, user_id: int, code: str, token: str, now: float) -> Claimed:
        hashed = hash_token(token)
        with self.store.engine.begin() as connection:
            seats = connection.execute(
                sa.select(rooms.c.seats).where(rooms.c.code == code)
            ).scalar()
            chair = None if seats is None else _chair(seats, hashed)
            if chair is None:
                raise BadSeatToken(f"that token is no seat's in room {code!r}")
            owner = connection.execute(
                sa.select(seat_links.c.user_id).where(
                    seat_links.c.room == code, seat_links.c.token_hash == hashed
                )
            ).scalar()
            if owner is None:
                connection.execute(
                    seat_links.insert().values(
                        room=code, token_hash=hashed, user_id=user_id, seat_token=token, linked=now
                    )
                )
            elif owner != user_id:
                raise SeatLinked("that seat belongs to another account")
            else:  # a rated link from before 0012 kept no token: this proof brings it
                connection.execute(
                    seat_links.update()
                    .where(
                        seat_links.c.room == code,
                        seat_links.c.token_hash == hashed,
                        seat_links.c.seat_token.is_(None),
                    )
                    .values(seat_token=token)
                )
        return Claimed(code, chair)

    async def claim_many(
        self, user: User, tokens: Sequence[tuple[str, str]], now: float
    ) -> tuple[list[Claimed], int]:
        """Link each ``(room, seat token)`` that proves a seat (a guest who signs
        up or in keeps the seats the browser kept): those linked, and how many
        were refused (a freed seat, a room gone, another account's seat)."""
        linked: list[Claimed] = []
        refused = 0
        for code, token in tokens[:CLAIMS_MAX]:
            try:
                linked.append(await self.claim(user, code, token, now))
            except (BadSeatToken, SeatLinked):
                refused += 1
        return linked, refused + max(0, len(tokens) - CLAIMS_MAX)

    async def credentials(self, user: User, code: str) -> dict[str, Any]:
        """The account's seat in room ``code``: ``{"seat", "token", "name"}``, for
        another device to play it; :class:`NoSeat` without one."""
        rows = await self._links(user.id, code)
        for row in rows:
            chair = _chair(row["seats"], row["token_hash"])
            # A rated link from before migration 0012 has no token to give.
            if chair is not None and row["seat_token"] is not None:
                name = row["seats"][chair].get("name", "")
                return {"room": code, "seat": chair, "token": row["seat_token"], "name": name}
        raise NoSeat(f"you have no seat in room {code!r}")

    async def _links(self, user_id: int, code: str | None = None) -> list[dict[str, Any]]:
        """The account's links with their rooms' rows (a room gone leaves none)."""
        query = (
            sa.select(
                seat_links.c.room,
                seat_links.c.token_hash,
                seat_links.c.seat_token,
                rooms.c.game,
                rooms.c.players,
                rooms.c.seats,
                rooms.c.status,
                rooms.c.game_no,
                rooms.c.settings,
                rooms.c.updated,
            )
            .join(rooms, rooms.c.code == seat_links.c.room)
            .where(seat_links.c.user_id == user_id)
            .order_by(rooms.c.updated.desc())
        )
        if code is not None:
            query = query.where(seat_links.c.room == code)

        def read() -> list[dict[str, Any]]:
            with self.store.engine.connect() as connection:
                return [dict(row) for row in connection.execute(query).mappings()]

        return await asyncio.to_thread(read)

    # -- my games ----------------------------------------------------------------------------

    async def games(self, user: User) -> dict[str, list[dict[str, Any]]]:
        """The account's games: ``current`` (rooms in their lobby or playing:
        who sits, who is to move, the series) and ``finished`` (each finished
        game, newest first: when, how it went, its replay)."""
        links = await self._links(user.id)
        seated = [(row, _chair(row["seats"], row["token_hash"])) for row in links]
        mine = [(row, chair) for row, chair in seated if chair is not None]
        current = [
            await self._current(row, chair)
            for row, chair in mine
            if row["status"] in ("lobby", "playing")
        ]
        finished = await asyncio.to_thread(self._finished, mine)
        return {"current": current, "finished": finished}

    async def _current(self, row: dict[str, Any], chair: int) -> dict[str, Any]:
        """One room the account sits in, as the server holding it sees it now."""
        code = str(row["room"])
        try:
            live: dict[str, Any] = await self.hub.ask(Standing(code))
            seats, to_move = live["seats"], live["to_move"]
        except RoomError:  # held nowhere and not loadable: the stored row's facts
            seats, to_move = row["seats"], None
        return {
            "room": code,
            "game": row["game"],
            "title": game_title(row["game"]),
            "status": row["status"],
            "game_no": row["game_no"],
            "seat": chair,
            "players": [place.get("name") or f"{place.get('level')} bot" for place in seats],
            "to_move": to_move,
            "your_turn": to_move == chair and row["status"] == "playing",
            "series": [int(place.get("wins", 0)) for place in seats],
            "match_target": (row["settings"] or {}).get("match_target"),
            "link": f"/rooms/{code}",
        }

    def _finished(self, mine: list[tuple[dict[str, Any], int]]) -> list[dict[str, Any]]:
        """Every finished game of the rooms the account sits in, newest first."""
        by_code = {str(row["room"]): (row, chair) for row, chair in mine}
        if not by_code:
            return []
        # When each game ended: its last action (grouped apart, as PostgreSQL cannot
        # group by a JSON column).
        ended = (
            sa.select(actions.c.room, actions.c.game_no, sa.func.max(actions.c.at).label("at"))
            .where(actions.c.room.in_(list(by_code)))
            .group_by(actions.c.room, actions.c.game_no)
            .subquery()
        )
        query = (
            sa.select(games.c.room, games.c.game_no, games.c.seating, games.c.outcome, ended.c.at)
            .outerjoin(
                ended, sa.and_(ended.c.room == games.c.room, ended.c.game_no == games.c.game_no)
            )
            .where(games.c.room.in_(list(by_code)), games.c.outcome.is_not(None))
        )
        with self.store.engine.connect() as connection:
            found = connection.execute(query).mappings().all()
        history = []
        for game in found:
            row, chair = by_code[str(game["room"])]
            then = chair_in_game(chair, game["game_no"], row["game_no"], row["players"])
            history.append(
                {
                    "room": game["room"],
                    "game": row["game"],
                    "title": game_title(row["game"]),
                    "game_no": game["game_no"],
                    "ended": game["at"] if game["at"] is not None else row["updated"],
                    "seat": then,
                    "players": list(game["seating"] or []),
                    "result": result(game["outcome"], then),
                    "replay": f"/replay/{game['room']}/{game['game_no']}",
                }
            )
        history.sort(key=lambda entry: (-float(entry["ended"]), entry["room"], -entry["game_no"]))
        return history

    # -- a deleted account -------------------------------------------------------------------

    async def forget(self, user: User) -> int:
        """Name every seat of the account :data:`DELETED`: in its room (through
        the process holding it, so everyone watching sees it), in each game's
        seating and in the room's chat; then its links go. How many seats."""
        rows = await self._links(user.id)
        renamed = 0
        for row in rows:
            code = str(row["room"])
            try:
                found = await self.hub.ask(Forget(code, row["token_hash"], DELETED))
            except RoomError:
                log.warning("room %s: a deleted account's seat could not be renamed", code)
                continue
            if found:
                chair, old, game_no = found
                await self.store.run(self._forget_records, code, chair, str(old), int(game_no))
                renamed += 1
        await self.store.run(self._unlink, user.id)
        return renamed

    def _forget_records(self, code: str, chair: int, old: str, current: int) -> None:
        """The seat's name in every game's seating of room ``code``, and in its chat."""
        with self.store.engine.begin() as connection:
            played = connection.execute(
                sa.select(games.c.game_no, games.c.seating).where(games.c.room == code)
            ).all()
            for game_no, seating in played:
                names = list(seating or [])
                then = chair_in_game(chair, game_no, current, len(names)) if names else 0
                if names and names[then] == old:
                    names[then] = DELETED
                    connection.execute(
                        games.update()
                        .where(games.c.room == code, games.c.game_no == game_no)
                        .values(seating=names)
                    )
            connection.execute(
                chat.update().where(chat.c.room == code, chat.c.name == old).values(name=DELETED)
            )

    def _unlink(self, user_id: int) -> None:
        with self.store.engine.begin() as connection:
            connection.execute(seat_links.delete().where(seat_links.c.user_id == user_id))
