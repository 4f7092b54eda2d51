"""The SR3 condition monitors (service/rules/sr3/monitor.py) with numbers worked by hand.

"SR3 core" is the published SR3 rules the README points to (pp. 125-126: Condition Monitor,
Damage Modifiers, Damage Overflow; the crib sheet's rows: boxes 1-2 L, 3-5 M, 6-9 S, 10 D);
"README" is rules-sources/README.md, "Shadowrun 3" (wounds L+1/M+2/S+3/D+4).
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.common import Point
from schemas.encounter import TurnState
from schemas.monitor import Monitor
from schemas.scene import SceneActor
from schemas.sr3 import SR3AttackRequest, SR3AttackResult, SR3Sheet, SR3State
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.monitor import Dealt, MonitorRules
from service.rules.sr3 import tables
from tests import sr3_requests as make

SR3 = RULESETS["sr3"]
assert SR3.monitor is not None
MONITOR: MonitorRules = SR3.monitor
GANGER = SR3Sheet(body=4, quickness=4, intelligence=3, willpower=3)
MISS = [2, 2, 2, 2]


def hit(track: str, boxes: int) -> Dealt:
    return Dealt(target="goon-1", track=track, boxes=boxes)  # type: ignore[arg-type]


def damaged(monitor: Monitor, *hits: Dealt, sheet: Any = GANGER) -> Monitor:
    for one in hits:
        monitor = MONITOR.damaged(monitor, one, sheet)
    return monitor


def resolve(body: dict[str, Any]) -> SR3AttackResult:
    request = msgspec.convert(body, SR3AttackRequest)
    dice = Dice(7, request.dice)
    resolution = SR3.resolve_attack(request, SR3State(), TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, SR3AttackResult)
    return resolution.result


# --- sizes, levels, modifiers and condition ----------------------------------------------------


def test_ten_boxes_each_and_body_for_the_overflow() -> None:
    # SR3 core p. 125: ten boxes on each monitor whatever the attributes; the overflow is
    # Body's (p. 126), unknown without a sheet.
    status = MONITOR.status(GANGER, Monitor())
    assert (status.physical_max, status.stun_max, status.overflow_max) == (10, 10, 4)
    bare = MONITOR.status(None, Monitor())
    assert (bare.physical_max, bare.stun_max, bare.overflow_max) == (10, 10, None)
    assert "SR3 core" in status.source


def test_each_level_adds_its_target_number_modifier_and_takes_as_much_initiative() -> None:
    # Boxes 1 L +1, 3 M +2, 6 S +3, 10 D +4 (README's row; SR3 crib sheet for the boxes);
    # 2 boxes are still L, 5 still M, 9 still S.
    for boxes, modifier in ((0, 0), (1, 1), (2, 1), (3, 2), (5, 2), (6, 3), (9, 3), (10, 4)):
        status = MONITOR.status(GANGER, Monitor(physical=boxes))
        assert (status.wound_modifier, status.initiative_modifier) == (modifier, -modifier)


def test_the_two_monitors_modifiers_add_up() -> None:
    # SR3 core p. 126: physical 2 (L, +1) and stun 4 (M, +2): +3, initiative -3.
    status = MONITOR.status(GANGER, Monitor(physical=2, stun=4))
    assert (status.wound_modifier, status.initiative_modifier, status.condition) == (3, -3, "ok")


def test_a_full_stun_monitor_is_unconscious_and_a_deadly_physical_wound_dying() -> None:
    # SR3 core p. 126: stun D (10) knocks out; physical D is unconscious and dying.
    stunned = damaged(Monitor(), hit("stun", 10))
    assert stunned.status is not None and stunned.status.condition == "unconscious"
    deadly = damaged(Monitor(), hit("physical", 10))
    assert deadly.status is not None and deadly.status.condition == "dying"


def test_stun_past_its_ten_boxes_carries_over_box_for_box() -> None:
    # Stun 6 (S), then S stun (6 boxes): 4 fill it, 2 past: 2 physical (L). Modifiers D +4 and
    # L +1: +5. Unconscious.
    after = damaged(Monitor(stun=6), hit("stun", 6))
    assert (after.physical, after.stun, after.overflow) == (2, 10, 0)
    assert after.status is not None
    assert (after.status.wound_modifier, after.status.condition) == (5, "unconscious")


def test_deadly_on_deadly_overflows_past_body_dead() -> None:
    # Physical 10, then D (10 more): overflow 10 > Body 4: dead, kept at 4 + 1 = 5.
    after = damaged(Monitor(), hit("physical", 10), hit("physical", 10))
    assert (after.physical, after.overflow) == (10, 5)
    assert after.status is not None and after.status.condition == "dead"
    # Overflow 4 (Body): dying, not dead.
    at_body = damaged(Monitor(), hit("physical", 14))
    assert at_body.status is not None and at_body.status.condition == "dying"


def test_a_gms_monitor_is_clamped_to_ten_boxes() -> None:
    after = MONITOR.settled(Monitor(physical=12, stun=3), GANGER)
    assert (after.physical, after.stun) == (10, 3)
    assert after.status is not None and after.status.wound_modifier == 4 + 2


# --- what results deal ------------------------------------------------------------------------


def test_an_attack_deals_the_boxes_of_its_staged_level() -> None:
    # SR3 crib sheet (pp. 113-114, 125): 4 attack successes, none resisted (Body 4 at Power 9 -
    # ballistic 5 = 4): 4 net, 2 stages up: M -> D, 10 boxes.
    result = resolve(make.attack(dice={"attack": [5, 5, 5, 5], "resist:goon-1": [1, 2, 3, 2]}))
    assert MONITOR.dealt(result) == [
        Dealt(target="goon-1", track="physical", boxes=10, source="attack by sam (predator)")
    ]
    # A stun weapon: 2 against 2, the weapon's M: 3 stun boxes.
    stun = make.weapon(damage_type="stun")
    result = resolve(
        make.attack(weapon=stun, dice={"attack": [5, 5, 2, 2], "resist:goon-1": [4, 4, 1, 2]})
    )
    assert MONITOR.dealt(result) == [
        Dealt(target="goon-1", track="stun", boxes=3, source="attack by sam (predator)")
    ]


def test_damage_staged_below_light_and_a_miss_deal_nothing() -> None:
    # 1 success; Body 4 + 2 pool dice, 6 successes: 5 net for the defender, 2 stages down: M
    # goes below L (tests/test_sr3_rules.py works it the same).
    resisted = resolve(
        make.attack(
            target=make.target(resist=2),
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": [4, 4, 4, 4, 5, 6]},
        )
    )
    assert resisted.target.outcome == "resisted" and MONITOR.dealt(resisted) == []
    missed = resolve(make.attack(dice={"attack": MISS}))
    assert missed.target.outcome == "miss" and MONITOR.dealt(missed) == []


# --- a wounded sheet changes the next roll ----------------------------------------------------


def test_both_monitors_wounds_raise_the_next_attacks_target_number() -> None:
    sam = msgspec.convert(
        {"ruleset": "sr3", "skill": 4, "quickness": 5, "intelligence": 4, "willpower": 3,
         "weapons": [make.weapon()]},
        SR3Sheet,
    )  # fmt: skip
    # Physical 2 (L, +1) and stun 4 (M, +2): +3. **Choice**: the sheet gets the number, and
    # the level of one wound as bad ("S", +3) for what reads only the level.
    wounded = MONITOR.wounded(sam, MONITOR.status(sam, Monitor(physical=2, stun=4)))
    assert isinstance(wounded, SR3Sheet)
    assert (wounded.wound_modifier, wounded.wounds) == (3, "S")

    def attack_test(sheet: SR3Sheet) -> Any:
        scene = {
            "sam": SceneActor(name="Sam", position=Point(x=0, y=0), sheet=sheet),
            "goon-1": SceneActor(name="Goon", position=Point(x=4, y=0), sheet=GANGER),
        }
        asked = msgspec.convert(
            {
                "ruleset": "sr3",
                "attacker": "sam",
                "weapon": "predator",
                "mode": "SA",
                "target": {"id": "goon-1"},
                "dice": {"attack": MISS},
            },
            SR3.attack_ask_type,
        )
        return resolve(msgspec.to_builtins(SR3.fill_attack(asked, scene))).attack

    # 002: a heavy pistol at 4 m is short range, target number 4; wounded 4 + 3 = 7.
    whole, hurt = attack_test(sam), attack_test(wounded)
    assert (whole.target_number, hurt.target_number) == (4, 7)
    assert ("wounds", 3) in [(m.source, m.value) for m in hurt.modifiers]
    # The initiative loses as much (SR3 core p. 126), read from the same sheet.
    assert tables.INITIATIVE.sheet_modifier(wounded) == -3
    # A VTT's typed level alone still counts as before: "M" is +2.
    assert tables.INITIATIVE.sheet_modifier(SR3Sheet(wounds="M")) == -2
