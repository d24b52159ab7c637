"""Friends, blocks and invitations to rooms (issue #31, item 5; docs/accounts.md#friends).

A friendship starts as a request from one account to another (a ``friendships``
row with ``accepted`` None) and is one once the asked account accepts it; either
may end it. A friend may be invited to a room by user name: the invitation shows
in the invitee's lobby, with the room's link, while the room is in its lobby or
playing. A block (``blocks``) ends any friendship and pending invitation between
the two, and from then on the blocked account cannot send the blocker a friend
request or an invitation, nor take a seat in a room the blocker hosts (the
account that created a room signed in is its host, kept in ``room_hosts``).

Who is online is read from the sessions every server process shares: an
account is online when one of its sessions was used within :data:`ONLINE_SECONDS`.
A signed-in page asks the server something at least that often (the lobby and
the account page poll, a room's socket uses its session while it is open:
:func:`keep_present`), so an open tab counts and a closed one stops counting
within a few minutes, on every process of a cluster alike.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from apothecary.server.accounts import AccountError, User, name_key
from apothecary.server.ratings import UserNotFound
from apothecary.server.seats import game_title
from apothecary.server.store import (
    account_sessions,
    blocks,
    friendships,
    invitations,
    room_hosts,
    rooms,
    users,
)

if TYPE_CHECKING:
    from apothecary.server.accounts import Accounts
    from apothecary.server.store import Store

ONLINE_SECONDS = 180.0
"""How recently an account's session must have been used for it to count as
online: three times :attr:`~apothecary.server.accounts.AccountConfig.touch_seconds`
(a session's last use is written at most once a minute), so a page that polls
every :data:`POLL_SECONDS` never flickers offline."""

POLL_SECONDS = 30.0
"""How often the browser's lobby and account page ask for the friends list
(``static/friends.js``), and how often a room's socket renews its session."""

LIVE = ("lobby", "playing")
"""The statuses of a room an invitation to it is shown for."""


class FriendError(AccountError):
    """A friends request refused."""


class Yourself(FriendError):
    """An account named itself as the friend, invitee or person to block."""

    code = "yourself"
    status = 400


class Blocked(FriendError):
    """One of the two blocked the other: no request, invitation or seat."""

    code = "blocked"
    status = 403


class NotFriends(FriendError):
    """An invitation to someone who is not a friend."""

    code = "not_friends"
    status = 403


class NoRequest(FriendError):
    """An answer to a friend request nobody made."""

    code = "no_request"
    status = 404


class NoRoom(FriendError):
    """An invitation to a room that is gone or over."""

    code = "no_room"
    status = 404


def _pair(one: int, other: int) -> sa.ColumnElement[bool]:
    """The friendship row of the two, whoever asked."""
    return sa.or_(
        sa.and_(friendships.c.asker == one, friendships.c.asked == other),
        sa.and_(friendships.c.asker == other, friendships.c.asked == one),
    )


def blocked_between(connection: Connection, one: int, other: int) -> int | None:
    """Who of the two blocked the other (the blocker's id), or None."""
    found = connection.execute(
        sa.select(blocks.c.blocker).where(
            sa.or_(
                sa.and_(blocks.c.blocker == one, blocks.c.blocked == other),
                sa.and_(blocks.c.blocker == other, blocks.c.blocked == one),
            )
        )
    ).scalar()
    return None if found is None else int(found)


def _user_id(connection: Connection, name: str) -> int:
    found = connection.execute(
        sa.select(users.c.id).where(users.c.name_key == name_key(name))
    ).scalar()
    if found is None:
        raise UserNotFound(f"no account is called {name!r}")
    return int(found)


def _other(connection: Connection, user: User, name: str) -> int:
    """The id of the account called ``name``, which must not be ``user``'s own."""
    other = _user_id(connection, name)
    if other == user.id:
        raise Yourself("that is your own account")
    return other


def _not_blocked(connection: Connection, user: User, other: int) -> None:
    blocker = blocked_between(connection, user.id, other)
    if blocker == user.id:
        raise Blocked("you blocked that person; unblock them first")
    if blocker is not None:
        raise Blocked("that person does not take requests or invitations from you")


def _unfriend(connection: Connection, one: int, other: int) -> None:
    """End the two's friendship or request and their invitations to each other."""
    connection.execute(friendships.delete().where(_pair(one, other)))
    connection.execute(
        invitations.delete().where(
            sa.or_(
                sa.and_(invitations.c.inviter == one, invitations.c.invitee == other),
                sa.and_(invitations.c.inviter == other, invitations.c.invitee == one),
            )
        )
    )


def online_ids(connection: Connection, ids: Iterable[int], now: float) -> set[int]:
    """Which of these accounts have a live session used in the last :data:`ONLINE_SECONDS`."""
    wanted = list(ids)
    if not wanted:
        return set()
    query = sa.select(account_sessions.c.user_id).where(
        account_sessions.c.user_id.in_(wanted),
        account_sessions.c.expires > now,
        account_sessions.c.last_seen > now - ONLINE_SECONDS,
    )
    return {int(found) for found in connection.execute(query).scalars()}


class Friends:
    """The friends, blocks and invitations of the accounts in ``store``. Writes
    go through the store's one writer; reads run in a thread."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def _write(self, fn: Any, *args: Any) -> Any:
        def write() -> Any:
            with self.store.engine.begin() as connection:
                return fn(connection, *args)

        return await self.store.run(write)

    # -- requests and friendships ------------------------------------------------------

    async def ask(self, user: User, name: str, now: float) -> str:
        """Ask ``name`` to be a friend: ``"requested"``, or ``"friends"`` when
        they had asked ``user`` already (the two requests make a friendship) or
        were friends. :class:`Blocked` if either blocked the other."""
        return str(await self._write(self._ask, user, name, now))

    def _ask(self, connection: Connection, user: User, name: str, now: float) -> str:
        other = _other(connection, user, name)
        _not_blocked(connection, user, other)
        row = connection.execute(friendships.select().where(_pair(user.id, other))).first()
        if row is None:
            connection.execute(friendships.insert().values(asker=user.id, asked=other, created=now))
            return "requested"
        if row.accepted is None and row.asker == other:
            connection.execute(
                friendships.update().where(_pair(user.id, other)).values(accepted=now)
            )
            return "friends"
        return "requested" if row.accepted is None else "friends"

    async def accept(self, user: User, name: str, now: float) -> None:
        """Accept the request ``name`` sent; :class:`NoRequest` without one."""
        await self._write(self._answer, user, name, now)

    async def decline(self, user: User, name: str) -> None:
        """Decline the request ``name`` sent; :class:`NoRequest` without one."""
        await self._write(self._answer, user, name, None)

    def _answer(self, connection: Connection, user: User, name: str, now: float | None) -> None:
        other = _user_id(connection, name)
        waiting = friendships.c.asker == other, friendships.c.asked == user.id
        pending = sa.and_(*waiting, friendships.c.accepted.is_(None))
        if now is None:
            done = connection.execute(friendships.delete().where(pending)).rowcount
        else:
            done = connection.execute(
                friendships.update().where(pending).values(accepted=now)
            ).rowcount
        if not done:
            raise NoRequest(f"{name!r} has not asked you to be friends")

    async def remove(self, user: User, name: str) -> None:
        """End the friendship with ``name``, or withdraw a request to them, and
        the invitations between the two (nothing if there was none)."""
        await self._write(
            lambda connection: _unfriend(connection, user.id, _user_id(connection, name))
        )

    # -- blocks ------------------------------------------------------------------------

    async def block(self, user: User, name: str, now: float) -> None:
        """Block ``name``: their friendship, requests and invitations go, and they
        can no longer ask, invite or sit at ``user``'s rooms. Blocking twice is once."""
        await self._write(self._block, user, name, now)

    def _block(self, connection: Connection, user: User, name: str, now: float) -> None:
        other = _other(connection, user, name)
        _unfriend(connection, user.id, other)
        mine = blocks.c.blocker == user.id, blocks.c.blocked == other
        if connection.execute(sa.select(blocks.c.created).where(*mine)).first() is None:
            connection.execute(blocks.insert().values(blocker=user.id, blocked=other, created=now))

    async def unblock(self, user: User, name: str) -> None:
        """Lift the block of ``name`` (nothing if there was none; no friendship comes back)."""

        def write(connection: Connection) -> None:
            other = _user_id(connection, name)
            connection.execute(
                blocks.delete().where(blocks.c.blocker == user.id, blocks.c.blocked == other)
            )

        await self._write(write)

    # -- invitations and hosts ---------------------------------------------------------

    async def invite(self, user: User, name: str, code: str, now: float) -> None:
        """Invite the friend ``name`` to room ``code`` (lobby or playing). Inviting
        again renews the invitation."""
        await self._write(self._invite, user, name, code, now)

    def _invite(self, connection: Connection, user: User, name: str, code: str, now: float) -> None:
        other = _other(connection, user, name)
        _not_blocked(connection, user, other)
        accepted = connection.execute(
            sa.select(friendships.c.accepted).where(_pair(user.id, other))
        ).scalar()
        if accepted is None:
            raise NotFriends(f"{name!r} is not your friend: send a friend request first")
        status = connection.execute(sa.select(rooms.c.status).where(rooms.c.code == code)).scalar()
        if status not in LIVE:
            raise NoRoom(f"room {code!r} is gone or its games are over")
        key = invitations.c.room == code, invitations.c.invitee == other
        connection.execute(invitations.delete().where(*key))
        connection.execute(
            invitations.insert().values(room=code, invitee=other, inviter=user.id, created=now)
        )

    async def dismiss(self, user: User, code: str) -> None:
        """Forget the invitation to room ``code`` (nothing if there was none)."""

        def write(connection: Connection) -> None:
            connection.execute(
                invitations.delete().where(
                    invitations.c.room == code, invitations.c.invitee == user.id
                )
            )

        await self._write(write)

    async def host(self, code: str, user: User) -> None:
        """Note that ``user`` created room ``code`` (whose blocks its seats obey)."""

        def write(connection: Connection) -> None:
            connection.execute(room_hosts.insert().values(room=code, user_id=user.id))

        await self._write(write)

    async def may_sit(self, code: str, user: User | None) -> None:
        """:class:`Blocked` if room ``code``'s host blocked ``user`` (a guest is
        no account, so is not known to be anyone blocked)."""
        if user is None:
            return

        def read() -> bool:
            query = (
                sa.select(blocks.c.blocker)
                .join(room_hosts, room_hosts.c.user_id == blocks.c.blocker)
                .where(room_hosts.c.room == code, blocks.c.blocked == user.id)
            )
            with self.store.engine.connect() as connection:
                return connection.execute(query).first() is not None

        if await asyncio.to_thread(read):
            raise Blocked("the host of this room blocked you: you cannot sit here")

    # -- the list ----------------------------------------------------------------------

    async def listing(self, user: User, now: float) -> dict[str, Any]:
        """``friends`` (name, online, since), ``incoming`` and ``outgoing`` requests
        (names), ``blocked`` (names) and ``invitations`` (room, game, from whom,
        the link), for ``user``'s Friends panel and lobby."""
        return await asyncio.to_thread(self._listing, user, now)

    def _listing(self, user: User, now: float) -> dict[str, Any]:
        with self.store.engine.connect() as connection:
            rows = connection.execute(
                sa.select(friendships, users.c.id, users.c.name)
                .join(
                    users,
                    users.c.id
                    == sa.case(
                        (friendships.c.asker == user.id, friendships.c.asked),
                        else_=friendships.c.asker,
                    ),
                )
                .where(sa.or_(friendships.c.asker == user.id, friendships.c.asked == user.id))
                .order_by(users.c.name_key)
            ).mappings()
            friends: list[Any] = []
            incoming: list[str] = []
            outgoing: list[str] = []
            for row in rows:
                if row["accepted"] is not None:
                    friends.append(row)
                else:
                    (outgoing if row["asker"] == user.id else incoming).append(str(row["name"]))
            online = online_ids(connection, (row["id"] for row in friends), now)
            blocked = connection.execute(
                sa.select(users.c.name)
                .join(blocks, blocks.c.blocked == users.c.id)
                .where(blocks.c.blocker == user.id)
                .order_by(users.c.name_key)
            ).scalars()
            invited = self._invitations(connection, user)
            return {
                "friends": [
                    {"name": row["name"], "online": row["id"] in online, "since": row["accepted"]}
                    for row in friends
                ],
                "incoming": incoming,
                "outgoing": outgoing,
                "blocked": [str(name) for name in blocked],
                "invitations": invited,
                "online_seconds": ONLINE_SECONDS,
            }

    def _invitations(self, connection: Connection, user: User) -> list[dict[str, Any]]:
        """The invitations to ``user`` whose rooms are in their lobby or playing, newest first."""
        query = (
            sa.select(invitations.c.room, invitations.c.created, users.c.name, rooms.c.game)
            .join(users, users.c.id == invitations.c.inviter)
            .join(rooms, rooms.c.code == invitations.c.room)
            .where(invitations.c.invitee == user.id, rooms.c.status.in_(LIVE))
            .order_by(invitations.c.created.desc())
        )
        return [
            {
                "room": row.room,
                "from": row.name,
                "game": row.game,
                "title": game_title(row.game),
                "created": row.created,
                "link": f"/rooms/{row.room}",
            }
            for row in connection.execute(query)
        ]


async def keep_present(accounts: Accounts, token: str, every: float = POLL_SECONDS) -> None:
    """Use the session of ``token`` every ``every`` seconds until cancelled: a
    room's socket that came with the session cookie keeps its account online
    while it is open (the session's last use is what :func:`online_ids` reads)."""
    while True:
        await accounts.session(token, time.time())
        await asyncio.sleep(every)
