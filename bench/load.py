"""The load generator: a fixed number of workers posting attacks over one aiohttp ClientSession.

Each worker loops over a precomputed plan of requests (bodies encoded once, so the client spends
its time on HTTP, not on building JSON). The run has a warm-up, then a measuring window; only
requests that complete inside the window are counted. The window opens and closes with nothing
in flight (the workers wait at a gate while the counters are read): every request counted was
sent and answered inside it, so a count made in the server (its round trips) or in Redis
matches the requests exactly, with no request's part on either side of an edge.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from tests import sr5_requests

# SA fires one round per attack. Recoil is progressive: every round adds to the attacker's
# recoil until an action other than firing resets it, so rotating attacker ids alone does not
# bound it (each id still accumulates). With RC 30 the compensation is 1 + ceil(4/3) + 30 = 33
# rounds, so 32 shots per attacker never take a recoil penalty; then each attacker is reset.
# Without this, after about a dozen shots every pool is 0 dice and every attack is a cheap miss.
WEAPON_RC = 30
SHOTS_BEFORE_RESET = 32
ATTACKERS_PER_WORKER = 2
AMMO = 10_000
HEADERS = {"Content-Type": "application/json"}
# Bounded requests: a dead or hung server cannot hold the benchmark.
REQUEST_TIMEOUT_S = 10.0
ERROR_SAMPLES = 5


@dataclass(frozen=True)
class PlannedRequest:
    path: str
    body: bytes
    is_attack: bool


def attack_body(attacker_id: str, seed: int) -> bytes:
    # A fixed seed per planned attack: every run rolls the same dice, so the work per request
    # (hits, defense and soak rolls) is the same from run to run and server to server.
    body = sr5_requests.attack(
        attacker=sr5_requests.attacker(id=attacker_id),
        weapon=sr5_requests.weapon(ammo=AMMO, rc=WEAPON_RC),
        mode="SA",
        seed=seed,
    )
    return json.dumps(body, separators=(",", ":")).encode()


def reset_body(attacker_id: str) -> bytes:
    return json.dumps({"actor": attacker_id, "action": "other"}, separators=(",", ":")).encode()


def worker_plan(worker: int, encounter_id: str) -> list[PlannedRequest]:
    """One worker's cycle: its attackers take turns shooting, then each one's recoil is reset."""
    attackers = [f"w{worker}-a{k}" for k in range(ATTACKERS_PER_WORKER)]
    attacks = f"/v1/encounters/{encounter_id}/attacks"
    actions = f"/v1/encounters/{encounter_id}/actions"
    plan = []
    for shot in range(SHOTS_BEFORE_RESET):
        for k, attacker in enumerate(attackers):
            seed = (worker * SHOTS_BEFORE_RESET + shot) * ATTACKERS_PER_WORKER + k
            plan.append(PlannedRequest(attacks, attack_body(attacker, seed), True))
    plan += [PlannedRequest(actions, reset_body(a), False) for a in attackers]
    return plan


def worker_plans(workers: int, encounter_ids: list[str]) -> list[list[PlannedRequest]]:
    """One plan per worker, the workers spread over the encounters in turn."""
    return [worker_plan(w, encounter_ids[w % len(encounter_ids)]) for w in range(workers)]


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (0.0 when it is empty)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class LoadResult:
    duration_s: float = 0.0
    requests: int = 0
    attacks: int = 0
    errors: int = 0
    warmup_requests: int = 0
    warmup_errors: int = 0
    capped: bool = False
    statuses: Counter[int] = field(default_factory=Counter)
    attack_latencies_s: list[float] = field(default_factory=list)
    error_samples: list[str] = field(default_factory=list)

    @property
    def requests_per_s(self) -> float:
        return self.requests / self.duration_s if self.duration_s else 0.0

    @property
    def attacks_per_s(self) -> float:
        return self.attacks / self.duration_s if self.duration_s else 0.0

    def add(self, other: LoadResult) -> None:
        """Pools another window of the same server into this one (for --rounds)."""
        self.duration_s += other.duration_s
        self.requests += other.requests
        self.attacks += other.attacks
        self.errors += other.errors
        self.warmup_requests += other.warmup_requests
        self.warmup_errors += other.warmup_errors
        self.capped = self.capped or other.capped
        self.statuses.update(other.statuses)
        self.attack_latencies_s = sorted(self.attack_latencies_s + other.attack_latencies_s)
        room = ERROR_SAMPLES - len(self.error_samples)
        self.error_samples += other.error_samples[: max(0, room)]


class _Phases:
    """Warm-up, then measuring, then stopped; one event loop, so plain attributes suffice."""

    def __init__(self, max_requests: int) -> None:
        self.measuring = False
        self.stopped = False
        # Workers send only while the gate is open; `in_flight` counts the requests sent and not
        # yet answered, and `idle` is set when the gate is shut and the last of them is answered.
        self.gate = asyncio.Event()
        self.gate.set()
        self.in_flight = 0
        self.idle = asyncio.Event()
        self.max_requests = max_requests
        self.started_at = 0.0
        self.ended_at = 0.0
        self.cap_reached = asyncio.Event()
        self.result = LoadResult()

    def record(self, request: PlannedRequest, status: int, latency_s: float, detail: str) -> None:
        if self.stopped:
            return
        result = self.result
        error = not 200 <= status < 300
        if error and len(result.error_samples) < ERROR_SAMPLES:
            phase = "measuring" if self.measuring else "warm-up"
            result.error_samples.append(f"[{phase}] {request.path} -> {status}: {detail[:300]}")
        if not self.measuring:
            result.warmup_requests += 1
            result.warmup_errors += error
            return
        result.requests += 1
        result.statuses[status] += 1
        result.errors += error
        if request.is_attack:
            result.attacks += 1
            result.attack_latencies_s.append(latency_s)
        if result.requests >= self.max_requests:
            result.capped = True
            self.cap_reached.set()

    async def quiesce(self) -> None:
        """Shuts the gate and returns once every request sent is answered."""
        self.gate.clear()
        self.idle.clear()
        if self.in_flight:
            await self.idle.wait()

    def answered(self) -> None:
        self.in_flight -= 1
        if not self.in_flight and not self.gate.is_set():
            self.idle.set()


async def _worker(
    session: aiohttp.ClientSession, base_url: str, plan: list[PlannedRequest], phases: _Phases
) -> None:
    index = 0
    while True:
        if not phases.gate.is_set():
            await phases.gate.wait()
        if phases.stopped:
            return
        request = plan[index % len(plan)]
        index += 1
        started = time.perf_counter()
        phases.in_flight += 1
        try:
            async with session.post(
                base_url + request.path, data=request.body, headers=HEADERS
            ) as response:
                payload = await response.read()
                status = response.status
            detail = "" if 200 <= status < 300 else payload.decode(errors="replace")
        except (aiohttp.ClientError, TimeoutError) as error:
            status, detail = 0, f"{type(error).__name__}: {error}"
        finally:
            phases.answered()
        phases.record(request, status, time.perf_counter() - started, detail)
        if status == 0:
            # A refused or broken connection fails at once; do not spin on a dead server.
            await asyncio.sleep(0.01)


async def run_load(
    session: aiohttp.ClientSession,
    base_url: str,
    plans: list[list[PlannedRequest]],
    warmup_s: float,
    seconds: float,
    max_requests: int,
    on_measure: Callable[[bool], Awaitable[None]] | None = None,
) -> LoadResult:
    """Runs one worker per plan: `warmup_s` uncounted, then up to `seconds` or `max_requests`.

    `on_measure(True)` runs just before the window opens and `on_measure(False)` just after it
    closes (the caller samples CPU counters there), each with no request in flight.
    """
    phases = _Phases(max_requests)
    workers = [asyncio.create_task(_worker(session, base_url, plan, phases)) for plan in plans]
    try:
        await asyncio.sleep(warmup_s)
        await asyncio.wait_for(phases.quiesce(), REQUEST_TIMEOUT_S + 1)
        if on_measure is not None:
            await on_measure(True)
        phases.measuring = True
        phases.started_at = time.perf_counter()
        phases.gate.set()
        try:
            await asyncio.wait_for(phases.cap_reached.wait(), seconds)
        except TimeoutError:
            pass
        # The requests in flight are answered, and counted, before the window closes.
        await asyncio.wait_for(phases.quiesce(), REQUEST_TIMEOUT_S + 1)
        phases.ended_at = time.perf_counter()
        phases.measuring = False
        if on_measure is not None:
            await on_measure(False)
        phases.stopped = True
        phases.gate.set()
        await asyncio.wait_for(asyncio.gather(*workers), REQUEST_TIMEOUT_S + 1)
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    result = phases.result
    result.duration_s = phases.ended_at - phases.started_at
    result.attack_latencies_s.sort()
    return result


def summary(result: LoadResult) -> dict[str, Any]:
    latencies = result.attack_latencies_s
    return {
        "duration_s": round(result.duration_s, 3),
        "requests": result.requests,
        "attacks": result.attacks,
        "errors": result.errors,
        "warmup_requests": result.warmup_requests,
        "warmup_errors": result.warmup_errors,
        "capped_at_max_requests": result.capped,
        "statuses": {str(k): v for k, v in sorted(result.statuses.items())},
        "requests_per_s": round(result.requests_per_s, 1),
        "attacks_per_s": round(result.attacks_per_s, 1),
        "attack_latency_ms": {
            "p50": round(percentile(latencies, 50) * 1000, 2),
            "p90": round(percentile(latencies, 90) * 1000, 2),
            "p99": round(percentile(latencies, 99) * 1000, 2),
            "max": round(latencies[-1] * 1000, 2) if latencies else 0.0,
        },
        "error_samples": result.error_samples,
    }
