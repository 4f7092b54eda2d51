"""SR4 grenades through the HTTP API (001_2cfc288dfef1df08.txt, "GRENADES"; docs/rulesets/
sr4.md, "Grenades and blasts"): a thrown grenade held in the state and on the map, `advance`
setting it off as an event everyone sees with the blast on the actors where they stand then, a
room whose four walls send the wave back, and bad grenades as problems naming the field.

Sam throws with Agility 4 + Throwing 3 = 7 dice, Strength 5 (a standard grenade's short range
is STR x 2 = 10 m, modifier 0). The worked numbers are in each test."""

from __future__ import annotations

from typing import Any

from tests.test_api import PROBLEM, new_encounter

SAM = {"id": "sam", "agility": 4, "skill": 3, "strength": 5}
GRENADE_WEAPON = {
    "id": "frags",
    "category": "standard_grenade",
    "damage": 0,
    "modes": ["SS"],
    "ammo": 3,
}


def throw(**fields: Any) -> dict[str, Any]:
    body = {
        "attacker": SAM,
        "weapon": GRENADE_WEAPON,
        "mode": "SS",
        "grenade": {"type": "fragmentation"},
        "origin": {"x": 0, "y": 0},
    }
    return {**body, **fields}


async def post(client: Any, path: str, body: Any) -> tuple[int, Any]:
    response = await client.post(path, json=body)
    return response.status, await response.json()


async def on_scene(client: Any, base: str, actor: str, x: float, y: float, **sheet: Any) -> None:
    body = {"position": {"x": x, "y": y}, "sheet": {"ruleset": "sr4", **sheet}}
    response = await client.put(f"{base}/actors/{actor}", json=body)
    assert response.status == 200, await response.text()


async def test_a_thrown_grenade_waits_for_the_next_pass_and_hits_whoever_is_there(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    await on_scene(client, base, "sam", 0, 0, body=4)
    await on_scene(client, base, "goon", 0, 10, body=3, impact_armor=1)
    # The service runs the initiative: sam 12, goon 9, two passes each.
    start = {
        "actors": [
            {"actor": "sam", "score": 12, "passes": 2},
            {"actor": "goon", "score": 9, "passes": 2},
        ]
    }
    status, started = await post(client, f"{base}/initiative", start)
    assert status == 201, started
    # Thrown at goon, 10 m off: 7 dice, 3 hits; goon's Reaction 3, 1 hit: 2 net hits.
    # 3D6 = 3 + 3 + 2 = 8 m less 2 m x 2 = 4 m straight on (direction 1): it lies at (0, 14).
    body = throw(
        targets=[{"id": "goon", "distance_m": 10, "defender": {"reaction": 3, "body": 3}}],
        bystanders=[{"id": "goon", "position": {"x": 0, "y": 10}}],
        dice={
            "attack": [5, 5, 5, 1, 2, 2, 2],
            "defense:goon": [5, 2, 2],
            "scatter_direction": [1],
            "scatter": [3, 3, 2],
        },
    )
    status, thrown = await post(client, f"{base}/attacks", body)
    assert status == 201, thrown
    result = thrown["result"]
    assert result["pending_grenade"] == "g1" and result["blast"] is None
    assert result["targets"][0]["net_hits"] == 2
    assert result["scatter"]["landed"] == {"x": 0.0, "y": 14.0}
    view = await (await client.get(base)).json()
    [held] = view["combat"]["pending"]
    assert (held["id"], held["point"], held["score"]) == ("g1", {"x": 0.0, "y": 14.0}, 12)
    zones = await (await client.get(f"{base}/zones")).json()
    # Fragmentation 12 -1/m hurts within 12 m of where it lies.
    assert [(z["id"], z["shape"], z["radius_m"]) for z in zones["zones"]] == [
        ("g1", "circle", 12.0)
    ]
    # goon's phase in the throw's own pass: nothing yet.
    status, advanced = await post(client, f"{base}/advance", {"to": "action_phase"})
    assert status == 201, advanced
    assert advanced["result"]["went_off"] == []
    # goon runs to (0, 17), 3 m from the grenade.
    move = await client.post(f"{base}/actors/goon/move", json={"position": {"x": 0, "y": 17}})
    assert move.status == 201, await move.text()
    # A grenade's circle is no zone to test against: moving into it asks for no test.
    moved = await move.json()
    assert moved["result"].get("must_test", []) == []
    assert zones["zones"][0]["tests"] is False
    status, problem = await post(client, f"{base}/zones/g1/tests", {"actor": "goon"})
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "zone-without-test"), problem
    # Pass 2 begins with sam's phase: it goes off. goon: 12 - 3 = 9 DV; impact armor 1 + AP 5
    # = 6, 9 > 6: Physical; Body 3 + 6 = 9 dice. sam, 14 m off: 12 - 14 < 0, not hit.
    status, advanced = await post(client, f"{base}/advance", {"to": "action_phase"})
    assert status == 201, advanced
    assert advanced["result"]["turn"]["initiative_pass"] == 2
    [blast] = advanced["result"]["went_off"]
    assert (blast["kind"], blast["grenade"], blast["thrower"]) == ("sr4_blast", "g1", "sam")
    [hit] = blast["hits"]
    assert (hit["actor"], hit["distance_m"], hit["dv"], hit["armor"], hit["track"]) == (
        "goon",
        3.0,
        9,
        6,
        "physical",
    )
    assert hit["soak"]["pool"] == 9
    assert hit["boxes"] == 9 - hit["soak_hits"]
    assert [d["step"] for d in blast["dice"]] == ["soak:goon"]
    assert advanced["changes"]["combat"]["pending"] == []
    # Everyone sees it: the advance's event carries the blast.
    events = await (await client.get(f"{base}/events")).json()
    last = events["events"][-1]
    assert last["type"] == "advance"
    assert last["result"]["went_off"][0]["hits"][0]["actor"] == "goon"
    assert (await (await client.get(f"{base}/zones")).json())["zones"] == []


async def test_a_grenade_in_a_room_of_four_walls_rebounds(client: Any) -> None:
    # A 10 m room, walls of armor 20 (the wave reaches each at 12 - 5 = 7, doubled 14: they
    # hold). An airburst fragmentation grenade at its centre (5, 5): 1 hit on the success test,
    # 1D6 = 2 m less 2 m: on the point, no hit left over.
    # goon at (5, 7): out 2 m, 10; back off the north wall 8 m, 4; off the west and east walls
    # 10.2 m, 2 each; the south wall's is spent: 18, the chunky salsa effect. Impact armor 0 + 5
    # = 5: Physical; Body 3 + 5 = 8 dice, 2 hits: 16 boxes.
    # sam at (5, 3), no Body given: out 2 m, 10; back off the south wall 4, west and east 2
    # each: 18 boxes, no test.
    encounter = await new_encounter(client, ruleset="sr4")
    walls = [
        {"id": "south", "start": {"x": 0, "y": 0}, "end": {"x": 10, "y": 0}},
        {"id": "east", "start": {"x": 10, "y": 0}, "end": {"x": 10, "y": 10}},
        {"id": "north", "start": {"x": 10, "y": 10}, "end": {"x": 0, "y": 10}},
        {"id": "west", "start": {"x": 0, "y": 10}, "end": {"x": 0, "y": 0}},
    ]
    body = throw(
        grenade={"type": "fragmentation", "airburst": True},
        origin={"x": 5, "y": 3},
        aim_point={"x": 5, "y": 5},
        barriers=[{**w, "armor": 20, "structure": 20} for w in walls],
        confined=True,
        bystanders=[
            {"id": "goon", "position": {"x": 5, "y": 7}, "body": 3, "impact_armor": 0},
            {"id": "sam", "position": {"x": 5, "y": 3}},
        ],
        dice={
            "attack": [5, 2, 2, 2, 2, 2, 2],
            "scatter_direction": [3],
            "scatter": [2],
            "soak:goon": [5, 5, 2, 2, 2, 2, 2, 2],
        },
    )
    status, answer = await post(client, f"/v1/encounters/{encounter}/attacks", body)
    assert status == 201, answer
    result = answer["result"]
    assert result["scatter"]["on_target"] and result["scatter"]["extra_dv"] == 0
    blast = result["blast"]
    assert [(b["barrier"], b["holds"], b["reflects"]) for b in blast["barriers"]] == [
        ("south", True, True),
        ("east", True, True),
        ("north", True, True),
        ("west", True, True),
    ]
    hits = {h["actor"]: h for h in blast["hits"]}
    goon, sam = hits["goon"], hits["sam"]
    assert (goon["dv_direct"], goon["dv_rebound"], goon["dv"]) == (10, 8, 18)
    assert (goon["track"], goon["soak_hits"], goon["boxes"]) == ("physical", 2, 16)
    assert (sam["dv"], sam["soak"], sam["boxes"]) == (18, None, 18)
    # The same room out in the open: no rebound.
    body["confined"] = False
    body["dice"] = {**body["dice"], "soak:goon": [5, 5, 2, 2, 2, 2, 2, 2]}
    status, answer = await post(client, f"/v1/encounters/{encounter}/attacks", body)
    assert status == 201, answer
    open_hits = {h["actor"]: h for h in answer["result"]["blast"]["hits"]}
    assert (open_hits["goon"]["dv"], open_hits["goon"]["boxes"]) == (10, 8)


async def test_bad_grenades_are_problems_naming_the_field(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    path = f"/v1/encounters/{encounter}/attacks"
    custom = throw(grenade={"type": "custom", "dv": 8}, aim_point={"x": 0, "y": 8})
    # A launcher grenade set to arm after 8 m, aimed 6 m off.
    launcher = throw(
        grenade={"type": "high_explosive", "delivery": "launcher", "arming_m": 8},
        weapon={**GRENADE_WEAPON, "category": "grenade_launcher"},
        aim_point={"x": 0, "y": 6},
    )
    for body, where, kind in [
        (custom, "$.grenade.damage_type", "grenade-incomplete"),
        (launcher, "$.aim_point", "below-minimum-range"),
    ]:
        response = await client.post(path, json=body)
        assert response.status == 422, await response.text()
        assert response.content_type == PROBLEM
        problem = await response.json()
        assert problem["path"] == where
        assert problem["type"].endswith(kind)


async def test_with_the_vtts_initiative_it_goes_off_at_the_throwers_next_phase(
    client: Any,
) -> None:
    # No service initiative: the VTT says whose phase it is. Thrown in sam's phase of pass 1
    # at (0, 10), 3 hits on the success test; 3D6 = 1 + 1 + 2 = 4 m less 2 m x 3: on the point,
    # 1 hit left over:
    # held at DV 13. goon's phase, then pass 2 and goon's phase: nothing; sam's: it goes off.
    # goon, 2 m away with no sheet: 13 - 2 = 11 boxes.
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    await on_scene(client, base, "goon", 0, 12)
    assert (await post(client, f"{base}/advance", {"to": "action_phase", "actor": "sam"}))[0] == 201
    body = throw(
        aim_point={"x": 0, "y": 10},
        bystanders=[{"id": "goon", "position": {"x": 0, "y": 12}}],
        dice={"attack": [5, 5, 5, 2, 2, 2, 2], "scatter_direction": [2], "scatter": [1, 1, 2]},
    )
    status, thrown = await post(client, f"{base}/attacks", body)
    assert status == 201, thrown
    assert thrown["result"]["pending_grenade"] == "g1"
    for move in (
        {"to": "action_phase", "actor": "goon"},
        {"to": "initiative_pass"},
        {"to": "action_phase", "actor": "goon"},
    ):
        status, advanced = await post(client, f"{base}/advance", move)
        assert status == 201 and advanced["result"]["went_off"] == [], advanced
    status, advanced = await post(client, f"{base}/advance", {"to": "action_phase", "actor": "sam"})
    assert status == 201, advanced
    [blast] = advanced["result"]["went_off"]
    assert (blast["dv"], [(h["actor"], h["dv"], h["boxes"]) for h in blast["hits"]]) == (
        13,
        [("goon", 11, 11)],
    )
