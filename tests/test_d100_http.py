"""The d100 ruleset through the HTTP API: each rule's case answers exactly what the rules core
resolves, and what only the service does (budgets, zones as events, zone tests, refusals)."""

from __future__ import annotations

from typing import Any

import pytest

from tests import d100_requests as make
from tests.parity import answers_as_resolved
from tests.test_api import new_encounter

SHOTGUN = make.weapon(id="coach-gun", shot_rate=0, ammo=2, double_barreled=True)

# (rule, actions taken first, the attack)
CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
    ("single shot", [], make.attack()),
    ("shot rate above recoil control", [], make.attack(shot_rate=5)),
    (
        "modifiers",
        [],
        make.attack(
            attacker=make.attacker(wound_modifier=-10),
            aim=10,
            modifiers=[{"source": "smartlink", "value": 10}],
            targets=[make.target(distance_m=80, visibility=-10, location="head")],
        ),
    ),
    (
        "multi-target fire",
        [],
        make.attack(
            shot_rate=3,
            targets=[
                make.target(id="a", share_percent=60, distance_m=5),
                make.target(id="b", share_percent=40, distance_m=120),
            ],
        ),
    ),
    (
        "double barrels",
        [],
        make.attack(weapon=SHOTGUN, both_barrels=True, targets=[make.target(distance_m=3)]),
    ),
    (
        "after a reload",
        [{"action": "reload", "weapon": {"id": "smg", "method": "magazine", "capacity": 30}}],
        make.attack(shot_rate=1),
    ),
    (
        "suppressive fire",
        [],
        make.suppressive(bystanders=[{"id": "x", "position": {"x": 31, "y": 2}}]),
    ),
]


@pytest.mark.parametrize(("rule", "actions", "body"), CASES, ids=[c[0] for c in CASES])
async def test_each_rule_answers_over_http_as_the_rules_core_resolves_it(
    client: Any, rule: str, actions: list[dict[str, Any]], body: dict[str, Any]
) -> None:
    await answers_as_resolved(client, "d100", "vex", actions, body)


async def test_the_documents_numbers_over_http(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="d100")
    # Recoil Control 3 at SR4: +15, and the full 3 action points and 18 rounds.
    response = await client.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(shot_rate=4, dice={"attack": [100]}),
    )
    result = (await response.json())["result"]
    assert {"source": "Shot Rate 4 (+5 a point up to Recoil Control 3)", "value": 15} in result[
        "modifiers"
    ]
    assert (result["action_points"], result["rounds_fired"], result["ammo_left"]) == (3, 18, 12)
    # 7 + 2d6 becomes 7 + 4d6 with both barrels.
    response = await client.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(
            attacker=make.attacker(id="kim"),
            weapon=SHOTGUN,
            both_barrels=True,
            targets=[make.target(defender={}, location="torso")],
            dice={"attack": [1], "bonus:goon-1": [6, 6, 6, 6]},
        ),
    )
    assert response.status == 201, await response.text()
    damage = (await response.json())["result"]["targets"][0]["damage"]
    assert (damage["flat"], damage["bonus_dice"], damage["bonus_hits"]) == (7, 4, 24)


async def test_a_budget_set_at_creation_refuses_the_action_over_it_and_changes_nothing(
    client: Any,
) -> None:
    encounter = await new_encounter(
        client, ruleset="d100", combat={"ruleset": "d100", "action_point_budget": 4}
    )
    base = f"/v1/encounters/{encounter}"
    for _ in range(2):
        response = await client.post(f"{base}/attacks", json=make.attack(dice={"attack": [100]}))
        assert response.status == 201
    before = await (await client.get(base)).json()
    assert before["combat"]["actors"] == {"vex": {"action_points_spent": 4}}
    over = await client.post(
        f"{base}/actions", json={"actor": "vex", "action": "move", "action_points": 1}
    )
    assert over.status == 409
    assert over.content_type == "application/problem+json"
    problem = await over.json()
    assert problem["type"].endswith("/action-points-exceeded")
    assert problem["path"] == "$.action_points"
    assert (await (await client.get(base)).json())["version"] == before["version"]
    # The actor's next turn starts afresh.
    await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "vex"})
    again = await client.post(
        f"{base}/actions", json={"actor": "vex", "action": "move", "action_points": 1}
    )
    assert again.status == 201
    assert (await again.json())["result"]["action_points_spent"] == 1


async def test_suppression_zones_are_events_and_zone_tests_resolve_against_them(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset="d100")
    base = f"/v1/encounters/{encounter}"
    fired = await client.post(f"{base}/attacks", json=make.suppressive(dice={"suppression": [25]}))
    assert fired.status == 201, await fired.text()
    zones = (await (await client.get(f"{base}/zones")).json())["zones"]
    assert [(z["id"], z["shape"], z["radius_m"], z["penalty"]) for z in zones] == [
        ("zone-1", "circle", 5.0, -15)
    ]
    tested = await client.post(
        f"{base}/zones/zone-1/tests",
        json={
            "actor": "runner",
            "athletics": 60,
            "defender": {"armor": 3},
            "dice": {"zone_test:runner": [50], "bonus:runner": [3, 4], "location:runner": [1]},
        },
    )
    assert tested.status == 201, await tested.text()
    damage = (await tested.json())["result"]["damage"]
    assert (damage["damage"], damage["location"], damage["wound"]) == (14, "head", 13)
    # The shooter's next turn ends the zone, and the event says so.
    advanced = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "vex"})
    assert advanced.status == 201
    events = (await (await client.get(f"{base}/events")).json())["events"]
    assert events[1]["zones_started"][0]["center"] == {"x": 30.0, "y": 0.0}
    assert events[-1]["zones_ended"] == ["zone-1"]
    gone = await client.post(f"{base}/zones/zone-1/tests", json={"actor": "runner", "athletics": 1})
    assert gone.status == 404


@pytest.mark.parametrize(
    ("body", "status", "path"),
    [
        (make.attack(shot_rate=7), 400, "$.shot_rate"),
        (make.attack(weapon=make.weapon(ammo=10), shot_rate=4), 422, "$.weapon.ammo"),
        (
            make.attack(
                targets=[
                    make.target(id="a", share_percent=50),
                    make.target(id="b", share_percent=50),
                ]
            ),
            422,
            "$.shot_rate",
        ),
        (make.attack(targets=[make.target(distance_m=500)]), 422, "$.targets[0].distance_m"),
        (make.attack(weapon={**make.weapon(), "range_bands": []}), 400, "$.weapon.range_bands"),
        (make.attack(mode="SA"), 400, "$.mode"),
        (make.attack(dice={"attack": [101]}), 400, '$.dice["attack"][0]'),
    ],
)
async def test_bad_attacks_are_refused_naming_the_field(
    client: Any, body: dict[str, Any], status: int, path: str
) -> None:
    encounter = await new_encounter(client, ruleset="d100")
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == status, await response.text()
    assert response.content_type == "application/problem+json"
    assert (await response.json())["path"] == path


async def test_each_encounter_takes_its_own_rulesets_bodies(client: Any) -> None:
    d100 = await new_encounter(client, ruleset="d100")
    sr5 = await new_encounter(client)
    to_sr5 = await client.post(f"/v1/encounters/{sr5}/attacks", json=make.attack())
    assert to_sr5.status == 400
    sr5_action = await client.post(
        f"/v1/encounters/{d100}/actions", json={"actor": "vex", "action": "take_aim"}
    )
    assert sr5_action.status == 400
    assert (await sr5_action.json())["path"] == "$.action"
    # No d100 action rolls: dice given to one are a mistake, said as such.
    dice = await client.post(
        f"/v1/encounters/{d100}/actions",
        json={"actor": "vex", "action": "free_action", "dice": {"attack": [5]}},
    )
    assert dice.status == 400
    assert "rolls no dice" in (await dice.json())["detail"]
    wrong_state = await client.post(
        "/v1/encounters", json={"ruleset": "d100", "combat": {"ruleset": "sr5"}}
    )
    assert wrong_state.status == 422
    assert (await wrong_state.json())["path"] == "$.combat.ruleset"


async def test_the_rulesets_list_says_what_d100_does(client: Any) -> None:
    body = await (await client.get("/v1/rulesets")).json()
    d100 = next(r for r in body["rulesets"] if r["id"] == "d100")
    assert d100["dice"] == "d100"
    assert d100["zone_shapes"] == ["circle"]
    assert {"reload", "move", "other", "free_action"} == set(d100["actions"])
    assert "attack:<target id>" in d100["dice_steps"]
