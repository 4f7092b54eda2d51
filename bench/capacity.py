"""`python -m bench.capacity`: the CPU each kind of request costs firefight on the Redis store,
and what that makes of one replica and one Redis at a table's pace.

One firefight server (`python -m bench.server`, as every benchmark starts it) on a Redis of its
own (so that Redis's CPU and command counts are firefight's alone), 32 encounters. Each kind of
request is sent open loop at a fixed modest rate, spread over the encounters, for a measured
window after a warm-up: attacks (with `make bench`'s recoil resets), moves, odds previews, GETs
of the encounter, and the attacks again with 5 WebSocket watchers on every table (the difference
is the fan-out, per watcher and event). Per request: the server's CPU (/proc, its threads
included: previews run in a thread), Redis's CPU (INFO cpu) and its commands (INFO commandstats).
Then the model of docs/performance.md, "Capacity", with these inputs. See that section.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis

from bench.__main__ import DEFAULT_REDIS_URL, _revision, _table
from bench.fanout import RawWatcher
from bench.load import REQUEST_TIMEOUT_S, attack_body, reset_body
from bench.servers import (
    BENCH_ADMIN_KEY,
    RunningServer,
    ServerFailed,
    ServerSpec,
    cancel_on_sigterm,
    loopback_or_exit,
    start_server,
)
from bench.table import _own_redis

# Near the rate one replica serves at the model's capacity (some 1,500 tables of 0.27 requests a
# second): CPU per request falls as the rate rises (more requests share each wake-up of the
# event loop), so it is measured where the model is read.
DEFAULT_RATE = 300.0
DEFAULT_SECONDS = 6.0
WARMUP_S = 1.0
# Enough tables that no token or encounter reaches its previews-in-flight budget (2 and 4).
TABLES = 32
# The watchers of a table: a GM and four players.
WATCHERS = 5
SHOTS_BEFORE_RESET = 32
MOVER = "runner"
SHEET = {"ruleset": "sr5", "reaction": 3, "intuition": 3, "body": 4, "armor": 9}

# The table the model assumes, per minute of play (docs/performance.md, "Capacity", says why):
# one attack every 20 s, two moves and two previews per attack, a GET now and then; every change
# is an event for each of its watchers.
PER_MINUTE = {"attack": 3.0, "move": 6.0, "preview": 6.0, "get": 1.0}
CHANGES = ("attack", "move")
# The share of a core (one replica: one event loop) or of Redis's one thread planned for steady
# load: the rest absorbs bursts, a busy neighbour, a garbage collection.
HEADROOM = 0.7


@dataclass
class Cost:
    """What one request of a kind cost, over a measured window."""

    kind: str
    requests: int
    errors: int
    # The statuses of the failed requests ("0": no answer), with their counts.
    failed: dict[str, int]
    server_us: float
    redis_us: float
    # Commands Redis ran (those its scripts ran included), and the round trips the server made
    # (commands and pipelines sent: counted in the server, bench.server --probes).
    redis_calls: float
    round_trips: float


@dataclass
class Table:
    encounter_id: str
    gm: str
    player: str
    after: str


async def _tables(session: aiohttp.ClientSession, base: str, count: int) -> list[Table]:
    tables = []
    for n in range(count):
        async with session.post(
            f"{base}/v1/encounters", json={"ruleset": "sr5", "name": f"capacity-{n}"}
        ) as answer:
            created: dict[str, Any] = json.loads(await answer.read())
            if answer.status != 201:
                raise ServerFailed(f"creating an encounter answered {answer.status}: {created}")
        encounter_id = str(created["id"])
        actor = {"name": "Runner", "position": {"x": 0.0, "y": 0.0}, "sheet": SHEET}
        async with session.put(
            f"{base}/v1/encounters/{encounter_id}/actors/{MOVER}", json=actor
        ) as answer:
            placed: dict[str, Any] = json.loads(await answer.read())
            if answer.status != 200:
                raise ServerFailed(f"placing an actor answered {answer.status}: {placed}")
        tokens = created["tokens"]
        tables.append(
            Table(encounter_id, str(tokens["gm"]), str(tokens["player"]), str(placed["event_id"]))
        )
    return tables


Request = tuple[str, str, bytes | None, str]  # method, path, body, token


def _requests(kind: str, tables: list[Table]) -> Callable[[int], Request]:
    """The n-th request of a kind, the tables in turn."""

    def attack(n: int) -> Request:
        table = tables[n % len(tables)]
        turn = n // len(tables)
        path = f"/v1/encounters/{table.encounter_id}"
        if turn % (SHOTS_BEFORE_RESET + 1) == SHOTS_BEFORE_RESET:
            return "POST", f"{path}/actions", reset_body("shooter"), table.gm
        return "POST", f"{path}/attacks", attack_body("shooter", n), table.gm

    def move(n: int) -> Request:
        table = tables[n % len(tables)]
        step = float(n // len(tables) % 20)
        body = json.dumps({"position": {"x": step, "y": 1.0}}).encode()
        return "POST", f"/v1/encounters/{table.encounter_id}/actors/{MOVER}/move", body, table.gm

    def preview(n: int) -> Request:
        table = tables[n % len(tables)]
        # A player previewing the shot the form holds (the seed left out: the service's own).
        body = json.loads(attack_body("shooter", 0))
        del body["seed"]
        path = f"/v1/encounters/{table.encounter_id}/attacks/odds"
        return "POST", path, json.dumps(body).encode(), table.gm

    def get(n: int) -> Request:
        table = tables[n % len(tables)]
        return "GET", f"/v1/encounters/{table.encounter_id}", None, table.player

    return {"attack": attack, "attack, watched": attack, "move": move, "preview": preview}.get(
        kind, get
    )


async def _counters(client: aioredis.Redis) -> tuple[float, float]:
    """Redis's CPU seconds and commands so far (every client's: this Redis is the run's own)."""
    cpu: dict[str, Any] = await client.info("cpu")
    stats: dict[str, Any] = await client.info("commandstats")
    calls = sum(int(s["calls"]) for name, s in stats.items() if name != "cmdstat_info")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), float(calls)


async def _phase(
    session: aiohttp.ClientSession,
    server: RunningServer,
    client: aioredis.Redis,
    kind: str,
    tables: list[Table],
    rate: float,
    seconds: float,
) -> Cost:
    """Open loop at `rate` for WARMUP_S + `seconds`; the costs of the measured window."""
    make = _requests(kind, tables)
    statuses: list[int] = []
    tasks: set[asyncio.Task[None]] = set()

    async def send(n: int) -> None:
        method, path, body, token = make(n)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        try:
            async with session.request(
                method, server.base_url + path, data=body, headers=headers
            ) as answer:
                await answer.read()
                statuses.append(answer.status)
        except (aiohttp.ClientError, TimeoutError):
            statuses.append(0)

    total = round((WARMUP_S + seconds) * rate)
    opened = round(WARMUP_S * rate)
    before: tuple[float | None, float, float, int] = (None, 0.0, 0.0, 0)
    start = time.perf_counter() + 0.05
    for n in range(total):
        if n == opened:
            # The warm-up's requests drain before the window opens (at this rate, a few ms).
            if tasks:
                await asyncio.wait(set(tasks), timeout=REQUEST_TIMEOUT_S)
            statuses.clear()
            before = (server.cpu_seconds(), *await _counters(client), server.round_trips())
            start = time.perf_counter() - n / rate
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(send(n))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(set(tasks), timeout=REQUEST_TIMEOUT_S + 2)
    # The events of the last requests reach the watchers (and the hub's reads finish).
    await asyncio.sleep(0.2)
    after = (server.cpu_seconds(), *await _counters(client), server.round_trips())
    count = total - opened
    server_s = (after[0] or 0.0) - (before[0] or 0.0)
    return Cost(
        kind,
        count,
        sum(1 for s in statuses if not 200 <= s < 300),
        dict(Counter(str(s) for s in statuses if not 200 <= s < 300)),
        server_s / count * 1e6,
        (after[1] - before[1]) / count * 1e6,
        (after[2] - before[2]) / count,
        (after[3] - before[3]) / count,
    )


async def measure(args: argparse.Namespace, redis_url: str) -> dict[str, Cost]:
    spec = ServerSpec("redis", "firefight", redis_url, "firefight, Redis store")
    client = aioredis.Redis.from_url(redis_url)
    costs: dict[str, Cost] = {}
    watchers: list[RawWatcher] = []
    with tempfile.TemporaryDirectory(prefix="firefight-capacity-") as log_dir:
        server = await start_server(spec, Path(log_dir), None)
        try:
            timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
            admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
            async with aiohttp.ClientSession(timeout=timeout, headers=admin) as session:
                tables = await _tables(session, server.base_url, TABLES)
                for kind in ("attack", "move", "preview", "get"):
                    print(f"bench.capacity: {kind} at {args.rate:g}/s ...", flush=True)
                    costs[kind] = await _phase(
                        session, server, client, kind, tables, args.rate, args.seconds
                    )
                watched = await _tables(session, server.base_url, TABLES)
                for table in watched:
                    for w in range(WATCHERS):
                        token = table.gm if w == 0 else table.player
                        path = f"/v1/encounters/{table.encounter_id}/ws?token={token}"
                        watchers.append(await RawWatcher.open(server.port, path))
                print(f"bench.capacity: attacks, {WATCHERS} watchers a table ...", flush=True)
                costs["attack, watched"] = await _phase(
                    session, server, client, "attack, watched", watched, args.rate, args.seconds
                )
        finally:
            for watcher in watchers:
                watcher.close()
            server.stop()
            await client.aclose()
    return costs


def model(costs: dict[str, Cost]) -> dict[str, float]:
    """The model's figures from the measured costs: one table's CPU on a replica and on Redis,
    and how many such tables each serves at HEADROOM of its one core or thread."""
    per_event_watcher = max(
        0.0, (costs["attack, watched"].server_us - costs["attack"].server_us) / WATCHERS
    )
    per_s = {kind: n / 60 for kind, n in PER_MINUTE.items()}
    events_per_s = sum(per_s[kind] for kind in CHANGES)
    server_us = sum(per_s[k] * costs[k].server_us for k in per_s)
    server_us += events_per_s * WATCHERS * per_event_watcher
    redis_us = sum(per_s[k] * costs[k].redis_us for k in per_s)
    redis_calls = sum(per_s[k] * costs[k].redis_calls for k in per_s)
    return {
        "fan-out µs per watcher and event": per_event_watcher,
        "requests/s per table": sum(per_s.values()),
        "events/s per table": events_per_s,
        "replica CPU µs/s per table": server_us,
        "Redis CPU µs/s per table": redis_us,
        "Redis commands/s per table": redis_calls,
        "tables per replica": HEADROOM * 1e6 / server_us,
        "tables per Redis": HEADROOM * 1e6 / redis_us if redis_us else float("inf"),
    }


def _print(costs: dict[str, Cost], figures: dict[str, float], markdown: bool) -> None:
    rows = [
        [
            c.kind,
            str(c.requests),
            str(c.errors),
            f"{c.server_us:,.0f}",
            f"{c.redis_us:,.1f}",
            f"{c.redis_calls:.2f}",
            f"{c.round_trips:.2f}",
        ]
        for c in costs.values()
    ]
    header = ["request", "measured", "errors", "server CPU µs", "Redis CPU µs"]
    header += ["Redis commands (Lua's too)", "round trips"]
    print("\nCost per request (open loop, Redis store):")
    print(_table(header, rows, markdown))
    assumed = ", ".join(f"{n:g} {kind}s" for kind, n in PER_MINUTE.items())
    print(
        f"\nThe table assumed, per minute: {assumed}; {WATCHERS} watchers; each attack and "
        "move an event for every watcher."
    )
    rows = [[name, f"{value:,.1f}"] for name, value in figures.items()]
    print(_table(["model (at 70% of one core / Redis thread)", "figure"], rows, markdown))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.capacity", description=__doc__)
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="requests/s per kind")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured, per kind")
    parser.add_argument(
        "--redis-url",
        default=None,
        help="a loopback Redis (default: one of its own when redis-server is installed; another "
        "client's commands would count as firefight's)",
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 1 <= args.rate <= 1000 or not 1 <= args.seconds <= 600:
        parser.error("--rate must be in [1, 1000] and --seconds in [1, 600]")
    print(
        f"bench.capacity: {args.rate:g} requests/s of each kind for {args.seconds:g} s, "
        f"{TABLES} tables; {os.cpu_count()} CPUs, Python {platform.python_version()}, commit "
        f"{_revision()}",
        flush=True,
    )
    with contextlib.ExitStack() as stack:
        redis_url = args.redis_url
        if redis_url is None:
            if shutil.which("redis-server"):
                redis_url = stack.enter_context(_own_redis())
            else:
                redis_url = os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL)
                print("bench.capacity: no redis-server here: other clients' commands count too")
        loopback_or_exit(parser, redis_url)
        try:
            costs = asyncio.run(_run(args, redis_url))
        except (ServerFailed, aiohttp.ClientError) as error:
            print(f"bench.capacity: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("bench.capacity: interrupted; server stopped", file=sys.stderr)
            return 130
    figures = model(costs)
    _print(costs, figures, args.markdown)
    if args.json is not None:
        args.json.write_text(
            json.dumps({"costs": [vars(c) for c in costs.values()], "model": figures}, indent=2)
        )
    errors = sum(c.errors for c in costs.values())
    if errors:
        failed = {c.kind: c.failed for c in costs.values() if c.failed}
        print(f"bench.capacity: requests failed, figures not valid: {failed}", file=sys.stderr)
        return 1
    return 0


async def _run(args: argparse.Namespace, redis_url: str) -> dict[str, Cost]:
    cancel_on_sigterm()
    return await measure(args, redis_url)


if __name__ == "__main__":
    sys.exit(main())
