"""`GET /metrics`: what the service is doing, in the Prometheus text format (prometheus_client),
for a scraper with the metrics token or on a loopback or allowed address.

Every series is named `firefight_...` and documented in docs/operations.md, "Metrics". Labels
come from bounded sets the code names (a route's template, never its path; a method, a status,
a store operation, a reason): no encounter id, actor name, token or any other string a client
sent ever becomes a label.

Each app has a registry of its own (tests build many apps in one process). Under `--workers N`
the supervisor switches prometheus_client to its multiprocess mode before it forks
(`share_between_workers`): each worker writes its values to files of its own in a directory
made for this run of the service, and whichever worker a scrape reaches answers for them all.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import shutil
import tempfile
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from aiohttp import web
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)

from service.config import Config, IPNetwork
from service.engine import Encounters, Forbidden, Unauthorized

# What generate_latest writes (the text format 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# The environment variable prometheus_client reads its multiprocess directory from.
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"

# A request's duration, in seconds: from a cached read (~0.2 ms) to a preview's work bound (~2 s)
# and a stalled body's timeout (10 s).
REQUEST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10)
# A round trip to the store: a commit to a local Redis takes ~0.1 ms; its timeout is 2 s.
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2)
# The route label of a request that matched no route (404, 405): its path is never a label.
UNMATCHED = "unmatched"
# The methods a label may name; any other (a client may send any token) is "other".
METHODS = {m: m for m in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")}
OTHER = "other"
# Why a preview was refused: the token's or the encounter's previews in flight, or more samples
# than its work bound.
PREVIEW_REFUSALS = ("token_busy", "encounter_busy", "too_large")
# Why a request was shed: the cap on requests in flight (503 overloaded), or the cap on
# connections (503 before anything is read).
SHED_REASONS = ("in_flight", "connections")


def counted_and_timed(counter: Counter, histogram: Histogram) -> Callable[[float], None]:
    """`counter.inc()` and `histogram.observe(seconds)` of two bound label children, as one call
    that adds to their values directly: without the two metric methods' checks (the children
    are bound, the amount is 1 and the time a clock's difference) and the walk along the
    buckets (the bucket found by bisection: the first whose bound is at least the time, as
    `observe` finds it). The metrics were 2.8% of a request's instructions, this takes 1% off
    them (docs/performance.md, "Issue 28"). Reads prometheus_client's `_value`, `_sum`,
    `_buckets` and `_upper_bounds` (those of the locked version: tests/test_metrics.py checks
    the exposition against the library's own methods); the values are its, so the
    multiprocess mode is unchanged."""
    count = counter._value.inc
    total = histogram._sum.inc
    buckets = [bucket.inc for bucket in histogram._buckets]
    bounds = histogram._upper_bounds

    def observed(seconds: float) -> None:
        count(1)
        total(seconds)
        buckets[bisect_left(bounds, seconds)](1)

    return observed


class Metrics:
    """The app's series and the hooks that count into them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.requests = Counter(
            "firefight_requests",
            "Requests answered, by route template, method and status.",
            ("route", "method", "status"),
            registry=registry,
        )
        self.request_seconds = Histogram(
            "firefight_request_duration_seconds",
            "Time from a request's arrival to its answer, by route template and method.",
            ("route", "method"),
            buckets=REQUEST_BUCKETS,
            registry=registry,
        )
        self.store_round_trips = Counter(
            "firefight_store_round_trips",
            "Round trips to Redis, by store operation.",
            ("op",),
            registry=registry,
        )
        self.store_round_trip_seconds = Histogram(
            "firefight_store_round_trip_seconds",
            "Time of a round trip to Redis, by store operation (read_new waits for events).",
            ("op",),
            buckets=STORE_BUCKETS,
            registry=registry,
        )
        self.state_conflicts = Counter(
            "firefight_state_conflicts",
            "Compare-and-set writes of an encounter's state lost to another writer.",
            registry=registry,
        )
        self.state_retries = Counter(
            "firefight_state_retries",
            "Changes resolved again on the state another writer left.",
            registry=registry,
        )
        self.websockets_open = Gauge(
            "firefight_websockets_open",
            "WebSockets open.",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.events_fanned_out = Counter(
            "firefight_events_fanned_out",
            "Live events handed to the sockets watching their encounter (one per event and "
            "socket).",
            registry=registry,
        )
        self.previews_running = Gauge(
            "firefight_previews_running",
            "Odds previews being computed.",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.previews_refused = Counter(
            "firefight_previews_refused",
            "Odds previews refused, by reason.",
            ("reason",),
            registry=registry,
        )
        self.requests_shed = Counter(
            "firefight_requests_shed",
            "Requests answered 503 at once for want of room, by reason.",
            ("reason",),
            registry=registry,
        )
        # What one answered request (or round trip) does to its two series, bound on first use
        # (a dict lookup per request from then on): by route (aiohttp's route object, one per
        # route) then status; for unmatched requests by method then status; by operation.
        self._served: dict[Any, dict[int, Callable[[float], None]]] = {}
        self._unmatched: dict[str, dict[int, Callable[[float], None]]] = {}
        self._round_trips: dict[str, Callable[[float], None]] = {}
        self.shed = {reason: self.requests_shed.labels(reason) for reason in SHED_REASONS}
        self.refused = {reason: self.previews_refused.labels(reason) for reason in PREVIEW_REFUSALS}

    def served(self, request: web.Request, status: int, seconds: float) -> None:
        """One request answered (the middleware's hook)."""
        route = request.match_info.route
        if route.resource is None:
            method = METHODS.get(request.method, OTHER)
            by_status = self._unmatched.get(method)
            if by_status is None:
                by_status = self._unmatched[method] = {}
            key: Any = method
        else:
            by_status = self._served.get(route)
            if by_status is None:
                by_status = self._served[route] = {}
            key = route
        observed = by_status.get(status)
        if observed is None:
            observed = by_status[status] = self._bind(key, status)
        observed(seconds)

    def _bind(self, route: Any, status: int) -> Callable[[float], None]:
        if isinstance(route, str):
            template, method = UNMATCHED, route
        else:
            template = route.resource.canonical
            method = METHODS.get(route.method, OTHER)
        return counted_and_timed(
            self.requests.labels(template, method, str(status)),
            self.request_seconds.labels(template, method),
        )

    def round_trip(self, op: str, seconds: float) -> None:
        """One round trip to the store (the Redis store's hook); `op` is its operation."""
        observed = self._round_trips.get(op)
        if observed is None:
            observed = self._round_trips[op] = counted_and_timed(
                self.store_round_trips.labels(op), self.store_round_trip_seconds.labels(op)
            )
        observed(seconds)

    def hear(self, encounters: Encounters, hub: Any, store: Any) -> None:
        """Hooks the engine, the event hub and the store (built with the store, after the app)."""
        encounters.on_conflict = self.state_conflicts.inc
        encounters.on_retry = self.state_retries.inc
        encounters.previews.on_running = self.previews_running.inc
        encounters.previews.on_refused = self._refused
        hub.on_fanned_out = self.events_fanned_out.inc
        if hasattr(store, "on_round_trip"):
            store.on_round_trip = self.round_trip

    def _refused(self, reason: str) -> None:
        self.refused[reason].inc()

    def text(self) -> bytes:
        """The exposition: this process's registry, or every worker's in multiprocess mode."""
        directory = os.environ.get(MULTIPROCESS_DIR)
        if directory is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
        return generate_latest(registry)


# --- access ----------------------------------------------------------------------------------


class Access:
    """Who may read /metrics: a Bearer of the metrics token, or a client on loopback or in the
    allow-list. The client's address is the peer's; behind a trusted proxy, the last hop of the
    X-Forwarded-For it sent (the address the proxy saw: the hops before it are the client's
    word). A request that says it was forwarded but not by a trusted proxy is not let in by
    address at all: a proxy on this machine nobody declared would make every client loopback."""

    def __init__(self, config: Config) -> None:
        self._token_hash = None if config.metrics_token is None else _digest(config.metrics_token)
        self._allow = config.metrics_allow
        self._proxies = config.trusted_proxies

    def check(self, request: web.Request) -> None:
        """Returns when the request may read the metrics; else Unauthorized (401, a token would
        do) or Forbidden (403: no token is configured and the address is not allowed)."""
        header = request.headers.get("Authorization")
        if header is not None:
            scheme, _, token = header.partition(" ")
            # Compared as digests: constant time, whatever the length sent.
            if (
                scheme.lower() == "bearer"
                and self._token_hash is not None
                and hmac.compare_digest(_digest(token.strip()), self._token_hash)
            ):
                return
        if self._address_allowed(request):
            return
        if self._token_hash is not None:
            raise Unauthorized(
                "the metrics are for the metrics token (FIREFIGHT_METRICS_TOKEN) as a Bearer "
                "token, or a loopback or allowed address"
            )
        raise Forbidden(
            "the metrics are for a loopback address or one of FIREFIGHT_METRICS_ALLOW (no "
            "metrics token is configured)"
        )

    def _address_allowed(self, request: web.Request) -> bool:
        address = _ip(request.remote)
        if address is None:
            return False
        forwarded = request.headers.getall("X-Forwarded-For", [])
        if _within(address, self._proxies):
            hops = ",".join(forwarded).split(",")
            # What the proxy saw; without it, the proxy asks for no one: no address is allowed.
            address = _ip(hops[-1].strip())
            if address is None:
                return False
        elif forwarded or "Forwarded" in request.headers or "X-Real-IP" in request.headers:
            return False
        return address.is_loopback or _within(address, self._allow)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _ip(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text or "")
    except ValueError:
        return None
    # An IPv4 client on a dual-stack socket is seen as ::ffff:a.b.c.d.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _within(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, networks: tuple[IPNetwork, ...]
) -> bool:
    return any(address in network for network in networks)


# --- workers ---------------------------------------------------------------------------------


def share_between_workers() -> str:
    """Multiprocess mode for the worker processes about to be forked: values go to files in a
    directory made for this run of the service (stale files of an earlier run would add to
    this one's), which any worker's scrape reads. prometheus_client chooses its value class
    from the environment when it is imported (`values.get_value_class`); the supervisor has
    imported it already, so the choice is made again here, before any metric exists. Returns
    the directory, which the supervisor removes once every worker has stopped (a worker that
    stops takes the service down: no live gauge outlives its worker)."""
    directory = tempfile.mkdtemp(prefix="firefight-metrics-")
    os.environ[MULTIPROCESS_DIR] = directory
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    return directory


def remove_shared(directory: str) -> None:
    shutil.rmtree(directory, ignore_errors=True)


# --- the route -------------------------------------------------------------------------------


def add_routes(app: web.Application, config: Config, metrics: Metrics) -> None:
    """`GET /metrics`: `metrics`, for those `config` lets in."""
    access = Access(config)

    async def metrics_page(request: web.Request) -> web.Response:
        access.check(request)
        return web.Response(body=metrics.text(), headers={"Content-Type": CONTENT_TYPE})

    app.router.add_get("/metrics", metrics_page)
