"""The d100 condition monitor (service/rules/d100/monitor.py) with numbers worked by hand.

The firearms chapter (rules-sources/003_e47222605a1f2969.txt) resolves each hit to a wound at a
location and names Wounds among the Success Target's modifiers; it gives no hit points. The
sheet's `hit_points` and the thresholds are the product's choices (docs/rulesets/d100.md,
"Condition monitor"): 0 hit points left unconscious, below 0 dying, more below 0 than the hit
points dead, -10 once half are lost.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.common import Point
from schemas.d100 import (
    D100AttackRequest,
    D100AttackResult,
    D100Sheet,
    D100State,
    D100ZoneTestRequest,
    D100ZoneTestResult,
)
from schemas.encounter import TurnState
from schemas.monitor import Monitor
from schemas.scene import SceneActor
from service.rules import RULESETS
from service.rules.dice import Dice, check_given
from service.rules.monitor import Dealt, MonitorRules
from tests import d100_requests as make

D100 = RULESETS["d100"]
assert D100.monitor is not None
MONITOR: MonitorRules = D100.monitor
GOON = D100Sheet(hit_points=12)


def wound(boxes: int, location: str | None = "torso") -> Dealt:
    return Dealt(target="goon-1", track="physical", boxes=boxes, location=location)


def damaged(monitor: Monitor, *wounds: Dealt, sheet: Any = GOON) -> Monitor:
    for one in wounds:
        monitor = MONITOR.damaged(monitor, one, sheet)
    return monitor


def attack(body: dict[str, Any], state: D100State | None = None) -> Any:
    request = msgspec.convert(body, D100AttackRequest)
    check_given(request.dice, D100.dice_steps(request))
    dice = Dice(1, request.dice)
    resolution = D100.resolve_attack(request, state or D100State(), TurnState(), dice)
    dice.check_given_used()
    return resolution


# --- hit points, wounds by location, the penalty and the condition -----------------------------


def test_the_sheets_hit_points_size_the_monitor_and_without_them_nothing_is_guessed() -> None:
    status = MONITOR.status(GOON, Monitor())
    assert (status.physical_max, status.stun_max, status.overflow_max) == (12, None, 12)
    assert "003_e47222605a1f2969.txt" in status.source
    # No hit points: no size, no penalty, no condition from any number of points lost.
    bare = damaged(Monitor(), wound(40), sheet=D100Sheet())
    assert (bare.physical, bare.overflow, bare.wounds) == (40, 0, {"torso": 40})
    assert bare.status is not None
    assert (bare.status.physical_max, bare.status.wound_modifier, bare.status.condition) == (
        None,
        0,
        "ok",
    )


def test_wounds_add_up_by_location_and_half_the_hit_points_gone_is_minus_10() -> None:
    # 5 at the head: 5 of 12 lost, 5 x 2 = 10 < 12: no penalty. 1 more at the torso: 6 x 2 =
    # 12 >= 12: -10 to every Success Target (**choice**). No initiative in d100: 0.
    first = damaged(Monitor(), wound(5, "head"))
    assert first.status is not None and first.status.wound_modifier == 0
    second = damaged(first, wound(1, "torso"))
    assert (second.physical, second.wounds) == (6, {"head": 5, "torso": 1})
    assert second.status is not None
    assert (second.status.wound_modifier, second.status.initiative_modifier) == (-10, 0)
    third = damaged(second, wound(2, "head"))
    assert third.wounds == {"head": 7, "torso": 1}


def test_zero_hit_points_unconscious_below_zero_dying_below_minus_hit_points_dead() -> None:
    # Hit points 12: 12 lost is 0 left (unconscious); 14 lost, 2 below 0 (dying); 24 lost, 12
    # below (still dying); 25 lost, 13 below > 12 (dead), kept at 13.
    seen = []
    monitor = Monitor()
    for points in (12, 2, 10, 1, 30):
        monitor = damaged(monitor, wound(points))
        assert monitor.status is not None
        seen.append((monitor.physical, monitor.overflow, monitor.status.condition))
    assert seen == [
        (12, 0, "unconscious"),
        (12, 2, "dying"),
        (12, 12, "dying"),
        (12, 13, "dead"),
        (12, 13, "dead"),
    ]
    # The wounds keep every point a location took: 12 + 2 + 10 + 1 + 30 at the torso.
    assert monitor.wounds == {"torso": 55}


def test_a_gms_monitor_is_clamped_and_its_wounds_kept() -> None:
    after = MONITOR.settled(Monitor(physical=20, overflow=2, wounds={"head": 22}), GOON)
    assert (after.physical, after.overflow, after.wounds) == (12, 2, {"head": 22})
    assert after.status is not None and after.status.condition == "dying"


# --- what results deal ------------------------------------------------------------------------


def test_an_attack_deals_the_wound_at_its_location() -> None:
    # README (d100): 1 + (50 - 45) div 10 = 1 hit, no defense rolled (the defender gives none):
    # 1 net hit. Damage 7 + bonus 1 + 1 + 1 = 10; the d10 says head; armour 2 less AP 5: 0;
    # the wound: 10 at the head.
    body = make.attack(
        weapon=make.weapon(armor_penetration=5),
        targets=[make.target(defender={"armor": 2})],
        dice={"attack": [45], "bonus:goon-1": [1, 1], "location:goon-1": [1]},
    )
    result = attack(body).result
    assert isinstance(result, D100AttackResult)
    dealt = MONITOR.dealt(result)
    assert dealt == [
        Dealt(
            target="goon-1",
            track="physical",
            boxes=10,
            location="head",
            source="attack by vex (smg)",
        )
    ]
    after = MONITOR.damaged(Monitor(), dealt[0], GOON)
    assert (after.physical, after.wounds) == (10, {"head": 10})
    # A miss (96 is over any Success Target here) deals nothing.
    missed = attack(make.attack(dice={"attack": [96]})).result
    assert missed.targets[0].outcome == "miss" and MONITOR.dealt(missed) == []


def test_a_failed_zone_test_deals_its_wound_and_laying_the_zone_none() -> None:
    laid = attack(make.suppressive(dice={"suppression": [25]}))
    assert MONITOR.dealt(laid.result) == []
    # 003 ("Effects of Suppression"): failed; 7 + (3 + 4) cold bonus dice = 14, Passive
    # Defense missed; head, armour 3 less 2 = 1: a wound of 13 at the head (as
    # tests/test_d100_rules.py works it).
    request = msgspec.convert(
        {
            "actor": "runner",
            "athletics": 60,
            "defender": {"passive_defense": 20, "armor": 3},
            "dice": {
                "zone_test:runner": [50],
                "bonus:runner": [3, 4],
                "passive_defense:runner": [15],
                "location:runner": [1],
            },
        },
        D100ZoneTestRequest,
    )
    dice = Dice(1, request.dice)
    tested = D100.resolve_zone_test("zone-1", request, laid.state, TurnState(), dice)
    assert isinstance(tested.result, D100ZoneTestResult)
    assert MONITOR.dealt(tested.result) == [
        Dealt(
            target="runner",
            track="physical",
            boxes=13,
            location="head",
            source="suppressive fire (zone-1)",
        )
    ]


# --- a wounded sheet changes the next roll ----------------------------------------------------


def test_half_the_hit_points_gone_takes_10_off_the_next_attacks_success_target() -> None:
    vex = msgspec.convert(
        {"ruleset": "d100", "marksmanship": 50, "hit_points": 10, "weapons": [make.weapon()]},
        D100Sheet,
    )
    # 5 of 10 lost: 5 x 2 >= 10: -10.
    wounded = MONITOR.wounded(vex, MONITOR.status(vex, Monitor(physical=5)))
    assert isinstance(wounded, D100Sheet) and wounded.wound_modifier == -10

    def success_target(sheet: D100Sheet) -> Any:
        scene = {
            "vex": SceneActor(name="Vex", position=Point(x=0, y=0), sheet=sheet),
            "goon-1": SceneActor(name="Goon", position=Point(x=20, y=0), sheet=GOON),
        }
        asked = msgspec.convert(
            {
                "ruleset": "d100",
                "attacker": "vex",
                "weapon": "smg",
                "targets": [{"id": "goon-1"}],
                "dice": {"attack": [99]},
            },
            D100.attack_ask_type,
        )
        return attack(msgspec.to_builtins(D100.fill_attack(asked, scene))).result

    # Marksmanship 50, nothing else for the whole attack; wounded 50 - 10 = 40.
    whole, hurt = success_target(vex), success_target(wounded)
    assert (whole.success_target, hurt.success_target) == (50, 40)
    assert ("wounds", -10) in [(m.source, m.value) for m in hurt.modifiers]
