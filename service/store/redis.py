"""The Redis store: compare-and-set and the event append in one Lua script per encounter.

Keys carry the encounter id as a hash tag (`ff:{<id>}:state`, `ff:{<id>}:events`,
`ff:{<id>}:undo`) so a Redis Cluster keeps an encounter on one node and every script touches one
slot.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ClusterDownError, ClusterError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.base import (
    RESERVED_FIELDS,
    UNCHANGED,
    Answered,
    Committed,
    Conflict,
    EncounterExists,
    Events,
    Idempotency,
    IdempotencyKeyLost,
    Pending,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
    Unchanged,
    UndoTop,
    lasting,
)
from service.store.redis_direct import (
    DirectReader,
    DirectScripts,
    connection_kind,
    event_field,
    retry_once,
)

# Every script touches one encounter's keys only (one hash tag, one Cluster slot).
# An unused idempotency key is still passed, never touched, so every script declares its keys.
# Every script may run twice: a command whose reply was lost is sent again once on a fresh
# connection. The scripts that write keep the writing call's random nonce and the event id it made
# in the state hash, and a second run of the same call answers what the first did instead of
# writing again.
# The state hash holds the document's fields beside the store's own (RESERVED_FIELDS). An answer
# is sent only to be kept for an Idempotency-Key, and kept as sent: no script copies or edits it.

# The stream's caps, one ARGV "<events>:<bytes>": after an event is added, the oldest go until
# both hold (the newest always stays); the state hash counts the stream's bytes in 'eb'.
_TRIM = """
local function trim(state, stream, added, caps)
  local max_events, max_bytes = string.match(caps, '(%d+):(%d+)')
  max_events, max_bytes = tonumber(max_events), tonumber(max_bytes)
  local bytes = redis.call('HINCRBY', state, 'eb', string.len(added))
  local count = redis.call('XLEN', stream)
  while count > 1 and (count > max_events or bytes > max_bytes) do
    local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
    bytes = bytes - string.len(oldest[2][2])
    redis.call('XDEL', stream, oldest[1])
    count = count - 1
  end
  -- Events stored before the count began were never counted: never below nothing.
  if bytes < 0 then bytes = 0 end
  redis.call('HSET', state, 'eb', bytes)
end
"""

# The undo stack: a list, newest first, of "<event id> <record>" (an event id has no space). Its
# caps, one ARGV "<records>:<bytes>": after a record is pushed, the oldest go until both hold (the
# newest stays unless no record is kept at all); the state hash counts the records' bytes in 'ub'.
# Each step costs O(records pushed, popped or trimmed).
_UNDO = """
local function record_bytes(entry)
  return string.len(entry) - string.find(entry, ' ', 1, true)
end

local function change_undo(state, stack, pop, push, id, record, caps)
  local bytes = tonumber(redis.call('HGET', state, 'ub') or '0')
  if pop == '1' then
    local newest = redis.call('LPOP', stack)
    if newest then bytes = bytes - record_bytes(newest) end
  end
  if push == '1' then
    local max_records, max_bytes = string.match(caps, '(%d+):(%d+)')
    max_records, max_bytes = tonumber(max_records), tonumber(max_bytes)
    local count = redis.call('LPUSH', stack, id .. ' ' .. record)
    bytes = bytes + string.len(record)
    while count > max_records or (count > 1 and bytes > max_bytes) do
      bytes = bytes - record_bytes(redis.call('RPOP', stack))
      count = count - 1
    end
  end
  if redis.call('EXISTS', stack) == 0 then
    redis.call('HDEL', state, 'ub')
  else
    -- Never below nothing, were the count ever behind the stack.
    redis.call('HSET', state, 'ub', math.max(bytes, 0))
  end
end
"""

# A live encounter's keys are kept for the TTL from each write, a lasting document's (a campaign,
# service/store/base.py) with no expiry at all: its TTL is passed as NEVER. PEXPIRE is never
# given 0 (that would delete the key at once).
NEVER = "never"
_KEEP = """
local function keep(key, ttl)
  if ttl == 'never' then redis.call('PERSIST', key) else redis.call('PEXPIRE', key, ttl) end
end
"""

# KEYS: state, events, idempotency, undo. ARGV: event, ttl ms (or NEVER), the stream's caps, with
# key ("1"/"0"), fingerprint, key ttl ms, answer, nonce, then the document's field/value pairs.
_CREATE = (
    _TRIM
    + _KEEP
    + """
if redis.call('HGET', KEYS[1], 'nonce') == ARGV[8] then
  return {'created', redis.call('HGET', KEYS[1], 'eid')}
end
if ARGV[4] == '1' then
  local kept = redis.call('HMGET', KEYS[3], 'fp', 'answer', 'eid')
  if kept[1] then return {'answered', kept[1], kept[2], kept[3]} end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
-- No records of an encounter that had this id and expired (they expire with it: a safeguard).
redis.call('DEL', KEYS[4])
local id = redis.call('XADD', KEYS[2], '*', 'e', ARGV[1])
redis.call('HSET', KEYS[1], 'v', 1, 'nonce', ARGV[8], 'eid', id, unpack(ARGV, 9))
trim(KEYS[1], KEYS[2], ARGV[1], ARGV[3])
keep(KEYS[1], ARGV[2])
keep(KEYS[2], ARGV[2])
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[3], 'fp', ARGV[5], 'answer', ARGV[7], 'eid', id)
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end
return {'created', id}
"""
)

# KEYS: state. ARGV: the version the caller holds ('' for none). The whole hash, or only the
# version when it is the caller's.
_LOAD = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return false end
if v == ARGV[1] then return {'unchanged'} end
return {'state', redis.call('HGETALL', KEYS[1])}
"""

# KEYS: idempotency. ARGV: owner, pending ttl ms.
_BEGIN = """
local kept = redis.call('HMGET', KEYS[1], 'fp', 'answer', 'eid')
if kept[1] then return {'answered', kept[1], kept[2], kept[3]} end
if redis.call('HSETNX', KEYS[1], 'owner', ARGV[1]) == 0
  and redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return {'pending'}
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'started'}
"""

# KEYS: idempotency. ARGV: owner.
_ABANDON = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: state, events, idempotency, undo. ARGV: expected version, nonce, event, ttl ms (or NEVER),
# the stream's caps, with key ("1"/"0"), owner, fingerprint, key ttl ms, answer, undo pop ("1"/"0"),
# undo push ("1"/"0"), the record pushed, the undo stack's caps, how many fields change, then
# the changed field/value pairs, then the names of the fields removed.
_COMMIT = (
    _TRIM
    + _UNDO
    + _KEEP
    + """
if redis.call('HGET', KEYS[1], 'nonce') == ARGV[2] then
  return {'committed', redis.call('HGET', KEYS[1], 'eid')}
end
local v = redis.call('HGET', KEYS[1], 'v')
if not v or tonumber(v) ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return {'conflict', redis.call('HGETALL', KEYS[1])}
end
if ARGV[6] == '1' and redis.call('HGET', KEYS[3], 'owner') ~= ARGV[7] then return {'lost'} end
local id = redis.call('XADD', KEYS[2], '*', 'e', ARGV[3])
trim(KEYS[1], KEYS[2], ARGV[3], ARGV[5])
local last_set = 15 + 2 * tonumber(ARGV[15])
redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'nonce', ARGV[2], 'eid', id,
  unpack(ARGV, 16, last_set))
if #ARGV > last_set then redis.call('HDEL', KEYS[1], unpack(ARGV, last_set + 1)) end
if ARGV[11] == '1' or ARGV[12] == '1' then
  change_undo(KEYS[1], KEYS[4], ARGV[11], ARGV[12], id, ARGV[13], ARGV[14])
end
keep(KEYS[1], ARGV[4])
keep(KEYS[2], ARGV[4])
keep(KEYS[4], ARGV[4])
if ARGV[6] == '1' then
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[3], 'fp', ARGV[8], 'answer', ARGV[10], 'eid', id)
  redis.call('PEXPIRE', KEYS[3], ARGV[9])
end
return {'committed', id}
"""
)

# KEYS: state, events, undo. ARGV: event, ended ttl ms, the stream's caps, nonce. An ended
# encounter is never undone: its undo records go at once.
_DELETE = (
    _TRIM
    + """
if redis.call('HGET', KEYS[1], 'nonce') == ARGV[4] then
  return redis.call('HGET', KEYS[1], 'eid')
end
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return false
end
local id = redis.call('XADD', KEYS[2], '*', 'e', ARGV[1])
trim(KEYS[1], KEYS[2], ARGV[1], ARGV[3])
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ended', 1, 'nonce', ARGV[4], 'eid', id)
redis.call('HDEL', KEYS[1], 'ub')
redis.call('DEL', KEYS[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id
"""
)

# KEYS: state, undo. The newest record and how many there are; false when there is none or the
# encounter is gone or ended.
_UNDO_TOP = """
if not redis.call('HGET', KEYS[1], 'v') or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return false
end
local newest = redis.call('LINDEX', KEYS[2], 0)
if not newest then return false end
return {newest, redis.call('LLEN', KEYS[2])}
"""


# The commands the scripts above run inside Redis: Redis counts each in its command statistics,
# but none is a round trip of its own (what the benchmarks and tests count).
SCRIPT_COMMANDS = frozenset(
    {"hget", "hmget", "hset", "hsetnx", "hexists", "hdel", "hgetall", "hincrby"}
    | {"exists", "del", "xadd", "xlen", "xrange", "xdel", "pexpire", "persist"}
    | {"lpush", "lpop", "rpop", "lindex", "llen"}
)


# With a Cluster, how long each per-encounter read blocks (the wait for a new event at most).
CLUSTER_BLOCK_SECONDS = 0.1


# Connections one client keeps to a Redis (to each node of a Cluster). redis-py's own default
# (100) fails a command outright when they are all busy, which a burst of requests reaches. A
# Cluster's event reader holds one per watched encounter at once.
MAX_CONNECTIONS = 512

# Commands one store sends at once; more wait for one of them to come back. Redis runs one
# command at a time, so more buy no speed, and a burst that opened hundreds of connections at
# once spent the connect timeout opening them on a busy machine and failed its commands (503)
# instead of queueing them (CI of stop 19).
COMMANDS_IN_FLIGHT = 64
assert COMMANDS_IN_FLIGHT < MAX_CONNECTIONS, "queued commands must never wait for a connection"


def _nonce() -> str:
    """What tells a second run of one call's script (a retry after a lost reply) from another."""
    return secrets.token_hex(16)


def _client(
    url: str,
    cluster: bool,
    socket_timeout: float,
    connect_timeout: float,
    password: str | None = None,
    queued: bool = False,
) -> Any:
    # redis-py uses a password of the URL's own before this one.
    if cluster:
        return RedisCluster.from_url(
            url,
            password=password,
            socket_timeout=socket_timeout,
            socket_connect_timeout=connect_timeout,
            max_connections=MAX_CONNECTIONS,
            retry=retry_once(),
        )
    # A blocking pool makes a burst wait for a free connection (up to the connect timeout)
    # instead of failing as if Redis were down. The store's own commands (those its scripts are
    # not: they go on connections of their own, redis_direct.py) are queued before they reach
    # the pool (COMMANDS_IN_FLIGHT, far below MAX_CONNECTIONS), so they never wait there
    # and take the plain pool, which costs about a fifth less CPU a command (no condition,
    # timeout and second lock around each one; docs/performance.md, "Issue 28").
    pool_class = aioredis.ConnectionPool if queued else aioredis.BlockingConnectionPool
    pool = pool_class.from_url(
        url,
        # A rediss:// or unix:// URL keeps its own kind of connection (the URL's wins).
        **connection_kind(),
        password=password,
        max_connections=MAX_CONNECTIONS,
        **({} if queued else {"timeout": connect_timeout}),
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        retry=retry_once(),
    )
    return aioredis.Redis.from_pool(pool)


# The most events one read of the event reader takes (of all its encounters).
EVENTS_PER_READ = 1000

# Every encounter's state key, as SCAN matches them, and how many keys one SCAN step looks at.
STATE_KEYS = "ff:{*}:state"
IDS_PER_SCAN = 500


def state_key(encounter_id: str) -> str:
    return f"ff:{{{encounter_id}}}:state"


def events_key(encounter_id: str) -> str:
    return f"ff:{{{encounter_id}}}:events"


def undo_key(encounter_id: str) -> str:
    return f"ff:{{{encounter_id}}}:undo"


def idempotency_key(encounter_id: str, key: str | None) -> str:
    return f"ff:{{{encounter_id}}}:idem:{key or '-'}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _stored(flat: list[Any]) -> StoredEncounter | None:
    """An encounter from its hash as HGETALL lists it (name, value, name, value...)."""
    found = dict(zip(flat[::2], flat[1::2], strict=True))
    version = found.pop(b"v", None)
    if version is None:
        return None
    ended = found.pop(b"ended", None) is not None
    fields = {_text(name): value for name, value in found.items()}
    for name in RESERVED_FIELDS:
        fields.pop(name, None)
    return StoredEncounter(int(version), fields, ended)


def _answered(reply: list[Any]) -> Answered:
    return Answered(_text(reply[1]), reply[2] or b"", _text(reply[3] or b""))


def _undo_top(reply: list[Any] | None) -> UndoTop | None:
    """The newest record as _UNDO_TOP answers it: "<event id> <record>" and the depth."""
    if not reply:
        return None
    event_id, _, record = reply[0].partition(b" ")
    return UndoTop(_text(event_id), record, int(reply[1]))


def _events(entries: list[Any]) -> Events:
    return [(_text(event_id), event_field(fields)) for event_id, fields in entries]


class RedisStore:
    def __init__(
        self,
        url: str,
        limits: StoreLimits | None = None,
        client: Any = None,
        reader: Any = None,
        command_timeout_s: float = 2.0,
        cluster: bool = False,
        password: str | None = None,
    ) -> None:
        self._limits = limits or StoreLimits()
        if self._limits.ttl_seconds is None:
            raise ValueError("the Redis store keeps every key with a TTL: ttl_seconds is needed")
        self._ttl_seconds: int = self._limits.ttl_seconds
        self._cluster = cluster
        self._redis = client or _client(
            url, cluster, command_timeout_s, command_timeout_s, password, queued=True
        )
        # Blocking XREAD waits longer than a command may take: it gets its own client.
        self._reader = reader or _client(
            url, cluster, command_timeout_s + 30, command_timeout_s, password
        )
        self._create = self._redis.register_script(_CREATE)
        self._load = self._redis.register_script(_LOAD)
        self._begin = self._redis.register_script(_BEGIN)
        self._abandon = self._redis.register_script(_ABANDON)
        self._commit = self._redis.register_script(_COMMIT)
        self._delete = self._redis.register_script(_DELETE)
        self._undo_top = self._redis.register_script(_UNDO_TOP)
        # The scripts on redis-py's connections directly (redis_direct.py); a Cluster's, or a
        # client given (fakeredis), through the client.
        self._direct = (
            None
            if client is not None or cluster
            else DirectScripts(url, password, command_timeout_s, command_timeout_s)
        )
        # The event reader's XREAD likewise; a Cluster's, or a reader given, through redis-py.
        self._direct_reader = (
            None
            if reader is not None or cluster
            else DirectReader(url, password, command_timeout_s, command_timeout_s)
        )
        self._xread: Callable[[dict[Any, Any], int, int], Awaitable[Any]] = (
            self._direct_reader.xread
            if self._direct_reader is not None
            else lambda streams, count, block: self._reader.xread(streams, count=count, block=block)
        )
        self._in_flight = asyncio.Semaphore(COMMANDS_IN_FLIGHT)
        # Told of each round trip: its operation and seconds (the metrics' hook).
        self.on_round_trip: Callable[[str, float], object] = lambda op, seconds: None

    async def _call(self, operation: Callable[[], Awaitable[Any]], op: str) -> Any:
        """One round trip, `op` naming it (a bounded set: the metrics' label)."""
        async with self._in_flight:
            started = time.perf_counter()
            try:
                return await self._unqueued(operation)
            finally:
                self.on_round_trip(op, time.perf_counter() - started)

    def _script(self, script: Any, keys: list[Any], args: list[Any]) -> Awaitable[Any]:
        if self._direct is None:
            return script(keys=keys, args=args)  # type: ignore[no-any-return]
        return self._direct.run(script, keys, args)

    @staticmethod
    async def _unqueued(operation: Callable[[], Awaitable[Any]]) -> Any:
        """The blocking reads of the event reader: they wait on their own connections."""
        try:
            return await operation()
        except (
            RedisConnectionError,
            RedisTimeoutError,
            ClusterDownError,
            ClusterError,
            OSError,
        ) as error:
            raise StoreUnavailable(str(error)) from error

    def _ttl_ms(self, encounter_id: str) -> int | str:
        """How long a live encounter's keys are kept after a write, as the scripts take it."""
        return NEVER if lasting(encounter_id) else self._ttl_seconds * 1000

    @property
    def _caps(self) -> str:
        """The stream's caps as the scripts take them (_TRIM)."""
        return f"{self._limits.max_events}:{self._limits.max_event_stream_bytes}"

    @property
    def _undo_caps(self) -> str:
        """The undo stack's caps as the scripts take them (_UNDO)."""
        return f"{self._limits.max_undo}:{self._limits.max_undo_bytes}"

    def _keys(self, encounter_id: str, idempotency: Idempotency | None) -> list[str]:
        return [
            state_key(encounter_id),
            events_key(encounter_id),
            idempotency_key(encounter_id, idempotency.key if idempotency else None),
            undo_key(encounter_id),
        ]

    def _undo_args(self, undo: bytes | None, undo_pop: bool) -> list[Any]:
        """undo pop, undo push, the record, the stack's caps."""
        if undo is not None and self._limits.max_undo == 0:
            # Kept by no one: the push still runs (and clears records kept under an earlier
            # setting), the record does not cross the wire.
            undo = b""
        push = "0" if undo is None else "1"
        return ["1" if undo_pop else "0", push, undo or b"", self._undo_caps]

    def _key_args(
        self, encounter_id: str, idempotency: Idempotency | None, answer: bytes
    ) -> list[Any]:
        """with key, owner, fingerprint, key ttl ms, answer: the answer crosses the wire only to
        be kept."""
        if idempotency is None:
            return ["0", "", "", "", ""]
        key_ttl = self._limits.idempotency_ttl_seconds
        if not lasting(encounter_id):
            # An answer never outlives its encounter: a replayed creation names a live one.
            key_ttl = min(key_ttl, self._ttl_seconds)
        return ["1", idempotency.owner, idempotency.fingerprint, key_ttl * 1000, answer]

    async def create(
        self,
        encounter_id: str,
        fields: Mapping[str, bytes],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
    ) -> Committed | Answered:
        with_key, _, fingerprint, key_ttl, kept = self._key_args(encounter_id, idempotency, answer)
        args: list[Any] = [event, self._ttl_ms(encounter_id), self._caps, with_key, fingerprint]
        args += [key_ttl, kept, _nonce()]
        for name, value in fields.items():
            args += [name, value]
        keys = self._keys(encounter_id, idempotency)
        reply = await self._call(lambda: self._script(self._create, keys, args), "create")
        outcome = _text(reply[0])
        if outcome == "answered":
            return _answered(reply)
        if outcome == "exists":
            raise EncounterExists(encounter_id)
        return Committed(_text(reply[1]))

    async def load(
        self, encounter_id: str, known_version: int | None = None
    ) -> StoredEncounter | Unchanged | None:
        keys = [state_key(encounter_id)]
        args = ["" if known_version is None else str(known_version)]
        reply = await self._call(lambda: self._script(self._load, keys, args), "load")
        if not reply:
            return None
        if _text(reply[0]) == "unchanged":
            return UNCHANGED
        return _stored(reply[1])

    async def begin(self, encounter_id: str, idempotency: Idempotency) -> Answered | Pending | None:
        keys = [idempotency_key(encounter_id, idempotency.key)]
        args: list[Any] = [idempotency.owner, self._limits.idempotency_pending_seconds * 1000]
        reply = await self._call(lambda: self._script(self._begin, keys, args), "begin")
        outcome = _text(reply[0])
        if outcome == "answered":
            return _answered(reply)
        if outcome == "pending":
            return Pending()
        return None

    async def abandon(self, encounter_id: str, idempotency: Idempotency) -> None:
        keys = [idempotency_key(encounter_id, idempotency.key)]
        await self._call(lambda: self._script(self._abandon, keys, [idempotency.owner]), "abandon")

    async def commit(
        self,
        encounter_id: str,
        expected_version: int,
        changed: Mapping[str, bytes],
        removed: Collection[str],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
        undo: bytes | None = None,
        undo_pop: bool = False,
    ) -> Committed | Conflict:
        ttl = self._ttl_ms(encounter_id)
        args: list[Any] = [expected_version, _nonce(), event, ttl, self._caps]
        args += self._key_args(encounter_id, idempotency, answer)
        args += [*self._undo_args(undo, undo_pop), len(changed)]
        for name, value in changed.items():
            args += [name, value]
        args += removed
        keys = self._keys(encounter_id, idempotency)
        reply = await self._call(lambda: self._script(self._commit, keys, args), "commit")
        outcome = _text(reply[0])
        if outcome == "lost":
            raise IdempotencyKeyLost(encounter_id)
        if outcome == "conflict":
            return Conflict(_stored(reply[1]))
        return Committed(_text(reply[1]))

    async def undo_top(self, encounter_id: str) -> UndoTop | None:
        if self._limits.max_undo == 0:
            return None  # records kept under an earlier setting are not undone
        keys = [state_key(encounter_id), undo_key(encounter_id)]
        return _undo_top(
            await self._call(lambda: self._script(self._undo_top, keys, []), "undo_top")
        )

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        keys = [state_key(encounter_id), events_key(encounter_id), undo_key(encounter_id)]
        args: list[Any] = [event, self._limits.ended_ttl_seconds * 1000, self._caps]
        args.append(_nonce())
        event_id = await self._call(lambda: self._script(self._delete, keys, args), "delete")
        return None if event_id is None else _text(event_id)

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        entries: list[Any] = await self._call(
            lambda: self._redis.xrange(events_key(encounter_id), min=f"({after}", count=limit),
            "events_after",
        )
        return _events(entries)

    async def events_before(self, encounter_id: str, before: str | None, limit: int) -> Events:
        bound = "+" if before is None else f"({before}"
        entries: list[Any] = await self._call(
            lambda: self._redis.xrevrange(events_key(encounter_id), max=bound, count=limit),
            "events_before",
        )
        return _events(entries)

    async def last_event_id(self, encounter_id: str) -> str | None:
        entries: list[Any] = await self._call(
            lambda: self._redis.xrevrange(events_key(encounter_id), count=1), "last_event_id"
        )
        return _text(entries[0][0]) if entries else None

    async def encounter_ids(self) -> AsyncIterator[str]:
        # SCAN over the state keys (on a Cluster, redis-py scans every primary). SCAN may give a
        # key twice: each id is told once.
        seen: set[str] = set()
        scan = self._redis.scan_iter(match=STATE_KEYS, count=IDS_PER_SCAN)
        while True:
            try:
                key = await self._call(scan.__anext__, "scan")
            except StopAsyncIteration:
                return
            # "ff:{<id>}:state" -> "<id>"
            encounter_id = _text(key)[len("ff:{") : -len("}:state")]
            if encounter_id not in seen:
                seen.add(encounter_id)
                yield encounter_id

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        if not cursors:
            return {}
        if self._cluster:
            return await self._read_new_per_slot(cursors, timeout_s)
        streams: dict[Any, Any] = {events_key(e): c for e, c in cursors.items()}
        block_ms = max(1, int(timeout_s * 1000))
        started = time.perf_counter()
        try:
            answer = await self._unqueued(lambda: self._xread(streams, EVENTS_PER_READ, block_ms))
        finally:
            self.on_round_trip("read_new", time.perf_counter() - started)
        return self._found(answer)

    async def _read_new_per_slot(
        self, cursors: Mapping[str, str], timeout_s: float
    ) -> dict[str, Events]:
        # A Cluster runs a multi-key XREAD only on keys of one slot: one short blocking read per
        # encounter, side by side. The short block bounds how long a new event waits for the
        # slowest of them to come back.
        block_ms = max(1, int(min(timeout_s, CLUSTER_BLOCK_SECONDS) * 1000))

        async def one(encounter_id: str, cursor: str) -> Any:
            return await self._xread({events_key(encounter_id): cursor}, EVENTS_PER_READ, block_ms)

        answers = await self._unqueued(
            lambda: asyncio.gather(*(one(e, c) for e, c in cursors.items()))
        )
        found: dict[str, Events] = {}
        for answer in answers:
            found.update(self._found(answer))
        return found

    @staticmethod
    def _found(answer: Any) -> dict[str, Events]:
        # RESP2 answers a list of [key, entries]; RESP3 a map of key to entries.
        pairs: Any = answer.items() if isinstance(answer, dict) else (answer or [])
        found: dict[str, Events] = {}
        for key, entries in pairs:
            # "ff:{<id>}:events" -> "<id>"
            name = _text(key)
            found[name[len("ff:{") : -len("}:events")]] = _events(entries)
        return found

    async def ping(self) -> None:
        await self._call(self._redis.ping, "ping")

    async def close(self) -> None:
        for direct in (self._direct, self._direct_reader):
            if direct is not None:
                await direct.close()
        await self._redis.aclose()
        await self._reader.aclose()
