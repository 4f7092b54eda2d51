"""The `EncounterStore` contract: one versioned document and one event stream per encounter.

The store knows bytes and versions, not rules. An update is compare-and-set on the version, and
the new document and its event are written in one atomic step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

Events = list[tuple[str, bytes]]

# Stream ids are "<milliseconds>-<sequence>", as Redis makes them; the memory store makes the same.
_EVENT_ID = re.compile(r"^(\d{1,20})-(\d{1,20})$")
START = "0-0"


def parse_event_id(event_id: str) -> tuple[int, int]:
    """The id as a sortable pair; ValueError when it is not a stream id."""
    match = _EVENT_ID.match(event_id)
    if match is None:
        raise ValueError(f"'{event_id}' is not an event id (expected <milliseconds>-<sequence>)")
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True)
class StoredEncounter:
    version: int
    document: bytes


@dataclass(frozen=True)
class StoreLimits:
    # Every key lives this long after its last write.
    ttl_seconds: int = 7 * 24 * 3600
    # After an encounter ends, its stream stays this long for clients that resume.
    ended_ttl_seconds: int = 3600
    # Events kept per encounter (older ones are trimmed).
    max_events: int = 10_000


class StoreUnavailable(Exception):
    """The store cannot be reached; the API answers 503."""


class EncounterExists(Exception):
    pass


class EncounterStore(Protocol):
    async def create(self, encounter_id: str, document: bytes, event: bytes) -> str:
        """Store version 1 and the first event; EncounterExists if the id is taken."""
        ...

    async def load(self, encounter_id: str) -> StoredEncounter | None: ...

    async def commit(
        self, encounter_id: str, expected_version: int, document: bytes, event: bytes
    ) -> str | None:
        """Write version expected+1 and append `event`, both or neither. Returns the event id;
        None when the stored version is not `expected_version` or the encounter is gone."""
        ...

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        """End the encounter: the document goes, `event` is appended for watchers.

        None when there is no such encounter."""
        ...

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        """Up to `limit` events with ids greater than `after`, oldest first."""
        ...

    async def last_event_id(self, encounter_id: str) -> str | None: ...

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        """Events after each cursor, waiting up to `timeout_s` for any to arrive."""
        ...

    async def ping(self) -> None:
        """Raises StoreUnavailable when the store cannot answer."""
        ...

    async def close(self) -> None: ...
