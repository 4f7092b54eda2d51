"""`python -m bench.suite` (`make bench`): every benchmark that prints targets, one after the
other, each in its own process, then all their target lines together at the end.

Short runs by default, a few minutes in all; `--long` gives each the longer run its docs quote.
A benchmark that fails (exit code not 0) is named at the end and the suite exits 1; a target
missed is a finding, printed as MISSED, never a failure of the run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass

from bench.servers import ROOT

# What bench/targets.py prints: a heading, then one line per target.
TARGETS_HEADING = "== targets =="
TARGET_PREFIX = "target "
# Issue 28, "Not targets any more": lines a benchmark still prints as targets that the summary
# shows as information, uncounted (2 workers against 1 needs a core per worker, which a 2-core
# machine shared with the load generator and Redis does not have); and the live push's floor
# (bench/fanout_floor.py), measured to be read beside firefight's; and the first target counted
# in instructions (bench/instructions.py), the same on any VM, read beside the ratio of speeds.
NOT_TARGETS = (" workers vs 1 ", "fan-out floor ", "instructions a request")


@dataclass(frozen=True)
class Benchmark:
    module: str
    # The arguments of `make bench` (short), and of `make bench ARGS=--long`.
    short: tuple[str, ...] = ()
    long: tuple[str, ...] = ()


# Every benchmark that prints targets through bench/targets.py, in the order they run: each is
# `python -m <module> <arguments>`, with a `main(argv) -> int`.
BENCHMARKS: tuple[Benchmark, ...] = (
    # The HTTP closed loop: each store against its baseline, round trips; 1 -> 2 workers as
    # information.
    Benchmark(
        "bench",
        short=("--server-workers", "2"),
        long=("--server-workers", "2", "--rounds", "3"),
    ),
    # The rules core and the other layers, in-process; every ruleset's previews against what
    # they preview.
    Benchmark("bench.layers", short=("--count", "2000"), long=("--count", "5000")),
    # Open loop: the attack's p99 at half the closed-loop maximum against the bare baseline at
    # the same rate, the server's GC pauses there, and no collapse past it.
    Benchmark(
        "bench.sustained",
        short=("--targets", "--seconds", "15", "--overload-seconds", "15"),
        long=("--targets", "--seconds", "60", "--overload-seconds", "30"),
    ),
    # The cost of an attack against the table's size (actors, prior events), and round trips.
    Benchmark(
        "bench.table",
        short=("--rounds", "4", "--attacks", "100"),
        long=("--rounds", "8", "--attacks", "300"),
    ),
    # WebSocket fan-out: POST to receipt with 50 and 200 watchers on one encounter, against the
    # POST alone at the same rate.
    Benchmark("bench.fanout", short=("--seconds", "5"), long=("--seconds", "10")),
    # The instructions a request costs firefight on Redis and the baseline, under cachegrind
    # (about a minute; nothing when valgrind is not installed).
    Benchmark("bench.instructions", long=("--short", "200", "--long", "4200")),
)


@dataclass
class Outcome:
    benchmark: Benchmark
    exit_code: int
    seconds: float
    targets: list[str]


def run(benchmark: Benchmark, long: bool) -> Outcome:
    """Runs one benchmark, its output passed through as it comes; its target lines kept."""
    arguments = benchmark.long if long else benchmark.short
    command = [sys.executable, "-m", benchmark.module, *arguments]
    print(f"\n### {' '.join(['python', '-m', benchmark.module, *arguments])}", flush=True)
    started = time.monotonic()
    targets: list[str] = []
    in_targets = False
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, text=True, bufsize=1
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            text = line.rstrip("\n")
            if text == TARGETS_HEADING:
                in_targets = True
            elif in_targets and text.startswith(TARGET_PREFIX):
                targets.append(text)
    return Outcome(benchmark, process.returncode, time.monotonic() - started, targets)


def _counted(line: str) -> bool:
    return not any(marker in line for marker in NOT_TARGETS)


def summary(outcomes: list[Outcome]) -> str:
    lines = ["", "== all targets =="]
    information = []
    for outcome in outcomes:
        name = outcome.benchmark.module
        status = "" if outcome.exit_code == 0 else f", EXITED {outcome.exit_code}"
        lines.append(f"{name} ({outcome.seconds:.0f} s{status}):")
        counted = [t for t in outcome.targets if _counted(t)]
        information += [t for t in outcome.targets if not _counted(t)]
        shown = [f"  {target}" for target in counted]
        if not shown:
            shown = ["  (information only: below)" if outcome.targets else "  (no target lines)"]
        lines += shown
    if information:
        lines.append("information, not targets (issue 28):")
        lines += [f"  {line.removeprefix(TARGET_PREFIX)}" for line in information]
    counted = [t for o in outcomes for t in o.targets if _counted(t)]
    met = sum(t.endswith(": met") for t in counted)
    missed = sum(t.endswith(": MISSED") for t in counted)
    lines.append(f"{met} met, {missed} missed")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite", description=__doc__)
    parser.add_argument("--long", action="store_true", help="the longer runs the docs quote")
    parser.add_argument(
        "--only",
        action="append",
        choices=[b.module for b in BENCHMARKS],
        help="run only this benchmark (repeatable)",
    )
    args = parser.parse_args(argv)
    outcomes = []
    try:
        for benchmark in BENCHMARKS:
            if args.only and benchmark.module not in args.only:
                continue
            outcomes.append(run(benchmark, args.long))
    except KeyboardInterrupt:
        print("\nbench.suite: interrupted", file=sys.stderr)
        return 130
    print(summary(outcomes))
    failed = [o.benchmark.module for o in outcomes if o.exit_code != 0]
    if failed:
        print(f"failed to run cleanly: {', '.join(failed)} (see their output above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
