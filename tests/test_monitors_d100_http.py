"""Issue 24, d100: the condition monitor over HTTP (memory, Redis, the cluster), numbers worked
by hand. The chapter (rules-sources/003_e47222605a1f2969.txt) resolves each hit to a wound at a
location and names Wounds as a Success Target modifier, but gives no hit points: the sheet's
`hit_points` size the monitor and the rest is the product's choice (docs/rulesets/d100.md,
"Condition monitor"; service/rules/d100/monitor.py): hit points lost fill `physical`, past them
`overflow` (below 0: dying), -10 once half are lost. The core test is rules-sources/README.md's
("d100"): success at or under the Success Target, hits 1 + (ST - roll) div 10.
"""

from __future__ import annotations

from typing import Any

from tests import d100_requests as d100
from tests.by_hand import attack
from tests.test_monitors_http import monitor_of, problem

# The builders' SMG: 7 + 2 bonus dice, armour penetration 2, 20 m is its medium band (+0).
VEX = {
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {"ruleset": "d100", "marksmanship": 60, "hit_points": 20, "defense": 30,
              "passive_defense": 20, "armor": 3, "weapons": [d100.weapon()]},
}  # fmt: skip
GOON = {
    "position": {"x": 0.0, "y": 20.0},
    "sheet": {"ruleset": "d100", "marksmanship": 50, "hit_points": 20, "defense": 30,
              "passive_defense": 20, "armor": 3, "weapons": [d100.weapon()]},
}  # fmt: skip
# Vex's shot (Shot Rate 0): Success Target 60, a 31: 1 + 29 div 10 = 3 hits; the goon's
# Active Defense 30 (or less), a 40 fails: 3 net hits. 7 + bonus 6 + 1 + 3 = 17; Passive
# Defense 20 (or less), a 21 fails; d10 5: the torso (docs' table), armour 3 - 2 = 1: a wound
# of 16 (README, "d100").
WOUND = {
    "attack": [31],
    "defense:goon": [40],
    "bonus:goon": [6, 1],
    "passive_defense:goon": [21],
    "location:goon": [5],
}


def shot(attacker: str, target: str, dice: dict[str, list[int]]) -> dict[str, Any]:
    return {"attacker": attacker, "weapon": "smg", "targets": [{"id": target}], "dice": dice}


async def on_scene(client: Any) -> str:
    created = await client.post("/v1/encounters", json={"ruleset": "d100"})
    assert created.status == 201, await created.text()
    base = f"/v1/encounters/{(await created.json())['id']}"
    for actor_id, actor in (("vex", VEX), ("goon", GOON)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


async def test_a_wound_past_half_the_hit_points_lowers_the_next_success_target(
    client: Any,
) -> None:
    base = await on_scene(client)
    encounter = base.rsplit("/", 1)[1]
    result = await attack(client, encounter, shot("vex", "goon", WOUND))
    damage = result["targets"][0]["damage"]
    assert (damage["damage"], damage["location"], damage["wound"]) == (17, "torso", 16)
    monitor = await monitor_of(client, base, "goon")
    # 16 of 20 hit points lost, at the torso: half or more, -10.
    assert (monitor["physical"], monitor["wounds"]) == (16, {"torso": 16})
    assert (monitor["status"]["wound_modifier"], monitor["status"]["condition"]) == (-10, "ok")
    # The goon's shot: Marksmanship 50 - 10 = 40 (a 95 misses).
    result = await attack(client, encounter, shot("goon", "vex", {"attack": [95]}))
    assert result["success_target"] == 40


async def test_a_wound_past_the_hit_points_overflows_and_the_actor_is_out(client: Any) -> None:
    base = await on_scene(client)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("vex", "goon", WOUND))
    # The same wound again (the goon's lower defenses fail all the same): 16 + 16 = 32 of 20
    # hit points: 20 and 12 below zero, dying (not past minus 20: not dead).
    response = await client.post(f"{base}/attacks", json=shot("vex", "goon", WOUND))
    assert response.status == 201, await response.text()
    monitor = (await response.json())["changes"]["scene"]["goon"]["monitor"]
    assert (monitor["physical"], monitor["overflow"], monitor["wounds"]) == (20, 12, {"torso": 32})
    assert monitor["status"]["condition"] == "dying"
    refused = await client.post(f"{base}/attacks", json=shot("goon", "vex", {"attack": [95]}))
    body = await problem(refused, 409, "actor-incapacitated")
    assert body["detail"] == "'goon' is dying: it cannot act"
    # (d100 has no initiative passes for the service to run: nothing to pass over.)
