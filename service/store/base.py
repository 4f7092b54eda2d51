"""The `EncounterStore` contract: one versioned document and one event stream per encounter.

The store knows bytes and versions, not rules. A document is a set of named fields (the engine
keeps each actor in a field of its own, service/engine/documents.py), so that a change writes only
the fields it changed. An update is compare-and-set on the version, and the changed fields, the
event and (with an idempotency key) the answer to keep for retries are written in one atomic step;
a lost compare-and-set answers the document as it is now in that same step.

Beside them each encounter keeps an undo stack: the opaque records the engine gives with its
changes (what an undo needs to restore), each tagged with the id of the event its change appended,
pushed and popped in the same atomic step as the change.

Every key of a document lives `StoreLimits.ttl_seconds` after its last write (None: until it
ends), and `ended_ttl_seconds` once it ended. Lasting documents are the exception: a document
whose id starts with LASTING_PREFIX (a campaign) never expires while it lives, on any store and
whatever TTL the store keeps; once ended it expires after the ended TTL like any other. The
answers kept for Idempotency-Keys keep their own TTL either way.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

Events = list[tuple[str, bytes]]

# Stream ids are "<milliseconds>-<sequence>", as Redis makes them; the memory store makes the same.
_EVENT_ID = re.compile(r"([0-9]{1,19})-([0-9]{1,19})")
START = "0-0"


def parse_event_id(event_id: str) -> tuple[int, int]:
    """The id as a sortable pair; ValueError when it is not a stream id."""
    match = _EVENT_ID.fullmatch(event_id)
    if match is None:
        raise ValueError(f"'{event_id}' is not an event id (expected <milliseconds>-<sequence>)")
    return int(match.group(1)), int(match.group(2))


# The ids of lasting documents (campaigns, kept beside the encounters): they never expire.
LASTING_PREFIX = "campaign-"


def lasting(document_id: str) -> bool:
    """Whether the document never expires while it lives (see the module's docstring)."""
    return document_id.startswith(LASTING_PREFIX)


# Names the store keeps for itself in an encounter's hash: a document never uses them.
RESERVED_FIELDS = frozenset({"v", "nonce", "eid", "ended", "eb", "ub"})


@dataclass(frozen=True)
class StoredEncounter:
    version: int
    # The document's fields by name (never one of RESERVED_FIELDS).
    fields: dict[str, bytes]
    # Ended encounters keep their document (for who may read their last events) until they expire.
    ended: bool = False


@dataclass(frozen=True)
class Unchanged:
    """`load` with the version the caller holds: it is still the stored one."""


UNCHANGED = Unchanged()


@dataclass(frozen=True)
class StoreLimits:
    # Every key lives this long after its last write; None: an encounter stays until it ends
    # (the durable embedded store's default; Redis always keeps a TTL).
    ttl_seconds: int | None = 7 * 24 * 3600
    # After an encounter ends, its stream stays this long for clients that resume.
    ended_ttl_seconds: int = 3600
    # Events kept per encounter (older ones are trimmed).
    max_events: int = 10_000
    # Bytes of events kept per encounter, the oldest trimmed first (the newest always stays).
    max_event_stream_bytes: int = 64 * 1024 * 1024
    # How long the answer to a request with an Idempotency-Key is kept for its retries.
    idempotency_ttl_seconds: int = 24 * 3600
    # How long a request with an Idempotency-Key may run before a retry may take over. A request
    # that fails releases its key at once (or, with the store unreachable, as soon as it is back);
    # this bounds the wait only when the replica running it died.
    idempotency_pending_seconds: int = 10
    # Undo records kept per encounter, the newest (0: none, and nothing can be undone).
    max_undo: int = 20
    # Bytes of undo records kept per encounter, the oldest dropped first (the newest always stays).
    max_undo_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class Idempotency:
    """One attempt at a request that carries an Idempotency-Key."""

    # A hash of the client's key (the key itself is never stored).
    key: str
    # A hash of what was asked, so the same key with another request is refused.
    fingerprint: str
    # This attempt's own random id: only the attempt that began it may finish it.
    owner: str


@dataclass(frozen=True)
class Answered:
    """A request with this key was answered before: its fingerprint, the answer kept for it (as
    the use case gave it to keep) and the id of the event it made."""

    fingerprint: str
    answer: bytes
    event_id: str


class Pending:
    """A request with this key is still running."""


@dataclass(frozen=True)
class Committed:
    event_id: str


@dataclass(frozen=True)
class Conflict:
    """Another write came first (or the encounter ended): the encounter as it is now, read in the
    same atomic step, so the caller resolves again without reading it again; None when gone."""

    current: StoredEncounter | None


@dataclass(frozen=True)
class UndoTop:
    """The newest record of an encounter's undo stack."""

    # The id of the event whose change the record takes back.
    event_id: str
    # The record as the change gave it.
    record: bytes
    # How many records the stack holds, this one included.
    depth: int


class StoreUnavailable(Exception):
    """The store cannot be reached; the API answers 503."""


class EncounterExists(Exception):
    pass


class IdempotencyKeyLost(Exception):
    """The key's pending claim expired and another attempt took it over."""


class EncounterStore(Protocol):
    async def create(
        self,
        encounter_id: str,
        fields: Mapping[str, bytes],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
    ) -> Committed | Answered:
        """Store version 1 and the first event, kept for the TTL (a lasting document: with no
        expiry). With `idempotency`, `answer` is kept for the key,
        and an earlier answer to the same key is returned instead (Answered); EncounterExists if
        the id is taken otherwise."""
        ...

    async def load(
        self, encounter_id: str, known_version: int | None = None
    ) -> StoredEncounter | Unchanged | None:
        """The encounter, or UNCHANGED when its version is still `known_version` (the caller's
        copy is current, and nothing more crosses the wire); None when there is none."""
        ...

    async def begin(self, encounter_id: str, idempotency: Idempotency) -> Answered | Pending | None:
        """Claim the key for this attempt (None), or say it was answered or is still running."""
        ...

    async def abandon(self, encounter_id: str, idempotency: Idempotency) -> None:
        """Release a key this attempt claimed and did not answer (the request failed)."""
        ...

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
        """Write version expected+1 (the `changed` fields set, the `removed` ones deleted, the
        others kept), append `event`, with `idempotency` keep `answer` for the key, and change
        the undo stack: all or none. Every key of the encounter is kept for the TTL again from
        now (a lasting document's: with no expiry).

        `undo_pop` takes the newest undo record off (the change is an undo; with none left,
        nothing is taken). `undo` then pushes this record, tagged with the id of the event
        appended; the stack keeps `StoreLimits.max_undo` records and `max_undo_bytes` bytes of
        them, the oldest dropped first and the newest always kept (unless max_undo is 0). Both:
        the record replaces the newest. Neither: the stack is untouched.

        Conflict, with the encounter as it is now, when the stored version is not
        `expected_version` or the encounter is gone or ended (nothing written, the stack
        untouched); IdempotencyKeyLost when the key is no longer this attempt's."""
        ...

    async def undo_top(self, encounter_id: str) -> UndoTop | None:
        """The newest undo record, with how many the stack holds (one read gives the undo its
        record and what it leaves: no separate depth call); None when there is none, or the
        encounter is gone or ended."""
        ...

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        """End the encounter: no more changes, `event` appended for watchers, everything expires
        after the ended TTL, and the undo records go at once (an ended encounter is never undone).
        None when there is no such encounter or it already ended."""
        ...

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        """Up to `limit` events with ids greater than `after`, oldest first."""
        ...

    async def events_before(self, encounter_id: str, before: str | None, limit: int) -> Events:
        """Up to `limit` events with ids less than `before` (None: the newest), newest first."""
        ...

    async def last_event_id(self, encounter_id: str) -> str | None: ...

    def encounter_ids(self) -> AsyncIterator[str]:
        """The id of every encounter the store holds, ended ones too (until they expire), each
        once, in no particular order; read a page at a time (the backup's `--all`)."""
        ...

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        """Events after each cursor, waiting up to `timeout_s` for any to arrive."""
        ...

    async def ping(self) -> None:
        """Raises StoreUnavailable when the store cannot answer."""
        ...

    async def close(self) -> None: ...
