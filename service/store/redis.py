"""The Redis store: compare-and-set and the event append in one Lua script per encounter.

Keys carry the encounter id as a hash tag (`ff:{<id>}:state`, `ff:{<id>}:events`) so a Redis
Cluster keeps an encounter on one node and every script touches one slot.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.base import (
    EncounterExists,
    Events,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
)

# KEYS: state, events. ARGV: document, event, ttl ms, max events.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
redis.call('HSET', KEYS[1], 'v', 1, 'doc', ARGV[1])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return id
"""

# KEYS: state, events. ARGV: expected version, document, event, ttl ms, max events.
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v or tonumber(v) ~= tonumber(ARGV[1]) then return false end
redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'doc', ARGV[2])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return id
"""

# KEYS: state, events. ARGV: event, ended ttl ms, max events.
_DELETE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('DEL', KEYS[1])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'e', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id
"""


def state_key(encounter_id: str) -> str:
    return f"ff:{{{encounter_id}}}:state"


def events_key(encounter_id: str) -> str:
    return f"ff:{{{encounter_id}}}:events"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _events(entries: list[Any]) -> Events:
    return [(_text(event_id), fields[b"e"]) for event_id, fields in entries]


class RedisStore:
    def __init__(
        self,
        url: str,
        limits: StoreLimits | None = None,
        client: aioredis.Redis | None = None,
        reader: aioredis.Redis | None = None,
        command_timeout_s: float = 2.0,
    ) -> None:
        self._limits = limits or StoreLimits()
        self._redis = client or aioredis.Redis.from_url(
            url, socket_timeout=command_timeout_s, socket_connect_timeout=command_timeout_s
        )
        # Blocking XREAD waits longer than a command may take: it gets its own client.
        self._reader = reader or aioredis.Redis.from_url(
            url, socket_timeout=command_timeout_s + 30, socket_connect_timeout=command_timeout_s
        )
        self._create = self._redis.register_script(_CREATE)
        self._commit = self._redis.register_script(_COMMIT)
        self._delete = self._redis.register_script(_DELETE)

    async def _call(self, operation: Callable[[], Awaitable[Any]]) -> Any:
        try:
            return await operation()
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            raise StoreUnavailable(str(error)) from error

    @property
    def _ttl_ms(self) -> int:
        return self._limits.ttl_seconds * 1000

    async def create(self, encounter_id: str, document: bytes, event: bytes) -> str:
        keys = [state_key(encounter_id), events_key(encounter_id)]
        args: list[Any] = [document, event, self._ttl_ms, self._limits.max_events]
        event_id = await self._call(lambda: self._create(keys=keys, args=args))
        if event_id is None:
            raise EncounterExists(encounter_id)
        return _text(event_id)

    async def load(self, encounter_id: str) -> StoredEncounter | None:
        fields: list[Any] = await self._call(
            lambda: self._redis.hmget(state_key(encounter_id), "v", "doc")
        )
        version, document = fields
        if version is None or document is None:
            return None
        return StoredEncounter(int(version), document)

    async def commit(
        self, encounter_id: str, expected_version: int, document: bytes, event: bytes
    ) -> str | None:
        keys = [state_key(encounter_id), events_key(encounter_id)]
        args: list[Any] = [expected_version, document, event, self._ttl_ms, self._limits.max_events]
        event_id = await self._call(lambda: self._commit(keys=keys, args=args))
        return None if event_id is None else _text(event_id)

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        keys = [state_key(encounter_id), events_key(encounter_id)]
        args: list[Any] = [event, self._limits.ended_ttl_seconds * 1000, self._limits.max_events]
        event_id = await self._call(lambda: self._delete(keys=keys, args=args))
        return None if event_id is None else _text(event_id)

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        entries: list[Any] = await self._call(
            lambda: self._redis.xrange(events_key(encounter_id), min=f"({after}", count=limit)
        )
        return _events(entries)

    async def last_event_id(self, encounter_id: str) -> str | None:
        entries: list[Any] = await self._call(
            lambda: self._redis.xrevrange(events_key(encounter_id), count=1)
        )
        return _text(entries[0][0]) if entries else None

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        if not cursors:
            return {}
        streams: dict[Any, Any] = {events_key(e): c for e, c in cursors.items()}
        block_ms = max(1, int(timeout_s * 1000))
        answer = await self._call(lambda: self._reader.xread(streams, count=1000, block=block_ms))
        # RESP2 answers a list of [key, entries]; RESP3 a map of key to entries.
        pairs: Any = answer.items() if isinstance(answer, dict) else (answer or [])
        found: dict[str, Events] = {}
        for key, entries in pairs:
            # "ff:{<id>}:events" -> "<id>"
            name = _text(key)
            found[name[len("ff:{") : -len("}:events")]] = _events(entries)
        return found

    async def ping(self) -> None:
        await self._call(self._redis.ping)

    async def close(self) -> None:
        await self._redis.aclose()
        await self._reader.aclose()
