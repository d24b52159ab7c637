"""Passkeys (WebAuthn) as a second way into an account, through py_webauthn.

A signed-in person registers a passkey (the account page); later they sign in with
it, with no user name (a discoverable credential: the authenticator offers the
passkeys it holds for this site) or with one (only that account's passkeys are
offered). This module is the ceremonies and their rows, with no HTTP in it:
:mod:`apothecary.server.routes.passkeys` puts it behind ``/api/account/passkeys``.
docs/accounts.md#passkeys says what was chosen and why.

* **Challenges** are random (256 bits), kept in the database with their expiry
  (``passkey_challenges``), so the process that checks an answer need not be the
  one that asked; each is consumed by the first answer that names it (one delete,
  so two processes racing with one answer cannot both take it): a replayed
  answer finds no challenge.
* **The relying party** (:class:`RelyingParty`) is the server's public origin
  (``--public-url``) or else the one the request came to (its ``Host`` and
  scheme), so the browser's origin and the credential's RP ID are checked against
  the site the person opened.
* **The signature count** each authenticator reports is kept and must grow (a
  cloned authenticator is refused); an authenticator that always reports 0, as
  synced passkeys do, is allowed, as WebAuthn says.
* **User verification** (a PIN or a fingerprint) is required: a passkey is the
  only factor of its sign-in, so it must be two in one (the device and the person).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from apothecary.server.accounts import (
    USER_NAME,
    AccountError,
    Accounts,
    Session,
    User,
    name_key,
)
from apothecary.server.store import Store, passkey_challenges, passkeys, users

CHALLENGE_SECONDS = 300.0
"""How long a challenge is good for: time enough to find the authenticator and
touch it, and the timeout the browser is given."""

MAX_PASSKEYS = 20
"""The most passkeys an account may have (a bound on the list every options answer
carries)."""

LABEL_MAX = 64
"""The longest name a person may give a passkey."""

REGISTER, SIGN_IN = "register", "sign-in"
"""The two kinds of challenge."""


class PasskeyRefused(AccountError):
    """An answer that does not prove a passkey: not of the form, for no challenge
    given (or one used already: a replay), from another origin or RP ID, a bad
    signature, a signature count that did not grow, or a passkey no account has."""

    code = "bad_passkey"
    status = 401


class PasskeyExpired(AccountError):
    """An answer to a challenge that expired before it came."""

    code = "passkey_expired"
    status = 401


class NoPasskey(AccountError):
    """The account has no passkey of that id."""

    code = "no_passkey"
    status = 404


class TooManyPasskeys(AccountError):
    """The account has :data:`MAX_PASSKEYS` passkeys already."""

    code = "too_many_passkeys"
    status = 409


@dataclass(frozen=True)
class RelyingParty:
    """The site a passkey belongs to: its RP ID (a host name) and its origin."""

    id: str
    origin: str
    name: str = "apothecary"

    @classmethod
    def of(cls, origin: str) -> RelyingParty:
        """The relying party of an origin (``scheme://host[:port]``): its host is the RP ID."""
        return cls(id=urlsplit(origin).hostname or "", origin=origin)


@dataclass(frozen=True)
class Passkey:
    """A passkey as its owner is told of it (never its public key, which is no
    secret but is no use to them either)."""

    id: str
    label: str
    created: float
    last_used: float | None

    def public(self) -> dict[str, Any]:
        """The passkey's facts, for the account page."""
        return {
            "id": self.id,
            "label": self.label,
            "created": self.created,
            "last_used": self.last_used,
        }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def answered_challenge(credential: dict[str, Any]) -> str:
    """The challenge a browser's answer (a ``PublicKeyCredential`` as JSON) signed,
    read from its ``clientDataJSON``; :class:`PasskeyRefused` when it has none."""
    try:
        response = credential["response"]
        client_data = json.loads(_unb64(response["clientDataJSON"]))
        challenge = client_data["challenge"]
    except (KeyError, TypeError, ValueError, binascii.Error, UnicodeDecodeError):
        raise PasskeyRefused("that is not a passkey's answer (no clientDataJSON)") from None
    if not isinstance(challenge, str) or len(challenge) > 64:
        raise PasskeyRefused("that is not a passkey's answer (no challenge)")
    return challenge


def _webauthn_errors() -> tuple[type[Exception], ...]:
    """What py_webauthn raises for an answer that does not verify, and what a
    malformed one may raise while it is parsed."""
    from webauthn.helpers.exceptions import WebAuthnException

    return (WebAuthnException, KeyError, TypeError, ValueError, AttributeError)


class Passkeys:
    """The accounts' passkeys in ``accounts``' database. Its methods are awaited;
    writes run on the store's writer."""

    def __init__(self, accounts: Accounts, challenge_seconds: float = CHALLENGE_SECONDS) -> None:
        self.accounts, self.challenge_seconds = accounts, challenge_seconds
        self.store: Store = accounts.store

    # -- challenges -------------------------------------------------------------------------

    def _give(self, kind: str, user_id: int | None, now: float, handle: str | None = None) -> bytes:
        """A new challenge, kept; challenges that expired are swept at the same time."""
        challenge = secrets.token_bytes(32)
        table = passkey_challenges
        with self.store.engine.begin() as connection:
            connection.execute(table.delete().where(table.c.expires <= now))
            connection.execute(
                table.insert().values(
                    challenge=_b64(challenge),
                    kind=kind,
                    user_id=user_id,
                    user_handle=handle,
                    expires=now + self.challenge_seconds,
                )
            )
        return challenge

    def _take(self, challenge: str, kind: str) -> dict[str, Any]:
        """Consume the challenge of this kind, its row; refused when no such challenge
        is waiting (never given, or answered already). The delete is committed before
        the answer is checked, so an answer that fails spends its challenge too."""
        table = passkey_challenges
        where = (table.c.challenge == challenge, table.c.kind == kind)
        with self.store.engine.begin() as connection:
            row = connection.execute(table.select().where(*where)).mappings().first()
            # The delete decides: of two processes taking one challenge, one deletes it.
            if row is None or connection.execute(table.delete().where(*where)).rowcount != 1:
                raise PasskeyRefused("that answer is to no challenge waiting (used once already?)")
        return dict(row)

    def _check_fresh(self, row: dict[str, Any], now: float) -> None:
        if row["expires"] <= now:
            raise PasskeyExpired("the passkey's challenge expired; try again")

    async def _read(self, query: sa.Select[Any]) -> list[dict[str, Any]]:
        def read() -> list[dict[str, Any]]:
            with self.store.engine.connect() as connection:
                return [dict(row) for row in connection.execute(query).mappings()]

        return await asyncio.to_thread(read)

    # -- registering ------------------------------------------------------------------------

    async def register_options(
        self, session: Session, password: str, address: str, rp: RelyingParty, now: float
    ) -> str:
        """The options (JSON) for ``navigator.credentials.create`` to make a new passkey
        of the signed-in account: a discoverable credential, user verification required,
        none of the account's own passkeys again. The account's password is asked again
        (as for a new password): a stolen session must not add its thief a way in that
        outlives the session."""
        from webauthn import generate_registration_options, options_to_json
        from webauthn.helpers.structs import (
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        await self.accounts.reauthenticate(session, password, address, now)
        mine = await self._read(passkeys.select().where(passkeys.c.user_id == session.user.id))
        if len(mine) >= MAX_PASSKEYS:
            raise TooManyPasskeys(f"an account has at most {MAX_PASSKEYS} passkeys")
        # One user handle per account, on each of its passkeys: an authenticator keeps one
        # passkey per handle and site, so a second registration on it replaces the first.
        handle = mine[0]["user_handle"] if mine else _b64(secrets.token_bytes(32))
        challenge = await self.store.run(self._give, REGISTER, session.user.id, now, handle)
        options = generate_registration_options(
            rp_id=rp.id,
            rp_name=rp.name,
            user_name=session.user.name,
            user_id=_unb64(handle),
            challenge=challenge,
            timeout=int(self.challenge_seconds * 1000),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=_unb64(row["credential_id"])) for row in mine
            ],
        )
        return str(options_to_json(options))

    async def register(
        self,
        session: Session,
        credential: dict[str, Any],
        label: str | None,
        rp: RelyingParty,
        now: float,
    ) -> Passkey:
        """Verify the browser's answer to :meth:`register_options` and keep the new
        passkey as the account's; :class:`PasskeyRefused` or :class:`PasskeyExpired`."""
        from webauthn import verify_registration_response

        challenge = answered_challenge(credential)
        user_id = session.user.id

        def write() -> Passkey:
            row = self._take(challenge, REGISTER)
            if row["user_id"] != user_id:
                raise PasskeyRefused("that challenge was given to another account")
            self._check_fresh(row, now)
            try:
                verified = verify_registration_response(
                    credential=credential,
                    expected_challenge=_unb64(challenge),
                    expected_rp_id=rp.id,
                    expected_origin=rp.origin,
                    require_user_verification=True,
                )
            except _webauthn_errors() as error:
                raise PasskeyRefused(f"the passkey was refused: {error}"[:300]) from None
            try:
                with self.store.engine.begin() as connection:
                    return self._keep(connection, verified, row["user_handle"], user_id, label, now)
            except sa.exc.IntegrityError:
                raise PasskeyRefused("that passkey is registered already") from None

        return await self.store.run(write)

    def _keep(
        self,
        connection: sa.Connection,
        verified: Any,
        handle: str,
        user_id: int,
        label: str | None,
        now: float,
    ) -> Passkey:
        """Write a verified registration's passkey."""
        count = connection.execute(
            sa.select(sa.func.count()).where(passkeys.c.user_id == user_id)
        ).scalar_one()
        made = Passkey(
            _b64(verified.credential_id),
            (label or "").strip()[:LABEL_MAX] or f"Passkey {count + 1}",
            now,
            None,
        )
        connection.execute(
            passkeys.insert().values(
                credential_id=made.id,
                user_id=user_id,
                user_handle=handle,
                public_key=verified.credential_public_key,
                sign_count=verified.sign_count,
                label=made.label,
                created=now,
            )
        )
        return made

    async def listed(self, session: Session) -> list[Passkey]:
        """The account's passkeys, oldest first."""
        rows = await self._read(
            passkeys.select()
            .where(passkeys.c.user_id == session.user.id)
            .order_by(passkeys.c.created, passkeys.c.credential_id)
        )
        return [Passkey(r["credential_id"], r["label"], r["created"], r["last_used"]) for r in rows]

    async def remove(self, session: Session, passkey_id: str) -> None:
        """Forget one of the account's passkeys (:class:`NoPasskey` if it has none of
        that id: another account's passkey is not its to remove)."""

        def write() -> int:
            with self.store.engine.begin() as connection:
                gone = connection.execute(
                    passkeys.delete().where(
                        passkeys.c.credential_id == passkey_id,
                        passkeys.c.user_id == session.user.id,
                    )
                )
                return int(gone.rowcount)

        if not await self.store.run(write):
            raise NoPasskey("the account has no passkey of that id")

    # -- signing in ---------------------------------------------------------------------------

    async def sign_in_options(
        self, name: str | None, address: str, rp: RelyingParty, now: float
    ) -> str:
        """The options (JSON) for ``navigator.credentials.get``. With no ``name``, any
        passkey of this site the authenticator holds may answer (discoverable); with
        one, only that account's passkeys are offered (none when there is no such
        account: the answer says nothing of who exists). Counted against the address's
        sign-in attempts."""
        from webauthn import generate_authentication_options, options_to_json
        from webauthn.helpers.structs import (
            PublicKeyCredentialDescriptor,
            UserVerificationRequirement,
        )

        await self.accounts.throttle(None, address, now)
        allowed: Sequence[dict[str, Any]] = []
        if name is not None and USER_NAME.fullmatch(name):
            allowed = await self._read(
                sa.select(passkeys.c.credential_id)
                .join(users, users.c.id == passkeys.c.user_id)
                .where(users.c.name_key == name_key(name))
            )
        challenge = await self.store.run(self._give, SIGN_IN, None, now)
        options = generate_authentication_options(
            rp_id=rp.id,
            challenge=challenge,
            timeout=int(self.challenge_seconds * 1000),
            allow_credentials=[
                PublicKeyCredentialDescriptor(id=_unb64(row["credential_id"])) for row in allowed
            ],
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        return str(options_to_json(options))

    async def sign_in(
        self,
        credential: dict[str, Any],
        rp: RelyingParty,
        now: float,
        old: str | None = None,
    ) -> tuple[User, str]:
        """Verify the browser's answer to :meth:`sign_in_options`: a new session for the
        passkey's account (its user and token; the session the client came with ends),
        or :class:`PasskeyRefused` / :class:`PasskeyExpired`. Counted against the
        account's sign-in attempts once the passkey is known."""
        challenge = answered_challenge(credential)
        key = credential.get("id")
        if not isinstance(key, str) or not 0 < len(key) <= 1400:
            raise PasskeyRefused("that is not a passkey's answer (no id)")
        owner = await self._read(
            sa.select(users.c.name).join(passkeys).where(passkeys.c.credential_id == key)
        )
        if owner:
            await self.accounts.throttle_account(owner[0]["name"], now)
        return await self.store.run(self._sign_in, credential, challenge, key, rp, now, old)

    def _sign_in(
        self,
        credential: dict[str, Any],
        challenge: str,
        key: str,
        rp: RelyingParty,
        now: float,
        old: str | None,
    ) -> tuple[User, str]:
        from webauthn import verify_authentication_response

        self._check_fresh(self._take(challenge, SIGN_IN), now)
        with self.store.engine.begin() as connection:
            query = sa.select(passkeys, users.c.name, users.c.created.label("user_created"))
            row = (
                connection.execute(query.join(users).where(passkeys.c.credential_id == key))
                .mappings()
                .first()
            )
            if row is None:
                raise PasskeyRefused("that passkey is no account's here (removed?)")
            handle = (credential.get("response") or {}).get("userHandle")
            if handle is not None and handle != row["user_handle"]:
                raise PasskeyRefused("that passkey answered for another account")
            try:
                verified = verify_authentication_response(
                    credential=credential,
                    expected_challenge=_unb64(challenge),
                    expected_rp_id=rp.id,
                    expected_origin=rp.origin,
                    credential_public_key=row["public_key"],
                    credential_current_sign_count=row["sign_count"],
                    require_user_verification=True,
                )
            except _webauthn_errors() as error:
                raise PasskeyRefused(f"the passkey was refused: {error}"[:300]) from None
            # Only from the count this check read: a process racing with a copy loses.
            moved = connection.execute(
                passkeys.update()
                .where(passkeys.c.credential_id == key, passkeys.c.sign_count == row["sign_count"])
                .values(sign_count=verified.new_sign_count, last_used=now)
            )
            if moved.rowcount != 1:
                raise PasskeyRefused("that passkey signed in at the same moment elsewhere")
            token = self.accounts.start_session(connection, row["user_id"], now, old)
        return User(row["user_id"], row["name"], row["user_created"]), token
