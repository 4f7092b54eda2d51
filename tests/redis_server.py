"""A redis-server the test starts, stops and starts again itself (on a port of its own)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

IN_CI = os.environ.get("CI") == "true"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class OwnRedis:
    """Keeps its data in an append-only file, so a restart finds the fight where it was."""

    def __init__(
        self, directory: Path, port: int | None = None, *extra: str, password: str | None = None
    ) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            message = "redis-server is not installed (`make test` installs it under CI)"
            if IN_CI:
                pytest.fail(message)
            pytest.skip(message)
        self.binary = binary
        self.directory = directory
        self.port = port or free_port()
        self.extra = extra
        # With a password, the server refuses every command until AUTH (--requirepass).
        self.password = password
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--logfile",
                str(self.directory / "redis.log"),
                *(["--requirepass", self.password] if self.password is not None else []),
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        client = redis.Redis(port=self.port, password=self.password, socket_connect_timeout=0.2)
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except redis.RedisError:
                time.sleep(0.02)
        raise AssertionError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # as a crash would: no goodbye to the clients
            self.process.wait(timeout=10)
        self.process = None
