"""The d100 defender's Wounds, through `resolve` with given dice: its Active Defense, its Passive
Defense and its Athletics test in a suppression zone take its wound penalty off their Success
Targets; its armour does not change; the scene brings the penalty from the sheet (a typed
defender wins).

rules-sources/003_e47222605a1f2969.txt names Wounds among the modifiers of the attack ("Multi-
Target Fire") and of the suppressive test ("Suppressive Fire"); that the defender's tests take
them too is the product's choice (docs/rulesets/d100.md). The core test: rules-sources/README.md,
"d100": success at or under the Success Target, hits 1 + (ST - roll) div 10.
The builders (tests/d100_requests.py): Vex, Marksmanship 50; an SMG 7 + 2d6, armour penetration
2; the ganger at 20 m (the "medium" band, +0) with Active Defense 30, Passive Defense 20, armour 3.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import msgspec

from schemas.d100 import D100AttackRequest, D100State, D100ZoneTestRequest
from schemas.encounter import TurnState
from schemas.scene import SceneActor
from service.rules import RULESETS
from service.rules.dice import Dice, check_given
from tests import d100_requests as make

D100 = RULESETS["d100"]


def attack(body: dict[str, Any], state: D100State | None = None) -> Any:
    request = msgspec.convert(body, D100AttackRequest)
    check_given(request.dice, D100.dice_steps(request))
    dice = Dice(1, request.dice)
    resolution = D100.resolve_attack(request, state or D100State(), TurnState(), dice)
    dice.check_given_used()
    return resolution


def test_a_wounded_defender_defends_actively_and_passively_at_lower_success_targets() -> None:
    # Attack ST 50, roll 5: 1 + 45 div 10 = 5 hits. Active Defense 30 - 10 (wounds) = 20, roll
    # 15: 1 + 5 div 10 = 1 hit (unwounded, 30: 2); 4 net. Bonus 4 + 5 = 9. Passive Defense
    # 20 - 10 = 10, roll 10: 1 hit (unwounded: 2). 7 + 9 + 4 - 1 = 19 points; torso (d10 5),
    # armour 6 there less 2 = 4, as unwounded: a wound of 15.
    wounded = make.defender(wound_modifier=-10, armor_by_location={"torso": 6})
    body = make.attack(
        targets=[make.target(defender=wounded)],
        dice={
            "attack": [5],
            "defense:goon-1": [15],
            "bonus:goon-1": [4, 5],
            "passive_defense:goon-1": [10],
            "location:goon-1": [5],
        },
    )
    target = attack(body).result.targets[0]
    assert target.defense is not None
    assert (target.defense.success_target, target.defense.hits) == (20, 1)
    assert ("wounds", -10) in [(m.source, m.value) for m in target.defense_modifiers]
    assert (target.outcome, target.net_hits) == ("hit", 4)
    damage = target.damage
    assert damage is not None and damage.passive_defense is not None
    assert (damage.passive_defense.success_target, damage.passive_defense_hits) == (10, 1)
    assert (damage.damage, damage.effective_armor, damage.wound) == (19, 4, 15)


def test_a_wounded_actor_avoids_a_zones_fire_at_a_lower_success_target() -> None:
    # The zone: 3 hits, -15 (tests/test_d100_rules.py, suppressed(25)). Athletics 60 - 10
    # (wounds) - 15 = 35; a roll of 40 fails (unwounded, 45, it would avoid the fire). The hit:
    # 7 + (3 + 4) cold bonus dice, no net hits; Passive Defense 40 - 10 - 15 = 15, roll 15: 1
    # hit; 7 + 7 - 1 = 13 points; head (d10 1), armour 3 less 2 = 1: a wound of 12.
    suppression = make.suppressive(dice={"suppression": [25]})
    state = attack(suppression).state
    request = msgspec.convert(
        {
            "actor": "runner",
            "athletics": 60,
            "defender": {"passive_defense": 40, "armor": 3, "wound_modifier": -10},
            "dice": {
                "zone_test:runner": [40],
                "bonus:runner": [3, 4],
                "passive_defense:runner": [15],
                "location:runner": [1],
            },
        },
        D100ZoneTestRequest,
    )
    dice = Dice(1, request.dice)
    result = D100.resolve_zone_test("zone-1", request, state, TurnState(), dice).result
    assert [(m.source, m.value) for m in result.modifiers] == [
        ("Athletics", 60),
        ("wounds", -10),
        ("suppression (zone-1, 3 hits)", -15),
    ]
    assert result.test is not None and (result.test.success_target, result.hit) == (35, True)
    damage = result.damage
    assert damage is not None and damage.passive_defense is not None
    assert (damage.passive_defense.success_target, damage.passive_defense_hits) == (15, 1)
    assert (damage.damage, damage.effective_armor, damage.wound) == (13, 1, 12)


def test_the_odds_of_a_wounded_defense() -> None:
    # Marksmanship 10 at 20 m: ST 10, a success (1 hit) on 1-10, 1/10. Active Defense 30 - 20
    # (wounds) = 10: 1 hit on 1-10, 1/10, and a tie goes to the defender (README). A hit:
    # 1/10 * 9/10 = 9/100 (unwounded, ST 30: 1/10 * 7/10).
    wounded = make.defender(wound_modifier=-20)
    body = make.attack(
        attacker=make.attacker(marksmanship=10), targets=[make.target(defender=wounded)]
    )
    request = msgspec.convert(body, D100AttackRequest)
    (target,) = D100.attack_odds(request, D100State(), TurnState(), 1, 4000).targets
    assert abs(target.hit - float(F(9, 100))) < 1e-12


VEX_SHEET = {"ruleset": "d100", "marksmanship": 50, "weapons": [make.weapon()]}
GANGER_SHEET = {"ruleset": "d100", "athletics": 40, "defense": 30, "passive_defense": 20}


def _scene(wounds: int) -> dict[str, SceneActor]:
    ganger = {**GANGER_SHEET, "wound_modifier": wounds}
    return {
        "vex": msgspec.convert({"position": {"x": 0, "y": 0}, "sheet": VEX_SHEET}, SceneActor),
        "ganger": msgspec.convert({"position": {"x": 20, "y": 0}, "sheet": ganger}, SceneActor),
    }


def _asked(target: dict[str, Any], dice: dict[str, list[int]] | None = None) -> Any:
    body = {
        "ruleset": "d100",
        "attacker": "vex",
        "weapon": "smg",
        "targets": [target],
        "dice": dice or {},
    }
    return msgspec.convert(body, D100.attack_ask_type)


def test_the_scene_brings_the_defenders_wounds_from_its_sheet() -> None:
    # The ganger's sheet says -10: Active Defense 30 - 10 = 20, and its zone test left without
    # a defender takes the same -10.
    scene = _scene(-10)
    request = D100.fill_attack(_asked({"id": "ganger"}, {"attack": [100]}), scene)
    assert request.targets[0].defender.wound_modifier == -10
    zone = msgspec.convert({"ruleset": "d100", "actor": "ganger"}, D100.zone_test_ask_type)
    assert D100.fill_zone_test(zone, scene).defender.wound_modifier == -10
    # Rolled: attack 5 hits (roll 5 at 50), Active Defense roll 15 at 20: 1 hit.
    dice = {"attack": [5], "defense:ganger": [15], "bonus:ganger": [1, 1]}
    dice |= {"passive_defense:ganger": [100], "location:ganger": [5]}
    filled = D100.fill_attack(_asked({"id": "ganger"}, dice), scene)
    resolved = D100.resolve_attack(filled, D100State(), TurnState(), Dice(1, filled.dice))
    defense = resolved.result.targets[0].defense
    assert defense is not None and (defense.success_target, defense.hits) == (20, 1)


def test_a_typed_defender_wins_over_the_sheets_wounds() -> None:
    # A VTT that keeps its own monitors types the defender: its 0 stands, not the sheet's -10.
    asked = _asked({"id": "ganger", "defender": make.defender()})
    assert D100.fill_attack(asked, _scene(-10)).targets[0].defender.wound_modifier == 0
