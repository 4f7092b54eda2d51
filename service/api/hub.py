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


class Subscription:
    def __init__(self, encounter_id: str) -> None:
        self.encounter_id = encounter_id
        self.queue: asyncio.Queue[Events] = asyncio.Queue(QUEUE_BATCHES)
        # Set when the socket fell too far behind: it is closed and its client resumes.
        self.overflowed = False

    def deliver(self, events: Events) -> bool:
        try:
            self.queue.put_nowait(events)
        except asyncio.QueueFull:
            self.overflowed = True
            return False
        return True


class EventHub:
    def __init__(self, store: EncounterStore, poll_seconds: float) -> None:
        self._store = store
        self._poll_seconds = poll_seconds
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._cursors: dict[str, str] = {}
        self._watching = asyncio.Event()

    async def subscribe(self, encounter_id: str) -> Subscription:
        subscription = Subscription(encounter_id)
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
