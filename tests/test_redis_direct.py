"""The Redis store's scripts on redis-py's connections directly (service/store/redis_direct.py):
what redis-py's client did around each command, the store still does (tests/test_faults.py has
the dropped connections and lost replies under a whole fight)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from service.api import app as app_module
from service.store import RedisStore, StoreLimits, StoreUnavailable
from service.store.base import Committed, StoredEncounter
from service.store.redis_direct import event_field
from tests import sr5_requests as make
from tests.conftest import TEST_TTL_SECONDS, new_id
from tests.redis_server import OwnRedis
from tests.tcp_proxy import TcpProxy
from tests.test_faults import COMMIT_SHA
from tests.test_trust import bearer, open_table

LIMITS = StoreLimits(ttl_seconds=TEST_TTL_SECONDS)
FIELD = "body"


@pytest.fixture
async def proxy(redis_url: str) -> AsyncIterator[TcpProxy]:
    async with TcpProxy(urlparse(redis_url).port or 6379) as started:
        yield started


async def _created(store: RedisStore) -> str:
    encounter = new_id()
    await store.create(encounter, {FIELD: b"doc"}, b"created")
    return encounter


async def test_a_restarted_redis_costs_the_next_commit_and_read_nothing(tmp_path: Path) -> None:
    # The pooled connections went stale and Redis forgot its scripts: the commit connects again,
    # is told NOSCRIPT, loads the script and runs, all in the one call; the event reader's read
    # connects again in its call too.
    own = OwnRedis(tmp_path)
    own.start()
    store = RedisStore(own.url, LIMITS)
    try:
        encounter = await _created(store)
        cursor = await store.last_event_id(encounter)
        assert cursor is not None
        assert await store.read_new({encounter: cursor}, 0.05) == {}
        own.stop()
        own.start()  # its append-only file kept the encounter
        committed = await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"shot")
        assert isinstance(committed, Committed)
        loaded = await store.load(encounter)
        assert isinstance(loaded, StoredEncounter)
        assert (loaded.version, loaded.fields[FIELD]) == (2, b"v2")
        found = await store.read_new({encounter: cursor}, 1)
        assert [event for _, event in found[encounter]] == [b"shot"]
    finally:
        await store.close()
        own.stop()


async def test_a_redis_down_is_store_unavailable_then_served_once_back(tmp_path: Path) -> None:
    own = OwnRedis(tmp_path)
    own.start()
    store = RedisStore(own.url, LIMITS)
    try:
        encounter = await _created(store)
        own.stop()
        with pytest.raises(StoreUnavailable):
            await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"shot")
        own.start()
        assert isinstance(await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"shot"), Committed)
    finally:
        await store.close()
        own.stop()


async def test_a_reply_later_than_the_timeout_is_store_unavailable_and_never_read_as_another(
    proxy: TcpProxy,
) -> None:
    store = RedisStore(proxy.url, LIMITS, command_timeout_s=0.5)
    try:
        encounter = await _created(store)  # one connection, idle in the store's pool
        opened = proxy.accepted
        hold = proxy.hold_when(COMMIT_SHA)
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"shot")
        assert 0.4 < time.monotonic() - started < 1.5
        hold.release()  # Redis runs the commit now; its reply goes to a connection closed
        # The next call is not answered with the held commit's reply: it has a connection of
        # its own, in step.
        loaded = await store.load(encounter)
        assert isinstance(loaded, StoredEncounter)
        assert loaded.version in (1, 2)
        assert proxy.accepted == opened + 1
    finally:
        await store.close()


async def test_an_attack_redis_answers_too_late_is_503(
    make_client: Any, proxy: TcpProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        app_module,
        "store_for",
        lambda config: RedisStore(proxy.url, LIMITS, command_timeout_s=0.5),
    )
    client = await make_client(redis_url=proxy.url)
    encounter, tokens = await open_table(client)
    path = f"/v1/encounters/{encounter}/attacks"
    headers = bearer(tokens["player"])
    assert (await client.post(path, json=make.attack(), headers=headers)).status == 201
    hold = proxy.hold_when(COMMIT_SHA)
    started = time.monotonic()
    refused = await client.post(path, json=make.attack(), headers=headers)
    assert time.monotonic() - started < 1.5
    assert refused.status == 503
    assert (await refused.json())["type"].endswith("/store-unavailable")
    hold.release()
    await asyncio.sleep(0.1)  # the held commit ran: the next attack resolves on what it left
    answered = await client.post(path, json=make.attack(), headers=headers)
    assert answered.status == 201, await answered.text()


# --- the event reader's XREAD (DirectReader) -------------------------------------------------


async def _commit_after(store: RedisStore, encounter: str, event: bytes, seconds: float) -> None:
    await asyncio.sleep(seconds)
    assert isinstance(await store.commit(encounter, 1, {FIELD: b"v2"}, (), event), Committed)


async def test_a_read_blocks_past_the_command_timeout_and_wakes_on_the_event(
    redis_url: str,
) -> None:
    # The read's deadline is its block and then the command timeout: a read that blocks for
    # 1.2 s with a command timeout of 0.3 s is not late, and the event committed after 0.6 s of
    # it comes back at once, the stream's own entry.
    store = RedisStore(redis_url, LIMITS, command_timeout_s=0.3)
    try:
        encounter = await _created(store)
        cursor = await store.last_event_id(encounter)
        assert cursor is not None
        started = time.monotonic()
        commit = asyncio.create_task(_commit_after(store, encounter, b"shot", 0.6))
        found = await store.read_new({encounter: cursor}, 1.2)
        waited = time.monotonic() - started
        await commit
        assert [event for _, event in found[encounter]] == [b"shot"]
        assert 0.55 < waited < 1.1
        started = time.monotonic()
        assert await store.read_new({encounter: found[encounter][-1][0]}, 0.8) == {}
        assert 0.75 < time.monotonic() - started < 1.1
    finally:
        await store.close()


async def test_a_cancelled_read_stops_and_the_next_read_is_in_step(redis_url: str) -> None:
    # A read cancelled while Redis blocks on it: the cancel goes through, and its connection is
    # not read again (the reply Redis sends it when the event comes is never taken for the next
    # read's): the next read gives the stream's events from its own cursor.
    store = RedisStore(redis_url, LIMITS)
    try:
        encounter = await _created(store)
        cursor = await store.last_event_id(encounter)
        assert cursor is not None
        read = asyncio.create_task(store.read_new({encounter: cursor}, 5))
        await asyncio.sleep(0.2)
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"first")
        await store.commit(encounter, 2, {FIELD: b"v3"}, (), b"second")
        found = await store.read_new({encounter: cursor}, 1)
        assert [event for _, event in found[encounter]] == [b"first", b"second"]
        after_first = found[encounter][0][0]
        found = await store.read_new({encounter: after_first}, 1)
        assert [event for _, event in found[encounter]] == [b"second"]
    finally:
        await store.close()


async def test_a_read_answered_too_late_is_store_unavailable_and_the_next_is_served(
    proxy: TcpProxy,
) -> None:
    store = RedisStore(proxy.url, LIMITS, command_timeout_s=0.3)
    try:
        encounter = await _created(store)
        cursor = await store.last_event_id(encounter)
        assert cursor is not None
        hold = proxy.hold_when(b"XREAD")
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.read_new({encounter: cursor}, 0.2)  # block 0.2 s, then 0.3 s for its reply
        assert 0.45 < time.monotonic() - started < 1.2
        hold.release()
        await store.commit(encounter, 1, {FIELD: b"v2"}, (), b"shot")
        found = await store.read_new({encounter: cursor}, 1)
        assert [event for _, event in found[encounter]] == [b"shot"]
    finally:
        await store.close()


def test_an_entrys_event_is_found_by_its_field_name_never_by_a_value() -> None:
    # XREAD's own reply (DirectReader) holds an entry's fields as a flat list; redis-py's a dict.
    assert event_field([b"x", b"e", b"e", b"{}"]) == b"{}"
    assert event_field([b"e", b"{}"]) == b"{}"
    assert event_field({b"e": b"{}"}) == b"{}"
