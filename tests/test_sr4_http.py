"""Every SR4 rule through the HTTP API: each case of tests/sr4_cases.py, sent as a VTT sends it
(actions first, then the attack with a seed), answers exactly what the rules core resolves for
it, and with given dice the numbers worked out by hand. Then what only the service does: the
phase's recoil and targets kept between requests, the zone and its test, Edge's re-roll of the
last attack, the scene filling an attack by actor names, and bad input as problems."""

from __future__ import annotations

from typing import Any

import pytest

from tests import sr4_requests as make
from tests.parity import Case, answers_as_resolved, answers_by_hand
from tests.sr4_cases import CASES, MISS8, miss
from tests.test_api import PROBLEM, new_encounter


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
async def test_each_rule_answers_over_http_as_the_rules_core_resolves_it(
    memory_client: Any, case: Case
) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    the hand-worked tests (below, and tests/test_sr4_http_by_hand.py)."""
    await answers_as_resolved(memory_client, "sr4", "sam", case.actions, case.body)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
async def test_each_rule_answers_over_http_the_numbers_worked_out_by_hand(
    memory_client: Any, case: Case
) -> None:
    await answers_by_hand(memory_client, "sr4", "sam", case)


async def _post(client: Any, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(path, json=body)
    return response.status, await response.json()


async def test_recoil_and_targets_count_per_action_phase(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    advance = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert advance.status == 201
    body = make.attack(weapon=make.RIFLE, mode="BF")
    status, first = await _post(client, f"{base}/attacks", {**body, "dice": {"attack": miss(6)}})
    assert status == 201, first
    other = {**body, "targets": [make.target(id="goon-2")], "dice": {"attack": miss(3)}}
    status, second = await _post(client, f"{base}/attacks", other)
    # 001: the second burst -3, the second target -2: 8 - 5 = 3.
    assert status == 201, second
    assert second["result"]["targets"][0]["attack"]["pool"] == 3
    status, third = await _post(client, f"{base}/attacks", {**body, "dice": {}})
    assert status == 409
    assert third["path"] == "$.mode"


async def test_suppressive_fire_zones_and_their_tests(client: Any) -> None:
    case = next(c for c in CASES if c.rule.startswith("suppressive fire"))
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    status, made = await _post(client, f"{base}/attacks", {**case.body, "dice": case.dice})
    assert status == 201, made
    zones = (await (await client.get(f"{base}/zones")).json())["zones"]
    assert [z["id"] for z in zones] == ["zone-1"] and zones[0]["hits"] == 2
    test = {
        "actor": "goon-1",
        "defender": make.defender(),
        "dice": {"zone_test:goon-1": [5, 5, 2, 2]},
    }
    status, tested = await _post(client, f"{base}/zones/zone-1/tests", test)
    # Reaction 3 + Edge 1: two hits meet the threshold of 2: not hit.
    assert status == 201, tested
    assert tested["result"]["pool"] == 4 and tested["result"]["hit"] is False
    status, _ = await _post(client, f"{base}/zones/zone-1/tests", {**test, "dice": {}})
    assert status == 409
    # The shooter's next action phase ends it.
    await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert (await (await client.get(f"{base}/zones")).json())["zones"] == []


async def test_edge_re_rolls_the_last_attack_over_http(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    body = make.attack(dice={"attack": [5, *miss(7)], "defense:goon-1": [5, 2, 2]})
    status, first = await _post(client, f"{base}/attacks", body)
    assert status == 201 and first["result"]["targets"][0]["outcome"] == "miss"
    reroll = {
        "actor": "sam",
        "action": "edge_reroll",
        "target": "goon-1",
        "dice": {"reroll:goon-1": [5, 5, *miss(5)], "soak:goon-1": MISS8},
    }
    status, again = await _post(client, f"{base}/actions", reroll)
    assert status == 201, again
    target = again["result"]["attack"]["targets"][0]
    assert (target["attack"]["hits"], target["outcome"], target["damage"]["dv"]) == (3, "hit", 7)
    status, twice = await _post(client, f"{base}/actions", {**reroll, "dice": {}})
    assert status == 422 and twice["path"] == "$.target"


SAM = {
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {
        "ruleset": "sr4",
        "agility": 4,
        "intuition": 3,
        "reaction": 4,
        "body": 4,
        "edge": 2,
        "skill": 4,
        "weapons": [make.weapon()],
    },
}
GANGER = {
    "position": {"x": 12.0, "y": 0.0},
    "posture": {"cover": "partial"},
    "sheet": {"ruleset": "sr4", "reaction": 3, "body": 3, "ballistic_armor": 6, "impact_armor": 4},
}


async def test_the_scene_fills_an_attack_by_actor_names(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    for actor_id, actor in (("sam", SAM), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    named = {
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "targets": [{"id": "goon-1"}],
        "dice": {"attack": [5, 5, 2, 2, 2], "defense:goon-1": miss(3), "soak:goon-1": MISS8},
    }
    status, answer = await _post(client, f"{base}/attacks", named)
    # 12 m: medium -1; partial cover on the scene -2: 8 - 3 = 5 dice, 2 net: 7 DV.
    assert status == 201, answer
    target = answer["result"]["targets"][0]
    assert target["attack"]["pool"] == 5 and target["damage"]["dv"] == 7
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 14
    missing = await client.post(f"{base}/attacks", json={**named, "attacker": "nobody"})
    assert (missing.status, (await missing.json())["path"]) == (422, "$.attacker")


@pytest.mark.parametrize(
    ("body", "status", "path"),
    [
        (make.attack(mode="XX"), 400, "$.mode"),
        (make.attack(burst="sideways"), 400, "$.burst"),
        (make.attack(visibility={"vision": "x-ray"}), 400, "$.visibility.vision"),
        (make.attack(dice={"attack": [7]}), 400, '$.dice["attack"][0]'),
        (make.attack(mode="BF"), 422, "$.mode"),
        (make.attack(targets=[make.target(distance_m=61)]), 422, "$.targets[0].distance_m"),
        (make.attack(weapon={**make.weapon(), "choke": "wide"}), 422, "$.weapon.choke"),
    ],
)
async def test_bad_attacks_are_problems_naming_the_field(
    memory_client: Any, body: dict[str, Any], status: int, path: str
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr4")
    response = await memory_client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == status, await response.text()
    assert response.content_type == PROBLEM
    assert (await response.json())["path"] == path


async def test_every_action_is_accepted(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr4")
    actions = f"/v1/encounters/{encounter}/actions"
    for action in (
        {"action": "take_aim"},
        {"action": "take_aim", "image_magnification": True, "target": "goon-1"},
        {"action": "full_defense"},
        {"action": "reload", "weapon": "predator", "rounds": 15},
        {"action": "change_choke", "weapon": "remington", "choke": "wide"},
        {"action": "drop_prone"},
        {"action": "take_cover"},
        {"action": "move"},
        {"action": "other"},
        {"action": "delay_action"},
    ):
        status, answer = await _post(memory_client, actions, {"actor": "sam", **action})
        assert status == 201, (action, answer)
    combat = (await (await memory_client.get(f"/v1/encounters/{encounter}")).json())["combat"]
    assert combat["actors"]["sam"]["chokes"] == {"remington": "wide"}
    assert combat["actors"]["sam"]["full_defense"] is True
    status, bad = await _post(memory_client, actions, {"actor": "sam", "action": "reload"})
    assert (status, bad["path"]) == (422, "$.weapon")


async def test_the_rulesets_list_shows_sr4(client: Any) -> None:
    body = await (await client.get("/v1/rulesets")).json()
    sr4 = next(r for r in body["rulesets"] if r["id"] == "sr4")
    assert sr4["dice"] == "d6_pool"
    assert sr4["firing_modes"] == ["SS", "SA", "BF", "LB", "FB", "suppressive"]
    assert sr4["zone_shapes"] == ["triangle", "circle"]
    assert {"take_aim", "full_defense", "edge_reroll", "change_choke"} <= set(sr4["actions"])
    assert sr4["initiative"]["ties"] == ["edge", "base", "reaction"]
    document = await (await client.get("/openapi.json")).json()
    for name in ("SR4AttackAsk", "SR4AttackResult", "SR4ActionRequest", "SR4State", "SR4Sheet"):
        assert name in document["components"]["schemas"], name


async def test_the_scene_fills_suppressive_fire_and_keeps_the_guns_rounds(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    gunner = {**SAM, "sheet": {**SAM["sheet"], "weapons": [make.RIFLE]}}
    prone = {**GANGER, "position": {"x": 15.0, "y": 0.0}, "posture": {"prone": True}}
    standing = {**GANGER, "position": {"x": 10.0, "y": 0.0}, "posture": {}}
    for actor_id, actor in (("sam", gunner), ("goon-1", standing), ("goon-2", prone)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    body = {
        "attacker": "sam",
        "weapon": "ak",
        "mode": "suppressive",
        "zone": {"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
        "dice": {"suppression": [5, *miss(7)]},
    }
    status, answer = await _post(client, f"{base}/attacks", body)
    assert status == 201, answer
    affected = {a["actor"]: a for a in answer["result"]["zone"]["affected"]}
    # Both stand in the triangle; the prone one is not at risk (001).
    assert affected["goon-1"]["must_test"] is True
    assert (affected["goon-2"]["inside"], affected["goon-2"]["must_test"]) == (True, False)
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 10  # 30 - 20
    # A zone test by name: the sheet's Reaction 3 + Edge 0.
    test = {"actor": "goon-1", "dice": {"zone_test:goon-1": [5, 2, 2]}}
    status, tested = await _post(client, f"{base}/zones/zone-1/tests", test)
    assert status == 201, tested
    assert (tested["result"]["pool"], tested["result"]["hit"]) == (3, False)
    # The shooter's next action (a reload) ends its zone.
    reload = {"actor": "sam", "action": "reload", "weapon": "ak", "rounds": 30}
    status, loaded = await _post(client, f"{base}/actions", reload)
    assert status == 201 and loaded["result"]["ammo_left"] == 30
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 30
    assert (await (await client.get(f"{base}/zones")).json())["zones"] == []


async def test_the_service_runs_sr4_initiative_and_per_phase_recoil_follows_it(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    rolls = {
        "actors": [
            {"actor": "sam", "reaction": 4, "intuition": 3, "edge": 2, "passes": 2},
            {"actor": "goon-1", "reaction": 3, "intuition": 3, "edge": 1},
        ],
        # SR4 core, Initiative: 4 + 3 = 7, and the hits of 7 dice (2): 9; 3 + 3 + 1 hit: 7.
        "dice": {"initiative:sam": [5, 6, 1, 1, 1, 2, 2], "initiative:goon-1": [5, *miss(5)]},
    }
    status, started = await _post(client, f"{base}/initiative", rolls)
    assert status == 201, started
    entries = [(e["actor"], e["score"]) for e in started["result"]["entries"]]
    assert entries == [("sam", 9), ("goon-1", 7)]
    assert started["result"]["current"] == "sam"
    body = make.attack(dice={"attack": MISS8})
    assert (await _post(client, f"{base}/attacks", body))[0] == 201
    status, second = await _post(client, f"{base}/attacks", {**body, "dice": {"attack": miss(7)}})
    # The second shot of sam's phase: -1 (001).
    assert status == 201, second
    assert second["result"]["recoil"]["shot_in_phase"] == 2
    # Two simple actions fill the phase: a third is refused.
    status, _ = await _post(client, f"{base}/attacks", {**body, "dice": {}})
    assert status == 409


async def test_one_long_burst_and_one_single_shot_a_phase_over_http(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    long = make.attack(attacker=make.attacker(skill=6), weapon=make.RIFLE, mode="LB")
    assert (await _post(client, f"{base}/attacks", {**long, "dice": {"attack": miss(5)}}))[0] == 201
    again = {**long, "same_phase": True, "dice": {}}
    status, problem = await _post(client, f"{base}/attacks", again)
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "phase-full")
    short = {**again, "mode": "BF", "dice": {"attack": miss(7)}}
    # 10 - 3: a short burst after the long one, the phase's second.
    status, answer = await _post(client, f"{base}/attacks", short)
    assert status == 201 and answer["result"]["targets"][0]["attack"]["pool"] == 7
    single = make.attack(weapon=make.weapon(modes=["SS"]), mode="SS", dice={"attack": MISS8})
    assert (await _post(client, f"{base}/attacks", single))[0] == 201
    status, _ = await _post(client, f"{base}/attacks", {**single, "same_phase": True})
    assert status == 409


async def test_each_earlier_defense_takes_a_die_over_http(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    hit = {"attack": [5, *miss(7)], "defense:goon-1": miss(3), "soak:goon-1": MISS8}
    assert (await _post(client, f"{base}/attacks", make.attack(dice=hit)))[0] == 201
    second = make.attack(dice={**hit, "defense:goon-1": miss(2)})
    status, answer = await _post(client, f"{base}/attacks", second)
    assert status == 201, answer
    defense = answer["result"]["targets"][0]["defense_modifiers"]
    assert {"source": "1 earlier defense(s) since its last action phase", "value": -1} in defense
    await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "goon-1"})
    combat = (await (await client.get(base)).json())["combat"]
    assert combat["actors"]["goon-1"].get("defenses", 0) == 0
