"""The event hub alone: one reader fans out to subscriptions and drops those left behind."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from service.api.hub import DROPPED, QUEUE_BATCHES, EventHub
from service.store import MemoryStore
from tests.conftest import new_id
from tests.test_store_contract import commit, create


async def test_the_reader_delivers_new_events_to_every_subscription() -> None:
    store = MemoryStore()
    encounter = new_id()
    await create(store, encounter, b"doc", b"created")
    hub = EventHub(store, poll_seconds=0.2)
    first, second = await hub.subscribe(encounter), await hub.subscribe(encounter)
    reader = asyncio.create_task(hub.run())
    try:
        event_id = await commit(store, encounter, 1, b"doc", b"shot")
        for subscription in (first, second):
            batch = await asyncio.wait_for(subscription.queue.get(), 5)
            assert batch == [(event_id, b"shot")]  # only what came after subscribing
    finally:
        reader.cancel()


async def test_a_subscription_that_falls_behind_is_dropped_and_marked() -> None:
    store = MemoryStore()
    encounter = new_id()
    await create(store, encounter, b"doc", b"created")
    hub = EventHub(store, poll_seconds=0.2)
    slow = await hub.subscribe(encounter)
    reader = asyncio.create_task(hub.run())
    try:
        for version in range(1, QUEUE_BATCHES + 2):
            await commit(store, encounter, version, b"doc", b"e")
            # Let the reader deliver each event as its own batch.
            while slow.queue.qsize() < min(version, QUEUE_BATCHES) and not slow.overflowed:
                await asyncio.sleep(0)
        assert not slow.overflowed
        await commit(store, encounter, QUEUE_BATCHES + 2, b"doc", b"one too many")
        await asyncio.wait_for(_until(lambda: slow.overflowed), 5)
        # Dropped at once: what it held is let go, and its socket reads that it was dropped.
        assert slow.queue.qsize() == 1
        # Later events no longer pile up behind it.
        fresh = await hub.subscribe(encounter)
        last = await commit(store, encounter, QUEUE_BATCHES + 3, b"doc", b"after")
        assert slow.queue.qsize() == 1
        assert slow.queue.get_nowait() is DROPPED
        batch = await asyncio.wait_for(fresh.queue.get(), 5)
        assert batch[-1][0] == last
    finally:
        reader.cancel()


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)


class _ReadAnswersOverItsCancel(MemoryStore):
    """A store whose read, cancelled as its answer comes in, returns the answer: what redis-py's
    XREAD did when a replica shut down as an encounter's end arrived (the hub then had nobody
    to read for, waited for a watcher, and the shutdown never ended)."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = asyncio.Event()

    async def read_new(self, cursors: Any, timeout_s: float) -> dict[str, Any]:
        self.reading.set()
        with contextlib.suppress(asyncio.CancelledError):  # swallowed on its way, as redis-py's was
            await asyncio.sleep(timeout_s)
        return {}


async def test_a_cancel_swallowed_inside_a_read_still_stops_the_reader() -> None:
    store = _ReadAnswersOverItsCancel()
    encounter = new_id()
    await create(store, encounter, b"doc", b"created")
    hub = EventHub(store, poll_seconds=30)
    subscription = await hub.subscribe(encounter)
    reader = asyncio.create_task(hub.run())
    await asyncio.wait_for(store.reading.wait(), 5)
    hub.unsubscribe(subscription)  # nobody left to read for: the reader would wait for one
    reader.cancel()
    done, _ = await asyncio.wait([reader], timeout=2)
    assert done == {reader}, "the reader kept running after its cancel"
    assert reader.cancelled()
