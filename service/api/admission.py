"""The cap on requests one process works on at once: past it a request is answered 503 with
Retry-After before any work is done for it, so an overloaded replica sheds load early.

One event loop shares its core among every request it holds: with twice the requests in flight
each takes twice as long. Without a cap, load beyond what the process can serve piles up until
every request, old and new, waits longer than its client will (and on a shared encounter the
compare-and-set retries make the pile grow faster). With it, the requests admitted keep a bounded
latency, and the rest learn at once to retry (or to go to another replica). WebSockets (which
live for hours) and the health checks (which must answer while the replica is busy) are not
counted.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import hdrs, web

from service.api.problems import ProblemError, problem_response

log = structlog.get_logger("firefight.api")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The paths a load balancer or an orchestrator probes.
HEALTH_PATHS = frozenset({"/healthz", "/readyz"})
# How often a shedding replica logs it at most (with the count since the last line), as the
# connection cap does: an overload must not also flood the logs.
LOG_EVERY_SECONDS = 10.0


class InFlight:
    """Counts the requests being worked on; `limit` 0 counts but never refuses."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self._shed = 0
        self._logged_at = float("-inf")

    def shed(self) -> None:
        self._shed += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_SECONDS:
            log.warning("requests_shed", limit=self.limit, shed=self._shed)
            self._logged_at, self._shed = now, 0


def _counted(request: web.Request) -> bool:
    if request.path in HEALTH_PATHS:
        return False
    return request.headers.get(hdrs.UPGRADE, "").lower() != "websocket"


def admission(
    in_flight: InFlight, retry_after_seconds: int
) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware: it sits outside the problem mapping (its answer is already a problem)
    and inside the request line and CORS, so a refusal is logged and a browser can read its
    Retry-After."""
    retry_after = {"Retry-After": str(retry_after_seconds)}

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not _counted(request):
            return await handler(request)
        if in_flight.limit and in_flight.count >= in_flight.limit:
            in_flight.shed()
            request_id = structlog.contextvars.get_contextvars().get("request_id")
            return problem_response(
                ProblemError(
                    503,
                    "overloaded",
                    "Overloaded, retry",
                    f"this replica is working on as many requests as it may "
                    f"({in_flight.limit}); retry in a moment",
                    headers=retry_after,
                ),
                request_id,
            )
        in_flight.count += 1
        try:
            return await handler(request)
        finally:
            in_flight.count -= 1

    return middleware
