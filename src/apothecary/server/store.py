"""Rooms kept in a database through SQLAlchemy: SQLite by default, PostgreSQL
or any other SQLAlchemy URL for a real deployment.

A room is its row (settings, seats, status, timer deadline), its games, and
the actions of each game, appended one row each. A room is rebuilt by
replaying its current game's actions, so the action rows are the truth; the
one thing derived from them that is kept is a finished game's analysis, which
is costly to make and never changes. Every change is written in one transaction before
anyone is told of it (:meth:`Store.commit`). The schema is made and upgraded
by the Alembic migrations in ``migrations/``, applied by :meth:`Store.migrate`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from apothecary.core.errors import ApothecaryError
from apothecary.core.game import JSON
from apothecary.server.room import CHAT_KEPT, Changes, Room

T = TypeVar("T")

DB_ENV = "APOTHECARY_DB"
"""The environment variable that names the database when ``--db`` does not."""

# The tables as this version of the code reads and writes them. The migrations
# in migrations/versions/ spell each table out again on purpose: a migration
# is history, frozen as the schema was when it was written, so it must not
# follow later edits of these definitions (a test upgrades an old database
# and checks the two agree).
metadata = sa.MetaData()

rooms = sa.Table(
    "rooms",
    metadata,
    sa.Column("code", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),
    sa.Column("host_hash", sa.String(64), nullable=False),
    sa.Column("seats", sa.JSON, nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("game_no", sa.Integer, nullable=False),
    sa.Column("deadline", sa.Float, nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    # When the process holding the room last vouched for it: at each commit, and every
    # second while a turn timer runs (Hub). What lies between it and a restart is time
    # the room was held by nobody, which the seat to move is given back (resume_clocks).
    sa.Column("alive", sa.Float, nullable=True),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
    sa.Column("game_no", sa.Integer, primary_key=True),
    sa.Column("seating", sa.JSON, nullable=False),
    sa.Column("outcome", sa.JSON, nullable=True),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("game_no", sa.Integer, primary_key=True),
    sa.Column("step", sa.Integer, primary_key=True),
    sa.Column("action", sa.Integer, nullable=False),
    sa.Column("notation", sa.String(200), nullable=False),
    sa.Column("actor", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
)

chat = sa.Table(
    "chat",
    metadata,
    sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("text", sa.String(1000), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

notices = sa.Table(
    "notices",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("game_no", sa.Integer, primary_key=True),
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("level", sa.String(64), nullable=True),
    sa.Column("reason", sa.String(16), nullable=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
)
"""Each game's room notices (who left, came back, was handed to a bot, took the
seat back), in order: the log shows them, and they say which moves a bot made
for a person."""

NOTICE_KEYS = ("id", "kind", "seat", "step", "level", "reason", "at")

leases = sa.Table(
    "leases",
    metadata,
    sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False, index=True),
    sa.Column("expires", sa.Float, nullable=False),
)
"""Which server process holds each room, until when (seconds by the database's
clock). Only servers sharing a database use it (``apothecary serve --redis``)."""

analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("game_no", sa.Integer, primary_key=True),
    sa.Column("plan", sa.String(255), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("decisions", sa.JSON, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
)
"""Each finished analysis of a finished game, written once when it completes:
keyed by the game, the plan that values it (bot, playouts, budget, seed, as
one canonical text) and the version of the format its decisions are kept in,
so a later format simply never reads an older row."""

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(32), nullable=False),
    # The name folded to lower case: one account per name whatever its case.
    sa.Column("name_key", sa.String(32), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(255), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("password_changed", sa.Float, nullable=False),
    # An e-mail address for your-turn mails (optional; migration 0010), whether they
    # are wanted, and the random token of the mails' one-click unsubscribe link.
    sa.Column("email", sa.String(254), nullable=True),
    sa.Column("turn_mail", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("mail_token", sa.String(64), nullable=True),
    # Vacation (turn-based rooms): until when, and the days taken in which year.
    sa.Column("vacation_until", sa.Float, nullable=True),
    sa.Column("vacation_year", sa.Integer, nullable=True),
    sa.Column("vacation_used", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_users_mail_token", "mail_token", unique=True),
)
"""Accounts (:mod:`apothecary.server.accounts`): a user name as it was typed, its
folded key, and an argon2id hash of the password, never the password."""

account_sessions = sa.Table(
    "account_sessions",
    metadata,
    # A SHA-256 of the cookie's token: a copy of the table signs nobody in.
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
    sa.Index("ix_account_sessions_user_id", "user_id"),
    # The sweep of every account's ended sessions finds them by these (migration 0008).
    sa.Index("ix_account_sessions_expires", "expires"),
    sa.Index("ix_account_sessions_last_seen", "last_seen"),
)
"""Signed-in sessions, one row each, shared by every server process on the database."""

sign_in_attempts = sa.Table(
    "sign_in_attempts",
    metadata,
    # "account:NAME" or "address:IP": what a sign-in attempt is counted against.
    sa.Column("key", sa.String(96), primary_key=True),
    sa.Column("minute", sa.Integer, nullable=False, index=True),
    sa.Column("tries", sa.Integer, nullable=False),
)
"""How many sign-in attempts each account name and client address made in its
current minute, counted in the database so that every server process shares the
limit (:meth:`apothecary.server.accounts.Accounts.throttle`)."""

seat_links = sa.Table(
    "seat_links",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    # The seat's token hash, as the room's seat keeps it: the seat the link is to,
    # whichever chair a rematch rotates it to.
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    # The seat token itself: what another device signed in to the account is given
    # to play the seat (docs/accounts.md#your-seats-follow-you says why it is kept).
    # None for a rated seat linked before migration 0012, when ratings kept only
    # the hash (such a seat is rated and listed, but plays on its first device only).
    sa.Column("seat_token", sa.String(64), nullable=True),
    sa.Column("linked", sa.Float, nullable=False),
    sa.Index("ix_seat_links_user_id", "user_id"),
)
"""Which account each seat belongs to (:mod:`apothecary.server.seats`): the seats
a signed-in person took, or a guest's seats claimed at sign-up by their tokens.
Ratings read it too (:func:`apothecary.server.ratings.account_of_seat`): a rated
claim writes its link here, so one table says whose each seat is."""

turn_mails = sa.Table(
    "turn_mails",
    metadata,
    # One row per room and turn (its state id): a turn is mailed at most once,
    # whatever restarts fall between (apothecary.server.turnmail).
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("turn", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False),
    # A SHA-256 of the mail's link token: the link gives its seat to a device.
    sa.Column("link_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("sent", sa.Float, nullable=False),
    sa.Index("ix_turn_mails_user_id", "user_id"),
)
"""The your-turn e-mails sent (:mod:`apothecary.server.turnmail`)."""
passkeys = sa.Table(
    "passkeys",
    metadata,
    # The credential's id, base64url (up to 1023 bytes: 1364 characters).
    sa.Column("credential_id", sa.String(1400), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    # The WebAuthn user handle, random, one per account (the same on each of its passkeys):
    # what an authenticator keys its discoverable credentials by, and never the account's id.
    sa.Column("user_handle", sa.String(64), nullable=False),
    sa.Column("public_key", sa.LargeBinary, nullable=False),
    sa.Column("sign_count", sa.Integer, nullable=False),
    sa.Column("label", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_used", sa.Float, nullable=True),
    sa.Index("ix_passkeys_user_id", "user_id"),
)
"""The accounts' passkeys (:mod:`apothecary.server.passkeys`): each credential's
public key and signature count; no secret (a copy of the table signs nobody in)."""

passkey_challenges = sa.Table(
    "passkey_challenges",
    metadata,
    # The challenge, base64url: the client returns it inside its signed clientDataJSON.
    sa.Column("challenge", sa.String(64), primary_key=True),
    # "register" (for user_id's account) or "sign-in".
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    # A registration's: the user handle its options named, kept with the new passkey.
    sa.Column("user_handle", sa.String(64), nullable=True),
    sa.Column("expires", sa.Float, nullable=False, index=True),
)
"""Challenges given out and not yet answered, each good once and until it expires,
in the database so that the process answering need not be the one that asked."""


# -- ratings (apothecary.server.ratings) ----------------------------------------------------
# A rated player is a "subject": "user:ID" for an account, "bot:LEVEL" for a bot level's
# pseudo-account. user_id is set for an account's rows, so deleting the account deletes them.

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("subject", sa.String(80), primary_key=True),
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("players", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Index("ix_ratings_user_id", "user_id"),
    sa.Index("ix_ratings_board", "game", "players"),
)
"""Each subject's current openskill rating per game and player count."""

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("game_no", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("subject", sa.String(80), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("abandoned", sa.Boolean, nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=False),
    sa.Column("sigma_after", sa.Float, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("ix_rating_history_subject", "subject", "at"),
    sa.Index("ix_rating_history_user_id", "user_id"),
)
"""One row per seat of each rated game: the rating before and after it. The key is
the game's seat, so a game is never rated twice (a crash and replay cannot)."""


# -- friends (apothecary.server.friends) ---------------------------------------------------

friendships = sa.Table(
    "friendships",
    metadata,
    sa.Column("asker", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("asked", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    # None while the request waits for the asked account to accept it.
    sa.Column("accepted", sa.Float, nullable=True),
    sa.Index("ix_friendships_asked", "asked"),
)
"""Friend requests (``accepted`` None) and friendships, one row per pair."""

blocks = sa.Table(
    "blocks",
    metadata,
    sa.Column(
        "blocker", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "blocked", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_blocks_blocked", "blocked"),
)
"""Who blocked whom: the blocked account cannot befriend, invite or sit with the blocker."""

invitations = sa.Table(
    "invitations",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column(
        "invitee", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("inviter", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_invitations_invitee", "invitee"),
    sa.Index("ix_invitations_inviter", "inviter"),
)
"""Invitations of a friend to a room, one per room and invitee (shown while the room lives)."""

room_hosts = sa.Table(
    "room_hosts",
    metadata,
    sa.Column("room", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Index("ix_room_hosts_user_id", "user_id"),
)
"""The account that created a room, when it was made signed in (whose blocks its seats obey)."""


_UPDATE_ROOM = rooms.update().where(rooms.c.code == sa.bindparam("room_code"))
"""A move's rewrite of its room's row, made once: its values come as parameters
(the SET clause is their keys). Built per commit with ``.values(**row)``, every
value was coerced into a bound parameter and walked for the statement's cache
key, about a third of the commit's CPU on SQLite."""

_INSERT_ROOM = rooms.insert()
_INSERT_GAME = games.insert()
_INSERT_ACTIONS = actions.insert()
_FINISH_GAME = games.update().where(
    games.c.room == sa.bindparam("g_room"), games.c.game_no == sa.bindparam("g_no")
)
_INSERT_CHAT = chat.insert()
_TRIM_CHAT = chat.delete().where(
    chat.c.room == sa.bindparam("c_room"), chat.c.id <= sa.bindparam("c_upto")
)
_INSERT_NOTICES = notices.insert()
"""The rest of a commit's statements, made once, so each commit only binds
values (SQLAlchemy caches each one's compiled form by its key set; the driver
caches the prepared statement: sqlite3's statement cache, psycopg's after five
runs)."""

UNREADABLE = "unreadable JSON"
"""What :meth:`Store.kept_analysis` gives for a row whose JSON does not parse
(never a list of decisions, so it fails any shape check and is recomputed)."""


class StoreError(ApothecaryError):
    """A database URL that cannot be used, or a store that cannot be read."""


class LeaseLost(StoreError):
    """A process wrote to a room it no longer holds (its lease ran out and
    another process may have taken the room): nothing was written."""


Lease = tuple[str, float]
"""A process's claim on the rooms it writes: its id and how many seconds a
lease lasts from each renewal."""


def default_url() -> str:
    """``APOTHECARY_DB``, else a SQLite file in the user's data folder."""
    from_env = os.environ.get(DB_ENV)
    if from_env:
        return from_env
    import platformdirs

    folder = Path(platformdirs.user_data_dir("apothecary", appauthor=False))
    return f"sqlite:///{folder / 'server.sqlite3'}"


def normalise_url(url: str) -> str:
    """A PostgreSQL URL without a driver gets psycopg (version 3), which the
    ``[web]`` extra installs; other URLs are used as given."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


IMPORTING = "importing"
"""The status of an uploaded record's room while its actions are still being
kept (:meth:`Store.begin_import`): a room in it is never resumed, listed or
replayed, and one left so by a stopped server is deleted later
(:meth:`Store.drop_imports`)."""

IMPORT_GRACE = 3600.0
"""Seconds after which a server starting deletes an upload still half-kept."""

IMPORT_PART = 1000
"""Actions kept per transaction of an upload: about 10 ms of the writer's
time each on SQLite, so a long record does not hold every room's commits
behind it (a 17,000-action one did for over a second)."""


class Store:
    """A database of rooms. Its methods block: the server calls them from one
    worker thread, so the event loop never waits on the disk."""

    def __init__(self, url: str) -> None:
        url = normalise_url(url)
        try:
            parsed = sa.engine.make_url(url)
        except sa.exc.ArgumentError as error:
            raise StoreError(f"not a database URL: {url!r} ({error})") from None
        self.url = parsed
        kwargs: dict[str, Any] = {}
        if parsed.get_backend_name() == "sqlite":
            database = parsed.database
            if database and database != ":memory:":
                Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False}
        try:
            self.engine: Engine = sa.create_engine(parsed, **kwargs)
        except (ImportError, sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as error:
            raise StoreError(f"cannot use database {parsed!r}: {error}") from None
        if parsed.get_backend_name() == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        # Leases are timed by the database's clock, never a process's: processes
        # on several hosts then agree on when a lease ran out, whatever their clocks say.
        self._clock: sa.ColumnElement[float] = (
            sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Float)
            if parsed.get_backend_name() == "postgresql"
            else sa.literal_column("((julianday('now') - 2440587.5) * 86400.0)", sa.Float)
        )
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        lease_room = leases.c.room == sa.bindparam("lease_room")
        seconds = self._clock + sa.bindparam("lease_seconds", type_=sa.Float)
        self._renew_lease = (
            leases.update()
            .where(
                lease_room,
                leases.c.owner == sa.bindparam("lease_owner"),
                leases.c.expires >= self._clock,
            )
            .values(expires=seconds)
        )
        self._take_lease = leases.insert().values(
            room=sa.bindparam("lease_room"), owner=sa.bindparam("lease_owner"), expires=seconds
        )
        # The group commit (commit_grouped): the commits waiting for the writer,
        # and whether a flush of them is on its way to it.
        self._queue: list[_Queued] = []
        self._queue_lock = threading.Lock()
        self._armed = False
        self.group_wait = 0.0
        """Seconds a first queued commit waits for others (0: to the next tick)."""
        self.groups = 0
        """Transactions of commits written, and the commits in them (for benchmarks)."""
        self.grouped = 0
        self.groups_split = 0
        """Groups that failed and were written again one room at a time."""
        # Each room's row as this store last committed it: a later commit then
        # writes only the columns that changed. Forgotten when the room is read
        # again (another process may have written it) or a commit fails.
        self._written: dict[str, dict[str, Any]] = {}

    @property
    def shared(self) -> bool:
        """Whether several processes, maybe on several hosts, can share this
        database (SQLite is one machine's file, written by one process at a time)."""
        return self.url.get_backend_name() != "sqlite"

    def describe(self) -> str:
        """The URL with any password hidden, for logs."""
        return self.url.render_as_string(hide_password=True)

    # -- schema -------------------------------------------------------------------------

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest migration (Alembic)."""
        from alembic import command

        try:
            with self.engine.begin() as connection:
                if self.url.get_backend_name() == "postgresql":
                    # Server processes starting at once on one database take turns:
                    # the first migrates, the others then find the schema at head.
                    connection.execute(sa.text("SELECT pg_advisory_xact_lock(4206661)"))
                command.upgrade(alembic_config(connection), "head")
        except sa.exc.OperationalError as error:
            detail = " ".join(str(error.orig).split())  # one line, whatever the driver says
            raise StoreError(f"cannot open database {self.describe()}: {detail}") from None

    def revision(self) -> str | None:
        """The schema's current Alembic revision (None: an empty database)."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    # -- writing ------------------------------------------------------------------------

    def commit(self, room: Room, changes: Changes, now: float, lease: Lease | None = None) -> None:
        """Write the room's row and what ``changes`` added, in one transaction.

        With a ``lease`` (servers sharing the database), the write happens only
        if that process still holds the room's lease, which it renews; a new
        room's lease goes to it. Otherwise :class:`LeaseLost`, and nothing is
        written. The lease row's lock is held until the commit, so a takeover
        (:meth:`acquire`) waits for this transaction and then sees the renewed
        lease: a room never has two writers, whatever the timing.
        """
        self._commit_group([_Queued(room, changes, now, lease)])

    async def commit_grouped(
        self, room: Room, changes: Changes, now: float, lease: Lease | None = None
    ) -> None:
        """:meth:`commit`, on the writer, in one transaction with every other
        room's commit queued in the same event-loop tick (or while the writer
        was busy): returns, or raises what :meth:`commit` would have raised for
        this room alone, only once that transaction has returned. A group that
        fails is written again one room at a time, so one room's error (a lost
        lease, a clash) fails that room alone."""
        queued = _Queued(room, changes, now, lease)
        with self._queue_lock:
            self._queue.append(queued)
            arm = not self._armed
            self._armed = True
        if arm:
            # Submitted at the next tick, not now: every commit queued by the
            # callbacks of this tick joins the group.
            loop = asyncio.get_running_loop()
            if self.group_wait > 0:
                loop.call_later(self.group_wait, self._writer().submit, self._flush)
            else:
                loop.call_soon(self._writer().submit, self._flush)
        await asyncio.wrap_future(queued.done)

    def _flush(self) -> None:
        # On the writer: take every queued commit, write them as groups in
        # which each room appears once (its commits stay in order).
        with self._queue_lock:
            taken, self._queue = self._queue, []
            self._armed = False
        group: list[_Queued] = []
        for queued in taken:
            if any(other.room.code == queued.room.code for other in group):
                self._deliver(group)
                group = []
            group.append(queued)
        if group:
            self._deliver(group)

    def _deliver(self, group: list[_Queued]) -> None:
        try:
            self._commit_group(group)
        except Exception as error:  # each room of the group is told its own result
            if len(group) == 1:
                _settle(group[0], error)
                return
            self.groups_split += 1
            for queued in group:
                try:
                    self._commit_group([queued])
                except Exception as alone:
                    _settle(queued, alone)
                else:
                    _settle(queued, None)
            return
        for queued in group:
            _settle(queued, None)

    def _commit_group(self, group: list[_Queued]) -> None:
        # One transaction for the whole group; the rows each room last had
        # written are remembered only once it has committed.
        try:
            with self.engine.begin() as connection:
                written = self._write_group(connection, group)
        except Exception:
            for queued in group:
                self._written.pop(queued.room.code, None)
            raise
        self._written.update(written)
        self.groups += 1
        self.grouped += len(group)

    def _write_group(
        self, connection: Connection, group: list[_Queued]
    ) -> dict[str, dict[str, Any]]:
        rows = {queued.room.code: queued.room.snapshot() for queued in group}
        # Rooms whose row this store wrote last get only the columns that
        # changed (most moves change none but the times), the same key set in
        # one executemany; a room not known gets its whole row.
        narrow: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        whole: list[_Queued] = []
        for queued in group:
            code = queued.room.code
            before = self._written.get(code)
            if before is None:
                whole.append(queued)
                continue
            params = {k: v for k, v in rows[code].items() if k != "code" and before.get(k) != v}
            params.update(room_code=code, updated=queued.now, alive=queued.now)
            narrow.setdefault(tuple(sorted(params)), []).append(params)
        for batch in narrow.values():
            updated = connection.execute(_UPDATE_ROOM, batch)
            if updated.rowcount != len(batch):
                raise StoreError("a room's row is not where this store wrote it")
        renew = [queued for queued in group if queued.lease is not None]
        for queued in whole:
            row = rows[queued.room.code]
            values = {k: v for k, v in row.items() if k != "code"}
            updated = connection.execute(
                _UPDATE_ROOM,
                {**values, "room_code": row["code"], "updated": queued.now, "alive": queued.now},
            )
            if updated.rowcount == 0:
                connection.execute(
                    _INSERT_ROOM, {**row, "updated": queued.now, "alive": queued.now}
                )
                if queued.lease is not None:
                    renew.remove(queued)
                    connection.execute(
                        self._take_lease,
                        {
                            "lease_room": row["code"],
                            "lease_owner": queued.lease[0],
                            "lease_seconds": queued.lease[1],
                        },
                    )
        if renew:
            renewed = connection.execute(
                self._renew_lease,
                [
                    {
                        "lease_room": q.room.code,
                        "lease_owner": q.lease[0],
                        "lease_seconds": q.lease[1],
                    }
                    for q in renew
                    if q.lease is not None
                ],
            )
            if renewed.rowcount != len(renew):
                codes = ", ".join(q.room.code for q in renew)
                raise LeaseLost(f"room {codes}: this process no longer holds it")
        _write_changes(connection, [(queued.room.code, queued.changes) for queued in group])
        for queued in group:
            changes = queued.changes
            if changes.finished is not None and queued.room.settings.rated:
                # A rated game's ratings move in the transaction that finishes it.
                from apothecary.server.ratings import rate_finished

                rate_finished(connection, queued.room, changes.finished[0], queued.now)
        return rows

    # -- turn timers across an outage ---------------------------------------------------

    def vouch(self, codes: list[str], now: float) -> None:
        """The process holding these rooms is running at ``now`` (their timers run)."""
        with self.engine.begin() as connection:
            connection.execute(rooms.update().where(rooms.c.code.in_(codes)).values(alive=now))

    def resume_clocks(self, now: float, code: str | None = None) -> int:
        """Before rooms are loaded to be held again (all of them, or ``code``): push
        each pending turn deadline on by the time since the room was last vouched for
        (or, in a row written before that was kept, last committed), so the seat to
        move has the time it had when its server stopped. How many rooms it moved."""
        last = sa.func.coalesce(rooms.c.alive, rooms.c.updated)
        query = rooms.update().where(
            rooms.c.status == "playing", rooms.c.deadline.is_not(None), last < now
        )
        if code is not None:
            query = query.where(rooms.c.code == code)
            self._written.pop(code, None)
        else:
            self._written.clear()
        with self.engine.begin() as connection:
            moved = connection.execute(
                query.values(deadline=rooms.c.deadline + (now - last), alive=now)
            )
            return int(moved.rowcount)

    # -- leases (servers sharing one database) -----------------------------------------

    def acquire(self, code: str, owner: str, seconds: float) -> bool | None:
        """Take the room's lease for ``owner`` if nobody holds it or it ran out
        (a compare-and-set: of processes racing, exactly one wins), or renew
        it if ``owner`` holds it. True: ``owner`` holds it now; False: another
        process does; None: there is no such room."""
        with self.engine.begin() as connection:
            taken = connection.execute(
                leases.update()
                .where(
                    leases.c.room == code,
                    sa.or_(leases.c.owner == owner, leases.c.expires < self._clock),
                )
                .values(owner=owner, expires=self._clock + seconds)
            )
            if taken.rowcount:
                return True
            if connection.execute(sa.select(leases.c.room).where(leases.c.room == code)).first():
                return False
            if not connection.execute(sa.select(rooms.c.code).where(rooms.c.code == code)).first():
                return None
            try:
                with connection.begin_nested():
                    connection.execute(
                        leases.insert().values(
                            room=code, owner=owner, expires=self._clock + seconds
                        )
                    )
            except sa.exc.IntegrityError:
                return False  # another process inserted it first
            return True

    def renew(self, owner: str, seconds: float) -> set[str]:
        """Renew every lease ``owner`` still holds; the rooms they are for (a
        lease that ran out is not renewed: another process may have the room)."""
        with self.engine.begin() as connection:
            held = connection.execute(
                leases.update()
                .where(leases.c.owner == owner, leases.c.expires >= self._clock)
                .values(expires=self._clock + seconds)
                .returning(leases.c.room)
            ).scalars()
            return set(held)

    def release(self, owner: str, codes: list[str] | None = None) -> None:
        """Give up ``owner``'s leases (all, or those of ``codes``) at once, so
        another process may take the rooms without waiting for them to run out."""
        query = leases.update().where(leases.c.owner == owner)
        if codes is not None:
            query = query.where(leases.c.room.in_(codes))
        with self.engine.begin() as connection:
            connection.execute(query.values(expires=0.0))

    def holders(self, codes: list[str]) -> dict[str, tuple[str, float]]:
        """Who holds each of these rooms' leases, and for how many seconds more
        (negative: it ran out). Rooms without a lease are left out."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(leases.c.room, leases.c.owner, leases.c.expires - self._clock).where(
                    leases.c.room.in_(codes)
                )
            ).all()
            return {room: (owner, float(left)) for room, owner, left in rows}

    def orphans(self, since: float = 0.0, limit: int = 100) -> list[str]:
        """Rooms a restarted server would resume (as :meth:`load_active`) whose
        lease nobody holds: their process died or let them go."""
        with self.engine.connect() as connection:
            return list(
                connection.execute(
                    sa.select(rooms.c.code)
                    .select_from(rooms.outerjoin(leases, leases.c.room == rooms.c.code))
                    .where(
                        sa.or_(
                            rooms.c.status.in_(("lobby", "playing")),
                            sa.and_(rooms.c.status == "over", rooms.c.updated >= since),
                        ),
                        sa.or_(leases.c.room.is_(None), leases.c.expires < self._clock),
                    )
                    .order_by(rooms.c.created)
                    .limit(limit)
                ).scalars()
            )

    # -- finished analyses --------------------------------------------------------------

    def kept_analysis(self, code: str, game_no: int, plan: str, version: int) -> object:
        """The decisions of the analysis kept for this game, plan and format
        version, as stored (the caller checks their shape); None if there is none,
        :data:`UNREADABLE` if there is one but its JSON does not parse."""
        key = _analysis_key(code, game_no, plan, version)
        with self.engine.connect() as connection:
            try:
                return connection.execute(sa.select(analyses.c.decisions).where(*key)).scalar()
            except ValueError:  # JSON text that does not parse (SQLite holds any text)
                return UNREADABLE

    def keep_analysis(
        self, code: str, game_no: int, plan: str, version: int, decisions: JSON, now: float
    ) -> bool:
        """Write a finished analysis once; False if one was kept already.

        Server processes finishing the same analysis race here: the first
        insert wins and the others are ignored (each computed the same seeded
        decisions), whatever the database.
        """
        row = {"room": code, "game_no": game_no, "plan": plan, "version": version}
        try:
            with self.engine.begin() as connection:
                connection.execute(
                    analyses.insert().values(**row, decisions=decisions, created=now)
                )
        except sa.exc.IntegrityError:
            # Only a row already kept under this key is the race; anything else
            # (a game that is not stored) is a real error.
            with self.engine.connect() as connection:
                key = _analysis_key(code, game_no, plan, version)
                if connection.execute(sa.select(analyses.c.room).where(*key)).first() is None:
                    raise
            return False
        return True

    def forget_analysis(self, code: str, game_no: int, plan: str, version: int) -> None:
        """Delete a kept analysis (one found unreadable, so a new one can be kept)."""
        with self.engine.begin() as connection:
            connection.execute(
                analyses.delete().where(*_analysis_key(code, game_no, plan, version))
            )

    # -- reading ------------------------------------------------------------------------

    def load(self, code: str) -> Room | None:
        """The room with this code, rebuilt, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(rooms.select().where(rooms.c.code == code)).mappings().first()
            # Read to be held again: whoever wrote it meanwhile, the next commit writes it whole.
            self._written.pop(code, None)
            return None if row is None else _rebuild(connection, dict(row))

    def load_active(
        self,
        since: float = 0.0,
        lobbies_since: float | None = None,
        playing_since: float | None = None,
    ) -> list[Room]:
        """The rooms a restarted server resumes, rebuilt: every room in its
        lobby that changed after ``lobbies_since`` and playing that changed
        after ``playing_since`` (None: any; older ones expired), and those
        whose last game ended after ``since`` (a series may go on, a rematch
        may follow). Older rooms load on demand."""
        lobby = rooms.c.status == "lobby"
        if lobbies_since is not None:
            lobby = sa.and_(lobby, rooms.c.updated >= lobbies_since)
        playing = rooms.c.status == "playing"
        if playing_since is not None:
            # A turn-based room waits for days with nobody there: it never expires
            # while a turn timer runs (those rows are sorted out below by setting).
            fresh = rooms.c.updated >= playing_since
            playing = sa.and_(playing, sa.or_(fresh, rooms.c.deadline.is_not(None)))
        over = sa.and_(rooms.c.status == "over", rooms.c.updated >= since)
        with self.engine.connect() as connection:
            rows = (
                connection.execute(
                    rooms.select().where(sa.or_(lobby, playing, over)).order_by(rooms.c.created)
                )
                .mappings()
                .all()
            )
            kept = [
                row
                for row in rows
                if row["status"] != "playing"
                or playing_since is None
                or row["updated"] >= playing_since
                or (row["settings"] or {}).get("turn_hours") is not None
            ]
            for row in kept:
                self._written.pop(row["code"], None)
            return [_rebuild(connection, dict(row)) for row in kept]

    def game_actions(self, code: str, game_no: int) -> tuple[list[str], list[str]]:
        """A game's actions in notation and its seating (names), for its record."""
        with self.engine.connect() as connection:
            seating = connection.execute(
                sa.select(games.c.seating).where(games.c.room == code, games.c.game_no == game_no)
            ).scalar()
            notation = connection.execute(
                sa.select(actions.c.notation)
                .where(actions.c.room == code, actions.c.game_no == game_no)
                .order_by(actions.c.step)
            ).scalars()
            return list(notation), list(seating or [])

    def load_game(
        self, code: str, game_no: int
    ) -> tuple[dict[str, Any], dict[str, Any] | None, list[int]] | None:
        """Room ``code``'s row, its game ``game_no``'s row (None: no such game)
        and that game's actions; None for no such room."""
        with self.engine.connect() as connection:
            row = connection.execute(rooms.select().where(rooms.c.code == code)).mappings().first()
            if row is None:
                return None
            game = (
                connection.execute(
                    games.select().where(games.c.room == code, games.c.game_no == game_no)
                )
                .mappings()
                .first()
            )
            played = connection.execute(
                sa.select(actions.c.action)
                .where(actions.c.room == code, actions.c.game_no == game_no)
                .order_by(actions.c.step)
            ).scalars()
            return dict(row), None if game is None else dict(game), list(played)

    def insert_finished(
        self, row: dict[str, Any], seating: list[str], outcome: JSON, steps: list[dict[str, Any]]
    ) -> None:
        """Keep a finished game as a new room of one game (an uploaded record),
        in one transaction. Call it on the writer (:meth:`run`)."""
        self.begin_import(row, seating, outcome)
        self.import_steps(steps)
        self.end_import(row["code"], row["status"], row["updated"])

    def begin_import(self, row: dict[str, Any], seating: list[str], outcome: JSON) -> None:
        """The first part of keeping an uploaded record: its room, with the
        status :data:`IMPORTING` (never resumed, listed or loaded as a game),
        and its one game. Its actions follow in parts (:meth:`import_steps`),
        so the one writer serves other rooms' commits between them; then
        :meth:`end_import`. Call each on the writer."""
        with self.engine.begin() as connection:
            connection.execute(rooms.insert().values(**{**row, "status": IMPORTING}))
            connection.execute(
                games.insert().values(room=row["code"], game_no=1, seating=seating, outcome=outcome)
            )

    def import_steps(self, steps: list[dict[str, Any]]) -> None:
        """One part of an uploaded record's actions, in one transaction."""
        if steps:
            with self.engine.begin() as connection:
                connection.execute(actions.insert(), steps)

    def end_import(self, code: str, status: str, updated: float) -> None:
        """An uploaded record's room made what it is (``status``), now all its actions are kept."""
        with self.engine.begin() as connection:
            connection.execute(
                rooms.update()
                .where(rooms.c.code == code, rooms.c.status == IMPORTING)
                .values(status=status, updated=updated)
            )

    def drop_imports(self, before: float) -> int:
        """Delete the uploads left half-kept (a server stopped while keeping
        them) whose import began before ``before``; how many."""
        with self.engine.begin() as connection:
            codes = list(
                connection.execute(
                    sa.select(rooms.c.code).where(
                        rooms.c.status == IMPORTING, rooms.c.updated < before
                    )
                ).scalars()
            )
            for table in (actions, games, rooms):
                key = table.c.code if table is rooms else table.c.room
                if codes:
                    connection.execute(table.delete().where(key.in_(codes)))
            return len(codes)

    # -- the one writer ---------------------------------------------------------------

    def _writer(self) -> concurrent.futures.ThreadPoolExecutor:
        # One writer thread: SQLite takes one writer at a time anyway, and
        # commits stay in the order the rooms made them.
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        return self._executor

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the store's one writer thread, awaited: every write
        of a server process goes through here, in order."""
        return await asyncio.get_running_loop().run_in_executor(self._writer(), fn, *args)

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` queued on the writer, not awaited."""
        self._writer().submit(fn, *args)

    def close(self) -> None:
        """Let the queued writes finish, then release the database's connections."""
        if self._queue:
            self._writer().submit(self._flush)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self.engine.dispose()


def _write_changes(connection: Connection, group: list[tuple[str, Changes]]) -> None:
    """What each room's ``changes`` added, in the commit's transaction: one
    executemany a table for the whole group (games before the actions that
    refer to them)."""
    new_games = [
        {"room": code, "game_no": c.new_game[0], "seating": c.new_game[1]}
        for code, c in group
        if c.new_game is not None
    ]
    if new_games:
        connection.execute(_INSERT_GAME, new_games)
    steps = [
        {
            "room": code,
            "game_no": a.game_no,
            "step": a.step,
            "action": a.action,
            "notation": a.notation,
            "actor": a.actor,
            "at": a.at,
        }
        for code, c in group
        for a in c.actions
    ]
    if steps:
        connection.execute(_INSERT_ACTIONS, steps)
    finished = [
        {"g_room": code, "g_no": c.finished[0], "outcome": c.finished[1]}
        for code, c in group
        if c.finished is not None
    ]
    if finished:
        connection.execute(_FINISH_GAME, finished)
    said = [
        {k: entry[k] for k in ("id", "seat", "name", "text", "at")} | {"room": code}
        for code, c in group
        for entry in c.chat
    ]
    if said:
        connection.execute(_INSERT_CHAT, said)
        # A room keeps its last CHAT_KEPT messages, in the store as in memory:
        # chat from a long-lived room cannot fill the database.
        connection.execute(
            _TRIM_CHAT,
            [
                {"c_room": code, "c_upto": max(int(str(e["id"])) for e in c.chat) - CHAT_KEPT}
                for code, c in group
                if c.chat
            ],
        )
    told = [
        {"room": code, "game_no": game_no, **entry}
        for code, c in group
        for game_no, entry in c.notices
    ]
    if told:
        connection.execute(_INSERT_NOTICES, told)


class _Queued:
    """One room's commit waiting for the writer, and the future its waiter awaits."""

    __slots__ = ("changes", "done", "lease", "now", "room")

    def __init__(self, room: Room, changes: Changes, now: float, lease: Lease | None) -> None:
        self.room = room
        self.changes = changes
        self.now = now
        self.lease = lease
        self.done: concurrent.futures.Future[None] = concurrent.futures.Future()


def _settle(queued: _Queued, error: Exception | None) -> None:
    # A waiter cancelled meanwhile is not told (its commit was still written:
    # the room in memory has the change, so the store must too).
    if not queued.done.set_running_or_notify_cancel():
        return
    if error is None:
        queued.done.set_result(None)
    else:
        queued.done.set_exception(error)


def _rebuild(connection: Connection, row: dict[str, Any]) -> Room:
    code, game_no = row["code"], row["game_no"]
    played = connection.execute(
        sa.select(actions.c.action)
        .where(actions.c.room == code, actions.c.game_no == game_no)
        .order_by(actions.c.step)
    ).scalars()
    seating = connection.execute(
        sa.select(games.c.seating).where(games.c.room == code, games.c.game_no == game_no)
    ).scalar()
    said = (
        connection.execute(
            chat.select().where(chat.c.room == code).order_by(chat.c.id.desc()).limit(CHAT_KEPT)
        )
        .mappings()
        .all()
    )
    messages = [
        {k: entry[k] for k in ("id", "seat", "name", "text", "at")} for entry in reversed(said)
    ]
    count = max((int(m["id"]) for m in messages), default=0)
    noticed = (
        connection.execute(
            notices.select()
            .where(notices.c.room == code, notices.c.game_no == game_no)
            .order_by(notices.c.id)
        )
        .mappings()
        .all()
    )
    told = [{k: entry[k] for k in NOTICE_KEYS} for entry in noticed]
    return Room.restore(row, list(played), list(seating or []), messages, count, told)


def _analysis_key(
    code: str, game_no: int, plan: str, version: int
) -> tuple[sa.ColumnElement[bool], ...]:
    return (
        analyses.c.room == code,
        analyses.c.game_no == game_no,
        analyses.c.plan == plan,
        analyses.c.version == version,
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers and the one writer work at once; NORMAL syncs at each
    # checkpoint, which in WAL mode still never corrupts, and a commit that
    # returned survives a process crash (kill -9); only a power cut may lose
    # the last commits.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def alembic_config(connection: Connection) -> Any:
    """An Alembic configuration for this package's migrations, on ``connection``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    return config
