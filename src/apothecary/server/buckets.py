"""Token buckets: the rate limits of requests, messages and sign-in attempts.

Plain data structures with no web framework in them, so that both the routes
(:mod:`apothecary.server.routes.deps`) and the accounts
(:mod:`apothecary.server.accounts`) use the same ones.
"""

from __future__ import annotations

import time
from typing import Any


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
