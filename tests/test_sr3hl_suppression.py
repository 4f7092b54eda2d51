"""Hard Life suppression fire through `resolve_attack` and `resolve_zone_test` with given dice:
the zone (its polygon, area, bullets and ammunition, its end at the shooter's next combat
phase), every Table 9 row, every Table 10 row, the one dodge taken off each round, ties,
scatter per round from its own location, 004's Pete-and-Whisper example; then the same
through HTTP.

"004" is rules-sources/004_afd6299c3d537f5c.txt, "Suppression Fire" (Tables 9 and 10); "002"
is rules-sources/002_65e09aecd368bc68.txt ("WEAPON RANGE TABLE"); "README" is
rules-sources/README.md. The numbers are typed from the sources, not read from tables.py.
The body map (service/rules/sr3hl/body.py, drawn in docs/rulesets/sr3-hardlife.md) is read in
its drawing's columns and rows: flat-topped hexes, odd columns half a hex lower, direction 1
up, then clockwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.common import Point, Zone
from schemas.encounter import TurnState
from schemas.sr3hl import (
    Hex,
    HLActorState,
    HLAttackRequest,
    HLAttackResult,
    HLMonitor,
    HLRound,
    HLState,
    HLWeapon,
    HLZoneState,
    HLZoneTestRequest,
    HLZoneTestResult,
)
from scripts import body_map_svg
from service.rules import RULESETS, RuleViolation, geometry
from service.rules.dice import Dice
from service.rules.sr3hl import body, suppression
from service.rules.sr3hl.suppression import Incoming
from tests.test_api import new_encounter

HL = RULESETS["sr3-hardlife"]
MISS6 = [3, 3, 3, 3, 3, 3]  # six dice, no success at any target number of 4 or more

# An Ingram-like SMG (002's SMG row: short 0-10, medium 11-40, long 41-80, extreme 81-150).
SMG = {
    "id": "ingram",
    "category": "smg",
    "power": 7,
    "damage_level": "M",
    "modes": ["BF", "FA"],
    "ammo": 32,
    "recoil_compensation": 2,
}
PETE = {"id": "pete", "skill": 5, "quickness": 5, "intelligence": 4, "willpower": 4}
# One square metre, corners in order (area 1 m²).
SQUARE = [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}, {"x": 0, "y": 1}]
WHISPER = {"body": 4, "willpower": 4, "quickness": 5, "intelligence": 4, "combat_pool": 6}


def suppress(
    state: HLState | None = None, turn: TurnState | None = None, **fields: Any
) -> tuple[HLAttackResult, HLState]:
    body: dict[str, Any] = {
        "attacker": PETE,
        "weapon": SMG,
        "mode": "FA",
        "suppression": {"area": SQUARE, "bullets_per_m2": 6},
        **fields,
    }
    request = msgspec.convert(body, HLAttackRequest)
    dice = Dice(7, request.dice)
    resolution = HL.resolve_attack(request, state or HLState(), turn or TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, HLAttackResult)
    assert isinstance(resolution.state, HLState)
    return resolution.result, resolution.state


def refused_fire(state: HLState | None = None, **fields: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        suppress(state, **fields)
    return caught.value


def zone_state(
    bullets_per_m2: int = 6, injury_modifier: int = 0, weapon: dict[str, Any] | None = None
) -> HLState:
    """A live zone of Pete's, as fire leaves it, for the zone tests on their own."""
    zone = msgspec.convert(
        {
            "id": "zone-1",
            "shooter": "pete",
            "shape": "polygon",
            "hits": bullets_per_m2,
            "penalty": 0,
            "kind": "suppression fire",
            "lasts": "until the start of pete's next combat phase",
            "points": SQUARE,
        },
        Zone,
    )
    live = HLZoneState(
        zone=zone,
        polygon=[(0, 0), (1, 0), (1, 1), (0, 1)],
        bullets_per_m2=bullets_per_m2,
        weapon=msgspec.convert(weapon or SMG, HLWeapon),
        injury_modifier=injury_modifier,
    )
    return HLState(zones={"zone-1": live}, zones_made=1)


def zone_test(
    state: HLState | None = None, zone: str = "zone-1", **fields: Any
) -> tuple[HLZoneTestResult, HLState]:
    body: dict[str, Any] = {
        "actor": "whisper",
        "defender": WHISPER,
        "distance_m": 8,
        **fields,
    }
    request = msgspec.convert(body, HLZoneTestRequest)
    dice = Dice(11, request.dice)
    resolution = HL.resolve_zone_test(zone, request, state or zone_state(), TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, HLZoneTestResult)
    assert isinstance(resolution.state, HLState)
    return resolution.result, resolution.state


def refused_test(state: HLState | None = None, **fields: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        zone_test(state, **fields)
    return caught.value


# --- the zone (004, "Suppression Fire") ---------------------------------------------------------


def test_suppression_fire_makes_a_polygon_zone_of_its_bullets_per_square_metre() -> None:
    result, state = suppress()
    assert result.suppression is not None and result.target is None and result.attack is None
    zone = result.suppression.zone
    assert (zone.id, zone.shooter, zone.shape, zone.hits, zone.penalty) == (
        "zone-1",
        "pete",
        "polygon",
        6,
        0,
    )
    assert zone.points == [Point(x=p["x"], y=p["y"]) for p in SQUARE]
    assert zone.lasts == "until the start of pete's next combat phase"
    # 004: 6 bullets into each of 1 m²: 6 rounds, 32 - 6 = 26 left.
    assert (result.suppression.area_m2, result.rounds_fired, result.ammo_left) == (1.0, 6, 26)
    # Nothing is rolled when it is fired: each zone test rolls the bullets per m².
    assert result.dice == []
    assert list(state.zones) == ["zone-1"] and state.zones_made == 1
    kept = state.zones["zone-1"]
    assert (kept.bullets_per_m2, kept.weapon.id, kept.injury_modifier) == (6, "ingram", 0)
    assert HL.zones(state) == [zone]


def test_the_area_is_the_shoelace_area_of_any_simple_polygon_and_the_rounds_round_up() -> None:
    # An L: the 3 x 2 rectangle less its 2 x 1 top-right corner: 6 - 2 = 4 m².
    ell = [
        {"x": 0, "y": 0},
        {"x": 3, "y": 0},
        {"x": 3, "y": 1},
        {"x": 1, "y": 1},
        {"x": 1, "y": 2},
        {"x": 0, "y": 2},
    ]
    result, _ = suppress(suppression={"area": ell, "bullets_per_m2": 3})
    assert result.suppression is not None
    # 3 bullets x 4 m² = 12 rounds.
    assert (result.suppression.area_m2, result.rounds_fired, result.ammo_left) == (4.0, 12, 20)
    # A right triangle of legs 1 and 3: 1.5 m²; 3 bullets x 1.5 = 4.5, rounded up to 5.
    triangle = [{"x": 0, "y": 0}, {"x": 3, "y": 0}, {"x": 0, "y": 1}]
    result, _ = suppress(suppression={"area": triangle, "bullets_per_m2": 3})
    assert result.suppression is not None
    assert (result.suppression.area_m2, result.rounds_fired) == (1.5, 5)
    # Clockwise corners enclose the same ground.
    result, _ = suppress(suppression={"area": list(reversed(ell)), "bullets_per_m2": 3})
    assert result.rounds_fired == 12


def test_more_rounds_than_the_gun_holds_is_out_of_ammo() -> None:
    # 10 bullets x (4 x 1 m) = 40 rounds > 32.
    strip = [{"x": 0, "y": 0}, {"x": 4, "y": 0}, {"x": 4, "y": 1}, {"x": 0, "y": 1}]
    caught = refused_fire(suppression={"area": strip, "bullets_per_m2": 10})
    assert (caught.kind, caught.path, caught.status) == ("out-of-ammo", "$.weapon.ammo", 422)
    # Exactly what it holds is allowed: 8 x 4 = 32.
    result, _ = suppress(suppression={"area": strip, "bullets_per_m2": 8})
    assert (result.rounds_fired, result.ammo_left) == (32, 0)


def test_the_action_is_the_firing_modes() -> None:
    # 002: Fire Weapon (SA/BF) is a simple action, (SS/FA) a complex one.
    burst, _ = suppress(mode="BF")
    auto, _ = suppress(mode="FA")
    assert (burst.action, auto.action) == ("simple", "complex")
    caught = refused_fire(mode="SS")
    assert (caught.kind, caught.path) == ("mode-not-available", "$.mode")


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        # A bow tie: its edges cross.
        (
            {
                "suppression": {
                    "area": [
                        {"x": 0, "y": 0},
                        {"x": 1, "y": 1},
                        {"x": 1, "y": 0},
                        {"x": 0, "y": 1},
                    ],
                    "bullets_per_m2": 2,
                }
            },
            "$.suppression.area",
        ),
        # Three corners on a line enclose nothing.
        (
            {
                "suppression": {
                    "area": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 2, "y": 0}],
                    "bullets_per_m2": 2,
                }
            },
            "$.suppression.area",
        ),
        # Aimed at a target and suppressing an area at once (attack.py names the order).
        ({"target": {"id": "whisper", "distance_m": 5, "defender": WHISPER}}, "$.suppression"),
        ({"pool": 2}, "$.pool"),
        ({"rounds": 6}, "$.rounds"),
    ],
)
def test_bad_suppression_orders_are_refused_naming_the_field(
    fields: dict[str, Any], path: str
) -> None:
    caught = refused_fire(**fields)
    assert (caught.path, caught.status) == (path, 422)


def test_an_encounter_holds_at_most_fifty_zones_and_the_counter_keeps_its_bound() -> None:
    state = HLState()
    for _ in range(50):
        _, state = suppress(state)
    assert len(state.zones) == 50 and state.zones_made == 50
    caught = refused_fire(state)
    assert (caught.status, caught.kind, caught.path) == (409, "limit-exceeded", "$.suppression")
    # A counter at its schema bound stays there, and the zone's id is still new.
    worn = msgspec.structs.replace(zone_state(), zones_made=1_000_000_000)
    _, after = suppress(worn)
    assert after.zones_made == 1_000_000_000 and len(after.zones) == 2
    msgspec.json.decode(msgspec.json.encode(after), type=HLState)


def test_the_shooters_injury_modifier_is_kept_with_the_zone() -> None:
    # README: wounds M +2 (torso at 3 boxes physical), L +1 (1 box stun): +3.
    hurt = HLState(actors={"pete": HLActorState(monitors={"torso": HLMonitor(physical=3, stun=1)})})
    _, state = suppress(hurt)
    assert state.zones["zone-1"].injury_modifier == 3
    # 004, "Taking Damage": a limb in use that is worse counts: the right arm at 6 boxes (S, +3)
    # over the torso's M (+2), and the stun's L +1: 4.
    armed = HLState(
        actors={
            "pete": HLActorState(
                monitors={
                    "torso": HLMonitor(physical=3, stun=1),
                    "right_arm": HLMonitor(physical=6),
                }
            )
        }
    )
    _, state = suppress(armed, attacker={**PETE, "limbs": ["right_arm"]})
    assert state.zones["zone-1"].injury_modifier == 4


def test_the_zone_keeps_where_its_shooter_fired_from() -> None:
    order = {"area": SQUARE, "bullets_per_m2": 6, "origin": {"x": 0, "y": -30}}
    _, state = suppress(suppression=order)
    assert state.zones["zone-1"].origin == Point(x=0, y=-30)
    _, state = suppress()
    assert state.zones["zone-1"].origin is None


def test_the_zone_ends_when_its_shooters_next_combat_phase_begins() -> None:
    _, state = suppress()
    _, state = suppress(state, attacker={**PETE, "id": "carter"})
    assert [z.zone.shooter for z in state.zones.values()] == ["pete", "carter"]
    after = suppression.end_zones_of(state, "pete")
    assert [z.zone.shooter for z in after.zones.values()] == ["carter"]
    # Someone else's phase ends nothing.
    assert suppression.end_zones_of(state, "whisper") is state


# --- Table 9: the zone test's target number ---------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "injury", "target_number", "sources"),
    [
        # 004, Table 9: 4 at short range (SMG 0-10 m), no cover, the shooter unhurt.
        ({"distance_m": 10}, 0, 4, ["suppression fire"]),
        ({"cover": "partial"}, 0, 4 + 2, ["suppression fire", "cover (partial)"]),
        ({"cover": "good"}, 0, 4 + 8, ["suppression fire", "cover (good)"]),
        ({}, 3, 4 + 3, ["suppression fire", "attacker injured"]),
        # 002's SMG row: medium 11-40 (10.5 m is past short's 10: the next band), long 41-80,
        # extreme 81-150.
        ({"distance_m": 10.5}, 0, 4 + 1, ["suppression fire", "range (medium)"]),
        ({"distance_m": 40}, 0, 4 + 1, ["suppression fire", "range (medium)"]),
        ({"distance_m": 80}, 0, 4 + 2, ["suppression fire", "range (long)"]),
        ({"distance_m": 150}, 0, 4 + 4, ["suppression fire", "range (extreme)"]),
        # Every row at once: 4 + 8 + 2 + 4 = 18.
        (
            {"distance_m": 100, "cover": "good"},
            2,
            18,
            ["suppression fire", "cover (good)", "attacker injured", "range (extreme)"],
        ),
    ],
)
def test_table_9_rows(
    fields: dict[str, Any], injury: int, target_number: int, sources: list[str]
) -> None:
    result, _ = zone_test(
        zone_state(injury_modifier=injury), dice={"suppression:whisper": MISS6}, **fields
    )
    assert result.attack.target_number == target_number
    assert [m.source for m in result.attack.modifiers] == sources
    assert sum(m.value for m in result.attack.modifiers) == target_number
    # No die reached it: no round hits, nothing else is rolled.
    assert (result.attack.dice, result.attack.successes, result.target.outcome) == (6, 0, "miss")
    assert [r.step for r in result.dice] == ["suppression:whisper"]


def test_beyond_extreme_range_the_fire_makes_no_attack() -> None:
    # 002: an SMG's extreme range ends at 150 m.
    caught = refused_test(distance_m=150.5)
    assert (caught.kind, caught.path, caught.status) == ("out-of-range", "$.distance_m", 422)
    assert "no attack" in caught.detail


def test_the_zone_test_rolls_the_bullets_per_square_metre_and_one_meets_the_rule_of_one() -> None:
    result, _ = zone_test(zone_state(bullets_per_m2=3), dice={"suppression:whisper": [1, 1, 1]})
    assert result.attack.dice == 3 and result.attack.rule_of_one
    assert (result.attack.successes, result.target.outcome) == (0, "miss")


def test_a_zone_test_names_a_live_zone_and_not_its_own_shooter() -> None:
    caught = refused_test(zone="zone-9")
    assert (caught.status, caught.kind) == (404, "zone-not-found")
    caught = refused_test(actor="pete")
    assert (caught.status, caught.path) == (422, "$.actor")


def test_more_pool_dice_than_are_left_is_a_conflict_before_anything_is_rolled() -> None:
    # Whisper's Combat Pool is 6: a dodge of 7, or a dodge of 4 and 3 for Body, ask too many.
    caught = refused_test(dodge={"combat_pool": 7})
    assert (caught.status, caught.path) == (409, "$.dodge.combat_pool")
    caught = refused_test(dodge={"combat_pool": 4}, resist=3)
    assert (caught.status, caught.path) == (409, "$.resist")
    # 004, "Dodging": the Dodge Pool is as many dice as the dodge skill (2 here), none without it.
    caught = refused_test(defender={**WHISPER, "dodge_skill": 2}, dodge={"dodge_pool": 3})
    assert (caught.status, caught.path) == (409, "$.dodge.dodge_pool")
    caught = refused_test(dodge={"dodge_pool": 1})
    assert (caught.status, caught.kind) == (422, "dodge-pool-unknown")


# --- the rounds on their own: Table 10, the dodge off each round, scatter ----------------------


# 004, Table 10: every 2d6 total, and the d6 of 6 that makes an arm a hand and a leg a foot.
TABLE_10 = [
    ([1, 1], "head"),
    ([1, 2, 1], "right_leg"),
    ([1, 2, 6], "right_foot"),
    ([2, 2], "right_thigh"),
    ([2, 3, 5], "right_arm"),
    ([2, 3, 6], "right_hand"),
    ([3, 3], "torso"),
    ([3, 4], "vitals"),
    ([4, 4], "torso"),
    ([4, 5, 2], "left_arm"),
    ([4, 5, 6], "left_hand"),
    ([5, 5], "left_thigh"),
    ([5, 6, 3], "left_leg"),
    ([5, 6, 6], "left_foot"),
    ([6, 6], "groin"),
]


@pytest.mark.parametrize(("dice", "location"), TABLE_10, ids=[t[1] for t in TABLE_10])
def test_table_10_locates_each_round(dice: list[int], location: str) -> None:
    rolled = Dice(1, {"location:whisper": dice, "accuracy:whisper": [4]})
    [only] = suppression.incoming("whisper", 1, rolled)
    assert (only.round, only.location, only.accuracy) == (1, location, 4)
    rolled.check_given_used()


def test_each_round_gets_its_location_then_each_its_d6_of_successes() -> None:
    # Round 1: 3 + 4 = 7, vitals; round 2: 2 + 3 = 5, an arm, 1: the right arm; round 3:
    # 6 + 6 = 12, the groin. Then the successes 1, 3, 5 in round order.
    rolled = Dice(1, {"location:whisper": [3, 4, 2, 3, 1, 6, 6], "accuracy:whisper": [1, 3, 5]})
    rounds = suppression.incoming("whisper", 3, rolled)
    assert rounds == [
        Incoming(1, "vitals", 1),
        Incoming(2, "right_arm", 3),
        Incoming(3, "groin", 5),
    ]
    assert [r.step for r in rolled.rolls] == ["location:whisper", "accuracy:whisper"]


def test_the_dodge_comes_off_each_round_ties_scatter_four_and_below_zero_is_dodged() -> None:
    rounds = [
        Incoming(1, "torso", 6),  # 6 - 2 = 4: no scatter (004, Table 1)
        Incoming(2, "torso", 3),  # 3 - 2 = 1: 3 hexes
        Incoming(3, "right_thigh", 2),  # 2 - 2 = 0: a tie, 4 hexes (README)
        Incoming(4, "head", 1),  # 1 - 2 < 0: dodged
    ]
    # Directions: round 2 up (1); round 3 down (4). Round 1 does not scatter and round 4 is
    # dodged: neither rolls one.
    rolled = Dice(1, {"scatter:whisper": [1, 4]})
    placed = suppression.placed("whisper", rounds, 2, 5, rolled)
    rolled.check_given_used()
    assert [(r.round, r.successes, r.outcome) for r in placed] == [
        (1, 4, "hit"),
        (2, 1, "hit"),
        (3, 0, "hit"),
        (4, 0, "dodged"),
    ]
    assert all(r.target_number == 5 for r in placed)
    first, second, third, fourth = placed
    assert first.scatter is not None and second.scatter is not None and third.scatter is not None
    # Round 1 stays on the torso's aim point (column 2, row 3).
    assert (first.scatter.hexes, first.scatter.direction, first.location) == (0, None, "torso")
    assert first.scatter.path == [] and first.scatter.landed == first.scatter.aim
    # Round 2: up three hexes in column 2, rows 2 (vitals), 1 (head), 0 (head).
    assert (second.scatter.hexes, second.scatter.direction) == (3, 1)
    assert second.location == "head"
    assert [body_location(h) for h in second.scatter.path] == ["vitals", "head", "head"]
    # Round 3 (a tie): from the right thigh's aim (column 1, row 4) down four: rows 5 (thigh),
    # 6 and 7 (leg), 8 (foot).
    assert (third.scatter.hexes, third.scatter.direction) == (4, 4)
    assert [body_location(h) for h in third.scatter.path] == [
        "right_thigh",
        "right_leg",
        "right_leg",
        "right_foot",
    ]
    assert third.location == "right_foot"
    assert fourth.scatter is None and fourth.location is None


def body_location(at: Hex) -> str | None:
    return body.location_at(at)


def test_each_round_scatters_from_its_own_locations_aim_point_not_the_last_rounds() -> None:
    # Both rounds are torso rounds with 3 successes (1 hex), both scatter up: each goes from
    # the torso's aim (column 2, row 3) to row 2, the vitals; chained from the first's landing
    # the second would have reached row 1, the head.
    rounds = [Incoming(1, "torso", 3), Incoming(2, "torso", 3)]
    rolled = Dice(1, {"scatter:whisper": [1, 1]})
    placed = suppression.placed("whisper", rounds, 0, 4, rolled)
    assert [r.location for r in placed] == ["vitals", "vitals"]
    assert placed[0].scatter is not None and placed[1].scatter is not None
    assert placed[0].scatter.aim == placed[1].scatter.aim


def test_a_round_that_scatters_off_the_body_misses() -> None:
    # A head round with 1 success: 3 hexes; up (1) from the head's aim (column 2, row 1): row 0
    # (head), then two rows above the figure.
    rolled = Dice(1, {"scatter:whisper": [1]})
    [round_] = suppression.placed("whisper", [Incoming(1, "head", 1)], 0, 4, rolled)
    assert (round_.outcome, round_.location) == ("off_body", None)
    assert round_.scatter is not None and round_.scatter.location is None
    # From the left hand's aim (column 4, row 5) to the viewer's right (3, down-right): off.
    rolled = Dice(1, {"scatter:whisper": [3]})
    [round_] = suppression.placed("whisper", [Incoming(1, "left_hand", 2)], 0, 4, rolled)
    assert round_.outcome == "off_body"


@given(
    rounds=st.integers(min_value=0, max_value=12),
    dodge_successes=st.integers(min_value=0, max_value=8),
    seed=st.integers(min_value=0, max_value=2**32),
)
@settings(max_examples=200, deadline=None)
def test_every_round_is_dodged_or_lands_somewhere_and_the_same_dice_land_it_the_same(
    rounds: int, dodge_successes: int, seed: int
) -> None:
    def land() -> list[HLRound]:
        rolled = Dice(seed)
        return suppression.placed(
            "whisper", suppression.incoming("whisper", rounds, rolled), dodge_successes, 4, rolled
        )

    placed = land()
    assert placed == land()
    assert [r.round for r in placed] == list(range(1, rounds + 1))
    for r in placed:
        assert r.successes >= 0
        if r.outcome == "dodged":
            assert r.scatter is None and r.location is None
        else:
            assert r.scatter is not None
            assert r.scatter.hexes == body.scatter_hexes(r.successes)
            assert len(r.scatter.path) == r.scatter.hexes
            assert r.location == body.location_at(r.scatter.landed)
            assert (r.outcome == "hit") == (r.location is not None)


# --- the whole zone test (hits.struck and dodge.dodge) -----------------------------------------


def test_pete_suppresses_whisper_004s_example() -> None:
    """004, "Suppression Fire": Pete's 6-round suppression fire at short range, no injuries:
    6 dice against 4, 3 successes; d6s 1, 3 and 5; three rounds hit, so Whisper dodges at
    4 + 1 = 5 and gets 2: the first round is dodged, the second has 3 - 2 = 1 success, the
    third 5 - 2 = 3.

    The example says the second "will scatter 2 hexes" and the third "1 hex"; Table 1 gives
    1 net success 3 hexes and 3 net successes 1 hex: Table 1 wins for the second (3 hexes),
    and agrees for the third."""
    result, state = zone_test(
        distance_m=8,
        dodge={"combat_pool": 4},
        dice={
            # 6 dice against 4: 4, 5, 6 succeed; 1, 2, 3 do not.
            "suppression:whisper": [4, 1, 5, 2, 6, 3],
            # Round 1: 3 + 4 = 7 vitals; round 2: 3 + 3 = 6 torso; round 3: 4 + 5 = 9, an arm,
            # then 2: the left arm.
            "location:whisper": [3, 4, 3, 3, 4, 5, 2],
            "accuracy:whisper": [1, 3, 5],
            # 4 Combat Pool dice against 5: 5 and 6 succeed.
            "dodge:whisper": [5, 6, 2, 3],
            # Round 2 scatters up (1), round 3 up-left (6).
            "scatter:whisper": [1, 6],
        },
    )
    assert (result.attack.dice, result.attack.target_number, result.attack.successes) == (6, 4, 3)
    target = result.target
    assert target.dodge is not None
    assert (target.dodge.target_number, target.dodge.successes) == (5, 2)
    assert [(r.round, r.successes, r.outcome) for r in target.rounds] == [
        (1, 0, "dodged"),
        (2, 1, "hit"),
        (3, 3, "hit"),
    ]
    _, second, third = target.rounds
    assert second.scatter is not None and third.scatter is not None
    # Table 1, not the example's "2 hexes": 1 net -> 3. Up from the torso's aim (column 2,
    # row 3): rows 2, 1, 0: the head.
    assert (second.scatter.hexes, second.location) == (3, "head")
    # 3 net -> 1 hex. Up-left from the left arm's aim (column 4, row 2): column 3, row 1, torso.
    assert (third.scatter.hexes, third.location) == (1, "torso")
    assert (target.attack_successes, target.dodge_successes, target.net_successes) == (3, 2, 2)
    # Both rounds reached the body: head and torso are hit.
    assert {h.location for h in target.hits} == {"head", "torso"}
    assert target.outcome in ("hit", "stopped")
    # Whisper's dodge spent 4 of his 6 Combat Pool dice.
    assert state.actors["whisper"].pool_left == 6 - 4
    assert [(p.pool, p.spent, p.left) for p in result.combat_pool] == [("combat", 4, 2)]
    steps = [r.step for r in result.dice]
    assert steps[:5] == [
        "suppression:whisper",
        "location:whisper",
        "accuracy:whisper",
        "dodge:whisper",
        "scatter:whisper",
    ]


def test_the_dodges_target_number_grows_by_one_per_three_rounds_that_hit() -> None:
    # 6 successes: 6 rounds; 004: 4 + 6 // 3 = 6.
    result, _ = zone_test(
        dodge={"combat_pool": 2},
        dice={
            "suppression:whisper": [4, 4, 4, 4, 4, 4],
            "location:whisper": [3, 3] * 6,
            "accuracy:whisper": [1] * 6,
            "dodge:whisper": [6, 6],
        },
    )
    assert result.target.dodge is not None and result.target.dodge.target_number == 6
    # 1 - 2 < 0 for every round: all dodged.
    assert result.target.outcome == "dodged" and result.target.hits == []


def test_table_10_through_the_zone_test() -> None:
    for dice, location in TABLE_10:
        # One success; a 4 of accuracy: no scatter, so the round hits its Table 10 location.
        result, _ = zone_test(
            dice={
                "suppression:whisper": [4, 3, 3, 3, 3, 3],
                "location:whisper": dice,
                "accuracy:whisper": [4],
            }
        )
        [round_] = result.target.rounds
        assert (round_.outcome, round_.location) == ("hit", location), dice
        assert [h.location for h in result.target.hits] == [location]


def test_a_tie_scatters_four_hexes_and_takes_four_damage_dice() -> None:
    # One round at the right thigh with 2 successes, a dodge of 2: 0, a tie (README): 4 hexes
    # down (4) to the right foot, and the damage test at 7 Power - 4 = 3 dice.
    result, _ = zone_test(
        dodge={"combat_pool": 2},
        dice={
            "suppression:whisper": [4, 3, 3, 3, 3, 3],
            "location:whisper": [2, 2],
            "accuracy:whisper": [2],
            "dodge:whisper": [4, 5],
            "scatter:whisper": [4],
        },
    )
    [round_] = result.target.rounds
    assert (round_.successes, round_.outcome, round_.location) == (0, "hit", "right_foot")
    [hit] = result.target.hits
    [damage] = hit.damage
    assert (damage.accuracy.value, damage.dice) == (-4, 7 - 4)


def test_the_rounds_that_land_wound_the_tester_and_stay_on_its_monitors() -> None:
    # One round at the vitals (3 + 4), accuracy 4: no scatter; Whisper wears nothing. The damage
    # test (004, Table 3 at 4 net: +0): 7 dice, 4 4 4 succeed, the 1 takes one off: 2
    # successes, M staged to S. The vitals' monitor gets 2 + 2 (Table 6) = 4: two stages, D,
    # 10 boxes; the trauma monitor 2 + 0: S, 6 boxes.
    result, state = zone_test(
        dice={
            "suppression:whisper": [4, 3, 3, 3, 3, 3],
            "location:whisper": [3, 4],
            "accuracy:whisper": [4],
            "damage:whisper": [4, 4, 4, 1, 2, 3, 3],
        }
    )
    [hit] = result.target.hits
    [damage] = hit.damage
    assert (damage.dice, damage.successes, damage.ones, damage.net, damage.level) == (
        7,
        3,
        1,
        3 - 1,
        "S",
    )
    monitors = state.actors["whisper"].monitors
    assert (monitors["vitals"].physical, monitors["trauma"].physical) == (10, 6)
    assert result.target.condition.deadly
    msgspec.json.decode(msgspec.json.encode(state), type=HLState)


def test_good_cover_needs_the_rule_of_six() -> None:
    # 4 + 8 = 12: a 6 re-rolled to 6 makes 12 (a success), a 6 re-rolled to 5 makes 11.
    result, _ = zone_test(
        cover="good",
        dice={
            "suppression:whisper": [6, 6, 3, 3, 3, 3, 6, 5],
            "location:whisper": [3, 3],
            "accuracy:whisper": [4],
        },
    )
    assert result.attack.totals == [12, 11, 3, 3, 3, 3]
    assert result.attack.successes == 1 and len(result.target.rounds) == 1


# --- the geometry the zone needs (service/rules/geometry.py) ----------------------------------


def test_non_convex_areas_hold_only_what_is_inside_them() -> None:
    ell = [(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
    assert geometry.inside(ell, (2.5, 0.5)) and geometry.inside(ell, (0.5, 1.5))
    # The notch the L leaves out, and a point on its edge (inside: the edge counts).
    assert not geometry.inside(ell, (2.0, 1.5))
    assert geometry.inside(ell, (2.0, 1.0))
    assert geometry.in_zone(ell, None, None, (0.5, 1.5))
    assert not geometry.in_zone(ell, None, None, (2.0, 1.5))
    assert geometry.area(ell) == 4.0
    assert not geometry.crosses_itself(ell)
    assert geometry.crosses_itself([(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)])


def test_the_docs_draw_the_body_map_the_service_serves() -> None:
    # docs/rulesets/sr3-hardlife.md's drawing: `make docs-images` redraws it from body.py.
    drawn = Path(__file__).parent.parent / "docs" / "img" / "sr3-hardlife-body-map.svg"
    assert drawn.read_text(encoding="utf-8") == body_map_svg.draw(body.body_map())


def test_the_docs_examples_fire_and_test_as_the_docs_say() -> None:
    page = (Path(__file__).parent.parent / "docs" / "rulesets" / "sr3-hardlife.md").read_text()
    blocks = [b.split("```", 1)[0] for b in page.split("```json\n")[1:]]
    fired_body, tested_body = (msgspec.json.decode(b.encode()) for b in blocks[:2])
    fired_body.pop("ruleset")
    result, state = suppress(**fired_body)
    # 6 bullets x 1 m² = 6 rounds, 32 - 6 = 26 left.
    assert (result.rounds_fired, result.ammo_left) == (6, 26)
    tested_body.pop("ruleset")
    tested, _ = zone_test(state, **{**tested_body, "dice": {"suppression:whisper": MISS6}})
    # Short range (8 m, an SMG), no cover, Pete unhurt: TN 4; no die reached it.
    assert (tested.attack.target_number, tested.target.outcome) == (4, "miss")


# --- through HTTP -------------------------------------------------------------------------------


async def _post(client: Any, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    response = await client.post(path, json=body)
    return response.status, await response.json()


@pytest.mark.parametrize("redis", [False, True], ids=["memory", "redis"])
async def test_suppression_fire_over_http_from_the_zone_to_its_end(
    make_client: Any, redis: bool
) -> None:
    client = await make_client(redis=redis)
    encounter = await new_encounter(client, ruleset="sr3-hardlife")
    base = f"/v1/encounters/{encounter}"
    # An L round a corner (4 m², as above), 2 bullets per m²: 8 rounds.
    ell = [
        {"x": 0, "y": 0},
        {"x": 3, "y": 0},
        {"x": 3, "y": 1},
        {"x": 1, "y": 1},
        {"x": 1, "y": 2},
        {"x": 0, "y": 2},
    ]
    fired = {
        "ruleset": "sr3-hardlife",
        "attacker": PETE,
        "weapon": SMG,
        "mode": "FA",
        "suppression": {"area": ell, "bullets_per_m2": 2},
    }
    status, answer = await _post(client, f"{base}/attacks", fired)
    assert status == 201, answer
    assert answer["result"]["kind"] == "sr3_hardlife_attack"
    assert (answer["result"]["rounds_fired"], answer["result"]["ammo_left"]) == (8, 32 - 8)
    zones = (await (await client.get(f"{base}/zones")).json())["zones"]
    assert [(z["id"], z["shape"], z["hits"]) for z in zones] == [("zone-1", "polygon", 2)]

    # Whisper comes on the scene outside it, steps into the L's notch (outside: no test), then
    # into the L.
    whisper = {"position": {"x": 5.0, "y": 5.0}, "sheet": {"ruleset": "sr3-hardlife", "body": 4}}
    response = await client.put(f"{base}/actors/whisper", json=whisper)
    assert response.status == 200, await response.text()
    status, moved = await _post(
        client, f"{base}/actors/whisper/move", {"position": {"x": 2, "y": 1.5}}
    )
    assert status == 201, moved
    assert moved["result"].get("must_test", []) == []
    status, moved = await _post(
        client, f"{base}/actors/whisper/move", {"position": {"x": 0.5, "y": 1.5}}
    )
    assert status == 201, moved
    assert moved["result"]["must_test"] == ["zone-1"]

    # The zone test: 2 dice against 4 at short range; one 5: one round; 3 + 4 = 7, the vitals,
    # with a 6 of accuracy (no scatter).
    test = {
        "ruleset": "sr3-hardlife",
        "actor": "whisper",
        "defender": WHISPER,
        "distance_m": 8,
        "dice": {
            "suppression:whisper": [5, 2],
            "location:whisper": [3, 4],
            "accuracy:whisper": [6],
        },
    }
    status, tested = await _post(client, f"{base}/zones/zone-1/tests", test)
    assert status == 201, tested
    result = tested["result"]
    assert result["kind"] == "sr3_hardlife_zone_test"
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (4, 1)
    [round_] = result["target"]["rounds"]
    assert (round_["outcome"], round_["location"]) == ("hit", "vitals")
    # Beyond an SMG's 150 m the fire does not reach: a problem naming the field.
    status, problem = await _post(
        client, f"{base}/zones/zone-1/tests", {**test, "distance_m": 151, "dice": {}}
    )
    assert status == 422 and problem["path"] == "$.distance_m"

    # Filled from the scene: Whisper at (0.5, 1.5), Pete on no square of it; without an origin
    # the distance is unknown (a 422 naming it).
    by_name = {"actor": "whisper", "dice": {"suppression:whisper": [3, 3]}}
    status, problem = await _post(client, f"{base}/zones/zone-1/tests", by_name)
    assert (status, problem["path"]) == (422, "$.distance_m")

    # Pete's next action phase begins: his zone ends.
    status, advanced = await _post(
        client, f"{base}/advance", {"to": "action_phase", "actor": "pete"}
    )
    assert status == 201, advanced
    assert (await (await client.get(f"{base}/zones")).json())["zones"] == []


async def test_a_zone_test_by_name_counts_the_range_from_where_the_shooter_fired(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3-hardlife")
    base = f"/v1/encounters/{encounter}"
    # Pete fired from 30 m south of the square; he is not on the scene.
    order = {"area": SQUARE, "bullets_per_m2": 2, "origin": {"x": 0.0, "y": -30.0}}
    fired = {"attacker": PETE, "weapon": SMG, "mode": "FA", "suppression": order}
    status, answer = await _post(client, f"{base}/attacks", fired)
    assert status == 201, answer
    whisper = {
        "position": {"x": 0.5, "y": 0.5},
        "sheet": {"ruleset": "sr3-hardlife", "body": 4, "willpower": 4},
    }
    response = await client.put(f"{base}/actors/whisper", json=whisper)
    assert response.status == 200, await response.text()
    test = {"actor": "whisper", "dice": {"suppression:whisper": [3, 3]}}
    status, tested = await _post(client, f"{base}/zones/zone-1/tests", test)
    assert status == 201, tested
    # hypot(0.5, 30.5) = 30.5 m: an SMG's medium band (11-40 m, 002): 4 + 1.
    assert tested["result"]["target"]["range"] == "medium"
    assert tested["result"]["attack"]["target_number"] == 5
