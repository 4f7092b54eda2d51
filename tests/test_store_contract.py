"""One contract for every EncounterStore: memory, SQLite, fakeredis, Redis and the cluster."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from redis.crc import key_slot

from service.store import (
    Answered,
    Committed,
    Conflict,
    EncounterExists,
    Idempotency,
    IdempotencyKeyLost,
    Pending,
    StoredEncounter,
    Unchanged,
    UndoTop,
    parse_event_id,
)
from service.store.base import START
from service.store.redis import state_key
from tests.conftest import CONTRACT_LIMITS, StoreFactory, new_id
from tests.redis_cluster import SLOTS

# What a use case keeps for a key: its answer as it gives it (the store never edits it).
ANSWER = b'{"event_id":""}'
# The one field these tests keep their document in.
BODY = "body"


def document(loaded: Any) -> bytes:
    assert isinstance(loaded, StoredEncounter)
    return loaded.fields[BODY]


async def create(store: Any, encounter: str, body: bytes, event: bytes) -> str:
    created = await store.create(encounter, {BODY: body}, event)
    assert isinstance(created, Committed)
    return str(created.event_id)


async def commit(store: Any, encounter: str, version: int, body: bytes, event: bytes) -> str | None:
    committed = await store.commit(encounter, version, {BODY: body}, (), event)
    return str(committed.event_id) if isinstance(committed, Committed) else None


async def test_create_then_load_gives_version_one(store: Any) -> None:
    encounter = new_id()
    event_id = await create(store, encounter, b"doc-1", b'{"type":"encounter_created"}')
    parse_event_id(event_id)
    loaded = await store.load(encounter)
    assert (loaded.version, document(loaded)) == (1, b"doc-1")
    assert await store.last_event_id(encounter) == event_id


async def test_create_twice_is_refused(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"doc", b"{}")
    with pytest.raises(EncounterExists):
        await create(store, encounter, b"other", b"{}")
    assert document(await store.load(encounter)) == b"doc"


async def test_load_of_an_unknown_encounter_is_none(store: Any) -> None:
    assert await store.load(new_id()) is None
    assert await store.last_event_id(new_id()) is None


async def test_commit_is_compare_and_set_on_the_version(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"{}")
    first = await commit(store, encounter, 1, b"v2", b'{"n":2}')
    assert first is not None
    # A writer that read version 1 too loses, and nothing of its write lands.
    assert await commit(store, encounter, 1, b"stale", b'{"n":"stale"}') is None
    loaded = await store.load(encounter)
    assert (loaded.version, document(loaded)) == (2, b"v2")
    events = await store.events_after(encounter, START, 10)
    assert [e for _, e in events] == [b"{}", b'{"n":2}']


async def test_a_commit_writes_only_the_fields_it_changes(store: Any) -> None:
    encounter = new_id()
    fields = {"head": b"h1", "a:sam": b"sam-1", "a:goon": b"goon-1", "s:sam": b"on the map"}
    assert isinstance(await store.create(encounter, fields, b"created"), Committed)
    committed = await store.commit(encounter, 1, {"a:sam": b"sam-2"}, ["s:sam"], b"shot")
    assert isinstance(committed, Committed)
    loaded = await store.load(encounter)
    assert loaded == StoredEncounter(2, {"head": b"h1", "a:sam": b"sam-2", "a:goon": b"goon-1"})


async def test_a_lost_compare_and_set_answers_the_encounter_as_it_is_now(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    await commit(store, encounter, 1, b"v2", b"first")
    lost = await store.commit(encounter, 1, {BODY: b"stale"}, (), b"second")
    assert lost == Conflict(StoredEncounter(2, {BODY: b"v2"}))
    await store.delete(encounter, b"ended")
    late = await store.commit(encounter, 3, {BODY: b"late"}, (), b"late")
    assert late == Conflict(StoredEncounter(3, {BODY: b"v2"}, ended=True))
    assert await store.commit(new_id(), 1, {BODY: b"x"}, (), b"x") == Conflict(None)


async def test_a_load_with_the_current_version_sends_nothing_more(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert isinstance(await store.load(encounter, known_version=1), Unchanged)
    await commit(store, encounter, 1, b"v2", b"shot")
    assert await store.load(encounter, known_version=1) == StoredEncounter(2, {BODY: b"v2"})
    assert await store.load(new_id(), known_version=1) is None


async def test_an_answer_is_kept_only_for_a_key(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    await store.commit(encounter, 1, {BODY: b"v2"}, (), b"shot", ANSWER)
    # Without a key nothing was kept: the key is free to claim.
    assert await store.begin(encounter, key()) is None


async def test_commit_to_a_missing_encounter_writes_nothing(store: Any) -> None:
    encounter = new_id()
    assert await commit(store, encounter, 1, b"doc", b"{}") is None
    assert await store.load(encounter) is None
    assert await store.events_after(encounter, START, 10) == []


async def test_events_after_an_id_are_the_later_ones_in_order(store: Any) -> None:
    encounter = new_id()
    ids = [await create(store, encounter, b"v1", b"0")]
    for n in range(1, 6):
        ids.append(await commit(store, encounter, n, b"v", str(n).encode()))
    assert [parse_event_id(i) for i in ids] == sorted(parse_event_id(i) for i in ids)
    after = await store.events_after(encounter, ids[2], 100)
    assert after == [(ids[n], str(n).encode()) for n in range(3, 6)]
    assert await store.events_after(encounter, ids[-1], 100) == []
    assert len(await store.events_after(encounter, START, 2)) == 2


async def test_concurrent_writers_each_land_exactly_once(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"0", b"created")

    async def increment(writer: int) -> None:
        while True:
            loaded = await store.load(encounter)
            value = int(document(loaded)) + 1
            if await commit(store, encounter, loaded.version, str(value).encode(), b"w%d" % writer):
                return

    await asyncio.gather(*(increment(n) for n in range(20)))
    loaded = await store.load(encounter)
    assert (loaded.version, document(loaded)) == (21, b"20")
    events = [e for _, e in await store.events_after(encounter, START, 100)]
    assert sorted(events[1:]) == sorted(b"w%d" % n for n in range(20))


async def test_delete_ends_the_encounter_and_appends_the_end_for_watchers(store: Any) -> None:
    encounter = new_id()
    created = await create(store, encounter, b"doc", b"created")
    ended = await store.delete(encounter, b"ended")
    assert ended is not None
    loaded = await store.load(encounter)
    # The document stays (to check who may read the last events) but is marked ended.
    assert (loaded.ended, loaded.version, document(loaded)) == (True, 2, b"doc")
    assert await store.events_after(encounter, created, 10) == [(ended, b"ended")]
    assert await store.delete(encounter, b"ended") is None
    assert await commit(store, encounter, 1, b"doc", b"late") is None
    assert await commit(store, encounter, 2, b"doc", b"late") is None
    assert await store.events_after(encounter, ended, 10) == []


async def test_read_new_returns_what_arrives_after_the_cursors(store: Any) -> None:
    first, second = new_id(), new_id()
    start_first = await create(store, first, b"a", b"a0")
    start_second = await create(store, second, b"b", b"b0")
    waiting = asyncio.create_task(
        store.read_new({first: start_first, second: start_second}, timeout_s=5)
    )
    await asyncio.sleep(0)
    added = await commit(store, second, 1, b"b", b"b1")
    found = await asyncio.wait_for(waiting, 6)
    assert found == {second: [(added, b"b1")]}


async def test_read_new_times_out_empty(store: Any) -> None:
    encounter = new_id()
    start = await create(store, encounter, b"a", b"a0")
    assert await store.read_new({encounter: start}, timeout_s=0.05) == {}


async def test_events_are_capped_per_encounter(store: Any) -> None:
    # The fixture's stores keep 100 events, the newest.
    encounter = new_id()
    await create(store, encounter, b"0", b"e")
    ids = [await commit(store, encounter, version, b"v", b"e") for version in range(1, 400)]
    kept = await store.events_after(encounter, START, 1000)
    assert [event_id for event_id, _ in kept] == ids[-100:]


async def test_events_are_capped_per_encounter_in_bytes(store: Any) -> None:
    """Issue 23: 10,000 events of up to 256 KiB each kept one encounter's stream at gigabytes.
    The stream is capped in bytes too (the fixture's stores: 64 KiB): the oldest go first, and
    the newest is always kept."""
    encounter = new_id()
    await create(store, encounter, b"0", b"e")
    big = b"x" * 10_000
    for version in range(1, 21):
        await commit(store, encounter, version, b"v", big)
    kept = await store.events_after(encounter, START, 1000)
    # 64 KiB holds six of the 10,000-byte events (and not seven): the newest six.
    assert [event for _, event in kept] == [big] * 6
    # One event larger than the whole cap is still kept, alone.
    huge = b"y" * 70_000
    await commit(store, encounter, 21, b"v", huge)
    assert [event for _, event in await store.events_after(encounter, START, 1000)] == [huge]


async def test_ping_answers(store: Any) -> None:
    await store.ping()


async def test_redis_keys_share_the_encounters_hash_tag_and_expire(redis_url: str) -> None:
    import redis.asyncio as aioredis

    from service.store import RedisStore, StoreLimits

    store = RedisStore(redis_url, StoreLimits(ttl_seconds=600, ended_ttl_seconds=60))
    raw = aioredis.Redis.from_url(redis_url)
    try:
        encounter = new_id()
        await create(store, encounter, b"doc", b"created")
        state, events = f"ff:{{{encounter}}}:state", f"ff:{{{encounter}}}:events"
        assert 590_000 < await raw.pttl(state) <= 600_000
        assert 590_000 < await raw.pttl(events) <= 600_000
        await store.delete(encounter, b"ended")
        assert 0 < await raw.pttl(state) <= 60_000
        assert 0 < await raw.pttl(events) <= 60_000
    finally:
        await raw.aclose()
        await store.close()


async def test_memory_encounters_expire_after_their_ttl() -> None:
    from service.store import MemoryStore, StoreLimits

    now = [1000.0]
    store = MemoryStore(StoreLimits(ttl_seconds=60), clock=lambda: now[0])
    encounter = new_id()
    await create(store, encounter, b"doc", b"created")
    now[0] += 59
    await push(store, encounter, 1, b"r1")  # a write refreshes it
    now[0] += 59
    assert (await store.load(encounter)).version == 2
    now[0] += 61
    assert await store.load(encounter) is None
    assert await store.undo_top(encounter) is None
    assert await store.events_after(encounter, START, 10) == []


async def test_an_unreachable_redis_is_store_unavailable() -> None:
    from service.store import RedisStore, StoreUnavailable

    store = RedisStore("redis://127.0.0.1:1/0", command_timeout_s=0.5)
    try:
        with pytest.raises(StoreUnavailable):
            await store.ping()
        with pytest.raises(StoreUnavailable):
            await commit(store, new_id(), 1, b"doc", b"e")
    finally:
        await store.close()


# --- idempotency -----------------------------------------------------------------------------


def key(owner: str = "attempt-1", fingerprint: str = "request-a") -> Idempotency:
    return Idempotency(key="key-1", fingerprint=fingerprint, owner=owner)


async def test_a_claimed_key_keeps_the_answer_with_the_commit(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    first = key()
    assert await store.begin(encounter, first) is None
    # A retry while the first attempt runs is told so.
    assert isinstance(await store.begin(encounter, key(owner="attempt-2")), Pending)
    committed = await store.commit(encounter, 1, {BODY: b"v2"}, (), b"shot", ANSWER, first)
    assert isinstance(committed, Committed)
    # Every later attempt gets that answer back as it was kept, with what it was the answer to
    # and the id of the event it made.
    again = await store.begin(encounter, key(owner="attempt-3"))
    assert again == Answered("request-a", ANSWER, committed.event_id)
    assert (await store.load(encounter)).version == 2


async def test_an_abandoned_key_can_be_claimed_again(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert await store.begin(encounter, key()) is None
    await store.abandon(encounter, key(owner="someone-else"))  # not theirs to release
    assert isinstance(await store.begin(encounter, key(owner="attempt-2")), Pending)
    await store.abandon(encounter, key())
    assert await store.begin(encounter, key(owner="attempt-2")) is None


async def test_a_commit_by_an_attempt_that_does_not_hold_the_key_writes_nothing(
    store: Any,
) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert await store.begin(encounter, key()) is None
    with pytest.raises(IdempotencyKeyLost):
        await store.commit(encounter, 1, {BODY: b"v2"}, (), b"shot", ANSWER, key(owner="intruder"))
    assert (await store.load(encounter)).version == 1
    assert len(await store.events_after(encounter, START, 10)) == 1


async def test_creating_with_a_key_twice_answers_the_first_creation(store: Any) -> None:
    encounter = new_id()
    first = await store.create(encounter, {BODY: b"doc"}, b"created", ANSWER, key())
    assert isinstance(first, Committed)
    again = await store.create(encounter, {BODY: b"other"}, b"created", b"{}", key(owner="retry"))
    assert again == Answered("request-a", ANSWER, first.event_id)
    assert document(await store.load(encounter)) == b"doc"
    assert len(await store.events_after(encounter, START, 10)) == 1
    with pytest.raises(EncounterExists):
        await store.create(encounter, {BODY: b"other"}, b"created")


async def test_a_burst_of_requests_waits_for_connections_instead_of_failing(store: Any) -> None:
    # More commands in flight at once than redis-py's default pool holds (100).
    encounter = new_id()
    await create(store, encounter, b"doc", b"created")
    loaded = await asyncio.gather(*(store.load(encounter) for _ in range(400)))
    assert all(item is not None and document(item) == b"doc" for item in loaded)


# Counted on a Redis and a cluster nothing else uses: the clients another pytest-xdist worker
# connects would be counted too.
@pytest.mark.parametrize("url_fixture", ["own_redis_url", "redis_cluster_url"])
async def test_a_burst_queues_its_commands_instead_of_opening_a_connection_each(
    url_fixture: str, request: pytest.FixtureRequest
) -> None:
    # CI of stop 19: 400 loads at once opened 400 connections, and on a busy machine some spent
    # the connect timeout doing so, failing with StoreUnavailable (503) while Redis was fine.
    import redis.asyncio as aioredis

    from service.store import RedisStore
    from service.store.redis import COMMANDS_IN_FLIGHT

    url = request.getfixturevalue(url_fixture)
    cluster = url_fixture == "redis_cluster_url"
    store = RedisStore(url, cluster=cluster)
    encounter = new_id()
    try:
        await create(store, encounter, b"doc", b"created")
        # The node that holds the encounter counts the clients connected to it.
        node = store._redis.get_node_from_key(f"ff:{{{encounter}}}:state") if cluster else None
        raw = (
            aioredis.Redis(host=node.host, port=node.port) if node else aioredis.Redis.from_url(url)
        )
        try:
            before = (await raw.info("clients"))["connected_clients"]
            loaded = await asyncio.gather(*(store.load(encounter) for _ in range(400)))
            opened = (await raw.info("clients"))["connected_clients"] - before
        finally:
            await raw.aclose()
        assert all(item is not None and document(item) == b"doc" for item in loaded)
        assert 0 < opened <= COMMANDS_IN_FLIGHT
    finally:
        await store.close()


# --- the undo stack (issue 24) -----------------------------------------------------------------
# The contract's stores keep 5 undo records and 32 KiB of them (conftest.CONTRACT_LIMITS).


async def push(store: Any, encounter: str, version: int, record: bytes) -> str:
    """A change with its undo record; the id of the event it appended."""
    committed = await store.commit(encounter, version, {BODY: b"v"}, (), b"e", undo=record)
    assert isinstance(committed, Committed)
    return str(committed.event_id)


async def pop(store: Any, encounter: str, version: int) -> str:
    """An undo: a change that takes the newest record off."""
    committed = await store.commit(encounter, version, {BODY: b"u"}, (), b"undo", undo_pop=True)
    assert isinstance(committed, Committed)
    return str(committed.event_id)


async def records(store: Any, encounter: str, version: int) -> list[tuple[str, bytes]]:
    """The whole stack, newest first, read by undoing every record from `version` on."""
    found = []
    while (top := await store.undo_top(encounter)) is not None:
        found.append((top.event_id, top.record))
        await pop(store, encounter, version)
        version += 1
    return found


async def test_undo_records_come_back_newest_first_with_the_event_they_undo(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert await store.undo_top(encounter) is None
    first = await push(store, encounter, 1, b"before the first")
    second = await push(store, encounter, 2, b"before the second")
    assert await store.undo_top(encounter) == UndoTop(second, b"before the second", depth=2)
    undone = await pop(store, encounter, 3)
    # The undo is an event of its own, and the record under it is the newest now.
    assert undone not in (first, second)
    assert await store.undo_top(encounter) == UndoTop(first, b"before the first", depth=1)
    await pop(store, encounter, 4)
    assert await store.undo_top(encounter) is None
    # An undo with nothing to take off still commits its change.
    await pop(store, encounter, 5)
    # Version 1 created, 2 and 3 the changes, 4, 5 and 6 the undos.
    assert (await store.load(encounter)).version == 6


async def test_a_change_without_a_record_leaves_the_stack_as_it_was(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    kept = await push(store, encounter, 1, b"r1")
    assert await commit(store, encounter, 2, b"v3", b"no record") is not None
    assert await store.undo_top(encounter) == UndoTop(kept, b"r1", depth=1)


async def test_a_record_may_hold_any_bytes(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    # Spaces (the Redis store parses "<event id> <record>" at the first space), NULs, no bytes.
    spaced = await push(store, encounter, 1, b" a b \x00 \xff ")
    empty = await push(store, encounter, 2, b"")
    assert await records(store, encounter, 3) == [(empty, b""), (spaced, b" a b \x00 \xff ")]


async def test_a_lost_compare_and_set_neither_pushes_nor_pops(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    kept = await push(store, encounter, 1, b"r1")
    stale_push = await store.commit(encounter, 1, {BODY: b"x"}, (), b"x", undo=b"stale")
    stale_pop = await store.commit(encounter, 1, {BODY: b"x"}, (), b"x", undo_pop=True)
    assert stale_push == stale_pop == Conflict(StoredEncounter(2, {BODY: b"v"}))
    assert await store.undo_top(encounter) == UndoTop(kept, b"r1", depth=1)


async def test_an_answered_retry_does_not_push_twice(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert await store.begin(encounter, key()) is None
    committed = await store.commit(encounter, 1, {BODY: b"v2"}, (), b"shot", ANSWER, key(), b"r")
    assert isinstance(committed, Committed)
    # The retry is answered from the key and commits nothing: one record, of the one event.
    assert isinstance(await store.begin(encounter, key(owner="retry")), Answered)
    assert await store.undo_top(encounter) == UndoTop(committed.event_id, b"r", depth=1)


async def test_a_record_given_with_an_undo_replaces_the_newest(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    kept = await push(store, encounter, 1, b"r1")
    await push(store, encounter, 2, b"r2")
    both = await store.commit(encounter, 3, {BODY: b"x"}, (), b"x", undo=b"r3", undo_pop=True)
    assert isinstance(both, Committed)
    assert await records(store, encounter, 4) == [(both.event_id, b"r3"), (kept, b"r1")]


async def test_the_stack_keeps_the_newest_records_up_to_the_count(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    pushed = [await push(store, encounter, v, b"r%d" % v) for v in range(1, 9)]
    # 8 pushed, 5 kept (CONTRACT_LIMITS.max_undo): the newest five, records 8 down to 4.
    assert (await store.undo_top(encounter)).depth == 5
    kept = [(pushed[v - 1], b"r%d" % v) for v in (8, 7, 6, 5, 4)]
    assert await records(store, encounter, 9) == kept


async def test_the_stack_keeps_the_newest_records_up_to_the_bytes(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    ten_k = [await push(store, encounter, v, bytes([v]) * 10_000) for v in range(1, 5)]
    # 32 KiB = 32,768 bytes hold three 10,000-byte records (30,000) and not four (40,000).
    assert await store.undo_top(encounter) == UndoTop(ten_k[3], b"\x04" * 10_000, depth=3)
    # Taken off, a record's bytes are counted no more: 20,000 + 10,000 fits again, three kept.
    await pop(store, encounter, 5)
    await push(store, encounter, 6, b"\x06" * 10_000)
    assert (await store.undo_top(encounter)).depth == 3
    # A record larger than the cap is kept, alone (the newest always stays) ...
    huge = await push(store, encounter, 7, b"h" * 40_000)
    assert await store.undo_top(encounter) == UndoTop(huge, b"h" * 40_000, depth=1)
    # ... and goes first when the next comes: 40,000 + 10,000 > 32,768.
    after = await push(store, encounter, 8, b"\x08" * 10_000)
    assert await store.undo_top(encounter) == UndoTop(after, b"\x08" * 10_000, depth=1)
    # 10,000 + 10,000 = 20,000 fits: the count went down with what was trimmed.
    await push(store, encounter, 9, b"\x09" * 10_000)
    assert (await store.undo_top(encounter)).depth == 2


async def test_a_depth_of_zero_keeps_no_record(make_store: StoreFactory) -> None:
    store = make_store(replace(CONTRACT_LIMITS, max_undo=0))
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    assert await push(store, encounter, 1, b"r1")
    assert await store.undo_top(encounter) is None
    await pop(store, encounter, 2)
    assert (await store.load(encounter)).version == 3


async def test_an_ended_encounter_keeps_nothing_to_undo(store: Any) -> None:
    encounter = new_id()
    await create(store, encounter, b"v1", b"created")
    await push(store, encounter, 1, b"r1")
    assert await store.delete(encounter, b"ended") is not None
    assert await store.undo_top(encounter) is None
    assert await store.commit(encounter, 3, {BODY: b"x"}, (), b"x", undo_pop=True) == Conflict(
        StoredEncounter(3, {BODY: b"v"}, ended=True)
    )
    assert await store.undo_top(new_id()) is None


@pytest.mark.parametrize("url_fixture", ["redis_url", "redis_cluster_url"])
async def test_a_commit_run_twice_pushes_its_record_once(
    url_fixture: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit whose reply was lost is sent again with the same nonce (redis.py): the second run
    answers the first's event and pushes nothing, pops nothing."""
    from service.store import RedisStore
    from service.store import redis as redis_store

    cluster = url_fixture == "redis_cluster_url"
    store = RedisStore(request.getfixturevalue(url_fixture), CONTRACT_LIMITS, cluster=cluster)
    monkeypatch.setattr(redis_store, "_nonce", lambda: "one-call")
    try:
        encounter = new_id()
        await create(store, encounter, b"v1", b"created")
        monkeypatch.setattr(redis_store, "_nonce", lambda: "the-push")
        first = await push(store, encounter, 1, b"r1")
        assert await push(store, encounter, 1, b"r1") == first
        monkeypatch.setattr(redis_store, "_nonce", lambda: "another")
        second = await push(store, encounter, 2, b"r2")
        monkeypatch.setattr(redis_store, "_nonce", lambda: "the-pop")
        undone = await pop(store, encounter, 3)
        assert await pop(store, encounter, 3) == undone
        assert await store.undo_top(encounter) == UndoTop(first, b"r1", depth=1)
        assert second != first
        assert len(await store.events_after(encounter, START, 10)) == 4
    finally:
        await store.close()


async def test_the_undo_key_shares_the_hash_tag_and_expires_with_the_encounter(
    redis_url: str,
) -> None:
    import redis.asyncio as aioredis
    from redis.crc import key_slot

    from service.store import RedisStore, StoreLimits
    from service.store.redis import events_key, idempotency_key, state_key, undo_key

    store = RedisStore(redis_url, StoreLimits(ttl_seconds=600, ended_ttl_seconds=60))
    raw = aioredis.Redis.from_url(redis_url)
    try:
        encounter = new_id()
        # One slot for every key of the encounter: a Cluster runs each script on one node.
        keys = [state_key(encounter), events_key(encounter), undo_key(encounter)]
        keys.append(idempotency_key(encounter, "k"))
        assert undo_key(encounter) == f"ff:{{{encounter}}}:undo"
        assert len({key_slot(k.encode()) for k in keys}) == 1
        await create(store, encounter, b"doc", b"created")
        await push(store, encounter, 1, b"r1")
        assert 590_000 < await raw.pttl(undo_key(encounter)) <= 600_000
        # The state hash counts the records' bytes (a store's own field, not the document's).
        assert await raw.hget(state_key(encounter), "ub") == b"2"
        assert "ub" not in (await store.load(encounter)).fields
        # Every write refreshes its TTL as the state's, with or without a record of its own.
        await raw.pexpire(undo_key(encounter), 5_000)
        assert await commit(store, encounter, 2, b"doc", b"no record") is not None
        assert 590_000 < await raw.pttl(undo_key(encounter)) <= 600_000
        # Ended, the encounter cannot be undone: its records go at once.
        await store.delete(encounter, b"ended")
        assert await raw.exists(undo_key(encounter)) == 0
        assert await raw.hget(state_key(encounter), "ub") is None
    finally:
        await raw.aclose()
        await store.close()


def ids_on_every_node(prefix: str) -> list[str]:
    """Encounter ids whose keys fall in each third of the slots: the test cluster gives each of
    its three primaries one third (tests/redis_cluster.py), so a listing that asked one node
    alone would miss two of them."""
    thirds: dict[int, str] = {}
    number = 0
    while len(thirds) < 3:
        encounter = f"{prefix}-{number}"
        slot = key_slot(state_key(encounter).encode())
        thirds.setdefault(min(slot // (SLOTS // 3), 2), encounter)
        number += 1
    return list(thirds.values())


async def test_encounter_ids_lists_every_encounter_the_store_holds(store: Any) -> None:
    held = ids_on_every_node(new_id())
    for encounter in held:
        await create(store, encounter, b"doc", b"created")
    # An ended encounter is still held (until its ended TTL): it is listed too.
    await store.delete(held[0], b"ended")
    listed = [encounter async for encounter in store.encounter_ids()]
    assert set(held) <= set(listed)
    assert new_id() not in listed
    # Each once, however the store walks its keys.
    assert len(listed) == len(set(listed))
