"""The fault-injecting proxy itself, in front of the real Redis: each fault lands where it says."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlparse

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.conftest import new_id
from tests.tcp_proxy import TcpProxy


@pytest.fixture
async def proxy(redis_url: str) -> AsyncIterator[TcpProxy]:
    async with TcpProxy(urlparse(redis_url).port or 6379) as started:
        yield started


@pytest.fixture
async def direct(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def through(proxy: TcpProxy) -> AsyncIterator[aioredis.Redis]:
    """A client through the proxy that does not retry: every fault reaches the caller."""
    client = aioredis.Redis.from_url(proxy.url, socket_timeout=5, retry=None)
    try:
        yield client
    finally:
        await client.aclose()


async def test_it_forwards_both_ways(through: aioredis.Redis, direct: aioredis.Redis) -> None:
    key = f"proxy-test:{new_id()}"
    try:
        assert await through.set(key, b"x" * 200_000, ex=60)  # larger than one chunk
        assert await direct.get(key) == b"x" * 200_000
        assert await through.get(key) == b"x" * 200_000
    finally:
        await direct.delete(key)


async def test_a_cut_before_forwarding_keeps_the_command_from_the_server(
    proxy: TcpProxy, through: aioredis.Redis, direct: aioredis.Redis
) -> None:
    key = f"proxy-test:{new_id()}"
    assert await through.ping()
    cut = proxy.cut_when(key.encode())
    with pytest.raises(RedisConnectionError):
        await through.set(key, b"1", ex=60)
    assert cut.done.is_set()
    assert await direct.exists(key) == 0
    assert proxy.open_connections == 0
    # One shot: the next connection goes through.
    assert await through.set(key, b"2", ex=60)
    assert await direct.get(key) == b"2"
    await direct.delete(key)


async def test_a_cut_after_forwarding_lets_the_command_run_and_loses_its_answer(
    proxy: TcpProxy, through: aioredis.Redis, direct: aioredis.Redis
) -> None:
    key = f"proxy-test:{new_id()}"
    proxy.cut_when(key.encode(), after_forwarding=True)
    with pytest.raises(RedisConnectionError):
        await through.incr(key)
    try:
        assert await direct.get(key) == b"1"  # it ran, exactly once
    finally:
        await direct.delete(key)


async def test_refuse_then_accept_and_refuse_after_a_cut(
    proxy: TcpProxy, through: aioredis.Redis
) -> None:
    proxy.refuse()
    with pytest.raises(RedisConnectionError):
        await through.ping()
    proxy.accept()
    assert await through.ping()

    key = f"proxy-test:{new_id()}"
    cut = proxy.cut_when(key.encode(), refuse_after=True)
    with pytest.raises(RedisConnectionError):
        await through.get(key)
    await cut.wait()
    with pytest.raises(RedisConnectionError):  # a new connection: refused
        await through.ping()
    proxy.accept()
    assert await through.ping()


async def test_cut_all_drops_open_connections(proxy: TcpProxy, through: aioredis.Redis) -> None:
    assert await through.ping()
    assert proxy.open_connections == 1
    proxy.cut_all()
    assert proxy.open_connections == 0
    with pytest.raises(RedisConnectionError):  # the pooled connection was reset under it
        await through.ping()
    assert await through.ping()  # a new one works
    assert proxy.accepted == 2


async def test_a_hold_keeps_one_command_in_flight_until_released(
    proxy: TcpProxy, through: aioredis.Redis, direct: aioredis.Redis
) -> None:
    key = f"proxy-test:{new_id()}"
    hold = proxy.hold_when(key.encode())
    pending = asyncio.create_task(through.set(key, b"1", ex=60))
    await hold.wait_reached()
    try:
        assert await direct.exists(key) == 0  # held in the proxy: the server has not seen it
        assert not pending.done()
        hold.release()
        assert await asyncio.wait_for(pending, 10)
        assert await direct.get(key) == b"1"
    finally:
        await direct.delete(key)
