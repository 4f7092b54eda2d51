"""Starting, watching and stopping the servers under test, each in its own process on loopback."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import aiohttp

from bench.server import LOOPBACK, read_collections, read_round_trips
from service.event_loop import EventLoopChoice

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

ServerKind = Literal["firefight", "baseline", "bare-json", "fanout-floor"]


class ServerFailed(RuntimeError):
    """A server did not come up, or died; the message carries the end of its log."""


@dataclass(frozen=True)
class ServerSpec:
    name: str
    kind: ServerKind
    redis_url: str | None
    description: str
    # firefight's --workers: processes sharing the port.
    workers: int = 1
    # firefight with Python's default garbage collection (the "before" of its tuning).
    default_gc: bool = False
    # Settings for the server's environment (FIREFIGHT_*), beyond the benchmark's own.
    env: tuple[tuple[str, str], ...] = ()
    # The event loop (bench.server's --event-loop): "auto" is what `make run` serves on.
    event_loop: EventLoopChoice = "auto"
    # False: redis-py as if hiredis were not installed (its pure-Python reply parser).
    hiredis: bool = True


def require_loopback(url: str) -> None:
    """The benchmark never sends load anywhere but this machine."""
    host = urlsplit(url).hostname
    if host not in LOOPBACK_HOSTS:
        raise ValueError(f"{url} is not a loopback address; the benchmark only uses loopback")


def free_port() -> int:
    # The kernel picks an unused port; the tiny race until the server binds it is retried below.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def _clock_ticks() -> int:
    try:
        return os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return 100


def machine_cpu_seconds() -> tuple[float, float] | None:
    """(busy, steal) CPU seconds of the whole machine so far, all cores (Linux /proc/stat)."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...; guest time is already in user.
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    busy = sum(fields[:8]) - idle - steal
    return busy / _clock_ticks(), steal / _clock_ticks()


# Safety net: whatever happens in the benchmark, no server outlives it.
_running: set[RunningServer] = set()


@atexit.register
def _stop_all() -> None:
    for server in list(_running):
        server.stop()


def _process_cpu_seconds(pid: int) -> float | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; the fields after its ')' are fixed.
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / _clock_ticks()


def _session_members(session: int) -> list[int]:
    """Every process of a session: a server started in its own session and its workers."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # After the command name: state, parent, process group, session.
        if int(stat[stat.rindex(")") + 2 :].split()[3]) == session:
            members.append(int(entry.name))
    return members


class RunningServer:
    def __init__(
        self,
        spec: ServerSpec,
        process: subprocess.Popen[bytes],
        port: int,
        log_path: Path,
        probes: Path,
    ) -> None:
        self.spec = spec
        self.process = process
        self.port = port
        self.log_path = log_path
        self.probes = probes
        _running.add(self)

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the server so far (Linux /proc), else None: of its one
        process, or with workers of the supervisor and every worker."""
        if self.spec.workers <= 1:
            return _process_cpu_seconds(self.process.pid)
        times = [_process_cpu_seconds(pid) for pid in _session_members(self.process.pid)]
        known = [t for t in times if t is not None]
        return sum(known) if known else None

    def round_trips(self) -> int:
        """The Redis round trips (commands and pipelines sent) of its processes so far."""
        return read_round_trips(self.probes)

    def collections(self) -> list[tuple[float, float, int]]:
        """Its garbage collections so far: (CLOCK_MONOTONIC start, seconds, generation)."""
        return read_collections(self.probes)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> int | None:
        """SIGTERM (run_app exits gracefully), then SIGKILL if it does not within `timeout_s`;
        the exit code."""
        _running.discard(self)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                # The whole session: a server with workers is several processes.
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    self.process.kill()
                self.process.wait()
        return self.process.returncode


BENCH_ADMIN_KEY = "bench-admin-key-0123456789"


# Put first on a server's path, this module makes `import hiredis` fail as if it were not
# installed: redis-py then parses replies in Python, as it did before issue 28.
NO_HIREDIS = 'raise ImportError("hiredis hidden by the benchmark")\n'


def _without_hiredis(log_dir: Path) -> Path:
    shim = log_dir / "without-hiredis"
    shim.mkdir(exist_ok=True)
    (shim / "hiredis.py").write_text(NO_HIREDIS)
    return shim


def _child_env(spec: ServerSpec, log_dir: Path) -> dict[str, str]:
    # Flags alone configure the servers: a FIREFIGHT_* variable in the caller's shell must not
    # turn the "embedded" server into a Redis one, or change its limits.
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    env.update(spec.env)
    # The benchmark creates its encounters with this key, which also acts as their GM.
    env["FIREFIGHT_ADMIN_KEY"] = BENCH_ADMIN_KEY
    # The benchmark drives each encounter far faster than a table: no per-encounter rate limit.
    env["FIREFIGHT_RATE_LIMIT"] = "0"
    path = [str(ROOT), env.get("PYTHONPATH")]
    if not spec.hiredis:
        path.insert(0, str(_without_hiredis(log_dir)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
    return env


async def _wait_healthy(server: RunningServer, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    timeout = aiohttp.ClientTimeout(total=1)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        while time.monotonic() < deadline:
            if not server.alive():
                raise ServerFailed(
                    f"{server.spec.name} exited with code {server.process.returncode} while "
                    f"starting:\n{server.log_tail()}"
                )
            try:
                async with session.get(f"{server.base_url}/healthz") as response:
                    if response.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.05)
    raise ServerFailed(
        f"{server.spec.name} did not answer GET /healthz within {timeout_s:g} s:\n"
        f"{server.log_tail()}"
    )


async def start_server(
    spec: ServerSpec,
    log_dir: Path,
    profile_dir: Path | None,
    wrapper: Sequence[str] = (),
    startup_timeout_s: float = STARTUP_TIMEOUT_S,
) -> RunningServer:
    """Starts `python -m bench.server` for `spec` on a free port and waits until it answers;
    `wrapper`: the command it runs under (a tool such as valgrind and its options)."""
    last_error: ServerFailed | None = None
    for attempt in range(3):
        port = free_port()
        command = [*wrapper, sys.executable, "-m", "bench.server", spec.kind, "--port", str(port)]
        command += ["--event-loop", spec.event_loop]
        if spec.redis_url:
            command += ["--redis-url", spec.redis_url]
        if spec.workers > 1:
            command += ["--workers", str(spec.workers)]
        if spec.default_gc:
            command.append("--default-gc")
        if profile_dir is not None:
            command += ["--profile", str(profile_dir / f"{spec.name}.prof")]
        probes = Path(tempfile.mkdtemp(prefix=f"{spec.name}-{attempt}-probes-", dir=log_dir))
        command += ["--probes", str(probes)]
        log_path = log_dir / f"{spec.name}-{attempt}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=_child_env(spec, log_dir),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own session: a Ctrl-C reaches the benchmark only, which then stops it.
                start_new_session=True,
            )
        server = RunningServer(spec, process, port, log_path, probes)
        try:
            await _wait_healthy(server, startup_timeout_s)
            return server
        except ServerFailed as error:
            server.stop()
            last_error = error
        except BaseException:
            server.stop()
            raise
    raise last_error or ServerFailed(f"{spec.name} did not start")


def cancel_on_sigterm() -> None:
    """SIGTERM cancels the run like Ctrl-C does, so the servers are stopped on the way out."""
    main_task = asyncio.current_task()
    if main_task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)


def loopback_or_exit(parser: argparse.ArgumentParser, redis_url: str) -> None:
    try:
        require_loopback(redis_url)
    except ValueError as error:
        parser.error(str(error))
