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
from collections.abc import Callable

import structlog
from aiohttp import hdrs, web

from service.api.problems import ProblemError, problem_response

log = structlog.get_logger("firefight.api")

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
        # Told of each request shed (its metric).
        self.on_shed: Callable[[], object] = lambda: None

    def shed(self) -> None:
        self.on_shed()
        self._shed += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_SECONDS:
            log.warning("requests_shed", limit=self.limit, shed=self._shed)
            self._logged_at, self._shed = now, 0

    def full(self) -> bool:
        return bool(self.limit) and self.count >= self.limit


def counts(request: web.Request) -> bool:
    """Whether a request counts against the cap: not a health check, nor a WebSocket."""
    if request.path in HEALTH_PATHS:
        return False
    return request.headers.get(hdrs.UPGRADE, "").lower() != "websocket"


def overloaded(in_flight: InFlight, request_id: str, retry_after: dict[str, str]) -> web.Response:
    """The answer of a request past the cap (counted as shed), with `retry_after`'s headers.
    The middleware (`service/api/middlewares.py`) asks before the problem mapping (this is
    already a problem) and after the request id and CORS, so a refusal is logged and a browser
    can read its Retry-After."""
    in_flight.shed()
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
