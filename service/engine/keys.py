"""Idempotency-Keys: an attempt claims its key, a retry gets the first answer, and an attempt
that fails gives its key back, at once or, with the store unreachable, as soon as it is back."""

from __future__ import annotations

import asyncio
import secrets

import structlog

from service.engine.access import digest
from service.engine.errors import IdempotencyConflict, IdempotencyInProgress
from service.store import Answered, EncounterStore, Idempotency, Pending, StoreUnavailable

log = structlog.get_logger("firefight.engine")

# A key whose attempt failed with the store unreachable is released as soon as the store is back:
# tried this often, this far apart (past that its pending claim expires by itself).
RELEASE_ATTEMPTS = 100
RELEASE_RETRY_SECONDS = 0.2


def attempt(scope: str, key: str | None, body: bytes) -> Idempotency | None:
    """This attempt at the request `body` in `scope`, when it carries a key."""
    if key is None:
        return None
    return Idempotency(
        key=digest("key", key), fingerprint=digest(scope, body), owner=secrets.token_hex(16)
    )


# Where an answer encoded with an empty event id takes the id the store made.
_EVENT_ID_SLOT = b'"event_id":""'


def with_event_id(answer: bytes, event_id: str) -> bytes:
    """`answer`, encoded (msgspec JSON) with an empty `event_id`, with the event's id put in its
    place. A quote inside a JSON string is escaped, so the first such slot is the field itself.
    An answer kept by an earlier version holds its id already and is returned as it is."""
    at = answer.find(_EVENT_ID_SLOT)
    if at < 0:
        return answer
    at += len(_EVENT_ID_SLOT) - 1
    return answer[:at] + event_id.encode() + answer[at:]


def replayed(answered: Answered, idempotency: Idempotency) -> bytes:
    """The first answer, for a retry of the same request (422 for another one)."""
    if answered.fingerprint != idempotency.fingerprint:
        raise IdempotencyConflict(
            "this Idempotency-Key was used for a different request; use a new key"
        )
    return with_event_id(answered.answer, answered.event_id)


class Keys:
    def __init__(self, store: EncounterStore) -> None:
        self._store = store
        # Releases waiting for the store to come back.
        self._releases: set[asyncio.Task[None]] = set()

    async def claim(self, encounter_id: str, idempotency: Idempotency) -> bytes | None:
        """Claims the key for this attempt (None), or the first answer to it; 409 while another
        attempt runs."""
        earlier = await self._store.begin(encounter_id, idempotency)
        if isinstance(earlier, Answered):
            return replayed(earlier, idempotency)
        if isinstance(earlier, Pending):
            raise IdempotencyInProgress(
                "a request with this Idempotency-Key is still running; retry in a moment"
            )
        return None

    async def release(self, encounter_id: str, idempotency: Idempotency) -> None:
        """Frees a key whose attempt failed, so its retry runs now. With the store unreachable
        (the very fault that failed the attempt, often), it is freed as soon as the store is
        back; a commit that did land has answered the key, and this then changes nothing."""
        try:
            await self._store.abandon(encounter_id, idempotency)
        except StoreUnavailable:
            task = asyncio.create_task(self._release_later(encounter_id, idempotency))
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    async def _release_later(self, encounter_id: str, idempotency: Idempotency) -> None:
        for _ in range(RELEASE_ATTEMPTS):
            await asyncio.sleep(RELEASE_RETRY_SECONDS)
            try:
                await self._store.abandon(encounter_id, idempotency)
            except StoreUnavailable:
                continue
            return
        log.warning("idempotency_key_not_released", encounter=encounter_id)

    async def close(self) -> None:
        """Stops releasing (a replica shutting down): those claims expire instead."""
        for task in list(self._releases):
            task.cancel()
        await asyncio.gather(*self._releases, return_exceptions=True)
