"""The d100 ruleset through the HTTP API: each rule's case answers exactly what the rules core
resolves, and with given dice the numbers worked out by hand; and what only the service does
(budgets, zones as events, zone tests, refusals)."""

from __future__ import annotations

from typing import Any

import pytest

from tests import d100_requests as make
from tests.conftest import once_per_store, refusals_once_per_store
from tests.parity import Case, answers_as_resolved, answers_by_hand
from tests.test_api import new_encounter

SHOTGUN = make.weapon(id="coach-gun", shot_rate=0, ammo=2, double_barreled=True)

# The builders (tests/d100_requests.py): Marksmanship 50, Recoil Control 3; an SMG of 7 + 2d6,
# armor penetration 2, Shot Rate 6, 30 rounds, bands +10 to 10 m, 0 to 50 m, -20 to 200 m; a
# defender of Active Defense 30, Passive Defense 20, armor 3, 20 m away (0). The core test
# (README, "d100"): a roll at or under the Success Target succeeds with 1 + (ST - roll) div 10
# hits. Damage (README): flat + bonus hits + net hits - Passive Defense hits, then armor less
# armor penetration: 3 - 2 = 1 effective. Hit location d10 (docs): 1 head, 2 right arm, 3 left
# arm, 4-8 torso, 9 right leg, 10 left leg. "the chapter" is
# rules-sources/003_e47222605a1f2969.txt.
CASES: list[Case] = [
    Case(
        "single shot",
        [],
        make.attack(),
        dice={
            "attack": [23],
            "defense:goon-1": [28],
            "bonus:goon-1": [4, 5],
            "passive_defense:goon-1": [15],
            "location:goon-1": [1],
        },
        expected={
            # The chapter, "Shot Rate": SR0 is a single shot, 2 action points, 1 round.
            "shot_rate": 0,
            "action_points": 2,
            "action_points_spent": 2,
            "rounds_fired": 1,
            "ammo_left": 29,  # 30 - 1
            "success_target": 50,  # Marksmanship 50, no Shot Rate bonus
            "targets[0].range_band": "medium",  # 20 m: the band to 50 m, 0
            "targets[0].attack.success_target": 50,
            "targets[0].attack.hits": 3,  # 1 + (50 - 23) div 10
            "targets[0].defense.success_target": 30,
            "targets[0].defense.hits": 1,  # 1 + (30 - 28) div 10
            "targets[0].net_hits": 2,  # 3 - 1
            "targets[0].outcome": "hit",
            "targets[0].damage.bonus_hits": 9,  # 4 + 5
            "targets[0].damage.passive_defense.success_target": 20,
            "targets[0].damage.passive_defense_hits": 1,  # 1 + (20 - 15) div 10
            "targets[0].damage.damage": 17,  # 7 + 9 + 2 - 1
            "targets[0].damage.location": "head",  # d10: 1
            "targets[0].damage.armor": 3,
            "targets[0].damage.effective_armor": 1,  # 3 - 2
            "targets[0].damage.wound": 16,  # 17 - 1
        },
        combat={"actors.vex.action_points_spent": 2},
    ),
    Case(
        "shot rate above recoil control",
        [],
        make.attack(shot_rate=5),
        dice={
            "attack": [65],
            "defense:goon-1": [31],
            "bonus:goon-1": [1, 1],
            "passive_defense:goon-1": [21],
            "location:goon-1": [5],
        },
        expected={
            # The chapter, "Shot Rate": +5 a point, but none above Recoil Control 3: +15; the
            # full cost of SR5 is paid: 3 action points, 24 rounds.
            "modifiers[1].value": 15,
            "success_target": 65,  # 50 + 15
            "action_points": 3,
            "rounds_fired": 24,
            "ammo_left": 6,  # 30 - 24
            "targets[0].attack.hits": 1,  # 1 + (65 - 65) div 10
            "targets[0].defense.success": False,  # 31 over 30
            "targets[0].defense.hits": 0,
            "targets[0].net_hits": 1,
            "targets[0].damage.bonus_hits": 2,
            "targets[0].damage.passive_defense_hits": 0,  # 21 over 20
            "targets[0].damage.damage": 10,  # 7 + 2 + 1
            "targets[0].damage.location": "torso",  # d10: 5
            "targets[0].damage.wound": 9,  # 10 - 1
        },
    ),
    Case(
        "modifiers",
        [],
        make.attack(
            attacker=make.attacker(wound_modifier=-10),
            aim=10,
            modifiers=[{"source": "smartlink", "value": 10}],
            targets=[make.target(distance_m=80, visibility=-10, location="head")],
        ),
        dice={
            "attack": [1],
            "defense:goon-1": [30],
            "bonus:goon-1": [6, 6],
            "passive_defense:goon-1": [20],
        },
        expected={
            # The chapter, "Multi-Target Fire": wounds and modifiers of the whole attack first,
            # then the target's own (range, visibility).
            "modifiers[source=wounds].value": -10,
            "modifiers[source=aim].value": 10,
            "modifiers[source=smartlink].value": 10,
            "success_target": 60,  # 50 - 10 + 10 + 10
            "targets[0].range_band": "long",  # 80 m: the band to 200 m, -20
            "targets[0].modifiers[0].value": -20,
            "targets[0].modifiers[source=visibility].value": -10,
            "targets[0].attack.success_target": 30,  # 60 - 20 - 10
            "targets[0].attack.hits": 3,  # 1 + (30 - 1) div 10
            "targets[0].defense.hits": 1,  # 1 + (30 - 30) div 10
            "targets[0].net_hits": 2,
            "targets[0].damage.bonus_hits": 12,
            "targets[0].damage.passive_defense_hits": 1,  # 1 + (20 - 20) div 10
            "targets[0].damage.damage": 20,  # 7 + 12 + 2 - 1
            "targets[0].damage.location": "head",  # called: no d10 rolled
            "targets[0].damage.wound": 19,  # 20 - 1
        },
    ),
    Case(
        "multi-target fire",
        [],
        make.attack(
            shot_rate=3,
            targets=[
                make.target(id="a", share_percent=60, distance_m=5),
                make.target(id="b", share_percent=40, distance_m=120),
            ],
        ),
        dice={
            "attack:a": [9],
            "defense:a": [25],
            "bonus:a": [2, 3],
            "passive_defense:a": [100],
            "location:a": [10],
            "attack:b": [6],
            "defense:b": [25],
        },
        expected={
            # The chapter, "Multi-Target Fire": the whole Success Target 50 + 15 (SR3, RC 3)
            # divided 60 / 40, then each target's range.
            "success_target": 65,
            "action_points": 2,
            "rounds_fired": 12,
            "ammo_left": 18,  # 30 - 12
            "targets[0].share": 39,  # 65 x 60 %
            "targets[1].share": 26,  # 65 x 40 %
            "targets[0].attack.success_target": 49,  # 39 + 10 (5 m: close)
            "targets[0].attack.hits": 5,  # 1 + (49 - 9) div 10
            "targets[0].defense.hits": 1,  # 1 + (30 - 25) div 10
            "targets[0].net_hits": 4,
            "targets[0].damage.bonus_hits": 5,
            "targets[0].damage.passive_defense_hits": 0,  # 100 over 20
            "targets[0].damage.damage": 16,  # 7 + 5 + 4
            "targets[0].damage.location": "left_leg",  # d10: 10
            "targets[0].damage.wound": 15,
            "targets[1].attack.success_target": 6,  # 26 - 20 (120 m: long)
            "targets[1].attack.hits": 1,  # 1 + (6 - 6) div 10
            "targets[1].defense.hits": 1,  # 1 + (30 - 25) div 10
            # README: 1 - 1 net hits, and ties go to the defender.
            "targets[1].outcome": "miss",
            "targets[1].net_hits": 0,
            "targets[1].damage": None,
        },
    ),
    Case(
        "double barrels",
        [],
        make.attack(weapon=SHOTGUN, both_barrels=True, targets=[make.target(distance_m=3)]),
        dice={
            "attack": [40],
            "defense:goon-1": [30],
            "bonus:goon-1": [1, 2, 3, 4],
            "passive_defense:goon-1": [20],
            "location:goon-1": [3],
        },
        expected={
            # The chapter, "Double-Barreled Shotguns": 2 shells, one roll, bonus dice doubled
            # (2d6 to 4d6); flat damage, hits and action points those of one shot.
            "both_barrels": True,
            "action_points": 2,
            "rounds_fired": 2,
            "ammo_left": 0,
            "targets[0].attack.success_target": 60,  # 50 + 10 (3 m: close)
            "targets[0].attack.hits": 3,  # 1 + (60 - 40) div 10
            "targets[0].defense.hits": 1,
            "targets[0].net_hits": 2,
            "targets[0].damage.flat": 7,
            "targets[0].damage.bonus_dice": 4,
            "targets[0].damage.bonus_hits": 10,  # 1 + 2 + 3 + 4
            "targets[0].damage.passive_defense_hits": 1,
            "targets[0].damage.damage": 18,  # 7 + 10 + 2 - 1
            "targets[0].damage.location": "left_arm",  # d10: 3
            "targets[0].damage.wound": 17,
        },
    ),
    Case(
        "after a reload",
        [{"action": "reload", "weapon": {"id": "smg", "method": "magazine", "capacity": 30}}],
        make.attack(shot_rate=1),
        dice={
            "attack": [55],
            "defense:goon-1": [50],
            "bonus:goon-1": [3, 3],
            "passive_defense:goon-1": [50],
            "location:goon-1": [9],
        },
        expected={
            # The chapter, "Reloading": a magazine swap is 1 action point; then SR1 (+5, 2
            # action points, 3 rounds): the turn has spent 1 + 2.
            "success_target": 55,
            "action_points": 2,
            "action_points_spent": 3,
            "rounds_fired": 3,
            "ammo_left": 27,  # the sheet's 30 - 3
            "targets[0].attack.hits": 1,  # 1 + (55 - 55) div 10
            "targets[0].defense.hits": 0,  # 50 over 30
            "targets[0].net_hits": 1,
            "targets[0].damage.passive_defense_hits": 0,  # 50 over 20
            "targets[0].damage.damage": 14,  # 7 + 6 + 1
            "targets[0].damage.location": "right_leg",  # d10: 9
            "targets[0].damage.wound": 13,
        },
        combat={"actors.vex.action_points_spent": 3},
    ),
    Case(
        "suppressive fire",
        [],
        make.suppressive(bystanders=[{"id": "x", "position": {"x": 31, "y": 2}}]),
        dice={"suppression": [25]},
        expected={
            # The chapter, "Suppressive Fire": 3 action points and 20 rounds; a Marksmanship
            # test to the centre, 30 m away (the band to 50 m, 0); no bonus dice.
            "action_points": 3,
            "rounds_fired": 20,
            "ammo_left": 10,  # 30 - 20
            "targets": [],
            "zone.test.success_target": 50,
            "zone.test.hits": 3,  # 1 + (50 - 25) div 10
            "zone.zone.hits": 3,
            "zone.zone.radius_m": 5.0,  # a 10 m circle
            "zone.zone.penalty": -15,  # -5 a hit ("Effects of Suppression")
            # x at (31, 2) is sqrt(1 + 4), about 2.2 m from the centre: inside, in the open.
            "zone.affected[0].inside": True,
            "zone.affected[0].must_test": True,
            "zone.affected[0].penalty": -15,
        },
        combat={"zones.zone-1.zone.hits": 3, "actors.vex.action_points_spent": 3},
    ),
]


# The rules are checked by these rows on the embedded store; a row that changes the combat
# state, and one that does not, on Redis and the cluster too (tests/conftest.py, once_per_store).
STORE_ROWS = once_per_store(CASES, [c.rule for c in CASES], kind=lambda case: bool(case.combat))


@pytest.mark.parametrize(("store_kind", "case"), STORE_ROWS)
async def test_each_rule_answers_over_http_as_the_rules_core_resolves_it(
    client: Any, case: Case
) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    the hand-worked tests (below, and tests/test_d100_http_by_hand.py)."""
    await answers_as_resolved(client, "d100", "vex", case.actions, case.body)


@pytest.mark.parametrize(("store_kind", "case"), STORE_ROWS)
async def test_each_rule_answers_over_http_the_numbers_worked_out_by_hand(
    client: Any, case: Case
) -> None:
    await answers_by_hand(client, "d100", "vex", case)


def test_every_rule_has_numbers_worked_out_by_hand() -> None:
    assert [c.rule for c in CASES if not c.expected or not c.dice] == []


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
    ("store_kind", "body", "status", "path"),
    refusals_once_per_store(
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
        ]
    ),
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
