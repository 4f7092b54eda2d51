"""The process a benchmarked server runs in: `python -m bench.server firefight|baseline --port N`.

Every server under test is started through this module, so each is the same kind of process
(a fresh interpreter, one event loop, `aiohttp.web.run_app`) and only the application differs.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import sys
from collections.abc import AsyncIterator, Callable

import msgspec
import redis.asyncio as aioredis
from aiohttp import web

from service.__main__ import main as serve_firefight

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


async def _baseline_healthz(request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


def baseline_app(redis_url: str) -> web.Application:
    """A bare aiohttp app on the same URL shapes as firefight, one Redis INCR per POST."""

    async def redis_ctx(app: web.Application) -> AsyncIterator[None]:
        # The client settings of firefight's RedisStore, so both pay the same per-command cost
        # and the difference between them is firefight's own work.
        app[REDIS] = aioredis.Redis.from_url(
            redis_url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )
        yield
        await app[REDIS].aclose()

    app = web.Application(client_max_size=256 * 1024)
    app.cleanup_ctx.append(redis_ctx)
    app.router.add_get("/healthz", _baseline_healthz)
    # Both paths the load generator posts to (attacks and recoil resets) hit the same handler.
    app.router.add_post("/v1/encounters/{encounter}/attacks", _baseline_post)
    app.router.add_post("/v1/encounters/{encounter}/actions", _baseline_post)
    return app


def _run_baseline(port: int, redis_url: str) -> int:
    web.run_app(baseline_app(redis_url), host=LOOPBACK, port=port, print=None, access_log=None)
    return 0


def _run_firefight(port: int, redis_url: str | None) -> int:
    # firefight's own entry point, so the benchmark serves it exactly as `make run` does
    # (same logging set-up, one JSON log line per request).
    argv = ["--host", LOOPBACK, "--port", str(port)]
    if redis_url:
        argv += ["--redis-url", redis_url]
    return serve_firefight(argv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.server", description=__doc__)
    parser.add_argument("kind", choices=["firefight", "baseline"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--profile", default=None, help="write cProfile stats here on exit")
    args = parser.parse_args(argv)

    run: Callable[[], int]
    if args.kind == "baseline":
        if not args.redis_url:
            parser.error("the baseline needs --redis-url")
        run = functools.partial(_run_baseline, args.port, args.redis_url)
    else:
        run = functools.partial(_run_firefight, args.port, args.redis_url)

    if args.profile is None:
        return run()
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        return run()
    finally:
        # run_app returns on SIGTERM (its graceful exit), so the stats are written on a stop.
        profiler.disable()
        profiler.dump_stats(args.profile)


if __name__ == "__main__":
    sys.exit(main())
