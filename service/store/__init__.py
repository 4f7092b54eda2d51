"""Encounter state and event streams: the contract, the embedded store and the Redis store."""

from service.store.base import (
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
    parse_event_id,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

__all__ = [
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
    "StoreLimits",
    "StoreUnavailable",
    "StoredEncounter",
    "Unchanged",
    "UndoTop",
    "parse_event_id",
]
