"""Encounter state and event streams: the contract, the embedded store and the Redis store."""

from service.store.base import (
    EncounterExists,
    EncounterStore,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
    parse_event_id,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

__all__ = [
    "EncounterExists",
    "EncounterStore",
    "MemoryStore",
    "RedisStore",
    "StoreLimits",
    "StoreUnavailable",
    "StoredEncounter",
    "parse_event_id",
]
