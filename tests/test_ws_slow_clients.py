"""WebSocket clients that never read: they must not hold up shutdown, other clients or memory.

A raw client does the WebSocket handshake and then never reads again, with small socket buffers
on both ends (the listening socket's send buffer is inherited by every connection it accepts), so
the service's writes to it really block after a few events.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp import WSCloseCode, WSMsgType, web

from service.api import create_app
from service.api.app import SOCKETS
from service.config import Config
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_events_live import on_replay_after_live_store, receive

BUFFER_BYTES = 4096
AUTH = {"Authorization": f"Bearer {ADMIN_KEY}"}


@dataclass
class Served:
    url: str
    port: int
    app: web.Application
    runner: web.AppRunner
    http: aiohttp.ClientSession

    async def attack(self, encounter: str) -> str:
        async with self.http.post(
            f"{self.url}/v1/encounters/{encounter}/attacks", json=make.attack()
        ) as response:
            assert response.status == 201, await response.text()
            return str((await response.json())["event_id"])

    async def encounter(self) -> str:
        async with self.http.post(f"{self.url}/v1/encounters", json={"ruleset": "sr5"}) as made:
            assert made.status == 201
            return str((await made.json())["id"])


@contextlib.asynccontextmanager
async def served(**overrides: Any) -> AsyncIterator[Served]:
    """The app on a listening socket with a small send buffer, run as `python -m service` runs
    it (an AppRunner), so `runner.cleanup()` is the whole graceful shutdown."""
    config = Config(admin_key=ADMIN_KEY, rate_limit_per_second=0, **overrides)
    app = create_app(config)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER_BYTES)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    runner = web.AppRunner(app)
    await runner.setup()
    try:
        await web.SockSite(runner, listener).start()
        async with aiohttp.ClientSession(headers=AUTH) as http:
            yield Served(f"http://127.0.0.1:{port}", port, app, runner, http)
    finally:
        await runner.cleanup()
        listener.close()


@contextlib.asynccontextmanager
async def non_reader(port: int, encounter: str) -> AsyncIterator[socket.socket]:
    """A WebSocket client that reads the handshake's answer and nothing after it."""
    loop = asyncio.get_running_loop()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER_BYTES)
        raw.setblocking(False)
        await loop.sock_connect(raw, ("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        handshake = (
            f"GET /v1/encounters/{encounter}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {key}\r\nAuthorization: Bearer {ADMIN_KEY}\r\n\r\n"
        )
        await loop.sock_sendall(raw, handshake.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:  # a byte at a time: not one byte of a frame more
            byte = await asyncio.wait_for(loop.sock_recv(raw, 1), 5)
            assert byte, answer
            answer += byte
        assert answer.startswith(b"HTTP/1.1 101 "), answer
        yield raw
    finally:
        raw.close()


async def closed_by_server(raw: socket.socket, seconds: float = 10) -> bool:
    """Reads what is left (the test's own check, long after the client stopped reading): True
    when the server has closed or reset the connection."""
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = await asyncio.wait_for(
                loop.sock_recv(raw, 65536), max(0.0, deadline - time.monotonic())
            )
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        if not chunk:
            return True
    return False


async def collect(
    ws: aiohttp.ClientWebSocketResponse, into: list[str], arrived: asyncio.Event
) -> None:
    """A client that reads everything, as a VTT does."""
    async for message in ws:
        if message.type == WSMsgType.TEXT:
            into.append(message.json()["id"])
            arrived.set()


async def test_shutdown_closes_every_socket_at_once_and_aborts_one_that_does_not_drain() -> None:
    async with served(ws_close_timeout_seconds=1, ws_send_timeout_seconds=60) as service:
        encounter = await service.encounter()
        readers = [
            await service.http.ws_connect(f"{service.url}/v1/encounters/{encounter}/ws")
            for _ in range(2)
        ]
        async with non_reader(service.port, encounter) as raw:
            # Enough events to fill the non-reader's buffers: the service's writes to it block.
            for _ in range(60):
                await service.attack(encounter)
            shutdown = asyncio.create_task(service.runner.cleanup())
            for ws in readers:
                closing = await ws.receive(timeout=5)
                while closing.type == WSMsgType.TEXT:
                    closing = await ws.receive(timeout=5)
                assert closing.type == WSMsgType.CLOSE
                assert closing.data == WSCloseCode.GOING_AWAY
            # The deadline is 1 s; without one, the non-reader held shutdown up for ever.
            await asyncio.wait_for(shutdown, 10)
            assert await closed_by_server(raw)


async def test_a_flood_to_a_client_that_never_reads_drops_it_and_not_the_others() -> None:
    async with served(ws_send_timeout_seconds=0.5, ws_queue_batches=50) as service:
        encounter = await service.encounter()
        ws = await service.http.ws_connect(f"{service.url}/v1/encounters/{encounter}/ws")
        seen: list[str] = []
        arrived = asyncio.Event()
        reading = asyncio.create_task(collect(ws, seen, arrived))
        try:
            async with non_reader(service.port, encounter) as raw:
                posted: list[str] = []
                deadline = time.monotonic() + 30
                # Both sockets are registered until the service gives up on the non-reader.
                while len(service.app[SOCKETS]) > 1:
                    assert time.monotonic() < deadline, f"still open after {len(posted)} events"
                    posted.append(await service.attack(encounter))
                assert await closed_by_server(raw)
            while len(seen) < 1 + len(posted):  # the reader got everything, in order
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 10)
            assert seen[1:] == posted
        finally:
            await ws.close()
            await reading


async def test_a_non_reader_closed_by_the_heartbeat_is_cut_not_left_unsent() -> None:
    """Events wait unsent for a client that does not read, then the heartbeat finds it dead:
    its connection must be let go, though what is waiting for it can never be sent."""
    # The first ping goes 1 s after the handshake, and the socket is closed 0.5 s later without
    # its pong. Filling the buffers takes some fifteen events, about 50 ms here even on a loaded
    # machine: the second is twenty times that.
    async with served(ws_heartbeat_seconds=1, ws_send_timeout_seconds=60) as service:
        encounter = await service.encounter()
        async with non_reader(service.port, encounter):
            ((_, transport),) = service.app[SOCKETS].items()
            connection = transport.get_extra_info("socket")
            deadline = time.monotonic() + 10
            while transport.get_write_buffer_size() < 32 * 1024:  # the kernel's buffers are full
                assert time.monotonic() < deadline, transport.get_write_buffer_size()
                await service.attack(encounter)
            # Not read from the client's side: reading would drain what is waiting.
            while connection.fileno() != -1:
                assert time.monotonic() < deadline, "the dead client's connection was kept"
                await asyncio.sleep(0.05)  # polling the condition, with a deadline


async def test_a_socket_whose_live_queue_overflows_closes_1013_and_resumes_with_after(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store = await on_replay_after_live_store(make_client, monkeypatch, ws_queue_batches=2)
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    # The replay is held; three live batches arrive for a queue of two: it overflows.
    await asyncio.wait_for(store.replay_reached.wait(), 5)
    posted = []
    for _ in range(3):
        response = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
        posted.append((await response.json())["event_id"])
        while posted[-1] not in store.read_live:
            store.live_arrived.clear()
            await asyncio.wait_for(store.live_arrived.wait(), 5)
    store.replay_may_read.set()
    assert (await receive(ws))["type"] == "encounter_created"
    assert [(await receive(ws))["id"] for _ in posted] == posted
    closing = await ws.receive(timeout=5)
    assert closing.type == WSMsgType.CLOSE
    assert closing.data == WSCloseCode.TRY_AGAIN_LATER
    await ws.close()

    resumed = await client.ws_connect(f"/v1/encounters/{encounter}/ws?after={posted[-1]}")
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
    later = (await response.json())["event_id"]
    assert (await receive(resumed))["id"] == later
    await resumed.close()
