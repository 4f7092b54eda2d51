"""A safe edit of the state (issue 15): `PUT .../state` with the `version` it was read at is
written only on that version; on any other it is 409 `state-changed` (path `$.version`, the
detail saying the version now) and nothing is written, on every store and across replicas (a
replica's stale copy asks the store; a compare-and-set lost to another writer is a 409, never
a retry that writes over what that writer did).

The attack is 004's Carter shooting the goon (tests/test_sr3hl_rules.py): an S wound, 6 boxes on
the goon's torso and on his trauma monitor.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import AppFactory
from tests.test_api import new_encounter
from tests.test_sr3hl_rules import carter_at_the_goon

RULESET = "sr3-hardlife"
# Ripley, hurt before the fight: torso S (6 boxes), the GM's to heal.
RIPLEY = {"body": 4, "monitors": {"torso": {"physical": 6}, "trauma": {"physical": 6}}}
CARTERS_SHOT = carter_at_the_goon(**{"stun:goon": [2, 2, 1, 1], "recovery:goon": [6, 2, 2, 2]})


async def view(client: Any, encounter: str) -> Any:
    response = await client.get(f"/v1/encounters/{encounter}")
    assert response.status == 200, await response.text()
    return await response.json()


async def edit(client: Any, encounter: str, body: dict[str, Any]) -> tuple[int, Any]:
    response = await client.put(f"/v1/encounters/{encounter}/state", json=body)
    return response.status, await response.json()


def healed(combat: dict[str, Any], actor: str) -> dict[str, Any]:
    """The combat state as read, `actor`'s monitors healed to nothing (what the console sends)."""
    actors = {**combat["actors"], actor: {**combat["actors"][actor], "monitors": {}}}
    return {**combat, "actors": actors}


async def events(client: Any, encounter: str) -> list[str]:
    response = await client.get(f"/v1/encounters/{encounter}/events")
    assert response.status == 200, await response.text()
    return [event["type"] for event in (await response.json())["events"]]


async def test_an_edit_on_the_version_read_is_written(client: Any) -> None:
    combat = {"ruleset": RULESET, "actors": {"ripley": RIPLEY}}
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat)
    read = await view(client, encounter)
    assert read["version"] == 1
    status, answer = await edit(
        client,
        encounter,
        {"version": 1, "combat": healed(read["combat"], "ripley"), "reason": "medkit"},
    )
    assert status == 201, answer
    assert answer["changes"]["version"] == 2
    after = await view(client, encounter)
    assert after["version"] == 2
    ripley = after["combat"]["actors"]["ripley"]
    assert ripley.get("monitors", {}) == {}
    # Healed: the torso's S (+3 to target numbers, -3 initiative) is gone.
    assert ripley.get("condition", {}) == {}


async def test_an_edit_on_a_version_moved_past_is_refused_and_writes_nothing(client: Any) -> None:
    combat = {"ruleset": RULESET, "actors": {"ripley": RIPLEY}}
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat)
    read = await view(client, encounter)
    # Between the GM's read and write, Carter's shot lands on the goon (version 2).
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=CARTERS_SHOT)
    assert response.status == 201, await response.text()
    attacked = await view(client, encounter)
    assert attacked["version"] == 2
    goon = attacked["combat"]["actors"]["goon"]["monitors"]
    assert (goon["torso"]["physical"], goon["trauma"]["physical"]) == (6, 6)
    # The GM's edit, made on version 1, holds no goon: written, it would undo the shot.
    status, problem = await edit(
        client, encounter, {"version": 1, "combat": healed(read["combat"], "ripley")}
    )
    assert status == 409, problem
    assert problem["type"].rsplit("/", 1)[-1] == "state-changed"
    assert problem["path"] == "$.version"
    assert "version 2" in problem["detail"]
    # Nothing was written: the state and its version are the attack's, and no edit was recorded.
    assert await view(client, encounter) == attacked
    assert await events(client, encounter) == ["encounter_created", "attack"]
    # Read again, the same heal on version 2 keeps the goon's wound.
    status, answer = await edit(
        client, encounter, {"version": 2, "combat": healed(attacked["combat"], "ripley")}
    )
    assert status == 201, answer
    after = (await view(client, encounter))["combat"]["actors"]
    assert after["ripley"].get("monitors", {}) == {}
    assert after["goon"]["monitors"] == attacked["combat"]["actors"]["goon"]["monitors"]


async def test_a_version_the_encounter_never_reached_is_refused(client: Any) -> None:
    encounter = await new_encounter(client, ruleset=RULESET)
    status, problem = await edit(client, encounter, {"version": 7, "dice_policy": "any"})
    assert (status, problem["path"]) == (409, "$.version")
    assert "version 1, not 7" in problem["detail"]
    assert (await view(client, encounter))["dice_policy"] == "own"


async def test_a_version_that_is_no_version_is_a_validation_problem(client: Any) -> None:
    encounter = await new_encounter(client, ruleset=RULESET)
    for version in (0, "1"):
        status, problem = await edit(client, encounter, {"version": version, "dice_policy": "any"})
        assert status == 400, problem
        assert problem["path"] == "$.version"


@pytest.mark.parametrize("store", ["redis", "cluster"])
async def test_replicas_check_the_version_against_the_store(
    make_client: AppFactory, store: str
) -> None:
    on = {"redis": store == "redis", "cluster": store == "cluster"}
    first, second = [await make_client(**on) for _ in range(2)]
    combat = {"ruleset": RULESET, "actors": {"ripley": RIPLEY}}
    encounter = await new_encounter(first, ruleset=RULESET, combat=combat)
    # The second replica shoots (version 2); the first still holds version 1.
    response = await second.post(f"/v1/encounters/{encounter}/attacks", json=CARTERS_SHOT)
    assert response.status == 201, await response.text()
    read = await view(second, encounter)
    assert read["version"] == 2
    # The GM read version 2 from the second replica and writes through the first: its stale
    # copy is no reason to refuse. Written: version 3.
    status, answer = await edit(
        first, encounter, {"version": 2, "combat": healed(read["combat"], "ripley")}
    )
    assert status == 201, answer
    assert answer["changes"]["version"] == 3
    # The second replica still holds version 2: an edit on it passes its own check, loses the
    # compare-and-set to the first's write, and the retry on version 3 refuses it.
    status, problem = await edit(
        second, encounter, {"version": 2, "combat": healed(read["combat"], "goon")}
    )
    assert (status, problem["path"]) == (409, "$.version")
    assert "version 3, not 2" in problem["detail"]
    after = await view(first, encounter)
    assert after["version"] == 3
    assert after["combat"]["actors"]["goon"]["monitors"]["torso"]["physical"] == 6
    assert after["combat"]["actors"]["ripley"].get("monitors", {}) == {}
