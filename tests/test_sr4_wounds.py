"""The SR4 defender's wounds, through `resolve` with given dice: its defense test and its zone
test take its wound modifier, its damage resistance test never does, and the scene brings the
modifier from the sheet (a typed defender wins).

Sources: 001_2cfc288dfef1df08.txt ("Defending Against Ranged Combat", "Suppressive Fire",
"Damage Resistance"); SR4 core, "Wound Modifiers": every test but the ones that resist the
boxes about to be taken (found in the SR4 "Damage and Healing" text at
projects.dungeonsanddecimals.com/websites/shadowrun/Combat/damageAndHealing.html).

The defaults (tests/sr4_requests.py): Sam rolls Agility 4 + Pistols 4 = 8 dice; the Predator
is 5P, AP -1; the ganger has Reaction 3, Body 3, Dodge 2, Edge 1, ballistic 6 / impact 4, 4 m
away (short range, 0)."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.scene import SceneActor
from schemas.sr4 import SR4ActionRequest, SR4AttackRequest, SR4State, SR4ZoneTestRequest
from service.rules import RULESETS
from service.rules.dice import Dice
from tests import sr4_requests as make
from tests.sr4_cases import CASES, MISS8, miss

SR4 = RULESETS["sr4"]


def _attack(body: dict[str, Any], state: SR4State | None = None) -> Any:
    request = msgspec.convert(body, SR4AttackRequest)
    return SR4.resolve_attack(request, state or SR4State(), TurnState(), Dice(1, request.dice))


def _full_defense(actor: str, state: SR4State) -> SR4State:
    request = SR4ActionRequest(actor=actor, action="full_defense")
    return SR4.resolve_action(request, state, TurnState(), Dice(0)).state  # type: ignore[no-any-return]


def _sources(modifiers: list[Any]) -> list[tuple[str, int]]:
    return [(m.source, m.value) for m in modifiers]


def test_a_wounded_defender_defends_with_fewer_dice_and_soaks_with_all() -> None:
    # Sam: 8 dice, 3 hits. The ganger: Reaction 3 - 2 (its wound modifier) = 1 die, 1 hit
    # (001 step 2; SR4 core "Wound Modifiers"); 2 net hits. DV 5 + 2 = 7 against ballistic
    # 6 - 1 (AP) = 5: physical (001 step 4); soak Body 3 + 5 = 8 dice, no wound modifier
    # (SR4 core: not on damage resistance), 1 hit: 7 - 1 = 6 boxes.
    wounded = make.target(defender=make.defender(wound_modifier=-2))
    dice = {
        "attack": [5, 5, 5, *miss(5)],
        "defense:goon-1": [5],
        "soak:goon-1": [5, *miss(7)],
    }
    target = _attack(make.attack(targets=[wounded], dice=dice)).result.targets[0]
    assert ("wound modifier", -2) in _sources(target.defense_modifiers)
    assert (target.defense.pool, target.defense.hits, target.net_hits) == (1, 1, 2)
    assert target.damage is not None
    assert (target.damage.dv, target.damage.track) == (7, "physical")
    assert (target.damage.soak.pool, target.damage.boxes) == (8, 6)
    assert "wound modifier" not in [m.source for m in target.damage.soak_modifiers]


def test_the_same_attack_on_an_unwounded_defender_rolls_its_three_dice() -> None:
    # Reaction 3, no wounds: 3 dice, the first a hit; the rest as above (6 boxes).
    dice = {
        "attack": [5, 5, 5, *miss(5)],
        "defense:goon-1": [5, 2, 2],
        "soak:goon-1": [5, *miss(7)],
    }
    target = _attack(make.attack(dice=dice)).result.targets[0]
    assert "wound modifier" not in [m.source for m in target.defense_modifiers]
    assert (target.defense.pool, target.damage.soak.pool, target.damage.boxes) == (3, 8, 6)


def test_a_wounded_defender_in_full_defense_takes_the_wounds_off_the_whole_defense() -> None:
    # 001: full defense adds Dodge: Reaction 3 + Dodge 2 - 2 (wounds) = 3 dice.
    state = _full_defense("goon-1", SR4State())
    wounded = make.target(defender=make.defender(wound_modifier=-2))
    body = make.attack(targets=[wounded], dice={"attack": [5, *miss(7)]})
    assert _attack(body, state).result.targets[0].defense.pool == 3


def test_wounds_past_the_defense_pool_leave_no_dice_not_a_negative_pool() -> None:
    # Reaction 3 - 5 = -2: no die to roll, no defense hit; the attack's 1 hit stands (001 step
    # 3: more hits than the defender's 0). DV 5 + 1 = 6 against 5: physical; Body 3 + 5 = 8
    # soak dice, none a hit: 6 boxes.
    wounded = make.target(defender=make.defender(wound_modifier=-5))
    body = make.attack(targets=[wounded], dice={"attack": [5, *miss(7)], "soak:goon-1": MISS8})
    target = _attack(body).result.targets[0]
    assert (target.defense.pool, target.defense.hits, target.outcome) == (0, 0, "hit")
    assert target.damage is not None and (target.damage.soak.pool, target.damage.boxes) == (8, 6)


def _zone() -> tuple[str, SR4State]:
    """The suppressive fire case of tests/sr4_cases.py: a zone of 2 hits (AK: 6P, AP -1)."""
    case = next(c for c in CASES if c.rule.startswith("suppressive fire"))
    made = _attack({**case.body, "dice": case.dice})
    return made.result.zone.zone.id, made.state


def _zone_test(zone_id: str, state: SR4State, defender: dict[str, Any], dice: Any = None) -> Any:
    request = msgspec.convert(
        {"actor": "goon-1", "defender": defender, "dice": dice or {}}, SR4ZoneTestRequest
    )
    return SR4.resolve_zone_test(zone_id, request, state, TurnState(), Dice(1, request.dice))


def test_a_wounded_actor_tests_against_a_zone_with_fewer_dice_and_soaks_with_all() -> None:
    # 001, "Suppressive Fire": Reaction 3 + Edge 1 - 2 (wounds) = 2 dice against the zone's 2
    # hits; 1 hit falls short: hit by the base DV 6 against ballistic 6 - 1 = 5, physical;
    # Body 3 + 5 = 8 soak dice, no wound modifier, none a hit: 6 boxes.
    zone_id, state = _zone()
    dice = {"zone_test:goon-1": [5, 2], "soak:goon-1": MISS8}
    tested = _zone_test(zone_id, state, make.defender(wound_modifier=-2), dice).result
    assert ("wound modifier", -2) in _sources(tested.modifiers)
    assert (tested.pool, tested.hit) == (2, True)
    assert tested.damage is not None
    assert (tested.damage.track, tested.damage.soak.pool, tested.damage.boxes) == ("physical", 8, 6)
    assert "wound modifier" not in [m.source for m in tested.damage.soak_modifiers]
    # In full defense, + Dodge 2: 3 + 1 + 2 - 2 = 4 dice.
    guarded = _full_defense("goon-1", state)
    assert _zone_test(zone_id, guarded, make.defender(wound_modifier=-2)).result.pool == 4


def test_the_odds_of_a_wounded_defense_roll_the_same_one_die() -> None:
    # Sam with Agility 1 + skill 0 = 1 die against Reaction 2 - 1 (wounds) = 1 die: a hit is 1
    # hit (1/3) against none (2/3), 2/9 (001 step 3: ties to the defender), as resolve rolls it.
    body = make.attack(
        attacker=make.attacker(agility=1, skill=0),
        weapon=make.weapon(ap=0),
        targets=[make.target(defender=make.defender(reaction=2, wound_modifier=-1))],
    )
    request = msgspec.convert(body, SR4AttackRequest)
    odds = SR4.attack_odds(request, SR4State(), TurnState(), 1, 1000)
    assert abs(odds.targets[0].hit - float(F(2, 9))) < 1e-12


GANGER_SHEET = {"ruleset": "sr4", "reaction": 3, "body": 3, "ballistic_armor": 6, "impact_armor": 4}
SAM_SHEET = {
    "ruleset": "sr4",
    "agility": 4,
    "intuition": 3,
    "reaction": 4,
    "body": 4,
    "skill": 4,
    "weapons": [make.weapon()],
}


def _scene(ganger_wounds: int) -> dict[str, SceneActor]:
    ganger = {**GANGER_SHEET, "wound_modifier": ganger_wounds}
    return {
        "sam": msgspec.convert({"position": {"x": 0, "y": 0}, "sheet": SAM_SHEET}, SceneActor),
        "ganger": msgspec.convert({"position": {"x": 4, "y": 0}, "sheet": ganger}, SceneActor),
    }


def test_the_scene_brings_the_defenders_wound_modifier_from_its_sheet() -> None:
    # The ganger's sheet says -2: it defends with Reaction 3 - 2 = 1 die, and its zone test
    # left without a defender takes the same -2.
    scene = _scene(-2)
    asked = msgspec.convert(
        {
            "ruleset": "sr4",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "ganger"}],
            "dice": {"attack": [5, *miss(7)], "defense:ganger": [2]},
        },
        SR4.attack_ask_type,
    )
    request = SR4.fill_attack(asked, scene)
    assert request.targets[0].defender.wound_modifier == -2
    resolved = SR4.resolve_attack(request, SR4State(), TurnState(), Dice(1, request.dice))
    assert resolved.result.targets[0].defense.pool == 1
    zone_asked = msgspec.convert({"ruleset": "sr4", "actor": "ganger"}, SR4.zone_test_ask_type)
    assert SR4.fill_zone_test(zone_asked, scene).defender.wound_modifier == -2


def test_a_typed_defender_wins_over_the_sheets_wounds() -> None:
    # A VTT that keeps its own monitor types the defender: its 0 stands, not the sheet's -2.
    asked = msgspec.convert(
        {
            "ruleset": "sr4",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "ganger", "defender": make.defender(wound_modifier=0)}],
        },
        SR4.attack_ask_type,
    )
    assert SR4.fill_attack(asked, _scene(-2)).targets[0].defender.wound_modifier == 0
