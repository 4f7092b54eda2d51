"""d100 over HTTP, numbers worked by hand: a called shot at close range through armour by
location, and a turn in which one shooter's suppressive fire weighs on the defense against
another's burst, the Shot Rate bonus stops at Recoil Control, and the action points add up to a
refused third attack that changes nothing. Every expected number is written here with its
working; the parity tests of test_d100_http.py only check the plumbing.

"the chapter" is rules-sources/003_e47222605a1f2969.txt; "README" is rules-sources/README.md,
"d100" (the core test: a success at or under the Success Target, hits 1 + (ST - roll) div 10);
"docs" is docs/rulesets/d100.md.
"""

from __future__ import annotations

from typing import Any

from tests import d100_requests as make
from tests.parity import mismatches
from tests.test_api import new_encounter

PROBLEM_TYPE = "https://firefight.invalid/problems/"


async def post(client: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(path, json=body)
    assert response.status == 201, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


async def test_a_called_shot_at_close_range_meets_the_legs_armour(store_client: Any) -> None:
    encounter = await new_encounter(store_client, ruleset="d100")
    body = make.attack(
        attacker=make.attacker(marksmanship=60, wound_modifier=-10),
        targets=[
            make.target(
                distance_m=5,
                location="right_leg",
                defender=make.defender(defense=40, armor_by_location={"right_leg": 6}),
            )
        ],
        dice={
            "attack": [31],
            "defense:goon-1": [40],
            "bonus:goon-1": [6, 1],
            "passive_defense:goon-1": [21],
        },
    )
    answer = await post(store_client, f"/v1/encounters/{encounter}/attacks", body)
    wrong = mismatches(
        answer["result"],
        {
            # Marksmanship 60, wounds -10, SR0 no bonus (the chapter, "Shot Rate"): 50; 5 m is
            # the weapon's close band, +10: 60. A 31: 1 + (60 - 31) div 10 = 3 hits.
            "success_target": 50,
            "targets[0].attack.success_target": 60,
            "targets[0].attack.hits": 3,
            # Active Defense 40, a 40: 1 + 0 = 1 hit (README: at the Success Target succeeds).
            "targets[0].defense.hits": 1,
            "targets[0].net_hits": 2,
            # README: 7 flat + bonus 6 + 1 + 2 net hits; Passive Defense 20, a 21 fails: 0.
            "targets[0].damage.bonus_hits": 7,
            "targets[0].damage.passive_defense_hits": 0,
            "targets[0].damage.damage": 16,
            # The called location's armour 6, less armour penetration 2: 4; 16 - 4 = 12.
            "targets[0].damage.location": "right_leg",
            "targets[0].damage.effective_armor": 4,
            "targets[0].damage.wound": 12,
            # SR0: 2 action points, 1 round.
            "action_points": 2,
            "ammo_left": 29,
        },
    )
    assert not wrong, wrong


async def test_suppression_weighs_on_the_defense_and_action_points_add_up(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(
        client, ruleset="d100", combat={"ruleset": "d100", "action_point_budget": 6}
    )
    base = f"/v1/encounters/{encounter}"
    goon = make.defender(position={"x": 30, "y": 0})

    # 1. Kat lays suppressive fire on the ganger's spot, 30 m off (the band to 50 m, 0).
    kat = await post(
        client,
        f"{base}/attacks",
        make.suppressive(
            attacker=make.attacker(id="kat", marksmanship=50),
            bystanders=[{"id": "goon-1", "position": {"x": 30, "y": 0}}],
            dice={"suppression": [12]},
        ),
    )
    wrong = mismatches(
        kat["result"],
        {
            # The chapter, "Suppressive Fire": Marksmanship 50, a 12: 1 + 38 div 10 = 4 hits;
            # -5 a hit: -20 on every test of those inside; 3 action points, 20 rounds.
            "zone.zone.hits": 4,
            "zone.zone.penalty": -20,
            "zone.zone.radius_m": 5,
            "zone.affected[actor=goon-1].inside": True,
            "action_points": 3,
            "rounds_fired": 20,
        },
    )
    assert not wrong, wrong

    # 2. Vex fires Shot Rate 3 at the ganger inside it.
    weapon = make.weapon(ammo=60)
    burst = await post(
        client,
        f"{base}/attacks",
        make.attack(
            weapon=weapon,
            shot_rate=3,
            targets=[make.target(distance_m=30, defender=goon)],
            dice={
                "attack": [44],
                "defense:goon-1": [8],
                "bonus:goon-1": [3, 3],
                "passive_defense:goon-1": [50],
                "location:goon-1": [5],
            },
        ),
    )
    wrong = mismatches(
        burst["result"],
        {
            # The chapter, "Shot Rate": SR3 +15 with Recoil Control 3; 12 rounds, 2 action
            # points. 50 + 15 = 65, medium band 0: a 44 is 1 + 21 div 10 = 3 hits.
            "success_target": 65,
            "targets[0].attack.hits": 3,
            "rounds_fired": 12,
            "ammo_left": 48,
            "action_points": 2,
            # "Effects of Suppression": the ganger's Active Defense 30 - 20 = 10, an 8: 1 hit.
            "targets[0].defense.success_target": 10,
            "targets[0].defense.hits": 1,
            "targets[0].net_hits": 2,
            # Passive Defense 20 - 20 = 0 always fails (docs): 0 hits. 7 + 6 + 2 = 15; d10 5:
            # torso (docs' table), armour 3 - 2 = 1; wound 14.
            "targets[0].damage.passive_defense_hits": 0,
            "targets[0].damage.damage": 15,
            "targets[0].damage.location": "torso",
            "targets[0].damage.wound": 14,
        },
    )
    assert not wrong, wrong

    # 3. Shot Rate 6 in the same turn: the bonus stops at Recoil Control 3 (+15, not +30):
    # 65 again, and a 66 fails: no hits, no defense. 3 more action points: 2 + 3 = 5.
    full = await post(
        client,
        f"{base}/attacks",
        make.attack(
            weapon={**weapon, "ammo": 48},
            shot_rate=6,
            targets=[make.target(distance_m=30, defender=goon)],
            dice={"attack": [66]},
        ),
    )
    wrong = mismatches(
        full["result"],
        {
            "success_target": 65,
            "targets[0].attack.success": False,
            "targets[0].attack.hits": 0,
            "targets[0].outcome": "miss",
            "targets[0].defense": None,
            "rounds_fired": 30,
            "ammo_left": 18,
            "action_points_spent": 5,
        },
    )
    assert not wrong, wrong

    # 4. A single shot costs 2 more: 7 is over the budget of 6, a 409 naming the field that
    # sets the cost (docs, "Action points"), and nothing changes.
    before = await (await client.get(base)).json()
    over = await client.post(
        f"{base}/attacks", json=make.attack(weapon={**weapon, "ammo": 18}, dice={"attack": [1]})
    )
    assert over.status == 409, await over.text()
    problem = await over.json()
    assert (problem["type"], problem["path"]) == (
        PROBLEM_TYPE + "action-points-exceeded",
        "$.shot_rate",
    )
    assert await (await client.get(base)).json() == before
