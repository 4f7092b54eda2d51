"""The embedded store: the `EncounterStore` contract in this process, for a laptop with no Redis."""

from __future__ import annotations

import asyncio
import bisect
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass, field

from service.store.base import (
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
    Unchanged,
    UndoTop,
    lasting,
    parse_event_id,
)

# Expired Idempotency-Key records of an encounter are swept when it holds more than this many.
KEYS_BEFORE_SWEEP = 256


@dataclass
class _Key:
    """What an Idempotency-Key holds: the attempt running it, or the answer it got."""

    expires_at: float
    owner: str | None = None
    answered: Answered | None = None


@dataclass
class _Encounter:
    version: int
    fields: dict[str, bytes]
    expires_at: float
    ended: bool = False
    # (sortable id, id, event), oldest first: found by bisection, since watchers look often.
    events: list[tuple[tuple[int, int], str, bytes]] = field(default_factory=list)
    # The bytes of `events`.
    event_bytes: int = 0
    keys: dict[str, _Key] = field(default_factory=dict)
    # (event id, record), oldest first, and the records' bytes.
    undo: deque[tuple[str, bytes]] = field(default_factory=deque)
    undo_bytes: int = 0


class MemoryStore:
    """Every method runs without awaiting in between, so each is atomic on the event loop."""

    def __init__(
        self, limits: StoreLimits | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self._limits = limits or StoreLimits()
        self._clock = clock
        self._encounters: dict[str, _Encounter] = {}
        self._last_id = (0, 0)
        self._arrived = asyncio.Event()

    def _live(self, encounter_id: str) -> _Encounter | None:
        encounter = self._encounters.get(encounter_id)
        if encounter is not None and encounter.expires_at <= self._clock():
            del self._encounters[encounter_id]
            return None
        return encounter

    def _key(self, encounter: _Encounter, key: str) -> _Key | None:
        record = encounter.keys.get(key)
        if record is not None and record.expires_at <= self._clock():
            del encounter.keys[key]
            return None
        return record

    def _next_id(self) -> str:
        now_ms = int(self._clock() * 1000)
        ms, seq = self._last_id
        self._last_id = (now_ms, 0) if now_ms > ms else (ms, seq + 1)
        return f"{self._last_id[0]}-{self._last_id[1]}"

    def _append(self, encounter: _Encounter, event: bytes, ttl: int | None) -> str:
        event_id = self._next_id()
        encounter.events.append((self._last_id, event_id, event))
        encounter.event_bytes += len(event)
        # The oldest go until the stream holds both caps (the newest always stays).
        trimmed = 0
        while len(encounter.events) - trimmed > 1 and (
            len(encounter.events) - trimmed > self._limits.max_events
            or encounter.event_bytes > self._limits.max_event_stream_bytes
        ):
            encounter.event_bytes -= len(encounter.events[trimmed][2])
            trimmed += 1
        del encounter.events[:trimmed]
        encounter.expires_at = math.inf if ttl is None else self._clock() + ttl
        # Wake every reader, then arm a fresh event for the next wait.
        self._arrived.set()
        self._arrived = asyncio.Event()
        return event_id

    def _change_undo(
        self, encounter: _Encounter, event_id: str, undo: bytes | None, undo_pop: bool
    ) -> None:
        stack = encounter.undo
        if undo_pop and stack:
            encounter.undo_bytes -= len(stack.pop()[1])
        if undo is None:
            return
        stack.append((event_id, undo))
        encounter.undo_bytes += len(undo)
        # The oldest go until both caps hold (the newest stays, unless no record is kept at all).
        while len(stack) > self._limits.max_undo or (
            len(stack) > 1 and encounter.undo_bytes > self._limits.max_undo_bytes
        ):
            encounter.undo_bytes -= len(stack.popleft()[1])

    def _keep(
        self,
        encounter: _Encounter,
        event_id: str,
        answer: bytes,
        idempotency: Idempotency | None,
    ) -> Committed:
        if idempotency is not None:
            encounter.keys[idempotency.key] = _Key(
                expires_at=self._clock() + self._limits.idempotency_ttl_seconds,
                answered=Answered(idempotency.fingerprint, answer, event_id),
            )
        return Committed(event_id)

    def _ttl(self, encounter_id: str) -> int | None:
        """How long a live encounter is kept after a write (None: until it ends)."""
        return None if lasting(encounter_id) else self._limits.ttl_seconds

    @staticmethod
    def _stored(encounter: _Encounter) -> StoredEncounter:
        # A copy: what a caller holds never changes under it.
        return StoredEncounter(encounter.version, dict(encounter.fields), encounter.ended)

    async def create(
        self,
        encounter_id: str,
        fields: Mapping[str, bytes],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
    ) -> Committed | Answered:
        existing = self._live(encounter_id)
        if existing is not None:
            record = self._key(existing, idempotency.key) if idempotency else None
            if record is not None and record.answered is not None:
                return record.answered
            raise EncounterExists(encounter_id)
        encounter = _Encounter(version=1, fields=dict(fields), expires_at=0.0)
        self._encounters[encounter_id] = encounter
        event_id = self._append(encounter, event, self._ttl(encounter_id))
        return self._keep(encounter, event_id, answer, idempotency)

    async def load(
        self, encounter_id: str, known_version: int | None = None
    ) -> StoredEncounter | Unchanged | None:
        encounter = self._live(encounter_id)
        if encounter is None:
            return None
        if encounter.version == known_version:
            return UNCHANGED
        return self._stored(encounter)

    async def begin(self, encounter_id: str, idempotency: Idempotency) -> Answered | Pending | None:
        encounter = self._live(encounter_id)
        if encounter is None:
            return None  # the use case finds it missing when it loads it
        if len(encounter.keys) > KEYS_BEFORE_SWEEP:
            now = self._clock()
            encounter.keys = {k: r for k, r in encounter.keys.items() if r.expires_at > now}
        record = self._key(encounter, idempotency.key)
        if record is not None:
            return record.answered or Pending()
        encounter.keys[idempotency.key] = _Key(
            expires_at=self._clock() + self._limits.idempotency_pending_seconds,
            owner=idempotency.owner,
        )
        return None

    async def abandon(self, encounter_id: str, idempotency: Idempotency) -> None:
        encounter = self._live(encounter_id)
        if encounter is None:
            return
        record = self._key(encounter, idempotency.key)
        if record is not None and record.owner == idempotency.owner:
            del encounter.keys[idempotency.key]

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
        encounter = self._live(encounter_id)
        if encounter is None:
            return Conflict(None)
        if encounter.ended or encounter.version != expected_version:
            return Conflict(self._stored(encounter))
        if idempotency is not None:
            record = self._key(encounter, idempotency.key)
            if record is None or record.owner != idempotency.owner:
                raise IdempotencyKeyLost(encounter_id)
        encounter.version += 1
        encounter.fields.update(changed)
        for name in removed:
            encounter.fields.pop(name, None)
        event_id = self._append(encounter, event, self._ttl(encounter_id))
        self._change_undo(encounter, event_id, undo, undo_pop)
        return self._keep(encounter, event_id, answer, idempotency)

    async def undo_top(self, encounter_id: str) -> UndoTop | None:
        encounter = self._live(encounter_id)
        if encounter is None or encounter.ended or not encounter.undo:
            return None
        event_id, record = encounter.undo[-1]
        return UndoTop(event_id, record, len(encounter.undo))

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        encounter = self._live(encounter_id)
        if encounter is None or encounter.ended:
            return None
        encounter.ended = True
        encounter.undo.clear()
        encounter.undo_bytes = 0
        encounter.version += 1
        return self._append(encounter, event, self._limits.ended_ttl_seconds)

    def _after(self, encounter_id: str, after: str, limit: int) -> Events:
        encounter = self._live(encounter_id)
        if encounter is None:
            return []
        start = bisect.bisect_right(encounter.events, parse_event_id(after), key=lambda e: e[0])
        return [(event_id, event) for _, event_id, event in encounter.events[start : start + limit]]

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        return self._after(encounter_id, after, limit)

    async def events_before(self, encounter_id: str, before: str | None, limit: int) -> Events:
        encounter = self._live(encounter_id)
        if encounter is None:
            return []
        end = len(encounter.events)
        if before is not None:
            end = bisect.bisect_left(encounter.events, parse_event_id(before), key=lambda e: e[0])
        newest = encounter.events[max(0, end - limit) : end]
        return [(event_id, event) for _, event_id, event in reversed(newest)]

    async def last_event_id(self, encounter_id: str) -> str | None:
        encounter = self._live(encounter_id)
        if encounter is None or not encounter.events:
            return None
        return encounter.events[-1][1]

    async def encounter_ids(self) -> AsyncIterator[str]:
        # A copy of the names: encounters may come and go while the caller reads.
        for encounter_id in list(self._encounters):
            if self._live(encounter_id) is not None:
                yield encounter_id

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        arrived = self._arrived
        found = self._collect(cursors)
        if found:
            return found
        try:
            await asyncio.wait_for(arrived.wait(), timeout_s)
        except TimeoutError:
            return {}
        return self._collect(cursors)

    def _collect(self, cursors: Mapping[str, str]) -> dict[str, Events]:
        found = {}
        for encounter_id, cursor in cursors.items():
            events = self._after(encounter_id, cursor, 1000)
            if events:
                found[encounter_id] = events
        return found

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        self._encounters.clear()
