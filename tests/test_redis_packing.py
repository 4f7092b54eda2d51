"""The Redis store's client (issue 28): its commands packed with hiredis, the very bytes
redis-py's own packing makes, refused alike where redis-py refuses, and understood by a real
Redis; its own commands, queued by the store, on the plain pool."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from redis.exceptions import DataError

from service.store import StoreLimits
from service.store.redis import RedisStore, state_key
from service.store.redis_direct import PackedByHiredis as _PackedByHiredis

EVENT = '{"type":"attack","name":"Zoë"}'.encode() * 40

COMMANDS = [
    ("PING",),
    # A commit's shape: the script, its keys, numbers, text, bytes, an empty value.
    (
        "EVALSHA",
        "a" * 40,
        4,
        state_key("enc1"),
        "ff:{enc1}:events",
        "ff:{enc1}:idem:-",
        "ff:{enc1}:undo",
        12,
        "nonce",
        EVENT,
        604_800_000,
        "10000:67108864",
        "",
        1.5,
        -3,
        b"",
    ),
    # A command name of two words goes as two arguments.
    ("SCRIPT LOAD", "return 1"),
    (b"CLIENT SETNAME", "firefight"),
    ("HSET", "k", "naïve", memoryview(b"view"), bytearray(b"array")),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: str(c[0]))
def test_the_packing_is_redis_pys_own(command: tuple[object, ...]) -> None:
    ours = b"".join(_PackedByHiredis().pack_command(*command))
    theirs = b"".join(aioredis.Connection().pack_command(*command))
    assert ours == theirs


def test_worked_by_hand() -> None:
    assert _PackedByHiredis().pack_command("SCRIPT LOAD", "é", 7) == [
        b"*4\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$2\r\n\xc3\xa9\r\n$1\r\n7\r\n"
    ]


@pytest.mark.parametrize("value", [None, True, object()])
def test_what_redis_py_refuses_is_refused_alike(value: object) -> None:
    with pytest.raises(DataError):
        aioredis.Connection().pack_command("SET", "k", value)
    with pytest.raises(DataError):
        _PackedByHiredis().pack_command("SET", "k", value)


async def test_the_store_sends_its_commands_so(redis_url: str) -> None:
    store = RedisStore(redis_url, StoreLimits(ttl_seconds=60))
    try:
        pool = store._redis.connection_pool
        assert pool.connection_class is _PackedByHiredis
        # Queued by the store first, its commands never wait for a connection: the plain pool.
        # The event reader's blocking reads are not queued, and wait in the blocking pool.
        assert type(pool) is aioredis.ConnectionPool
        assert type(store._reader.connection_pool) is aioredis.BlockingConnectionPool
        await store.ping()
        # A script call with bytes, numbers and text, answered by the real Redis.
        assert await store.load("no-such-encounter") is None
    finally:
        await store.close()
