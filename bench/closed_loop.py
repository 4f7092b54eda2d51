"""The closed loop of `python -m bench`: the servers it runs (firefight on each store, the
baselines, their variants), the encounters it spreads the load on, and one server's measurement
(its requests per second, latencies, CPU, Redis calls and collections)."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis

from bench.load import REQUEST_TIMEOUT_S, LoadResult, run_load, worker_plans
from bench.servers import (
    BENCH_ADMIN_KEY,
    RunningServer,
    ServerFailed,
    ServerSpec,
    machine_cpu_seconds,
    start_server,
)
from service.event_loop import EventLoopChoice
from service.store.redis import events_key, state_key, undo_key

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
BASELINE = "baseline"
BARE_JSON = "bare-json"
# The suffix of the servers run with Python's default GC settings (--default-gc).
DEFAULT_GC = "-default-gc"
# --plain: the suffix of each server run without issue 28's uvloop and/or hiredis, and what it
# leaves out (the event loop, whether redis-py may use hiredis).
PLAIN: dict[str, tuple[str, EventLoopChoice, bool]] = {
    "loop": ("-asyncio", "asyncio", True),
    "hiredis": ("-no-hiredis", "auto", False),
    "both": ("-plain", "asyncio", False),
}
VARIANT_SUFFIXES = (DEFAULT_GC, *(suffix for suffix, _, _ in PLAIN.values()))
SERVERS = ("embedded", "redis", BASELINE, BARE_JSON)
# Commands a server sends itself; the ones Lua scripts run inside EVALSHA (HGET, HSET, XADD,
# PEXPIRE...) are counted by Redis too but are not round trips, and INFO is the benchmark's own.
ROUND_TRIP_COMMANDS = (
    "hmget",
    "evalsha",
    "eval",
    "incr",
    "incrby",  # redis-py sends INCR as INCRBY
    "xrange",
    "xrevrange",
    "xread",
    "ping",
)


@dataclass
class Measured:
    spec: ServerSpec
    load: LoadResult
    server_cpu_s: float | None = None
    client_cpu_s: float | None = None
    redis_cpu_s: float | None = None
    redis_round_trips: int | None = None
    redis_script_calls: int | None = None
    # The server's own count of commands and pipelines it sent (bench.server's probes).
    server_round_trips: int | None = None
    machine_cpu_s: float | None = None
    steal_cpu_s: float | None = None
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)
    # Requests per second of each round, to show the spread that pooling hides.
    round_rates: list[float] = field(default_factory=list)
    # The server's garbage-collection pauses in the window, in seconds, and how many were full.
    gc_pauses: list[float] = field(default_factory=list)
    full_collections: int = 0

    def __post_init__(self) -> None:
        if not self.round_rates:
            self.round_rates = [self.load.requests_per_s]

    def share(self, seconds: float | None) -> float | None:
        """CPU seconds over the window, as a fraction of one core."""
        if seconds is None or not self.load.duration_s:
            return None
        return seconds / self.load.duration_s

    @property
    def round_trips_per_request(self) -> float | None:
        if self.redis_round_trips is None or not self.load.requests:
            return None
        return self.redis_round_trips / self.load.requests

    @property
    def server_round_trips_per_request(self) -> float | None:
        if self.server_round_trips is None or not self.load.requests:
            return None
        return self.server_round_trips / self.load.requests

    @property
    def commit_attempts_per_request(self) -> float | None:
        if self.redis_script_calls is None or not self.load.requests:
            return None
        return self.redis_script_calls / self.load.requests

    @property
    def server_cpu_us_per_request(self) -> float | None:
        if self.server_cpu_s is None or not self.load.requests:
            return None
        return self.server_cpu_s / self.load.requests * 1e6

    @property
    def other_cpu_s(self) -> float | None:
        """What the rest of the machine used: busy CPU less the server, client and Redis."""
        if self.machine_cpu_s is None or self.server_cpu_s is None or self.client_cpu_s is None:
            return None
        redis = (self.redis_cpu_s or 0.0) if self.spec.redis_url else 0.0
        ours = self.server_cpu_s + self.client_cpu_s + redis
        return max(0.0, self.machine_cpu_s - ours)

    def add(self, other: Measured) -> None:
        """Pools another round of the same server: totals add up, so rates stay per second."""

        def total(a: float | None, b: float | None) -> float | None:
            return None if a is None or b is None else a + b

        self.load.add(other.load)
        self.round_rates += other.round_rates
        self.server_cpu_s = total(self.server_cpu_s, other.server_cpu_s)
        self.client_cpu_s = total(self.client_cpu_s, other.client_cpu_s)
        self.redis_cpu_s = total(self.redis_cpu_s, other.redis_cpu_s)
        self.machine_cpu_s = total(self.machine_cpu_s, other.machine_cpu_s)
        self.steal_cpu_s = total(self.steal_cpu_s, other.steal_cpu_s)
        trips = total(self.redis_round_trips, other.redis_round_trips)
        scripts = total(self.redis_script_calls, other.redis_script_calls)
        own = total(self.server_round_trips, other.server_round_trips)
        self.redis_round_trips = None if trips is None else int(trips)
        self.redis_script_calls = None if scripts is None else int(scripts)
        self.server_round_trips = None if own is None else int(own)
        self.problems += other.problems
        self.gc_pauses = sorted(self.gc_pauses + other.gc_pauses)
        self.full_collections += other.full_collections
        if other.exit_code not in (0, -signal.SIGTERM):
            self.exit_code = other.exit_code

    @property
    def failed(self) -> bool:
        return bool(self.load.errors or self.load.warmup_errors or self.problems)


class RedisCounters:
    """Redis's own CPU time and command counts, read with INFO around the measuring window."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client

    async def forget(self, encounter_ids: list[str]) -> None:
        """Removes the benchmark's encounters from Redis entirely.

        Ended encounters keep their streams an hour for resuming clients: thousands of events
        each, for every run, that nobody will read."""
        keys = [key(e) for e in encounter_ids for key in (state_key, events_key, undo_key)]
        if keys:
            await self._client.unlink(*keys)

    async def sample(self) -> dict[str, float]:
        cpu: dict[str, Any] = await self._client.info("cpu")
        stats: dict[str, Any] = await self._client.info("commandstats")

        def calls(*names: str) -> float:
            return float(sum(int(stats.get(f"cmdstat_{n}", {}).get("calls", 0)) for n in names))

        return {
            "redis": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
            "trips": calls(*ROUND_TRIP_COMMANDS),
            # firefight's commit is the one script call per attempt: attempts over requests
            # shows how often compare-and-set lost and the request resolved again.
            "scripts": calls("evalsha", "eval"),
        }


def _specs(
    redis_url: str, server_workers: int, default_gc: bool, plain: str | None = None
) -> list[ServerSpec]:
    specs = [
        ServerSpec("embedded", "firefight", None, "firefight, embedded in-memory store"),
        ServerSpec("redis", "firefight", redis_url, "firefight, Redis store"),
        ServerSpec(
            BASELINE, "baseline", redis_url, "bare aiohttp: parse JSON body, one Redis INCR"
        ),
        ServerSpec(BARE_JSON, "bare-json", None, "bare aiohttp: parse JSON body, answer JSON"),
    ]
    if plain is not None:
        suffix, loop, hiredis = PLAIN[plain]
        without = {"loop": "asyncio's loop", "hiredis": "no hiredis"}.get(
            plain, "asyncio's loop, no hiredis"
        )
        specs += [
            dataclasses.replace(
                spec,
                name=spec.name + suffix,
                description=f"{spec.description}; {without}",
                event_loop=loop,
                hiredis=hiredis,
            )
            for spec in specs[:4]
        ]
    if default_gc:
        specs += [
            ServerSpec(
                f"embedded{DEFAULT_GC}",
                "firefight",
                None,
                "firefight, embedded store, Python's default GC settings",
                default_gc=True,
            ),
            ServerSpec(
                f"redis{DEFAULT_GC}",
                "firefight",
                redis_url,
                "firefight, Redis store, Python's default GC settings",
                default_gc=True,
            ),
        ]
    if server_workers > 1:
        specs.append(
            ServerSpec(
                _workers_name(server_workers),
                "firefight",
                redis_url,
                f"firefight, Redis store, {server_workers} worker processes",
                workers=server_workers,
            )
        )
    return specs


def _base_name(name: str) -> str:
    for suffix in VARIANT_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _workers_name(workers: int) -> str:
    return f"redis-{workers}w"


async def create_encounters(
    session: aiohttp.ClientSession, server: RunningServer, count: int
) -> list[str]:
    if server.spec.kind != "firefight":
        # The baselines keep no encounters; the same URL shapes keep routing work alike.
        return [f"baseline{i:02d}" for i in range(count)]
    ids = []
    for _ in range(count):
        async with session.post(
            f"{server.base_url}/v1/encounters", json={"ruleset": "sr5", "name": "bench"}
        ) as response:
            body = await response.read()
            if response.status != 201:
                raise ServerFailed(
                    f"{server.spec.name}: creating an encounter answered {response.status}: "
                    f"{body.decode(errors='replace')[:300]}"
                )
            created: dict[str, Any] = await response.json()
            ids.append(str(created["id"]))
    return ids


async def end_encounters(
    session: aiohttp.ClientSession, server: RunningServer, ids: list[str]
) -> list[str]:
    """Ends the benchmark's encounters through the API, as a VTT would; problems, if any."""
    if server.spec.kind != "firefight":
        return []
    problems = []
    for encounter_id in ids:
        async with session.delete(f"{server.base_url}/v1/encounters/{encounter_id}") as response:
            await response.read()
            if response.status != 204:
                problems.append(f"ending encounter {encounter_id} answered {response.status}")
    return problems


async def _measure(
    spec: ServerSpec,
    args: argparse.Namespace,
    log_dir: Path,
    profile_dir: Path | None,
    counters: RedisCounters | None,
) -> Measured:
    server = await start_server(spec, log_dir, profile_dir)
    try:
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        # One pooled connection per worker, kept alive, as a VTT's server-side client would.
        connector = aiohttp.TCPConnector(limit=args.workers, limit_per_host=args.workers)
        admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
        async with aiohttp.ClientSession(
            connector=connector, timeout=timeout, headers=admin
        ) as session:
            encounters = await create_encounters(session, server, args.encounters)
            plans = worker_plans(args.workers, encounters)
            opened: dict[str, float | None] = {}
            # Counter deltas over the measuring window (None where a counter is unreadable).
            marks: dict[str, float | None] = {}

            async def on_measure(opening: bool) -> None:
                # The server's collections are stamped on CLOCK_MONOTONIC (time.monotonic).
                samples: dict[str, float | None] = {
                    "monotonic": time.monotonic(),
                    "server": server.cpu_seconds(),
                    "client": time.process_time(),
                    "own_trips": float(server.round_trips()),
                }
                machine = machine_cpu_seconds()
                samples["machine"] = machine[0] if machine else None
                samples["steal"] = machine[1] if machine else None
                if counters is not None:
                    samples.update(await counters.sample())
                if opening:
                    opened.update(samples)
                    return
                for key, value in samples.items():
                    start = opened.get(key)
                    marks[key] = None if value is None or start is None else value - start

            load = await run_load(
                session,
                server.base_url,
                plans,
                args.warmup,
                args.seconds,
                args.max_requests,
                on_measure,
            )
            problems = await end_encounters(session, server, encounters)
            if counters is not None and spec.kind == "firefight" and spec.redis_url:
                await counters.forget(encounters)
        measured = Measured(spec, load, problems=problems)
        measured.server_cpu_s = marks.get("server")
        measured.client_cpu_s = marks.get("client")
        measured.redis_cpu_s = marks.get("redis")
        measured.machine_cpu_s = marks.get("machine")
        measured.steal_cpu_s = marks.get("steal")
        trips, scripts = marks.get("trips"), marks.get("scripts")
        measured.redis_round_trips = None if trips is None else int(trips)
        measured.redis_script_calls = None if scripts is None else int(scripts)
        own = marks.get("own_trips")
        measured.server_round_trips = None if own is None else int(own)
        window_start = opened.get("monotonic") or 0.0
        window_end = window_start + (marks.get("monotonic") or 0.0)
        collections = [
            (pause, generation)
            for start, pause, generation in server.collections()
            if window_start <= start < window_end
        ]
        measured.gc_pauses = sorted(pause for pause, _ in collections)
        measured.full_collections = sum(1 for _, generation in collections if generation == 2)
        if not server.alive():
            measured.problems.append(f"the server died during the run:\n{server.log_tail()}")
    finally:
        exit_code = server.stop()
    measured.exit_code = exit_code
    # SIGTERM is a graceful stop for run_app: anything but 0 means it did not shut down cleanly.
    if exit_code not in (0, -signal.SIGTERM):
        measured.problems.append(f"the server exited with code {exit_code}:\n{server.log_tail()}")
    return measured


def _commits(spec: ServerSpec) -> bool:
    """Only firefight on Redis commits through a script that Redis counts."""
    return spec.kind == "firefight" and spec.redis_url is not None
