"""Issue 24, SR3: the condition monitors over HTTP (memory, Redis, the cluster), numbers worked
by hand. SR3 core pp. 125-126 as rules-sources/README.md directs (service/rules/sr3/monitor.py
cites them): ten boxes on each track, L 1 / M 3 / S 6 / D 10 boxes, physical past its track
overflows up to Body, a Deadly physical wound is dying; the wound target-number modifiers L+1 /
M+2 / S+3 / D+4 (README, "Shadowrun 3") and the initiative losing as much. "002" is
rules-sources/002_65e09aecd368bc68.txt; a success is a die at or above the target number.
"""

from __future__ import annotations

from typing import Any

from tests.by_hand import attack
from tests.test_monitors_http import monitor_of, problem

PREDATOR = {
    "id": "predator",
    "category": "heavy_pistol",
    "power": 9,
    "damage_level": "M",
    "modes": ["SA"],
    "ammo": 15,
}
JACKET = {"name": "armor jacket", "ballistic": 5, "impact": 3}
# Skill 4, no Combat Pool dice used; Body 4 and an armour jacket (5 ballistic); 4 m apart, a
# heavy pistol's short range (002: base target number 4).
SAM = {
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {"ruleset": "sr3", "body": 4, "skill": 4, "reaction": 5, "armor": [JACKET],
              "weapons": [PREDATOR]},
}  # fmt: skip
GANGER = {
    "position": {"x": 4.0, "y": 0.0},
    "sheet": {"ruleset": "sr3", "body": 4, "skill": 4, "reaction": 4, "armor": [JACKET],
              "weapons": [PREDATOR]},
}  # fmt: skip


def shot(attacker: str, target: str, dice: dict[str, list[int]]) -> dict[str, Any]:
    return {
        "attacker": attacker,
        "weapon": "predator",
        "mode": "SA",
        "target": {"id": target},
        "dice": dice,
    }


async def on_scene(client: Any) -> str:
    created = await client.post("/v1/encounters", json={"ruleset": "sr3"})
    assert created.status == 201, await created.text()
    base = f"/v1/encounters/{(await created.json())['id']}"
    for actor_id, actor in (("sam", SAM), ("ganger", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


# Sam's shot at the ganger: 4 dice (skill 4) at target number 4, a 6 and a 5: 2 successes, no
# dodge (no Combat Pool dice); the ganger resists with Body 4 at Power 9 - 5 ballistic = 4, all
# ones: none. 2 net successes stage M up one (docs/rulesets/sr3.md, "Staging": every 2): S,
# 6 boxes (SR3 p. 125).
SERIOUS = {"attack": [6, 5, 2, 2], "resist:ganger": [1, 1, 1, 1]}


async def test_a_serious_wound_raises_the_next_target_number_and_lowers_initiative(
    client: Any,
) -> None:
    base = await on_scene(client)
    encounter = base.rsplit("/", 1)[1]
    result = await attack(client, encounter, shot("sam", "ganger", SERIOUS))
    assert (result["target"]["damage"]["level"], result["target"]["damage"]["boxes"]) == ("S", 6)
    monitor = await monitor_of(client, base, "ganger")
    # S on the physical track: +3 to its target numbers, -3 to its initiative.
    assert (monitor["physical"], monitor["status"]["wound_modifier"]) == (6, 3)
    assert monitor["status"]["initiative_modifier"] == -3
    # The ganger's shot at Sam: short range 4, +3 for its wounds = 7.
    result = await attack(client, encounter, shot("ganger", "sam", {"attack": [2, 2, 2, 2]}))
    assert result["attack"]["target_number"] == 7
    # Its initiative (002, "INITIATIVE"): Reaction 4 + one die of 5, -3 = 6.
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger"}], "dice": {"initiative:ganger": [5]}},
    )
    assert started.status == 201, await started.text()
    entry = (await started.json())["result"]["entries"][0]
    assert (entry["score"], entry["modifier"]) == (6, -3)


async def test_a_hit_past_the_track_overflows_and_the_actor_is_out(client: Any) -> None:
    base = await on_scene(client)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", SERIOUS))
    # The same again: 6 + 6 = 12 boxes on a 10-box track: 10 and 2 of overflow (at most Body
    # 4): a full physical track is dying (SR3 p. 126); D's +4.
    response = await client.post(f"{base}/attacks", json=shot("sam", "ganger", SERIOUS))
    assert response.status == 201, await response.text()
    monitor = (await response.json())["changes"]["scene"]["ganger"]["monitor"]
    assert (monitor["physical"], monitor["overflow"]) == (10, 2)
    assert (monitor["status"]["condition"], monitor["status"]["wound_modifier"]) == ("dying", 4)
    refused = await client.post(f"{base}/attacks", json=shot("ganger", "sam", {"attack": [2] * 4}))
    body = await problem(refused, 409, "actor-incapacitated")
    assert body["detail"] == "'ganger' is dying: it cannot act"
    # Scores 20 and 10: the ganger's phase is passed over, Sam acts; in pass 2 (10 off
    # every score, 002) the ganger's 10 is passed over again and Sam's 0 has none: the turn
    # is over.
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger", "score": 20}, {"actor": "sam", "score": 10}]},
    )
    assert started.status == 201, await started.text()
    result = (await started.json())["result"]
    assert result["current"] == "sam"
    assert result["effects"][1] == "ganger is dying: its phase is passed over"
    advanced = await client.post(f"{base}/advance", json={"to": "action_phase"})
    assert advanced.status == 201, await advanced.text()
    effects = (await advanced.json())["result"]["effects"]
    assert "ganger is dying: its phase is passed over" in effects
    assert effects[-1] == "combat turn 1 is over; start the next with POST .../initiative"
