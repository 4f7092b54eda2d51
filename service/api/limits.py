"""Limits each replica keeps for itself: a rate limit on state changes (a token bucket per
encounter), what a WebSocket client may send, and the open WebSockets counted against their caps.

A table changes state a few times a second at most; a script hammering one encounter gets 429s
instead of starving the others. Each replica keeps its own buckets and counts, so N replicas
allow N times the rate and the sockets: they guard against abuse, they are not an accounting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

# Buckets idle long enough to be full again are forgotten when there are more than this many.
MAX_BUCKETS = 10_000


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(
        self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = per_second
        self._burst = burst
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def retry_after(self, key: str) -> float | None:
        """None when `key` may go ahead now (one token taken); else seconds until it may."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._forget_full(now)
            bucket = self._buckets[key] = _Bucket(self._burst, now)
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.updated) * self._rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        return (1 - bucket.tokens) / self._rate

    def _forget_full(self, now: float) -> None:
        refill = self._burst / self._rate
        self._buckets = {
            key: bucket for key, bucket in self._buckets.items() if now - bucket.updated < refill
        }


# What a WebSocket client may send. The protocol gives it nothing to say: events flow one way, and
# a client resumes with `?after=` on a new socket. It may ping (some clients keep the connection
# alive so), answer the service's heartbeat and close: control frames, of 125 bytes at most
# (RFC 6455, 5.5). aiohttp refuses a larger message from its header, before reading it.
CLIENT_MESSAGE_BYTES = 125
# Frames a client may send per second, in bursts of CLIENT_FRAME_BURST: a keep-alive ping every
# few seconds, a pong to each heartbeat, a close, with room to spare.
CLIENT_FRAMES_PER_SECOND = 2
CLIENT_FRAME_BURST = 10


# An encounter and the hash of a token: whose sockets FIREFIGHT_MAX_SOCKETS_PER_TOKEN counts.
Holder = tuple[str, str]


@dataclass
class SocketCounts:
    """The WebSockets one process holds open: in all (FIREFIGHT_MAX_SOCKETS) and per holder
    (FIREFIGHT_MAX_SOCKETS_PER_TOKEN). Counted from the check to the end of the handler, with
    nothing awaited between the check and the count, so a burst of upgrades cannot pass a cap."""

    total: int = 0
    per_holder: dict[Holder, int] = field(default_factory=dict)

    def held(self, holder: Holder) -> int:
        return self.per_holder.get(holder, 0)

    def add(self, holder: Holder) -> None:
        self.total += 1
        self.per_holder[holder] = self.held(holder) + 1

    def remove(self, holder: Holder) -> None:
        self.total -= 1
        left = self.per_holder[holder] - 1
        if left:
            self.per_holder[holder] = left
        else:
            del self.per_holder[holder]
