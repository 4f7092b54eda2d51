"""Issue 25: GET /v1/encounters/{id} says when the encounter expires (`expires_at`) and how long
any change keeps it (`ttl_seconds`), on every store with a TTL; on the durable store with none,
both are null. Each write refreshes the TTL, and the answer follows it."""

from __future__ import annotations

import datetime
import time
from pathlib import Path
from typing import Any

from service.engine.expiry import expiry
from service.store import LASTING_PREFIX
from tests.test_api import new_encounter

# The TTL the test clients keep encounters for (tests/conftest.py, TEST_TTL_SECONDS).
TTL = 600


def moment(iso: str) -> float:
    """An ISO 8601 UTC time with milliseconds, as the service writes created_at, in Unix s."""
    assert iso.endswith("+00:00") and len(iso.split(".")[1]) == len("123+00:00"), iso
    return datetime.datetime.fromisoformat(iso).timestamp()


async def test_an_encounter_shows_when_it_expires_and_each_change_moves_it(
    client: Any, store_kind: str, request: Any
) -> None:
    before = time.time()
    encounter = await new_encounter(client)
    after = time.time()
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["ttl_seconds"] == TTL
    first = moment(view["expires_at"])
    # Kept for the TTL from its creation (the store's clock may round to the millisecond).
    assert before + TTL - 0.002 <= first <= after + TTL + 0.002
    # The newest event was written when the TTL was last set: its id's milliseconds + the TTL.
    ms = int(view["last_event_id"].split("-")[0])
    assert round(first * 1000) == ms + TTL * 1000

    before = time.time()
    advanced = await client.post(f"/v1/encounters/{encounter}/advance", json={"to": "combat_turn"})
    assert advanced.status == 201, await advanced.text()
    after = time.time()
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    second = moment(view["expires_at"])
    assert before + TTL - 0.002 <= second <= after + TTL + 0.002
    assert second >= first
    assert view["ttl_seconds"] == TTL

    if store_kind != "memory":
        # What Redis itself says of the state key's time to live agrees, to the second.
        from service.store.redis import state_key

        raw = _redis_client(request, store_kind)
        try:
            pttl = await raw.pttl(state_key(encounter))
            now = time.time()
            assert abs((now + pttl / 1000) - second) < 1.0
        finally:
            await raw.aclose()


def _redis_client(request: Any, store_kind: str) -> Any:
    if store_kind == "redis":
        import redis.asyncio as aioredis

        return aioredis.Redis.from_url(request.getfixturevalue("redis_url"))
    from redis.asyncio.cluster import RedisCluster

    return RedisCluster.from_url(request.getfixturevalue("redis_cluster_url"))


async def test_on_the_durable_store_with_no_ttl_nothing_expires(
    make_client: Any, tmp_path: Path
) -> None:
    client = await make_client(store="sqlite", data_dir=str(tmp_path), encounter_ttl_seconds=None)
    encounter = await new_encounter(client)
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert (view["expires_at"], view["ttl_seconds"]) == (None, None)


async def test_the_durable_store_with_a_ttl_shows_it(make_client: Any, tmp_path: Path) -> None:
    client = await make_client(store="sqlite", data_dir=str(tmp_path), encounter_ttl_seconds=3600)
    encounter = await new_encounter(client)
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["ttl_seconds"] == 3600
    assert moment(view["expires_at"]) - time.time() > 3600 - 60


async def test_a_player_sees_the_expiry_too(client: Any) -> None:
    created = await (
        await client.post("/v1/encounters", json={"ruleset": "sr5", "name": "docks"})
    ).json()
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    view = await (await client.get(f"/v1/encounters/{created['id']}", headers=player)).json()
    assert view["ttl_seconds"] == TTL
    assert view["expires_at"] is not None


def test_expiry_worked_by_hand() -> None:
    # 1 764 650 000 000 ms is 2025-12-02T04:33:20Z; a TTL of 3600 s puts it at 05:33:20.
    shown = expiry("0f3a", "1764650000000-3", ended=False, ttl_seconds=3600, ended_ttl_seconds=60)
    assert shown == ("2025-12-02T05:33:20.000+00:00", 3600)
    # Ended: 60 s after the end's event, and no change keeps it any longer.
    shown = expiry("0f3a", "1764650000123-0", ended=True, ttl_seconds=3600, ended_ttl_seconds=60)
    assert shown == ("2025-12-02T04:34:20.123+00:00", None)
    # No TTL (the durable store's default): nothing expires while it lives.
    assert expiry("0f3a", "1764650000000-0", False, None, 60) == (None, None)
    # A campaign never expires while it lives, whatever the TTL; ended, it does.
    campaign = LASTING_PREFIX + "0f3a"
    assert expiry(campaign, "1764650000000-0", False, 3600, 60) == (None, None)
    assert expiry(campaign, "1764650000000-0", True, 3600, 60) == (
        "2025-12-02T04:34:20.000+00:00",
        None,
    )
    # No event read (an encounter gone between two reads): nothing to say.
    assert expiry("0f3a", None, False, 3600, 60) == (None, None)
