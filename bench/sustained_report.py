"""What `python -m bench.sustained` makes of a run: its figures (latency from each request's due
time, the events every watcher received, the faults), and how they are printed."""

from __future__ import annotations

import itertools
import json
import os
import resource
import sys
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from bench.__main__ import _table
from bench.load import percentile
from service.store.base import parse_event_id

if TYPE_CHECKING:
    from bench.sustained import Run, Sent

# Time-line buckets of the report.
INTERVAL_S = 10.0
# Of each kind of error, how many are shown.
ERROR_SAMPLES = 8


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
