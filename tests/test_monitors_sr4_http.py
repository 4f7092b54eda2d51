"""Issue 24, SR4: the condition monitors over HTTP (memory, Redis, the cluster), numbers worked
by hand. The SR4 core numbers rules-sources/README.md lets the product take where
rules-sources/001_2cfc288dfef1df08.txt is silent (service/rules/sr4/monitor.py cites them):
physical 8 + ceil(Body/2), stun 8 + ceil(Willpower/2), -1 per 3 boxes of each track, a full
physical track is dying, overflow up to Body. "001" is the document; a die of 5 or 6 is a hit.
"""

from __future__ import annotations

from typing import Any

from tests.by_hand import attack
from tests.test_monitors_http import monitor_of, problem

# 5P, AP -1 (001: no limits in SR4).
PREDATOR = {
    "id": "predator",
    "category": "heavy_pistol",
    "damage": 5,
    "ap": -1,
    "modes": ["SA"],
    "ammo": 15,
}
# Sam: Agility 4 + Pistols 4 = 8 dice; Reaction 3 defends. The ganger, 4 m away (heavy pistol
# short range, no modifier): Agility 3 + Pistols 3 = 6 dice; Reaction 3 defends; Body 3 gives
# 8 + 2 = 10 physical boxes and 3 of overflow; armour 6 ballistic - 1 AP = 5: Body 3 + 5 = 8
# soak dice.
SHEET = {"ruleset": "sr4", "reaction": 3, "intuition": 3, "body": 3, "willpower": 3,
         "ballistic_armor": 6, "impact_armor": 4, "weapons": [PREDATOR]}  # fmt: skip
SAM = {"position": {"x": 0.0, "y": 0.0}, "sheet": {**SHEET, "agility": 4, "skill": 4}}
GANGER = {"position": {"x": 4.0, "y": 0.0}, "sheet": {**SHEET, "agility": 3, "skill": 3}}
# Sam's shot: 2 hits of 8 against none of 3: DV 5 + 2 = 7 against armour 5, physical (001,
# "Apply Damage"); 4 of the 8 soak dice hit: 3 boxes.
LIGHT = {
    "attack": [5, 5, 2, 2, 2, 2, 2, 2],
    "defense:ganger": [2, 2, 2],
    "soak:ganger": [5, 5, 5, 5, 2, 2, 2, 2],
}
# Sam's shot: 8 hits against none: DV 5 + 8 = 13, physical; no soak hit: 13 boxes.
HEAVY = {"attack": [6] * 8, "defense:ganger": [2, 2, 2], "soak:ganger": [2] * 8}


def shot(attacker: str, target: str, dice: dict[str, list[int]]) -> dict[str, Any]:
    return {
        "attacker": attacker,
        "weapon": "predator",
        "mode": "SA",
        "targets": [{"id": target}],
        "dice": dice,
    }


async def on_scene(client: Any) -> str:
    created = await client.post("/v1/encounters", json={"ruleset": "sr4"})
    assert created.status == 201, await created.text()
    base = f"/v1/encounters/{(await created.json())['id']}"
    for actor_id, actor in (("sam", SAM), ("ganger", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


async def test_the_wound_modifier_lowers_the_next_pool_and_initiative(client: Any) -> None:
    base = await on_scene(client)
    encounter = base.rsplit("/", 1)[1]
    result = await attack(client, encounter, shot("sam", "ganger", LIGHT))
    assert result["targets"][0]["damage"]["boxes"] == 3
    monitor = await monitor_of(client, base, "ganger")
    # 3 boxes: -(3 // 3) = -1.
    assert (monitor["physical"], monitor["status"]["wound_modifier"]) == (3, -1)
    # The ganger's shot: 6 - 1 = 5 dice (five given: a sixth would be asked for).
    # (No hit: Sam does not defend.)
    result = await attack(client, encounter, shot("ganger", "sam", {"attack": [2] * 5}))
    assert result["targets"][0]["attack"]["pool"] == 5
    assert {"source": "wound modifier", "value": -1} in result["modifiers"]
    # Its initiative (SR4 core): Reaction 3 + Intuition 3 - 1 = 5, and the hits of 5 dice
    # (two 5s): 7.
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger"}], "dice": {"initiative:ganger": [5, 5, 2, 2, 2]}},
    )
    assert started.status == 201, await started.text()
    entry = (await started.json())["result"]["entries"][0]
    assert (entry["score"], entry["modifier"]) == (7, -1)


async def test_a_hit_past_the_track_overflows_and_the_actor_is_out(client: Any) -> None:
    base = await on_scene(client)
    response = await client.post(f"{base}/attacks", json=shot("sam", "ganger", HEAVY))
    assert response.status == 201, await response.text()
    # 13 boxes on a 10-box track: 10 and 3 of overflow (Body 3: not past it, so not dead);
    # a full physical track is dying; -(10 // 3) = -3.
    monitor = (await response.json())["changes"]["scene"]["ganger"]["monitor"]
    assert (monitor["physical"], monitor["overflow"]) == (10, 3)
    assert (monitor["status"]["condition"], monitor["status"]["wound_modifier"]) == ("dying", -3)
    refused = await client.post(f"{base}/attacks", json=shot("ganger", "sam", {"attack": [2] * 3}))
    body = await problem(refused, 409, "actor-incapacitated")
    assert body["detail"] == "'ganger' is dying: it cannot act"
    # Scores 12 and 8, one pass each: the ganger's phase is passed over, Sam acts.
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger", "score": 12}, {"actor": "sam", "score": 8}]},
    )
    assert started.status == 201, await started.text()
    result = (await started.json())["result"]
    assert result["current"] == "sam"
    assert "ganger is dying: its phase is passed over" in result["effects"]
