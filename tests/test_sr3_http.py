"""Every SR3 rule through the HTTP API: the same case, sent as a VTT sends it (actions first,
then the attack with a seed), answers exactly what the rules core resolves for it; and with given
dice it answers the numbers worked out by hand. Then what only the service does: the Combat
Pool kept between requests (the 409 for an exhausted pool, the refresh of a new combat turn),
phases, the scene filling an attack by actor name, zone tests refused, and bad input.

"002" is rules-sources/002_65e09aecd368bc68.txt; "README" is rules-sources/README.md, "Shadowrun
3"; the SR3 tables are those docs/rulesets/sr3.md cites. The builders (tests/sr3_requests.py):
skill 4 and a Combat Pool of (5 + 4 + 3) / 2 = 6; an Ares Predator 9M SA with 15 rounds; a
ganger of Body 4, Combat Pool (4 + 3 + 3) / 2 = 5, armour jacket 5/3, 4 m away: heavy pistol
short range, standard vision TN 4 (002). Resistance: Body 4 against Power 9 - 5 = 4.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import sr3_requests as make
from tests import test_sr3_rules as rules
from tests.conftest import once_per_store, refusals_once_per_store
from tests.parity import MISSING, Case, answers_as_resolved, answers_by_hand, resolved
from tests.test_api import PROBLEM, new_encounter

MISS = [2, 2, 2, 2]
RIFLE = make.weapon(
    id="ak",
    category="assault_rifle",
    power=8,
    damage_level="M",
    modes=["SA", "BF", "FA"],
    ammo=30,
    recoil_compensation=1,
)

CASES: list[Case] = [
    Case(
        "semi-automatic shot, dodge and resistance",
        [],
        make.attack(pool=2, target=make.target(dodge=1, resist=1)),
        dice={
            "attack": [6, 5, 5, 4, 2, 1],
            "dodge:goon-1": [4],
            "resist:goon-1": [4, 2, 1, 1, 5],
        },
        expected={
            # 002: Fire Weapon (SA/BF) is a simple action; one round.
            "action": "simple",
            "rounds_fired": 1,
            "ammo_left": 14,
            # 002: 4 m with a heavy pistol is short range, standard vision 4.
            "target.range": "short",
            "attack.target_number": 4,
            "attack.dice": 6,  # skill 4 + 2 Combat Pool dice
            "attack.pool_dice": 2,
            "attack.successes": 4,  # 6, 5, 5, 4 at 4
            # SR3 crib sheet: the dodge is pool dice against 4; its success takes one away.
            "target.dodge.target_number": 4,
            "target.dodge_successes": 1,
            "target.net_successes": 3,
            # Body 4 + 1 pool die against 9 - 5 = 4: 4 and 5, 2 successes; 3 - 2 = 1 net: M.
            "target.damage.resist.target_number": 4,
            "target.damage.resist.dice": 5,
            "target.damage.resist.successes": 2,
            "target.damage.net_successes": 1,
            "target.damage.stages": 0,
            "target.damage.level": "M",
            "target.damage.boxes": 3,
            "target.damage.track": "physical",
            "target.outcome": "hit",
            # SR3 pools: Sam 6 - 2 = 4; the ganger 5 - 1 - 1 = 3.
            "combat_pool[actor=sam].left": 4,
            "combat_pool[actor=goon-1].spent": 2,
            "combat_pool[actor=goon-1].left": 3,
        },
        combat={"actors.sam.pool_left": 4, "actors.goon-1.pool_left": 3},
    ),
    Case(
        "burst",
        [],
        make.attack(weapon=RIFLE, mode="BF", target=make.target(distance_m=60)),
        dice={"attack": [6, 6, 5, 2, 6, 1], "resist:goon-1": [6, 2, 2, 3]},
        expected={
            # 002: 60 m with an assault rifle is medium, 5; SR3 modifiers: a burst +3 less
            # compensation 1 = +2: TN 7. README, Rule of Six: the first six is rolled again (6,
            # 12 reaches 7), the second too (1: 7): 12, 7, 5, 2: two successes.
            "action": "simple",
            "rounds_fired": 3,
            "ammo_left": 27,
            "recoil.modifier": 2,
            "attack.target_number": 7,
            "attack.totals": [12, 7, 5, 2],
            "attack.successes": 2,
            # SR3 (Burst Fire): 8M + 3 Power and one level: 11S. Resistance 11 - 5 = 6: of
            # the Body dice 6, 2, 2, 3 the six succeeds; 2 - 1 = 1 net, no stage: S.
            "target.damage.power": 11,
            "target.damage.resist.target_number": 6,
            "target.damage.resist.successes": 1,
            "target.damage.level": "S",
            "target.damage.boxes": 6,
        },
        combat={"actors.sam.rounds_in_phase": 3},
    ),
    Case(
        "full auto, overflow",
        [],
        make.attack(weapon={**RIFLE, "recoil_compensation": 9}, mode="FA", rounds=9),
        dice={"attack": [5, 5, 5, 5], "resist:goon-1": MISS},
        expected={
            # 002: Fire Weapon (SS/FA), complex; SR3 modifiers: +9 for 9 rounds, - 9: TN 4.
            "action": "complex",
            "rounds_fired": 9,
            "ammo_left": 21,
            "recoil.recoil": 9,
            "recoil.modifier": 0,
            "attack.successes": 4,
            # SR3 (Full Auto): 8 + 9 = 17 Power, M + 3 levels; 4 net: 2 more: 3 past D.
            "target.damage.power": 17,
            "target.damage.resist.target_number": 12,
            "target.damage.stages": 2,
            "target.damage.level": "D",
            "target.damage.boxes": 10,
            "target.damage.overflow": 3,
        },
    ),
    Case(
        "aimed and called shot, situation",
        [{"action": "take_aim"}, {"action": "take_aim"}, {"action": "take_aim"}],
        make.attack(
            called_shot=True,
            movement="walking",
            attacker=make.attacker(wounds="M"),
            target=make.target(cover="partial", movement="running"),
        ),
        dice={"attack": [6, 5, 2, 6, 6, 1, 1]},
        expected={
            # SR3 modifiers: aimed -1 a simple action, at most 4 / 2 = 2; called +4; attacker
            # walking +1; wounds M +2 (README); partial cover +4; target running +2:
            # 4 - 2 + 4 + 1 + 2 + 4 + 2 = 15.
            "attack.modifiers[source=aimed (2 simple actions)].value": -2,
            "attack.modifiers[source=called shot].value": 4,
            "attack.modifiers[source=attacker walking].value": 1,
            "attack.modifiers[source=wounds (M)].value": 2,
            "attack.modifiers[source=cover (partial)].value": 4,
            "attack.modifiers[source=target running].value": 2,
            "attack.target_number": 15,
            # README, Rule of Six: the first die 6, again 6, again 1: 13; the fourth 6, again
            # 1: 7. Neither reaches 15: no success.
            "attack.totals": [13, 5, 2, 7],
            "attack.successes": 0,
            "target.outcome": "miss",
        },
        combat={"actors.sam.aims": MISSING},  # the shot used the aim
    ),
    Case(
        "visibility",
        [],
        make.attack(
            visibility={"vision": "low_light_natural", "light": "minimal", "obscurant": "mist"}
        ),
        dice={"attack": MISS},
        expected={
            # SR3 visibility: minimal light +2 and mist +0 with natural low-light: 4 + 2.
            "attack.target_number": 6,
            "target.outcome": "miss",
        },
    ),
    Case(
        "rule of one",
        [],
        make.attack(sight="smartlink"),
        dice={"attack": [1, 1, 1, 1]},
        expected={
            # 002: smartlink at short range 2; README: every die a 1 fails the test.
            "attack.target_number": 2,
            "attack.rule_of_one": True,
            "attack.successes": 0,
            "target.outcome": "miss",
        },
    ),
    Case(
        "layered armour and its penalty",
        [],
        make.attack(
            target=make.target(
                resist=4,
                defender=make.defender(
                    armor=[
                        {"ballistic": 5, "impact": 3},
                        {"ballistic": 4, "impact": 3},
                        {"ballistic": 0, "impact": 2},
                    ]
                ),
            )
        ),
        dice={"attack": [5, 2, 2, 2], "resist:goon-1": [2, 2, 2, 2, 2, 2, 2, 1]},
        expected={
            # 002: ballistic 5 + 4 / 2 + 0 = 7; impact 3 + 3 / 2 + 2 / 2 = 5. 7 is below twice
            # Quickness 4 = 8: no penalty; the pool stays 5.
            "target.armor.ballistic": 7,
            "target.armor.impact": 5,
            "target.armor.pool_penalty": 0,
            # Power 9 - 7 = 2: Body 4 + 4 pool dice at 2: 7 successes; 1 - 7 = -6: 3 stages
            # down from M: no damage.
            "target.damage.resist.target_number": 2,
            "target.damage.resist.successes": 7,
            "target.damage.stages": -3,
            "target.damage.level": None,
            "target.damage.boxes": 0,
            "target.outcome": "resisted",
            "combat_pool[actor=goon-1].left": 1,
        },
    ),
    Case(
        "indirect launcher fire",
        [],
        make.attack(
            weapon=make.weapon(
                id="gl", category="grenade_launcher", power=10, damage_level="S", modes=["SS"]
            ),
            mode="SS",
            sight="smartlink_2",
            indirect=True,
            target=make.target(distance_m=140),
        ),
        dice={"attack": MISS},
        expected={
            # 002: 140 m is long for a grenade launcher; launch weapons 6(8): 8; indirect
            # fire's one modifier, the smartlink-2's -1: 7.
            "target.range": "long",
            "attack.target_number": 7,
            "action": "complex",
        },
    ),
    Case(
        "bow by strength",
        [],
        make.attack(
            attacker=make.attacker(strength=3),
            weapon=make.weapon(id="bow", category="bow", power=5, modes=["SS"], ammo=1),
            mode="SS",
            target=make.target(distance_m=25),
        ),
        dice={"attack": [6, 6, 3, 3], "resist:goon-1": [2, 2, 2, 2]},
        expected={
            # 002: a bow's medium band goes to STR x 10 = 30 m: 25 m is medium, 5.
            "target.range": "medium",
            "attack.target_number": 5,
            "attack.successes": 2,
            # Impact projectiles meet impact armour: 5 - 3 = 2; four 2s: 4 successes; 2 - 4
            # = -2: one stage down, L.
            "target.damage.armor": "impact",
            "target.damage.resist.target_number": 2,
            "target.damage.level": "L",
            "target.damage.boxes": 1,
            "ammo_left": 0,
        },
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
    the hand-worked tests (below, and tests/test_sr3_http_by_hand.py)."""
    await answers_as_resolved(client, "sr3", "sam", case.actions, case.body)


@pytest.mark.parametrize(("store_kind", "case"), STORE_ROWS)
async def test_each_rule_answers_over_http_the_numbers_worked_out_by_hand(
    client: Any, case: Case
) -> None:
    await answers_by_hand(client, "sr3", "sam", case)


def test_every_rule_has_numbers_worked_out_by_hand() -> None:
    assert [c.rule for c in CASES if not c.expected or not c.dice] == []


async def _attack(client: Any, encounter: str, body: dict[str, Any]) -> Any:
    return await client.post(f"/v1/encounters/{encounter}/attacks", json=body)


async def test_an_exhausted_combat_pool_is_a_409_until_the_next_combat_turn(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    body = make.attack(pool=4, dice={"attack": [2] * 8})
    assert (await _attack(client, encounter, body)).status == 201
    # 6 - 4 = 2 left: 3 more is a 409 saying so, naming the field.
    over = await _attack(client, encounter, make.attack(pool=3, dice={"attack": [2] * 7}))
    assert over.status == 409
    assert over.content_type == PROBLEM
    problem = await over.json()
    assert problem["path"] == "$.pool"
    assert problem["type"].endswith("combat-pool-exhausted")
    assert "2 Combat Pool dice left" in problem["detail"]
    # A pass does not refresh it; a combat turn does.
    advance = f"/v1/encounters/{encounter}/advance"
    assert (await client.post(advance, json={"to": "initiative_pass"})).status == 201
    assert (await _attack(client, encounter, make.attack(pool=3))).status == 409
    turn = await client.post(advance, json={"to": "combat_turn"})
    assert turn.status == 201
    assert (
        "sam: Combat Pool refreshed to 6 (2 were left)" in (await turn.json())["result"]["effects"]
    )
    again = await _attack(client, encounter, make.attack(pool=3, dice={"attack": [2] * 7}))
    assert again.status == 201, await again.text()
    combat = (await (await client.get(f"/v1/encounters/{encounter}")).json())["combat"]
    assert combat["actors"]["sam"]["pool_left"] == 3


async def test_recoil_and_targets_count_per_action_phase(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    advance = f"/v1/encounters/{encounter}/advance"
    assert (await client.post(advance, json={"to": "action_phase", "actor": "sam"})).status == 201
    first = await _attack(client, encounter, make.attack(dice={"attack": MISS}))
    assert (await first.json())["result"]["attack"]["target_number"] == 4
    second = await _attack(
        client, encounter, make.attack(target=make.target(id="goon-2"), dice={"attack": MISS})
    )
    # SR3 modifiers: the second SA shot of the phase +1, a second target +2: 4 + 3 = 7.
    result = (await second.json())["result"]
    assert result["attack"]["target_number"] == 7
    assert result["recoil"]["modifier"] == 1
    # The next action phase of Sam: both count afresh.
    assert (await client.post(advance, json={"to": "action_phase", "actor": "sam"})).status == 201
    third = await _attack(
        client, encounter, make.attack(target=make.target(id="goon-2"), dice={"attack": MISS})
    )
    assert (await third.json())["result"]["attack"]["target_number"] == 4


SAM = {
    "name": "Sam",
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {
        "ruleset": "sr3",
        "quickness": 5,
        "intelligence": 4,
        "willpower": 3,
        "skill": 4,
        "weapons": [make.weapon()],
    },
}
GANGER = {
    "name": "Ganger",
    "position": {"x": 12.0, "y": 0.0},
    "posture": {"running": True},
    "sheet": {
        "ruleset": "sr3",
        "body": 4,
        "quickness": 4,
        "intelligence": 3,
        "willpower": 3,
        "armor": [make.JACKET],
    },
}


async def test_the_scene_fills_an_attack_by_actor_names(client: Any) -> None:
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr3"})).json()
    base = f"/v1/encounters/{created['id']}"
    for actor_id, actor in (("sam", SAM), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    dice = {
        "attack": [6, 6, 5, 2, 2, 2, 1, 3],
        "dodge:goon-1": [5],
        "resist:goon-1": [2, 2, 2, 2, 2],
    }
    named = {
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "pool": 2,
        "target": {"id": "goon-1", "dodge": 1, "resist": 1},
        "dice": dice,
    }
    response = await client.post(f"{base}/attacks", json=named)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    # 12 m: heavy pistol medium, 5 (002); the ganger runs on the scene: +2 (SR3 modifiers):
    # TN 7. Skill 4 + 2 pool dice: the sixes again 1 and 3: 7 and 9, two successes. The
    # ganger's sheet: one dodge die (5 at 4) takes one; Body 4 + 1 against 9 - 5 = 4, no
    # success: 1 net, no stage: M.
    assert result["target"]["range"] == "medium"
    assert result["attack"]["target_number"] == 7
    assert result["attack"]["successes"] == 2
    assert result["target"]["net_successes"] == 1
    assert result["target"]["damage"]["resist"]["dice"] == 5
    assert result["target"]["damage"]["level"] == "M"
    explicit = make.attack(
        pool=2,
        target=make.target(distance_m=12, movement="running", cover="none", dodge=1, resist=1),
        dice=dice,
        seed=result["seed"],
    )
    explicit["attacker"] = {
        "id": "sam",
        "skill": 4,
        "quickness": 5,
        "intelligence": 4,
        "willpower": 3,
    }
    assert result == resolved("sr3", "sam", [], explicit)
    # The gun on the scene holds a round less; the Combat Pool is the state's.
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 14
    combat = (await (await client.get(base)).json())["combat"]
    assert combat["actors"]["sam"]["pool_left"] == 4
    # An actor the scene lacks, or a sheet without the numbers, is a 422 naming the field.
    missing = await client.post(f"{base}/attacks", json={**named, "attacker": "nobody"})
    assert (missing.status, (await missing.json())["path"]) == (422, "$.attacker")
    bare = await client.put(
        f"{base}/actors/goon-2", json={"sheet": {"ruleset": "sr3"}, "position": {"x": 1, "y": 0}}
    )
    assert bare.status == 200
    no_body = await client.post(
        f"{base}/attacks", json={**named, "target": {"id": "goon-2"}, "dice": {}}
    )
    assert (no_body.status, (await no_body.json())["path"]) == (422, "$.target.defender")


@pytest.mark.parametrize(
    ("store_kind", "body", "status", "path"),
    refusals_once_per_store(
        [
            (make.attack(mode="XX"), 400, "$.mode"),
            (make.attack(pool=-1), 400, "$.pool"),
            (make.attack(weapon=make.weapon(damage_level="Q")), 400, "$.weapon.damage_level"),
            (make.attack(sight="x-ray"), 400, "$.sight"),
            (make.attack(target=make.target(dodge=101)), 400, "$.target.dodge"),
            (make.attack(rounds=11, mode="FA"), 400, "$.rounds"),
            (make.attack(visibility={"light": "dusk"}), 400, "$.visibility.light"),
            (make.attack(dice={"attack": [7]}), 400, '$.dice["attack"][0]'),
            (make.attack(dice={"soak:goon-1": [3]}), 400, '$.dice["soak:goon-1"]'),
            (make.attack(dice={"attack": [5]}), 400, '$.dice["attack"]'),
            (make.attack(mode="BF"), 422, "$.mode"),
            (make.attack(pool=5), 422, "$.pool"),
            (make.attack(target=make.target(distance_m=61)), 422, "$.target.distance_m"),
            (
                {"attacker": "sam", "weapon": "predator", "mode": "SA", "target": {"id": "x"}},
                422,
                "$.attacker",
            ),
        ]
    ),
)
async def test_bad_attacks_are_problems_naming_the_field(
    client: Any, body: dict[str, Any], status: int, path: str
) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    response = await _attack(client, encounter, body)
    assert response.status == status, await response.text()
    assert response.content_type == PROBLEM
    assert (await response.json())["path"] == path


async def test_every_action_of_the_tables_is_accepted_and_a_bad_one_named(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    actions = f"/v1/encounters/{encounter}/actions"
    aim = await client.post(actions, json={"actor": "sam", "action": "take_aim"})
    assert aim.status == 201
    prone = await client.post(actions, json={"actor": "sam", "action": "drop_prone"})
    effects = (await prone.json())["result"]["effects"]
    assert effects == ["drop prone: free action", "aim lost (1 simple actions of aiming)"]
    bad = await client.post(actions, json={"actor": "sam", "action": "fly"})
    assert (bad.status, (await bad.json())["path"]) == (400, "$.action")
    dice = await client.post(
        actions, json={"actor": "sam", "action": "other", "dice": {"attack": [3]}}
    )
    assert dice.status == 400


async def test_sr3_has_no_zones_and_refuses_zone_tests(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    zones = await client.get(f"/v1/encounters/{encounter}/zones")
    assert (await zones.json())["zones"] == []
    test = await client.post(
        f"/v1/encounters/{encounter}/zones/zone-1/tests", json={"actor": "sam"}
    )
    assert test.status == 422
    assert test.content_type == PROBLEM
    problem = await test.json()
    assert problem["type"].endswith("no-zones")
    assert "sr3 has no suppression zones" in problem["detail"]


async def test_the_rulesets_list_and_the_contract_show_sr3(client: Any) -> None:
    body = await (await client.get("/v1/rulesets")).json()
    sr3 = next(r for r in body["rulesets"] if r["id"] == "sr3")
    assert sr3["dice"] == "d6_target_number"
    assert sr3["firing_modes"] == ["SS", "SA", "BF", "FA"]
    assert {"take_aim", "other", "delay_action", "reload_firearm"} <= set(sr3["actions"])
    assert sr3["zone_shapes"] == []
    assert sr3["dice_steps"] == ["attack", "dodge:<target id>", "resist:<target id>"]
    document = await (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for name in ("SR3AttackAsk", "SR3AttackResult", "SR3ActionRequest", "SR3State", "SR3Sheet"):
        assert name in schemas, name


# --- every table row through HTTP (the embedded store: the rows test the rules, not the store) ---


async def _target_number(client: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    encounter = await new_encounter(client, ruleset="sr3")
    response = await _attack(client, encounter, body)
    assert response.status == 201, await response.text()
    result: dict[str, Any] = (await response.json())["result"]
    return result["attack"]["target_number"], result


@pytest.mark.parametrize(("category", "distance", "band"), rules.range_cases())
async def test_every_range_table_row_over_http(
    memory_client: Any, category: str, distance: float, band: str
) -> None:
    tn, result = await _target_number(
        memory_client,
        make.attack(
            attacker=make.attacker(strength=rules.STRENGTH),
            weapon=rules.weapon_for(category),
            target=make.target(distance_m=distance),
            dice={"attack": MISS},
        ),
    )
    # 002: the band, and standard vision's number for it (launchers: 6(8) at long range).
    expected = rules.STANDARD_LAUNCH if category in rules.LAUNCHERS else rules.STANDARD
    assert (result["target"]["range"], tn) == (band, expected[band])


@pytest.mark.parametrize("sight", sorted(rules.SIGHT_ROWS))
@pytest.mark.parametrize("band", rules.BANDS)
@pytest.mark.parametrize("launch", [False, True], ids=["firearm", "launch weapon"])
async def test_every_sight_row_over_http(
    memory_client: Any, sight: str, band: str, launch: bool
) -> None:
    category, at = (
        ("grenade_launcher", rules.LAUNCHER_AT) if launch else ("heavy_pistol", rules.PISTOL_AT)
    )
    tn, _ = await _target_number(
        memory_client,
        make.attack(
            weapon=rules.weapon_for(category),
            target=make.target(distance_m=at[band]),
            sight=sight,
            dice={"attack": [1, 1, 1, 1]},
        ),
    )
    # 002, "RANGED ATTACK TARGET NUMBERS": the row's number, parentheses for launch weapons.
    assert tn == rules.sight_number(sight, band, launch)


@pytest.mark.parametrize("row", sorted(rules.VISIBILITY_ROWS))
@pytest.mark.parametrize("vision", rules.VISIONS)
async def test_every_visibility_cell_over_http(memory_client: Any, row: str, vision: str) -> None:
    condition = {"light": row} if row in rules.LIGHTS else {"obscurant": row}
    tn, _ = await _target_number(
        memory_client,
        make.attack(visibility={"vision": vision, **condition}, dice={"attack": MISS}),
    )
    # SR3 visibility: short range 4 + the cell.
    assert tn == 4 + rules.VISIBILITY_ROWS[row][rules.VISIONS.index(vision)]


@pytest.mark.parametrize(
    ("fields", "target_fields", "source", "value"),
    rules.SITUATIONS,
    ids=[s[2] for s in rules.SITUATIONS],
)
async def test_every_situation_modifier_over_http(
    memory_client: Any,
    fields: dict[str, Any],
    target_fields: dict[str, Any],
    source: str,
    value: int,
) -> None:
    tn, result = await _target_number(
        memory_client,
        make.attack(target=make.target(**target_fields), dice={"attack": MISS}, **fields),
    )
    modifiers = {m["source"]: m["value"] for m in result["attack"]["modifiers"]}
    assert modifiers[source] == value
    assert tn == max(2, 4 + value)


@pytest.mark.parametrize("action", [*rules.FREE, *rules.SIMPLE, *rules.COMPLEX, "other"])
async def test_every_action_over_http(memory_client: Any, action: str) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr3")
    response = await memory_client.post(
        f"/v1/encounters/{encounter}/actions", json={"actor": "sam", "action": action}
    )
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    kind = (
        "free action"
        if action in rules.FREE
        else "simple action"
        if action in rules.SIMPLE
        else "complex action"
        if action in rules.COMPLEX
        else "an action the tables do not name"
    )
    assert result["effects"][0].endswith(kind)
    assert result["action"] == action
