"""Slow and stalled request bodies and clients hanging up, against the real service
(`python -m service`) with raw sockets that send headers and half a body.

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

from tests import sr5_requests as make
from tests.service_process import Service, serve
from tests.test_cli import ADMIN_KEY

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
async def raw_client(service: Service) -> AsyncIterator[RawClient]:
    reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
    try:
        yield RawClient(reader, writer)
    finally:
        writer.transport.abort()


async def new_encounter(service: Service) -> str:
    async with (
        aiohttp.ClientSession(headers=AUTH) as http,
        http.post(f"{service.url}/v1/encounters", json={"ruleset": "sr5"}) as made,
    ):
        assert made.status == 201
        return str((await made.json())["id"])


async def wait_for_log(
    service: Service, found: Callable[[dict[str, Any]], bool], seconds: float = 10
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        lines = [line for line in service.log_lines() if found(line)]
        if lines:
            return lines[0]
        await asyncio.sleep(0.05)  # polling the log file, with a deadline
    raise AssertionError(f"no such log line in {service.log_lines()}")


def request_lines(service: Service, path: str) -> list[dict[str, Any]]:
    return [
        line
        for line in service.log_lines()
        if line.get("event") == "request" and line.get("path") == path
    ]


def no_errors(service: Service) -> None:
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
