"""`python -m bench.capacity`: the CPU each kind of request costs firefight on the Redis store,
and what that makes of one replica and one Redis at a table's pace.

One firefight server (`python -m bench.server`, as every benchmark starts it) on a Redis of its
own (so that Redis's CPU and command counts are firefight's alone), 32 encounters. Each kind of
request is sent by a few clients at once (a closed loop: each sends its next request when its
answer is back), spread over the encounters, for a measured window after a warm-up:
attacks (with `make bench`'s recoil resets), moves, odds previews, GETs of the encounter, and the
attacks again with 1 and with 20 WebSocket watchers on each of 8 tables (the differences are
the fan-out: per event, and per watcher and event). Per request: the server's CPU (/proc, its
threads included: previews run in a thread), Redis's CPU (INFO cpu) and its commands (INFO
commandstats).
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

from bench.__main__ import _revision, _table
from bench.closed_loop import DEFAULT_REDIS_URL
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

# Requests in flight at once: CPU per request falls as more share each wake-up of the event
# loop; a few in flight is a replica busy with many tables, not one saturated by a load test.
DEFAULT_IN_FLIGHT = 4
DEFAULT_SECONDS = 6.0
WARMUP_S = 1.0
# Enough tables that no token or encounter reaches its previews-in-flight budget (2 and 4).
TABLES = 32
# The watchers of a table: a GM and four players.
WATCHERS = 5
# The fan-out is measured with 1 and with MANY watchers on each of FEW tables: the difference is
# the cost of each socket an event is written to; 1 watcher against none, the reader's cost per
# event (its XREAD, the frames made once per audience).
FEW, MANY = 8, 20
WATCHED = ("attack, 1 watcher", f"attack, {MANY} watchers")
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

    return {"move": move, "preview": preview, "get": get}.get(kind, attack)


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
    in_flight: int,
    seconds: float,
) -> Cost:
    """`in_flight` clients, each sending its next request when its answer is back, for
    WARMUP_S and then `seconds` measured; the costs of the measured window. (A closed loop, so
    that a machine busy with other work slows the run down instead of filling the server's
    admission limit with requests that are then refused.)"""
    make = _requests(kind, tables)
    statuses: list[int] = []
    sequence = iter(range(10**9))
    measuring = False
    stop_at = time.perf_counter() + WARMUP_S + seconds

    async def client_loop() -> None:
        while time.perf_counter() < stop_at:
            method, path, body, token = make(next(sequence))
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            try:
                async with session.request(
                    method, server.base_url + path, data=body, headers=headers
                ) as answer:
                    await answer.read()
                    status = answer.status
            except (aiohttp.ClientError, TimeoutError):
                status = 0
            if measuring:
                statuses.append(status)

    async def window() -> tuple[tuple[float | None, float, float, int], ...]:
        nonlocal measuring
        await asyncio.sleep(WARMUP_S)
        before = (server.cpu_seconds(), *await _counters(client), server.round_trips())
        measuring = True
        await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
        measuring = False
        after = (server.cpu_seconds(), *await _counters(client), server.round_trips())
        return before, after

    sampler = asyncio.create_task(window())
    await asyncio.gather(*(client_loop() for _ in range(in_flight)))
    before, after = await sampler
    count = max(1, len(statuses))
    server_s = (after[0] or 0.0) - (before[0] or 0.0)
    return Cost(
        kind,
        len(statuses),
        sum(1 for s in statuses if not 200 <= s < 300),
        dict(Counter(str(s) for s in statuses if not 200 <= s < 300)),
        server_s / count * 1e6,
        (after[1] - before[1]) / count * 1e6,
        (after[2] - before[2]) / count,
        (after[3] - before[3]) / count,
    )


async def measure(args: argparse.Namespace, redis_url: str) -> dict[str, Cost]:
    # The players' watchers of a table share its one player token.
    sockets = (("FIREFIGHT_MAX_SOCKETS_PER_TOKEN", str(MANY)),)
    spec = ServerSpec("redis", "firefight", redis_url, "firefight, Redis store", env=sockets)
    client = aioredis.Redis.from_url(redis_url)
    costs: dict[str, Cost] = {}
    watchers: list[RawWatcher] = []
    phase = (args.in_flight, args.seconds)
    with tempfile.TemporaryDirectory(prefix="firefight-capacity-") as log_dir:
        server = await start_server(spec, Path(log_dir), None)
        try:
            timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
            admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
            async with aiohttp.ClientSession(timeout=timeout, headers=admin) as session:
                tables = await _tables(session, server.base_url, TABLES)
                for kind in ("attack", "move", "preview", "get"):
                    print(f"bench.capacity: {kind} ...", flush=True)
                    costs[kind] = await _phase(session, server, client, kind, tables, *phase)
                for kind, count in zip(WATCHED, (1, MANY), strict=True):
                    watched = await _tables(session, server.base_url, FEW)
                    for table in watched:
                        for w in range(count):
                            token = table.gm if w == 0 else table.player
                            path = f"/v1/encounters/{table.encounter_id}/ws?token={token}"
                            watchers.append(await RawWatcher.open(server.port, path))
                    print(f"bench.capacity: {kind} a table ...", flush=True)
                    costs[kind] = await _phase(session, server, client, kind, watched, *phase)
                    for watcher in watchers:
                        watcher.close()
                    watchers.clear()
        finally:
            for watcher in watchers:
                watcher.close()
            server.stop()
            await client.aclose()
    return costs


def model(costs: dict[str, Cost]) -> dict[str, float]:
    """The model's figures from the measured costs: one table's CPU on a replica and on Redis,
    and how many such tables each serves at HEADROOM of its one core or thread."""
    alone, one, many = (costs[k].server_us for k in ("attack", *WATCHED))
    per_watcher = max(0.0, (many - one) / (MANY - 1))
    per_event = max(0.0, one - alone - per_watcher)
    per_s = {kind: n / 60 for kind, n in PER_MINUTE.items()}
    events_per_s = sum(per_s[kind] for kind in CHANGES)
    server_us = sum(per_s[k] * costs[k].server_us for k in per_s)
    server_us += events_per_s * (per_event + WATCHERS * per_watcher)
    redis_us = sum(per_s[k] * costs[k].redis_us for k in per_s)
    # The reader's XREAD of each event (one per batch, whatever the watchers).
    reader_redis = max(0.0, costs[WATCHED[0]].redis_us - costs["attack"].redis_us)
    redis_us += events_per_s * reader_redis
    redis_calls = sum(per_s[k] * costs[k].redis_calls for k in per_s)
    return {
        "fan-out µs per event (the reader)": per_event,
        "fan-out µs per event and watcher": per_watcher,
        "Redis µs per event read (the reader)": reader_redis,
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
    print("\nCost per request (Redis store):")
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
    parser.add_argument(
        "--in-flight", type=int, default=DEFAULT_IN_FLIGHT, help="requests at once (clients)"
    )
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
    if not 1 <= args.in_flight <= 30 or not 1 <= args.seconds <= 600:
        parser.error("--in-flight must be in [1, 30] and --seconds in [1, 600]")
    print(
        f"bench.capacity: each kind of request, {args.in_flight} at once, for {args.seconds:g} s, "
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
