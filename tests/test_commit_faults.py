"""Issue 10, "Faults": Redis dropping the connection at the very commit, and pooled connections
gone stale. A proxy between the service and a redis-server of the test's own cuts exactly at the
commit script, so the fault lands where each test says it does."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from service.store.redis import _COMMIT
from tests import sr5_requests as make
from tests.redis_server import OwnRedis
from tests.tcp_proxy import TcpProxy
from tests.test_trust import open_table

# redis-py runs the commit script as EVALSHA <its SHA-1>: the proxy cuts on that, and on nothing
# else (claiming an Idempotency-Key is another script).
COMMIT = hashlib.sha1(_COMMIT.encode()).hexdigest().encode()
# How soon after Redis is back a released key lets its retry run (the issue: within a second).
RELEASED_WITHIN_SECONDS = 1.0


@pytest.fixture
async def proxy(tmp_path: Path) -> AsyncIterator[TcpProxy]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        async with TcpProxy(server.port) as proxy:
            yield proxy
    finally:
        server.stop()


@pytest.fixture
async def table(make_client: Any, proxy: TcpProxy) -> Any:
    client = await make_client(redis_url=proxy.url)
    encounter, _ = await open_table(client)
    return client, f"/v1/encounters/{encounter}"


async def warmed(client: Any, base: str) -> list[str]:
    """One attack first, so Redis knows the commit script: the cut then meets the script itself
    (on a fresh Redis the first EVALSHA only asks for it to be loaded)."""
    assert (await client.post(f"{base}/attacks", json=make.attack())).status == 201
    return await attack_events(client, base)


async def attack_events(client: Any, base: str) -> list[str]:
    page = await (await client.get(f"{base}/events")).json()
    return [event["id"] for event in page["events"] if event["type"] == "attack"]


async def test_a_key_whose_commit_never_reached_redis_runs_as_soon_as_redis_is_back(
    table: Any, proxy: TcpProxy
) -> None:
    client, base = table
    cut = proxy.cut_when(COMMIT, refuse_after=True)
    key = {"Idempotency-Key": "commit-cut-before"}
    failed = await client.post(f"{base}/attacks", json=make.attack(), headers=key)
    await cut.wait()
    assert failed.status == 503, await failed.text()
    assert failed.headers["Retry-After"] == "1"
    proxy.accept()
    back = time.monotonic()
    # The key was claimed, and the attempt that claimed it failed: its retry runs now, instead
    # of a 409 until the claim expires.
    while True:
        retried = await client.post(f"{base}/attacks", json=make.attack(), headers=key)
        if retried.status != 409 or time.monotonic() - back > RELEASED_WITHIN_SECONDS:
            break
        await asyncio.sleep(0.05)  # a client's retry loop
    assert retried.status == 201, await retried.text()
    assert "Idempotent-Replayed" not in retried.headers
    assert await attack_events(client, base) == [(await retried.json())["event_id"]]


async def test_a_commit_whose_reply_was_lost_is_answered_once_when_redis_is_back(
    table: Any, proxy: TcpProxy
) -> None:
    client, base = table
    before = await warmed(client, base)
    cut = proxy.cut_when(COMMIT, after_forwarding=True, refuse_after=True)
    key = {"Idempotency-Key": "commit-cut-after"}
    failed = await client.post(f"{base}/attacks", json=make.attack(), headers=key)
    await cut.wait()
    assert failed.status == 503, await failed.text()
    proxy.accept()
    retried = await client.post(f"{base}/attacks", json=make.attack(), headers=key)
    assert retried.status == 201, await retried.text()
    # It had landed: the retry gets that answer, and the attack is there once.
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert await attack_events(client, base) == [*before, (await retried.json())["event_id"]]


async def test_a_lost_reply_is_asked_again_on_a_fresh_connection_without_committing_twice(
    table: Any, proxy: TcpProxy
) -> None:
    client, base = table
    before = await warmed(client, base)
    cut = proxy.cut_when(COMMIT, after_forwarding=True)
    answered = await client.post(f"{base}/attacks", json=make.attack())
    await cut.wait()
    # No key, and the reply lost once: sent again, the commit answers what it did the first
    # time instead of writing a second attack.
    assert answered.status == 201, await answered.text()
    assert await attack_events(client, base) == [*before, (await answered.json())["event_id"]]
    view = await (await client.get(base)).json()
    assert view["version"] == 3  # created, the first attack, this one


async def test_connections_gone_stale_cost_no_request_a_503(table: Any, proxy: TcpProxy) -> None:
    client, base = table
    assert (await client.post(f"{base}/attacks", json=make.attack())).status == 201
    opened = proxy.accepted
    # As a Redis restart leaves them: every pooled connection reset.
    proxy.cut_all()
    for _ in range(3):
        response = await client.post(f"{base}/attacks", json=make.attack())
        assert response.status == 201, await response.text()
    assert proxy.accepted > opened
    assert len(await attack_events(client, base)) == 4
