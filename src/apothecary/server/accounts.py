"""Optional accounts: a user name and a password, and the sessions signed in with them.

Playing needs no account (a guest types a name into a room); an account is what
later parts of the server hang a person's seats, games and rating on. This
module is the rules and the database, with no HTTP in it:
:mod:`apothecary.server.routes.account` puts it behind ``/api/account`` and a
cookie. docs/accounts.md says what was chosen and why (OWASP's authentication,
password storage and session management cheat sheets are the checklist).

* A password is hashed with argon2id (argon2-cffi) at OWASP's parameters and is
  never kept, logged or answered with. It must be :attr:`AccountConfig.min_password_length`
  characters or more (after Unicode NFKC normalisation), not one of the most
  common passwords (:func:`common_passwords`), and not the user name.
* A session is a random token (256 bits) the client holds; the database keeps
  only its SHA-256, so a copy of the table signs nobody in. Every server process
  reads the same table, so a session made on one is good on all of them.
* Sign-in attempts (and sign-ups, and the password checks of a password change
  or an account deletion) are limited per account name and per client address,
  counted in the database, so the limits hold across every server process.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import re
import secrets
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

import sqlalchemy as sa

from apothecary.core.errors import ApothecaryError, BadOptionError
from apothecary.server.store import (
    Store,
    account_sessions,
    passkey_challenges,
    passkeys,
    seat_links,
    sign_in_attempts,
    turn_mails,
    users,
)

NAME_MIN, NAME_MAX = 3, 24
"""How long a user name may be, in characters."""

USER_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.-]{{{NAME_MIN - 1},{NAME_MAX - 1}}}")
"""What a user name is: ASCII letters, digits, ``_``, ``.`` and ``-``, starting with a
letter or digit. ASCII only, so no two names look alike in another script
(``pаul`` with a Cyrillic ``а``) and folding case is plain lower-casing."""

PASSWORD_MAX = 256
"""The longest password, in characters: far beyond any passphrase, and a bound on
the work one request can ask of the hash."""

MIN_PASSWORD_FLOOR = 8
"""The least :attr:`AccountConfig.min_password_length` may be (OWASP's and NIST's floor;
the common-passwords list holds the ones of this length and more)."""

TOKEN_MAX = 128
"""The longest text looked up as a session token (a real one is 43 characters)."""

COMMON_PASSWORDS = "common-passwords.txt"
"""The list of the most common passwords, a file of this package's ``data`` folder."""


@dataclass(frozen=True)
class AccountConfig:
    """The accounts' rules (a :class:`~apothecary.server.app.WebConfig` field)."""

    min_password_length: int = 12
    """The shortest password, in characters (``apothecary serve --min-password-length``)."""
    session_seconds: float = 30 * 86400.0
    """How long a session lasts from sign-in, however much it is used (absolute timeout)."""
    idle_seconds: float = 7 * 86400.0
    """How long a session lasts unused (idle timeout)."""
    touch_seconds: float = 60.0
    """How stale a session's last use may be before it is written again (a write a
    minute at most per session, not one per request)."""
    purge_seconds: float = 3600.0
    """How often, at most, a sign-in or sign-up also sweeps every account's ended
    sessions (:meth:`Accounts.purge`), so the table does not keep the sessions of
    accounts that never sign in again."""
    attempts_per_account: int = 5
    """Sign-in attempts a minute for one user name, from anywhere."""
    attempts_per_address: int = 20
    """Sign-in and sign-up attempts a minute from one client address."""
    hash_time_cost: int = 2
    """argon2id passes (OWASP's minimum, with the memory below)."""
    hash_memory_kib: int = 19_456
    """argon2id memory, in KiB (19 MiB: OWASP's minimum)."""
    hash_parallelism: int = 1
    """argon2id lanes."""

    def __post_init__(self) -> None:
        if self.min_password_length < MIN_PASSWORD_FLOOR:
            raise BadOptionError(
                f"the shortest password allowed is {MIN_PASSWORD_FLOOR} characters or more"
            )


class AccountError(ApothecaryError):
    """A refused account request; ``code`` and ``status`` are its JSON refusal."""

    code = "bad_request"
    status = 400


class BadUserName(AccountError):
    """A user name that breaks the rules (:data:`USER_NAME`)."""

    code = "bad_user_name"


class WeakPassword(AccountError):
    """A password too short, too long, too common or the same as the user name."""

    code = "weak_password"


class NameTaken(AccountError):
    """A user name some account has already, in any case."""

    code = "name_taken"
    status = 409


class BadCredentials(AccountError):
    """A user name and password that do not sign in (which of the two is wrong is not said)."""

    code = "bad_credentials"
    status = 401


class NotSignedIn(AccountError):
    """A request that needs a session came without a valid one."""

    code = "not_signed_in"
    status = 401


class CrossSite(AccountError):
    """A state-changing request that may come from another site's page."""

    code = "cross_site"
    status = 403


class TooManyAttempts(AccountError):
    """Too many sign-in attempts for this account or from this address."""

    code = "too_many_attempts"
    status = 429
    # The counts are per minute: by then a new one began.
    headers: ClassVar[dict[str, str]] = {"Retry-After": "60"}


@dataclass(frozen=True)
class User:
    """An account as the rest of the server sees it (never its password hash)."""

    id: int
    name: str
    created: float

    def public(self) -> dict[str, Any]:
        """What the account's owner is told of it."""
        return {"name": self.name, "created": self.created}


@dataclass(frozen=True)
class Session:
    """A signed-in session: whose it is, and the hash of its token."""

    user: User
    token_hash: str


def name_key(name: str) -> str:
    """The key two names share when they differ only in case."""
    return name.lower()


def check_user_name(name: str) -> str:
    """``name`` if it is a user name, else :class:`BadUserName`."""
    if not USER_NAME.fullmatch(name):
        raise BadUserName(
            f"a user name is {NAME_MIN} to {NAME_MAX} characters: ASCII letters, digits, "
            "'_', '.' and '-', starting with a letter or a digit"
        )
    return name


@functools.cache
def common_passwords() -> frozenset[str]:
    """The most common passwords, lower case (see data/README.md for their source)."""
    text = resources.files("apothecary.server").joinpath("data", COMMON_PASSWORDS).read_text()
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip())


def normalise_password(password: str) -> str:
    """The password as it is checked and hashed: Unicode NFKC, so the same characters
    typed on two keyboards (fullwidth letters, a composed or decomposed accent) match."""
    return unicodedata.normalize("NFKC", password)


def check_password(password: str, name: str, minimum: int) -> str:
    """The password as it is hashed (:func:`normalise_password`), or
    :class:`WeakPassword` saying why not. The message never repeats the password."""
    normal = normalise_password(password)
    if len(normal) < minimum:
        raise WeakPassword(f"a password is at least {minimum} characters")
    if len(normal) > PASSWORD_MAX:
        raise WeakPassword(f"a password is at most {PASSWORD_MAX} characters")
    if normal.lower() in common_passwords():
        raise WeakPassword("that password is one of the most common ones; choose another")
    if normal.lower() == name_key(name):
        raise WeakPassword("a password must not be the user name")
    return normal


def token_hash(token: str) -> str:
    """What the database keeps of a session token. SHA-256 and no salt is enough
    for 256 random bits (nothing to guess); a slow hash is for passwords."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Accounts:
    """The accounts in ``store``'s database, under ``config``'s rules. Its
    methods are awaited: hashing runs in a thread, writes on the store's writer."""

    def __init__(self, store: Store, config: AccountConfig | None = None) -> None:
        from argon2 import PasswordHasher

        config = config or AccountConfig()
        self.store, self.config = store, config
        self.hasher = PasswordHasher(
            time_cost=config.hash_time_cost,
            memory_cost=config.hash_memory_kib,
            parallelism=config.hash_parallelism,
        )
        self._dummy: str | None = None
        self._purged = -math.inf  # when this process last swept every ended session

    # -- the steps every request shares ---------------------------------------------------

    async def throttle(self, name: str | None, address: str, now: float) -> None:
        """Count one attempt against the address and the account name (any name, an
        account or not, so a refusal says nothing of who exists); :class:`TooManyAttempts`
        once either has used its share of the minute. The counts are in the database,
        so every server process on it shares them."""
        if not await self.store.run(self._attempt, f"address:{address}", now):
            raise TooManyAttempts("too many attempts from your address; wait a minute")
        if name is not None:
            await self.throttle_account(name, now)

    async def throttle_account(self, name: str, now: float) -> None:
        """Count one attempt against the account name alone (a passkey's sign-in, whose
        address was counted when it asked for its challenge); :class:`TooManyAttempts`
        once the name has used its share of the minute."""
        if not await self.store.run(self._attempt, f"account:{name_key(name)}", now):
            raise TooManyAttempts("too many sign-in attempts for this account; wait a minute")

    def _attempt(self, key: str, now: float) -> bool:
        """Count an attempt against ``key`` in this minute (one upsert, so processes
        racing never lose a count); whether it is within the key's share."""
        limit = (
            self.config.attempts_per_account
            if key.startswith("account:")
            else self.config.attempts_per_address
        )
        minute = int(now // 60)
        table = sign_in_attempts
        from sqlalchemy.dialects import postgresql, sqlite

        # Both dialects' INSERT ... ON CONFLICT DO UPDATE, spelled the same way.
        postgres = self.store.engine.dialect.name == "postgresql"
        insert: Any = postgresql.insert if postgres else sqlite.insert
        counted = (
            insert(table)
            .values(key=key, minute=minute, tries=1)
            .on_conflict_do_update(
                index_elements=[table.c.key],
                set_={
                    "minute": minute,
                    "tries": sa.case((table.c.minute == minute, table.c.tries + 1), else_=1),
                },
            )
            .returning(table.c.tries)
        )
        with self.store.engine.begin() as connection:
            tries = int(connection.execute(counted).scalar_one())
            # Counts of minutes before the last are over: the table stays small.
            connection.execute(table.delete().where(table.c.minute < minute - 1))
        return tries <= limit

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the stored hash. With no account (None)
        a dummy hash is checked all the same, so a missing name takes as long."""
        from argon2.exceptions import InvalidHashError, VerificationError

        if stored is None:
            if self._dummy is None:
                self._dummy = await asyncio.to_thread(self.hasher.hash, secrets.token_hex(16))
            stored = self._dummy
        normal = normalise_password(password)
        try:
            return await asyncio.to_thread(self.hasher.verify, stored, normal)
        except (VerificationError, InvalidHashError):
            return False

    def _new_session(self, user_id: int, now: float) -> tuple[str, dict[str, Any]]:
        token = secrets.token_urlsafe(32)
        row = {
            "token_hash": token_hash(token),
            "user_id": user_id,
            "created": now,
            "last_seen": now,
            "expires": now + self.config.session_seconds,
        }
        return token, row

    async def _read(self, query: sa.Select[Any]) -> dict[str, Any] | None:
        def read() -> dict[str, Any] | None:
            with self.store.engine.connect() as connection:
                row = connection.execute(query).mappings().first()
                return None if row is None else dict(row)

        return await asyncio.to_thread(read)

    async def _user_row(self, name: str) -> dict[str, Any] | None:
        return await self._read(users.select().where(users.c.name_key == name_key(name)))

    # -- signing up, in and out ---------------------------------------------------------

    async def sign_up(self, name: str, password: str, address: str, now: float) -> tuple[User, str]:
        """A new account, signed in: the user and the new session's token."""
        await self.throttle(None, address, now)
        check_user_name(name)
        normal = check_password(password, name, self.config.min_password_length)
        hashed = await asyncio.to_thread(self.hasher.hash, normal)

        def write() -> tuple[User, str]:
            try:
                with self.store.engine.begin() as connection:
                    made = connection.execute(
                        users.insert().values(
                            name=name,
                            name_key=name_key(name),
                            password_hash=hashed,
                            created=now,
                            password_changed=now,
                        )
                    )
                    user_id = int(made.inserted_primary_key[0])  # type: ignore[index]
                    token, row = self._new_session(user_id, now)
                    connection.execute(account_sessions.insert().values(**row))
            except sa.exc.IntegrityError:
                raise NameTaken(f"the user name {name!r} is taken") from None
            return User(user_id, name, now), token

        made = await self.store.run(write)
        self._purge_if_due(now)
        return made

    async def sign_in(
        self, name: str, password: str, address: str, now: float, old: str | None = None
    ) -> tuple[User, str]:
        """A new session for the account: the user and its token. The session
        the client came with (``old``), if any, ends: a sign-in always starts a
        new token (no session fixation)."""
        await self.throttle(name, address, now)
        row = await self._user_row(name) if USER_NAME.fullmatch(name) else None
        verified = await self._verify(None if row is None else row["password_hash"], password)
        if row is None or not verified:
            raise BadCredentials("that user name and password do not sign in")
        user = User(row["id"], row["name"], row["created"])
        rehash = None
        if self.hasher.check_needs_rehash(row["password_hash"]):  # the parameters were raised
            rehash = await asyncio.to_thread(self.hasher.hash, normalise_password(password))

        def write() -> str:
            with self.store.engine.begin() as connection:
                if rehash is not None:
                    connection.execute(
                        users.update().where(users.c.id == user.id).values(password_hash=rehash)
                    )
                return self.start_session(connection, user.id, now, old)

        token = await self.store.run(write)
        self._purge_if_due(now)
        return user, token

    def start_session(
        self, connection: sa.Connection, user_id: int, now: float, old: str | None
    ) -> str:
        """In ``connection``'s transaction (on the store's writer): a new session for
        the account, its token. The session the client came with (``old``), if any,
        ends, and the account's sessions that ran out are swept. Every way of
        signing in (a password, a passkey) starts its session here."""
        if old is not None:
            connection.execute(_session_where(account_sessions.delete(), old))
        connection.execute(self._expired(user_id, now))
        token, fresh = self._new_session(user_id, now)
        connection.execute(account_sessions.insert().values(**fresh))
        return token

    # -- sweeping ended sessions -------------------------------------------------------

    def _ended(self, now: float) -> sa.ColumnElement[bool]:
        """Sessions past their absolute or idle timeout by ``now``."""
        return sa.or_(
            account_sessions.c.expires <= now,
            account_sessions.c.last_seen <= now - self.config.idle_seconds,
        )

    def _purge_if_due(self, now: float) -> None:
        """Queue :meth:`purge` if this process has not swept for ``purge_seconds``
        (a sign-in pays for one indexed delete an hour, not one a request)."""
        if now - self._purged >= self.config.purge_seconds:
            self._purged = now
            self.store.submit(self._purge, now)

    def _purge(self, now: float) -> int:
        with self.store.engine.begin() as connection:
            ended = connection.execute(account_sessions.delete().where(self._ended(now)))
            return int(ended.rowcount)

    async def purge(self, now: float) -> int:
        """Delete every account's sessions that ended by ``now`` (however many
        processes do it, each delete takes only ended rows); how many went."""
        self._purged = now
        return await self.store.run(self._purge, now)

    def _expired(self, user_id: int, now: float) -> sa.Delete:
        """The user's sessions that ran out (swept at each sign-in)."""
        return account_sessions.delete().where(
            account_sessions.c.user_id == user_id, self._ended(now)
        )

    async def session(self, token: str | None, now: float) -> Session | None:
        """The live session of this token, or None (no token, an unknown one, or
        one past its absolute or idle timeout). Its last use is noted."""
        if not token or len(token) > TOKEN_MAX:
            return None
        hashed = token_hash(token)
        query = (
            sa.select(account_sessions, users.c.name, users.c.created.label("user_created"))
            .join(users, users.c.id == account_sessions.c.user_id)
            .where(account_sessions.c.token_hash == hashed)
        )
        row = await self._read(query)
        if row is None:
            return None
        if row["expires"] <= now or row["last_seen"] <= now - self.config.idle_seconds:
            return None
        if now - row["last_seen"] >= self.config.touch_seconds:
            self.store.submit(self._touch, hashed, now)
        return Session(User(row["user_id"], row["name"], row["user_created"]), hashed)

    def _touch(self, hashed: str, now: float) -> None:
        with self.store.engine.begin() as connection:
            connection.execute(
                account_sessions.update()
                .where(account_sessions.c.token_hash == hashed)
                .values(last_seen=now)
            )

    async def sign_out(self, token: str) -> None:
        """End the session of this token (nothing if there is none)."""

        def write() -> None:
            with self.store.engine.begin() as connection:
                connection.execute(_session_where(account_sessions.delete(), token))

        await self.store.run(write)

    async def sign_out_everywhere(self, session: Session) -> int:
        """End every session of the user, this one included; how many there were."""

        def write() -> int:
            with self.store.engine.begin() as connection:
                gone = connection.execute(
                    account_sessions.delete().where(account_sessions.c.user_id == session.user.id)
                )
                return int(gone.rowcount)

        return await self.store.run(write)

    # -- the account itself -------------------------------------------------------------

    async def reauthenticate(
        self, session: Session, password: str, address: str, now: float
    ) -> None:
        """The current password again, for a change that needs more than a session
        (someone at an unlocked screen must not lock the owner out, nor add a way in
        of their own: a passkey); :class:`BadCredentials` if it is not the password."""
        await self.throttle(session.user.name, address, now)
        row = await self._read(users.select().where(users.c.id == session.user.id))
        if row is None or not await self._verify(row["password_hash"], password):
            raise BadCredentials("that is not the account's password")

    async def change_password(
        self, session: Session, current: str, new: str, address: str, now: float
    ) -> str:
        """Set a new password. Every session of the account ends, this one too,
        and a new one starts here: its token."""
        await self.reauthenticate(session, current, address, now)
        normal = check_password(new, session.user.name, self.config.min_password_length)
        hashed = await asyncio.to_thread(self.hasher.hash, normal)
        user_id = session.user.id

        def write() -> str:
            with self.store.engine.begin() as connection:
                connection.execute(
                    users.update()
                    .where(users.c.id == user_id)
                    .values(password_hash=hashed, password_changed=now)
                )
                connection.execute(
                    account_sessions.delete().where(account_sessions.c.user_id == user_id)
                )
                token, fresh = self._new_session(user_id, now)
                connection.execute(account_sessions.insert().values(**fresh))
            return token

        return await self.store.run(write)

    async def delete(
        self,
        session: Session,
        password: str,
        address: str,
        now: float,
        first: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        """Delete the account: its row, every session, its seats' links, its
        passkeys and its count of sign-in attempts. ``first`` runs once the password is proved and
        before anything is deleted: the seats' own rename of the account's seats
        to "deleted player" (:meth:`apothecary.server.seats.Seats.forget`)."""
        await self.reauthenticate(session, password, address, now)
        if first is not None:
            await first()
        user_id, key = session.user.id, f"account:{name_key(session.user.name)}"

        def write() -> None:
            with self.store.engine.begin() as connection:
                connection.execute(
                    account_sessions.delete().where(account_sessions.c.user_id == user_id)
                )
                connection.execute(seat_links.delete().where(seat_links.c.user_id == user_id))
                # The record of the turns mailed to it (its address goes with its row).
                connection.execute(turn_mails.delete().where(turn_mails.c.user_id == user_id))
                for table in (passkeys, passkey_challenges):  # its passkeys name it too
                    connection.execute(table.delete().where(table.c.user_id == user_id))
                connection.execute(users.delete().where(users.c.id == user_id))
                # The count of its sign-in attempts names it too (for a minute or two).
                connection.execute(sign_in_attempts.delete().where(sign_in_attempts.c.key == key))

        await self.store.run(write)


def _session_where(statement: Any, token: str) -> Any:
    """``statement`` narrowed to the session of ``token``."""
    return statement.where(account_sessions.c.token_hash == token_hash(token))
