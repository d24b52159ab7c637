"""Your-turn e-mails of turn-based rooms (docs/turn-based.md).

When a turn-based room's turn passes to a seat that belongs to an account with an
e-mail address (and that has not unsubscribed), the account is sent one e-mail for
that turn: a link that gives the seat to whichever device opens it, and a one-click
unsubscribe link. The row of ``turn_mails`` (the room and the turn's state id) is
written before the mail goes, in one transaction with the check, so that a turn is
mailed at most once whatever restarts or processes fall between; a mail the SMTP
server refused is logged, not retried.

Mail is sent with the standard library's :mod:`smtplib` in a thread, never on the
event loop. ``apothecary serve --smtp URL`` configures it (:meth:`SmtpConfig.parse`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import smtplib
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

import sqlalchemy as sa

from apothecary.core.errors import BadOptionError
from apothecary.server.accounts import AccountError, token_hash
from apothecary.server.store import Store, seat_links, turn_mails, users

log = logging.getLogger("apothecary.server")

LINK_DAYS = 30
"""Days a your-turn mail's link gives its seat to a device."""

EMAIL_MAX = 254
"""The longest e-mail address (RFC 5321's path limit)."""


class SmtpUrlError(BadOptionError):
    """An ``--smtp`` URL that is not ``smtp://`` or ``smtps://`` with a host."""

    code = "bad_smtp_url"


class BadEmail(AccountError):
    """An e-mail address that is not one."""

    code = "bad_email"
    status = 400


class BadLink(AccountError):
    """A your-turn link or unsubscribe token that opens nothing (unknown, too old,
    or its seat is no longer the account's)."""

    code = "bad_link"
    status = 404


def check_email(address: str) -> str:
    """``address`` stripped, if it looks like an e-mail address (one ``@`` with
    something on each side, a dot in the domain, no spaces or control
    characters), else :class:`BadEmail`. Whether it receives mail only a mail can tell."""
    address = address.strip()
    local, at, domain = address.rpartition("@")
    if (
        not at
        or not local
        or "." not in domain.strip(".")
        or len(address) > EMAIL_MAX
        or any(c.isspace() or ord(c) < 32 or c in "<>,;\"'" for c in address)
    ):
        raise BadEmail("an e-mail address is name@domain.example, with no spaces")
    return address


@dataclass(frozen=True)
class SmtpConfig:
    """Where mail goes: ``smtp://[user[:password]@]host[:port][?starttls=1]``
    (port 25, or 587 with STARTTLS) or ``smtps://...`` (TLS from the start,
    port 465); ``from=`` in the query sets the sender."""

    host: str
    port: int
    user: str | None = None
    password: str | None = None
    security: str = "plain"
    """``plain``, ``starttls`` or ``tls``."""
    sender: str = "apothecary@localhost"

    @classmethod
    def parse(cls, url: str) -> SmtpConfig:
        """The configuration a URL names, or :class:`SmtpUrlError`."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise SmtpUrlError(f"--smtp takes smtp://host:port or smtps://host:port, not {url!r}")
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        starttls = query.get("starttls", "").lower() in ("1", "true", "yes")
        security = "tls" if parts.scheme == "smtps" else "starttls" if starttls else "plain"
        try:
            port = parts.port or {"tls": 465, "starttls": 587}.get(security, 25)
        except ValueError:
            raise SmtpUrlError(f"the port of --smtp {parts.netloc!r} is not a number") from None
        return cls(
            parts.hostname,
            port,
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
            security,
            query.get("from", cls.sender),
        )

    def send(self, message: EmailMessage) -> None:
        """Send one message (blocking: call it in a thread)."""
        context = ssl.create_default_context()
        client: smtplib.SMTP
        if self.security == "tls":
            client = smtplib.SMTP_SSL(self.host, self.port, timeout=30, context=context)
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=30)
        with client:
            if self.security == "starttls":
                client.starttls(context=context)
            if self.user is not None:
                client.login(self.user, self.password or "")
            client.send_message(message)


class Sender(Protocol):
    """What sends a message (a :class:`SmtpConfig`, or a test's stand-in)."""

    def send(self, message: EmailMessage) -> None:
        """Send it, blocking."""


@dataclass(frozen=True)
class Turn:
    """A turn that may be mailed: the room, the turn (:attr:`Room.turn_key`), the seat's token
    hash and chair, and what the mail says of the room."""

    room: str
    turn: str
    token_hash: str
    seat: int
    title: str


class TurnMail:
    """Mails each turn of a turn-based room to the account whose seat is to move."""

    def __init__(self, store: Store, sender: Sender, site: str, clock: Callable[[], float]) -> None:
        self.store, self.sender, self.clock = store, sender, clock
        self.site = site.rstrip("/")
        self._sending: set[asyncio.Task[None]] = set()

    def tell(self, turn: Turn) -> None:
        """Mail ``turn`` in the background (the caller holds a room's lock)."""
        task = asyncio.create_task(self._tell(turn))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def settled(self) -> None:
        """Wait for the mails under way (tests, and a closing server)."""
        while self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)

    async def _tell(self, turn: Turn) -> None:
        try:
            claimed = await self.store.run(self._claim, turn, self.clock())
            if claimed is None:
                return
            message = self._message(turn, *claimed)
            await asyncio.to_thread(self.sender.send, message)
            log.info("mailed the turn %s of room %s", turn.turn, turn.room)
        except Exception:  # a mail server away: the game goes on, the log says why
            log.exception("could not mail the turn %s of room %s", turn.turn, turn.room)

    def _claim(self, turn: Turn, now: float) -> tuple[str, str, str, str] | None:
        """The turn's row written, and (address, user name, link token, unsubscribe
        token); None when the seat is no account's with mail, or it was mailed."""
        with self.store.engine.begin() as connection:
            row = (
                connection.execute(
                    sa.select(users.c.id, users.c.name, users.c.email, users.c.mail_token)
                    .select_from(seat_links.join(users, users.c.id == seat_links.c.user_id))
                    .where(
                        seat_links.c.room == turn.room,
                        seat_links.c.token_hash == turn.token_hash,
                        users.c.email.is_not(None),
                        users.c.turn_mail.is_(True),
                    )
                )
                .mappings()
                .first()
            )
            if row is None:
                return None
            already = connection.execute(
                sa.select(turn_mails.c.room).where(
                    turn_mails.c.room == turn.room, turn_mails.c.turn == turn.turn
                )
            ).first()
            if already is not None:
                return None
            link = secrets.token_urlsafe(32)
            unsubscribe = row["mail_token"]
            if unsubscribe is None:
                unsubscribe = secrets.token_urlsafe(32)
                connection.execute(
                    users.update().where(users.c.id == row["id"]).values(mail_token=unsubscribe)
                )
            try:
                # A savepoint: PostgreSQL aborts a transaction whose insert failed.
                with connection.begin_nested():
                    connection.execute(
                        turn_mails.insert().values(
                            room=turn.room,
                            turn=turn.turn,
                            user_id=row["id"],
                            token_hash=turn.token_hash,
                            link_hash=token_hash(link),
                            sent=now,
                        )
                    )
            except sa.exc.IntegrityError:  # another process mailed it meanwhile
                return None
            return str(row["email"]), str(row["name"]), link, str(unsubscribe)

    def _message(
        self, turn: Turn, address: str, name: str, link: str, unsubscribe: str
    ) -> EmailMessage:
        play = f"{self.site}/rooms/{turn.room}#turn={link}"
        leave = f"{self.site}/unsubscribe?token={unsubscribe}"
        message = EmailMessage()
        message["From"] = self.sender_address()
        message["To"] = address
        message["Subject"] = f"Your turn in {turn.title} (room {turn.room})"
        # RFC 8058: a mail program's own unsubscribe button POSTs to the link.
        message["List-Unsubscribe"] = f"<{leave}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        message.set_content(
            f"Hello {name},\n\n"
            f"It is your turn in {turn.title}, room {turn.room} (seat {turn.seat}).\n"
            f"Play it here (the link opens your seat on any device, for {LINK_DAYS} days):\n\n"
            f"{play}\n\n"
            "No more of these e-mails, in one click:\n"
            f"{leave}\n"
        )
        return message

    def sender_address(self) -> str:
        """The From address."""
        return str(getattr(self.sender, "sender", "apothecary@localhost"))


# -- what the routes ask ---------------------------------------------------------------------


def redeem(store: Store, link: str, now: float) -> dict[str, Any]:
    """The seat a your-turn link opens: ``{"room", "token", "user"}`` (the seat's
    token and its account's name), or :class:`BadLink`."""
    with store.engine.connect() as connection:
        row = (
            connection.execute(
                sa.select(
                    turn_mails.c.room, seat_links.c.seat_token, users.c.name, turn_mails.c.sent
                )
                .select_from(
                    turn_mails.join(
                        seat_links,
                        sa.and_(
                            seat_links.c.room == turn_mails.c.room,
                            seat_links.c.token_hash == turn_mails.c.token_hash,
                            seat_links.c.user_id == turn_mails.c.user_id,
                        ),
                    ).join(users, users.c.id == turn_mails.c.user_id)
                )
                .where(turn_mails.c.link_hash == token_hash(link))
            )
            .mappings()
            .first()
        )
    if row is None or now - row["sent"] > LINK_DAYS * 86400:
        raise BadLink("this link opens no seat (it is too old, or the seat is not yours now)")
    return {"room": row["room"], "token": row["seat_token"], "user": row["name"]}


def unsubscribe(store: Store, token: str) -> str:
    """The account of an unsubscribe token gets no more your-turn mails: its name,
    or :class:`BadLink`."""
    with store.engine.begin() as connection:
        name = connection.execute(
            sa.select(users.c.name).where(users.c.mail_token == token)
        ).scalar()
        if name is None:
            raise BadLink("this unsubscribe link is no account's")
        connection.execute(
            users.update().where(users.c.mail_token == token).values(turn_mail=False)
        )
    return str(name)


def mail_settings(store: Store, user_id: int) -> dict[str, Any]:
    """The account's address and whether it wants your-turn mails."""
    with store.engine.connect() as connection:
        row = connection.execute(
            sa.select(users.c.email, users.c.turn_mail).where(users.c.id == user_id)
        ).first()
    return {"email": row[0] if row else None, "turn_mail": bool(row[1]) if row else False}


def set_mail(store: Store, user_id: int, email: str | None, turn_mail: bool) -> dict[str, Any]:
    """Set the account's address (None or empty: none) and whether it wants the mails."""
    address = check_email(email) if email else None
    with store.engine.begin() as connection:
        connection.execute(
            users.update().where(users.c.id == user_id).values(email=address, turn_mail=turn_mail)
        )
    return {"email": address, "turn_mail": turn_mail}


# -- vacations ---------------------------------------------------------------------------------

VACATION_DAYS = 14
"""Days of vacation an account may take each calendar year (UTC)."""


class VacationSpent(AccountError):
    """More vacation days asked for than the year has left."""

    code = "vacation_spent"
    status = 409


def _year(now: float) -> int:
    return time.gmtime(now).tm_year


def vacation(store: Store, user_id: int, now: float) -> dict[str, Any]:
    """The account's vacation: ``{"until"}`` (None: not on one) and ``days_left`` this year."""
    with store.engine.connect() as connection:
        row = connection.execute(
            sa.select(users.c.vacation_until, users.c.vacation_year, users.c.vacation_used).where(
                users.c.id == user_id
            )
        ).one()
    used = row.vacation_used if row.vacation_year == _year(now) else 0
    until = row.vacation_until if (row.vacation_until or 0) > now else None
    return {"until": until, "days_left": VACATION_DAYS - used}


def set_vacation(store: Store, user_id: int, days: int, now: float) -> dict[str, Any]:
    """Go on vacation for ``days`` more days (after any running one), or end it with 0
    (the whole days not yet begun are given back); :class:`VacationSpent` past the year's."""
    with store.engine.begin() as connection:
        row = connection.execute(
            sa.select(users.c.vacation_until, users.c.vacation_year, users.c.vacation_used).where(
                users.c.id == user_id
            )
        ).one()
        used = row.vacation_used if row.vacation_year == _year(now) else 0
        until = row.vacation_until if (row.vacation_until or 0) > now else None
        if days == 0:
            used -= 0 if until is None else int((until - now) // 86400)
            until = None
        elif used + days > VACATION_DAYS:
            raise VacationSpent(
                f"{VACATION_DAYS - used} of this year's {VACATION_DAYS} vacation days are left"
            )
        else:
            used += days
            until = max(until or now, now) + days * 86400.0
        connection.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(vacation_until=until, vacation_year=_year(now), vacation_used=max(0, used))
        )
    return vacation(store, user_id, now)


def vacation_until(store: Store, code: str, seat_hash: str, now: float) -> float | None:
    """When the vacation of the account whose seat in room ``code`` has this token
    hash ends, if it is on one now; None if not (or the seat is no account's)."""
    with store.engine.connect() as connection:
        until = connection.execute(
            sa.select(users.c.vacation_until)
            .select_from(seat_links.join(users, users.c.id == seat_links.c.user_id))
            .where(
                seat_links.c.room == code,
                seat_links.c.token_hash == seat_hash,
                users.c.vacation_until > now,
            )
        ).scalar()
    return None if until is None else float(until)
