"""The store the settings choose, and what it keeps for how long: for the service and for the
backup commands, which open the same store without the web app."""

from __future__ import annotations

from service.config import DEFAULT_ENCOUNTER_TTL_SECONDS, Config
from service.data_dir import DATA_FILE, prepare
from service.store.base import EncounterStore, StoreLimits
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.store.sqlite import SQLiteStore


def _on_sqlite(config: Config) -> bool:
    return config.store == "sqlite" and not config.redis_url


def store_limits(config: Config) -> StoreLimits:
    """What the store keeps and for how long (the engine shows the TTLs: GET .../{id})."""
    ttl = config.encounter_ttl_seconds
    if ttl is None and not _on_sqlite(config):
        # Redis and memory always expire what nobody touches; SQLite keeps it until it ends.
        ttl = DEFAULT_ENCOUNTER_TTL_SECONDS
    return StoreLimits(
        ttl_seconds=ttl,
        max_events=config.max_events_per_encounter,
        max_event_stream_bytes=config.max_event_stream_bytes,
        max_undo=config.undo_depth,
        max_undo_bytes=config.undo_bytes,
    )


def store_for(config: Config) -> EncounterStore:
    """A Redis URL gives the Redis store; without one, `config.store` chooses."""
    limits = store_limits(config)
    if config.redis_url:
        return RedisStore(
            config.redis_url,
            limits,
            cluster=config.redis_cluster,
            password=config.redis_password,
        )
    if _on_sqlite(config):
        return SQLiteStore(prepare(config.data_dir) / DATA_FILE, limits)
    return MemoryStore(limits)
