"""Issue 12: a change starts from the encounter as this process last saw it and commits only the
fields it changed, in one round trip; a copy gone stale on another replica loses its
compare-and-set and is checked again, so what it lets through is what a fresh read would."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from typing import Any

import msgspec
import pytest
import redis

from schemas.encounter import EncounterCreate, EncounterCreated
from service.engine import Encounters
from service.engine.cache import DocumentCache
from service.engine.documents import Document
from service.store import Committed, Conflict, MemoryStore, RedisStore
from service.store.redis import SCRIPT_COMMANDS
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_scene_attacks import GANGER, NAMED, SAM
from tests.test_trust import bearer, open_table

# A table of this many actors beside the shooter and its target.
CROWD = 48


class RecordingStore:
    """A store that records every call made to it, and what each commit changed."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.calls: list[str] = []
        self.commits: list[tuple[set[str], set[str]]] = []
        self.conflicts = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._store, name)

        async def recorded(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return await method(*args, **kwargs)

        return recorded

    async def commit(
        self,
        encounter_id: str,
        expected_version: int,
        changed: Mapping[str, bytes],
        removed: Collection[str],
        *rest: Any,
        **options: Any,
    ) -> Committed | Conflict:
        self.calls.append("commit")
        self.commits.append((set(changed), set(removed)))
        committed = await self._store.commit(
            encounter_id, expected_version, changed, removed, *rest, **options
        )
        self.conflicts += isinstance(committed, Conflict)
        return committed


@pytest.fixture(params=["memory", "redis"])
async def recording(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        store: Any = MemoryStore()
    else:
        store = RedisStore(request.getfixturevalue("redis_url"))
    recording = RecordingStore(store)
    yield recording
    await store.close()


async def crowded_table(encounters: Encounters) -> str:
    """Sam and the ganger on a scene with CROWD more actors."""
    body = msgspec.json.encode(EncounterCreate(ruleset="sr5", name="crowd"))
    created = msgspec.json.decode((await encounters.create(body, ADMIN_KEY, None)).body)
    encounter = EncounterCreated(**created).id
    actors = {"sam": SAM, "goon-1": GANGER}
    actors.update({f"extra-{n}": {**GANGER, "name": f"Extra {n}"} for n in range(CROWD)})
    for actor_id, actor in actors.items():
        admitted = await encounters.admit(encounter, ADMIN_KEY, "gm")
        await encounters.put_actor(admitted, actor_id, msgspec.json.encode(actor))
    return encounter


async def test_an_attack_on_a_crowded_table_writes_only_the_fields_it_changed(
    recording: RecordingStore,
) -> None:
    encounters = Encounters(recording, ADMIN_KEY)
    encounter = await crowded_table(encounters)
    # The first shot puts Sam and the ganger in the combat state (the head lists them)...
    admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
    await encounters.attack(admitted, msgspec.json.encode(NAMED))
    # (and the ganger's condition monitor takes the README's 9 boxes: its scene field too).
    assert recording.commits[-1][0] == {"head", "a:sam", "a:goon-1", "s:sam", "s:goon-1"}
    # ...the next changes only what it changes.
    recording.calls.clear()
    admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
    # Hits, so the ganger rolls a defense (a miss, left to chance, would change no defense):
    # 2 hits against its 2 (Reaction 3 + Intuition 3, -3 for its 9 boxes, -1 for its earlier
    # defense: 2 dice, both hit): no net hit, no damage, its monitor as it was.
    hits = {**NAMED, "dice": {"attack": [6, 5, *[2] * 11], "defense:goon-1": [5, 5]}}
    await encounters.attack(admitted, msgspec.json.encode(hits))
    # One call to the store: the commit (the encounter was in memory).
    assert recording.calls == ["commit"]
    changed, removed = recording.commits[-1]
    # The shooter's recoil and the ganger's defenses; the rounds left in Sam's gun.
    assert changed == {"a:sam", "a:goon-1", "s:sam"}
    assert removed == set()


async def test_a_process_that_never_saw_the_encounter_reads_it_once(
    recording: RecordingStore,
) -> None:
    encounter = await crowded_table(Encounters(recording, ADMIN_KEY))
    fresh = Encounters(recording, ADMIN_KEY)
    recording.calls.clear()
    for _ in range(3):
        admitted = await fresh.admit(encounter, ADMIN_KEY, "play")
        await fresh.attack(admitted, msgspec.json.encode({**NAMED, "dice": {}}))
    assert recording.calls == ["load", "commit", "commit", "commit"]


async def test_an_uncontended_attack_is_one_redis_command(own_redis_url: str) -> None:
    """Counted by Redis itself (one nothing else uses): the commands it ran for one attack,
    scripts counted once."""
    store = RedisStore(own_redis_url)
    encounters = Encounters(store, ADMIN_KEY)
    counter = redis.Redis.from_url(own_redis_url)
    try:
        encounter = await crowded_table(encounters)
        body = msgspec.json.encode({**NAMED, "dice": {}})
        admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
        await encounters.attack(admitted, body)
        before = _commands(counter)
        admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
        await encounters.attack(admitted, body)
        after = _commands(counter)
    finally:
        counter.close()
        await store.close()
    ran = {name: after[name] - before.get(name, 0) for name in after}
    assert {name: count for name, count in ran.items() if count} == {"evalsha": 1}


def _commands(client: redis.Redis) -> dict[str, int]:
    """Calls per top-level command so far (INFO's own and those run inside scripts left out)."""
    stats: dict[str, Any] = client.info("commandstats")  # type: ignore[assignment]
    return {
        name.removeprefix("cmdstat_"): int(stat["calls"])
        for name, stat in stats.items()
        if name.removeprefix("cmdstat_") not in SCRIPT_COMMANDS | {"info"}
    }


async def test_a_stale_copy_takes_a_token_given_and_refuses_one_revoked_elsewhere(
    make_client: Any,
) -> None:
    first, second = [await make_client(redis=True, admin=False) for _ in range(2)]
    encounter, tokens = await open_table(first)
    gm = bearer(tokens["gm"])
    base = f"/v1/encounters/{encounter}"
    # Sam is a player's (the table's token acts for no actor of the GM's).
    sam = {**SAM, "controller": "kim"}
    assert (await first.put(f"{base}/actors/sam", json=sam, headers=gm)).status == 200
    # The second replica keeps the encounter in memory from a shot of the table's token...
    table = bearer(tokens["player"])
    shot = await second.post(f"{base}/attacks", json=make.attack(), headers=table)
    assert shot.status == 201, await shot.text()
    issued = await first.post(f"{base}/players/kim", json={"actors": ["sam"]}, headers=gm)
    assert issued.status == 201, await issued.text()
    kim = bearer((await issued.json())["token"])
    # ...and takes a token given since on the first, which its copy does not know.
    shot = await second.post(f"{base}/attacks", json=make.attack(), headers=kim)
    assert shot.status == 201, await shot.text()
    revoked = await first.delete(f"{base}/players/kim", headers=gm)
    assert revoked.status == 200, await revoked.text()
    version = (await (await first.get(base, headers=gm)).json())["version"]
    # Its copy still holds the token: the commit loses, and the encounter as it is refuses it.
    refused = await second.post(f"{base}/attacks", json=make.attack(), headers=kim)
    assert refused.status == 401, await refused.text()
    assert (await (await first.get(base, headers=gm)).json())["version"] == version


async def test_replicas_read_an_encounter_the_same_whether_or_not_they_held_it(
    make_client: Any,
) -> None:
    writer, reader = [await make_client(redis=True) for _ in range(2)]
    created = await (await writer.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    # Actors added out of alphabetical order, one taken off and put back: the order is kept.
    for actor_id in ("zed", "sam", "goon-1", "abe"):
        actor = SAM if actor_id == "sam" else {**GANGER, "name": actor_id}
        assert (await writer.put(f"{base}/actors/{actor_id}", json=actor)).status == 200
    assert (await writer.delete(f"{base}/actors/zed")).status == 200
    assert (await writer.put(f"{base}/actors/zed", json=GANGER)).status == 200
    for seed in range(2):
        shot = {**NAMED, "dice": {}, "seed": seed}
        assert (await writer.post(f"{base}/attacks", json=shot)).status == 201
    # The writer answers from its copy, the reader from the store: the same bytes.
    held = await (await writer.get(base)).read()
    read = await (await reader.get(base)).read()
    assert held == read
    assert list(msgspec.json.decode(read)["scene"]) == ["sam", "goon-1", "abe", "zed"]


async def test_without_a_cache_every_change_reads_the_encounter_first(
    recording: RecordingStore,
) -> None:
    encounter = await crowded_table(Encounters(recording, ADMIN_KEY))
    uncached = Encounters(recording, ADMIN_KEY, state_cache_bytes=0)
    recording.calls.clear()
    for _ in range(2):
        admitted = await uncached.admit(encounter, ADMIN_KEY, "play")
        await uncached.attack(admitted, msgspec.json.encode({**NAMED, "dice": {}}))
    assert recording.calls == ["load", "commit", "load", "commit"]


def _document(encounter_id: str, version: int, size: int) -> Document:
    return Document(encounter_id, version, False, {"head": b"x" * size}, None, size)


def test_the_cache_keeps_the_newest_version_within_its_bytes() -> None:
    cache = DocumentCache(max_bytes=100)
    cache.put(_document("a", 2, 40))
    # A request that read version 1 before another's commit finishes after it: 2 stays.
    cache.put(_document("a", 1, 40))
    kept = cache.get("a")
    assert kept is not None and kept.version == 2
    cache.put(_document("b", 1, 40))
    cache.get("a")  # a is now the most recently used
    cache.put(_document("c", 1, 40))
    # Past 100 bytes the least recently used goes: b.
    assert (cache.get("b"), len(cache)) == (None, 2)
    # A document larger than the whole budget is not kept (and leaves its older copy out).
    cache.put(_document("a", 3, 101))
    assert cache.get("a") is None


async def test_changes_to_one_encounter_in_one_process_take_turns(
    recording: RecordingStore,
) -> None:
    """Two shots at once: the second starts from what the first committed, and neither loses a
    compare-and-set (no conflict answered, nothing read again)."""
    encounters = Encounters(recording, ADMIN_KEY)
    encounter = await crowded_table(encounters)
    recording.calls.clear()

    async def shoot(seed: int) -> None:
        admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
        await encounters.attack(admitted, msgspec.json.encode({**NAMED, "dice": {}, "seed": seed}))

    await asyncio.gather(*(shoot(seed) for seed in range(4)))
    assert recording.calls == ["commit"] * 4
    # Nor did setting the table up, from the encounter's creation on.
    assert recording.conflicts == 0
