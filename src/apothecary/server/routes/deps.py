"""What the routes share: path parameters, the bearer token, one rate limit,
and the app's hub and replays (from ``app.state``, set by ``create_app``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, Path, Request
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from apothecary.server.room import TooMany

if TYPE_CHECKING:  # the app imports the routes: only the types are needed here
    from apothecary.server.hub import Hub
    from apothecary.server.replays import Replays

STATIC = FilePath(__file__).parent.parent / "static"
"""The browser client's files."""

CODE = r"^[A-Za-z0-9_-]{1,32}$"
"""What a room code is."""

Code = Annotated[str, Path(pattern=CODE, description="A room code.")]
"""A room code in a route's path."""

GameNo = Annotated[int, Path(ge=1, le=10**6, description="The game's number in its room.")]
"""A game's number in a route's path."""

_bearer = HTTPBearer(
    auto_error=False,
    description="The host token from room creation (host commands), or the seat token "
    "from claiming a seat (hints).",
)


async def _token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    return None if credentials is None else credentials.credentials


Token = Annotated[str | None, Depends(_token)]
"""The request's bearer token, if it sent one (the room decides what it may do)."""


async def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def _replays(request: Request) -> Replays:
    found: Replays = request.app.state.replays
    return found


HubDep = Annotated["Hub", Depends(_hub)]
"""The app's hub."""

ReplaysDep = Annotated["Replays", Depends(_replays)]
"""The app's replays and analyses."""


def origin_allowed(
    headers: Mapping[str, str], allowed: tuple[str, ...], public: str | None
) -> bool:
    """Whether a browser request (a socket, or a state-changing HTTP request) comes
    from this server's own pages or an allowed origin, so another site cannot act
    in its visitors' names; programs that send no Origin are let in. With a public
    origin configured, that is the server's own: the request's Host is not trusted
    to say so (DNS rebinding makes a hostile page's Origin and Host agree)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    if public is not None:
        return origin.lower() == public
    host = headers.get("host", "")
    return urlsplit(origin).netloc == host


async def index_page() -> FileResponse:
    """The browser client's one page: it reads the path itself."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.last = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Buckets:
    """One token bucket per key (a seat token's hash, a client address), each
    ``rate`` a second and ``burst`` at once; keys quiet for a minute are
    forgotten once there are many (a forgotten key's bucket is full anyway)."""

    def __init__(self, rate: float, burst: int, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.buckets: dict[str, Bucket] = {}

    def take(self, key: str) -> bool:
        """Spend one of ``key``'s tokens if it has one."""
        if len(self.buckets) > 10_000:
            quiet = self.clock() - 60.0
            for old in [k for k, b in self.buckets.items() if b.last < quiet]:
                del self.buckets[old]
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(self.rate, self.burst, self.clock)
        return bucket.take()


class PerAddress:
    """A route's limit of ``per_minute(request)`` requests a minute from one
    client address (a token bucket, that many at once), as a dependency.
    The buckets live in the app's state, so two apps do not share them."""

    def __init__(self, name: str, per_minute: Callable[[Request], int], refusal: str) -> None:
        self.name, self.per_minute, self.refusal = name, per_minute, refusal

    async def __call__(self, request: Request) -> None:
        """TooMany when the address has used its share."""
        # Async, as every dependency here: FastAPI runs a plain def in a thread.
        limit = self.per_minute(request)
        buckets: Buckets = request.app.state.limits.setdefault(
            self.name, Buckets(limit / 60, limit)
        )
        client = request.client.host if request.client else "?"
        if not buckets.take(client):
            raise TooMany(self.refusal)
