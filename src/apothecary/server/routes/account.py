"""Accounts over HTTP (``/api/account``): sign up, sign in and out, the account's
facts, a new password, deletion. The rules are :mod:`apothecary.server.accounts`';
this module is the cookie that carries a session and the check that keeps other
sites from using it (:class:`SameOrigin`).

The session cookie is ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (no
other site's subrequest or form POST carries it), ``Secure`` when the request came
over TLS or the server's public URL is ``https``, and lasts the session's absolute
timeout. Cross-site request forgery is refused on every state-changing request
that carries the cookie, and on every one to ``/api/account`` (a forged sign-in
would sign a victim into the attacker's account): see :func:`cross_site`.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

from fastapi import APIRouter, Cookie, Depends, Header, Request, Response
from pydantic import BaseModel, Field
from starlette.datastructures import Headers

from apothecary.server.accounts import (
    NAME_MAX,
    PASSWORD_MAX,
    Accounts,
    CrossSite,
    NotSignedIn,
    Session,
)
from apothecary.server.guard import ASGIApp, Receive, Scope, Send
from apothecary.server.routes.deps import origin_allowed

COOKIE = "apothecary_session"
"""The session cookie's name."""

HEADER = "X-Apothecary"
"""The header every state-changing request to ``/api/account`` sends (any value):
a page of another site can only send it through CORS, which this server never
allows. A later route that acts on the session needs it too (see :class:`SameOrigin`)."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing, so need no cross-site check."""

PREFIX = "/api/account"

FRIENDS_PREFIX = "/api/friends"
"""The friends routes' prefix (:mod:`.friends`): an account's too, for :class:`SameOrigin`."""

ACCOUNT_PREFIXES = (PREFIX, FRIENDS_PREFIX)
"""The paths whose every state-changing request acts on an account, so must send :data:`HEADER`."""

router = APIRouter(prefix=PREFIX, tags=["account"])


def cross_site(
    headers: Headers, allowed: tuple[str, ...], public: str | None, need_header: bool
) -> str | None:
    """Why a state-changing request may have come from another site, or None.

    OWASP's CSRF cheat sheet, for a JSON API used from the server's own pages:
    Fetch Metadata (``Sec-Fetch-Site`` must be ``same-origin``, or ``none`` for
    what the person typed), then the ``Origin`` header must be the server's own
    when a browser sent one, and, where the session is what gives the request
    its power (``need_header``: the account routes), a custom header
    (:data:`HEADER`) that only a same-origin script can add without a CORS
    preflight, which this server never answers, so even a browser that sends
    neither Fetch Metadata nor Origin is covered. SameSite=Lax cookies are a
    further layer, not the defence.
    """
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return f"a request from another site (Sec-Fetch-Site: {fetch_site[:40]})"
    if not origin_allowed(headers, allowed, public):
        return "a request from another origin"
    if need_header and not headers.get(HEADER.lower()):
        return f"a state-changing request must send the {HEADER} header"
    return None


class SameOrigin:
    """The ASGI middleware that refuses cross-site requests (:func:`cross_site`)
    with 403 ``cross_site`` before any route sees them."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...], public: str | None) -> None:
        self.app, self.allowed, self.public = app, allowed, public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, unless it is state-changing, concerns an account
        (it carries the cookie or goes to /api/account) and may be cross-site."""
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            account = str(scope["path"]).startswith(ACCOUNT_PREFIXES)
            reason = None
            if account or _has_cookie(headers):
                reason = cross_site(headers, self.allowed, self.public, need_header=account)
            if reason is not None:
                await _refuse(send, CrossSite(reason))
                return
        await self.app(scope, receive, send)


def _has_cookie(headers: Headers) -> bool:
    return any(
        part.strip().startswith(COOKIE + "=")
        for value in headers.getlist("cookie")
        for part in value.split(";")
    )


async def _refuse(send: Send, error: CrossSite) -> None:
    body = json.dumps({"error": error.code, "message": str(error)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store")],
        }
    )
    await send({"type": "http.response.body", "body": body})


# -- what the routes share -----------------------------------------------------------------


async def _accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


AccountsDep = Annotated[Accounts, Depends(_accounts)]

SessionCookie = Annotated[str | None, Cookie(alias=COOKIE, description="The session token.")]


async def _session(accounts: AccountsDep, token: SessionCookie = None) -> Session:
    found = await accounts.session(token, time.time())
    if found is None:
        raise NotSignedIn("sign in first (no session, or it ended)")
    return found


async def _same_origin_header(
    _sent: Annotated[
        str,
        Header(
            alias=HEADER,
            min_length=1,
            description="Any value: says the request comes from a script of this "
            "server's own pages (another site's page cannot send it).",
        ),
    ],
) -> None:
    """Documents the header in the schema; :class:`SameOrigin` refuses a request
    without it before this is reached."""


CHANGES = [Depends(_same_origin_header)]
"""The dependencies of a state-changing account route."""

SessionDep = Annotated[Session, Depends(_session)]
"""The request's live session (401 ``not_signed_in`` without one)."""


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


def _set_cookie(request: Request, response: Response, token: str, max_age: float) -> None:
    public = request.app.state.web.public_url
    secure = request.url.scheme == "https" or (public or "").startswith("https:")
    response.set_cookie(
        COOKIE, token, max_age=int(max_age), path="/", httponly=True, samesite="lax", secure=secure
    )


def _signed_in(request: Request, response: Response, token: str, accounts: Accounts) -> None:
    _set_cookie(request, response, token, accounts.config.session_seconds)
    response.headers["Cache-Control"] = "no-store"


def _signed_out(request: Request, response: Response) -> None:
    _set_cookie(request, response, "", 0)
    response.headers["Cache-Control"] = "no-store"


Password = Annotated[str, Field(min_length=1, max_length=PASSWORD_MAX, description="A password.")]


class Credentials(BaseModel):
    """A user name and password."""

    name: str = Field(min_length=1, max_length=NAME_MAX, description="The user name.")
    password: Password


class NewPassword(BaseModel):
    """The current password and the new one."""

    current: Password
    new: Password


class PasswordAgain(BaseModel):
    """The current password, for what needs more than a session."""

    password: Password


class AccountFacts(BaseModel):
    """What the account's owner is told of it."""

    name: str = Field(description="The user name, as it was typed at sign-up.")
    created: float = Field(description="When the account was made (Unix seconds).")


class SignedIn(BaseModel):
    """A signed-in answer: the account (the session is in the cookie)."""

    user: AccountFacts


class Done(BaseModel):
    """A done answer."""

    ok: bool = True
    sessions_ended: int | None = Field(default=None, description="How many sessions ended.")


def _user(session_user: Any) -> SignedIn:
    return SignedIn(user=AccountFacts(**session_user.public()))


# -- the routes ----------------------------------------------------------------------------


@router.post(
    "/sign-up", status_code=201, summary="Make an account and sign in", dependencies=CHANGES
)
async def sign_up(
    request: Request, response: Response, accounts: AccountsDep, body: Credentials
) -> SignedIn:
    """The new account; the session cookie is set."""
    user, token = await accounts.sign_up(body.name, body.password, _address(request), time.time())
    _signed_in(request, response, token, accounts)
    return _user(user)


@router.post(
    "/sign-in",
    summary="Sign in: a new session (any session it came with ends)",
    dependencies=CHANGES,
)
async def sign_in(
    request: Request,
    response: Response,
    accounts: AccountsDep,
    body: Credentials,
    token: SessionCookie = None,
) -> SignedIn:
    """The account; the new session's cookie is set."""
    user, fresh = await accounts.sign_in(
        body.name, body.password, _address(request), time.time(), token
    )
    _signed_in(request, response, fresh, accounts)
    return _user(user)


class WhoAmI(BaseModel):
    """Who the request's session is signed in as."""

    user: AccountFacts | None = Field(description="The account; null when not signed in.")


@router.get("", summary="The signed-in account, if any")
async def whoami(accounts: AccountsDep, response: Response, token: SessionCookie = None) -> WhoAmI:
    """The account of the request's session, or null: every page asks, so being
    signed out is an answer, not an error."""
    response.headers["Cache-Control"] = "no-store"
    found = await accounts.session(token, time.time())
    return WhoAmI(user=None if found is None else _user(found.user).user)


@router.post("/sign-out", summary="End this session", dependencies=CHANGES)
async def sign_out(
    request: Request, response: Response, accounts: AccountsDep, token: SessionCookie = None
) -> Done:
    """Signed out here (also when the session had already ended)."""
    if token:
        await accounts.sign_out(token)
    _signed_out(request, response)
    return Done()


@router.post(
    "/sign-out-everywhere", summary="End every session of the account", dependencies=CHANGES
)
async def sign_out_everywhere(
    request: Request, response: Response, accounts: AccountsDep, session: SessionDep
) -> Done:
    """Signed out on every device, this one too."""
    ended = await accounts.sign_out_everywhere(session)
    _signed_out(request, response)
    return Done(sessions_ended=ended)


@router.post(
    "/password", summary="Change the password (every other session ends)", dependencies=CHANGES
)
async def change_password(
    request: Request,
    response: Response,
    accounts: AccountsDep,
    session: SessionDep,
    body: NewPassword,
) -> SignedIn:
    """The account; a new session's cookie is set here, and every other session ended."""
    fresh = await accounts.change_password(
        session, body.current, body.new, _address(request), time.time()
    )
    _signed_in(request, response, fresh, accounts)
    return _user(session.user)


@router.post("/delete", summary="Delete the account and every session of it", dependencies=CHANGES)
async def delete_account(
    request: Request,
    response: Response,
    accounts: AccountsDep,
    session: SessionDep,
    body: PasswordAgain,
) -> Done:
    """Deleted: the account's name is free again; its seats, in their rooms and
    records, are "deleted player"."""
    seats = request.app.state.seats  # its seats are named "deleted player" first
    await accounts.delete(
        session, body.password, _address(request), time.time(), lambda: seats.forget(session.user)
    )
    _signed_out(request, response)
    return Done()
