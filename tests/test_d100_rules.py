"""The d100 firearms chapter through `resolve` with given dice.

rules-sources/003_e47222605a1f2969.txt; the core test: rules-sources/README.md, "d100".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from schemas.d100 import (
    D100ActionRequest,
    D100ActorState,
    D100AttackRequest,
    D100AttackResult,
    D100Damage,
    D100State,
    D100Test,
    D100ZoneTestRequest,
    D100ZoneTestResult,
)
from schemas.encounter import ActionResult, AdvanceRequest, TurnState
from service.rules import RULESETS, Resolution, RuleViolation
from service.rules.d100 import tables
from service.rules.d100.attack import split
from service.rules.d100.core import hits
from service.rules.dice import Dice, DiceError, DiceShortage, check_given
from tests import d100_requests as make

D100 = RULESETS["d100"]


def attack(
    body: dict[str, Any],
    state: D100State | None = None,
    seed: int = 1,
    turn: TurnState | None = None,
) -> Resolution[D100AttackResult]:
    """An attack as the engine resolves it: given dice checked against its steps, all used."""
    request = msgspec.convert(body, D100AttackRequest)
    check_given(request.dice, D100.dice_steps(request))
    dice = Dice(seed, request.dice)
    resolution = D100.resolve_attack(request, state or D100State(), turn or TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, D100AttackResult)
    return resolution


def act(body: dict[str, Any], state: D100State | None = None) -> Resolution[ActionResult]:
    request = msgspec.convert({"actor": "vex", **body}, D100ActionRequest)
    return D100.resolve_action(request, state or D100State(), TurnState(), Dice(1))


def zone_test(zone: str, body: dict[str, Any], state: D100State) -> Resolution[D100ZoneTestResult]:
    request = msgspec.convert({"actor": "runner", **body}, D100ZoneTestRequest)
    check_given(request.dice, D100.zone_test_dice_steps(request))
    dice = Dice(1, request.dice)
    resolution = D100.resolve_zone_test(zone, request, state, TurnState(), dice)
    dice.check_given_used()
    return resolution


def advance(state: D100State, to: str, actor: str | None = None, phase: int = 1) -> D100State:
    request = msgspec.convert({"to": to, "actor": actor}, AdvanceRequest)
    after, _ = D100.on_advance(request, state, TurnState(phase=phase))
    assert isinstance(after, D100State)
    return after


def refused(call: Any, path: str, kind: str = "rule-violation", status: int = 422) -> str:
    with pytest.raises(RuleViolation) as caught:
        call()
    assert (caught.value.path, caught.value.kind, caught.value.status) == (path, kind, status)
    return caught.value.detail


def steps(result: D100AttackResult | D100ZoneTestResult) -> list[str]:
    return [roll.step for roll in result.dice]


# --- the core test (README) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("success_target", "roll", "expected"),
    [(50, 50, 1), (50, 41, 1), (50, 40, 2), (50, 1, 5), (50, 51, 0), (0, 1, 0), (120, 100, 3)],
)
def test_hits_are_one_plus_the_margin_in_tens_on_a_roll_at_or_under(
    success_target: int, roll: int, expected: int
) -> None:
    body = make.attack(
        attacker=make.attacker(marksmanship=success_target),
        weapon=make.weapon(bonus_dice=0),
        targets=[make.target(defender={}, location="torso")],
        dice={"attack": [roll]},
    )
    test = attack(body).result.targets[0].attack
    assert test == D100Test(success_target, roll, expected > 0, expected)
    assert hits(success_target, roll) == expected


# --- Shot Rate ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shot_rate", "bonus", "action_points", "rounds"),
    [
        (0, 0, 2, 1),
        (1, 5, 2, 3),
        (2, 10, 2, 6),
        (3, 15, 2, 12),
        (4, 15, 3, 18),
        (5, 15, 3, 24),
        (6, 15, 3, 30),
    ],
)
def test_shot_rate_adds_five_a_point_up_to_recoil_control_and_pays_the_table(
    shot_rate: int, bonus: int, action_points: int, rounds: int
) -> None:
    # The chapter's example: Recoil Control 3 gains +15 at SR3, and only +15 above it.
    body = make.attack(shot_rate=shot_rate, dice={"attack": [100]})
    result = attack(body).result
    shot_rate_bonus = [m.value for m in result.modifiers if m.source.startswith("Shot Rate")]
    assert shot_rate_bonus == ([bonus] if shot_rate else [])
    assert result.success_target == 50 + bonus
    assert (result.action_points, result.rounds_fired, result.ammo_left) == (
        action_points,
        rounds,
        30 - rounds,
    )


def test_a_shot_rate_above_the_weapons_is_refused() -> None:
    body = make.attack(weapon=make.weapon(shot_rate=2), shot_rate=3)
    detail = refused(lambda: attack(body), "$.shot_rate", "mode-not-available")
    assert "Shot Rate 2 at most" in detail


@pytest.mark.parametrize(("shot_rate", "ammo", "spends"), [(4, 17, 18), (0, 0, 1), (6, 29, 30)])
def test_a_weapon_without_the_rounds_for_the_shot_rate_cannot_fire(
    shot_rate: int, ammo: int, spends: int
) -> None:
    body = make.attack(weapon=make.weapon(ammo=ammo), shot_rate=shot_rate)
    detail = refused(lambda: attack(body), "$.weapon.ammo", "out-of-ammo")
    assert detail == f"SR{shot_rate} spends {spends} rounds but 'smg' has {ammo} left"


# --- the whole attack and each target ---------------------------------------------------------


def test_range_bands_wounds_aim_visibility_and_named_modifiers_build_the_success_target() -> None:
    body = make.attack(
        attacker=make.attacker(wound_modifier=-10),
        aim=10,
        modifiers=[{"source": "smartlink", "value": 10}],
        targets=[
            make.target(
                distance_m=80,
                visibility=-20,
                modifiers=[{"source": "running target", "value": -10}],
            )
        ],
        dice={"attack": [100]},
    )
    result = attack(body).result
    assert [(m.source, m.value) for m in result.modifiers] == [
        ("Marksmanship", 50),
        ("wounds", -10),
        ("aim", 10),
        ("smartlink", 10),
    ]
    target = result.targets[0]
    assert target.range_band == "long"
    assert [(m.source, m.value) for m in target.modifiers] == [
        ("range (long, 80 m)", -20),
        ("visibility", -20),
        ("running target", -10),
    ]
    assert (target.share, target.attack.success_target) == (60, 10)


def test_beyond_the_last_range_band_the_weapon_does_not_reach() -> None:
    body = make.attack(targets=[make.target(distance_m=200.5)])
    detail = refused(lambda: attack(body), "$.targets[0].distance_m", "out-of-range")
    assert detail == "200.5 m is beyond the range of 'smg' (200 m)"


def test_range_bands_go_outwards() -> None:
    bands = [{"up_to_m": 50, "modifier": 0}, {"up_to_m": 20, "modifier": -10}]
    body = make.attack(weapon=make.weapon(range_bands=bands))
    refused(lambda: attack(body), "$.weapon.range_bands[1].up_to_m")


def test_damage_is_flat_plus_bonus_plus_net_hits_less_passive_defense_then_armour() -> None:
    # 7 + 2d6, armour penetration 2. Attack 5 hits (50 vs 05), defense 2 (30 vs 15): 3 net.
    # Bonus 4 + 5; Passive Defense 2 hits (20 vs 10): 7 + 9 + 3 - 2 = 17. Torso (d10 5),
    # armour 6 there less 2: 13 through.
    body = make.attack(
        targets=[make.target(defender=make.defender(armor_by_location={"torso": 6}))],
        dice={
            "attack": [5],
            "defense:goon-1": [15],
            "bonus:goon-1": [4, 5],
            "passive_defense:goon-1": [10],
            "location:goon-1": [5],
        },
    )
    target = attack(body).result.targets[0]
    assert (target.outcome, target.net_hits) == ("hit", 3)
    assert target.damage == D100Damage(
        flat=7,
        bonus_dice=2,
        bonus_hits=9,
        net_hits=3,
        passive_defense=D100Test(20, 10, True, 2),
        passive_defense_hits=2,
        damage=17,
        location="torso",
        armor=6,
        armor_penetration=2,
        effective_armor=4,
        wound=13,
    )


def test_armour_penetration_takes_armour_to_zero_not_below() -> None:
    body = make.attack(
        weapon=make.weapon(armor_penetration=5),
        targets=[make.target(defender={"armor": 2})],
        dice={"attack": [45], "bonus:goon-1": [1, 1], "location:goon-1": [1]},
    )
    damage = attack(body).result.targets[0].damage
    assert damage is not None
    assert (damage.location, damage.effective_armor, damage.damage, damage.wound) == (
        "head",
        0,
        10,
        10,
    )


def test_passive_defense_never_takes_damage_below_zero() -> None:
    body = make.attack(
        weapon=make.weapon(damage=0, bonus_dice=0),
        targets=[make.target(defender={"passive_defense": 100}, location="head")],
        dice={"attack": [50], "passive_defense:goon-1": [1]},
    )
    damage = attack(body).result.targets[0].damage
    assert damage is not None
    assert (damage.passive_defense_hits, damage.damage, damage.wound) == (10, 0, 0)


def test_ties_go_to_the_defender() -> None:
    body = make.attack(dice={"attack": [30], "defense:goon-1": [10]})
    target = attack(body).result.targets[0]
    assert (target.attack.hits, target.defense and target.defense.hits) == (3, 3)
    assert (target.outcome, target.net_hits, target.damage) == ("miss", 0, None)


def test_a_failed_attack_is_a_miss_and_the_defender_rolls_nothing() -> None:
    # The defense was rolled at the table in case: a step never reached is no mistake.
    body = make.attack(dice={"attack": [51], "defense:goon-1": [1]})
    result = attack(body).result
    assert (result.targets[0].outcome, result.targets[0].defense) == ("miss", None)
    assert steps(result) == ["attack"]


@pytest.mark.parametrize(("face", "location"), sorted(tables.HIT_LOCATIONS.items()))
def test_the_hit_location_is_a_d10_unless_the_request_gives_it(face: int, location: str) -> None:
    rolled = make.attack(
        dice={"attack": [1], "defense:goon-1": [90], "location:goon-1": [face]}, seed=3
    )
    damage = attack(rolled).result.targets[0].damage
    assert damage is not None and damage.location == location
    called = make.attack(targets=[make.target(location="left_leg")], dice={"attack": [1]})
    result = attack(called).result
    assert result.targets[0].damage and result.targets[0].damage.location == "left_leg"
    assert "location:goon-1" not in steps(result)


def test_given_dice_must_name_the_attacks_steps() -> None:
    body = make.attack(dice={"attack:goon-1": [5]})
    with pytest.raises(DiceError) as caught:
        attack(body)
    assert caught.value.path == '$.dice["attack:goon-1"]'
    assert "bonus:goon-1" in caught.value.detail


# --- multi-target fire ------------------------------------------------------------------------


def test_multi_target_fire_divides_the_whole_success_target_then_applies_each_targets_own() -> None:
    # 50 + 15 (SR3, RC 3) - 10 wounds = 55, halved: 28 and 27; the near target adds +10 range.
    body = make.attack(
        attacker=make.attacker(wound_modifier=-10),
        shot_rate=3,
        targets=[
            make.target(id="a", share_percent=50),
            make.target(id="b", share_percent=50, distance_m=5),
        ],
        dice={"attack:a": [100], "attack:b": [100]},
    )
    result = attack(body).result
    assert result.success_target == 55
    assert [(t.target, t.share, t.attack.success_target) for t in result.targets] == [
        ("a", 28, 28),
        ("b", 27, 37),
    ]
    assert steps(result) == ["attack:a", "attack:b"]


def test_each_target_gets_its_own_roll_defense_location_and_bonus_dice() -> None:
    body = make.attack(
        shot_rate=1,
        targets=[
            make.target(id="a", share_percent=70),
            make.target(id="b", share_percent=30, defender={"armor": 0}),
        ],
        dice={
            "attack:a": [1],
            "defense:a": [99],
            "bonus:a": [6, 6],
            "passive_defense:a": [99],
            "location:a": [2],
            "attack:b": [1],
            "bonus:b": [1, 2],
            "location:b": [9],
        },
    )
    result = attack(body).result
    # 55 * 70% = 38.5 and 55 * 30% = 16.5: the tie of remainders goes to the first.
    assert [t.share for t in result.targets] == [39, 16]
    damages = [t.damage for t in result.targets]
    assert [(d.bonus_hits, d.location) for d in damages if d] == [
        (12, "right_arm"),
        (3, "right_leg"),
    ]


def test_sr0_attacks_one_target_only() -> None:
    targets = [make.target(id="a", share_percent=50), make.target(id="b", share_percent=50)]
    refused(lambda: attack(make.attack(targets=targets)), "$.shot_rate")


def test_aiming_cannot_be_combined_with_multi_target_fire() -> None:
    targets = [make.target(id="a", share_percent=50), make.target(id="b", share_percent=50)]
    body = make.attack(shot_rate=2, aim=10, targets=targets)
    assert "aiming" in refused(lambda: attack(body), "$.aim")


def test_the_shares_are_given_for_every_target_and_add_up_to_100() -> None:
    missing = make.attack(
        shot_rate=2, targets=[make.target(id="a", share_percent=50), make.target(id="b")]
    )
    refused(lambda: attack(missing), "$.targets[1].share_percent")
    short = make.attack(
        shot_rate=2,
        targets=[make.target(id="a", share_percent=50), make.target(id="b", share_percent=40)],
    )
    assert "add up to 90" in refused(lambda: attack(short), "$.targets[1].share_percent")
    twice = make.attack(
        shot_rate=2,
        targets=[make.target(id="a", share_percent=50), make.target(id="a", share_percent=50)],
    )
    refused(lambda: attack(twice), "$.targets[1].id")


# --- double-barreled shotguns -----------------------------------------------------------------

SHOTGUN = make.weapon(
    id="coach-gun", shot_rate=0, ammo=2, double_barreled=True, armor_penetration=0
)


def test_both_barrels_double_the_bonus_dice_and_nothing_else() -> None:
    # The chapter's example: 7 + 2d6 becomes 7 + 4d6.
    body = make.attack(
        weapon=SHOTGUN,
        both_barrels=True,
        targets=[make.target(defender={"armor": 0}, location="torso")],
        dice={"attack": [25], "bonus:goon-1": [1, 2, 3, 4]},
    )
    result = attack(body).result
    damage = result.targets[0].damage
    assert damage is not None
    assert (damage.flat, damage.bonus_dice, damage.bonus_hits) == (7, 4, 10)
    # Hits, the action point cost and the range stay those of one shot; two shells are spent.
    assert (result.targets[0].attack.hits, result.action_points) == (3, 2)
    assert (result.rounds_fired, result.ammo_left) == (2, 0)
    assert damage.damage == 7 + 10 + 3


def test_both_barrels_roll_four_bonus_dice_so_two_given_are_short() -> None:
    body = make.attack(
        weapon=SHOTGUN,
        both_barrels=True,
        targets=[make.target(defender={}, location="torso")],
        dice={"attack": [25], "bonus:goon-1": [1, 2]},
    )
    with pytest.raises(DiceShortage) as caught:
        attack(body)
    assert caught.value.needed == 4


def test_both_barrels_need_a_double_barreled_gun_two_shells_one_target_and_sr0() -> None:
    refused(lambda: attack(make.attack(both_barrels=True)), "$.both_barrels")
    one_shell = make.attack(weapon={**SHOTGUN, "ammo": 1}, both_barrels=True)
    assert "both barrels spends 2 rounds" in refused(
        lambda: attack(one_shell), "$.weapon.ammo", "out-of-ammo"
    )
    burst = make.attack(weapon={**SHOTGUN, "shot_rate": 1}, both_barrels=True, shot_rate=1)
    refused(lambda: attack(burst), "$.both_barrels")


# --- action points ----------------------------------------------------------------------------


def test_action_points_add_up_per_turn_and_a_budget_refuses_the_one_too_many() -> None:
    state = D100State(action_point_budget=5)
    first = attack(make.attack(dice={"attack": [100]}), state)
    assert first.result.action_points_spent == 2
    second = act({"action": "move", "action_points": 1}, first.state)
    assert second.result.action_points_spent == 3
    third = attack(make.attack(dice={"attack": [100]}), second.state)
    assert third.result.action_points_spent == 5
    detail = refused(
        lambda: attack(make.attack(), third.state),
        "$.shot_rate",
        "action-points-exceeded",
        409,
    )
    assert detail == "this costs 2 action points but vex has 0 of 5 left this turn"


def test_without_a_budget_action_points_are_counted_not_refused() -> None:
    state = D100State(actors={"vex": D100ActorState(action_points_spent=40)})
    assert attack(make.attack(dice={"attack": [100]}), state).result.action_points_spent == 42


def test_an_actors_turn_starts_its_action_points_afresh() -> None:
    state = D100State(
        actors={
            "vex": D100ActorState(action_points_spent=4),
            "kim": D100ActorState(action_points_spent=3),
        }
    )
    after = advance(state, "action_phase", "vex")
    assert after.actors["vex"].action_points_spent == 0
    assert after.actors["kim"].action_points_spent == 3
    # A VTT that advances actor by actor resets at each actor's turn, not at the new round;
    # one that only counts rounds (phase 0) starts everyone afresh each combat turn.
    assert advance(state, "combat_turn", phase=4) == state
    assert all(
        a.action_points_spent == 0 for a in advance(state, "combat_turn", phase=0).actors.values()
    )


# --- suppressive fire -------------------------------------------------------------------------


def suppressed(
    roll: int = 25, state: D100State | None = None, **fields: Any
) -> Resolution[D100AttackResult]:
    return attack(make.suppressive(dice={"suppression": [roll]}, **fields), state)


def test_suppressive_fire_makes_a_10m_circle_whose_hits_set_its_penalty() -> None:
    resolution = suppressed(
        25,
        bystanders=[
            {"id": "in", "position": {"x": 32, "y": 0}},
            {"id": "covered", "position": {"x": 31, "y": 1}, "in_cover": True},
            {"id": "prone", "position": {"x": 28, "y": -3}, "prone": True},
            {"id": "out", "position": {"x": 36, "y": 0}},
        ],
    )
    result = resolution.result
    # 3 action points and 20 rounds, whatever the Shot Rate; no bonus dice rolled.
    assert (result.action_points, result.rounds_fired, result.ammo_left) == (3, 20, 10)
    assert steps(result) == ["suppression"]
    assert result.zone is not None and result.zone.zone is not None
    zone = result.zone.zone
    assert (zone.shape, zone.radius_m, zone.hits, zone.penalty) == ("circle", 5.0, 3, -15)
    assert (zone.center and (zone.center.x, zone.center.y)) == (30, 0)
    assert [(a.actor, a.inside, a.penalty, a.must_test) for a in result.zone.affected] == [
        ("in", True, -15, True),
        ("covered", True, -15, False),
        ("prone", True, -15, False),
        ("out", False, 0, False),
    ]
    assert list(resolution.state.zones) == ["zone-1"]


def test_the_suppressive_test_measures_range_to_the_centre_and_takes_no_recoil_control() -> None:
    result = suppressed(25, x=0, y=120, attacker=make.attacker(wound_modifier=-10)).result
    assert result.zone is not None
    assert [(m.source, m.value) for m in result.zone.modifiers] == [
        ("Marksmanship", 50),
        ("wounds", -10),
        ("range (long, 120 m)", -20),
    ]
    assert result.zone.test.success_target == 20


def test_a_failed_suppressive_test_makes_no_zone_but_spends_the_rounds() -> None:
    resolution = suppressed(51)
    assert resolution.result.zone is not None and resolution.result.zone.zone is None
    assert resolution.state.zones == {}
    assert (resolution.result.rounds_fired, resolution.result.action_points) == (20, 3)


def test_suppressive_fire_needs_20_rounds_a_point_in_range_and_no_targets_or_shot_rate() -> None:
    detail = refused(
        lambda: suppressed(weapon=make.weapon(ammo=19)), "$.weapon.ammo", "out-of-ammo"
    )
    assert detail == "suppressive fire spends 20 rounds but 'smg' has 19 left"
    refused(lambda: suppressed(x=250), "$.suppressive.center", "out-of-range")
    refused(lambda: suppressed(shot_rate=2), "$.shot_rate")
    with_targets = {**make.suppressive(), "targets": [make.target()]}
    refused(lambda: attack(with_targets), "$.targets")


def two_zones() -> D100State:
    """vex's zone at (30, 0) with 3 hits, and kim's at (36, 0) with 1."""
    first = suppressed(25).state
    kim = make.attacker(id="kim")
    second = attack(
        make.suppressive(x=36, attacker=kim, dice={"suppression": [45]}),
        first,
    )
    assert [z.zone.hits for z in second.state.zones.values()] == [3, 1]
    return second.state


def test_only_the_strongest_overlapping_zone_counts() -> None:
    state = two_zones()
    result = attack(
        make.suppressive(
            x=-30,
            attacker=make.attacker(id="lee"),
            dice={"suppression": [100]},
            bystanders=[
                {"id": "both", "position": {"x": 33, "y": 0}},
                {"id": "weak", "position": {"x": 40, "y": 0}},
            ],
        ),
        state,
    ).result
    # A failed test makes no zone and says nothing of who is where.
    assert result.zone is not None and result.zone.affected == []
    shot_at = attack(
        make.attack(
            attacker=make.attacker(id="lee", position={"x": 33, "y": 0}),
            targets=[make.target(defender=make.defender(position={"x": 40, "y": 0}))],
            dice={
                "attack": [1],
                "defense:goon-1": [100],
                "bonus:goon-1": [1, 1],
                "passive_defense:goon-1": [100],
                "location:goon-1": [4],
            },
        ),
        state,
    ).result
    # The shooter stands in both zones: only the stronger (-15) counts; the target in kim's (-5),
    # on its defense and its Passive Defense alike.
    assert ("suppression (zone-1, 3 hits)", -15) in [(m.source, m.value) for m in shot_at.modifiers]
    target = shot_at.targets[0]
    assert [(m.source, m.value) for m in target.defense_modifiers] == [
        ("suppression (zone-2, 1 hits)", -5)
    ]
    assert target.defense is not None and target.defense.success_target == 25
    assert target.damage and target.damage.passive_defense
    assert target.damage.passive_defense.success_target == 15


@pytest.mark.parametrize(
    ("what", "ends"),
    [
        ({"action": "move", "action_points": 1}, True),
        ({"action": "other", "action_points": 1}, True),
        ({"action": "free_action"}, False),
        ({"action": "other", "action_points": 0}, False),
        (
            {"action": "reload", "weapon": {"id": "bow", "method": "nock_arrow", "capacity": 1}},
            False,
        ),
    ],
)
def test_moving_or_anything_beyond_a_free_action_ends_the_shooters_zone(
    what: dict[str, Any], ends: bool
) -> None:
    state = suppressed(25).state
    after = act(what, state).state
    assert (after.zones == {}) is ends


def test_attacking_again_ends_the_zone_and_the_shooters_next_turn_does_too() -> None:
    state = suppressed(25).state
    assert attack(make.attack(dice={"attack": [100]}), state).state.zones == {}
    assert advance(state, "action_phase", "kim") == state
    assert advance(state, "action_phase", "vex").zones == {}
    # A VTT that counts rounds only: the next combat turn; one that counts turns: not then.
    assert advance(state, "combat_turn", phase=0).zones == {}
    assert advance(state, "combat_turn", phase=3).zones == state.zones


# --- zone tests -------------------------------------------------------------------------------


def test_avoiding_the_fire_is_athletics_with_the_zones_penalty() -> None:
    state = suppressed(25).state
    # Athletics 60 - 15: 45; a roll of 40 avoids it.
    result = zone_test(
        "zone-1",
        {"athletics": 60, "dice": {"zone_test:runner": [40]}},
        state,
    ).result
    assert [(m.source, m.value) for m in result.modifiers] == [
        ("Athletics", 60),
        ("suppression (zone-1, 3 hits)", -15),
    ]
    assert (result.test and result.test.success_target, result.hit, result.avoided) == (
        45,
        False,
        "athletics",
    )


def test_failing_to_avoid_the_fire_is_a_hit_of_cold_bonus_dice_on_the_flat_damage() -> None:
    state = suppressed(25).state
    # 7 + (3 + 4) cold bonus dice; no net hits, and the zone's own 3 hits add nothing. Passive
    # Defense 20 - 15 = 5 misses; head, armour 3 less 2.
    result = zone_test(
        "zone-1",
        {
            "athletics": 60,
            "defender": {"passive_defense": 20, "armor": 3},
            "dice": {
                "zone_test:runner": [50],
                "bonus:runner": [3, 4],
                "passive_defense:runner": [15],
                "location:runner": [1],
            },
        },
        state,
    ).result
    assert result.hit and result.damage is not None
    assert (result.damage.damage, result.damage.net_hits, result.damage.location) == (14, 0, "head")
    assert (result.damage.effective_armor, result.damage.wound) == (1, 13)
    assert result.damage.passive_defense == D100Test(5, 15, False, 0)


@pytest.mark.parametrize("avoid", ["hit_the_dirt", "dive_for_cover"])
def test_hit_the_dirt_or_dive_for_cover_avoid_the_test(avoid: str) -> None:
    state = suppressed(25).state
    result = zone_test("zone-1", {"athletics": 1, "avoid": avoid}, state).result
    assert (result.avoided, result.test, result.hit, result.dice) == (avoid, None, False, [])


def test_a_zone_test_takes_the_strongest_zone_where_the_actor_stands() -> None:
    state = two_zones()
    result = zone_test(
        "zone-2",
        {
            "athletics": 60,
            "defender": {"position": {"x": 33, "y": 0}},
            "dice": {"zone_test:runner": [1]},
        },
        state,
    ).result
    assert ("suppression (zone-1, 3 hits)", -15) in [(m.source, m.value) for m in result.modifiers]
    outside = {"athletics": 60, "defender": {"position": {"x": 50, "y": 0}}}
    refused(lambda: zone_test("zone-2", outside, state), "$.defender.position")
    refused(lambda: zone_test("zone-9", {"athletics": 60}, state), "zone", "zone-not-found", 404)


def test_moving_into_a_zone_says_the_mover_must_avoid_the_fire() -> None:
    state = suppressed(25).state
    moved = act(
        {"actor": "runner", "action": "move", "action_points": 1, "position": {"x": 29, "y": 2}},
        state,
    ).result
    assert "in zone-1: -15 to all tests; must avoid the fire (zone test)" in moved.effects
    prone = act(
        {
            "actor": "runner",
            "action": "move",
            "action_points": 1,
            "position": {"x": 29, "y": 2},
            "prone": True,
        },
        state,
    ).result
    assert "in zone-1: -15 to all tests" in prone.effects


# --- reloading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "loaded", "agility", "action_points", "held"),
    [
        ("magazine", 5, None, 1, 30),
        ("belt", 0, None, 2, 30),
        ("power_cell", 3, None, 1, 30),
        ("speedloader", 0, None, 1, 30),
        ("crossbow", 29, None, 1, 30),
        ("nock_arrow", 29, None, 0, 30),
        # Loose rounds: batches of Agility / 5 rounded up, a partial batch a full action point.
        ("individual", 23, 12, 3, 30),
        ("cylinder", 23, 10, 4, 30),
        ("internal_magazine", 28, 3, 2, 30),
        ("break_action", 29, 25, 1, 30),
    ],
)
def test_reloading_costs_the_methods_action_points(
    method: str, loaded: int, agility: int | None, action_points: int, held: int
) -> None:
    body: dict[str, Any] = {
        "action": "reload",
        "weapon": {"id": "smg", "method": method, "capacity": 30, "loaded": loaded},
    }
    if agility is not None:
        body["agility"] = agility
    result = act(body).result
    assert (result.action_points, result.ammo_left) == (action_points, held)


def test_a_weapon_is_never_loaded_beyond_capacity() -> None:
    body = {
        "action": "reload",
        "weapon": {"id": "revolver", "method": "cylinder", "capacity": 6, "loaded": 4, "rounds": 3},
        "agility": 10,
    }
    detail = refused(lambda: act(body), "$.weapon.rounds", "over-capacity")
    assert detail == "'revolver' holds 6 and has 4: it takes at most 2"
    partial = act({**body, "weapon": {**body["weapon"], "rounds": 1}}).result
    assert (partial.rounds_loaded, partial.ammo_left, partial.action_points) == (1, 5, 1)


def test_loose_rounds_need_the_agility_and_other_methods_refuse_it() -> None:
    loose = {"action": "reload", "weapon": {"id": "r", "method": "individual", "capacity": 6}}
    refused(lambda: act(loose), "$.agility")
    magazine = {
        "action": "reload",
        "agility": 10,
        "weapon": {"id": "r", "method": "magazine", "capacity": 6},
    }
    refused(lambda: act(magazine), "$.agility")


def test_an_action_refuses_the_fields_of_another_and_says_what_it_costs() -> None:
    refused(lambda: act({"action": "other"}), "$.action_points")
    refused(lambda: act({"action": "free_action", "action_points": 2}), "$.action_points")
    refused(lambda: act({"action": "other", "action_points": 1, "prone": True}), "$.prone")


def test_a_reload_over_the_budget_is_refused() -> None:
    state = D100State(action_point_budget=4, actors={"vex": D100ActorState(action_points_spent=3)})
    body = {"action": "reload", "weapon": {"id": "mg", "method": "belt", "capacity": 100}}
    refused(lambda: act(body, state), "$.weapon", "action-points-exceeded", 409)


# --- invariants -------------------------------------------------------------------------------


@given(
    st.integers(min_value=-500, max_value=1000),
    st.lists(st.integers(min_value=0, max_value=100), min_size=1, max_size=20),
)
def test_dividing_the_success_target_never_loses_or_invents_points(
    whole: int, weights: list[int]
) -> None:
    # The last target takes what the others leave; lists whose others take more than 100
    # are no division at all, and hypothesis is told so instead of counting them as passed.
    assume(sum(weights[:-1]) <= 100)
    shares = [*weights[:-1], 100 - sum(weights[:-1])]
    parts = split(whole, shares)
    assert sum(parts) == whole
    assert all(
        abs(part * 100 - whole * share) < 100 for part, share in zip(parts, shares, strict=True)
    )


@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=0, max_value=120))
def test_the_same_dice_always_give_the_same_result_and_damage_is_never_negative(
    seed: int, marksmanship: int
) -> None:
    body = make.attack(attacker=make.attacker(marksmanship=marksmanship), shot_rate=2)
    first = attack(body, seed=seed).result
    assert attack(body, seed=seed).result == first
    for target in first.targets:
        if target.damage is not None:
            assert 0 <= target.damage.wound <= target.damage.damage


def test_the_docs_example_divides_as_the_docs_say() -> None:
    page = (Path(__file__).parent.parent / "docs" / "rulesets" / "d100.md").read_text()
    body = json.loads(page.split("```json\n", 1)[1].split("```", 1)[0])
    result = attack({**body, "dice": {"attack:a": [100], "attack:b": [100]}}).result
    assert result.success_target == 65
    assert [(t.share, t.attack.success_target) for t in result.targets] == [(39, 49), (26, 6)]
    assert (result.action_points, result.rounds_fired) == (2, 12)


def test_an_encounter_holds_at_most_50_zones_and_a_shooters_own_make_room() -> None:
    state = D100State()
    for n in range(50):
        state = suppressed(25, state, attacker=make.attacker(id=f"s{n}")).state
    detail = refused(
        lambda: suppressed(25, state, attacker=make.attacker(id="new")),
        "$.suppressive",
        "limit-exceeded",
    )
    assert "at most 50" in detail
    # s0 firing again ends its own zone first: there is room for the new one.
    again = suppressed(25, state, attacker=make.attacker(id="s0")).state
    assert len(again.zones) == 50 and "zone-51" in again.zones
