"""Issue 25: the Edge an actor spends is kept on the scene (`edge_spent`), as its monitor and its
guns' rounds are, so a campaign can put it back on the character when the encounter ends. Each
attack, action and zone test adds what it spent to the scene actors it names; the GM sets it
(PATCH {"edge_spent": 0} at the start of a session); an undo takes it back."""

from __future__ import annotations

import dataclasses
from typing import Any

from schemas.sr4 import SR4State, SR4Test
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.sr4 import grenade_attack
from tests import sr4_requests as sr4
from tests import sr5_requests as make
from tests.test_scene_attacks import GANGER, RIFLE, ZONE, on_scene
from tests.test_sr4_grenades import attack_request, made, turn_with

# Sam of the README with Edge 3.
LUCKY_SAM = {**make.README_SAM, "sheet": {**make.README_SAM["sheet"], "edge": 3}}
# Sam's attack on the ganger 12 m away with Push the Limit (000, "unless you spend edge";
# SR5 core, "Push the Limit": Edge dice added, the limit ignored, one point of Edge).
PUSHED = {
    "attacker": "sam",
    "weapon": "predator",
    "mode": "SA",
    "smartlink": "wireless_implant",
    "edge": "push_the_limit",
    "targets": [{"id": "goon-1"}],
}
# Agility 6 + skill 6 + 2 smartlink - 1 medium range + 3 Edge = 16 dice, no six to explode.
HITS_4 = [5, 5, 5, 5, 2, 3, 1, 4, 2, 3, 4, 4, 2, 2, 3, 4]
# 16 dice without a hit (and no glitch): a miss, so no defense and no soak is rolled.
MISS = [2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2]
HIT_DICE = {
    "attack": HITS_4,
    # Reaction 3 + Intuition 3: 6 dice, 1 hit.
    "defense:goon-1": [5, 2, 3, 1, 4, 2],
    # Body 4 + armour 9 - 1 AP: 12 dice, 2 hits.
    "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
}


async def _actor(client: Any, base: str, actor_id: str) -> dict[str, Any]:
    response = await client.get(f"{base}/actors/{actor_id}")
    assert response.status == 200, await response.text()
    actor: dict[str, Any] = await response.json()
    return actor


async def test_push_the_limit_spends_one_edge_on_the_scene(client: Any) -> None:
    base = await on_scene(client, sam=LUCKY_SAM, **{"goon-1": GANGER})
    response = await client.post(f"{base}/attacks", json={**PUSHED, "dice": HIT_DICE})
    assert response.status == 201, await response.text()
    answer = await response.json()
    result = answer["result"]
    # All 16 dice rolled, their 4 hits counted past the Predator's Accuracy 5 as well.
    assert sum(1 for roll in result["dice"] if roll["step"] == "attack") == 1
    assert result["targets"][0]["attack_hits"] == 4
    assert result["edge_spent"] == 1
    # Sam's Edge 3 less the one point Push the Limit spends: 1 spent; the ganger spent none.
    assert (await _actor(client, base, "sam"))["edge_spent"] == 1
    assert "edge_spent" not in await _actor(client, base, "goon-1")
    # The answer's changes carry Sam as the scene now holds it.
    assert answer["changes"]["scene"]["sam"]["edge_spent"] == 1
    # The ganger is there too, with the damage it took, and no Edge spent.
    assert "edge_spent" not in answer["changes"]["scene"]["goon-1"]


async def test_two_attacks_add_up_and_an_attack_without_edge_adds_nothing(client: Any) -> None:
    base = await on_scene(client, sam=LUCKY_SAM, **{"goon-1": GANGER})
    for _ in range(2):
        response = await client.post(f"{base}/attacks", json={**PUSHED, "dice": {"attack": MISS}})
        assert response.status == 201, await response.text()
    assert (await _actor(client, base, "sam"))["edge_spent"] == 2
    # Without Edge: 13 dice, none spent.
    plain = {**PUSHED, "edge": "none", "dice": {"attack": MISS[:13]}}
    assert (await client.post(f"{base}/attacks", json=plain)).status == 201
    assert (await _actor(client, base, "sam"))["edge_spent"] == 2


async def test_an_actor_off_the_scene_changes_nothing(client: Any) -> None:
    # Sam's numbers typed in the request: the scene holds only the ganger.
    base = await on_scene(client, **{"goon-1": GANGER})
    body = make.attack(
        attacker={"id": "sam", "agility": 6, "strength": 4, "skill": 6, "edge": 3},
        weapon=make.README_PREDATOR,
        smartlink="wireless_implant",
        edge="push_the_limit",
        targets=[{"id": "goon-1", "distance_m": 12}],
        dice={"attack": MISS},
    )
    response = await client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    answer = await response.json()
    assert answer["result"]["edge_spent"] == 1
    assert "scene" not in answer["changes"]
    listed = (await (await client.get(f"{base}/actors")).json())["actors"]
    assert list(listed) == ["goon-1"]
    assert "edge_spent" not in listed["goon-1"]


async def test_undo_takes_the_edge_back(client: Any) -> None:
    base = await on_scene(client, sam=LUCKY_SAM, **{"goon-1": GANGER})
    for _ in range(2):
        assert (
            await client.post(f"{base}/attacks", json={**PUSHED, "dice": {"attack": MISS}})
        ).status == 201
    undone = await client.post(f"{base}/undo", json={})
    assert undone.status == 200, await undone.text()
    assert (await _actor(client, base, "sam"))["edge_spent"] == 1
    assert (await client.post(f"{base}/undo", json={})).status == 200
    assert "edge_spent" not in await _actor(client, base, "sam")


async def test_the_gm_sets_it_and_a_put_that_leaves_it_out_keeps_it(client: Any) -> None:
    base = await on_scene(client, sam=LUCKY_SAM)
    patched = await client.patch(f"{base}/actors/sam", json={"edge_spent": 2})
    assert patched.status == 200, await patched.text()
    assert (await patched.json())["result"]["state"]["edge_spent"] == 2
    # A VTT sending a changed sheet (a PUT without edge_spent) does not give the Edge back.
    assert (await client.put(f"{base}/actors/sam", json=LUCKY_SAM)).status == 200
    assert (await _actor(client, base, "sam"))["edge_spent"] == 2
    assert (
        await client.put(f"{base}/actors/sam", json={**LUCKY_SAM, "edge_spent": 3})
    ).status == 200
    assert (await _actor(client, base, "sam"))["edge_spent"] == 3
    # The start of a session: none spent, and 0 is left out as every default is.
    reset = await client.patch(f"{base}/actors/sam", json={"edge_spent": 0})
    assert reset.status == 200, await reset.text()
    assert "edge_spent" not in (await reset.json())["result"]["state"]
    assert "edge_spent" not in await _actor(client, base, "sam")
    assert (
        await client.put(f"{base}/actors/sam", json={**LUCKY_SAM, "edge_spent": 0})
    ).status == 200
    assert "edge_spent" not in await _actor(client, base, "sam")


async def test_a_negative_or_too_large_edge_spent_is_refused(client: Any) -> None:
    # A field out of its bounds is a 400 `validation` naming it, as every field's (docs/api.md).
    base = await on_scene(client, sam=LUCKY_SAM)
    for value in (-1, 1001, "2"):
        for method, body in (
            ("PATCH", {"edge_spent": value}),
            ("PUT", {**LUCKY_SAM, "edge_spent": value}),
        ):
            response = await client.request(method, f"{base}/actors/sam", json=body)
            assert response.status == 400, await response.text()
            assert response.content_type == "application/problem+json"
            problem = await response.json()
            assert (problem["type"].rsplit("/", 1)[1], problem["path"]) == (
                "validation",
                "$.edge_spent",
            )
    assert "edge_spent" not in await _actor(client, base, "sam")
    # The bound itself is a count the scene keeps.
    assert (await client.patch(f"{base}/actors/sam", json={"edge_spent": 1000})).status == 200
    assert (await _actor(client, base, "sam"))["edge_spent"] == 1000


async def test_second_chance_spends_edge_on_the_scene(client: Any) -> None:
    base = await on_scene(client, sam=LUCKY_SAM, **{"goon-1": GANGER})
    body = {**PUSHED, "edge": "none", "dice": {"attack": MISS[:13]}}
    assert (await client.post(f"{base}/attacks", json=body)).status == 201
    # Second Chance re-rolls the 13 dice that scored no hit: still none.
    chance = {
        "actor": "sam",
        "action": "second_chance",
        "target": "goon-1",
        "dice": {"second_chance:goon-1": MISS[:13]},
    }
    response = await client.post(f"{base}/actions", json=chance)
    assert response.status == 201, await response.text()
    assert (await response.json())["changes"]["scene"]["sam"]["edge_spent"] == 1
    assert (await _actor(client, base, "sam"))["edge_spent"] == 1


async def test_lucky_cover_spends_edge_and_a_zone_test_rolling_edge_does_not(
    client: Any,
) -> None:
    gunner = {**make.README_SAM, "sheet": {**make.README_SAM["sheet"], "weapons": [RIFLE]}}
    runner_sheet = {**GANGER["sheet"], "edge": 2}
    base = await on_scene(
        client,
        sam=gunner,
        runner={"position": {"x": 0.0, "y": 20.0}, "sheet": runner_sheet},
        other={"position": {"x": 0.0, "y": 22.0}, "sheet": runner_sheet},
    )
    # Agility 6 + Automatics 6 = 12 dice, 2 hits under the AK's Accuracy 5: the zone's hits.
    fire = {
        "attacker": "sam",
        "weapon": "ak",
        "mode": "suppressive",
        "zone": ZONE,
        "dice": {"suppression": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3]},
    }
    fired = await client.post(f"{base}/attacks", json=fire)
    assert fired.status == 201, await fired.text()
    zone = (await fired.json())["result"]["zone"]["zone"]
    assert zone["hits"] == 2
    # The zone test takes its Edge from the request, not the sheet (SR5ZoneTestAsk).
    lucky = await client.post(
        f"{base}/zones/{zone['id']}/tests",
        json={"actor": "runner", "edge": 2, "avoid": "lucky_cover"},
    )
    assert lucky.status == 201, await lucky.text()
    assert (await lucky.json())["result"]["edge_spent"] == 1
    assert (await _actor(client, base, "runner"))["edge_spent"] == 1
    # Reaction 3 + Edge 2: 5 dice, 2 hits against a threshold of 2, not hit; Edge is rolled as
    # an attribute here, none spent.
    tested = await client.post(
        f"{base}/zones/{zone['id']}/tests",
        json={"actor": "other", "edge": 2, "dice": {"zone_test:other": [5, 5, 2, 3, 4]}},
    )
    assert tested.status == 201, await tested.text()
    result = (await tested.json())["result"]
    assert (result["pool"], result["hit"], result["edge_spent"]) == (5, False, 0)
    assert "edge_spent" not in await _actor(client, base, "other")


async def test_sr4_attacker_and_defender_each_spend_their_edge(client: Any) -> None:
    # sr4_requests: Sam Agility 4, Pistols 4, Edge 2; the ganger Reaction 3, Body 3, Edge 1,
    # armour jacket 6/4, 4 m away.
    sam = {
        "position": {"x": 0.0, "y": 0.0},
        "sheet": {
            "ruleset": "sr4",
            "agility": 4,
            "skill": 4,
            "intuition": 3,
            "edge": 2,
            "weapons": [sr4.weapon()],
        },
    }
    goon = {
        "position": {"x": 4.0, "y": 0.0},
        "sheet": {"ruleset": "sr4", **sr4.defender()},
    }
    base = await on_scene(client, "sr4", sam=sam, **{"goon-1": goon})
    body = {
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "edge": "extra_dice",
        "targets": [{"id": "goon-1", "edge": True}],
        "dice": {
            # Agility 4 + Pistols 4 + Edge 2 = 10 dice, 2 hits.
            "attack": [5, 5, 2, 2, 2, 2, 2, 2, 2, 2],
            # Reaction 3 + Edge 1 = 4 dice; the six rolled again (a 2): 1 hit.
            "defense:goon-1": [6, 2, 2, 2, 2],
            # 1 net hit: DV 5 + 1 = 6 against ballistic 6 - 1 AP = 5: physical; Body 3 + 5.
            "soak:goon-1": [2, 2, 2, 2, 2, 2, 2, 2],
        },
    }
    response = await client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    target = result["targets"][0]
    assert (target["defense"]["pool"], target["defense_hits"], target["net_hits"]) == (4, 1, 1)
    assert target["damage"]["track"] == "physical"
    # One point each: the attack's and the defense's.
    assert (result["edge_spent"], target["edge_spent"]) == (2, 1)
    assert (await _actor(client, base, "sam"))["edge_spent"] == 1
    assert (await _actor(client, base, "goon-1"))["edge_spent"] == 1
    # Edge on a defense never rolled (an attack without hits) is not spent.
    missed = {**body, "edge": "none", "dice": {"attack": [2] * 8}}
    assert (await client.post(f"{base}/attacks", json=missed)).status == 201
    assert (await _actor(client, base, "goon-1"))["edge_spent"] == 1


def test_an_sr4_grenade_names_who_spent_the_edge_of_its_throw_and_defense() -> None:
    # Thrown with Edge at goon, who spends Edge on its defense: the attack's 2 points are one
    # the thrower's, one goon's (the attack core counts both: GrenadeAttack.edge_spent).
    request = attack_request(
        edge="extra_dice",
        attacker={"id": "sam", "agility": 4, "skill": 3, "edge": 2},
        targets=[
            {
                "id": "goon",
                "distance_m": 10,
                "defender": {"reaction": 3, "body": 3, "edge": 1},
                "edge": True,
            }
        ],
        bystanders=[{"id": "goon", "position": {"x": 0, "y": 10}}],
    )
    defense = SR4Test(pool=4, hits=1, ones=0, glitch=False, critical_glitch=False)
    thrown = dataclasses.replace(made(1, defense), edge_spent=2)
    turn = turn_with(1, "sam", sam=(12, 2), goon=(9, 2))
    dice = Dice(5, {"scatter_direction": [1], "scatter": [2, 2, 2]})
    result = grenade_attack.resolve_grenade(request, SR4State(), turn, dice, thrown).result
    assert (result.edge_spent, result.targets[0].edge_spent) == (2, 1)
    assert RULESETS["sr4"].edge_spent(request, result) == {"sam": 1, "goon": 1}
