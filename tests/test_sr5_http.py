"""Every SR5 rule through the HTTP API: the same case, sent as a VTT sends it (actions first,
then the attack with a seed), answers exactly what the rules core resolves for it; and with given
dice it answers the numbers worked out by hand from the rules.

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt; "README" is rules-sources/README.md,
"Shadowrun 5"; "docs" is docs/rulesets/sr5.md. The request builders (tests/sr5_requests.py) give
an attacker of Agility 5, Skill 5, Strength 4, Willpower 3; a heavy pistol of DV 8P, AP -1,
Accuracy 5, RC 0, 15 rounds; a defender of Reaction 3, Intuition 3, Body 4, Willpower 3, armor 9,
4 m away (heavy pistol short range: 0, docs "Range table"). Worked out once for them all:
- attack pool 5 Agility + 5 skill = 10; limit = Accuracy 5 (the guide, "Attacker rolls ...");
- defense pool 3 Reaction + 3 Intuition = 6 (the guide, "3a");
- modified armor 9 - 1 AP = 8; soak pool 4 Body + 8 = 12 (the guide, "3b");
- recoil compensation 1 + ceil(4 Strength / 3) = 2, + the weapon's RC (README; the guide,
  "Recoil").
A die of 5 or 6 is a hit; the dice below are given so that each count is plain to see.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import sr5_requests as make
from tests.conftest import once_per_store
from tests.parity import MISSING, Case, answers_as_resolved, answers_by_hand

RIFLE = make.weapon(category="assault_rifle", modes=["SA", "BF", "FA"], ammo=60, rc=2)
SHOTGUN = make.weapon(category="shotgun_flechette", modes=["SA", "FA"], ammo=40)


def dice(hits: int, misses: int, ones: int = 0) -> list[int]:
    """`hits` fives, then `misses` twos, then `ones` ones."""
    return [5] * hits + [2] * misses + [1] * ones


CASES: list[Case] = [
    Case(
        "single shot",
        [],
        make.attack(mode="SS", weapon=make.weapon(modes=["SS"])),
        dice={
            "attack": [6, 6, *dice(4, 4)],
            "defense:goon-1": dice(1, 5),
            "soak:goon-1": dice(3, 9),
        },
        expected={
            # The guide, "Single Shot (SS)": one round, a simple action, no recoil.
            "action": "simple",
            "rounds_fired": 1,
            "ammo_left": 14,  # 15 - 1
            "recoil.rounds_fired": 0,
            "recoil.penalty": 0,
            "pool": 10,  # 5 Agility + 5 skill
            "limit": 5,  # Accuracy 5
            "targets[0].range": "short",  # 4 m with a heavy pistol (docs, "Range table")
            # The guide, "Attacker rolls ...": the hits are capped by Accuracy.
            "targets[0].attack_hits_before_limit": 6,
            "targets[0].attack_hits": 5,
            "targets[0].defense.pool": 6,  # 3 Reaction + 3 Intuition, SS: no defense modifier
            "targets[0].defense_hits": 1,
            "targets[0].outcome": "hit",
            "targets[0].net_hits": 4,  # 5 - 1
            # The guide, "3b": modified DV 8 + 4 net hits; modified armor 9 - 1 AP.
            "targets[0].damage.dv": 12,
            "targets[0].damage.armor": 8,
            "targets[0].damage.track": "physical",  # armor 8 does not exceed DV 12
            "targets[0].damage.soak.pool": 12,  # 4 Body + 8 modified armor
            "targets[0].damage.soak_hits": 3,
            "targets[0].damage.boxes": 9,  # 12 - 3
        },
        # README: each defense test counts against the defender's next one.
        combat={"actors.goon-1.defenses": 1, "actors.sam.recoil_rounds": MISSING},
    ),
    Case(
        "burst at three targets",
        [],
        make.attack(
            mode="BF",
            weapon=RIFLE,
            attacker=make.attacker(skill=6),
            targets=[make.target(id=f"t{n}", distance_m=20) for n in range(3)],
            larger_shares=["t2", "t1"],
        ),
        dice={
            "attack:t0": dice(2, 1),
            "defense:t0": dice(1, 3),
            "soak:t0": dice(0, 12),
            "attack:t1": [1, 1, 1, 2],
            "attack:t2": [6, 6, 5, 2],
            "defense:t2": dice(3, 1),
        },
        expected={
            # The guide, "Burst Fire (BF)": 3 rounds, a simple action, -2 to the defense.
            "action": "simple",
            "rounds_fired": 3,
            "ammo_left": 57,  # 60 - 3
            "recoil.compensation": 5,  # 1 + ceil(4 / 3) + RC 2 (the guide, "Recoil")
            "recoil.penalty": 0,  # 3 rounds, 5 compensated
            "pool": 11,  # 5 Agility + 6 skill
            # The guide: 11 dice over 3 targets are 4, 4 and 3; the request gives t2 and t1
            # the larger shares. Skill 6 may attack 6 // 2 = 3 targets.
            "targets[0].share": 3,
            "targets[1].share": 4,
            "targets[2].share": 4,
            "targets[0].range": "short",  # 20 m with an assault rifle (0-25)
            "targets[0].attack_hits": 2,
            "targets[0].defense.pool": 4,  # 3 + 3 - 2 (burst)
            "targets[0].defense_hits": 1,
            "targets[0].net_hits": 1,
            "targets[0].outcome": "hit",
            "targets[0].damage.dv": 9,  # 8 + 1 net hit
            "targets[0].damage.boxes": 9,  # no soak hits
            # README: three ones of four dice are more than half: a glitch, with no hit a
            # critical glitch; no hits is a miss and no defense (docs, "Defense").
            "targets[1].attack.ones": 3,
            "targets[1].attack.glitch": True,
            "targets[1].attack.critical_glitch": True,
            "targets[1].outcome": "miss",
            # The guide, "3a": a tie is a graze: contact, no damage.
            "targets[2].attack_hits": 3,
            "targets[2].defense_hits": 3,
            "targets[2].outcome": "graze",
            "targets[2].net_hits": 0,
            "targets[2].contact": True,
            "targets[2].damage": None,
        },
        combat={
            # The guide, "Recoil": the rounds stand against the compensation of the first shot.
            "actors.sam.recoil_rounds": 3,
            "actors.sam.recoil_compensation": 5,
            "actors.t0.defenses": 1,
            "actors.t1": MISSING,  # it rolled no defense
            "actors.t2.defenses": 1,
        },
    ),
    Case(
        "full auto complex, recoil",
        [],
        make.attack(mode="FA_complex", weapon=RIFLE),
        dice={"attack": dice(3, 2), "soak:goon-1": dice(2, 10)},
        expected={
            # The guide, "Full Auto (FA) (Complex)": 10 rounds, -9 to the defense.
            "action": "complex",
            "rounds_fired": 10,
            "ammo_left": 50,  # 60 - 10
            # The guide, "Recoil": -1 a round past the compensation 1 + ceil(4 / 3) + RC 2 = 5.
            "recoil.compensation": 5,
            "recoil.rounds_total": 10,
            "recoil.heavy_weapon": False,
            "recoil.penalty": -5,  # 10 - 5
            "modifiers[source=recoil].value": -5,
            "pool": 5,  # 10 - 5
            "targets[0].defense_modifiers[source=firing mode FA_complex].value": -9,
            "targets[0].defense.pool": 0,  # 6 - 9, never below 0
            "targets[0].attack_hits": 3,
            "targets[0].defense_hits": 0,
            "targets[0].net_hits": 3,
            "targets[0].damage.dv": 11,  # 8 + 3
            "targets[0].damage.soak_hits": 2,
            "targets[0].damage.boxes": 9,  # 11 - 2
        },
        # The guide, "Recoil": progressive; the next shot starts at 10 rounds against 5.
        combat={"actors.sam.recoil_rounds": 10, "actors.sam.recoil_compensation": 5},
    ),
    Case(
        "situations",
        [],
        make.attack(
            attacker=make.attacker(agility=7, skill=7),
            running=True,
            in_melee=True,
            off_hand=True,
            targets=[make.target(prone=True, called_shot=True)],
        ),
        dice={"attack": dice(2, 1), "defense:goon-1": dice(1, 3), "soak:goon-1": dice(0, 12)},
        expected={
            # The guide's modifiers list: attacker running -2, in melee -3, off hand -2.
            "modifiers[source=attacker running].value": -2,
            "modifiers[source=attacker in melee].value": -3,
            "modifiers[source=off-hand weapon].value": -2,
            "pool": 7,  # 7 Agility + 7 skill - 2 - 3 - 2
            # The guide: called shot -4, on this target's share (docs, "Multiple targets").
            "targets[0].attack_modifiers[source=called shot].value": -4,
            "targets[0].attack.pool": 3,  # 7 - 4
            "targets[0].attack_hits": 2,
            # README: a prone defender takes -2.
            "targets[0].defense_modifiers[source=defender prone].value": -2,
            "targets[0].defense.pool": 4,  # 3 + 3 - 2
            "targets[0].defense_hits": 1,
            "targets[0].net_hits": 1,
            "targets[0].damage.dv": 9,  # 8 + 1
            "targets[0].damage.boxes": 9,
        },
    ),
    Case(
        "environment and vision",
        [],
        make.attack(
            environment={"light": "dim", "wind": "strong", "visibility": "moderate"},
            vision=["low_light", "tracer_rounds"],
            smartlink="wireless_implant",
        ),
        dice={
            "attack": [6, 6, 6, *dice(5, 1)],
            "defense:goon-1": dice(0, 6),
            "soak:goon-1": dice(0, 12),
        },
        expected={
            # The guide, "Smartgun systems": wireless through an implant +2 dice; any active
            # smartlink +2 Accuracy.
            "modifiers[source=smartlink (wireless_implant)].value": 2,
            "pool": 12,  # 5 + 5 + 2
            "limit": 7,  # Accuracy 5 + 2
            # README rows 0/-1/-3/-6, the worst counts; the guide's vision list: low-light
            # makes dim light full (0); wind strong (-6) moves up one row with a smartlink
            # (moderate) and one more with tracers (below light winds: light, -1); visibility
            # moderate stays -3; range short 0. Worst: -3.
            "targets[0].attack_modifiers[1].source": (
                "environment: visibility moderate (-3), wind strong (-1) after gear; "
                "the worst counts"
            ),
            "targets[0].attack_modifiers[1].value": -3,
            "targets[0].attack.pool": 9,  # 12 - 3
            "targets[0].attack_hits_before_limit": 8,
            "targets[0].attack_hits": 7,  # limit 7
            "targets[0].net_hits": 7,
            "targets[0].damage.dv": 15,  # 8 + 7
            "targets[0].damage.boxes": 15,
        },
    ),
    Case(
        "aim",
        [{"action": "take_aim", "aim_for": "dice"}, {"action": "take_aim", "aim_for": "accuracy"}],
        make.attack(),
        dice={
            "attack": [6, 6, 6, *dice(4, 4)],
            "defense:goon-1": dice(0, 6),
            "soak:goon-1": dice(4, 8),
        },
        expected={
            # The guide, "A character may aim": each aim +1 die or +1 accuracy, each capped at
            # ceil(3 Willpower / 2) = 2; one of each here.
            "modifiers[source=aimed].value": 1,
            "pool": 11,  # 10 + 1
            "limit_modifiers[source=aimed].value": 1,
            "limit": 6,  # 5 + 1
            "targets[0].attack.pool": 11,
            "targets[0].attack_hits_before_limit": 7,
            "targets[0].attack_hits": 6,
            "targets[0].net_hits": 6,
            "targets[0].damage.dv": 14,  # 8 + 6
            "targets[0].damage.soak_hits": 4,
            "targets[0].damage.boxes": 10,  # 14 - 4
        },
        # The shot uses the aim up.
        combat={"actors.sam.aims_for_dice": MISSING, "actors.sam.aims_for_accuracy": MISSING},
    ),
    Case(
        "image magnification",
        [{"action": "take_aim", "image_magnification": True}],
        make.attack(targets=[make.target(distance_m=35)]),
        dice={"attack": dice(2, 7), "defense:goon-1": dice(0, 6), "soak:goon-1": dice(0, 12)},
        expected={
            # The guide, "image magnification": that aim moves the range one step (heavy
            # pistol at 35 m: long, -3, counts as medium, -1) and gives no other bonus.
            "targets[0].range": "long",
            "targets[0].attack_modifiers[1].value": -1,
            "pool": 10,
            "limit": 5,
            "targets[0].attack.pool": 9,  # 10 - 1
            "targets[0].attack_hits": 2,
            "targets[0].net_hits": 2,
            "targets[0].damage.dv": 10,  # 8 + 2
            "targets[0].damage.boxes": 10,
        },
        combat={"actors.sam.range_shift": MISSING},  # used up by the shot
    ),
    Case(
        "full defense quality",
        [{"actor": "goon-1", "action": "full_defense", "full_defense": "agile_defender"}],
        make.attack(targets=[make.target(defender=make.defender(agility=5))]),
        dice={"attack": dice(5, 5), "defense:goon-1": dice(3, 8), "soak:goon-1": dice(0, 12)},
        expected={
            # The guide, "Full Defense" and "Agile Defender": Agility in place of Willpower.
            "targets[0].defense_modifiers[source=full defense, agile defender (agility)].value": 5,
            "targets[0].defense.pool": 11,  # 3 + 3 + 5 Agility
            "targets[0].attack_hits": 5,
            "targets[0].defense_hits": 3,
            "targets[0].defense_limit": None,  # an attribute brings no limit
            "targets[0].net_hits": 2,
            "targets[0].damage.dv": 10,  # 8 + 2
            "targets[0].damage.boxes": 10,
        },
        # It stands until the combat turn ends.
        combat={"actors.goon-1.full_defense": "agile_defender", "actors.goon-1.defenses": 1},
    ),
    Case(
        "ammunition",
        [],
        make.attack(ammo="ex_explosive"),
        dice={"attack": dice(3, 7), "defense:goon-1": dice(1, 5), "soak:goon-1": dice(2, 9)},
        expected={
            # docs, "Damage": ex-explosive rounds +2 DV, AP -1 (on the weapon's -1).
            "targets[0].net_hits": 2,  # 3 - 1
            "targets[0].damage.dv_modifiers[source=ammunition (ex_explosive)].value": 2,
            "targets[0].damage.dv": 12,  # 8 + 2 + 2 net hits
            "targets[0].damage.ap": -2,  # -1 - 1
            "targets[0].damage.armor": 7,  # 9 - 2
            "targets[0].damage.track": "physical",
            "targets[0].damage.soak.pool": 11,  # 4 Body + 7
            "targets[0].damage.soak_hits": 2,
            "targets[0].damage.boxes": 10,  # 12 - 2
        },
    ),
    Case(
        "push the limit",
        [],
        make.attack(attacker=make.attacker(edge=4), edge="push_the_limit"),
        dice={
            # 14 dice with 2 sixes; the 2 extra dice show a six and a five; the last extra one
            # a two.
            "attack": [6, 6, *dice(5, 7), 6, 5, 2],
            "defense:goon-1": dice(1, 5),
            "soak:goon-1": dice(3, 9),
        },
        expected={
            # docs, "The attack": Push the Limit adds Edge before any split, ignores the limit
            # and every six explodes (the guide: "Unless you spend edge").
            "modifiers[source=Edge: Push the Limit].value": 4,
            "pool": 14,  # 10 + 4 Edge
            "edge_spent": 1,
            "targets[0].attack.pool": 14,
            "targets[0].attack_hits_before_limit": 9,  # 7 of the 14, then 2 of the 3 extra
            "targets[0].attack_hits": 9,  # no limit of 5
            "targets[0].defense_hits": 1,
            "targets[0].net_hits": 8,
            "targets[0].damage.dv": 16,  # 8 + 8
            "targets[0].damage.soak_hits": 3,
            "targets[0].damage.boxes": 13,  # 16 - 3
        },
    ),
    Case(
        "two guns",
        [],
        make.attack(
            second_weapon=make.weapon(id="left", accuracy=3),
            second_ammo="apds",
            targets=[make.target(id="a"), make.target(id="b", gun="second")],
        ),
        dice={
            "attack:a": dice(3, 1),
            "defense:a": dice(0, 6),
            "soak:a": dice(0, 12),
            "attack:b": dice(4, 0),
            "defense:b": dice(1, 5),
            "soak:b": dice(1, 7),
        },
        expected={
            # The guide, "One gun in each hand": the off-hand -2 (not ambidextrous), the
            # recoil of both guns adds up, the pool is split between the targets.
            "modifiers[source=off-hand weapon].value": -2,
            "pool": 8,  # 10 - 2
            "recoil.rounds_fired": 2,  # one SA round from each gun
            "recoil.compensation": 3,  # 1 + ceil(4 / 3) + the lower RC, 0
            "recoil.penalty": 0,  # 2 rounds, 3 compensated
            "rounds_fired": 1,
            "ammo_left": 14,
            "second_rounds_fired": 1,
            "second_ammo_left": 14,
            "targets[0].share": 4,  # 8 over 2
            "targets[1].share": 4,
            # Target a, first gun: Accuracy 5, regular rounds.
            "targets[0].attack_hits": 3,
            "targets[0].net_hits": 3,
            "targets[0].damage.dv": 11,  # 8 + 3
            "targets[0].damage.armor": 8,  # 9 - 1
            "targets[0].damage.boxes": 11,
            # Target b, second gun: its Accuracy 3 caps 4 hits; APDS AP -4 on the gun's -1.
            "targets[1].attack_hits_before_limit": 4,
            "targets[1].attack_hits": 3,
            "targets[1].defense_hits": 1,
            "targets[1].net_hits": 2,
            "targets[1].damage.dv": 10,  # 8 + 2
            "targets[1].damage.ap": -5,
            "targets[1].damage.armor": 4,  # 9 - 5
            "targets[1].damage.track": "physical",  # 4 does not exceed 10
            "targets[1].damage.soak.pool": 8,  # 4 Body + 4
            "targets[1].damage.soak_hits": 1,
            "targets[1].damage.boxes": 9,  # 10 - 1
        },
        combat={"actors.sam.recoil_rounds": 2},
    ),
    Case(
        "flechette spread and contact",
        [],
        make.attack(
            weapon={**SHOTGUN, "contact_effect": "tracking tag"},
            choke="wide",
            targets=[make.target(id="a"), make.target(id="b", distance_m=6)],
        ),
        dice={
            "attack:a": dice(2, 3),
            "defense:a": dice(0, 1),
            "soak:a": dice(0, 12),
            "attack:b": dice(1, 4),
            "defense:b": dice(1, 0),
        },
        expected={
            # The guide: a wide spread reaches several targets (skill 5: 2) in any mode, and
            # gives -5 to the defense; 10 dice split 5 and 5.
            "targets[0].share": 5,
            "targets[1].share": 5,
            "targets[0].range": "short",  # flechette shotgun 0-15 m
            "targets[1].range": "short",
            "targets[0].defense_modifiers[source=flechette wide spread].value": -5,
            "targets[0].defense.pool": 1,  # 3 + 3 - 5
            "targets[1].defense.pool": 1,
            "targets[0].attack_hits": 2,
            "targets[0].net_hits": 2,
            "targets[0].outcome": "hit",
            "targets[0].damage.dv": 10,  # 8 + 2
            "targets[0].damage.boxes": 10,
            "targets[0].contact": True,
            "targets[0].contact_effect": "tracking tag",
            # The guide, "3a": a graze still touches: the contact effect happens.
            "targets[1].attack_hits": 1,
            "targets[1].defense_hits": 1,
            "targets[1].outcome": "graze",
            "targets[1].damage": None,
            "targets[1].contact": True,
            "targets[1].contact_effect": "tracking tag",
        },
    ),
    Case(
        "area effect",
        [],
        make.attack(area_effect=True),
        dice={"attack": dice(3, 7), "defense:goon-1": dice(2, 2), "soak:goon-1": dice(0, 12)},
        expected={
            # The guide's modifiers: an area effect attack, -2 to the defense.
            "targets[0].defense_modifiers[source=area effect attack].value": -2,
            "targets[0].defense.pool": 4,  # 3 + 3 - 2
            "targets[0].defense_hits": 2,
            "targets[0].net_hits": 1,  # 3 - 2
            "targets[0].damage.dv": 9,  # 8 + 1
            "targets[0].damage.boxes": 9,
        },
    ),
    Case(
        "suppressive fire",
        [],
        make.attack(
            mode="suppressive",
            weapon=RIFLE,
            targets=[],
            zone={"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 40},
            bystanders=[{"id": "x", "position": {"x": 0, "y": 20}}],
        ),
        dice={"suppression": [6, 6, *dice(5, 3)]},
        expected={
            # The guide, "Suppressive fire": a complex action of 20 rounds; Skill + Agility
            # [Accuracy]: 7 hits of 10 dice, 5 counted.
            "action": "complex",
            "rounds_fired": 20,
            "ammo_left": 40,  # 60 - 20
            "recoil.penalty": 0,  # docs: it neither takes nor adds recoil
            "pool": 10,
            "limit": 5,
            "zone.suppression.pool": 10,
            "zone.suppression.hits": 5,
            "zone.zone.hits": 5,
            "zone.zone.penalty": -5,  # the shooter's hits off all actions of those in it
            # 20 m along the zone's axis (north, 90 degrees): inside, not in cover nor prone.
            "zone.affected[0].inside": True,
            "zone.affected[0].must_test": True,
            "zone.affected[0].penalty": -5,
        },
        combat={"zones.zone-1.zone.hits": 5, "actors.sam.recoil_rounds": MISSING},
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
    the hand-worked tests (below, and tests/test_sr5_http_by_hand.py)."""
    await answers_as_resolved(client, "sr5", "sam", case.actions, case.body)


@pytest.mark.parametrize(("store_kind", "case"), STORE_ROWS)
async def test_each_rule_answers_over_http_the_numbers_worked_out_by_hand(
    client: Any, case: Case
) -> None:
    await answers_by_hand(client, "sr5", "sam", case)


def test_every_rule_has_numbers_worked_out_by_hand() -> None:
    assert [c.rule for c in CASES if not c.expected or not c.dice] == []
