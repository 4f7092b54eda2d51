"""`python -m service` as a subprocess, from async tests whose event loop must keep running while
the service starts (a proxy in the test's loop may sit between the service and Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import aiohttp

from tests.test_cli import ADMIN_KEY, free_port

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Service:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    stderr: IO[bytes]

    def terminate(self) -> None:
        self.process.send_signal(signal.SIGTERM)

    async def exited(self, seconds: float) -> int:
        """The exit code, waiting up to `seconds` for it without blocking the loop."""
        return await asyncio.wait_for(asyncio.to_thread(self.process.wait), seconds)

    def log_text(self) -> str:
        """What it has written to stderr so far."""
        self.stderr.seek(0)
        return self.stderr.read().decode()

    def log_lines(self) -> list[dict[str, Any]]:
        """The JSON log lines it has written to stderr so far."""
        return [json.loads(line) for line in self.log_text().splitlines() if line.startswith("{")]


async def _wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            assert process.poll() is None, "the service exited"
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with http.get(f"{url}/readyz") as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.05)  # polling the condition, with a deadline
    raise AssertionError(f"{url} was not ready within {seconds} s")


@contextlib.asynccontextmanager
async def serve(*args: str, env: dict[str, str] | None = None) -> AsyncIterator[Service]:
    """The service on a port of its own with the test admin key, `args` and `env`; its JSON logs
    go to a file (a pipe nobody reads could fill and stall it)."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    environment.update({"FIREFIGHT_ADMIN_KEY": ADMIN_KEY, "FIREFIGHT_LOG_FORMAT": "json"})
    environment.update(env or {})
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [sys.executable, "-m", "service", "--port", str(port), *args],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        await _wait_ready(url, process, 15)
        yield Service(url, port, process, stderr)
    finally:
        if process.poll() is None:
            process.kill()
        await asyncio.to_thread(process.wait, 10)
        stderr.close()
