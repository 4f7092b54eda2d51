"""`python -m service` in a process of its own on loopback, for the tests that need several of
them (replicas behind a proxy), a setting only the environment carries (a Redis password), or the
process itself (signals, raw sockets, its logs), from async tests whose event loop must keep
running meanwhile (a proxy in the test's loop may sit between the service and Redis).

Each process writes JSON log lines to a file (a pipe nobody reads could fill and stall it), so a
test can tell which replica served a request from its request id; `running_services` and `serve`
stop every process they started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

ROOT = Path(__file__).resolve().parent.parent
ADMIN_KEY = "replica-admin-key-0123456789"
START_SECONDS = 20.0


def free_port(*hosts: str) -> int:
    """A port free on every one of `hosts` (loopback addresses) at once."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind((hosts[0], 0))
            port = int(probe.getsockname()[1])
        try:
            for host in hosts[1:]:
                with socket.socket() as other:
                    other.bind((host, port))
        except OSError:
            continue
        return port
    raise AssertionError(f"no port free on all of {hosts}")


@dataclass
class ServiceProcess:
    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return self.base

    def terminate(self) -> None:
        """SIGTERM, as an orchestrator stops it."""
        self.process.send_signal(signal.SIGTERM)

    async def exited(self, seconds: float) -> int:
        """The exit code, waiting up to `seconds` for it without blocking the loop."""
        return await asyncio.wait_for(asyncio.to_thread(self.process.wait), seconds)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_lines(self) -> list[dict[str, Any]]:
        lines = []
        for line in self.log_text().splitlines():
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a write in progress
        return lines

    def served(self, request_id: str) -> bool:
        return any(line.get("request_id") == request_id for line in self.log_lines())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class Services:
    """Starts service processes; stops them all when the test ends."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.started: list[ServiceProcess] = []

    def start(
        self,
        name: str,
        env: Mapping[str, str],
        host: str = "127.0.0.1",
        port: int | None = None,
        args: Sequence[str] = (),
    ) -> ServiceProcess:
        port = port or free_port(host)
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
        settings = {
            # The default store keeps its file here, never in the repository.
            "FIREFIGHT_DATA_DIR": str(self.directory / f"{name}-data"),
            "FIREFIGHT_HOST": host,
            "FIREFIGHT_PORT": str(port),
            "FIREFIGHT_ADMIN_KEY": ADMIN_KEY,
            "FIREFIGHT_LOG_FORMAT": "json",
            "FIREFIGHT_RATE_LIMIT": "0",
            "FIREFIGHT_ENCOUNTER_TTL_SECONDS": "600",
            **env,
        }
        # An empty value leaves the setting unset (no admin key: the service makes one).
        settings = {name: value for name, value in settings.items() if value}
        log = self.directory / f"{name}.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "service", *args],
                cwd=ROOT,
                env={**inherited, **settings},
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        service = ServiceProcess(name, process, host, port, log)
        self.started.append(service)
        return service

    def stop_all(self) -> None:
        for service in self.started:
            service.stop()


def running_services(tmp_path: Path) -> Iterator[Services]:
    """The body of a `services` fixture: `yield from running_services(tmp_path)`."""
    started = Services(tmp_path)
    try:
        yield started
    finally:
        started.stop_all()


async def wait_until(
    condition: Callable[[], Awaitable[bool]], seconds: float, what: Callable[[], str]
) -> None:
    """Polls `condition` until it holds; fails with `what()` (the state seen) at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        if await condition():
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"not within {seconds} s: {what()}")


async def wait_answer(
    http: aiohttp.ClientSession, service: ServiceProcess, path: str, status: int
) -> dict[str, Any]:
    """Polls `path` until it answers `status`; fails if the process dies or time runs out."""
    seen = ["no answer"]
    body: dict[str, Any] = {}

    async def answered() -> bool:
        nonlocal body
        if service.process.poll() is not None:
            pytest.fail(
                f"{service.name} exited ({service.process.returncode}):\n{service.log_text()}"
            )
        try:
            async with http.get(
                service.base + path, timeout=aiohttp.ClientTimeout(total=5)
            ) as response:
                seen[0] = f"{response.status} {await response.text()}"
                if response.status == status:
                    body = await response.json()
                    return True
        except (aiohttp.ClientConnectionError, TimeoutError) as error:
            seen[0] = repr(error)
        return False

    await wait_until(
        answered,
        START_SECONDS,
        lambda: f"{service.name} {path}: {seen[0]}\n{service.log_text()[-3000:]}",
    )
    return body


@contextlib.asynccontextmanager
async def serve(*args: str, env: Mapping[str, str] | None = None) -> AsyncIterator[ServiceProcess]:
    """One service, ready (`/readyz` 200), with the flags `args` and the settings `env`."""
    with tempfile.TemporaryDirectory() as directory:
        started = Services(Path(directory))
        try:
            service = started.start("service", env or {}, args=args)
            async with aiohttp.ClientSession() as http:
                await wait_answer(http, service, "/readyz", 200)
            yield service
        finally:
            started.stop_all()
