"""Passkeys over HTTP (``/api/account/passkeys``): register one while signed in,
list and remove them, and sign in with one. The ceremonies are
:mod:`apothecary.server.passkeys`'; this module finds the relying party (the site
the request came to) and sets the session cookie as a password's sign-in does.

Every route is under ``/api/account``, so every ``POST`` passes the account
routes' cross-site checks (:func:`apothecary.server.routes.account.cross_site`),
the ``X-Apothecary`` header among them.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from pydantic import BaseModel, Field

from apothecary.server.accounts import NAME_MAX
from apothecary.server.guard import public_origin
from apothecary.server.passkeys import LABEL_MAX, Passkeys, RelyingParty
from apothecary.server.routes.account import (
    CHANGES,
    PREFIX,
    PasswordAgain,
    SessionCookie,
    SessionDep,
    SignedIn,
    _address,
    _signed_in,
    _user,
)

router = APIRouter(prefix=f"{PREFIX}/passkeys", tags=["account"])


async def _passkeys(request: Request) -> Passkeys:
    passkeys: Passkeys = request.app.state.passkeys
    return passkeys


PasskeysDep = Annotated[Passkeys, Depends(_passkeys)]


def relying_party(request: Request) -> RelyingParty:
    """The site the request came to: ``--public-url``'s origin, or else the request's
    own scheme and ``Host`` (behind a TLS proxy on this machine, uvicorn believes its
    ``X-Forwarded-Proto``; behind any other, give ``--public-url``)."""
    public = request.app.state.web.public_url
    if public is not None:
        return RelyingParty.of(public_origin(public))
    host = request.headers.get("host") or f"{request.url.hostname}"
    return RelyingParty.of(f"{request.url.scheme}://{host.lower()}")


class Options(BaseModel):
    """Options for the browser's WebAuthn call, as WebAuthn's JSON form of them
    (``PublicKeyCredentialCreationOptionsJSON`` or ``...RequestOptionsJSON``: binary
    fields are base64url)."""

    options: dict[str, Any] = Field(description="The options, for the browser.")


def _options(text: str) -> Options:
    return Options(options=json.loads(text))


Credential = Annotated[
    dict[str, Any],
    Field(description="The browser's PublicKeyCredential, as JSON (its toJSON())."),
]


class NewPasskey(BaseModel):
    """The browser's answer to the registration options, and a name for the passkey."""

    credential: Credential
    label: str | None = Field(
        default=None, max_length=LABEL_MAX, description="A name for it (e.g. the device's)."
    )


class PasskeyAnswer(BaseModel):
    """The browser's answer to the sign-in options."""

    credential: Credential


class Who(BaseModel):
    """Whose passkeys to offer: a user name, or none for any (discoverable) passkey."""

    name: str | None = Field(default=None, max_length=NAME_MAX, description="A user name.")


class PasskeyFacts(BaseModel):
    """A passkey, as its owner is told of it."""

    id: str = Field(description="The credential's id (base64url).")
    label: str = Field(description="Its name.")
    created: float = Field(description="When it was registered (Unix seconds).")
    last_used: float | None = Field(description="When it last signed in, if ever.")


class PasskeyList(BaseModel):
    """The account's passkeys, oldest first."""

    passkeys: list[PasskeyFacts]


class Removed(BaseModel):
    """A removed passkey."""

    ok: bool = True


@router.get("", summary="The account's passkeys")
async def list_passkeys(
    passkeys: PasskeysDep, session: SessionDep, response: Response
) -> PasskeyList:
    """Every passkey of the signed-in account."""
    response.headers["Cache-Control"] = "no-store"
    found = await passkeys.listed(session)
    return PasskeyList(passkeys=[PasskeyFacts(**key.public()) for key in found])


@router.post("/register/options", summary="Options to make a new passkey", dependencies=CHANGES)
async def register_options(
    request: Request, passkeys: PasskeysDep, session: SessionDep, body: PasswordAgain
) -> Options:
    """For ``navigator.credentials.create``: a challenge good for a few minutes. The
    account's password again: a session alone does not add a way in."""
    rp = relying_party(request)
    address = _address(request)
    return _options(
        await passkeys.register_options(session, body.password, address, rp, time.time())
    )


@router.post("/register", status_code=201, summary="Keep a new passkey", dependencies=CHANGES)
async def register(
    request: Request, passkeys: PasskeysDep, session: SessionDep, body: NewPasskey
) -> PasskeyFacts:
    """The new passkey, once the browser's answer is verified."""
    made = await passkeys.register(
        session, body.credential, body.label, relying_party(request), time.time()
    )
    return PasskeyFacts(**made.public())


@router.post(
    "/{passkey_id}/delete", summary="Remove one of the account's passkeys", dependencies=CHANGES
)
async def remove(
    passkeys: PasskeysDep,
    session: SessionDep,
    passkey_id: Annotated[str, Path(max_length=1400, description="The passkey's id.")],
) -> Removed:
    """Removed: it signs in no more (the authenticator may still list it)."""
    await passkeys.remove(session, passkey_id)
    return Removed()


@router.post("/sign-in/options", summary="Options to sign in with a passkey", dependencies=CHANGES)
async def sign_in_options(request: Request, passkeys: PasskeysDep, body: Who) -> Options:
    """For ``navigator.credentials.get``: a challenge good for a few minutes; with a
    name, only that account's passkeys are offered."""
    rp = relying_party(request)
    return _options(await passkeys.sign_in_options(body.name, _address(request), rp, time.time()))


@router.post("/sign-in", summary="Sign in with a passkey", dependencies=CHANGES)
async def sign_in(
    request: Request,
    response: Response,
    passkeys: PasskeysDep,
    body: PasskeyAnswer,
    token: SessionCookie = None,
) -> SignedIn:
    """The account; the new session's cookie is set (any session it came with ends)."""
    user, fresh = await passkeys.sign_in(
        body.credential, relying_party(request), time.time(), token
    )
    _signed_in(request, response, fresh, passkeys.accounts)
    return _user(user)
