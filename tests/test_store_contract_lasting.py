"""The store contract's lasting documents (issue 25), on every store: a document whose id starts
with `campaign-` never expires while it lives, whatever TTL the store keeps (Redis always keeps
one); once ended it expires after the ended TTL like any other, and its Idempotency-Key records
keep their own TTL. Memory and SQLite are moved past the TTLs with a fake clock; Redis is asked
for its keys' PTTL (-1: no expiry)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from service.store import (
    LASTING_PREFIX,
    Committed,
    EncounterExists,
    Idempotency,
    RedisStore,
    lasting,
)
from service.store.redis import events_key, idempotency_key, state_key, undo_key
from tests.conftest import CONTRACT_LIMITS, StoreFactory, new_id

BODY = "body"
# CONTRACT_LIMITS' TTLs, in seconds: written here so a change there is seen.
TTL = 600
ENDED_TTL = 60
KEY_TTL = 24 * 3600


def key(owner: str = "attempt-1") -> Idempotency:
    return Idempotency(key="key-1", fingerprint="request-a", owner=owner)


def test_only_campaign_ids_are_lasting() -> None:
    assert LASTING_PREFIX == "campaign-"
    assert lasting("campaign-0f3a")
    assert not lasting("0f3a")
    assert not lasting("my-campaign-0f3a")
    assert not lasting("Campaign-0f3a")


async def pttls(store: RedisStore, *keys: str) -> list[int]:
    # The store's own client: on a Cluster it finds the node that holds each key.
    return [int(await store._redis.pttl(name)) for name in keys]


async def test_a_lasting_document_never_expires_until_it_ends(make_store: StoreFactory) -> None:
    assert (CONTRACT_LIMITS.ttl_seconds, CONTRACT_LIMITS.ended_ttl_seconds) == (TTL, ENDED_TTL)
    assert CONTRACT_LIMITS.idempotency_ttl_seconds == KEY_TTL
    now = [time.time()]
    store = make_store(CONTRACT_LIMITS, clock=lambda: now[0])
    campaign, encounter = LASTING_PREFIX + new_id(), new_id()
    try:
        await lasting_until_ended(store, now, campaign, encounter)
    finally:
        # Nothing lasting is left behind on the shared Redis, whatever failed.
        await store.delete(campaign, b"ended")


async def lasting_until_ended(store: Any, now: list[float], campaign: str, encounter: str) -> None:
    for name in (campaign, encounter):
        assert isinstance(await store.create(name, {BODY: b"v1"}, b"created"), Committed)
        # A change with an undo record (the undo key exists) under an Idempotency-Key.
        assert await store.begin(name, key()) is None
        committed = await store.commit(name, 1, {BODY: b"v2"}, (), b"e", b"{}", key(), b"r1")
        assert isinstance(committed, Committed)

    redis = isinstance(store, RedisStore)
    if redis:
        kept = (state_key, events_key, undo_key)
        assert await pttls(store, *(k(campaign) for k in kept)) == [-1, -1, -1]
        assert all(0 < t <= TTL * 1000 for t in await pttls(store, *(k(encounter) for k in kept)))
        # The key's answer keeps its own TTL, beside a document that never expires.
        (key_ttl,) = await pttls(store, idempotency_key(campaign, key().key))
        assert (KEY_TTL - 60) * 1000 < key_ttl <= KEY_TTL * 1000
    else:
        now[0] += TTL + 1
        assert await store.load(encounter) is None
        now[0] += KEY_TTL
        # Past the key's TTL, the key is free to claim again; the campaign is still there.
        assert await store.begin(campaign, key(owner="attempt-2")) is None
    loaded = await store.load(campaign)
    assert (loaded.version, loaded.fields) == (2, {BODY: b"v2"})
    top = await store.undo_top(campaign)
    assert top is not None and top.record == b"r1"

    # Ended, it expires after the ended TTL like any document.
    assert await store.delete(campaign, b"ended") is not None
    if redis:
        ended = await pttls(store, state_key(campaign), events_key(campaign))
        assert all(0 < t <= ENDED_TTL * 1000 for t in ended)
    else:
        now[0] += ENDED_TTL - 1
        assert (await store.load(campaign)).ended
        now[0] += 2
        assert await store.load(campaign) is None


async def test_a_created_lasting_document_has_no_expiry_before_its_first_change(
    make_store: StoreFactory,
) -> None:
    now = [time.time()]
    store = make_store(CONTRACT_LIMITS, clock=lambda: now[0])
    campaign = LASTING_PREFIX + new_id()
    created = await store.create(campaign, {BODY: b"v1"}, b"created", b"{}", key())
    assert isinstance(created, Committed)
    try:
        if isinstance(store, RedisStore):
            assert await pttls(store, state_key(campaign), events_key(campaign)) == [-1, -1]
        else:
            now[0] += 10 * 365 * 24 * 3600
            # Years later: there, and a retry of its creation is no longer answered (the key's
            # answer expired on its own TTL), so the id is taken.
            assert (await store.load(campaign)).version == 1
            with pytest.raises(EncounterExists):
                await store.create(campaign, {BODY: b"v1"}, b"created", b"{}", key("retry"))
    finally:
        # Nothing lasting is left behind on the shared Redis.
        await store.delete(campaign, b"ended")
