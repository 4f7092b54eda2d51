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
import datetime
import json
import os
import platform
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.closed_loop import (
    BARE_JSON,
    BASELINE,
    DEFAULT_GC,
    DEFAULT_REDIS_URL,
    PLAIN,
    SERVERS,
    Measured,
    RedisCounters,
    _base_name,
    _commits,
    _measure,
    _specs,
    _workers_name,
)
from bench.load import (
    percentile,
    summary,
)
from bench.server import BASELINE_KEY
from bench.servers import (
    ROOT,
    ServerFailed,
    cancel_on_sigterm,
    loopback_or_exit,
)
from bench.targets import Target, report

# The marks (docs/performance.md, "Targets").
REDIS_VS_BASELINE = 0.5
EMBEDDED_VS_BARE_JSON = 0.7
ROUND_TRIPS_PER_ATTACK = 1.0
# Scaling from 1 to N workers: three quarters of linear (1.5x for 2 workers).
SCALING_PER_WORKER = 0.75

NOTES = """
attacks/s and latencies count attacks only; requests also count the recoil resets (1 in 33).
CPU is a share of one core over the window; other CPU is what the rest of the machine used.
server µs/req is the server's CPU time per request (all its processes). redis calls/req and
commits tried/req (script calls; above 1 means compare-and-set retries) count every client of
that Redis, commands run inside Lua included; round trips/req is what the server itself sent
(each command or pipeline once, what Lua runs on the Redis side not counted)."""


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
