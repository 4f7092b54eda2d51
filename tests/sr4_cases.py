"""Every SR4 rule as one attack with given dice and the numbers worked out by hand: the rules
test resolves each (tests/test_sr4_rules.py), the HTTP test sends each (tests/test_sr4_http.py).

"001" is rules-sources/001_2cfc288dfef1df08.txt; "002" the weapon range table SR4 kept; the SR4
core tables are those docs/rulesets/sr4.md cites. The builders' defaults (tests/sr4_requests.py):
a pool of Agility 4 + Pistols 4 = 8; the Predator 5P AP -1; the ganger Reaction 3, Body 3,
ballistic 6 (5 after AP -1): a soak of 3 + 5 = 8 dice; 4 m, short range.
"""

from __future__ import annotations

from typing import Any

from tests import sr4_requests as make
from tests.parity import Case

MISS8 = [2] * 8


def miss(n: int) -> list[int]:
    return [2] * n


def pool_case(
    rule: str, pool: int, body: dict[str, Any], actions: Any = (), **expected: Any
) -> Case:
    """A modifier's case: the attack test's pool as worked out, every die a miss."""
    dice = {"attack": miss(pool)} if pool > 0 else {}
    return Case(
        rule,
        list(actions),
        body,
        dice=dice,
        expected={"targets[0].attack.pool": pool, "targets[0].outcome": "miss", **expected},
    )


CASES: list[Case] = [
    Case(
        "opposed test, net hits to DV, physical damage and soak",
        [],
        make.attack(),
        dice={
            "attack": [6, 5, 5, 2, 2, 1, 3, 3],
            "defense:goon-1": [5, 2, 2],
            "soak:goon-1": [5, 5, 1, 2, 2, 2, 2, 2],
        },
        expected={
            # 001 step 3: 3 hits against Reaction 3's 1: 2 net. Step 4: 5 + 2 = 7 against
            # 6 - 1 = 5: it exceeds, physical. Step 5: Body 3 + 5 = 8 dice, 2 hits: 5 boxes.
            "targets[0].attack.hits": 3,
            "targets[0].defense.pool": 3,
            "targets[0].defense_hits": 1,
            "targets[0].net_hits": 2,
            "targets[0].outcome": "hit",
            "targets[0].damage.dv": 7,
            "targets[0].damage.armor": 5,
            "targets[0].damage.armor_type": "ballistic",
            "targets[0].damage.track": "physical",
            "targets[0].damage.soak.pool": 8,
            "targets[0].damage.soak_hits": 2,
            "targets[0].damage.boxes": 5,
            "action": "simple",
            "ammo_left": 14,
        },
    ),
    Case(
        "a tie goes to the defender",
        [],
        make.attack(weapon=make.weapon(contact_effect="shock")),
        dice={"attack": [5, *miss(7)], "defense:goon-1": [5, 2, 2]},
        expected={
            "targets[0].outcome": "miss",
            "targets[0].contact": False,
            "targets[0].damage": None,
        },
    ),
    Case(
        "a tie is a grazing hit on the GM's rule: contact, no damage",
        [],
        make.attack(grazing=True, weapon=make.weapon(contact_effect="shock")),
        dice={"attack": [5, *miss(7)], "defense:goon-1": [5, 2, 2]},
        expected={
            "targets[0].outcome": "graze",
            "targets[0].contact": True,
            "targets[0].contact_effect": "shock",
            "targets[0].damage": None,
        },
    ),
    Case(
        "stun when the modified DV does not exceed the armour (equal)",
        [],
        make.attack(weapon=make.weapon(ap=0)),
        dice={"attack": [5, *miss(7)], "defense:goon-1": miss(3), "soak:goon-1": miss(9)},
        expected={
            # 5 + 1 net = 6 against armour 6: not exceeding, stun; soak 3 + 6 = 9.
            "targets[0].damage.dv": 6,
            "targets[0].damage.armor": 6,
            "targets[0].damage.track": "stun",
            "targets[0].damage.boxes": 6,
        },
    ),
    Case(
        "a stun weapon does stun",
        [],
        make.attack(weapon=make.weapon(damage_type="S", damage=9)),
        dice={"attack": [5, *miss(7)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={"targets[0].damage.dv": 10, "targets[0].damage.track": "stun"},
    ),
    Case(
        "impact armour for the attack that calls for it, ammunition DV and AP",
        [],
        make.attack(ammo="gel"),
        dice={"attack": [5, 5, *miss(6)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={
            # SR4 core, Ammunition: gel +0 DV, +2 AP, stun, impact: 4 - 1 + 2 = 5; 5 + 2 = 7.
            "targets[0].damage.armor_type": "impact",
            "targets[0].damage.armor": 5,
            "targets[0].damage.ap": 1,
            "targets[0].damage.dv": 7,
            "targets[0].damage.track": "stun",
        },
    ),
    Case(
        "a glitch is half or more ones",
        [],
        make.attack(),
        dice={
            "attack": [1, 1, 1, 1, 5, 2, 2, 2],
            "defense:goon-1": miss(3),
            "soak:goon-1": miss(8),
        },
        expected={
            "targets[0].attack.glitch": True,
            "targets[0].attack.critical_glitch": False,
            "targets[0].outcome": "hit",
        },
    ),
    pool_case(
        "a pool of 0 or less fails outright",
        0,
        make.attack(attacker=make.attacker(wound_modifier=-8)),
        **{"targets[0].attack.hits": 0, "modifiers[source=wound modifier].value": -8},
    ),
    pool_case(
        "range medium -1",
        7,
        make.attack(targets=[make.target(distance_m=10)]),
        **{"targets[0].range": "medium"},
    ),
    pool_case(
        "range long -3",
        5,
        make.attack(targets=[make.target(distance_m=30)]),
        **{"targets[0].range": "long"},
    ),
    pool_case(
        "range extreme -6",
        2,
        make.attack(targets=[make.target(distance_m=50)]),
        **{"targets[0].range": "extreme"},
    ),
    pool_case(
        "thrown weapons range by Strength",
        5,
        make.attack(
            attacker=make.attacker(strength=3),
            weapon=make.weapon(category="thrown_knife", damage=3, ap=0, modes=["SS"]),
            mode="SS",
            targets=[make.target(distance_m=8)],
        ),
        # 002: thrown knife to STR x 3 = 9 m is long.
        **{"targets[0].range": "long"},
    ),
    pool_case(
        "attacker running -2, gyro-stabilisation takes it off",
        7,
        make.attack(running=True, weapon=make.weapon(gyro=1)),
        **{
            "targets[0].attack_modifiers[source=attacker running].value": -2,
            "targets[0].attack_modifiers[source=gyro-stabilisation].value": 1,
        },
    ),
    pool_case("attacker in melee -3", 5, make.attack(in_melee=True)),
    pool_case("attacker in a moving vehicle -3", 5, make.attack(from_moving_vehicle=True)),
    pool_case("attacker firing from cover -1", 7, make.attack(from_cover=True)),
    pool_case("attacker wounded", 6, make.attack(attacker=make.attacker(wound_modifier=-2))),
    pool_case("off-hand weapon -2", 6, make.attack(off_hand=True)),
    pool_case("target in partial cover -2", 6, make.attack(targets=[make.target(cover="partial")])),
    pool_case("target in good cover -4", 4, make.attack(targets=[make.target(cover="good")])),
    pool_case(
        "a prone target 20 m away has good cover",
        3,
        make.attack(targets=[make.target(prone=True, distance_m=20)]),
        # 20 m is medium (-1) for a heavy pistol; prone from 20 m: good cover -4.
        **{"targets[0].attack_modifiers[source=good cover (prone, 20 m or more)].value": -4},
    ),
    pool_case(
        "a prone target nearer than 20 m has none",
        7,
        make.attack(targets=[make.target(prone=True, distance_m=10)]),
    ),
    pool_case(
        "blind fire -6 with Intuition in place of Agility",
        1,
        make.attack(targets=[make.target(hidden=True)]),
        **{"targets[0].attack_modifiers[source=intuition (blind fire)].value": 3},
    ),
    pool_case("called shot", 4, make.attack(targets=[make.target(called_shot=True)])),
    pool_case("smartlink +2", 10, make.attack(smartlink=True, weapon=make.weapon(smartgun=True))),
    pool_case("laser sight +1", 9, make.attack(weapon=make.weapon(laser_sight=True))),
    pool_case(
        "smartlink and laser sight do not add up",
        10,
        make.attack(smartlink=True, weapon=make.weapon(smartgun=True, laser_sight=True)),
    ),
    pool_case(
        "no laser sight past 50 m",
        2,
        make.attack(weapon=make.weapon(laser_sight=True), targets=[make.target(distance_m=55)]),
    ),
    pool_case(
        "no laser sight in smoke (and light smoke -4 for normal vision)",
        4,
        make.attack(weapon=make.weapon(laser_sight=True), visibility={"obscurant": "light_smoke"}),
    ),
    pool_case(
        "visibility: full darkness, normal vision -6",
        2,
        make.attack(visibility={"light": "full_darkness"}),
    ),
    pool_case(
        "visibility: full darkness, thermographic -3",
        5,
        make.attack(visibility={"light": "full_darkness", "vision": "thermographic"}),
    ),
    pool_case(
        "visibility: partial light, low-light 0",
        8,
        make.attack(visibility={"light": "partial", "vision": "low_light"}),
    ),
    pool_case(
        "visibility: thermal smoke, thermographic -6",
        2,
        make.attack(visibility={"obscurant": "thermal_smoke", "vision": "thermographic"}),
    ),
    pool_case(
        "aimed shot +1 per Take Aim",
        10,
        make.attack(),
        [{"action": "take_aim"}, {"action": "take_aim"}],
    ),
    pool_case(
        "image magnification after a Take Aim lock: range short",
        8,
        make.attack(targets=[make.target(distance_m=30)]),
        [{"action": "take_aim", "image_magnification": True, "target": "goon-1"}],
    ),
    pool_case(
        "the lock breaks when the target moved",
        5,
        make.attack(targets=[make.target(distance_m=30, moved=True)]),
        [{"action": "take_aim", "image_magnification": True, "target": "goon-1"}],
    ),
    Case(
        "narrow short burst: -2 recoil, +2 DV not compared with armour",
        [],
        make.attack(weapon=make.RIFLE, mode="BF", targets=[make.target(distance_m=4)]),
        dice={"attack": [5, 5, *miss(4)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={
            # 8 - 2 = 6 dice; 6 + 2 net = 8 compared with 5; 8 + 2 = 10 DV.
            "recoil.penalty": -2,
            "targets[0].attack.pool": 6,
            "targets[0].damage.compared_dv": 8,
            "targets[0].damage.dv": 10,
            "rounds_fired": 3,
            "ammo_left": 27,
            "burst": "narrow",
        },
    ),
    Case(
        "the narrow burst's DV does not turn stun into physical",
        [],
        make.attack(weapon={**make.RIFLE, "damage": 4, "ap": 0}, mode="BF"),
        dice={"attack": [5, 5, *miss(4)], "defense:goon-1": miss(3), "soak:goon-1": miss(9)},
        expected={
            # 4 + 2 = 6 against 6: stun, though 8 DV.
            "targets[0].damage.compared_dv": 6,
            "targets[0].damage.dv": 8,
            "targets[0].damage.track": "stun",
            "targets[0].damage.boxes": 8,
        },
    ),
    Case(
        "wide short burst: -2 to the defense, no DV",
        [],
        make.attack(weapon=make.RIFLE, mode="BF", burst="wide"),
        dice={"attack": [5, 5, *miss(4)], "defense:goon-1": [5], "soak:goon-1": miss(8)},
        expected={
            "targets[0].defense.pool": 1,
            "targets[0].defense_modifiers[source=wide burst].value": -2,
            "targets[0].net_hits": 1,
            "targets[0].damage.dv": 7,
        },
    ),
    pool_case(
        "recoil compensation counters recoil",
        7,
        make.attack(weapon={**make.RIFLE, "rc": 1}, mode="BF"),
    ),
    pool_case(
        "long burst -5",
        3,
        make.attack(weapon=make.RIFLE, mode="LB"),
        **{"rounds_fired": 6, "recoil.penalty": -5},
    ),
    pool_case(
        "full burst -9, a complex action",
        3,
        make.attack(attacker=make.attacker(agility=6, skill=6), weapon=make.RIFLE, mode="FB"),
        **{"action": "complex", "rounds_fired": 10, "recoil.penalty": -9},
    ),
    pool_case(
        "heavy weapons double uncompensated recoil",
        4,
        make.attack(
            weapon={**make.RIFLE, "category": "light_machine_gun", "modes": ["FA"], "rc": 3},
            mode="LB",
        ),
        # 001: -5 + 3 = -2, doubled -4.
        **{"recoil.uncompensated": -4, "recoil.doubled": True},
    ),
    pool_case(
        "a shotgun in burst fire doubles uncompensated recoil",
        4,
        make.attack(weapon=make.SHOTGUN, mode="BF"),
        **{"recoil.uncompensated": -4},
    ),
    Case(
        "not enough bullets: a 2-round burst takes 1 off each modifier",
        [],
        make.attack(weapon={**make.RIFLE, "ammo": 2}, mode="BF"),
        dice={"attack": [5, 5, *miss(5)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={
            "recoil.penalty": -1,
            "targets[0].attack.pool": 7,
            "targets[0].damage.dv": 9,  # 6 + 2 net + 1
            "rounds_fired": 2,
            "ammo_left": 0,
        },
    ),
    pool_case(
        "a long burst a bullet short takes 1 off",
        4,
        make.attack(weapon={**make.RIFLE, "ammo": 5}, mode="LB"),
        **{"recoil.base": -4, "rounds_fired": 5},
    ),
    pool_case(
        "a long burst of 3 rounds is a short burst",
        6,
        make.attack(weapon={**make.RIFLE, "ammo": 3}, mode="LB"),
        **{"targets[0].fired_as": "BF", "rounds_fired": 3},
    ),
    pool_case(
        "a burst of 1 round is a single shot",
        8,
        make.attack(weapon={**make.RIFLE, "ammo": 1}, mode="BF"),
        **{"targets[0].fired_as": "SS", "rounds_fired": 1},
    ),
    Case(
        "a full burst at two targets within 1 m: a short and a long burst",
        [],
        make.attack(
            attacker=make.attacker(agility=6, skill=6),
            weapon=make.RIFLE,
            mode="FB",
            targets=[make.target(), make.target(id="goon-2")],
            targets_apart_m=1,
        ),
        dice={"attack:goon-1": miss(10), "attack:goon-2": miss(4)},
        expected={
            # 12 - 2 (first burst); 12 - 6 (long, second) - 2 (second target).
            "targets[0].fired_as": "BF",
            "targets[0].attack.pool": 10,
            "targets[1].fired_as": "LB",
            "targets[1].attack.pool": 4,
            "rounds_fired": 10,
        },
    ),
    Case(
        "two guns split the pool before modifiers, no smartlink, the other's recoil",
        [],
        make.attack(
            attacker=make.attacker(agility=6, skill=6),
            weapon={
                **make.weapon(category="smg", modes=["BF"], rc=1, smartgun=True),
                "id": "uzi-1",
            },
            second_weapon={**make.weapon(category="smg", modes=["BF"]), "id": "uzi-2"},
            smartlink=True,
            mode="BF",
            targets=[make.target(), make.target(id="goon-2", gun="second")],
        ),
        dice={"attack:goon-1": miss(3), "attack:goon-2": miss(1)},
        expected={
            # 12 split 6 / 6; recoil -1 (after RC 1) and -2: each takes both, -3; the second
            # target -2 more.
            "shares.first": 6,
            "shares.second": 6,
            "recoil.penalty": -3,
            "second_recoil.penalty": -3,
            "targets[0].attack.pool": 3,
            "targets[1].attack.pool": 1,
            "second_rounds_fired": 3,
        },
    ),
    pool_case(
        "two guns of two skills: the smaller pool",
        3,
        make.attack(
            second_weapon={**make.weapon(), "id": "predator-2"},
            second_skill=2,
        ),
        # 4 + 2 = 6, split 3 / 3.
    ),
    Case(
        "shotgun, narrow choke: +2 DV, +2 AP",
        [],
        make.attack(weapon={**make.SHOTGUN, "choke": "narrow"}),
        dice={"attack": [5, 5, 5, *miss(5)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={
            # 7 + 2 + 3 = 12; shot meets impact armour as flechette does: 4 - 1 + 2 = 5, and
            # Body 3 + 5 = 8 soak dice.
            "targets[0].damage.dv": 12,
            "targets[0].damage.armor_type": "impact",
            "targets[0].damage.armor": 5,
            "targets[0].damage.boxes": 12,
        },
    ),
    Case(
        "shotgun, medium choke: one test against two within 1 m, -2 defense, +0 DV, +4 AP",
        [],
        make.attack(
            weapon={**make.SHOTGUN, "choke": "medium"},
            targets=[make.target(), make.target(id="goon-2")],
            targets_apart_m=1,
        ),
        dice={
            "attack": [5, 5, 5, *miss(5)],
            "defense:goon-1": [2],
            "defense:goon-2": [5],
            "soak:goon-1": miss(10),
            "soak:goon-2": miss(10),
        },
        expected={
            # 3 - 2 defense; 7 + 0 + 3 = 10 against impact 4 - 1 + 4 = 7 (Body 3 + 7 soak).
            "targets[0].defense.pool": 1,
            "targets[0].damage.dv": 10,
            "targets[0].damage.armor": 7,
            "targets[1].attack.hits": 3,
            "targets[1].net_hits": 2,
            "targets[1].damage.dv": 9,
        },
    ),
    Case(
        "shotgun, wide choke: three targets, -4 defense, -2 DV, +6 AP",
        [],
        make.attack(
            weapon={**make.SHOTGUN, "choke": "wide"},
            targets=[make.target(), make.target(id="goon-2"), make.target(id="goon-3")],
            targets_apart_m=1,
        ),
        dice={
            "attack": [5, 5, *miss(6)],
            "soak:goon-1": miss(12),
            "soak:goon-2": miss(12),
            "soak:goon-3": miss(12),
        },
        expected={
            # 3 - 4: no defense dice; 7 - 2 + 2 = 7 against impact 4 - 1 + 6 = 9: stun (Body
            # 3 + 9 soak dice).
            "targets[2].defense.pool": 0,
            "targets[2].damage.dv": 7,
            "targets[2].damage.armor": 9,
            "targets[2].damage.track": "stun",
        },
    ),
    Case(
        "full defense adds Dodge",
        [{"actor": "goon-1", "action": "full_defense"}],
        make.attack(),
        dice={"attack": [5, 5, *miss(6)], "defense:goon-1": [5, 5, 2, 2, 2]},
        expected={
            "targets[0].defense.pool": 5,
            "targets[0].defense_modifiers[source=dodge (full defense)].value": 2,
            "targets[0].outcome": "miss",
        },
    ),
    Case(
        "Edge on the defense: Edge dice, sixes again",
        [],
        make.attack(targets=[make.target(edge=True)]),
        dice={
            "attack": [5, 5, *miss(6)],
            "defense:goon-1": [6, 2, 2, 2, 2],
            "soak:goon-1": miss(8),
        },
        expected={
            "targets[0].defense.pool": 4,
            "targets[0].defense_hits": 1,
            "targets[0].net_hits": 1,
        },
    ),
    Case(
        "Edge on the attack: Edge dice, sixes again",
        [],
        make.attack(edge="extra_dice"),
        dice={"attack": [6, *miss(9), 5], "defense:goon-1": miss(3), "soak:goon-1": miss(8)},
        expected={
            "targets[0].attack.pool": 10,
            "targets[0].attack.hits": 2,
            "edge_spent": 1,
            "targets[0].damage.dv": 7,
        },
    ),
    Case(
        "suppressive fire: a 10 m triangle, 20 rounds, a success test",
        [],
        make.attack(
            weapon=make.RIFLE,
            mode="suppressive",
            targets=[],
            zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
            bystanders=[
                {"id": "goon-1", "position": {"x": 10, "y": 0}},
                {"id": "goon-2", "position": {"x": 10, "y": 8}},
                {"id": "goon-3", "position": {"x": 15, "y": 0}},
            ],
            sheltered=["goon-3"],
        ),
        dice={"suppression": [5, 5, *miss(6)]},
        expected={
            "action": "complex",
            "rounds_fired": 20,
            "zone.zone.hits": 2,
            "zone.zone.lasts": "until the shooter's next action phase",
            "zone.affected[actor=goon-1].must_test": True,
            "zone.affected[actor=goon-2].inside": False,
            "zone.affected[actor=goon-3].inside": True,
            "zone.affected[actor=goon-3].must_test": False,
        },
    ),
]
