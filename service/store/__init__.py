"""Encounter state and event streams: the contract, the durable embedded store (SQLite), the
memory store (tests, throwaway runs) and the Redis store."""

from service.store.base import (
    LASTING_PREFIX,
    Answered,
    Committed,
    Conflict,
    EncounterExists,
    EncounterStore,
    Idempotency,
    IdempotencyKeyLost,
    Pending,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
    Unchanged,
    UndoTop,
    lasting,
    parse_event_id,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.store.sqlite import SQLiteStore, StoreRefused

__all__ = [
    "LASTING_PREFIX",
    "Answered",
    "Committed",
    "Conflict",
    "EncounterExists",
    "EncounterStore",
    "Idempotency",
    "IdempotencyKeyLost",
    "MemoryStore",
    "Pending",
    "RedisStore",
    "SQLiteStore",
    "StoreLimits",
    "StoreRefused",
    "StoreUnavailable",
    "StoredEncounter",
    "Unchanged",
    "UndoTop",
    "lasting",
    "parse_event_id",
]
