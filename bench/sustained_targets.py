"""`python -m bench.sustained --targets`: issue 28's tail, as ratios against a baseline run at
the same offered rate in the same invocation.

The closed-loop maximum of the store (16 workers, as `make bench`, with the open loop's watchers
on every encounter), then open loop at half of it twice: firefight (watchers, keys and retries
as `bench.sustained` always sends them) and the bare baseline (`python -m bench.server
baseline`: aiohttp, parse the body, one Redis INCR) with the very same attack and reset bodies,
due at the very same times; then past the maximum, where the service must shed load rather
than time out. See docs/performance.md, "Targets".
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis

from bench.load import REQUEST_TIMEOUT_S, run_load, worker_plans
from bench.server import BASELINE_KEY
from bench.servers import BENCH_ADMIN_KEY, ServerFailed, ServerSpec, start_server
from bench.sustained import (
    HEADERS,
    GcPauses,
    Mix,
    Sent,
    _create,
    _forget,
    _measure,
    run_queue,
)
from bench.sustained_report import (
    _collections,
    _in_window,
    _print,
    _spread,
    summarize,
    waiting_for_cpu,
)
from bench.targets import Target

# The closed loop of `make bench` (python -m bench), whose maximum --targets takes.
CLOSED_LOOP_WORKERS = 16
# Issue 28: "at half the closed-loop maximum, open loop, the attack's p99 within 2x the
# baseline's p99 at the same offered rate; no GC pause over 5 ms in the window".
P99_VS_BASELINE = 2.0
GC_PAUSE_MS = 5.0


async def _drain(socket: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in socket:
        pass


async def _closed_loop_max(
    spec: ServerSpec, args: argparse.Namespace, log_dir: Path, client: aioredis.Redis | None
) -> float:
    """Requests per second `make bench` would measure (16 workers, each sending its next
    request when its answer is back, over the run's encounters) with the watchers the open
    loop has on each encounter (`--watchers`): the same work per request, so that half of this
    maximum is half of what the server can do with them. Without them the open loop's "half"
    had every event pushed to sockets the maximum never paid for (the server near a whole core
    at that rate, 2026-12-03)."""
    server = await start_server(spec, log_dir, None)
    ids: list[str] = []
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    readers: list[asyncio.Task[None]] = []
    try:
        admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        connector = aiohttp.TCPConnector(limit=CLOSED_LOOP_WORKERS)
        async with (
            aiohttp.ClientSession(connector=connector, timeout=timeout, headers=admin) as session,
            aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=REQUEST_TIMEOUT_S)
            ) as watching,
        ):
            for encounter_id, created_event in await _create(
                session, server.base_url, args.encounters, ids
            ):
                for _ in range(args.watchers):
                    socket = await watching.ws_connect(
                        f"{server.base_url}/v1/encounters/{encounter_id}/ws",
                        params={"token": BENCH_ADMIN_KEY, "after": created_event},
                    )
                    sockets.append(socket)
                    readers.append(asyncio.create_task(_drain(socket)))
            plans = worker_plans(CLOSED_LOOP_WORKERS, ids)
            load = await run_load(
                session, server.base_url, plans, 1.0, args.max_seconds, 10_000_000
            )
            for encounter_id in ids:
                async with session.delete(f"{server.base_url}/v1/encounters/{encounter_id}"):
                    pass
            await asyncio.wait(readers, timeout=REQUEST_TIMEOUT_S)
        if load.errors or load.warmup_errors:
            raise ServerFailed(
                f"{spec.name}: the closed loop had {load.errors + load.warmup_errors} errors: "
                f"{load.error_samples[:3]}"
            )
        return load.requests_per_s
    finally:
        for socket in sockets:
            await socket.close()
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        if client is not None and spec.redis_url and ids:
            await _forget(client, ids)
        server.stop()


async def _send_plain(session: aiohttp.ClientSession, base_url: str, sent: Sent) -> None:
    """One request to the baseline, which answers `{"ok":true,"count":n}`: no event id."""
    sent.started = time.perf_counter()
    try:
        async with session.post(base_url + sent.path, data=sent.body, headers=HEADERS) as answer:
            payload = await answer.read()
            sent.status = answer.status
            if not sent.ok:
                sent.detail = payload.decode(errors="replace")[:300]
    except (aiohttp.ClientError, TimeoutError) as error:
        sent.status, sent.detail = 0, f"{type(error).__name__}: {error}"
    finally:
        sent.done = time.perf_counter()


async def baseline_open_loop(
    args: argparse.Namespace, log_dir: Path, client: aioredis.Redis | None
) -> dict[str, Any]:
    """The bare baseline at `args.rate`, open loop, for `args.warmup` + `args.seconds`: the
    request sequence firefight gets (`Mix`, same seed and encounters; no keys or retries, which
    the baseline has nothing to do with), each due at start + n / rate and timed from then."""
    spec = ServerSpec(
        "baseline", "baseline", args.redis_url, "bare aiohttp + one Redis INCR, no watchers"
    )
    server = await start_server(spec, log_dir, None)
    mix = Mix([f"baseline-{e}" for e in range(args.encounters)], 0.0, 0.0, args.seed)
    sent: list[Sent] = []
    tasks: set[asyncio.Task[None]] = set()
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    connector = aiohttp.TCPConnector(limit=args.connections, limit_per_host=args.connections)
    cpu: list[float | None] = []
    # (run queue seconds, preemptions) of the server, and the client's CPU, at each edge.
    queued: list[tuple[float, int] | None] = []
    client_cpu: list[float] = []
    try:
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            start = time.perf_counter() + 0.1
            window = (start + args.warmup, start + args.warmup + args.seconds)

            async def sample_cpu() -> None:
                for edge in window:
                    await asyncio.sleep(max(0.0, edge - time.perf_counter()))
                    cpu.append(server.cpu_seconds())
                    queued.append(run_queue(server.process.pid))
                    client_cpu.append(time.process_time())

            sampler = asyncio.create_task(sample_cpu())
            # The client collects as it does for firefight's run (bench.sustained._measure):
            # the same load generator for both servers, its full collections held off alike.
            with GcPauses() as pauses:
                for n in range(round((args.warmup + args.seconds) * args.rate)):
                    due = start + n / args.rate
                    delay = due - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    request = mix.next(due)
                    sent.append(request)
                    task = asyncio.create_task(_send_plain(session, server.base_url, request))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if tasks:
                    await asyncio.wait(set(tasks), timeout=REQUEST_TIMEOUT_S + 2)
            await asyncio.wait_for(sampler, REQUEST_TIMEOUT_S)
        collections = _in_window(server.collections(), window)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.stop()
        if client is not None:
            await client.delete(BASELINE_KEY)
    measured = [s for s in sent if window[0] <= s.due < window[1]]
    failed = [s for s in sent if not s.ok]
    if failed:
        raise ServerFailed(
            f"the baseline answered {len(failed)} of {len(sent)} requests with an error: "
            f"{[f'{s.status} {s.detail}' for s in failed[:3]]}"
        )
    attacks = [s.latency_s for s in measured if s.kind == "attack"]
    server_cpu = None if len(cpu) < 2 or None in cpu else (cpu[1] or 0) - (cpu[0] or 0)
    lateness = sorted(s.started - s.due for s in measured if s.started)
    edges = [*queued, None, None][:2]
    return {
        "rate": args.rate,
        "requests_measured": len(measured),
        "latency_ms": _spread([s.latency_s for s in measured]),
        "attack_latency_ms": {"requests": len(attacks), **_spread(attacks)},
        "server_cpu_share": None if server_cpu is None else round(server_cpu / args.seconds, 3),
        "server_gc": _collections(collections, args.seconds),
        "client_cpu_share": (
            round((client_cpu[1] - client_cpu[0]) / args.seconds, 3)
            if len(client_cpu) == 2
            else None
        ),
        "send_lateness_ms": _spread(lateness),
        "client_gc": {
            "collections": len(pauses.pauses),
            "max_ms": round(max(pauses.pauses, default=0.0) * 1000, 2),
        },
        "server_waiting_for_cpu": waiting_for_cpu(
            edges[0][0] if edges[0] else None,
            edges[1][0] if edges[1] else None,
            edges[0][1] if edges[0] else None,
            edges[1][1] if edges[1] else None,
            len(measured),
            args.seconds,
        ),
    }


def _waits(calm: dict[str, Any], base: dict[str, Any]) -> str:
    """Each server's wait for a core per request, when the kernel tells it: on a shared
    machine most of a p99 can be that wait, which is the machine's, not the server's."""
    ours = calm["server_waiting_for_cpu"]["ms_per_request"]
    theirs = base["server_waiting_for_cpu"]["ms_per_request"]
    if ours is None or theirs is None:
        return ""
    return f"; waited for a core {ours:.2f} against {theirs:.2f} ms per request"


async def tail_targets(
    spec: ServerSpec,
    args: argparse.Namespace,
    log_dir: Path,
    client: aioredis.Redis | None,
    results: list[dict[str, Any]],
) -> list[Target]:
    """The closed-loop maximum, then open loop at half of it (firefight, then the baseline at
    the same rate) and past it."""
    print(f"bench.sustained: {spec.name}: closed-loop maximum ...", flush=True)
    maximum = await _closed_loop_max(spec, args, log_dir, client)
    print(f"bench.sustained: {spec.name}: closed-loop maximum {maximum:.0f} requests/s", flush=True)
    half = argparse.Namespace(**{**vars(args), "rate": min(5000.0, maximum / 2)})
    print(f"bench.sustained: {spec.name} at {half.rate:.0f} requests/s ...", flush=True)
    calm = summarize(await _measure(spec, half, log_dir, client))
    calm["closed_loop_max_per_s"] = round(maximum, 1)
    results.append(calm)
    _print(calm, args.markdown)

    print(
        f"\nbench.sustained: the baseline (bare aiohttp + one Redis INCR) at the same "
        f"{half.rate:.0f} requests/s ...",
        flush=True,
    )
    base = await baseline_open_loop(half, log_dir, client)
    calm["baseline_same_rate"] = base
    b, b_gc = base["latency_ms"], base["server_gc"]
    print(
        f"baseline at {half.rate:.0f}/s, open loop: {base['requests_measured']} requests, p50 "
        f"{b['p50']:.2f}, p90 {b['p90']:.2f}, p99 {b['p99']:.2f}, max {b['max']:.2f} ms; "
        f"attacks p99 {base['attack_latency_ms']['p99']:.2f} ms; server CPU "
        f"{(base['server_cpu_share'] or 0) * 100:.0f}% of a core; GC {b_gc['collections']} "
        f"collections, longest {b_gc['max_ms']:.2f} ms"
    )
    late, c_gc = base["send_lateness_ms"], base["client_gc"]
    print(
        f"client send lateness p50 {late['p50']:.2f}, p99 {late['p99']:.2f}, max "
        f"{late['max']:.2f} ms; client CPU {(base['client_cpu_share'] or 0) * 100:.0f}%; client "
        f"GC {c_gc['collections']} pauses, longest {c_gc['max_ms']:.2f} ms"
    )
    waited = base["server_waiting_for_cpu"]
    if waited["ms_per_request"] is not None:
        print(
            f"the baseline waited for a core (run queue): {waited['ms_per_request']:.2f} ms per "
            f"request, {waited['share'] * 100:.0f}% of the window; preempted "
            f"{waited['preempted_per_s']:.0f} times a second"
        )

    past = argparse.Namespace(
        **{
            **vars(args),
            "rate": min(5000.0, maximum * args.overload),
            "seconds": args.overload_seconds,
        }
    )
    print(
        f"bench.sustained: {spec.name} at {past.rate:.0f} requests/s "
        f"({args.overload:g}x the maximum) ...",
        flush=True,
    )
    over = summarize(await _measure(spec, past, log_dir, client, shedding_expected=True))
    over["closed_loop_max_per_s"] = round(maximum, 1)
    results.append(over)
    _print(over, args.markdown)

    measured = over["requests_measured"] or 1
    admitted = over["admitted_latency_ms"]
    print(
        f"\n{spec.name}: closed-loop maximum {maximum:.0f} requests/s; at "
        f"{args.overload:g}x it the service shed {over['shed_measured'] / measured:.1%} "
        f"(503), {over['timeouts_measured'] / measured:.1%} timed out, and the requests it "
        f"admitted took p99 {admitted['p99']:.2f} ms (max {admitted['max']:.2f} ms)"
    )
    attack_p99 = calm["latency_ms"]["attacks, no key"]["p99"]
    base_p99 = base["attack_latency_ms"]["p99"]
    gc_ = calm["server_gc"]
    return [
        Target(
            f"attack p99 / the baseline's at half the closed-loop maximum, open loop ({spec.name})",
            attack_p99 / base_p99 if base_p99 else float("inf"),
            P99_VS_BASELINE,
            "at_most",
            against=f"{attack_p99:.2f} ms against {base_p99:.2f} ms, both at {half.rate:.0f} "
            f"req/s = 0.5 x {maximum:.0f} closed-loop, same run{_waits(calm, base)}",
        ),
        Target(
            f"longest server GC pause at half the closed-loop maximum ({spec.name})",
            gc_["max_ms"],
            GC_PAUSE_MS,
            "at_most",
            "ms",
            f"{gc_['collections']} collections in the {args.seconds:g} s window",
        ),
        Target(
            f"timeouts at {args.overload:g}x the closed-loop maximum ({spec.name})",
            over["timeouts_measured"] / measured * 100,
            0.0,
            "at_most",
            "%",
            f"{past.rate:.0f} req/s; {over['shed_measured'] / measured:.1%} shed with 503, "
            f"p99 of those admitted {admitted['p99']:.2f} ms",
        ),
    ]
