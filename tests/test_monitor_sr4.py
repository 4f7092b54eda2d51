"""The SR4 condition monitor (service/rules/sr4/monitor.py) with numbers worked by hand.

"001" is rules-sources/001_2cfc288dfef1df08.txt ("Apply Damage": a point of DV is a box, wound
modifiers apply); "SR4 core" the published rules the README points to where 001 is silent
(p. 153: Condition Monitor, Wound Modifiers, Damage Overflow, Unconsciousness).
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.common import Point
from schemas.encounter import ActionResult, AdvanceResult, TurnState
from schemas.monitor import Monitor
from schemas.scene import SceneActor
from schemas.sr4 import (
    SR4ActionRequest,
    SR4AttackRequest,
    SR4AttackResult,
    SR4Sheet,
    SR4State,
    SR4ZoneTestRequest,
)
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.monitor import Dealt, MonitorRules
from service.rules.ruleset import EarlierAttack
from service.rules.sr4 import tables
from tests import sr4_requests as make
from tests.sr4_cases import MISS8, miss

SR4 = RULESETS["sr4"]
assert SR4.monitor is not None
MONITOR: MonitorRules = SR4.monitor
# Body 3, Willpower 2: physical 8 + ceil(3 / 2) = 10, stun 8 + ceil(2 / 2) = 9, overflow 3.
GANGER = SR4Sheet(body=3, willpower=2, reaction=3)


def hit(track: str, boxes: int) -> Dealt:
    return Dealt(target="goon-1", track=track, boxes=boxes)  # type: ignore[arg-type]


def damaged(monitor: Monitor, *hits: Dealt, sheet: Any = GANGER) -> Monitor:
    for one in hits:
        monitor = MONITOR.damaged(monitor, one, sheet)
    return monitor


def attack(body: dict[str, Any], state: Any = None) -> Any:
    request = msgspec.convert(body, SR4AttackRequest)
    dice = Dice(1, request.dice)
    resolution = SR4.resolve_attack(request, state or SR4State(), TurnState(), dice)
    dice.check_given_used()
    return resolution


# --- sizes, overflow, wounds and condition ------------------------------------------------------


def test_the_tracks_are_eight_plus_half_the_attribute_rounded_up() -> None:
    status = MONITOR.status(GANGER, Monitor())
    # SR4 core p. 153: 8 + ceil(3 / 2) = 10; 8 + ceil(2 / 2) = 9; overflow Body 3.
    assert (status.physical_max, status.stun_max, status.overflow_max) == (10, 9, 3)
    assert "001_2cfc288dfef1df08.txt" in status.source and "SR4 core" in status.source
    # No Willpower on the sheet: the stun track has no size; no sheet: nothing has.
    assert MONITOR.status(SR4Sheet(body=3), Monitor()).stun_max is None
    bare = MONITOR.status(None, Monitor(physical=6))
    assert (bare.physical_max, bare.stun_max, bare.overflow_max) == (None, None, None)
    assert (bare.wound_modifier, bare.condition) == (-2, "ok")  # -(6 div 3)


def test_twelve_physical_boxes_fill_the_track_and_two_overflow_dying() -> None:
    # 12 P on 10 boxes: 10 and 2 past. SR4 core ("Unconsciousness"): a full physical track is
    # near death, dying; wounds -(10 div 3) = -3, the initiative as much.
    after = damaged(Monitor(), hit("physical", 12))
    assert (after.physical, after.stun, after.overflow) == (10, 0, 2)
    assert after.status is not None
    status = after.status
    assert (status.condition, status.wound_modifier, status.initiative_modifier) == (
        "dying",
        -3,
        -3,
    )


def test_a_full_physical_track_is_dying_already_and_overflow_past_body_dead() -> None:
    # SR4, unlike SR5's wording: filling the physical track is near death. 10 P: dying.
    full = damaged(Monitor(), hit("physical", 10))
    assert full.status is not None and full.status.condition == "dying"
    # Overflow 3 (Body): still dying; 4 > 3: dead, and no further.
    at_body = damaged(full, hit("physical", 3))
    assert at_body.status is not None and at_body.status.condition == "dying"
    dead = damaged(at_body, hit("physical", 5))
    assert dead.overflow == 4
    assert dead.status is not None and dead.status.condition == "dead"


def test_stun_past_its_track_goes_to_physical_box_for_box() -> None:
    # Stun 7 of 9, then 6 S: 2 fill it, 4 past: 4 physical (SR4 core, "Damage Overflow": box
    # for box, unlike SR5's two for one). Unconscious (stun full). Wounds -(4 div 3) - (9 div
    # 3) = -1 - 3 = -4.
    after = damaged(Monitor(stun=7), hit("stun", 6))
    assert (after.physical, after.stun, after.overflow) == (4, 9, 0)
    assert after.status is not None
    assert (after.status.condition, after.status.wound_modifier) == ("unconscious", -4)


def test_the_wound_modifier_adds_both_tracks() -> None:
    # SR4 core ("Wound Modifiers"), 001 ("Attacker Wounded"): physical 3 (-1) + stun 6 (-2).
    status = MONITOR.status(GANGER, Monitor(physical=3, stun=6))
    assert (status.wound_modifier, status.initiative_modifier, status.condition) == (-3, -3, "ok")


def test_a_gms_monitor_is_clamped_to_the_sheet() -> None:
    # 20 physical, 20 stun, 20 overflow on 10, 9 and Body 3: 10, 9 and 4 (dead).
    after = MONITOR.settled(Monitor(physical=20, stun=20, overflow=20), GANGER)
    assert (after.physical, after.stun, after.overflow) == (10, 9, 4)
    assert after.status is not None and after.status.condition == "dead"


# --- what results deal --------------------------------------------------------------------------


def test_an_attack_deals_its_targets_boxes() -> None:
    # 001: a narrow choke's shot, 3 hits against none: DV 7 + 2 + 3 = 12 against impact armour
    # 4 - 1 + 2 = 5: physical; Body 3 + 5 = 8 soak dice, no hit: 12 boxes (as
    # tests/test_sr4_rules.py works it).
    narrow = {**make.SHOTGUN, "choke": "narrow"}
    dice = {"attack": [5, 5, 5, *miss(5)], "defense:goon-1": miss(3), "soak:goon-1": miss(8)}
    result = attack(make.attack(weapon=narrow, dice=dice)).result
    dealt = MONITOR.dealt(result)
    assert dealt == [
        Dealt(target="goon-1", track="physical", boxes=12, source="attack by sam (remington)")
    ]
    # On the ganger's monitor: 10 and 2 past: dying.
    after = MONITOR.damaged(Monitor(), dealt[0], GANGER)
    assert (after.physical, after.overflow) == (10, 2)


def test_an_airburst_grenade_deals_its_blast_and_a_held_one_when_it_goes_off() -> None:
    # 001, grenades: Agility 4 + skill 3 = 7 dice at 10 m (Strength 5: short), 3 hits on the
    # point. Airburst 1D6 = 3 m less 2 m x 3: on the point, 1 hit left: DV 12 + 1 = 13; "goon"
    # 3 m away: 13 - 3 = 10 against impact 2 + AP 5 = 7: physical; Body 3 + 7 = 10 dice, 3 hits:
    # 7 boxes.
    body = {
        "attacker": {"id": "sam", "agility": 4, "skill": 3, "strength": 5},
        "weapon": {
            "id": "frag",
            "category": "standard_grenade",
            "damage": 0,
            "modes": ["SS"],
            "ammo": 2,
        },
        "mode": "SS",
        "grenade": {"type": "fragmentation", "airburst": True},
        "origin": {"x": 0, "y": 0},
        "aim_point": {"x": 0, "y": 10},
        "bystanders": [{"id": "goon", "position": {"x": 0, "y": 13}, "body": 3, "impact_armor": 2}],
        "dice": {
            "attack": [5, 5, 5, 2, 2, 2, 2],
            "scatter_direction": [2],
            "scatter": [3],
            "soak:goon": [5, 5, 5, *miss(7)],
        },
    }
    result = attack(body).result
    assert isinstance(result, SR4AttackResult) and result.blast is not None
    goon = Dealt(target="goon", track="physical", boxes=7, source="grenade g1 by sam")
    assert MONITOR.dealt(result) == [goon]
    # The same blast in the result of the change that set it off (a held grenade).
    assert MONITOR.dealt(result.blast) == [goon]
    advanced = AdvanceResult(to="initiative_pass", turn=TurnState(), effects=[])
    went_off = msgspec.structs.replace(advanced, went_off=[result.blast])
    assert MONITOR.dealt(went_off) == [goon]
    held = ActionResult(actor="sam", action="delay_action", effects=[], went_off=[result.blast])
    assert MONITOR.dealt(held) == [goon]


def test_a_failed_zone_test_deals_the_base_dv() -> None:
    rifle_zone = make.attack(
        weapon=make.RIFLE,
        mode="suppressive",
        targets=[],
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
        bystanders=[{"id": "goon-1", "position": {"x": 10, "y": 0}}],
        dice={"suppression": [5, 5, *miss(6)]},  # 2 hits
    )
    made = attack(rifle_zone)
    assert MONITOR.dealt(made.result) == []
    request = msgspec.convert(
        {
            "actor": "goon-1",
            "defender": make.defender(),
            "dice": {"zone_test:goon-1": [5, 2, 2, 2], "soak:goon-1": MISS8},
        },
        SR4ZoneTestRequest,
    )
    tested = SR4.resolve_zone_test(
        "zone-1", request, made.state, TurnState(), Dice(1, request.dice)
    )
    # 001: Reaction 3 + Edge 1 = 4 dice, 1 hit under the threshold 2: the base DV 6 against
    # ballistic 6 - 1 = 5: physical; Body 3 + 5 = 8 dice, none: 6 boxes.
    assert MONITOR.dealt(tested.result) == [
        Dealt(target="goon-1", track="physical", boxes=6, source="suppressive fire (zone-1)")
    ]


def test_an_edge_re_roll_deals_the_re_resolved_attacks_damage() -> None:
    body = make.attack(dice={"attack": [5, *miss(7)], "defense:goon-1": [5, 2, 2]})
    # 1 hit against 1: a miss (ties to the defender), nothing dealt.
    first = attack(body)
    assert first.result.targets[0].outcome == "miss" and MONITOR.dealt(first.result) == []
    earlier = EarlierAttack(request=msgspec.convert(body, SR4AttackRequest), result=first.result)
    request = SR4ActionRequest(
        actor="sam",
        action="edge_reroll",
        dice={"reroll:goon-1": [5, 5, *miss(5)], "soak:goon-1": MISS8},
    )
    again = SR4.resolve_action(request, first.state, TurnState(), Dice(2, request.dice), earlier)
    # SR4 core (Edge): the 5 stands, 7 dice again, two more hits: 3 against 1, 2 net; DV 5 + 2
    # = 7 against ballistic 6 - 1 = 5: physical; Body 3 + 5 = 8 dice, none: 7 boxes.
    assert MONITOR.dealt(again.result) == [
        Dealt(
            target="goon-1",
            track="physical",
            boxes=7,
            source="attack by sam (predator, edge_reroll)",
        )
    ]


# --- a wounded sheet changes the next roll ------------------------------------------------------


def test_the_monitors_wounds_take_dice_off_the_next_attack_and_the_initiative() -> None:
    sam = msgspec.convert(
        {"ruleset": "sr4", "agility": 4, "skill": 4, "weapons": [make.weapon()]}, SR4Sheet
    )
    # Physical 3 (-1) and stun 3 (-1): -2 (SR4 core, "Wound Modifiers").
    wounded = MONITOR.wounded(sam, MONITOR.status(sam, Monitor(physical=3, stun=3)))
    assert isinstance(wounded, SR4Sheet) and wounded.wound_modifier == -2

    def pool(sheet: SR4Sheet, dice: int) -> int:
        scene = {
            "sam": SceneActor(name="Sam", position=Point(x=0, y=0), sheet=sheet),
            "goon-1": SceneActor(name="Goon", position=Point(x=4, y=0), sheet=GANGER),
        }
        asked = msgspec.convert(
            {
                "ruleset": "sr4",
                "attacker": "sam",
                "weapon": "predator",
                "mode": "SA",
                "targets": [{"id": "goon-1"}],
                "dice": {"attack": miss(dice)},
            },
            SR4.attack_ask_type,
        )
        result = attack(msgspec.to_builtins(SR4.fill_attack(asked, scene))).result
        return int(result.targets[0].attack.pool)

    # Agility 4 + Pistols 4 = 8 dice at 4 m (short); wounded 8 - 2 = 6.
    assert (pool(sam, 8), pool(wounded, 6)) == (8, 6)
    assert tables.INITIATIVE.sheet_modifier(wounded) == -2
