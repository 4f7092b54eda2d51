"""Configuration from environment variables and command-line flags, with safe defaults.

With nothing set, the service listens on 127.0.0.1:8080 with the durable embedded store (one
SQLite file in ./firefight-data).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import secrets
import sys
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from service.event_loop import EVENT_LOOP_CHOICES, EventLoopChoice, uvloop_installed

LogFormat = Literal["json", "console"]
StoreKind = Literal["sqlite", "memory", "redis"]
STORE_KINDS: tuple[StoreKind, ...] = ("sqlite", "memory", "redis")
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


MIN_ADMIN_KEY_LENGTH = 16
# Where the durable embedded store keeps its file (and the admin key it made), relative to the
# working directory unless absolute.
DEFAULT_DATA_DIR = "firefight-data"
# How long an encounter untouched lives where a TTL applies and none was set (Redis, memory).
DEFAULT_ENCOUNTER_TTL_SECONDS = 7 * 24 * 3600
# See Config.max_in_flight.
DEFAULT_MAX_IN_FLIGHT = 32
MAX_WORKERS = 64
# Tenths of FIREFIGHT_MAX_CONNECTIONS that WebSockets may take unless FIREFIGHT_MAX_SOCKETS is set.
SOCKETS_SHARE_OF_CONNECTIONS = 9


class ConfigError(ValueError):
    pass


def _flag(name: str, value: str) -> bool:
    if value.lower() in ("", "0", "false", "no"):
        return False
    if value.lower() in ("1", "true", "yes"):
        return True
    raise ConfigError(f"{name} must be true or false, not '{value}'")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    # Where encounters are kept: "sqlite" (on disk in `data_dir`, the command line's default),
    # "memory" (gone with the process: tests and throwaway runs; a Config built in code keeps
    # this default) or "redis" (`redis_url`; a Redis URL wins over the other two).
    store: StoreKind = "memory"
    data_dir: str = DEFAULT_DATA_DIR
    # Set: the Redis store (replicas, workers, the cluster).
    redis_url: str | None = None
    # The URL names one node of a Redis Cluster; the client finds the others.
    redis_cluster: bool = False
    # Sent to Redis (AUTH) when the URL carries none, so it needs no URL-encoding. Never logged.
    redis_password: str | None = field(default=None, repr=False)
    # The Bearer token that creates encounters (and acts as GM on any of them). Never logged.
    admin_key: str = field(default="", repr=False)
    # True when no key was configured and one was made for this run (printed once at start).
    admin_key_generated: bool = False
    cors_origins: tuple[str, ...] = ()
    # Where clients reach this service (scheme, host, port, any path prefix), e.g.
    # https://vtt.example.org/firefight: the served Foundry manifest names it. Unset: the
    # request's Host, when it is a loopback host or one of `allowed_hosts`.
    public_url: str | None = None
    # Host names (or name:port) the served Foundry manifest may name when no public URL is set.
    allowed_hosts: tuple[str, ...] = ()
    log_format: LogFormat = "json"
    log_level: str = "info"
    max_body_bytes: int = 256 * 1024
    # How long an encounter untouched lives. None (not set): on SQLite until it ends, on Redis
    # and in memory DEFAULT_ENCOUNTER_TTL_SECONDS.
    encounter_ttl_seconds: int | None = None
    max_events_per_encounter: int = 10_000
    # The most an encounter's events take together: the oldest are trimmed first.
    max_event_stream_bytes: int = 64 * 1024 * 1024
    # Changes an undo may take back per encounter (0: none), and the bytes their undo records
    # may take together: the oldest dropped first, the newest always kept.
    undo_depth: int = 20
    undo_bytes: int = 8 * 1024 * 1024
    # The most one stored event may take: a larger one is stored without the attack's request
    # it echoes; one whose result alone is larger is refused (422), nothing written.
    max_event_bytes: int = 256 * 1024
    # The most one page of GET .../events carries (at least one event, whatever its size); the
    # client goes on with `after`.
    events_page_bytes: int = 1024 * 1024
    ws_heartbeat_seconds: float = 20.0
    # State changes per second per encounter on each replica (0: no limit); bursts of twice that.
    rate_limit_per_second: int = 20
    # Actors an encounter's combat state may hold.
    max_actors_per_encounter: int = 200
    # The most an encounter's stored state may take (what the rules need next; the history is
    # the event stream).
    max_state_bytes: int = 512 * 1024
    # Encounter documents each process keeps in memory, in bytes (a change then makes one round
    # trip to Redis); least recently used first out.
    state_cache_bytes: int = 64 * 1024 * 1024
    # Requests refused for want of a valid token, per second per client address (0: no limit);
    # bursts of five times that.
    refusals_per_second: int = 5
    # Proxies whose X-Forwarded-For names the client's address (the compose file's HAProxy):
    # addresses or networks.
    trusted_proxies: tuple[IPNetwork, ...] = ()
    # GET /metrics answers a Bearer of this token (None: none does), or a client on loopback or
    # in `metrics_allow` (behind a trusted proxy: the address it forwarded for); the admin key
    # does not open it. Never logged.
    metrics_token: str | None = field(default=None, repr=False)
    metrics_allow: tuple[IPNetwork, ...] = ()
    # How long the event reader waits on the store before it looks at new subscriptions.
    event_poll_seconds: float = 0.5
    # A WebSocket send that does not complete within this drops that client (it never reads).
    ws_send_timeout_seconds: float = 10.0
    # On shutdown, how long sockets get to close cleanly (1001) before they are cut.
    ws_close_timeout_seconds: float = 5.0
    # Event batches a socket may have waiting; beyond that it is closed 1013 and resumes.
    ws_queue_batches: int = 1000
    # WebSockets one token may hold open on one encounter, per process; more are refused 429
    # before the upgrade. Above a table's worth: the shared players' token may follow on every
    # player's phone, and a dropped socket still counts until the heartbeat finds it gone.
    max_sockets_per_token: int = 16
    # WebSockets one process holds at once; more are refused 503 before the upgrade. Below
    # max_connections (nine tenths of it unless set), so that a replica full of sockets keeps
    # connections for its API requests.
    max_sockets: int = 900
    # A request body not received within this is answered 408 (slow or stalled clients).
    body_timeout_seconds: float = 10.0
    # Connections one process holds at once; more are refused at once.
    max_connections: int = 1000
    # On SIGTERM, how long requests in flight may take to finish (above the body timeout, so a
    # stalled body ends as a 408, not cut short).
    shutdown_timeout_seconds: float = 15.0
    # Requests one process works on at once (0: no limit); more are answered 503 with
    # Retry-After at once, so that those admitted keep their latency under overload instead of
    # every request queueing until its client gives up. WebSockets and health checks are not
    # counted. The default: twice what the closed-loop benchmark keeps in flight, about 30 ms of
    # work for one process here (docs/operations.md, "Overload").
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    # The work one odds preview may do, in samples x size units (service/engine/previews.py):
    # `?samples=` past it is a 422 naming `samples`; without it, a large preview takes fewer
    # samples than the default and says so.
    preview_work: int = 5_000_000
    # Odds previews in flight at once per token, and per encounter, in one process; beyond,
    # 429 `too-many-previews` with Retry-After.
    previews_per_token: int = 2
    previews_per_encounter: int = 4
    # Worker processes sharing the port (SO_REUSEPORT), each with its own event loop; above 1
    # only with Redis, which the processes share.
    workers: int = 1
    # The event loop a serving process runs on (service/event_loop.py): auto is uvloop when it
    # is installed, else asyncio's own.
    event_loop: EventLoopChoice = "auto"


def _number(name: str, value: str, minimum: float, maximum: float, kind: type[float]) -> float:
    """`value` read as `kind` (int or float), within its bounds; ConfigError naming `name`."""
    try:
        number = kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number of seconds"
        raise ConfigError(f"{name} must be {what}, not '{value}'") from None
    if not minimum <= number <= maximum:
        low, high, given = (
            str(kind(x)) if kind is int else f"{x:g}" for x in (minimum, maximum, number)
        )
        raise ConfigError(f"{name} must be between {low} and {high}, not {given}")
    return number


def _int(name: str, value: str, minimum: float, maximum: float) -> int:
    return int(_number(name, value, minimum, maximum, int))


def _seconds(name: str, value: str, minimum: float, maximum: float) -> float:
    return _number(name, value, minimum, maximum, float)


# The numeric settings: Config field -> (parser, environment variable, lowest, highest).
_NUMBERS: dict[str, tuple[Callable[[str, str, Any, Any], Any], str, float, float]] = {
    "max_body_bytes": (_int, "FIREFIGHT_MAX_BODY_BYTES", 1024, 16 * 1024 * 1024),
    "rate_limit_per_second": (_int, "FIREFIGHT_RATE_LIMIT", 0, 100_000),
    "max_actors_per_encounter": (_int, "FIREFIGHT_MAX_ACTORS", 2, 100_000),
    "max_state_bytes": (_int, "FIREFIGHT_MAX_STATE_BYTES", 16 * 1024, 64 * 1024 * 1024),
    "state_cache_bytes": (_int, "FIREFIGHT_STATE_CACHE_BYTES", 0, 1024 * 1024 * 1024 * 1024),
    "refusals_per_second": (_int, "FIREFIGHT_REFUSALS_PER_SECOND", 0, 100_000),
    "max_events_per_encounter": (_int, "FIREFIGHT_MAX_EVENTS", 100, 1_000_000),
    "max_event_stream_bytes": (
        _int,
        "FIREFIGHT_MAX_EVENTS_BYTES",
        1024 * 1024,
        1024 * 1024 * 1024,
    ),
    "undo_depth": (_int, "FIREFIGHT_UNDO_DEPTH", 0, 1000),
    "undo_bytes": (_int, "FIREFIGHT_UNDO_BYTES", 64 * 1024, 1024 * 1024 * 1024),
    "max_event_bytes": (_int, "FIREFIGHT_MAX_EVENT_BYTES", 16 * 1024, 16 * 1024 * 1024),
    "events_page_bytes": (_int, "FIREFIGHT_EVENTS_PAGE_BYTES", 64 * 1024, 256 * 1024 * 1024),
    "ws_send_timeout_seconds": (_seconds, "FIREFIGHT_WS_SEND_TIMEOUT_SECONDS", 0.1, 3600),
    "ws_close_timeout_seconds": (_seconds, "FIREFIGHT_WS_CLOSE_TIMEOUT_SECONDS", 0.1, 3600),
    "ws_queue_batches": (_int, "FIREFIGHT_WS_QUEUE_BATCHES", 1, 1_000_000),
    "max_sockets_per_token": (_int, "FIREFIGHT_MAX_SOCKETS_PER_TOKEN", 1, 100_000),
    "body_timeout_seconds": (_seconds, "FIREFIGHT_BODY_TIMEOUT_SECONDS", 0.1, 3600),
    "max_connections": (_int, "FIREFIGHT_MAX_CONNECTIONS", 1, 1_000_000),
    "shutdown_timeout_seconds": (_seconds, "FIREFIGHT_SHUTDOWN_TIMEOUT_SECONDS", 0, 3600),
    "max_in_flight": (_int, "FIREFIGHT_MAX_IN_FLIGHT", 0, 1_000_000),
    "preview_work": (_int, "FIREFIGHT_PREVIEW_WORK", 100_000, 10_000_000_000),
    "previews_per_token": (_int, "FIREFIGHT_PREVIEWS_PER_TOKEN", 1, 1000),
    "previews_per_encounter": (_int, "FIREFIGHT_PREVIEWS_PER_ENCOUNTER", 1, 10_000),
}


# A host name or address as a Host header gives it, with an optional port: nothing that would
# change a URL's meaning (no path, user, query or space).
_HOST = re.compile(r"^(?:\[[0-9a-f:.]+\]|[a-z0-9.\-_]+)(?::[0-9]{1,5})?$")


def _public_url(value: str) -> str | None:
    if not value.strip():
        return None
    url = urllib.parse.urlsplit(value.strip())
    if url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment:
        raise ConfigError(
            "FIREFIGHT_PUBLIC_URL is where clients reach the service, e.g. "
            f"https://vtt.example.org or https://vtt.example.org/firefight; not '{value}'"
        )
    return value.strip().rstrip("/")


def _allowed_hosts(value: str) -> tuple[str, ...]:
    hosts = tuple(h.strip().lower() for h in value.split(",") if h.strip())
    for host in hosts:
        if not _HOST.match(host):
            raise ConfigError(
                f"FIREFIGHT_ALLOWED_HOSTS names hosts (vtt.example.org, or with a port "
                f"vtt.example.org:8443), comma-separated; '{host}' is not one"
            )
    return hosts


YEAR = 365 * 24 * 3600


def _store(chosen: str | None, redis_url: str | None) -> StoreKind:
    if chosen is None:
        return "redis" if redis_url else "sqlite"
    for kind in STORE_KINDS:
        if chosen.strip().lower() == kind:
            break
    else:
        raise ConfigError(f"FIREFIGHT_STORE must be sqlite, memory or redis, not '{chosen}'")
    if kind == "redis" and not redis_url:
        raise ConfigError("FIREFIGHT_STORE=redis needs FIREFIGHT_REDIS_URL (redis://host:port/db)")
    if kind != "redis" and redis_url:
        raise ConfigError(
            f"FIREFIGHT_STORE is {kind}, but FIREFIGHT_REDIS_URL is set: the store is Redis when "
            "a Redis URL is given (unset one of them)"
        )
    return kind


def _event_loop(value: str) -> EventLoopChoice:
    choice = value.strip().lower()
    for known in EVENT_LOOP_CHOICES:
        if choice == known:
            break
    else:
        raise ConfigError(f"FIREFIGHT_EVENT_LOOP must be auto, uvloop or asyncio, not '{value}'")
    asked: EventLoopChoice = known
    if asked == "uvloop" and not uvloop_installed():
        raise ConfigError(
            "FIREFIGHT_EVENT_LOOP is uvloop, which is not installed (`make run` installs it); "
            "use auto or asyncio"
        )
    return asked


def _data_dir(value: str) -> str:
    if not value.strip():
        raise ConfigError(f"FIREFIGHT_DATA_DIR names a directory (default ./{DEFAULT_DATA_DIR})")
    return value


def _networks(name: str, env: Mapping[str, str]) -> tuple[IPNetwork, ...]:
    """A comma-separated list of addresses or networks (CIDR)."""
    networks: list[IPNetwork] = []
    for network in env.get(name, "").split(","):
        if not network.strip():
            continue
        try:
            networks.append(ipaddress.ip_network(network.strip(), strict=False))
        except ValueError:
            raise ConfigError(
                f"{name} names addresses or networks; '{network}' is neither"
            ) from None
    return tuple(networks)


def _check_token(name: str, token: str) -> None:
    """A Bearer token someone types into a configuration: long, and one a header can carry."""
    if len(token) < MIN_ADMIN_KEY_LENGTH:
        raise ConfigError(f"{name} must be at least {MIN_ADMIN_KEY_LENGTH} characters long")
    # A Bearer token is sent trimmed and printable: one with spaces or control characters could
    # never be presented.
    if not (token.isascii() and token.isprintable()) or any(c.isspace() for c in token):
        raise ConfigError(f"{name} must be printable ASCII without spaces (a long random string)")


def load_config(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Config:
    """Flags win over environment variables, which win over the defaults."""
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="firefight", description="firefight: ranged-combat resolution for virtual tabletops"
    )
    parser.add_argument(
        "--host",
        default=env.get("FIREFIGHT_HOST", Config.host),
        help=f"address to listen on (default {Config.host}: this machine only); 0.0.0.0 lets "
        "the players on the local network open the console (needs FIREFIGHT_ADMIN_KEY); "
        "env FIREFIGHT_HOST",
    )
    parser.add_argument(
        "--port",
        default=env.get("FIREFIGHT_PORT", str(Config.port)),
        help=f"port to listen on (default {Config.port}); env FIREFIGHT_PORT",
    )
    parser.add_argument(
        "--redis-url",
        default=env.get("FIREFIGHT_REDIS_URL") or None,
        help="redis://host:port/db; unset for the embedded store",
    )
    parser.add_argument(
        "--store",
        default=env.get("FIREFIGHT_STORE") or None,
        help="sqlite (on disk, the default without a Redis URL), memory (gone at exit) or redis",
    )
    parser.add_argument(
        "--data-dir",
        default=env.get("FIREFIGHT_DATA_DIR", DEFAULT_DATA_DIR),
        help=f"where the sqlite store keeps its file and admin key (default ./{DEFAULT_DATA_DIR})",
    )
    parser.add_argument(
        "--redis-cluster",
        action="store_true",
        default=_flag("FIREFIGHT_REDIS_CLUSTER", env.get("FIREFIGHT_REDIS_CLUSTER", "")),
        help="the Redis URL is a node of a Redis Cluster",
    )
    parser.add_argument(
        "--redis-password",
        default=env.get("FIREFIGHT_REDIS_PASSWORD") or None,
        help="Redis password, when the URL has none (prefer FIREFIGHT_REDIS_PASSWORD)",
    )
    parser.add_argument(
        "--log-format",
        default=env.get("FIREFIGHT_LOG_FORMAT"),
        metavar="{json,console}",
        help="json (one JSON object a line, for log collectors) or console (for people); "
        "default: console on a terminal, json otherwise; env FIREFIGHT_LOG_FORMAT",
    )
    parser.add_argument("--log-level", default=env.get("FIREFIGHT_LOG_LEVEL", Config.log_level))
    parser.add_argument(
        "--workers",
        default=env.get("FIREFIGHT_WORKERS", str(Config.workers)),
        help="worker processes sharing the port (above 1 needs Redis)",
    )
    parser.add_argument(
        "--event-loop",
        default=env.get("FIREFIGHT_EVENT_LOOP", "auto"),
        metavar="{auto,uvloop,asyncio}",
        help="the event loop: uvloop (the default when installed) or asyncio's own; "
        "env FIREFIGHT_EVENT_LOOP",
    )
    args = parser.parse_args(argv)

    log_format = args.log_format or ("console" if sys.stderr.isatty() else "json")
    if log_format not in ("json", "console"):
        raise ConfigError(f"FIREFIGHT_LOG_FORMAT must be json or console, not '{log_format}'")
    origins = tuple(
        o.strip().rstrip("/") for o in env.get("FIREFIGHT_CORS_ORIGINS", "").split(",") if o.strip()
    )
    if "*" in origins:
        raise ConfigError("FIREFIGHT_CORS_ORIGINS names origins; '*' is not allowed")
    fmt: LogFormat = "console" if log_format == "console" else "json"
    admin_key = env.get("FIREFIGHT_ADMIN_KEY", "")
    generated = False
    if not admin_key:
        if not _is_loopback(args.host):
            raise ConfigError(
                f"FIREFIGHT_ADMIN_KEY is required when listening on {args.host}: "
                "set it to a long random string (only a localhost-only service makes its own)"
            )
        admin_key, generated = secrets.token_urlsafe(32), True
    _check_token("FIREFIGHT_ADMIN_KEY", admin_key)
    proxies = _networks("FIREFIGHT_TRUSTED_PROXIES", env)
    metrics_token = env.get("FIREFIGHT_METRICS_TOKEN") or None
    if metrics_token is not None:
        _check_token("FIREFIGHT_METRICS_TOKEN", metrics_token)
    port = _int("FIREFIGHT_PORT", args.port, 0, 65535)
    workers = _int("FIREFIGHT_WORKERS", args.workers, 1, MAX_WORKERS)
    if workers > 1 and not args.redis_url:
        raise ConfigError(
            f"FIREFIGHT_WORKERS is {workers}, which needs FIREFIGHT_REDIS_URL: with the embedded "
            "store each worker process would keep encounters of its own"
        )
    if workers > 1 and port == 0:
        raise ConfigError(
            "FIREFIGHT_WORKERS above 1 needs a FIREFIGHT_PORT: with port 0 each worker process "
            "would listen on a port of its own"
        )
    event_loop = _event_loop(args.event_loop)
    numbers = {
        field: parse(name, env.get(name, str(getattr(Config, field))), low, high)
        for field, (parse, name, low, high) in _NUMBERS.items()
    }
    ttl = env.get("FIREFIGHT_ENCOUNTER_TTL_SECONDS")
    encounter_ttl = None if ttl is None else _int("FIREFIGHT_ENCOUNTER_TTL_SECONDS", ttl, 60, YEAR)
    max_connections = numbers["max_connections"]
    if "FIREFIGHT_MAX_SOCKETS" in env:
        max_sockets = _int("FIREFIGHT_MAX_SOCKETS", env["FIREFIGHT_MAX_SOCKETS"], 1, 1_000_000)
        if max_sockets > max_connections:
            raise ConfigError(
                f"FIREFIGHT_MAX_SOCKETS must not be above FIREFIGHT_MAX_CONNECTIONS "
                f"({max_connections}), not {max_sockets}"
            )
    else:
        max_sockets = max(1, max_connections * SOCKETS_SHARE_OF_CONNECTIONS // 10)
    return Config(
        host=args.host,
        port=port,
        store=_store(args.store, args.redis_url),
        data_dir=_data_dir(args.data_dir),
        encounter_ttl_seconds=encounter_ttl,
        workers=workers,
        event_loop=event_loop,
        redis_url=args.redis_url,
        redis_cluster=args.redis_cluster,
        redis_password=args.redis_password,
        admin_key=admin_key,
        admin_key_generated=generated,
        cors_origins=origins,
        log_format=fmt,
        log_level=args.log_level.lower(),
        trusted_proxies=proxies,
        metrics_token=metrics_token,
        metrics_allow=_networks("FIREFIGHT_METRICS_ALLOW", env),
        public_url=_public_url(env.get("FIREFIGHT_PUBLIC_URL", "")),
        allowed_hosts=_allowed_hosts(env.get("FIREFIGHT_ALLOWED_HOSTS", "")),
        max_sockets=max_sockets,
        **numbers,
    )
