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
import itertools
import json
import os
import platform
import random
import resource
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.__main__ import DEFAULT_REDIS_URL, RedisCounters, _revision, _table
from bench.load import REQUEST_TIMEOUT_S, PlannedRequest, percentile, worker_plan
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
from bench.targets import Target, report
from service.store.base import parse_event_id
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
# Time-line buckets of the report.
INTERVAL_S = 10.0
# After the DELETEs, how long the watchers get to see `encounter_ended` and be closed.
DRAIN_TIMEOUT_S = 10.0
ERROR_SAMPLES = 8
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


def _in_window(
    collections: list[tuple[float, float, int]], window: tuple[float, float]
) -> list[tuple[float, float, int]]:
    """The server's collections that started in the window, moved from its CLOCK_MONOTONIC
    (time.monotonic) onto this process's time.perf_counter (the same clock on Linux; the
    offset covers a platform where they differ)."""
    offset = time.monotonic() - time.perf_counter()
    moved = [(start - offset, seconds, generation) for start, seconds, generation in collections]
    return [c for c in moved if window[0] <= c[0] < window[1]]


# --- figures ---------------------------------------------------------------------------------


def _ms(values: list[float], p: float) -> float:
    return round(percentile(values, p) * 1000, 2)


def _spread(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": _ms(ordered, 50),
        "p90": _ms(ordered, 90),
        "p99": _ms(ordered, 99),
        "max": round(ordered[-1] * 1000, 2) if ordered else 0.0,
    }


def _measured(run: Run) -> list[Sent]:
    opened, closed = run.window
    return [s for s in run.sent if opened <= s.due < closed]


def _events(run: Run) -> dict[str, Any]:
    """Every watcher's events against the changes committed to its encounter."""
    committed: list[dict[str, Sent]] = [{} for _ in run.encounter_ids]
    # Two requests answered as new with the same event id: one change applied twice, or a
    # replay not marked as one.
    shared_ids = 0
    for s in run.sent:
        if s.ok and s.event_id is not None and not s.replayed:
            shared_ids += s.event_id in committed[s.encounter]
            committed[s.encounter][s.event_id] = s
    opened, closed = run.window
    lags: list[float] = []
    after_answer: list[float] = []
    watchers = []
    for w in run.watchers:
        ids = [event_id for event_id, _ in w.received]
        expected = committed[w.encounter]
        seen = set(ids)
        positions = [parse_event_id(i) for i in ids]
        out_of_order = sum(1 for a, b in itertools.pairwise(positions) if b <= a)
        for event_id, arrived in w.received:
            source = expected.get(event_id)
            if source is not None and opened <= source.due < closed:
                lags.append(arrived - source.due)
                after_answer.append(arrived - source.done)
        watchers.append(
            {
                "encounter": w.encounter,
                "watcher": w.index,
                "committed": len(expected),
                "received": len(ids),
                "lost": len(set(expected) - seen),
                "duplicates": len(ids) - len(seen),
                "unexpected": len(seen - set(expected)),
                "out_of_order": out_of_order,
                "ended": w.ended,
                "close_code": w.close_code,
                "problem": w.problem,
            }
        )
    after_answer.sort()
    encounters = []
    for e, expected in enumerate(committed):
        version = run.versions[e] if e < len(run.versions) else None
        changes = None if version is None else version - 1
        encounters.append({"committed": len(expected), "server_changes": changes})
    return {
        "encounters": encounters,
        "watchers": watchers,
        "lag_from_due_ms": _spread(lags),
        "arrival_after_answer_ms": {
            "p50": _ms(after_answer, 50),
            "p99": _ms(after_answer, 99),
            "min": round(after_answer[0] * 1000, 2) if after_answer else 0.0,
        },
        "lag_samples": len(lags),
        "answers_sharing_an_event_id": shared_ids,
    }


def _event_faults(events: dict[str, Any]) -> list[str]:
    faults = []
    if events["answers_sharing_an_event_id"]:
        faults.append(
            f"{events['answers_sharing_an_event_id']} answers (not replays) repeat the event id "
            "of another answer"
        )
    for e, counts in enumerate(events["encounters"]):
        if counts["server_changes"] is None:
            faults.append(f"encounter {e}: its version could not be read")
        elif counts["server_changes"] != counts["committed"]:
            faults.append(
                f"encounter {e}: the server counts {counts['server_changes']} changes, the "
                f"answers {counts['committed']}"
            )
    for w in events["watchers"]:
        name = f"encounter {w['encounter']} watcher {w['watcher']}"
        for what in ("lost", "duplicates", "unexpected", "out_of_order"):
            if w[what]:
                faults.append(f"{name}: {w[what]} {what.replace('_', ' ')}")
        if w["received"] != w["committed"]:
            faults.append(f"{name}: received {w['received']}, committed {w['committed']}")
        if not w["ended"] or w["close_code"] != 1000:
            faults.append(f"{name}: ended={w['ended']}, close code {w['close_code']}")
        if w["problem"]:
            faults.append(f"{name}: {w['problem']}")
    return faults


def _replay_faults(run: Run) -> list[str]:
    """A retry must be answered as a replay of the very first answer."""
    faults = []
    for s in run.sent:
        if s.kind != "replay" or not s.ok or s.original is None:
            continue
        if not s.replayed:
            faults.append(f"retry of key {s.key} was not marked Idempotent-Replayed")
        elif s.answer != s.original.answer:
            faults.append(f"retry of key {s.key} answered differently from the first time")
    return faults


def _share(run: Run, name: str) -> float | None:
    start: float | None = getattr(run.opened, name)
    end: float | None = getattr(run.closed, name)
    if start is None or end is None or not run.seconds:
        return None
    return round((end - start) / run.seconds, 3)


def _error_kind(sent: Sent) -> str:
    """The status and problem type of a failed request (firefight answers problem+json)."""
    kind = sent.detail[:60]
    try:
        problem = json.loads(sent.detail)
        if isinstance(problem, dict) and "type" in problem:
            kind = str(problem["type"]).rsplit("/", 1)[-1]
    except ValueError:
        pass
    return f"{sent.status} {kind}"


def _other(run: Run) -> float | None:
    """What the rest of the machine used: busy CPU less the server, the client and Redis."""
    parts = [_share(run, n) for n in ("machine_cpu", "server_cpu", "client_cpu")]
    if any(p is None for p in parts):
        return None
    machine, server, client = (p or 0.0 for p in parts)
    return round(max(0.0, machine - server - client - (_share(run, "redis_cpu") or 0.0)), 3)


def summarize(run: Run) -> dict[str, Any]:
    measured = _measured(run)
    opened, closed = run.window
    answered = [s for s in run.sent if s.done and opened <= s.done < closed]
    errors = [s for s in run.sent if not s.ok and not (run.shedding_expected and _shed(s))]
    kinds = {
        "all": measured,
        "attacks, no key": [s for s in measured if s.kind == "attack" and s.key is None],
        "recoil resets, no key": [s for s in measured if s.kind == "reset" and s.key is None],
        "first sends with a key": [s for s in measured if s.kind != "replay" and s.key],
        "retries (replays)": [s for s in measured if s.kind == "replay"],
    }
    latency = {
        name: {"requests": len(group), **_spread([s.latency_s for s in group if s.done])}
        for name, group in kinds.items()
    }
    timeline = []
    step = min(INTERVAL_S, run.seconds)
    t = opened
    while t < closed - 1e-9:
        bucket = [s for s in measured if t <= s.due < min(t + step, closed)]
        timeline.append(
            {
                "from_s": round(t - opened, 1),
                "requests": len(bucket),
                "errors": sum(1 for s in bucket if not s.ok),
                **_spread([s.latency_s for s in bucket if s.done]),
            }
        )
        t += step
    lateness = sorted(s.started - s.due for s in measured if s.started)
    events = _events(run)
    rss = (run.opened.server_rss_kb, run.closed.server_rss_kb)
    return {
        "store": run.store,
        "description": run.description,
        "encounter_ids": run.encounter_ids,
        "target_rate": run.rate,
        "warmup_s": run.warmup_s,
        "seconds": run.seconds,
        "requests_total": len(run.sent),
        "requests_measured": len(measured),
        "sent_per_s": round(sum(1 for s in measured if s.started) / run.seconds, 1),
        "answered_per_s": round(len(answered) / run.seconds, 1),
        "errors": len(errors),
        "errors_measured": sum(
            1 for s in measured if not s.ok and not (run.shedding_expected and _shed(s))
        ),
        "shed_measured": sum(1 for s in measured if _shed(s)),
        "timeouts_measured": sum(1 for s in measured if s.status == 0),
        "admitted_latency_ms": _spread([s.latency_s for s in measured if s.ok]),
        "statuses": {str(k): v for k, v in sorted(Counter(s.status for s in run.sent).items())},
        "error_kinds": dict(Counter(_error_kind(s) for s in errors).most_common()),
        "error_samples": [
            f"{s.kind} {s.path} -> {s.status}: {s.detail}" for s in errors[:ERROR_SAMPLES]
        ],
        "latency_ms": latency,
        "service_time_ms": _spread([s.service_s for s in measured if s.done]),
        "send_lateness_ms": {
            "p50": _ms(lateness, 50),
            "p99": _ms(lateness, 99),
            "max": round(lateness[-1] * 1000, 2) if lateness else 0.0,
        },
        "max_in_flight": run.max_in_flight,
        "server_gc": _collections(run.server_collections, run.seconds),
        "client_gc": {
            "collections": len(run.client_gc_pauses),
            "total_ms": round(sum(run.client_gc_pauses) * 1000, 2),
            "max_ms": round(max(run.client_gc_pauses, default=0.0) * 1000, 2),
        },
        # Linux reports kB; the peak of the whole process so far (all stores of the run).
        "client_max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "keyed_first_sends": sum(1 for s in run.sent if s.key and s.kind != "replay"),
        "replays": sum(1 for s in run.sent if s.kind == "replay"),
        "timeline": timeline,
        "events": events,
        "cpu_share_of_one_core": {
            "server": _share(run, "server_cpu"),
            "client": _share(run, "client_cpu"),
            "redis": _share(run, "redis_cpu"),
            "machine_busy": _share(run, "machine_cpu"),
            "other": _other(run),
            "steal": _share(run, "steal_cpu"),
        },
        "server_rss_kb": {"window_start": rss[0], "window_end": rss[1]},
        "server_waiting_for_cpu": waiting_for_cpu(
            run.opened.server_run_queue,
            run.closed.server_run_queue,
            run.opened.server_preempted,
            run.closed.server_preempted,
            len(measured),
            run.seconds,
        ),
        "faults": _event_faults(events) + _replay_faults(run) + run.problems,
    }


def waiting_for_cpu(
    queued_from: float | None,
    queued_to: float | None,
    preempted_from: int | None,
    preempted_to: int | None,
    requests: int,
    seconds: float,
) -> dict[str, float | None]:
    """How long the server waited for a core over the window: per request, and as a share of
    the window (run queue time can pass 100% of one core only when several threads wait)."""
    if None in (queued_from, queued_to, preempted_from, preempted_to) or not seconds:
        return {"ms_per_request": None, "share": None, "preempted_per_s": None}
    waited = (queued_to or 0.0) - (queued_from or 0.0)
    return {
        "ms_per_request": round(waited / max(1, requests) * 1000, 2),
        "share": round(waited / seconds, 3),
        "preempted_per_s": round(((preempted_to or 0) - (preempted_from or 0)) / seconds, 1),
    }


def _shed(sent: Sent) -> bool:
    """Refused for load (503 with Retry-After): the service shedding, not failing."""
    return sent.status == 503


def _collections(collections: list[tuple[float, float, int]], seconds: float) -> dict[str, Any]:
    pauses = sorted(pause for _, pause, _ in collections)
    full = [pause for _, pause, generation in collections if generation == 2]
    return {
        "collections": len(collections),
        "by_generation": {
            str(g): sum(1 for _, _, generation in collections if generation == g) for g in (0, 1, 2)
        },
        "per_s": round(len(collections) / seconds, 1) if seconds else 0.0,
        "total_ms": round(sum(pauses) * 1000, 2),
        "p99_ms": _ms(pauses, 99),
        "max_ms": round(pauses[-1] * 1000, 2) if pauses else 0.0,
        "full_max_ms": round(max(full, default=0.0) * 1000, 2),
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _print(figures: dict[str, Any], markdown: bool) -> None:
    f = figures
    print(f"\n== {f['store']} ({f['description']}) ==")
    header = ["target/s", "sent/s", "answered/s", "requests", "errors", "p50 ms", "p90 ms"]
    header += ["p99 ms", "max ms"]
    all_ = f["latency_ms"]["all"]
    row = [f"{f['target_rate']:g}", f"{f['sent_per_s']:.1f}", f"{f['answered_per_s']:.1f}"]
    row += [str(f["requests_measured"]), str(f["errors_measured"])]
    row += [f"{all_[p]:.2f}" for p in ("p50", "p90", "p99", "max")]
    print(_table(header, [row], markdown))

    print()
    rows = [
        [name, str(v["requests"]), *(f"{v[p]:.2f}" for p in ("p50", "p90", "p99", "max"))]
        for name, v in f["latency_ms"].items()
    ]
    print(_table(["latency from due time", "requests", "p50", "p90", "p99", "max"], rows, markdown))
    st, late = f["service_time_ms"], f["send_lateness_ms"]
    print(
        f"from the actual send (closed-loop view): p50 {st['p50']:.2f}, p99 {st['p99']:.2f} ms; "
        f"client send lateness p50 {late['p50']:.2f}, p99 {late['p99']:.2f}, "
        f"max {late['max']:.2f} ms; at most {f['max_in_flight']} in flight; client GC "
        f"{f['client_gc']['collections']} pauses, longest {f['client_gc']['max_ms']:.2f} ms"
    )

    gc_ = f["server_gc"]
    print(
        f"server GC in the window: {gc_['collections']} collections "
        f"({gc_['by_generation']['0']} young, {gc_['by_generation']['1']} middle, "
        f"{gc_['by_generation']['2']} full), {gc_['total_ms']:.1f} ms in all, "
        f"longest {gc_['max_ms']:.2f} ms (full: {gc_['full_max_ms']:.2f} ms)"
    )
    if f["shed_measured"] or f["timeouts_measured"]:
        measured_count = f["requests_measured"] or 1
        admitted = f["admitted_latency_ms"]
        print(
            f"shed (503): {f['shed_measured']} ({f['shed_measured'] / measured_count:.1%}), "
            f"timed out or unanswered: {f['timeouts_measured']} "
            f"({f['timeouts_measured'] / measured_count:.1%}); latency of the requests "
            f"admitted p50 {admitted['p50']:.2f}, p99 {admitted['p99']:.2f}, "
            f"max {admitted['max']:.2f} ms"
        )

    print()
    rows = [
        [f"{b['from_s']:g}", str(b["requests"]), str(b["errors"])]
        + [f"{b[p]:.2f}" for p in ("p50", "p99", "max")]
        for b in f["timeline"]
    ]
    print(_table(["from s", "requests", "errors", "p50 ms", "p99 ms", "max ms"], rows, markdown))

    print()
    ev = f["events"]
    received: dict[int, list[dict[str, Any]]] = {}
    for w in ev["watchers"]:
        received.setdefault(w["encounter"], []).append(w)
    rows = []
    for e, counts in enumerate(ev["encounters"]):
        ws = received.get(e, [])
        rows.append(
            [
                str(e),
                str(counts["committed"]),
                "-" if counts["server_changes"] is None else str(counts["server_changes"]),
                " / ".join(str(w["received"]) for w in ws) or "-",
                str(sum(w["lost"] for w in ws)),
                str(sum(w["duplicates"] + w["unexpected"] for w in ws)),
                str(sum(w["out_of_order"] for w in ws)),
                "yes" if all(w["ended"] and w["close_code"] == 1000 for w in ws) else "NO",
            ]
        )
    header = ["encounter", "committed", "server count", "received per watcher", "lost"]
    header += ["dup/extra", "out of order", "ended+1000"]
    print(_table(header, rows, markdown))
    lag, after = ev["lag_from_due_ms"], ev["arrival_after_answer_ms"]
    if ev["watchers"]:
        print(
            f"delivery lag from the request's due time: p50 {lag['p50']:.2f}, "
            f"p99 {lag['p99']:.2f}, max {lag['max']:.2f} ms ({ev['lag_samples']} deliveries); "
            f"arrival minus the HTTP answer: p50 {after['p50']:.2f}, p99 {after['p99']:.2f}, "
            f"min {after['min']:.2f} ms"
        )
    cpu, rss = f["cpu_share_of_one_core"], f["server_rss_kb"]
    print(
        f"CPU over the window (share of one core): server {_percent(cpu['server'])}, "
        f"client {_percent(cpu['client'])}, redis {_percent(cpu['redis'])}, "
        f"other {_percent(cpu['other'])} (whole machine {_percent(cpu['machine_busy'])} of "
        f"{os.cpu_count() or 1}00%); server RSS "
        f"{rss['window_start']} -> {rss['window_end']} kB, client peak {f['client_max_rss_kb']} kB"
    )
    waited = f["server_waiting_for_cpu"]
    if waited["ms_per_request"] is not None:
        print(
            f"the server waited for a core (run queue): {waited['ms_per_request']:.2f} ms per "
            f"request, {waited['share'] * 100:.0f}% of the window; preempted "
            f"{waited['preempted_per_s']:.0f} times a second"
        )


def _report_faults(results: list[dict[str, Any]]) -> bool:
    failed = [f for f in results if f["errors"] or f["faults"]]
    if not failed:
        return False
    bar = "!" * 78
    out = [bar, "!!! THIS RUN HAD ERRORS: its figures are not valid", bar]
    for f in failed:
        statuses = ", ".join(f"{k}: {v}" for k, v in f["statuses"].items())
        out.append(f"{f['store']}: {f['errors']} errors in {f['requests_total']} requests")
        out.append(f"  statuses (0 = no response, -1 = 2xx without an event id): {statuses}")
        kinds = ", ".join(f"{k}: {v}" for k, v in f["error_kinds"].items())
        out.append(f"  by problem type: {kinds or 'none'}")
        out += [f"  {sample}" for sample in f["error_samples"]]
        out += [f"  {fault}" for fault in f["faults"][:40]]
        if len(f["faults"]) > 40:
            out.append(f"  ... and {len(f['faults']) - 40} more")
    out.append(bar)
    print("\n".join(out), file=sys.stderr)
    return True


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
