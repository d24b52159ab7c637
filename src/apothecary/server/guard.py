"""What every connection and request passes before the app sees it.

Two layers, both cheap and both ahead of any parsing the app does:

* :class:`Guard`, an ASGI middleware: refuses a request body over its limit
  while it streams in (the ``Content-Length`` first, then a running count, so
  a body that lies or is chunked is cut off at the limit and never held
  whole), refuses a ``Host`` that is not this server's public name when one is
  configured (DNS rebinding), and adds the security headers to every HTTP
  response.
* :func:`guarded_protocol`, a subclass of uvicorn's HTTP protocol: closes a
  connection that has not sent a whole request (headers and body) within a
  time limit (slowloris), and refuses connections past a number per client
  address. uvicorn offers neither (its keep-alive timeout starts only after a
  response, ``--limit-concurrency`` is one limit for everyone), so the
  protocol does it at the socket, before a request exists.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from apothecary.core.errors import BadOptionError

__all__ = [
    "CSP",
    "DOCS_CSP",
    "SECURITY_HEADERS",
    "Guard",
    "GuardConfig",
    "guarded_protocol",
    "public_origin",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The browser client's Content-Security-Policy: its own files only (no inline
script or style, no eval; scripts set styles through CSSOM, element.style),
and no page may frame it (clickjacking)."""

DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
"""The API explorer's (``/docs``, ``/redoc``): FastAPI's pages load their
scripts from a CDN and start them inline."""

DOCS_PATHS = ("/docs", "/redoc")
"""Where the API explorer lives."""

SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""Headers every HTTP response carries besides the CSP. No referrer: the
room's invite link (its path) must not leak to another site."""


@dataclass(frozen=True)
class GuardConfig:
    """What :class:`Guard` enforces."""

    max_body_bytes: int = 65_536
    """The largest request body any route takes ..."""
    large_bodies: tuple[tuple[str, int], ...] = ()
    """... except these (path, limit) pairs, e.g. record uploads."""
    trusted_hosts: tuple[str, ...] = ()
    """``Host`` values accepted besides IP literals and ``localhost``; empty: any."""


def public_origin(url: str) -> str:
    """The origin (``scheme://host[:port]``) of ``--public-url``, or
    BadOptionError when it is not an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadOptionError(
            f"--public-url {url!r}: the address people open, e.g. https://games.example.org"
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _host_ok(host: str, trusted: tuple[str, ...]) -> bool:
    """A Host names this server: a trusted name, or an address (a DNS
    rebinding attack always sends its own domain name, never an address)."""
    if not trusted or host.lower() in trusted:
        return True
    name = urlsplit(f"//{host}").hostname or ""
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _refusal(code: str, message: str) -> bytes:
    return json.dumps({"error": code, "message": message}).encode()


class Guard:
    """The ASGI middleware (see the module's docstring)."""

    def __init__(self, app: ASGIApp, config: GuardConfig) -> None:
        self.app, self.config = app, config

    def limit_for(self, path: str) -> int:
        """The largest body a request to ``path`` may send."""
        for prefix, limit in self.config.large_bodies:
            if path == prefix:
                return limit
        return self.config.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One connection's request (HTTP) or socket (WebSocket)."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        host = headers.get(b"host", b"").decode("latin-1")
        if not _host_ok(host, self.config.trusted_hosts):
            message = f"this server answers to {', '.join(self.config.trusted_hosts)}"
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": "host not allowed"})
            else:
                await _answer(send, 421, _refusal("bad_host", message))
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)  # uvicorn's ws_max_size bounds each message
            return
        await self._http(scope, receive, send, headers)

    async def _http(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, bytes]
    ) -> None:
        limit = self.limit_for(scope.get("path", ""))
        too_large = _refusal("too_large", f"the request body is over {limit} bytes")
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            # Refused before a byte of it is read.
            await _answer(_secured(send, scope), 413, too_large)
            return
        seen = 0
        started = refused = False
        secured = _secured(send, scope)

        async def counted() -> Message:
            # The refusal is sent from here, the moment the count passes the
            # limit: the app (FastAPI turns any error while reading a body into
            # a 400) then sees the client gone, and whatever it answers is dropped.
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = True
                    if not started:
                        await _answer(secured, 413, too_large)
                    return {"type": "http.disconnect"}
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if refused:
                return
            if message["type"] == "http.response.start":
                started = True
            await secured(message)

        await self.app(scope, counted, tracked)


def _secured(send: Send, scope: Scope) -> Send:
    """``send`` with the security headers added to the response's start."""
    path = scope.get("path", "")
    csp = DOCS_CSP if path in DOCS_PATHS or path.startswith("/docs/") else CSP

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            have = {name.lower() for name, _ in message.get("headers", ())}
            extra = [(n, v) for n, v in SECURITY_HEADERS if n not in have]
            if b"content-security-policy" not in have:
                extra.append((b"content-security-policy", csp.encode()))
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return wrapped


async def _answer(send: Send, status: int, body: bytes) -> None:
    """A whole JSON response; the connection closes after it (the rest of an
    unread body is not worth reading)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# -- the socket layer ---------------------------------------------------------


def guarded_protocol(base: type[Any], request_timeout: float, per_address: int) -> type[Any]:
    """uvicorn's HTTP protocol class ``base`` (h11's or httptools') closing a
    connection whose request is not all in ``request_timeout`` seconds after
    it opened or after its last response, and refusing a client address's
    connections past ``per_address`` open at once (each closed on arrival).

    It reads two things of uvicorn's protocols that are not documented API
    (``cycle``, ``cycle.more_body``), both the same in h11's and httptools';
    tests/server/test_guard.py runs real slow and many connections, so a
    uvicorn that changes them fails there rather than silently."""
    open_by_address: dict[str, set[asyncio.BaseTransport]] = {}

    class Guarded(base):  # type: ignore[misc]
        """The protocol, with the two limits."""

        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
            mine = open_by_address.setdefault(address, set())
            for closed in [t for t in mine if t.is_closing()]:
                mine.discard(closed)
            if len(mine) >= per_address:
                transport.close()  # past its share: nothing read, nothing sent
                return
            mine.add(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()  # a kept-alive connection gets the time again for its next request

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(request_timeout, self._check)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _check(self) -> None:
            self._deadline = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket (which has its own limits)
            cycle = self.cycle
            waiting = cycle is None or cycle.response_complete or cycle.more_body
            if waiting:
                transport.close()
            else:  # the whole request is in; the app is answering: look again later
                self._arm()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded
