"""The cap on connections one process holds, in front of aiohttp's protocol factory.

Without it, thousands of clients each holding a half-sent request keep their connections (and
file descriptors) as long as they like. Beyond the cap a new connection is answered 503 with
`Retry-After` and closed at once, before anything of it is read; except for a small reserve
taken in above the cap that answers health checks only, so that a replica whose connections are
full (of WebSockets, say) is not also taken out of its load balancer's rotation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import cast

import structlog
from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = structlog.get_logger("firefight.api")

# How often a refusal is logged at most (with the count since the last line): an overload must
# not also flood the logs.
LOG_EVERY_SECONDS = 10.0

# How many connections above the cap are taken in for health checks, and how long each may
# hold its place: a check sends its request at once, and `/readyz` answers within the store's
# 2 s timeouts (503 when Redis is gone); a client that holds a place asking nothing is cut.
HEALTH_RESERVE = 8
HEALTH_RESERVE_SECONDS = 5.0

TOO_MANY_CONNECTIONS = (
    b'{"type":"https://firefight.invalid/problems/too-many-connections",'
    b'"title":"Too many connections","status":503,'
    b'"detail":"this replica holds as many connections as it may; retry in a moment"}'
)
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
    b"Content-Type: application/problem+json\r\nContent-Length: "
    + str(len(TOO_MANY_CONNECTIONS)).encode()
    + b"\r\n\r\n"
    + TOO_MANY_CONNECTIONS
)


class _Refused(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream's transport: uvloop's are no subclasses of asyncio's, so no isinstance here.
        stream = cast(asyncio.WriteTransport, transport)
        stream.write(REFUSAL)
        stream.close()


class ConnectionCap:
    """A protocol factory for `loop.create_server`: aiohttp's own (`AppRunner.server`) while the
    process holds fewer than `limit` connections; else, while the `health` server (answering
    health checks only) holds fewer than `reserve`, that one's; else a refusal.

    The count is aiohttp's (`Server.connections`), which takes in a connection once asyncio has
    made it (`connection_made`, a callback after this factory's call), plus the protocols this
    factory handed out since the last such callbacks could run: asyncio accepts a burst of
    connections at once and calls the factory for each before any of them is made, so counting
    aiohttp's alone let a burst pass the cap and the reserve (a refusal answered as a health
    check, holding its place until cut)."""

    def __init__(
        self,
        server: web.Server,
        limit: int,
        health: web.Server | None = None,
        reserve: int = HEALTH_RESERVE,
    ) -> None:
        self._server = server
        self._limit = limit
        self._health = health
        self._reserve = reserve
        self._refused = 0
        self._logged_at = float("-inf")
        # Protocols handed out, by server, that asyncio has not made yet (see the class).
        self._unmade: dict[int, int] = {}
        # Told of each connection refused (its metric).
        self.on_refused: Callable[[], object] = lambda: None

    def _held(self, server: web.Server) -> int:
        return len(server.connections) + self._unmade.get(id(server), 0)

    def _hand_out(self, server: web.Server) -> RequestHandler:
        if not self._unmade:
            # Runs after the factory calls of this burst and before the `connection_made`
            # they scheduled (both by call_soon, in that order): from then on aiohttp counts
            # them.
            asyncio.get_running_loop().call_soon(self._unmade.clear)
        self._unmade[id(server)] = self._unmade.get(id(server), 0) + 1
        return server()

    def __call__(self) -> asyncio.BaseProtocol:
        if self._held(self._server) < self._limit:
            return self._hand_out(self._server)
        health = self._health
        if health is not None and self._held(health) < self._reserve:
            protocol = self._hand_out(health)
            asyncio.get_running_loop().call_later(HEALTH_RESERVE_SECONDS, _cut, protocol)
            return protocol
        self._refused += 1
        self.on_refused()
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_SECONDS:
            log.warning("connections_refused", limit=self._limit, refused=self._refused)
            self._logged_at, self._refused = now, 0
        return _Refused()


def _cut(protocol: RequestHandler) -> None:
    """A reserve connection still open at its deadline (answered, it is closed already)."""
    if protocol.transport is not None:
        protocol.transport.abort()
