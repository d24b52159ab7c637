"""A seat's hint in a room that gives them, within its share of the pool.

A hint is a search (an LDoP hint can think for a minute), so what one client
may ask is bounded three ways before any is started, each refused with 429
``too_many_hints``:

- **At once:** :data:`SEAT_HINTS_AT_ONCE` a seat token, :data:`ADDRESS_HINTS_AT_ONCE` from one
  client address, :data:`HINTS_AT_ONCE` in the whole process (queued or
  thinking). A hint is thought in the pool within ``HubConfig.hint_seconds``
  (then it answers 503 ``thinking_too_long``).
- **A minute:** ``WebConfig.hints_per_minute`` a seat token, and four times
  that from one address (token buckets: that many at once, then one every
  ``60 / n`` seconds).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request

from apothecary.server.room import TooMany, hash_token
from apothecary.server.routes.deps import Buckets, Code, ReplaysDep, Token

router = APIRouter()

SEAT_HINTS_AT_ONCE = 1
"""Hints one seat token may have queued or thinking at once ..."""

ADDRESS_HINTS_AT_ONCE = 4
"""... one client address ..."""

HINTS_AT_ONCE = 16
"""... and this process, from everyone."""


class TooManyHints(TooMany):
    """A seat or an address that asks for more hints than its share."""

    code = "too_many_hints"


@dataclass
class HintShares:
    """Hints in flight and hints asked for a minute, per seat token and per address."""

    per_minute: int
    asking: collections.Counter[str] = field(default_factory=collections.Counter)
    seats: Buckets = field(init=False)
    addresses: Buckets = field(init=False)

    def __post_init__(self) -> None:
        self.seats = Buckets(self.per_minute / 60, self.per_minute)
        self.addresses = Buckets(4 * self.per_minute / 60, 4 * self.per_minute)

    @contextlib.contextmanager
    def admitted(self, seat: str, address: str) -> Iterator[None]:
        """Hold a place for one hint of ``seat`` from ``address`` while it runs;
        TooManyHints if either has used its share (nothing is spent then)."""
        seat_key, address_key = f"seat:{seat}", f"address:{address}"
        if self.asking[seat_key] >= SEAT_HINTS_AT_ONCE:
            raise TooManyHints("your seat's last hint is still thinking; wait for it")
        if self.asking[address_key] >= ADDRESS_HINTS_AT_ONCE:
            raise TooManyHints(f"your address has {ADDRESS_HINTS_AT_ONCE} hints thinking; wait")
        if self.asking["all"] >= HINTS_AT_ONCE:
            raise TooManyHints("the server is thinking of many hints; try again soon")
        if not self.addresses.take(address) or not self.seats.take(seat):
            raise TooManyHints("too many hints asked for; wait a minute")
        keys = (seat_key, address_key, "all")
        self.asking.update(keys)
        try:
            yield
        finally:
            self.asking.subtract(keys)
            for key in keys:
                if self.asking[key] <= 0:
                    del self.asking[key]


def _shares(request: Request) -> HintShares:
    shares: HintShares = request.app.state.limits.setdefault(
        "hints", HintShares(int(request.app.state.web.hints_per_minute))
    )
    return shares


@router.post(
    "/api/rooms/{code}/hint",
    summary="Your seat's hint: the strongest bot's suggestion on your turn (rooms with hints)",
)
async def hint(replays: ReplaysDep, code: Code, token: Token, request: Request) -> dict[str, Any]:
    """The strongest bot's suggestion for your seat (429 ``too_many_hints`` past
    your share; 503 ``thinking_too_long`` if it thought past the limit)."""
    seat = "" if token is None else hash_token(token)
    address = request.client.host if request.client else "?"
    with _shares(request).admitted(seat, address):
        return await replays.hint(code, token)
