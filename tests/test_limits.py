"""Every limit answers with a clear 4xx naming what was too much."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.common import MAX_DICE_PER_STEP, MAX_DICE_STEPS, MAX_TARGETS
from service.api.limits import RateLimiter
from tests import sr5_requests as make
from tests.test_api import new_encounter

LIMIT = "application/problem+json"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (
            make.attack(targets=[make.target(id=f"t{n}") for n in range(MAX_TARGETS + 1)]),
            "$.targets",
        ),
        (make.attack(dice={"attack": [1] * (MAX_DICE_PER_STEP + 1)}), "$.dice[...]"),
        (make.attack(dice={f"s{n}": [1] for n in range(MAX_DICE_STEPS + 1)}), "$.dice"),
        (make.attack(attacker=make.attacker(id="x" * 65)), "$.attacker.id"),
    ],
    ids=["targets", "dice per step", "dice steps", "id length"],
)
async def test_too_much_of_anything_is_422_limit_exceeded(
    client: Any, body: Any, path: str
) -> None:
    encounter = await new_encounter(client)
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 422
    assert response.content_type == LIMIT
    problem = await response.json()
    assert problem["type"].endswith("/limit-exceeded")
    assert problem["path"] == path
    assert "length <=" in problem["detail"]


async def test_names_are_limited_too(client: Any) -> None:
    response = await client.post("/v1/encounters", json={"ruleset": "sr5", "name": "n" * 201})
    assert response.status == 422
    assert (await response.json())["path"] == "$.name"


async def test_made_up_names_never_take_the_room_of_the_scenes_actors(make_client: Any) -> None:
    """Issue 23: 63 attacks at made-up ids filled the combat state's actors, and then nobody,
    the GM included, could bring a new actor into combat. Actors the scene does not hold share
    a room of their own (FIREFIGHT_MAX_ACTORS), the oldest of them forgotten to make room."""
    client = await make_client(max_actors_per_encounter=4)
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    hits = {"attack": [6, 5, *[2] * 8]}
    # Eight made-up shooters, each at the made-up goon-1: nine names the scene does not hold.
    for actor in "abcdefgh":
        body = make.attack(attacker=make.attacker(id=actor), dice=hits)
        assert (await client.post(f"{base}/attacks", json=body)).status == 201
    combat = (await (await client.get(base)).json())["combat"]["actors"]
    assert len(combat) == 4
    # The newest are kept (h fired last; goon-1 defended every time).
    assert {"h", "goon-1"} <= set(combat)
    # The GM's own actor, on the scene, still comes into combat: it has its own room.
    sheet = {"ruleset": "sr5", "agility": 4, "strength": 3, "skill": 4}
    put = await client.put(f"{base}/actors/boss", json={"sheet": sheet})
    assert put.status == 200, await put.text()
    body = make.attack(attacker=make.attacker(id="boss"), dice=hits)
    assert (await client.post(f"{base}/attacks", json=body)).status == 201
    combat = (await (await client.get(base)).json())["combat"]["actors"]
    assert "boss" in combat and len(combat) == 5


async def test_state_changes_beyond_the_rate_are_429_with_retry_after(make_client: Any) -> None:
    client = await make_client(rate_limit_per_second=2)  # bursts of 4
    encounter = await new_encounter(client)
    other = await new_encounter(client)
    path = f"/v1/encounters/{encounter}/attacks"
    statuses = [(await client.post(path, json=make.attack())).status for _ in range(6)]
    assert statuses[:4] == [201] * 4
    assert statuses[4:] == [429, 429]
    limited = await client.post(path, json=make.attack())
    assert limited.content_type == LIMIT
    assert (await limited.json())["type"].endswith("/rate-limited")
    assert int(limited.headers["Retry-After"]) >= 1
    # Reads, and other encounters, go on.
    assert (await client.get(f"/v1/encounters/{encounter}")).status == 200
    assert (await client.post(f"/v1/encounters/{other}/attacks", json=make.attack())).status == 201


def test_the_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(per_second=2, burst=2, clock=lambda: now[0])
    assert limiter.retry_after("e") is None
    assert limiter.retry_after("e") is None
    wait = limiter.retry_after("e")
    assert wait == pytest.approx(0.5)
    now[0] += 0.5
    assert limiter.retry_after("e") is None
    assert limiter.retry_after("f") is None  # buckets are per encounter
