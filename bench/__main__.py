"""`python -m bench`: attacks per second over HTTP for firefight (embedded, Redis) and baselines.

Each server runs alone, in its own process, while this process drives it with a fixed number of
concurrent workers; the table compares each one to the baseline's requests per second, and the
targets compare each store to its own baseline: the Redis store to a bare endpoint making one
Redis round trip, the embedded store to a bare JSON endpoint. With `--server-workers N`,
firefight on Redis also runs with N worker processes, against itself with one.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import json
import os
import platform
import pstats
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.load import (
    REQUEST_TIMEOUT_S,
    LoadResult,
    PlannedRequest,
    percentile,
    run_load,
    summary,
    worker_plan,
)
from bench.server import BASELINE_KEY
from bench.servers import (
    BENCH_ADMIN_KEY,
    ROOT,
    RunningServer,
    ServerFailed,
    ServerSpec,
    cancel_on_sigterm,
    loopback_or_exit,
    machine_cpu_seconds,
    start_server,
)
from bench.targets import Target, report
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
# The marks (docs/performance.md, "Targets").
REDIS_VS_BASELINE = 0.5
EMBEDDED_VS_BARE_JSON = 0.7
ROUND_TRIPS_PER_ATTACK = 1.0
# Scaling from 1 to N workers: three quarters of linear (1.5x for 2 workers).
SCALING_PER_WORKER = 0.75
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

NOTES = """
attacks/s and latencies count attacks only; requests also count the recoil resets (1 in 33).
CPU is a share of one core over the window; other CPU is what the rest of the machine used.
server µs/req is the server's CPU time per request (all its processes). redis calls/req and
commits tried/req (script calls; above 1 means compare-and-set retries) count every client of
that Redis, commands run inside Lua included; round trips/req is what the server itself sent
(each command or pipeline once, what Lua runs on the Redis side not counted)."""


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


async def _create_encounters(
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


async def _end_encounters(
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
            encounters = await _create_encounters(session, server, args.encounters)
            plans: list[list[PlannedRequest]] = [
                worker_plan(worker, encounters[worker % len(encounters)])
                for worker in range(args.workers)
            ]
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
            problems = await _end_encounters(session, server, encounters)
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


def _number(value: float | None, form: str) -> str:
    return "-" if value is None else form.format(value)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _rows(results: list[Measured]) -> tuple[list[str], list[list[str]]]:
    """The figures table: throughput and latency, against the baseline."""
    baseline = next((r for r in results if r.spec.name == BASELINE), None)
    base_rps = baseline.load.requests_per_s if baseline else 0.0
    header = ["server", "requests", "errors", "attacks/s", "p50 ms", "p99 ms", "vs baseline"]
    rows = []
    for r in results:
        latencies = r.load.attack_latencies_s
        ratio = f"{r.load.requests_per_s / base_rps:.2f}x" if base_rps else "-"
        rows.append(
            [
                r.spec.name,
                str(r.load.requests),
                str(r.load.errors),
                f"{r.load.attacks_per_s:.0f}",
                f"{_ms(latencies, 50):.2f}",
                f"{_ms(latencies, 99):.2f}",
                ratio,
            ]
        )
    return header, rows


def _cost_rows(results: list[Measured]) -> tuple[list[str], list[list[str]]]:
    """The second table: where the CPU went, and what each request asked of Redis."""
    header = [
        "server",
        "server CPU",
        "server µs/req",
        "client CPU",
        "redis CPU",
        "other CPU",
        "redis calls/req",
        "round trips/req",
        "commits tried/req",
        "GC pauses/s (full)",
        "GC max ms",
    ]
    rows = []
    for r in results:
        trips = r.round_trips_per_request
        own = r.server_round_trips_per_request
        tries = r.commit_attempts_per_request
        rows.append(
            [
                r.spec.name,
                _percent(r.share(r.server_cpu_s)),
                _number(r.server_cpu_us_per_request, "{:.0f}"),
                _percent(r.share(r.client_cpu_s)),
                _percent(r.share(r.redis_cpu_s)) if r.spec.redis_url else "-",
                _percent(r.share(r.other_cpu_s)),
                _number(trips if r.spec.redis_url else None, "{:.2f}"),
                _number(own if r.spec.redis_url else None, "{:.2f}"),
                _number(tries if _commits(r.spec) else None, "{:.3f}"),
                _gc_rate(r),
                _number(r.gc_pauses[-1] * 1000 if r.gc_pauses else None, "{:.2f}")
                if r.spec.kind == "firefight"
                else "-",
            ]
        )
    return header, rows


def _gc_rate(r: Measured) -> str:
    """Collections per second of the server in the window, and the full ones among them."""
    if r.spec.kind != "firefight" or not r.load.duration_s:
        return "-"
    per_s = len(r.gc_pauses) / r.load.duration_s
    full = r.full_collections / r.load.duration_s
    return f"{per_s:.1f} ({full:.1f})"


def _ms(latencies: list[float], p: float) -> float:
    return percentile(latencies, p) * 1000


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        # Names to the left, figures to the right.
        return "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def _ratios(results: list[Measured]) -> dict[str, float]:
    """Every server against the baseline; a --plain server against the baseline run the same
    way (redis-plain/baseline-plain), which is the same-run ratio before issue 28."""
    by_name = {r.spec.name: r for r in results}
    ratios = {}
    for r in results:
        suffix = r.spec.name.removeprefix(_base_name(r.spec.name))
        base = BASELINE + (suffix if suffix != DEFAULT_GC else "")
        baseline = by_name.get(base)
        if baseline is None or baseline is r or not baseline.load.requests_per_s:
            continue
        ratios[f"{r.spec.name}/{base}"] = round(
            r.load.requests_per_s / baseline.load.requests_per_s, 3
        )
    return ratios


def _report_errors(results: list[Measured]) -> bool:
    failed = [r for r in results if r.failed]
    if not failed:
        return False
    bar = "!" * 78
    out = [bar, "!!! THIS RUN HAD ERRORS: its figures are not valid", bar]
    for r in failed:
        out.append(
            f"{r.spec.name}: {r.load.errors} errors in {r.load.requests} measured requests, "
            f"{r.load.warmup_errors} in {r.load.warmup_requests} warm-up requests"
        )
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(r.load.statuses.items()))
        out.append(f"  measured statuses (0 = no response): {statuses or 'none'}")
        out += [f"  {sample}" for sample in r.load.error_samples]
        out += [f"  {problem}" for problem in r.problems]
    out.append(bar)
    print("\n".join(out), file=sys.stderr)
    return True


# Where a profiled server's own time went, by who spent it: (path fragment, group), first match.
PROFILE_GROUPS = (
    ("/service/rules/", "firefight rules (sr5, dice)"),
    ("/service/engine/", "firefight engine"),
    ("/service/store/", "firefight store"),
    ("/service/", "firefight api (handlers, middlewares)"),
    ("/schemas/", "firefight api (handlers, middlewares)"),
    ("/bench/", "baseline handler"),
    ("/structlog/", "structlog"),
    ("/json/", "stdlib json (structlog's JSON renderer)"),
    ("/redis/", "redis-py"),
    ("/aiohttp/", "aiohttp"),
    ("/multidict/", "aiohttp"),
    ("/yarl/", "aiohttp"),
    ("/asyncio/", "asyncio event loop"),
    ("selectors.py", "asyncio event loop"),
    ("random.py", "stdlib random (dice)"),
)
BUILTIN_GROUPS = (
    ("msgspec", "msgspec (C)"),
    ("socket", "socket I/O (C)"),
    ("epoll", "asyncio event loop"),
    ("random", "stdlib random (dice)"),
)


def profile_shares(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Self time of every profiled function, summed by group; the largest first."""
    totals: dict[str, float] = {}
    entries: dict[tuple[str, int, str], tuple[Any, ...]] = getattr(stats, "stats", {})
    for (filename, _, name), (_, _, self_time, *_) in entries.items():
        groups = BUILTIN_GROUPS if filename == "~" else PROFILE_GROUPS
        text = name if filename == "~" else filename
        group = next((g for part, g in groups if part in text), "other")
        totals[group] = totals.get(group, 0.0) + self_time
    return sorted(totals.items(), key=lambda item: -item[1])


def _write_profiles(profile_dir: Path, results: list[Measured]) -> None:
    for r in results:
        stats_path = profile_dir / f"{r.spec.name}.prof"
        if not stats_path.exists():
            continue
        text_path = profile_dir / f"{r.spec.name}.txt"
        with text_path.open("w") as out:
            stats = pstats.Stats(str(stats_path), stream=out)
            stats.sort_stats("tottime").print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)
        shares = profile_shares(pstats.Stats(str(stats_path)))
        whole = sum(seconds for _, seconds in shares) or 1.0
        print(f"\nprofile of {r.spec.name}: {stats_path} (top functions: {text_path})")
        for group, seconds in shares:
            if seconds / whole >= 0.01:
                print(f"  {seconds / whole * 100:5.1f}%  {group}")


def _revision() -> str:
    """The commit measured, marked when tracked files differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "workers": args.workers,
        "server_workers": args.server_workers,
        "default_gc": args.default_gc,
        "plain": args.plain,
        "encounters": args.encounters,
        "warmup_s": args.warmup,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "max_requests": args.max_requests,
        "redis_url": args.redis_url,
        "profiled": args.profile is not None,
    }


def _json_report(args: argparse.Namespace, results: list[Measured]) -> dict[str, Any]:
    servers = []
    for r in results:
        entry = {"name": r.spec.name, "description": r.spec.description, **summary(r.load)}
        entry["cpu_share_of_one_core"] = {
            "server": r.share(r.server_cpu_s),
            "client": r.share(r.client_cpu_s),
            "redis": r.share(r.redis_cpu_s) if r.spec.redis_url else None,
            "other": r.share(r.other_cpu_s),
            "steal": r.share(r.steal_cpu_s),
        }
        entry["server_cpu_us_per_request"] = r.server_cpu_us_per_request
        entry["redis_round_trips_per_request"] = (
            r.round_trips_per_request if r.spec.redis_url else None
        )
        entry["server_round_trips_per_request"] = (
            r.server_round_trips_per_request if r.spec.redis_url else None
        )
        entry["commit_attempts_per_request"] = (
            r.commit_attempts_per_request if _commits(r.spec) else None
        )
        entry["round_requests_per_s"] = [round(rate, 1) for rate in r.round_rates]
        entry["server_gc"] = {
            "collections": len(r.gc_pauses),
            "full": r.full_collections,
            "total_ms": round(sum(r.gc_pauses) * 1000, 2),
            "max_ms": round(r.gc_pauses[-1] * 1000, 2) if r.gc_pauses else 0.0,
        }
        entry["problems"] = r.problems
        servers.append(entry)
    return {
        "date": datetime.date.today().isoformat(),
        "revision": _revision(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "settings": _settings(args),
        "servers": servers,
        "ratios_to_baseline_requests_per_s": _ratios(results),
        "targets": [
            {"name": t.name, "value": t.value, "mark": t.mark, "kind": t.kind, "met": t.met}
            for t in targets(results, args.server_workers)
        ],
        "errors": any(r.failed for r in results),
    }


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window per server")
    parser.add_argument("--warmup", type=float, default=1.0, help="uncounted seconds first")
    parser.add_argument("--workers", type=int, default=16, help="concurrent client requests")
    parser.add_argument("--encounters", type=int, default=8, help="encounters the load spreads on")
    parser.add_argument(
        "--max-requests", type=int, default=200_000, help="cap on measured requests per server"
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL),
        help="the Redis of the redis and baseline servers (loopback only)",
    )
    parser.add_argument(
        "--server-workers",
        type=int,
        default=1,
        help="also run firefight on Redis with this many worker processes (--workers), to "
        "measure the scaling from one",
    )
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="also run both firefight servers with Python's default GC settings (the before "
        "of the server's GC tuning, in the same run)",
    )
    parser.add_argument(
        "--plain",
        nargs="?",
        const="both",
        choices=list(PLAIN),
        default=None,
        help="also run every server on asyncio's own loop (loop), without hiredis (hiredis) or "
        "both (the default): the before of issue 28, in the same run",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[*SERVERS, "workers"],
        help="repeatable; 'workers' is the --server-workers server",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="measure every server this many times, pooled"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="run each server under cProfile, stats into this folder (figures then skewed)",
    )
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 600 or not 0 <= args.warmup <= 60:
        parser.error("--seconds must be in (0, 600] and --warmup in [0, 60]")
    if not 1 <= args.workers <= 256 or not 1 <= args.encounters <= 256:
        parser.error("--workers and --encounters must be between 1 and 256")
    if not 1 <= args.rounds <= 20:
        parser.error("--rounds must be between 1 and 20")
    if args.profile is not None and args.rounds != 1:
        parser.error("--profile takes one round")
    if args.max_requests < 1:
        parser.error("--max-requests must be at least 1")
    if not 1 <= args.server_workers <= 64:
        parser.error("--server-workers must be between 1 and 64")
    loopback_or_exit(parser, args.redis_url)
    return args


async def _run(args: argparse.Namespace) -> int:
    cancel_on_sigterm()

    specs = [
        s
        for s in _specs(args.redis_url, args.server_workers, args.default_gc, args.plain)
        if not args.only
        or _base_name(s.name) in args.only
        or ("workers" in args.only and s.workers > 1)
    ]
    client: aioredis.Redis | None = None
    counters: RedisCounters | None = None
    if any(s.redis_url for s in specs):
        client = aioredis.Redis.from_url(args.redis_url, socket_connect_timeout=2)
        try:
            await client.ping()
        except (RedisError, OSError) as error:
            await client.aclose()
            print(
                f"bench: no Redis at {args.redis_url} ({error}); `make bench` starts one",
                file=sys.stderr,
            )
            return 2
        counters = RedisCounters(client)

    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    results: list[Measured] = []
    print(
        f"bench: {args.workers} workers over {args.encounters} encounters, "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s measured per server"
        f"{f' x {args.rounds} rounds' if args.rounds > 1 else ''}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, commit {_revision()}",
        flush=True,
    )
    try:
        with tempfile.TemporaryDirectory(prefix="firefight-bench-") as log_dir:
            # Rounds interleave the servers, so a drift in the machine's speed (a VM's
            # neighbours) spreads over all of them instead of favouring one.
            for round_number in range(1, args.rounds + 1):
                for index, spec in enumerate(specs):
                    round_note = f" round {round_number}/{args.rounds}" if args.rounds > 1 else ""
                    print(f"bench: {spec.name} ({spec.description}){round_note} ...", flush=True)
                    measured = await _measure(spec, args, Path(log_dir), args.profile, counters)
                    if round_number == 1:
                        results.append(measured)
                    else:
                        results[index].add(measured)
    finally:
        if client is not None:
            if any(s.name == BASELINE for s in specs):
                await client.delete(BASELINE_KEY)
            await client.aclose()

    print()
    print(_table(*_rows(results), markdown=args.markdown))
    ratios = _ratios(results)
    if ratios:
        print()
        print("  ".join(f"{name} {ratio:.2f}x" for name, ratio in ratios.items()))
    if args.rounds > 1:
        spreads = [
            f"{r.spec.name} {min(r.round_rates):.0f}-{max(r.round_rates):.0f}" for r in results
        ]
        print("requests/s of single rounds: " + ", ".join(spreads))
    print()
    print(_table(*_cost_rows(results), markdown=args.markdown))
    print(NOTES)
    if args.profile is not None:
        print("\nservers ran under cProfile: these figures are slower than real ones.")
        _write_profiles(args.profile, results)
    if args.json is not None:
        args.json.write_text(json.dumps(_json_report(args, results), indent=2) + "\n")
        print(f"figures written to {args.json}")
    failed = _report_errors(results)
    marks = targets(results, args.server_workers)
    if marks:
        report(marks)
    return 1 if failed else 0


def targets(results: list[Measured], server_workers: int) -> list[Target]:
    """The issue's marks for what this run measured: each store against its own baseline of
    the same run, the round trips of an attack on Redis, and the scaling to N workers."""
    by_name = {r.spec.name: r for r in results}
    found: list[Target] = []

    def ratio(name: str, base: str, mark: float, against: str, title: str) -> None:
        server, baseline = by_name.get(name), by_name.get(base)
        if server is None or baseline is None or not baseline.load.requests_per_s:
            return
        value = server.load.requests_per_s / baseline.load.requests_per_s
        found.append(Target(title, value, mark, "at_least", "x", against))

    ratio(
        "redis",
        BASELINE,
        REDIS_VS_BASELINE,
        "bare aiohttp + one Redis INCR, same run",
        "attacks/s, Redis store vs one round trip",
    )
    ratio(
        "embedded",
        BARE_JSON,
        EMBEDDED_VS_BARE_JSON,
        "bare aiohttp JSON endpoint, same run",
        "attacks/s, embedded store vs bare JSON",
    )
    redis = by_name.get("redis")
    if redis is not None and redis.server_round_trips_per_request is not None:
        found.append(
            Target(
                "Redis round trips per attack (attacks and recoil resets, Lua not counted)",
                redis.server_round_trips_per_request,
                ROUND_TRIPS_PER_ATTACK,
                "at_most",
                "round trips",
            )
        )
    if server_workers > 1:
        ratio(
            _workers_name(server_workers),
            "redis",
            SCALING_PER_WORKER * server_workers,
            f"1 worker, same run; {os.cpu_count()} CPUs shared with the load generator and Redis",
            f"attacks/s, {server_workers} workers vs 1 (Redis store)",
        )
    return found


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        return asyncio.run(_run(args))
    except ServerFailed as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("bench: interrupted; servers stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
