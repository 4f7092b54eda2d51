"""`python -m bench.instructions`: the instructions one request costs a server, counted.

Valgrind's cachegrind counts every instruction the server's process executes (its Python, the C
of its libraries; not the kernel's, not Redis's). Unlike CPU time on a shared VM, which spreads
by tens of percent from run to run and from one VM drawn to the next, the count is the same to
about 1%. It measures the first target of issue 28 (attacks on the Redis store against the bare
aiohttp endpoint doing one `INCR`) by what each server does a request instead of how fast this
machine does it that minute: firefight on the Redis store and the baseline, with `python -m
bench`'s closed loop (its SA shots and recoil resets, 16 clients over 8 encounters).

Each server runs twice under cachegrind: once answering `--short` requests and once `--long`.
Both runs start the server, create and end the encounters and stop it alike, so the difference
of their counts over the difference of their requests is what a request costs. A few
thousand requests under cachegrind take about a minute a server (it runs some 50 times slower).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import aiohttp
import redis.asyncio as aioredis

from bench.closed_loop import (
    BASELINE,
    DEFAULT_REDIS_URL,
    RedisCounters,
    create_encounters,
    end_encounters,
)
from bench.load import REQUEST_TIMEOUT_S, run_load, worker_plans
from bench.servers import BENCH_ADMIN_KEY, ServerSpec, loopback_or_exit, start_server
from bench.targets import Target, report

WORKERS = 16
ENCOUNTERS = 8
# Python's hashes salted alike in every run, so that dicts and sets do the same work.
HASH_SEED = "0"
# Under cachegrind the server starts, and stops, some 50 times slower than on its own.
STARTUP_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 120.0
# The first target's mark (docs/performance.md, "Targets"), read here as instructions.
MARK = 0.5

SPECS = (
    ServerSpec("redis", "firefight", None, "firefight, Redis store"),
    ServerSpec(BASELINE, "baseline", None, "bare aiohttp: parse JSON body, one Redis INCR"),
)


@dataclasses.dataclass(frozen=True)
class Counted:
    requests: int
    instructions: int


def _summary(out_file: Path) -> int:
    """The instructions counted in a cachegrind output file (its `summary:` line, Ir first)."""
    for line in reversed(out_file.read_text().splitlines()):
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"{out_file} has no summary line: did the server exit cleanly?")


async def _count(spec: ServerSpec, requests: int, work: Path, counters: RedisCounters) -> Counted:
    """One run of `spec` under cachegrind answering `requests` (and the few in flight when it
    reached them): the requests answered and the instructions of the whole run."""
    out_file = work / f"{spec.name}-{requests}.cachegrind"
    wrapper = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={out_file}",
        "--log-file=" + str(work / f"{spec.name}-{requests}.valgrind.log"),
    ]
    server = await start_server(spec, work, None, wrapper, STARTUP_TIMEOUT_S)
    answered = 0
    try:
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S * 30)
        connector = aiohttp.TCPConnector(limit=WORKERS, limit_per_host=WORKERS)
        admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
        async with aiohttp.ClientSession(
            connector=connector, timeout=timeout, headers=admin
        ) as session:
            encounters = await create_encounters(session, server, ENCOUNTERS)
            plans = worker_plans(WORKERS, encounters)
            load = await run_load(session, server.base_url, plans, 0.0, 3600.0, requests)
            problems = await end_encounters(session, server, encounters)
            if spec.kind == "firefight":
                await counters.forget(encounters)
        if load.errors or load.warmup_errors or problems:
            raise RuntimeError(f"{spec.name}: {load.error_samples or problems}")
        answered = load.warmup_requests + load.requests
    finally:
        code = server.stop(STOP_TIMEOUT_S)
    if code not in (0, -signal.SIGTERM):
        raise RuntimeError(f"{spec.name} exited with {code}:\n{server.log_tail()}")
    return Counted(answered, _summary(out_file))


async def _per_request(
    spec: ServerSpec, short: int, long: int, work: Path, counters: RedisCounters
) -> float:
    first = await _count(spec, short, work, counters)
    second = await _count(spec, long, work, counters)
    return (second.instructions - first.instructions) / (second.requests - first.requests)


async def _run(args: argparse.Namespace) -> int:
    client = aioredis.Redis.from_url(args.redis_url)
    measured: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-instructions-") as work:
            for spec in SPECS:
                print(f"bench.instructions: {spec.name} ({spec.description}) ...", flush=True)
                measured[spec.name] = await _per_request(
                    dataclasses.replace(spec, redis_url=args.redis_url),
                    args.short,
                    args.long,
                    Path(work),
                    RedisCounters(client),
                )
    finally:
        await client.aclose()
    print()
    print("server    instructions a request")
    for name, count in measured.items():
        print(f"{name:<9} {count / 1e6:>10.3f} M")
    firefight, baseline = measured["redis"], measured[BASELINE]
    report(
        [
            Target(
                "instructions a request, the baseline's / firefight's (Redis store)",
                baseline / firefight,
                MARK,
                "at_least",
                against=f"{baseline / 1e6:.3f} M against {firefight / 1e6:.3f} M, "
                f"{args.long - args.short} requests apart, same run",
            )
        ]
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--short", type=int, default=200, help="requests of the first run")
    parser.add_argument("--long", type=int, default=2200, help="requests of the second run")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="a loopback Redis")
    args = parser.parse_args(argv)
    loopback_or_exit(parser, args.redis_url)
    if args.long <= args.short:
        parser.error("--long must be more requests than --short")
    if shutil.which("valgrind") is None:
        # Information only (`make bench` counts no target of it): nothing to count without it.
        print("bench.instructions: valgrind is not installed (apt-get install valgrind): skipped")
        return 0
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    return asyncio.run(_run(args))


if __name__ == "__main__":
    sys.exit(main())
