"""Slow and stalled request bodies, clients hanging up, and the connection cap, against the real
service (`python -m service`) with raw sockets that send headers and half a body.

`Expect: 100-continue` tells each test when the service is in the handler, reading the body: it
answers `100 Continue` just before the handler runs, so no test guesses with a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from service.api.connections import HEALTH_RESERVE
from service.config import ConfigError, load_config
from tests import sr5_requests as make
from tests.service_process import ADMIN_KEY, ServiceProcess, serve

AUTH = {"Authorization": f"Bearer {ADMIN_KEY}"}
HEAD_END = b"\r\n\r\n"


class RawClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def start_post(self, path: str, body: bytes, sent: int) -> None:
        """Headers announcing `body`, then (once the service is reading it) its first `sent`
        bytes, and nothing more."""
        await self.send(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {ADMIN_KEY}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Expect: 100-continue\r\n\r\n".encode()
        )
        assert (await self.head()).startswith(b"HTTP/1.1 100 ")
        await self.send(body[:sent])

    async def head(self, seconds: float = 10) -> bytes:
        return await asyncio.wait_for(self.reader.readuntil(HEAD_END), seconds)

    async def response(self, seconds: float = 10) -> tuple[int, dict[str, str], bytes]:
        head = await self.head(seconds)
        lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        length = int(headers.get("Content-Length", "0"))
        body = await asyncio.wait_for(self.reader.readexactly(length), seconds)
        return int(lines[0].split(" ")[1]), headers, body

    async def closed_by_server(self, seconds: float = 10) -> bool:
        try:
            return await asyncio.wait_for(self.reader.read(), seconds) == b""
        except ConnectionResetError:
            return True


@contextlib.asynccontextmanager
async def raw_client(service: ServiceProcess) -> AsyncIterator[RawClient]:
    reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
    try:
        yield RawClient(reader, writer)
    finally:
        writer.transport.abort()
        # abort() closes the socket on the loop's next turn: wait for it, so the connection is
        # gone before what follows (a SIGTERM, or a stop that blocks this loop) and the service
        # sees the client leave (a held body otherwise holds up its shutdown).
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def new_encounter(service: ServiceProcess) -> str:
    async with (
        aiohttp.ClientSession(headers=AUTH) as http,
        http.post(f"{service.url}/v1/encounters", json={"ruleset": "sr5"}) as made,
    ):
        assert made.status == 201
        return str((await made.json())["id"])


async def wait_for_log(
    service: ServiceProcess, found: Callable[[dict[str, Any]], bool], seconds: float = 10
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        lines = [line for line in service.log_lines() if found(line)]
        if lines:
            return lines[0]
        await asyncio.sleep(0.05)  # polling the log file, with a deadline
    raise AssertionError(f"no such log line in {service.log_lines()}")


def request_lines(service: ServiceProcess, path: str) -> list[dict[str, Any]]:
    return [
        line
        for line in service.log_lines()
        if line.get("event") == "request" and line.get("path") == path
    ]


def no_errors(service: ServiceProcess) -> None:
    assert "Traceback" not in service.log_text()  # not even from aiohttp's own logger
    lines = service.log_lines()
    assert not [line for line in lines if line.get("level") == "error"], lines
    assert not [line for line in lines if line.get("status") == 500], lines


async def test_a_stalled_body_is_answered_408_on_creation_and_on_a_change() -> None:
    env = {"FIREFIGHT_BODY_TIMEOUT_SECONDS": "1"}
    async with serve(env=env) as service:
        encounter = await new_encounter(service)
        shots = f"/v1/encounters/{encounter}/attacks"
        for path, body in [
            ("/v1/encounters", json.dumps({"ruleset": "sr5"}).encode()),
            (shots, json.dumps(make.attack()).encode()),
        ]:
            async with raw_client(service) as client:
                await client.start_post(path, body, len(body) // 2)
                status, headers, answer = await client.response()
                assert status == 408
                assert headers["Content-Type"].startswith("application/problem+json")
                problem = json.loads(answer)
                assert problem["type"].endswith("/request-timeout")
                assert problem["status"] == 408
                assert await client.closed_by_server()
            assert [line["status"] for line in request_lines(service, path)][-1] == 408
        no_errors(service)


async def test_sigterm_with_a_stalled_body_ends_within_the_body_timeout_and_logs_408() -> None:
    env = {"FIREFIGHT_BODY_TIMEOUT_SECONDS": "2"}
    async with serve(env=env) as service, raw_client(service) as client:
        body = json.dumps({"ruleset": "sr5"}).encode()
        await client.start_post("/v1/encounters", body, 5)
        service.terminate()
        # Without a body timeout, shutdown waited 60 s for the body and then logged a 500.
        assert await service.exited(10) == 0
        status, _, _ = await client.response()
        assert status == 408
        assert [line["status"] for line in request_lines(service, "/v1/encounters")] == [408]
        no_errors(service)


async def test_a_client_that_hangs_up_mid_body_is_logged_as_client_disconnected() -> None:
    async with serve() as service:
        encounter = await new_encounter(service)
        path = f"/v1/encounters/{encounter}/attacks"
        async with raw_client(service) as client:
            body = json.dumps(make.attack()).encode()
            await client.start_post(path, body, len(body) // 2)
        gone = await wait_for_log(service, lambda line: line.get("event") == "client_disconnected")
        assert gone["level"] == "info"
        assert "exception" not in gone
        logged = await wait_for_log(
            service, lambda line: line.get("event") == "request" and line.get("path") == path
        )
        assert logged["status"] == 499
        no_errors(service)


async def test_connections_beyond_the_cap_are_refused_at_once() -> None:
    env = {"FIREFIGHT_MAX_CONNECTIONS": "4", "FIREFIGHT_BODY_TIMEOUT_SECONDS": "60"}
    async with serve(env=env) as service, contextlib.AsyncExitStack() as stack:
        body = json.dumps({"ruleset": "sr5"}).encode()
        holding = []
        for _ in range(4):  # each holds a half-sent body, in its handler
            client = await stack.enter_async_context(raw_client(service))
            await client.start_post("/v1/encounters", body, 3)
            holding.append(client)
        # Above the cap, a request (any but a health check's) is refused.
        async with raw_client(service) as refused:
            await refused.send(b"GET /v1/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, headers, _ = await refused.response(5)
            assert status == 503
            assert "Retry-After" in headers
            assert await refused.closed_by_server(5)
        # Beyond the health checks' reserve, a connection is refused before anything is read.
        async with contextlib.AsyncExitStack() as reserve:
            for _ in range(HEALTH_RESERVE):
                await reserve.enter_async_context(raw_client(service))
            async with raw_client(service) as refused:
                status, headers, _ = await refused.response(5)
                assert status == 503
                assert "Retry-After" in headers
                assert await refused.closed_by_server(5)
        # One of them goes away: its place is free again.
        holding.pop().writer.transport.abort()
        deadline = time.monotonic() + 10
        while True:
            async with raw_client(service) as client:
                await client.send(b"GET /v1/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                try:
                    status, _, _ = await client.response(5)
                except ConnectionResetError:
                    # Still refused: closed with our request unread, the 503 is lost to a reset.
                    status = 503
            if status == 200:
                break
            assert time.monotonic() < deadline, "the freed place was never given again"
            await asyncio.sleep(0.05)  # polling the condition, with a deadline


def test_the_limits_come_from_the_environment() -> None:
    env = {
        "FIREFIGHT_BODY_TIMEOUT_SECONDS": "2.5",
        "FIREFIGHT_MAX_CONNECTIONS": "50",
        "FIREFIGHT_SHUTDOWN_TIMEOUT_SECONDS": "20",
        "FIREFIGHT_WS_SEND_TIMEOUT_SECONDS": "3",
        "FIREFIGHT_WS_CLOSE_TIMEOUT_SECONDS": "4",
        "FIREFIGHT_WS_QUEUE_BATCHES": "10",
    }
    config = load_config([], {**env, "FIREFIGHT_ADMIN_KEY": ADMIN_KEY})
    assert (config.body_timeout_seconds, config.max_connections) == (2.5, 50)
    assert config.shutdown_timeout_seconds == 20
    assert (config.ws_send_timeout_seconds, config.ws_close_timeout_seconds) == (3, 4)
    assert config.ws_queue_batches == 10
    key = {"FIREFIGHT_ADMIN_KEY": ADMIN_KEY}
    with pytest.raises(ConfigError, match="FIREFIGHT_BODY_TIMEOUT_SECONDS must be a number"):
        load_config([], {"FIREFIGHT_BODY_TIMEOUT_SECONDS": "soon", **key})
    with pytest.raises(ConfigError, match="FIREFIGHT_MAX_CONNECTIONS must be between"):
        load_config([], {"FIREFIGHT_MAX_CONNECTIONS": "0", **key})
