"""Live events: one reader task per replica reads the watched streams and fans them out locally.

A socket subscribes first, then replays what it missed from the store, then drains its queue,
skipping what the replay already sent: no event is lost between the replay and the live feed,
and none is sent twice.
"""

from __future__ import annotations

import asyncio

import structlog

from service.store import EncounterStore, StoreUnavailable
from service.store.base import START, Events

log = structlog.get_logger("firefight.hub")

QUEUE_BATCHES = 1000
RETRY_SECONDS = 0.5

# What a dropped subscription's queue holds instead of the batches it could not keep up with (the
# hub never delivers an empty batch).
DROPPED: Events = []


class Subscription:
    def __init__(self, encounter_id: str, queue_batches: int = QUEUE_BATCHES) -> None:
        self.encounter_id = encounter_id
        self.queue: asyncio.Queue[Events] = asyncio.Queue(queue_batches)
        # Set when the socket fell too far behind: it is closed and its client resumes.
        self.overflowed = False

    def deliver(self, events: Events) -> bool:
        try:
            self.queue.put_nowait(events)
        except asyncio.QueueFull:
            # Dropped now: what it queued is let go at once (the client gets it again by resuming
            # with `after`), and its socket learns it at its next read of the queue.
            self.overflowed = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(DROPPED)
            return False
        return True


class EventHub:
    def __init__(
        self, store: EncounterStore, poll_seconds: float, queue_batches: int = QUEUE_BATCHES
    ) -> None:
        self._store = store
        self._poll_seconds = poll_seconds
        self._queue_batches = queue_batches
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._cursors: dict[str, str] = {}
        self._watching = asyncio.Event()

    async def subscribe(self, encounter_id: str) -> Subscription:
        subscription = Subscription(encounter_id, self._queue_batches)
        if encounter_id not in self._cursors:
            # Live reading starts at the stream's end now; the socket's replay covers the rest.
            last = await self._store.last_event_id(encounter_id) or START
            self._cursors.setdefault(encounter_id, last)
        self._subscriptions.setdefault(encounter_id, set()).add(subscription)
        self._watching.set()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        watchers = self._subscriptions.get(subscription.encounter_id)
        if watchers is None:
            return
        watchers.discard(subscription)
        if not watchers:
            del self._subscriptions[subscription.encounter_id]
            self._cursors.pop(subscription.encounter_id, None)

    async def run(self) -> None:
        while True:
            if not self._cursors:
                self._watching.clear()
                await self._watching.wait()
                continue
            try:
                found = await self._store.read_new(dict(self._cursors), self._poll_seconds)
            except StoreUnavailable as error:
                log.warning("event_reader_store_unavailable", error=str(error))
                await asyncio.sleep(RETRY_SECONDS)
                continue
            for encounter_id, events in found.items():
                if encounter_id not in self._cursors or not events:
                    continue
                self._cursors[encounter_id] = events[-1][0]
                for subscription in list(self._subscriptions.get(encounter_id, ())):
                    if not subscription.deliver(events):
                        self.unsubscribe(subscription)
