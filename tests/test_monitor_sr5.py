"""The SR5 condition monitor (service/rules/sr5/monitor.py) with numbers worked by hand: track
sizes, overflow, the wound modifier of both tracks, the condition, the damage real results deal
(resolved with given dice) and a wounded sheet's smaller pool.

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt; "SR5 core" the published rules the
README points to where the guide is silent (pp. 169-170: Condition Monitor, Wound Modifiers,
Damage Overflow).
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.common import Point
from schemas.encounter import ActionResult, TurnState
from schemas.monitor import Monitor, PendingDamage
from schemas.scene import SceneActor
from schemas.sr5 import SR5AttackRequest, SR5AttackResult, SR5Sheet, SR5State, SR5ZoneTestRequest
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.monitor import Dealt, MonitorRules
from service.rules.ruleset import EarlierAttack
from service.rules.sr5 import tables
from tests import sr5_requests as make

SR5 = RULESETS["sr5"]
assert SR5.monitor is not None
MONITOR: MonitorRules = SR5.monitor
# Body 4, Willpower 3: physical 8 + ceil(4 / 2) = 10, stun 8 + ceil(3 / 2) = 10, overflow 4.
GANGER = SR5Sheet(body=4, willpower=3, reaction=3, intuition=3, armor=9)


def hit(track: str, boxes: int) -> Dealt:
    return Dealt(target="goon-1", track=track, boxes=boxes)  # type: ignore[arg-type]


def damaged(monitor: Monitor, *hits: Dealt, sheet: Any = GANGER) -> Monitor:
    for one in hits:
        monitor = MONITOR.damaged(monitor, one, sheet)
    return monitor


# --- sizes, overflow, wounds and condition ------------------------------------------------------


def test_the_tracks_are_eight_plus_half_the_attribute_rounded_up() -> None:
    status = MONITOR.status(GANGER, Monitor())
    # SR5 core p. 169: 8 + ceil(4 / 2) = 10; 8 + ceil(3 / 2) = 10; overflow = Body 4.
    assert (status.physical_max, status.stun_max, status.overflow_max) == (10, 10, 4)
    # Body 5, Willpower 6: 8 + ceil(2.5) = 11, 8 + 3 = 11, overflow 5.
    bigger = MONITOR.status(SR5Sheet(body=5, willpower=6), Monitor())
    assert (bigger.physical_max, bigger.stun_max, bigger.overflow_max) == (11, 11, 5)
    assert (status.condition, status.wound_modifier) == ("ok", 0)
    assert "000_43afc0edeb7f6e19.txt" in status.source and "SR5 core" in status.source


def test_twelve_physical_boxes_fill_the_track_and_two_overflow_dying() -> None:
    # 12 P on an empty monitor of 10: 10 on the track, 2 past it. SR5 core p. 170: overflowing
    # the physical track is near death: dying. Wounds: -(10 div 3) = -3, and the initiative
    # as much (SR5 core p. 169).
    after = damaged(Monitor(), hit("physical", 12))
    assert (after.physical, after.stun, after.overflow) == (10, 0, 2)
    assert after.status is not None
    assert (after.status.condition, after.status.wound_modifier) == ("dying", -3)
    assert after.status.initiative_modifier == -3


def test_a_full_physical_track_without_overflow_is_unconscious_not_dying() -> None:
    # SR5 core p. 170: near death comes with damage past the track; 10 of 10 is out cold.
    after = damaged(Monitor(), hit("physical", 10))
    assert (after.physical, after.overflow) == (10, 0)
    assert after.status is not None and after.status.condition == "unconscious"


def test_overflow_past_body_is_dead_and_stops_one_box_past_it() -> None:
    # 10 + 4 overflow (Body 4): still dying; one more box: 5 > 4, dead. Twenty more boxes add
    # nothing past the one that killed.
    at_body = damaged(Monitor(), hit("physical", 14))
    assert at_body.overflow == 4
    assert at_body.status is not None and at_body.status.condition == "dying"
    dead = damaged(at_body, hit("physical", 1))
    assert dead.overflow == 5
    assert dead.status is not None and dead.status.condition == "dead"
    assert damaged(dead, hit("physical", 20)).overflow == 5


def test_two_stun_boxes_past_the_track_make_one_physical() -> None:
    # Stun 8 of 10, then 7 S: 2 fill the track, 5 are past it; SR5 core p. 170: every two full
    # boxes, one physical: 5 div 2 = 2 physical (the odd box is lost). Unconscious (stun
    # full). Wounds: -(2 div 3) - (10 div 3) = 0 - 3 = -3.
    after = damaged(Monitor(stun=8), hit("stun", 7))
    assert (after.physical, after.stun, after.overflow) == (2, 10, 0)
    assert after.status is not None
    assert (after.status.condition, after.status.wound_modifier) == ("unconscious", -3)


def test_stun_overflow_can_fill_the_physical_track_too() -> None:
    # Physical 9 of 10, stun 10 of 10, then 6 S: 6 div 2 = 3 physical: 1 on the track, 2 past.
    after = damaged(Monitor(physical=9, stun=10), hit("stun", 6))
    assert (after.physical, after.stun, after.overflow) == (10, 10, 2)
    assert after.status is not None and after.status.condition == "dying"


def test_the_wound_modifier_adds_both_tracks() -> None:
    # The guide ("Character wounded"): the two tracks' modifiers add up. Physical 4: -(4 div 3)
    # = -1; stun 6: -(6 div 3) = -2; together -3. Physical 2 and stun 2: neither reaches 3: 0.
    status = MONITOR.status(GANGER, Monitor(physical=4, stun=6))
    assert (status.wound_modifier, status.initiative_modifier, status.condition) == (-3, -3, "ok")
    assert MONITOR.status(GANGER, Monitor(physical=2, stun=2)).wound_modifier == 0


def test_conditions_go_ok_unconscious_dying_dead_as_damage_lands() -> None:
    monitor = Monitor()
    seen = []
    # 9 P (ok), 1 P (10: unconscious), 1 P (overflow 1: dying), 4 P (overflow 5 > 4: dead).
    for boxes in (9, 1, 1, 4):
        monitor = damaged(monitor, hit("physical", boxes))
        assert monitor.status is not None
        seen.append(monitor.status.condition)
    assert seen == ["ok", "unconscious", "dying", "dead"]


def test_without_a_sheet_nothing_is_sized_and_nothing_overflows() -> None:
    # No Body or Willpower: sizes None; 30 P stay on the track (no size to pass); the wound
    # modifier still counts the boxes: -(30 div 3) = -10; the condition says nothing.
    after = damaged(Monitor(), hit("physical", 30), sheet=None)
    assert (after.physical, after.overflow) == (30, 0)
    assert after.status is not None
    status = after.status
    assert (status.physical_max, status.stun_max, status.overflow_max) == (None, None, None)
    assert (status.wound_modifier, status.condition) == (-10, "ok")
    # A sheet with Body but no Willpower sizes physical only.
    half = MONITOR.status(SR5Sheet(body=4), Monitor())
    assert (half.physical_max, half.stun_max, half.overflow_max) == (10, None, 4)


def test_a_gms_monitor_is_clamped_to_the_sheet_and_keeps_its_pending_damage() -> None:
    # Set 15 physical, 12 stun, 9 overflow on tracks of 10, 10 and overflow 4: cut to 10, 10
    # and 5 (one past Body: dead); nothing moves between tracks; the pending damage stays.
    pending = [PendingDamage(id="d1", track="physical", boxes=3, source="attack by sam")]
    set_ = Monitor(physical=15, stun=12, overflow=9, pending=pending)
    after = MONITOR.settled(set_, GANGER)
    assert (after.physical, after.stun, after.overflow, after.pending) == (10, 10, 5, pending)
    assert after.status is not None and after.status.condition == "dead"
    # Within the sizes, the numbers stand as set: 4 and 6, -1 - 2 = -3.
    kept = MONITOR.settled(Monitor(physical=4, stun=6), GANGER)
    assert (kept.physical, kept.stun) == (4, 6)
    assert kept.status is not None and kept.status.wound_modifier == -3


# --- what results deal --------------------------------------------------------------------------


def resolve(
    body: dict[str, Any], state: SR5State | None = None
) -> tuple[SR5AttackResult, SR5State]:
    request = msgspec.convert(body, SR5AttackRequest)
    dice = Dice(7, request.dice)
    resolution = SR5.resolve_attack(request, state or SR5State(), TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, SR5AttackResult)
    assert isinstance(resolution.state, SR5State)
    return resolution.result, resolution.state


# 4 hits against 1: 3 net. DV 8 + 3 = 11 against armor 9 - 1 (AP) = 8: physical; soak Body 4 +
# 8 = 12 dice, 3 hits: 11 - 3 = 8 boxes (the guide, steps 3-4).
HIT_FOR_8 = {
    "attack": [5, 5, 6, 6, 2, 2, 2, 2, 2, 2],
    "defense:goon-1": [5, 2, 2, 2, 2, 2],
    "soak:goon-1": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2, 2, 2],
}


def test_an_attack_deals_each_targets_boxes_and_a_miss_deals_none() -> None:
    result, _ = resolve(make.attack(dice=HIT_FOR_8))
    dealt = MONITOR.dealt(result)
    assert dealt == [
        Dealt(
            target="goon-1",
            track="physical",
            boxes=8,
            source="attack by sam (ares-predator)",
        )
    ]
    # On the ganger's empty monitor: 8 of 10, -(8 div 3) = -2.
    after = MONITOR.damaged(Monitor(), dealt[0], GANGER)
    assert after.physical == 8 and after.status is not None
    assert after.status.wound_modifier == -2
    # No hit on ten dice: a miss, nothing dealt.
    missed, _ = resolve(make.attack(dice={"attack": [2] * 10}))
    assert missed.targets[0].outcome == "miss" and MONITOR.dealt(missed) == []


def test_a_zone_test_that_fails_deals_the_zones_damage_and_laying_the_zone_deals_none() -> None:
    machine_gun = make.weapon(category="light_machine_gun", modes=["FA"], ammo=100)
    zone = {"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20}
    laid, state = resolve(
        make.attack(
            mode="suppressive",
            weapon=machine_gun,
            targets=[],
            zone=zone,
            bystanders=[{"id": "runner", "position": {"x": 10, "y": 0}}],
            dice={"suppression": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2]},  # 3 hits
        )
    )
    assert laid.zone is not None and MONITOR.dealt(laid) == []
    # The guide: Reaction 3 + Edge 2 = 5 dice, 1 hit under the zone's 3: hit by the base DV 8
    # against armor 9 - 1 = 8 (physical: not greater); soak 4 + 8 = 12 dice, none: 8 boxes.
    request = msgspec.convert(
        {
            "actor": "runner",
            "defender": make.defender(),
            "edge": 2,
            "dice": {"zone_test:runner": [5, 2, 2, 2, 2], "soak:runner": [2] * 12},
        },
        SR5ZoneTestRequest,
    )
    tested = SR5.resolve_zone_test("zone-1", request, state, TurnState(), Dice(5, request.dice))
    assert MONITOR.dealt(tested.result) == [
        Dealt(target="runner", track="physical", boxes=8, source="suppressive fire (zone-1)")
    ]


def test_second_chance_deals_the_re_resolved_attacks_damage() -> None:
    body = make.attack(
        attacker=make.attacker(edge=2),
        dice={"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [5, 2, 2, 2, 2, 2]},
    )
    # 1 hit against 1: a graze, no damage.
    first, state = resolve(body)
    assert first.targets[0].outcome == "graze" and MONITOR.dealt(first) == []
    earlier = EarlierAttack(
        request=msgspec.convert({**body, "dice": {}}, SR5AttackRequest), result=first
    )
    # The guide ("Edge"): nine misses re-rolled, three more hits: 4 against 1, 3 net; DV 8 + 3
    # = 11, soak 12 dice without a hit: 11 boxes.
    request = msgspec.convert(
        {
            "actor": "sam",
            "action": "second_chance",
            "target": "goon-1",
            "dice": {
                "second_chance:goon-1": [5, 6, 5, 1, 2, 3, 4, 2, 3],
                "soak:goon-1": [2] * 12,
            },
        },
        SR5.action_type,
    )
    chance = SR5.resolve_action(request, state, TurnState(), Dice(3, request.dice), earlier)
    assert isinstance(chance.result, ActionResult)
    assert MONITOR.dealt(chance.result) == [
        Dealt(
            target="goon-1",
            track="physical",
            boxes=11,
            source="attack by sam (ares-predator, second_chance)",
        )
    ]


# --- a wounded sheet changes the next roll ------------------------------------------------------


def scene_of(sam: SR5Sheet) -> dict[str, SceneActor]:
    return {
        "sam": SceneActor(name="Sam", position=Point(x=0, y=0), sheet=sam),
        "ganger": msgspec.convert(
            {
                "name": "Ganger",
                "position": {"x": 4.0, "y": 0.0},
                "sheet": make.README_GANGER_SHEET,
            },
            SceneActor,
        ),
    }


def test_the_monitors_wounds_take_dice_off_the_next_attack_and_the_initiative() -> None:
    sam = msgspec.convert(make.README_SAM["sheet"], SR5Sheet)
    # Sam's monitor: physical 4 (-1) and stun 3 (-1): -2 (the guide, "Character wounded").
    status = MONITOR.status(sam, Monitor(physical=4, stun=3))
    wounded = MONITOR.wounded(sam, status)
    assert isinstance(wounded, SR5Sheet) and wounded.wound_modifier == -2
    asked = msgspec.convert(
        {
            "ruleset": "sr5",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "ganger"}],
            "dice": {"attack": [2] * 12},
        },
        SR5.attack_ask_type,
    )
    whole = SR5.fill_attack(asked, scene_of(sam))
    hurt = SR5.fill_attack(
        msgspec.structs.replace(asked, dice={"attack": [2] * 10}), scene_of(wounded)
    )
    whole_result, _ = resolve(msgspec.to_builtins(whole))
    hurt_result, _ = resolve(msgspec.to_builtins(hurt))
    # Agility 6 + skill 6 = 12 dice whole; 12 - 2 = 10 wounded.
    assert (whole_result.pool, hurt_result.pool) == (12, 10)
    assert ("wound modifier", -2) in [(m.source, m.value) for m in hurt_result.modifiers]
    # And the initiative the service rolls takes as much (SR5 core p. 169).
    assert tables.INITIATIVE.sheet_modifier(wounded) == -2
