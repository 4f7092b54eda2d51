"""The Redis store's connections: redis-py's, packed by hiredis, and its scripts and the event
reader's XREAD sent on them directly.

redis-py still makes and connects every connection (the URL's kind: TCP, TLS or a unix socket;
AUTH, the database, its handshake) and runs the Cluster. What it adds to each command was most of
a script call's CPU here (docs/performance.md, "Issue 28: overhead"): the client's pool lock and
its health check of the connection before every command (a read of the socket), the retry
wrapper, observability hooks, the Script object's own call, and a task to time each send out
(`asyncio.wait_for`). The store's scripts and its event reader's reads go on a connection of their
own instead: send, read the reply, give the connection back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.utils import HIREDIS_AVAILABLE

if HIREDIS_AVAILABLE:
    # Installed from the lock; redis-py then parses replies with it too.
    from hiredis import pack_command as _hiredis_pack


def retry_once() -> Retry:
    """A command that meets a dropped connection (a pooled one gone stale when Redis restarted)
    is sent once more on a fresh one: safe, since every script may run twice. A timeout is not
    retried: Redis is there but slow, and the client is better told at once (503)."""
    return Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))


class PackedByHiredis(aioredis.Connection):
    """redis-py's asyncio connection with its commands packed by hiredis, in C, as its
    synchronous connection packs them (`HiredisRespSerializer`). Its own packing encodes and
    joins each argument in Python: 26 µs of CPU for a commit's 27 arguments here, against 4
    (docs/performance.md, "Issue 28")."""

    def pack_command(self, *args: Any) -> list[bytes]:
        # A command name of several words ("SCRIPT LOAD") goes as separate arguments.
        name = args[0]
        if isinstance(name, str):
            args = (*name.encode().split(), *args[1:])
        elif b" " in name:
            args = (*name.split(), *args[1:])
        try:
            return [_hiredis_pack(args)]
        except TypeError as error:
            if any(isinstance(arg, bytearray) for arg in args):
                # redis-py sends a bytearray as bytes; hiredis takes bytes only.
                return self.pack_command(
                    *(bytes(arg) if isinstance(arg, bytearray) else arg for arg in args)
                )
            # What redis-py says of an argument Redis cannot take (None, a bool...).
            raise DataError(str(error)) from error


def connection_kind() -> dict[str, Any]:
    """The connection class a pool is given (a rediss:// or unix:// URL keeps its own)."""
    return {"connection_class": PackedByHiredis} if HIREDIS_AVAILABLE else {}


class _Late:
    """A call's connection, closed when its reply is late: the send or the read waiting on it
    fails at once, and the reply is never read."""

    __slots__ = ("_closing", "_connection", "closed")

    def __init__(self, connection: aioredis.Connection, closing: set[asyncio.Task[None]]) -> None:
        self.closed = False
        self._connection = connection
        self._closing = closing

    def close(self) -> None:
        self.closed = True
        # The call that waits on it is another task: disconnecting is left to a task of its own
        # (kept in `closing` until it is done).
        task = asyncio.ensure_future(self._connection.disconnect(nowait=True))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


class _Direct:
    """Calls on redis-py's connections directly, each on a connection of its own (no pipelining:
    Redis answers them in turn anyway), at most as many connections as calls were ever in flight
    at once.

    As redis-py does them: a call that meets a dropped connection (Redis restarted: the pooled
    connections went stale) connects again and is sent once more (every call here may run
    twice). Connecting, with its handshake, takes the connect timeout at most; the send and its
    reply a deadline of the call's (one deadline for both: redis-py's timer for each cost more
    CPU than they are worth), and a timeout is not retried (RedisTimeoutError). A connection that
    failed, timed out or was cancelled mid-call is closed, never reused."""

    def __init__(
        self, url: str, password: str | None, timeout_s: float, connect_timeout_s: float
    ) -> None:
        # Only a factory of connections (make_connection): the URL's kind, AUTH, TLS, the
        # database. Its connections have no socket timeout of their own: _round_trip() bounds
        # each call.
        self._factory = aioredis.ConnectionPool.from_url(
            url,
            **connection_kind(),
            password=password,
            socket_timeout=None,
            socket_connect_timeout=connect_timeout_s,
            retry=retry_once(),
        )
        self._timeout = timeout_s
        self._connect_timeout = connect_timeout_s
        self._idle: list[aioredis.Connection] = []
        # The disconnections of late calls' connections under way.
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    async def _on_a_connection(
        self, exchange: Callable[[aioredis.Connection], Awaitable[Any]]
    ) -> Any:
        """`exchange` on an idle connection (or a new one), sent once more on a fresh connection
        if the first met a dropped one; its reply."""
        connection = self._idle.pop() if self._idle else self._factory.make_connection()  # type: ignore[no-untyped-call]
        try:
            try:
                reply = await exchange(connection)
            except RedisConnectionError:
                await connection.disconnect(nowait=True)
                reply = await exchange(connection)
        except ResponseError:
            await self._give_back(connection)  # Redis answered in full: the connection is in step
            raise
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        await self._give_back(connection)
        return reply

    async def _give_back(self, connection: aioredis.Connection) -> None:
        if self._closed:
            await connection.disconnect()
        else:
            self._idle.append(connection)

    async def _round_trip(
        self, connection: aioredis.Connection, command: list[bytes], timeout_s: float
    ) -> Any:
        if not connection.is_connected:
            try:
                async with asyncio.timeout(self._connect_timeout):
                    await connection.connect()  # type: ignore[no-untyped-call]
            except TimeoutError as error:
                raise self._late(self._connect_timeout) from error
        # The send and the reply within `timeout_s`: past it the connection is closed under
        # them (the reply, if it comes, is never read), and what that raises is the timeout. A
        # timer, not asyncio.timeout: its context manager and the task's cancel and uncancel
        # around every call were 2.3% of a request's instructions, the timer about 1%
        # (docs/performance.md, "Issue 28").
        late = _Late(connection, self._closing)
        timer = asyncio.get_running_loop().call_later(timeout_s, late.close)
        try:
            await connection.send_packed_command(command, check_health=False)
            return await connection.read_response()
        except Exception as error:
            if late.closed:
                raise self._late(timeout_s) from error
            raise
        finally:
            timer.cancel()

    @staticmethod
    def _late(timeout_s: float) -> RedisTimeoutError:
        return RedisTimeoutError(f"Redis did not answer within {timeout_s} s")

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.disconnect()
        await self._factory.aclose()


class DirectScripts(_Direct):
    """The store's script calls (EVALSHA), at most as many connections as calls were ever in
    flight at once (the store queues its calls: COMMANDS_IN_FLIGHT). NOSCRIPT (Redis lost its
    scripts) loads the script and sends the call again. The send and its reply take the command
    timeout at most."""

    def run(self, script: AsyncScript, keys: Sequence[Any], args: Sequence[Any]) -> Awaitable[Any]:
        """EVALSHA `script` with `keys` and `args`: its reply as redis-py's evalsha gives it."""
        return self._on_a_connection(
            lambda connection: self._evalsha(connection, script, keys, args)
        )

    async def _evalsha(
        self,
        connection: aioredis.Connection,
        script: AsyncScript,
        keys: Sequence[Any],
        args: Sequence[Any],
    ) -> Any:
        command = connection.pack_command("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return await self._round_trip(connection, command, self._timeout)
        except NoScriptError:
            await self._round_trip(
                connection, connection.pack_command("SCRIPT LOAD", script.script), self._timeout
            )
            return await self._round_trip(connection, command, self._timeout)


class DirectReader(_Direct):
    """The event reader's blocking XREAD: one read at a time (the hub's one reader), so one
    connection, kept between reads. A read may wait its block and then the command timeout for
    its reply. Its reply is Redis's own: each entry's fields a flat list (field, value), not
    redis-py's dict (`event_field`)."""

    def xread(self, streams: Mapping[str, str], count: int, block_ms: int) -> Awaitable[Any]:
        timeout_s = block_ms / 1000 + self._timeout
        return self._on_a_connection(
            lambda connection: self._round_trip(
                connection,
                connection.pack_command(
                    "XREAD",
                    "COUNT",
                    count,
                    "BLOCK",
                    block_ms,
                    "STREAMS",
                    *streams,
                    *streams.values(),
                ),
                timeout_s,
            )
        )


def event_field(fields: Any) -> Any:
    """An entry's event: redis-py's dict of its fields, or the flat list DirectReader reads."""
    if isinstance(fields, dict):
        return fields[b"e"]
    # Found among the names alone (a value is never taken for one).
    return fields[2 * fields[::2].index(b"e") + 1]
