"""`python -m bench.sustained`: firefight at a fixed request rate for a minute, with live watchers.

Open loop: request n is due at start + n / rate whether or not earlier answers came back, and its
latency is measured from that due time, so a server that falls behind shows it as latency instead
of silently slowing the load (no coordinated omission). Every encounter has WebSocket watchers
open the whole time; at the end each must have received every committed change once, in order.
See docs/performance.md, "Sustained load".
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import json
import os
import platform
import random
import signal
import sys
import tempfile
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.__main__ import _revision
from bench.closed_loop import DEFAULT_REDIS_URL, RedisCounters
from bench.load import REQUEST_TIMEOUT_S, PlannedRequest, worker_plan
from bench.servers import (
    BENCH_ADMIN_KEY,
    RunningServer,
    ServerFailed,
    ServerSpec,
    cancel_on_sigterm,
    loopback_or_exit,
    machine_cpu_seconds,
    start_server,
)
from bench.sustained_report import _in_window, _print, _report_faults, summarize
from bench.targets import Target, report
from service.store.redis import idempotency_key

# On the 2-core VM of docs/performance.md the closed-loop benchmark reaches about 1400 attacks/s
# on the Redis store; at 400/s, with the watchers and keys below, that server used about half of
# its core: loaded, well short of saturation.
DEFAULT_RATE = 400.0
DEFAULT_SECONDS = 60.0
DEFAULT_WARMUP = 2.0
DEFAULT_ENCOUNTERS = 8
# Each plan is bench.load's cycle of 2 attackers (32 shots each, then both recoil resets); two
# plans interleaved per encounter make 4 attackers taking turns.
PLANS_PER_ENCOUNTER = 2
DEFAULT_WATCHERS = 2
# Share of planned requests sent with a fresh Idempotency-Key, and of slots spent re-sending the
# key of an earlier answered request (which must be replayed, not applied again).
DEFAULT_KEYED = 0.10
DEFAULT_RETRIES = 0.02
RETRY_POOL = 256
# After the DELETEs, how long the watchers get to see `encounter_ended` and be closed.
DRAIN_TIMEOUT_S = 10.0
HEADERS = {"Content-Type": "application/json"}
STORES = {
    "redis": "firefight, Redis store",
    "memory": "firefight, embedded in-memory store",
}


class _Answer(msgspec.Struct):
    event_id: str


class _Event(msgspec.Struct):
    id: str
    type: str


_decode_answer = msgspec.json.Decoder(_Answer).decode
_decode_event = msgspec.json.Decoder(_Event).decode


@dataclass(eq=False)
class Sent:
    """One scheduled request and what became of it (times are time.perf_counter())."""

    kind: str  # "attack", "reset" or "replay" (a retry of an earlier keyed request)
    encounter: int
    path: str
    body: bytes
    key: str | None
    due: float
    started: float = 0.0
    done: float = 0.0
    status: int = 0
    event_id: str | None = None
    replayed: bool = False
    answer: bytes = b""
    detail: str = ""
    original: Sent | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def latency_s(self) -> float:
        """From the time the request was due: what a client on schedule would wait."""
        return self.done - self.due

    @property
    def service_s(self) -> float:
        """From the time it actually left: what a closed-loop benchmark would report."""
        return self.done - self.started


class Mix:
    """The request sequence: encounters in turn, each walking its interleaved attack cycles."""

    def __init__(self, encounters: list[str], keyed: float, retries: float, seed: int) -> None:
        self._rng = random.Random(seed)
        self._keyed = keyed
        self._retries = retries
        self._plans: list[list[PlannedRequest]] = []
        for e, encounter_id in enumerate(encounters):
            cycles = [
                worker_plan(e * PLANS_PER_ENCOUNTER + p, encounter_id)
                for p in range(PLANS_PER_ENCOUNTER)
            ]
            self._plans.append([r for turn in zip(*cycles, strict=True) for r in turn])
        self._cursors = [0] * len(encounters)
        self._slot = 0
        self._answered_keyed: deque[Sent] = deque(maxlen=RETRY_POOL)

    def next(self, due: float) -> Sent:
        if self._answered_keyed and self._rng.random() < self._retries:
            first = self._rng.choice(self._answered_keyed)
            return Sent(
                "replay", first.encounter, first.path, first.body, first.key, due, original=first
            )
        e = self._slot % len(self._plans)
        self._slot += 1
        plan = self._plans[e]
        planned = plan[self._cursors[e] % len(plan)]
        self._cursors[e] += 1
        key = str(uuid.uuid4()) if self._rng.random() < self._keyed else None
        kind = "attack" if planned.is_attack else "reset"
        return Sent(kind, e, planned.path, planned.body, key, due)

    def answered(self, sent: Sent) -> None:
        if sent.key is not None and sent.kind != "replay" and sent.ok and not sent.replayed:
            self._answered_keyed.append(sent)


@dataclass(eq=False)
class Watcher:
    encounter: int
    index: int
    # (event id, arrival time) of every event but `encounter_ended`, in arrival order.
    received: list[tuple[str, float]] = field(default_factory=list)
    ended: bool = False
    close_code: int | None = None
    problem: str | None = None


@dataclass
class Sampled:
    """Counters read when the measuring window opens and closes."""

    server_cpu: float | None = None
    client_cpu: float | None = None
    redis_cpu: float | None = None
    machine_cpu: float | None = None
    steal_cpu: float | None = None
    server_rss_kb: int | None = None
    # Seconds the server was ready to run but waited for a core (Linux schedstat), and the
    # times the kernel took the core from it.
    server_run_queue: float | None = None
    server_preempted: int | None = None


@dataclass
class Run:
    store: str
    description: str
    rate: float
    warmup_s: float
    seconds: float
    sent: list[Sent] = field(default_factory=list)
    watchers: list[Watcher] = field(default_factory=list)
    encounter_ids: list[str] = field(default_factory=list)
    # The version each encounter had before it was ended: 1 + the changes committed to it.
    versions: list[int | None] = field(default_factory=list)
    window: tuple[float, float] = (0.0, 0.0)
    opened: Sampled = field(default_factory=Sampled)
    closed: Sampled = field(default_factory=Sampled)
    max_in_flight: int = 0
    client_gc_pauses: list[float] = field(default_factory=list)
    # The server's own collections in the window: (start, seconds, generation), start on
    # this process's time.perf_counter().
    server_collections: list[tuple[float, float, int]] = field(default_factory=list)
    # Past the closed-loop maximum: 503s (the service shedding load) are expected answers.
    shedding_expected: bool = False
    problems: list[str] = field(default_factory=list)
    exit_code: int | None = None


class GcPauses:
    """The load generator's own garbage-collection pauses: they delay sends and arrivals alike."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0
        self._thresholds: tuple[int, int, int] = gc.get_threshold()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._started)

    def __enter__(self) -> GcPauses:
        # The records of every request (tens of thousands) make each full collection longer: one
        # took 78 ms here, which stalls sends and arrivals alike and shows up as the service's
        # latency. Young collections, which reclaim what dies young, still run; the full ones
        # wait until the run is over.
        self._thresholds = gc.get_threshold()
        gc.set_threshold(self._thresholds[0], self._thresholds[1], 1_000_000)
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)
        gc.set_threshold(*self._thresholds)
        gc.collect()


def run_queue(pid: int) -> tuple[float, int] | None:
    """(seconds spent ready to run but waiting for a core, involuntary context switches) of a
    process so far (Linux /proc), else None. On a shared machine this is where a request's time
    goes while the process holding it waits for the CPU: the machine's share of a latency, not
    the server's."""
    try:
        waited_ns = int(Path(f"/proc/{pid}/schedstat").read_text().split()[1])
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, ValueError, IndexError):
        return None
    for line in status.splitlines():
        if line.startswith("nonvoluntary_ctxt_switches:"):
            return waited_ns / 1e9, int(line.split()[1])
    return None


def _server_rss_kb(server: RunningServer) -> int | None:
    try:
        status = Path(f"/proc/{server.process.pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


async def _sample(server: RunningServer, counters: RedisCounters | None) -> Sampled:
    machine = machine_cpu_seconds()
    sampled = Sampled(
        server_cpu=server.cpu_seconds(),
        client_cpu=time.process_time(),
        machine_cpu=machine[0] if machine else None,
        steal_cpu=machine[1] if machine else None,
        server_rss_kb=_server_rss_kb(server),
    )
    queued = run_queue(server.process.pid)
    if queued is not None:
        sampled.server_run_queue, sampled.server_preempted = queued
    if counters is not None:
        sampled.redis_cpu = (await counters.sample())["redis"]
    return sampled


async def _send(
    session: aiohttp.ClientSession,
    base_url: str,
    sent: Sent,
    mix: Mix,
    flight: list[int],
    window: tuple[float, float],
) -> None:
    flight[0] += 1
    if window[0] <= sent.due < window[1]:
        flight[1] = max(flight[1], flight[0])
    headers = HEADERS if sent.key is None else {**HEADERS, "Idempotency-Key": sent.key}
    sent.started = time.perf_counter()
    try:
        async with session.post(base_url + sent.path, data=sent.body, headers=headers) as response:
            payload = await response.read()
            sent.status = response.status
            sent.replayed = response.headers.get("Idempotent-Replayed") == "true"
    except (aiohttp.ClientError, TimeoutError) as error:
        sent.status, payload = 0, f"{type(error).__name__}: {error}".encode()
    finally:
        sent.done = time.perf_counter()
        flight[0] -= 1
    if sent.ok:
        try:
            sent.event_id = _decode_answer(payload).event_id
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            sent.status = -1  # a 2xx without an event id is an error too
            sent.detail = f"{error}: {payload[:200].decode(errors='replace')}"
        if sent.key is not None:
            sent.answer = payload
    else:
        sent.detail = payload.decode(errors="replace")[:300]
    mix.answered(sent)


async def _drive(
    session: aiohttp.ClientSession,
    base_url: str,
    mix: Mix,
    run: Run,
    start: float,
) -> None:
    """Sends request n at start + n / rate, each in its own task, whatever came back so far."""
    total = round((run.warmup_s + run.seconds) * run.rate)
    flight = [0, 0]  # in flight now, most when a measured request left
    tasks: set[asyncio.Task[None]] = set()
    try:
        for n in range(total):
            due = start + n / run.rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sent = mix.next(due)
            run.sent.append(sent)
            task = asyncio.create_task(_send(session, base_url, sent, mix, flight, run.window))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        # Every request is bounded by the session's timeout; this only bounds the wait for them.
        if tasks:
            await asyncio.wait(set(tasks), timeout=REQUEST_TIMEOUT_S + 2)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        run.max_in_flight = flight[1]


async def _watch(socket: aiohttp.ClientWebSocketResponse, watcher: Watcher) -> None:
    try:
        async for message in socket:
            arrived = time.perf_counter()
            if message.type == aiohttp.WSMsgType.TEXT:
                event = _decode_event(message.data)
                if event.type == "encounter_ended":
                    watcher.ended = True
                else:
                    watcher.received.append((event.id, arrived))
            elif message.type == aiohttp.WSMsgType.ERROR:
                watcher.problem = f"socket error: {socket.exception()}"
            else:
                watcher.problem = f"unexpected {message.type.name} message"
    except (aiohttp.ClientError, msgspec.DecodeError) as error:
        watcher.problem = f"{type(error).__name__}: {error}"
    watcher.close_code = socket.close_code


async def _create(
    session: aiohttp.ClientSession, base_url: str, count: int, ids: list[str]
) -> list[tuple[str, str]]:
    """(encounter id, the event id of its creation) for each new encounter; each id is also
    added to `ids` as soon as it exists, so that a failure half-way still cleans up."""
    created = []
    for _ in range(count):
        async with session.post(
            f"{base_url}/v1/encounters", json={"ruleset": "sr5", "name": "sustained"}
        ) as response:
            body = await response.read()
            if response.status != 201:
                raise ServerFailed(
                    f"creating an encounter answered {response.status}: "
                    f"{body.decode(errors='replace')[:300]}"
                )
            answer: dict[str, Any] = json.loads(body)
            created.append((str(answer["id"]), str(answer["event_id"])))
            ids.append(created[-1][0])
    return created


async def _forget(client: aioredis.Redis, encounter_ids: list[str]) -> None:
    """Removes the run's encounters, events and idempotency answers from Redis."""
    await RedisCounters(client).forget(encounter_ids)
    for encounter_id in encounter_ids:
        pattern = idempotency_key(encounter_id, "*")
        batch = [k async for k in client.scan_iter(match=pattern, count=1000)]
        if batch:
            await client.unlink(*batch)


async def _measure(
    spec: ServerSpec,
    args: argparse.Namespace,
    log_dir: Path,
    client: aioredis.Redis | None,
    shedding_expected: bool = False,
) -> Run:
    run = Run(spec.name, spec.description, args.rate, args.warmup, args.seconds)
    run.shedding_expected = shedding_expected
    server = await start_server(spec, log_dir, None)
    counters = RedisCounters(client) if client is not None and spec.redis_url else None
    admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    connector = aiohttp.TCPConnector(limit=args.connections, limit_per_host=args.connections)
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    readers: list[asyncio.Task[None]] = []
    try:
        async with (
            aiohttp.ClientSession(connector=connector, timeout=timeout, headers=admin) as session,
            # The watchers authenticate as a browser must, with ?token= (and no total timeout:
            # a socket lives for the whole run).
            aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=REQUEST_TIMEOUT_S)
            ) as watching,
        ):
            created = await _create(session, server.base_url, args.encounters, run.encounter_ids)
            for e, (encounter_id, created_event) in enumerate(created):
                for w in range(args.watchers):
                    socket = await watching.ws_connect(
                        f"{server.base_url}/v1/encounters/{encounter_id}/ws",
                        params={"token": BENCH_ADMIN_KEY, "after": created_event},
                        autoping=True,
                    )
                    sockets.append(socket)
                    watcher = Watcher(e, w)
                    run.watchers.append(watcher)
                    readers.append(asyncio.create_task(_watch(socket, watcher)))

            mix = Mix(run.encounter_ids, args.keyed, args.retries, args.seed)

            async def sample_window() -> None:
                await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()))
                run.opened = await _sample(server, counters)
                await asyncio.sleep(max(0.0, run.window[1] - time.perf_counter()))
                run.closed = await _sample(server, counters)

            start = time.perf_counter() + 0.1
            run.window = (start + run.warmup_s, start + run.warmup_s + run.seconds)
            sampler = asyncio.create_task(sample_window())
            try:
                with GcPauses() as pauses:
                    await _drive(session, server.base_url, mix, run, start)
                run.client_gc_pauses = pauses.pauses
                await asyncio.wait_for(sampler, REQUEST_TIMEOUT_S)
            finally:
                sampler.cancel()

            # The server's own count of changes, then the end of each encounter, which every
            # watcher must see as its last event before the server closes the socket.
            for encounter_id in run.encounter_ids:
                url = f"{server.base_url}/v1/encounters/{encounter_id}"
                async with session.get(url) as response:
                    body = await response.read()
                    ok = response.status == 200
                    run.versions.append(int(json.loads(body)["version"]) if ok else None)
                async with session.delete(url) as response:
                    await response.read()
                    if response.status != 204:
                        run.problems.append(f"ending encounter {encounter_id}: {response.status}")
            pending: set[asyncio.Task[None]] = set()
            if readers:
                _, pending = await asyncio.wait(readers, timeout=DRAIN_TIMEOUT_S)
            if pending:
                run.problems.append(
                    f"{len(pending)} watchers were still open {DRAIN_TIMEOUT_S:g} s after the "
                    "encounters ended"
                )
        if not server.alive():
            run.problems.append(f"the server died during the run:\n{server.log_tail()}")
        run.server_collections = _in_window(server.collections(), run.window)
    finally:
        for socket in sockets:
            if not socket.closed:
                await socket.close()
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        if client is not None and spec.redis_url and run.encounter_ids:
            await _forget(client, run.encounter_ids)
        run.exit_code = server.stop()
    if run.exit_code not in (0, -signal.SIGTERM):
        run.problems.append(f"the server exited with code {run.exit_code}:\n{server.log_tail()}")
    return run


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.sustained",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="requests per second")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured window")
    parser.add_argument("--warmup", type=float, default=DEFAULT_WARMUP, help="at the same rate")
    parser.add_argument("--store", choices=["redis", "memory", "both"], default="redis")
    parser.add_argument("--encounters", type=int, default=DEFAULT_ENCOUNTERS)
    parser.add_argument(
        "--watchers", type=int, default=DEFAULT_WATCHERS, help="WebSockets per encounter"
    )
    parser.add_argument(
        "--keyed", type=float, default=DEFAULT_KEYED, help="share sent with an Idempotency-Key"
    )
    parser.add_argument(
        "--retries", type=float, default=DEFAULT_RETRIES, help="share of slots re-sending a key"
    )
    parser.add_argument("--connections", type=int, default=256, help="client connection cap")
    parser.add_argument("--seed", type=int, default=1, help="of the request mix")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL),
        help="the Redis of the redis store (loopback only)",
    )
    parser.add_argument(
        "--server-gc",
        choices=["tuned", "default", "both"],
        default="tuned",
        help="the server's garbage collection: as it ships, Python's defaults, or both in turn",
    )
    parser.add_argument(
        "--max-in-flight",
        type=int,
        default=None,
        help="the server's FIREFIGHT_MAX_IN_FLIGHT (0: no limit; unset: its default)",
    )
    parser.add_argument(
        "--targets",
        action="store_true",
        help="measure the closed-loop maximum, then run at half of it (p99 against the bare "
        "baseline at the same rate, GC pauses) and past it (--overload; no timeouts target); "
        "--rate is then ignored (bench/sustained_targets.py)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=5.0, help="closed-loop window of --targets"
    )
    parser.add_argument(
        "--overload", type=float, default=1.5, help="--targets: past the maximum by this factor"
    )
    parser.add_argument(
        "--overload-seconds", type=float, default=20.0, help="--targets: the overload window"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    args = parser.parse_args(argv)
    if args.max_in_flight is not None and args.max_in_flight < 0:
        parser.error("--max-in-flight must be 0 (no limit) or more")
    if not 0 < args.max_seconds <= 600 or not 0 < args.overload_seconds <= 3600:
        parser.error("--max-seconds must be in (0, 600] and --overload-seconds in (0, 3600]")
    if not 1 < args.overload <= 10:
        parser.error("--overload must be in (1, 10]")
    if not 0 < args.rate <= 5000:
        parser.error("--rate must be in (0, 5000]")
    if not 0 < args.seconds <= 3600 or not 0 <= args.warmup <= 60:
        parser.error("--seconds must be in (0, 3600] and --warmup in [0, 60]")
    if not 1 <= args.encounters <= 64 or not 0 <= args.watchers <= 16:
        parser.error("--encounters must be in [1, 64] and --watchers in [0, 16]")
    if not 0 <= args.keyed <= 1 or not 0 <= args.retries < 1:
        parser.error("--keyed must be in [0, 1] and --retries in [0, 1)")
    if not 1 <= args.connections <= 1000:
        parser.error("--connections must be in [1, 1000]")
    loopback_or_exit(parser, args.redis_url)
    return args


def _specs(args: argparse.Namespace) -> list[ServerSpec]:
    stores = ["redis", "memory"] if args.store == "both" else [args.store]
    gcs = ["default", "tuned"] if args.server_gc == "both" else [args.server_gc]
    env = (
        ()
        if args.max_in_flight is None
        else (("FIREFIGHT_MAX_IN_FLIGHT", str(args.max_in_flight)),)
    )
    specs = []
    for store in stores:
        for gc_setting in gcs:
            default_gc = gc_setting == "default"
            specs.append(
                ServerSpec(
                    f"{store}, Python's default GC" if default_gc else store,
                    "firefight",
                    args.redis_url if store == "redis" else None,
                    STORES[store],
                    default_gc=default_gc,
                    env=env,
                )
            )
    return specs


async def _run(args: argparse.Namespace) -> int:
    cancel_on_sigterm()
    specs = _specs(args)
    client: aioredis.Redis | None = None
    if any(spec.redis_url for spec in specs):
        client = aioredis.Redis.from_url(args.redis_url, socket_connect_timeout=2)
        try:
            await client.ping()
        except (RedisError, OSError) as error:
            await client.aclose()
            print(f"bench.sustained: no Redis at {args.redis_url} ({error})", file=sys.stderr)
            return 2
    rate = (
        f"half and {args.overload:g}x the closed-loop maximum"
        if args.targets
        else f"{args.rate:g} requests/s"
    )
    print(
        f"bench.sustained: {rate} for {args.seconds:g} s (+{args.warmup:g} s "
        f"warm-up), open loop, over {args.encounters} encounters of "
        f"{2 * PLANS_PER_ENCOUNTER} attackers, {args.watchers} WebSocket watchers each, "
        f"{args.keyed:.0%} with an Idempotency-Key, {args.retries:.0%} retries; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, commit {_revision()}",
        flush=True,
    )
    results: list[dict[str, Any]] = []
    targets: list[Target] = []
    try:
        with tempfile.TemporaryDirectory(prefix="firefight-sustained-") as log_dir:
            for spec in specs:
                if args.targets:
                    # Imported here: bench.sustained_targets builds on this module.
                    from bench.sustained_targets import tail_targets

                    targets += await tail_targets(spec, args, Path(log_dir), client, results)
                    continue
                print(f"bench.sustained: {spec.name} ({spec.description}) ...", flush=True)
                run = await _measure(spec, args, Path(log_dir), client)
                figures = summarize(run)
                results.append(figures)
                _print(figures, args.markdown)
    finally:
        if client is not None:
            await client.aclose()
    if args.json is not None:
        report_json = {
            "date": datetime.date.today().isoformat(),
            "revision": _revision(),
            "machine": {
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "stores": results,
        }
        args.json.write_text(json.dumps(report_json, indent=2) + "\n")
        print(f"figures written to {args.json}")
    if targets:
        report(targets)
    return 1 if _report_faults(results) else 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        return asyncio.run(_run(args))
    except (ServerFailed, aiohttp.ClientError) as error:
        print(f"bench.sustained: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(
            "bench.sustained: interrupted; server stopped, its Redis keys removed", file=sys.stderr
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
