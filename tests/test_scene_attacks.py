"""Issue 11: an attack may name the scene's actors instead of carrying their numbers. The
service fills in the shooter's sheet and gun, each target's distance (from the positions),
defender (from its sheet) and posture, keeps what the request gives, and writes the rounds fired
back to the gun."""

from __future__ import annotations

from typing import Any

from service.rules.geometry import in_zone
from tests import d100_requests as d100
from tests import sr5_requests as make
from tests.parity import resolved

# The README's quickstart, with the shooter and the ganger on the scene instead of in the body.
SAM = make.README_SAM
GANGER = {
    "name": "Ganger",
    "position": {"x": 12.0, "y": 0.0},
    "sheet": make.README_GANGER_SHEET,
}
DICE = {
    "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2, 3, 4, 4, 2],
    "defense:goon-1": [5, 2, 3, 1, 4, 2],
    "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
}
NAMED = {
    "attacker": "sam",
    "weapon": "predator",
    "mode": "SA",
    "smartlink": "wireless_implant",
    "targets": [{"id": "goon-1"}],
    "dice": DICE,
}


async def on_scene(client: Any, ruleset: str = "sr5", **actors: Any) -> str:
    created = await (await client.post("/v1/encounters", json={"ruleset": ruleset})).json()
    base = f"/v1/encounters/{created['id']}"
    for actor_id, actor in actors.items():
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


async def test_an_attack_by_names_resolves_the_readmes_numbers(client: Any) -> None:
    base = await on_scene(client, sam=SAM, **{"goon-1": GANGER})
    response = await client.post(f"{base}/attacks", json=NAMED)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    # README: 6 Agility + 6 skill + 2 implanted smartlink = 14; the ganger 12 m away is medium
    # range for a heavy pistol (-1): 13 dice, 4 hits against 1 (Reaction 3 + Intuition 3 = 6
    # dice); DV 8 + 3 net hits = 11 against armour 9 - 1 AP = 8; 2 soak hits: 9 boxes.
    target = result["targets"][0]
    assert result["pool"] == 14
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (11, 8, 2, 9)
    # The same as the body that carries every number.
    explicit = make.attack(
        attacker={"id": "sam", "agility": 6, "strength": 4, "skill": 6},
        weapon=SAM["sheet"]["weapons"][0],
        smartlink="wireless_implant",
        targets=[
            {
                "id": "goon-1",
                "distance_m": 12,
                "defender": {"reaction": 3, "intuition": 3, "body": 4, "armor": 9},
            }
        ],
        dice=DICE,
        seed=result["seed"],
    )
    assert result == resolved("sr5", "sam", [], explicit)
    # The gun on the scene holds one round less, and the event keeps the attack whole.
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 14
    events = await (await client.get(f"{base}/events")).json()
    kept = events["events"][-1]["request"]
    assert (kept["attacker"]["agility"], kept["targets"][0]["distance_m"]) == (6, 12.0)


async def test_what_the_request_gives_wins_over_the_scene(client: Any) -> None:
    covered = {**GANGER, "posture": {"cover": "good"}}
    base = await on_scene(client, sam=SAM, **{"goon-1": covered})
    body = {**NAMED, "dice": {}, "targets": [{"id": "goon-1", "distance_m": 30}]}
    result = (await (await client.post(f"{base}/attacks", json=body)).json())["result"]
    target = result["targets"][0]
    # 30 m is long range for a heavy pistol (-3), not the 12 m between them on the scene.
    assert target["range"] == "long"
    assert {m["source"]: m["value"] for m in target["attack_modifiers"]}["range (long)"] == -3
    # The ganger's posture on the scene: good cover, +4 to its defense.
    defense = {m["source"]: m["value"] for m in target["defense_modifiers"]}
    assert defense["cover (good)"] == 4
    uncovered = {**body, "targets": [{"id": "goon-1", "distance_m": 30, "cover": "none"}]}
    result = (await (await client.post(f"{base}/attacks", json=uncovered)).json())["result"]
    assert "cover (good)" not in {m["source"] for m in result["targets"][0]["defense_modifiers"]}


async def test_what_neither_the_request_nor_the_scene_holds_is_named(client: Any) -> None:
    no_skill = {**SAM, "sheet": {**SAM["sheet"], "skill": None}}
    nowhere = {**GANGER, "position": None}
    base = await on_scene(client, sam=SAM, lefty=no_skill, **{"goon-1": nowhere})
    cases = [
        ({**NAMED, "attacker": "nobody"}, "$.attacker", "actor-not-on-scene"),
        ({**NAMED, "attacker": "lefty"}, "$.attacker", "sheet-incomplete"),
        ({**NAMED, "weapon": "railgun"}, "$.weapon", "weapon-not-carried"),
        (NAMED, "$.targets[0].distance_m", "position-unknown"),
        (
            {**NAMED, "targets": [{"id": "goon-2", "distance_m": 5}]},
            "$.targets[0].defender",
            "actor-not-on-scene",
        ),
    ]
    for body, path, kind in cases:
        response = await client.post(f"{base}/attacks", json=body)
        assert response.status == 422, await response.text()
        problem = await response.json()
        assert (problem["path"], problem["type"].rsplit("/", 1)[1]) == (path, kind)


async def test_second_chance_follows_an_attack_made_by_names(client: Any) -> None:
    lucky = {**SAM, "sheet": {**SAM["sheet"], "edge": 3}}
    base = await on_scene(client, sam=lucky, **{"goon-1": GANGER})
    body = {**NAMED, "dice": {"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]}}
    assert (await client.post(f"{base}/attacks", json=body)).status == 201
    chance = {"actor": "sam", "action": "second_chance", "target": "goon-1"}
    response = await client.post(f"{base}/actions", json=chance)
    assert response.status == 201, await response.text()
    assert (await response.json())["result"]["edge_spent"] == 1


async def test_a_d100_attack_by_names_takes_the_scene_too(client: Any) -> None:
    vex = {
        "position": {"x": 0.0, "y": 0.0},
        "sheet": {
            "ruleset": "d100",
            "marksmanship": 50,
            "recoil_control": 3,
            "weapons": [d100.weapon()],
        },
    }
    goon = {
        "position": {"x": 0.0, "y": 40.0},
        "sheet": {"ruleset": "d100", "defense": 30, "passive_defense": 20, "armor": 3},
    }
    base = await on_scene(client, "d100", vex=vex, **{"goon-1": goon})
    body = {"attacker": "vex", "weapon": "smg", "targets": [{"id": "goon-1"}], "seed": 7}
    response = await client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    # 40 m: the "medium" band (to 50 m) of the weapon's table.
    assert result["targets"][0]["range_band"] == "medium"
    explicit = d100.attack(
        targets=[d100.target(distance_m=40, defender=d100.defender(position={"x": 0, "y": 40}))],
        attacker=d100.attacker(position={"x": 0, "y": 0}),
        seed=7,
    )
    assert result == resolved("d100", "vex", [], explicit)
    scene = await (await client.get(f"{base}/actors/vex")).json()
    assert scene["sheet"]["weapons"][0]["ammo"] == result["ammo_left"]


RIFLE = {
    "id": "ak",
    "category": "assault_rifle",
    "damage": 11,
    "accuracy": 5,
    "modes": ["SA", "BF", "FA"],
    "ammo": 60,
    "ap": -2,
}
ZONE = {"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 40}


async def test_suppressive_fire_finds_who_is_inside_on_the_scene(client: Any) -> None:
    gunner = {**SAM, "sheet": {**SAM["sheet"], "weapons": [RIFLE]}}
    base = await on_scene(
        client,
        sam=gunner,
        # 20 m north, along the zone's axis: inside, in the open.
        exposed={"position": {"x": 0.0, "y": 20.0}},
        # Inside too, but in cover: no test.
        covered={"position": {"x": 0.5, "y": 25.0}, "posture": {"cover": "partial"}},
        # 20 m east: outside.
        away={"position": {"x": 20.0, "y": 0.0}},
    )
    body = {"attacker": "sam", "weapon": "ak", "mode": "suppressive", "zone": ZONE}
    response = await client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    affected = {a["actor"]: a for a in (await response.json())["result"]["zone"]["affected"]}
    assert (affected["exposed"]["inside"], affected["exposed"]["must_test"]) == (True, True)
    assert (affected["covered"]["inside"], affected["covered"]["must_test"]) == (True, False)
    assert affected["away"]["inside"] is False
    assert "sam" not in affected


async def test_a_move_into_a_zone_says_the_test_to_make(client: Any) -> None:
    gunner = {**SAM, "sheet": {**SAM["sheet"], "weapons": [RIFLE]}}
    base = await on_scene(client, sam=gunner, runner={"position": {"x": 20.0, "y": 0.0}})
    body = {"attacker": "sam", "weapon": "ak", "mode": "suppressive", "zone": ZONE}
    fired = await (await client.post(f"{base}/attacks", json=body)).json()
    zone = fired["result"]["zone"]["zone"]["id"]
    into = {"position": {"x": 0.0, "y": 30.0}}
    moved = await (await client.post(f"{base}/actors/runner/move", json=into)).json()
    assert moved["result"]["must_test"] == [zone]
    out = {"position": {"x": 30.0, "y": 0.0}}
    moved = await (await client.post(f"{base}/actors/runner/move", json=out)).json()
    assert "must_test" not in moved["result"]


def test_a_circle_zone_holds_what_is_within_its_radius() -> None:
    # d100 draws its zones as 10 m circles (rules-sources/003, "Suppressive Fire").
    assert in_zone([], (30.0, 0.0), 10.0, (30.0, 10.0))
    assert not in_zone([], (30.0, 0.0), 10.0, (30.0, 10.01))
    assert in_zone([(0, 0), (10, 0), (0, 10)], None, None, (1.0, 1.0))
    assert not in_zone([(0, 0), (10, 0), (0, 10)], None, None, (9.0, 9.0))


async def test_a_d100_reload_refills_the_gun_on_the_scene(client: Any) -> None:
    vex = {"sheet": {"ruleset": "d100", "marksmanship": 50, "weapons": [d100.weapon(ammo=4)]}}
    base = await on_scene(client, "d100", vex=vex)
    reload = {
        "actor": "vex",
        "action": "reload",
        "weapon": {"id": "smg", "method": "magazine", "capacity": 30, "loaded": 4},
    }
    response = await client.post(f"{base}/actions", json=reload)
    assert response.status == 201, await response.text()
    assert (await response.json())["result"]["ammo_left"] == 30  # a fresh magazine of 30
    actor = await (await client.get(f"{base}/actors/vex")).json()
    assert actor["sheet"]["weapons"][0]["ammo"] == 30


async def test_a_zone_test_takes_the_testing_actors_sheet(client: Any) -> None:
    gunner = {**SAM, "sheet": {**SAM["sheet"], "weapons": [RIFLE]}}
    runner = {"position": {"x": 0.0, "y": 20.0}, "sheet": GANGER["sheet"]}
    base = await on_scene(client, sam=gunner, runner=runner)
    body = {"attacker": "sam", "weapon": "ak", "mode": "suppressive", "zone": ZONE}
    fired = await (await client.post(f"{base}/attacks", json=body)).json()
    zone = fired["result"]["zone"]["zone"]["id"]
    response = await client.post(f"{base}/zones/{zone}/tests", json={"actor": "runner"})
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    # Reaction 3 from the runner's sheet (and Edge 0): the guide's zone test pool.
    assert {m["source"]: m["value"] for m in result["modifiers"]}["reaction"] == 3
    nobody = await client.post(f"{base}/zones/{zone}/tests", json={"actor": "nobody"})
    assert nobody.status == 422
    assert (await nobody.json())["path"] == "$.defender"


async def test_a_d100_zone_test_takes_athletics_and_position_from_the_scene(client: Any) -> None:
    vex = {
        "position": {"x": 0.0, "y": 0.0},
        "sheet": {"ruleset": "d100", "marksmanship": 50, "weapons": [d100.weapon()]},
    }
    goon = {
        "position": {"x": 30.0, "y": 5.0},
        "sheet": {"ruleset": "d100", "athletics": 40, "armor": 3},
    }
    base = await on_scene(client, "d100", vex=vex, **{"goon-1": goon})
    order = {"origin": {"x": 0, "y": 0}, "center": {"x": 30, "y": 0}}
    # A roll of 5 against Marksmanship 50: the suppression holds (its zone is made).
    body = {"attacker": "vex", "weapon": "smg", "suppressive": order, "dice": {"suppression": [5]}}
    fired = await client.post(f"{base}/attacks", json=body)
    assert fired.status == 201, await fired.text()
    zone = (await fired.json())["result"]["zone"]["zone"]["id"]
    body = {"actor": "goon-1", "dice": {"zone_test:goon-1": [90]}}
    response = await client.post(f"{base}/zones/{zone}/tests", json=body)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    # Athletics 40 from the sheet (less the zone's penalty): a roll of 90 fails, and it is hit.
    assert {m["source"]: m["value"] for m in result["modifiers"]}["Athletics"] == 40
    assert (result["test"]["roll"], result["hit"]) == (90, True)


async def test_the_gun_fired_says_which_skill_the_sheet_gives(client: Any) -> None:
    two_guns = {
        **SAM,
        "sheet": {
            **SAM["sheet"],
            "skill": 6,  # Automatics, for the rifle
            "weapon_skills": {"predator": 4},  # Pistols
            "weapons": [make.README_PREDATOR, RIFLE],
        },
    }
    base = await on_scene(client, sam=two_guns, **{"goon-1": GANGER})
    body = {**NAMED, "dice": {}}
    pistol = (await (await client.post(f"{base}/attacks", json=body)).json())["result"]
    # 6 Agility + 4 Pistols + 2 implanted smartlink.
    assert pistol["pool"] == 12
    rifle = {**body, "weapon": "ak"}
    result = (await (await client.post(f"{base}/attacks", json=rifle)).json())["result"]
    assert {m["source"]: m["value"] for m in result["modifiers"]}["skill"] == 6
