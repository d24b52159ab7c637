"""The HTTP API and the WebSocket protocol: a thin layer over the :class:`Hub`.

Every refusal is a JSON body ``{"error": code, "message": words}`` (HTTP) or
an ``{"type": "error", ...}`` message to that connection alone (WebSocket);
neither changes anything. The protocol is in docs/protocol.md; the HTTP API
is described by the OpenAPI schema at ``/openapi.json`` (and ``/docs``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from apothecary.core.errors import ApothecaryError
from apothecary.i18n import negotiate
from apothecary.server.accounts import AccountConfig, Accounts
from apothecary.server.commands import SocketCommand
from apothecary.server.friends import Friends, keep_present
from apothecary.server.guard import Guard, GuardConfig, public_origin
from apothecary.server.hub import GOING, Connection, Hub, HubConfig
from apothecary.server.passkeys import Passkeys
from apothecary.server.placement import Placement
from apothecary.server.ratings import Ratings
from apothecary.server.replays import (
    ANALYSIS_DECISIONS,
    RECORD_LIMIT,
    REPLAY_CACHE_BYTES,
    REPLAY_SECONDS,
    REPLAY_WORKERS,
    Replays,
)
from apothecary.server.room import RoomError, RoomNotFound
from apothecary.server.routes import ROUTERS
from apothecary.server.routes.account import COOKIE, SameOrigin
from apothecary.server.routes.deps import STATIC, Buckets, origin_allowed
from apothecary.server.seats import Seats
from apothecary.server.store import Store
from apothecary.server.turnmail import SmtpConfig, TurnMail

if TYPE_CHECKING:  # the cluster's modules load only for a cluster: one process needs no Redis
    from apothecary.server.cluster import ClusterConfig

__all__ = ["STATIC", "WebConfig", "create_app"]


@dataclass
class WebConfig:
    """What the transport enforces."""

    allowed_origins: tuple[str, ...] = ()
    """Browser origins besides the server's own that may open a socket."""
    max_message_bytes: int = 8192
    """The largest WebSocket message the server reads (a larger one is refused)."""
    rate_per_second: float = 10.0
    """Messages one seat may send each second, on average, over all its
    sockets together (a spectator's socket counts as a seat of its own) ..."""
    rate_burst: int = 30
    """... and at once."""
    address_rate_per_second: float = 40.0
    """Messages one client address may send each second over all its sockets
    (several people behind one router share it) ..."""
    address_rate_burst: int = 120
    """... and at once."""
    hello_timeout: float = 10.0
    """Seconds a new socket has to say hello."""
    create_per_minute: int = 30
    """Rooms one client address may create a minute."""
    max_body_bytes: int = 65_536
    """The largest HTTP request body (record uploads: ``RECORD_LIMIT``); a larger
    one is refused with 413 as it streams in, never read whole."""
    public_url: str | None = None
    """The address people open (``--public-url``). When set, a browser socket
    must come from its origin (or ``allowed_origins``), and a request whose
    ``Host`` is another name is refused (DNS rebinding)."""
    smtp: str | None = None
    """The SMTP server turn-based rooms' turns are mailed through (``--smtp``,
    :meth:`apothecary.server.turnmail.SmtpConfig.parse`); None: no mail."""
    site_url: str | None = None
    """What the mails' links start with (``--public-url``, else the address served)."""
    request_timeout: float = 10.0
    """Seconds a connection has to send a whole request (slowloris)."""
    connections_per_address: int = 64
    """Connections (HTTP and WebSocket) one client address may hold open."""
    accounts: AccountConfig = field(default_factory=AccountConfig)
    """The accounts' rules: password length, session timeouts, sign-in limits."""
    replay_cache_bytes: int = REPLAY_CACHE_BYTES
    """Bytes of finished games kept rebuilt for replays (``--replay-cache-mb``)."""
    analysis_decisions: int = ANALYSIS_DECISIONS
    """The most decisions one analysis values (``--analysis-decisions``); a game
    with more is refused with ``analysis_too_large``."""
    replay_seconds: float = REPLAY_SECONDS
    """Wall-clock limit of one replay call in the replay pool (``--replay-seconds``):
    its worker is then ended and the request answers 503 ``replay_too_slow``."""
    replay_workers: int = REPLAY_WORKERS
    """Processes of the replay pool; 0 replays in a thread, which no limit stops
    (tests that plant something in this process only)."""
    hints_per_minute: int = 6
    """Hints one seat token may ask for a minute (one client address: four
    times as many); see :mod:`apothecary.server.routes.hints` for the rest."""


class Refusal(BaseModel):
    """Every refusal."""

    error: str
    message: str


def _placement(cluster: ClusterConfig | None) -> Placement | None:
    """Where the hub's rooms live: all here (None, the hub's default), or
    shared with other processes."""
    if cluster is None:
        return None
    from apothecary.server.placement.cluster import ClusterPlacement

    return ClusterPlacement(cluster)


def _people(app: FastAPI, store: Store, hub: Hub, web: WebConfig) -> None:
    """The services about people the routes find on ``app.state``: accounts and
    their passkeys, ratings, seats, friends, and (with ``--smtp``) turn mails."""
    app.state.accounts = Accounts(store, web.accounts)
    app.state.passkeys = Passkeys(app.state.accounts)
    app.state.ratings = Ratings(store)
    app.state.seats = Seats(hub)
    if web.smtp is not None:
        site = web.site_url or web.public_url or "http://127.0.0.1:8000"
        hub.turns = TurnMail(store, SmtpConfig.parse(web.smtp), site, hub.config.clock)
    app.state.friends = Friends(store)


def create_app(
    store: Store,
    config: HubConfig | None = None,
    web: WebConfig | None = None,
    cluster: ClusterConfig | None = None,
) -> FastAPI:
    """The server's FastAPI application over ``store`` (sharing its rooms with
    other processes through Redis when ``cluster`` says so)."""
    hub = Hub(store, config, _placement(cluster))
    shares = web or WebConfig()
    found = Replays(
        store,
        cache_bytes=shares.replay_cache_bytes,
        max_decisions=shares.analysis_decisions,
        seconds=hub.config.hint_seconds,
        replay_seconds=shares.replay_seconds,
        replay_workers=shares.replay_workers,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            found.close()  # the analyses stop and their pool goes
            await hub.close()

    app = FastAPI(
        title="apothecary",
        summary="Rooms to play the four poison-themed games in, with friends and bots.",
        description="The HTTP API. Play itself goes over the WebSocket at "
        "/ws/rooms/{code}; see docs/protocol.md.",
        version=f"protocol {1}",
        lifespan=lifespan,
        responses={
            422: {
                "description": "The request is not of the form",
                "content": {"application/json": {"schema": Refusal.model_json_schema()}},
            }
        },
    )
    app.state.hub, app.state.replays, app.state.limits = hub, found, {}
    app.state.web = web = web or WebConfig()
    # The socket limits are shared by every socket of a seat and of an address:
    # opening more sockets buys no more messages.
    limits = _SocketLimits(web)
    _refusals(app)
    _people(app, store, hub, web)
    public = None if web.public_url is None else public_origin(web.public_url)
    # Inside the Guard (added after it, so nearer the routes): a refusal still
    # gets the security headers, and an oversized body is cut off first.
    app.add_middleware(SameOrigin, allowed=web.allowed_origins, public=public)
    app.add_middleware(
        Guard,
        config=GuardConfig(
            max_body_bytes=web.max_body_bytes,
            large_bodies=(("/api/replays", max(RECORD_LIMIT, web.max_body_bytes)),),
            trusted_hosts=() if public is None else (urlsplit(public).netloc,),
        ),
    )
    # The browser client: plain files shipped in the package, no build step.
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)

    @app.websocket("/ws/rooms/{code}")
    async def play(socket: WebSocket, code: str) -> None:
        if not origin_allowed(socket.headers, web.allowed_origins, public):
            await socket.close(code=1008, reason="origin not allowed")
            return
        await socket.accept()
        async with _present(app.state.accounts, socket.cookies.get(COOKIE)):
            await _serve_socket(hub, web, limits, socket, code)

    return app


@asynccontextmanager
async def _present(accounts: Accounts, session_token: str | None) -> AsyncIterator[None]:
    """While a room's socket that came with a session cookie is open, its account
    counts as online (:func:`apothecary.server.friends.keep_present`)."""
    task = None if not session_token else asyncio.create_task(keep_present(accounts, session_token))
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _refusals(app: FastAPI) -> None:
    """Every refusal as ``{"error": code, "message": words}``."""

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return JSONResponse(
            {"error": "invalid_request", "message": f"{where}: {first.get('msg', 'invalid')}"},
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            error.status_code, "bad_request"
        )
        return JSONResponse(
            {"error": code, "message": str(error.detail)},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(ApothecaryError)
    async def refused(_request: Request, error: ApothecaryError) -> JSONResponse:
        code = getattr(error, "code", "bad_request")
        status = getattr(error, "status", 400)
        headers = getattr(error, "headers", None)  # e.g. a 429's Retry-After
        return JSONResponse(
            {"error": code, "message": str(error)}, status_code=status, headers=headers
        )


def _error(code: str, message: str) -> dict[str, Any]:
    if len(message) > 500:
        message = message[:500] + "…"
    return {"type": "error", "error": code, "message": message}


class _SocketLimits:
    """The message rate limits of one app's sockets: per seat and per address."""

    def __init__(self, web: WebConfig) -> None:
        self.seats = Buckets(web.rate_per_second, web.rate_burst)
        self.addresses = Buckets(web.address_rate_per_second, web.address_rate_burst)

    def take(self, connection: Connection, address: str) -> bool:
        """Whether the connection's seat and address may send one more message
        (the seat's share is spent only when the address has one to give)."""
        if not self.addresses.take(address):
            return False
        seat = connection.token_hash or f"socket:{connection.id}"
        return self.seats.take(seat)


async def _serve_socket(
    hub: Hub, web: WebConfig, limits: _SocketLimits, socket: WebSocket, code: str
) -> None:
    """One socket's life: hello, then messages until it closes."""
    try:
        first = await asyncio.wait_for(socket.receive_text(), web.hello_timeout)
    except KeyError:  # a binary frame: not a hello
        await socket.send_json(_error("bad_hello", 'the first message is {"type": "hello"}'))
        await socket.close(code=1008, reason="say hello first")
        return
    except (TimeoutError, WebSocketDisconnect, RuntimeError):
        with contextlib.suppress(Exception):
            await socket.close(code=1008, reason="say hello first")
        return
    hello = _parse(first, web.max_message_bytes)
    if isinstance(hello, str) or hello.get("type") != "hello":
        await socket.send_json(_error("bad_hello", 'the first message is {"type": "hello"}'))
        await socket.close(code=1008, reason="say hello first")
        return
    try:
        lang = negotiate([hello.get("lang")])  # a language we lack: the default
        connection, welcome = await hub.connect(code, hello.get("token"), lang)
    except RoomError as error:
        await socket.send_json(_error(error.code, str(error)))
        # 1008 (a refusal), or the error's own code: a full room is "try again later".
        await socket.close(code=getattr(error, "close_code", 1008), reason=error.code)
        return
    await socket.send_json(welcome)
    writer = connection.writer = asyncio.create_task(_write(socket, connection))
    address = socket.client.host if socket.client else "?"
    try:
        while True:
            try:
                text = await socket.receive_text()
            except (WebSocketDisconnect, RuntimeError):
                break
            except KeyError:  # a binary frame has no "text"
                text = None
            if not limits.take(connection, address):
                connection.send(_error("rate_limited", "too many messages; slow down"))
                continue
            if text is None:
                connection.send(_error("malformed", "send JSON text frames"))
                continue
            message = _parse(text, web.max_message_bytes)
            if isinstance(message, str):
                connection.send(_error("malformed", message))
                continue
            await _handle(hub, connection, message)
            if connection.dropped:
                break
    finally:
        connection.close()
        await hub.disconnect(connection)
        with contextlib.suppress(BaseException):
            await writer


def _parse(text: str, limit: int) -> dict[str, Any] | str:
    """The message as a dict, or why it cannot be read."""
    if len(text.encode("utf-8", "surrogatepass")) > limit:
        return f"message too large (the limit is {limit} bytes)"
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "not JSON"
    except ValueError:  # an integer of more digits than Python converts (4,300)
        return "a number in the message is too long"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return 'a message is a JSON object with a "type"'
    return message


async def _handle(hub: Hub, connection: Connection, message: dict[str, Any]) -> None:
    """One socket message, parsed into its command and done; a refusal goes
    to this connection alone."""
    try:
        await hub.do(connection, SocketCommand.parse(message))
    except RoomError as error:
        connection.send(_error(error.code, str(error)))
    except RoomNotFound as error:  # pragma: no cover - a room is never removed while open
        connection.send(_error("not_found", str(error)))


async def _write(socket: WebSocket, connection: Connection) -> None:
    """Drain the connection's queue into its socket until told to stop."""
    while True:
        text = await connection.queue.get()
        if text is None:
            break
        try:
            await socket.send_text(text)
        except Exception:
            break
    code, reason = connection.closing or GOING
    with contextlib.suppress(Exception):
        await socket.close(code=code, reason=reason)
