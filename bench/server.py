"""The process a benchmarked server runs in:
`python -m bench.server firefight|baseline|bare-json|fanout-floor --port N`.

Every server under test is started through this module, so each is the same kind of process
(a fresh interpreter, one event loop, `aiohttp.web.run_app`) and only the application differs.
`--event-loop` picks the loop for every kind alike (firefight's own flag for firefight), so a
baseline always runs on the loop firefight runs on: uvloop when installed, as `make run` serves.
With `--probes DIR` each process of the server also counts its Redis round trips and its
garbage-collection pauses into files there, which the benchmark reads around its window.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import mmap
import os
import struct
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from aiohttp import web
from redis.asyncio.connection import AbstractConnection, DefaultParser

from service.__main__ import main as serve_firefight
from service.event_loop import EVENT_LOOP_CHOICES, EventLoopKind, loop_factory, resolved

LOOPBACK = "127.0.0.1"
# The one key the baseline increments; the benchmark deletes it when the baseline is done.
BASELINE_KEY = "firefight-bench:baseline"
REDIS = web.AppKey("redis", aioredis.Redis)
# RedisStore's default command timeout.
REDIS_TIMEOUT_S = 2.0
_encode = msgspec.json.Encoder().encode


async def _baseline_post(request: web.Request) -> web.Response:
    # The same work any JSON endpoint must do at the least: read and parse the body, then one
    # store round trip. Parsing untyped keeps it a floor, not a copy of firefight's validation.
    msgspec.json.decode(await request.read())
    count = await request.app[REDIS].incr(BASELINE_KEY)
    return web.Response(
        body=_encode({"ok": True, "count": count}), status=201, content_type="application/json"
    )


async def _bare_json_post(request: web.Request) -> web.Response:
    # The floor of a JSON endpoint with no store at all: read and parse the body, answer JSON.
    msgspec.json.decode(await request.read())
    return web.Response(body=_encode({"ok": True}), status=201, content_type="application/json")


async def _baseline_healthz(request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


def redis_app(redis_url: str) -> web.Application:
    """A bare aiohttp app with a Redis client (`app[REDIS]`) and `GET /healthz`: the client
    settings of firefight's RedisStore, so both pay the same per-command cost and the
    difference between them is firefight's own work."""

    async def redis_ctx(app: web.Application) -> AsyncIterator[None]:
        app[REDIS] = aioredis.Redis.from_url(
            redis_url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )
        yield
        await app[REDIS].aclose()

    app = web.Application(client_max_size=256 * 1024)
    app.cleanup_ctx.append(redis_ctx)
    app.router.add_get("/healthz", _baseline_healthz)
    return app


def baseline_app(redis_url: str) -> web.Application:
    """A bare aiohttp app on the same URL shapes as firefight, one Redis INCR per POST."""
    app = redis_app(redis_url)
    # Both paths the load generator posts to (attacks and recoil resets) hit the same handler.
    app.router.add_post("/v1/encounters/{encounter}/attacks", _baseline_post)
    app.router.add_post("/v1/encounters/{encounter}/actions", _baseline_post)
    return app


def bare_json_app() -> web.Application:
    """A bare aiohttp app on the same URL shapes as firefight that keeps nothing: the baseline
    of the embedded store, which makes no round trip either."""
    app = web.Application(client_max_size=256 * 1024)
    app.router.add_get("/healthz", _baseline_healthz)
    app.router.add_post("/v1/encounters/{encounter}/attacks", _bare_json_post)
    app.router.add_post("/v1/encounters/{encounter}/actions", _bare_json_post)
    return app


def _run_app(app: web.Application, port: int, event_loop: EventLoopKind) -> int:
    loop = loop_factory(event_loop)()
    web.run_app(app, host=LOOPBACK, port=port, print=None, access_log=None, loop=loop)
    return 0


def _run_firefight(
    port: int, redis_url: str | None, workers: int, gc_tuning: bool, event_loop: EventLoopKind
) -> int:
    # firefight's own entry point, so the benchmark serves it exactly as `make run` does
    # (same logging set-up, one JSON log line per request).
    argv = ["--host", LOOPBACK, "--port", str(port), "--event-loop", event_loop]
    if redis_url:
        argv += ["--redis-url", redis_url]
    else:
        # The benchmarks' embedded store is the memory one (their baselines and targets were
        # measured on it); the SQLite store, the default of `make run`, is not benchmarked.
        argv += ["--store", "memory"]
    if workers > 1:
        argv += ["--workers", str(workers)]
    return serve_firefight(argv, gc_tuning=gc_tuning)


# --- probes: what each server process reports to the benchmark -------------------------------

TRIPS_PREFIX = "trips-"
GC_PREFIX = "gc-"
_COUNTER = struct.Struct("<q")


class Probes:
    """Per process (a worker of `--workers` is one), in `directory`: a mapped 8-byte count of the
    Redis round trips it made, and one line per garbage collection (`<CLOCK_MONOTONIC start>
    <seconds> <generation>`). Files per process, opened at its first use, because workers are
    forked from one parent and each must count apart."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._pid = -1
        self._trips: mmap.mmap | None = None
        self._gc_log: Any = None
        self._gc_started = 0.0

    def _own(self) -> None:
        self._pid = os.getpid()
        path = self._directory / f"{TRIPS_PREFIX}{self._pid}"
        with path.open("w+b") as file:
            file.write(bytes(_COUNTER.size))
            file.flush()
            self._trips = mmap.mmap(file.fileno(), _COUNTER.size)
        self._gc_log = (self._directory / f"{GC_PREFIX}{self._pid}").open("a", buffering=1)

    def round_trip(self) -> None:
        if self._pid != os.getpid():
            self._own()
        assert self._trips is not None
        _COUNTER.pack_into(self._trips, 0, _COUNTER.unpack_from(self._trips, 0)[0] + 1)

    def collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.monotonic()
            return
        if self._pid != os.getpid():
            self._own()
        pause = time.monotonic() - self._gc_started
        self._gc_log.write(f"{self._gc_started:.6f} {pause:.6f} {info['generation']}\n")

    def install(self) -> None:
        """Every command or pipeline redis-py sends is one `send_packed_command`: one round
        trip, whatever Lua runs on the server's side."""
        send = AbstractConnection.send_packed_command
        probes = self

        async def counted(self: AbstractConnection, *args: Any, **kwargs: Any) -> None:
            probes.round_trip()
            await send(self, *args, **kwargs)

        AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]
        gc.callbacks.append(self.collection)


def read_round_trips(directory: Path) -> int:
    """The round trips of every process of the server so far."""
    total = 0
    for path in directory.glob(f"{TRIPS_PREFIX}*"):
        data = path.read_bytes()
        if len(data) >= _COUNTER.size:
            total += _COUNTER.unpack_from(data, 0)[0]
    return total


def read_collections(directory: Path) -> list[tuple[float, float, int]]:
    """(CLOCK_MONOTONIC start, seconds, generation) of every collection of the server so far."""
    found = []
    for path in directory.glob(f"{GC_PREFIX}*"):
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) == 3:
                found.append((float(fields[0]), float(fields[1]), int(fields[2])))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.server", description=__doc__)
    parser.add_argument("kind", choices=["firefight", "baseline", "bare-json", "fanout-floor"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--workers", type=int, default=1, help="firefight's --workers")
    parser.add_argument(
        "--default-gc", action="store_true", help="firefight with Python's default GC settings"
    )
    parser.add_argument("--probes", type=Path, default=None, help="count round trips and GC here")
    parser.add_argument("--profile", default=None, help="write cProfile stats here on exit")
    parser.add_argument(
        "--event-loop",
        choices=EVENT_LOOP_CHOICES,
        default="auto",
        help="the loop of every kind of server (auto: uvloop when installed, as firefight)",
    )
    args = parser.parse_args(argv)
    event_loop = resolved(args.event_loop)
    # Said in the server's log, so a run's servers can be checked for what they ran on.
    print(
        f"bench.server: {args.kind}, event loop {event_loop}, Redis replies parsed by "
        f"{DefaultParser.__name__}",
        flush=True,
    )

    run: Callable[[], int]
    if args.kind == "baseline":
        if not args.redis_url:
            parser.error("the baseline needs --redis-url")
        run = functools.partial(_run_app, baseline_app(args.redis_url), args.port, event_loop)
    elif args.kind == "fanout-floor":
        if not args.redis_url:
            parser.error("the fan-out's floor needs --redis-url")
        # Imported here: bench/fanout_floor.py builds on this module's Redis app.
        from bench.fanout_floor import floor_app

        run = functools.partial(_run_app, floor_app(args.redis_url), args.port, event_loop)
    elif args.kind == "bare-json":
        run = functools.partial(_run_app, bare_json_app(), args.port, event_loop)
    else:
        run = functools.partial(
            _run_firefight,
            args.port,
            args.redis_url,
            args.workers,
            not args.default_gc,
            event_loop,
        )
    if args.probes is not None:
        Probes(args.probes).install()

    if args.profile is None:
        return run()
    # CPU time, not the wall clock: on a shared machine another process taking the core would
    # otherwise show up as a slow system call of whatever the server was in.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    try:
        return run()
    finally:
        # run_app returns on SIGTERM (its graceful exit), so the stats are written on a stop.
        profiler.disable()
        profiler.dump_stats(args.profile)


if __name__ == "__main__":
    sys.exit(main())
