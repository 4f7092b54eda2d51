"""SR3 through `resolve_attack` and `resolve_action` with given dice: each rule and table row
on its own terms, every expected number worked out by hand in a comment citing its source.

"002" is rules-sources/002_65e09aecd368bc68.txt; "README" is rules-sources/README.md, "Shadowrun
3"; "SR3 modifiers", "SR3 visibility", "SR3 crib sheet", "SR3 pools" and "SR3 armor" are the
published SR3 tables service/rules/sr3/tables.py cites (docs/rulesets/sr3.md, "Sources"). The
numbers below are typed from those sources, not read from tables.py, so a wrong table fails.
The builders (tests/sr3_requests.py): skill 4, Combat Pool (5 + 4 + 3) / 2 = 6; an Ares Predator
9M SA; a ganger of Body 4, Combat Pool (4 + 3 + 3) / 2 = 5, armour jacket 5/3, 4 m away.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import AdvanceRequest, TurnState
from schemas.sr3 import (
    SR3ActionName,
    SR3ActionRequest,
    SR3ActorState,
    SR3AttackRequest,
    SR3AttackResult,
    SR3State,
    SR3ZoneTestRequest,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from service.rules.sr3 import tables
from tests import sr3_requests as make

SR3 = RULESETS["sr3"]
MISS = [2, 2, 2, 2]  # four dice, no success at any target number above 2


def resolve(
    body: dict[str, Any],
    state: SR3State | None = None,
    turn: TurnState | None = None,
    seed: int = 7,
) -> tuple[SR3AttackResult, SR3State]:
    request = msgspec.convert(body, SR3AttackRequest)
    dice = Dice(seed, request.dice)
    resolution = SR3.resolve_attack(request, state or SR3State(), turn or TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, SR3AttackResult)
    assert isinstance(resolution.state, SR3State)
    return resolution.result, resolution.state


def act(action: str, state: SR3State, actor: str = "sam") -> tuple[list[str], SR3State]:
    resolution = SR3.resolve_action(
        SR3ActionRequest(actor=actor, action=action),
        state,
        TurnState(),
        Dice(1),  # type: ignore[arg-type]
    )
    assert isinstance(resolution.state, SR3State)
    return resolution.result.effects, resolution.state


def tn_modifier(result: SR3AttackResult, source: str) -> int | None:
    return next((m.value for m in result.attack.modifiers if m.source == source), None)


def refused(body: dict[str, Any], state: SR3State | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        resolve(body, state)
    return caught.value


# --- the weapon range table (002, "WEAPON RANGE TABLE") -----------------------------------------

# 002: each row's upper bounds, in metres (the impact projectiles: multiples of Strength).
RANGE_ROWS: dict[str, tuple[float, float, float, float]] = {
    "hold_out_pistol": (5, 15, 30, 50),
    "light_pistol": (5, 15, 30, 50),
    "heavy_pistol": (5, 20, 40, 60),
    "smg": (10, 40, 80, 150),
    "taser": (5, 10, 12, 15),
    "shotgun": (10, 20, 50, 100),
    "sporting_rifle": (100, 250, 500, 750),
    "sniper_rifle": (150, 300, 700, 1000),
    "assault_rifle": (50, 150, 350, 550),
    "light_machine_gun": (75, 200, 400, 800),
    "medium_machine_gun": (80, 250, 750, 1200),
    "heavy_machine_gun": (80, 250, 800, 1500),
    "assault_cannon": (100, 300, 900, 2400),
    "grenade_launcher": (50, 100, 150, 300),
    "missile_launcher": (150, 450, 1200, 3000),
    "bow": (1, 10, 30, 60),
    "light_crossbow": (2, 8, 20, 40),
    "medium_crossbow": (3, 12, 30, 50),
    "heavy_crossbow": (5, 15, 40, 60),
    "thrown_knife": (1, 2, 3, 5),
    "shuriken": (1, 2, 5, 7),
}
STR_ROWS = {
    "bow",
    "light_crossbow",
    "medium_crossbow",
    "heavy_crossbow",
    "thrown_knife",
    "shuriken",
}
LAUNCHERS = {"grenade_launcher", "missile_launcher"}
BANDS = ("short", "medium", "long", "extreme")
# 002: standard vision's base target numbers, 4/5/6/9; launch weapons 6(8) at long range.
STANDARD = {"short": 4, "medium": 5, "long": 6, "extreme": 9}
STANDARD_LAUNCH = {"short": 4, "medium": 5, "long": 8, "extreme": 9}
STRENGTH = 4


def range_cases() -> list[tuple[str, float, str]]:
    cases = []
    for category, bounds in RANGE_ROWS.items():
        factor = STRENGTH if category in STR_ROWS else 1
        for band, bound in zip(BANDS, bounds, strict=True):
            cases.append((category, bound * factor, band))
        for band, bound in zip(BANDS[1:], bounds[:3], strict=True):
            cases.append((category, bound * factor + 0.5, band))  # just past the band before
    return cases


def weapon_for(category: str) -> dict[str, Any]:
    return make.weapon(id="w", category=category, modes=["SS", "SA"], ammo=10)


@pytest.mark.parametrize(("category", "distance", "band"), range_cases())
def test_range_table_bands_and_base_target_numbers(
    category: str, distance: float, band: str
) -> None:
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(strength=STRENGTH),
            weapon=weapon_for(category),
            target=make.target(distance_m=distance),
            dice={"attack": MISS},
        )
    )
    # 002: the band of the distance; standard vision's number for it (launchers: the
    # parentheses at long range).
    assert result.target.range == band
    expected = STANDARD_LAUNCH if category in LAUNCHERS else STANDARD
    assert result.attack.target_number == expected[band]
    assert result.attack.modifiers[0].value == expected[band]


@pytest.mark.parametrize("category", sorted(RANGE_ROWS))
def test_past_extreme_range_is_out_of_range(category: str) -> None:
    factor = STRENGTH if category in STR_ROWS else 1
    problem = refused(
        make.attack(
            attacker=make.attacker(strength=STRENGTH),
            weapon=weapon_for(category),
            target=make.target(distance_m=RANGE_ROWS[category][3] * factor + 1),
        )
    )
    assert (problem.kind, problem.path) == ("out-of-range", "$.target.distance_m")


@pytest.mark.parametrize(
    ("category", "minimum"), [("grenade_launcher", 5), ("missile_launcher", 20)]
)
def test_launchers_have_a_minimum_range(category: str, minimum: float) -> None:
    # 002: "5-50*" and "20-150*": closer than 5 m (20 m) is out of range; at it, short.
    problem = refused(
        make.attack(weapon=weapon_for(category), target=make.target(distance_m=minimum - 1))
    )
    assert problem.kind == "out-of-range"
    result, _ = resolve(
        make.attack(
            weapon=weapon_for(category),
            target=make.target(distance_m=minimum),
            dice={"attack": MISS},
        )
    )
    assert result.target.range == "short"


def test_strength_rows_count_from_the_weapons_strength_rating_or_need_strength() -> None:
    # 002, "Bow": "0-STR": a bow of Strength rating 6 reaches short range at 6 m; at 7 m it
    # is medium (to STR x 10 = 60 m).
    bow = {**weapon_for("bow"), "strength_rating": 6}
    result, _ = resolve(
        make.attack(weapon=bow, target=make.target(distance_m=6), dice={"attack": MISS})
    )
    assert result.target.range == "short"
    result, _ = resolve(
        make.attack(weapon=bow, target=make.target(distance_m=7), dice={"attack": MISS})
    )
    assert result.target.range == "medium"
    problem = refused(make.attack(weapon=weapon_for("thrown_knife")))
    assert (problem.kind, problem.path) == ("strength-needed", "$.attacker.strength")


# --- the ranged attack target numbers by sight (002, "RANGED ATTACK TARGET NUMBERS") -----------

# 002: short, medium, long, extreme; and for launch weapons the long and extreme cells'
# numbers in parentheses (where a cell has none, the same number).
SIGHT_ROWS: dict[str, tuple[tuple[int, int, int, int], tuple[int, int]]] = {
    "standard": ((4, 5, 6, 9), (8, 9)),
    "laser_sight": ((3, 4, 5, 8), (7, 8)),
    "smart_goggles": ((3, 4, 5, 8), (7, 8)),
    "smartlink": ((2, 3, 4, 7), (6, 7)),
    "smartlink_2": ((2, 3, 3, 5), (5, 5)),
    "magnification_1": ((4, 4, 5, 6), (5, 8)),
    "magnification_2": ((4, 4, 4, 5), (4, 5)),
    "magnification_3": ((4, 4, 4, 4), (4, 4)),
    "magnification_1_laser": ((3, 3, 4, 4), (4, 4)),
    "magnification_2_laser": ((3, 3, 3, 4), (3, 4)),
    "magnification_3_laser": ((3, 3, 3, 3), (3, 3)),
}
PISTOL_AT = {"short": 3, "medium": 10, "long": 30, "extreme": 50}  # heavy pistol bands
LAUNCHER_AT = {"short": 10, "medium": 80, "long": 120, "extreme": 200}  # grenade launcher


def sight_number(sight: str, band: str, launch: bool) -> int:
    row, parentheses = SIGHT_ROWS[sight]
    expected = dict(zip(BANDS, row, strict=True))
    if launch:
        expected["long"], expected["extreme"] = parentheses
    return expected[band]


@pytest.mark.parametrize("sight", sorted(SIGHT_ROWS))
@pytest.mark.parametrize("band", BANDS)
@pytest.mark.parametrize("launch", [False, True], ids=["firearm", "launch weapon"])
def test_target_number_by_sight_and_band(sight: str, band: str, launch: bool) -> None:
    category, at = ("grenade_launcher", LAUNCHER_AT) if launch else ("heavy_pistol", PISTOL_AT)
    result, _ = resolve(
        make.attack(
            weapon=weapon_for(category),
            target=make.target(distance_m=at[band]),
            sight=sight,
            dice={"attack": [1, 1, 1, 1]},
        )
    )
    assert result.attack.target_number == sight_number(sight, band, launch)


def test_indirect_fire_takes_standard_launch_numbers_and_only_the_smartlink_2() -> None:
    # 002, "*": the only modifier for indirect fire is the smartlink-2's -1: long range with a
    # grenade launcher is standard vision's (8), 8 - 1 = 7 with a smartlink-2 (its own row's
    # 5 does not count).
    body = make.attack(
        weapon=weapon_for("grenade_launcher"),
        target=make.target(distance_m=120),
        indirect=True,
        dice={"attack": MISS},
    )
    result, _ = resolve({**body, "sight": "smartlink_2"})
    assert result.attack.target_number == 7
    assert tn_modifier(result, "smartlink-2 (indirect fire)") == -1
    result, _ = resolve({**body, "sight": "laser_sight"})
    assert result.attack.target_number == 8
    problem = refused(make.attack(indirect=True))
    assert problem.path == "$.indirect"


# --- the test: Rule of Six, Rule of One, minimum target number (README) --------------------------


def test_rule_of_six_rolls_a_six_again_and_adds() -> None:
    # Heavy pistol at 50 m: extreme, standard vision 9 (002). The first dice 6, 6, 1, 2; the
    # sixes are rolled again (3 and 2): 6 + 3 = 9 succeeds, 6 + 2 = 8 does not (README).
    result, _ = resolve(
        make.attack(target=make.target(distance_m=50), dice={"attack": [6, 6, 1, 2, 3, 2]})
    )
    assert result.attack.target_number == 9
    assert result.attack.totals == [9, 8, 1, 2]
    assert result.attack.successes == 1
    assert result.dice[0].values == [6, 6, 1, 2, 3, 2]


def test_a_six_is_rolled_again_as_often_as_it_shows() -> None:
    # Long range (6) + cover (+4) + called shot (+4) = 14: 6 + 6 + 2 = 14 succeeds.
    result, _ = resolve(
        make.attack(
            target=make.target(distance_m=30, cover="partial"),
            called_shot=True,
            dice={"attack": [6, 1, 1, 2, 6, 2]},
        )
    )
    assert result.attack.target_number == 14
    assert result.attack.totals == [14, 1, 1, 2]
    assert result.attack.successes == 1


def test_target_numbers_six_and_seven_have_the_same_odds() -> None:
    # README: at 7 a six needs one more die, which always reaches 7; at 6 the six is enough.
    # Long range 6; long range + attacker walking (+1, SR3 modifiers) = 7.
    six, _ = resolve(make.attack(target=make.target(distance_m=30), dice={"attack": [6, 5, 5, 5]}))
    seven, _ = resolve(
        make.attack(
            target=make.target(distance_m=30),
            movement="walking",
            dice={"attack": [6, 5, 5, 5, 1]},
        )
    )
    assert (six.attack.target_number, seven.attack.target_number) == (6, 7)
    assert six.attack.successes == seven.attack.successes == 1
    assert seven.attack.totals == [7, 5, 5, 5]


@given(first=st.integers(1, 6), again=st.integers(1, 6))
def test_at_six_and_seven_a_die_succeeds_alike(first: int, again: int) -> None:
    six = Dice(1, {"t": [first, again]}).target_number_test("t", 1, 6)
    seven = Dice(1, {"t": [first, again]}).target_number_test("t", 1, 7)
    assert six.successes == seven.successes == (1 if first == 6 else 0)


def test_rule_of_one_fails_a_test_whose_dice_all_show_one() -> None:
    # Smartlink at short range: 2 (002); every die shows 1: no success, a miss (README).
    result, _ = resolve(make.attack(sight="smartlink", dice={"attack": [1, 1, 1, 1]}))
    assert result.attack.target_number == 2
    assert (result.attack.successes, result.attack.rule_of_one) == (0, True)
    assert result.target.outcome == "miss"
    # One die of 2 among the ones is a success at 2, and no Rule of One.
    result, _ = resolve(make.attack(sight="smartlink", dice={"attack": [1, 1, 1, 2]}))
    assert (result.attack.successes, result.attack.rule_of_one) == (1, False)


def test_no_target_number_is_below_two() -> None:
    # Smartlink short 2, target stationary -1 (SR3 modifiers): 1, raised to 2 (README).
    result, _ = resolve(
        make.attack(
            sight="smartlink",
            target=make.target(movement="stationary"),
            dice={"attack": [2, 1, 1, 1]},
        )
    )
    assert sum(m.value for m in result.attack.modifiers) == 1
    assert result.attack.target_number == 2
    assert result.attack.successes == 1


# --- recoil (SR3 modifiers, "Recoil") -------------------------------------------------------------


def test_semi_automatic_second_shot_in_a_phase_is_plus_one_and_a_new_phase_starts_again() -> None:
    phase = TurnState(phase=3)
    first, state = resolve(make.attack(dice={"attack": MISS}), turn=phase)
    assert first.recoil.modifier == 0
    assert first.attack.target_number == 4
    # SR3 modifiers: SA +1 for the second shot in the phase: 4 + 1 = 5.
    second, state = resolve(make.attack(dice={"attack": MISS}), state, phase)
    assert (second.recoil.rounds_before, second.recoil.modifier) == (1, 1)
    assert second.attack.target_number == 5
    assert tn_modifier(second, "recoil") == 1
    # The actor's next phase: recoil counts afresh.
    third, _ = resolve(make.attack(dice={"attack": MISS}), state, TurnState(phase=4))
    assert third.recoil.modifier == 0


def test_bursts_are_plus_three_each_in_the_phase_less_compensation() -> None:
    rifle = make.weapon(category="assault_rifle", modes=["SA", "BF", "FA"], ammo=30)
    phase = TurnState(phase=1)
    body = make.attack(weapon=rifle, mode="BF", dice={"attack": MISS})
    first, state = resolve(body, turn=phase)
    # SR3 modifiers: a burst is +3 per burst in the phase: the first +3 (TN 7), the second +6.
    assert (first.recoil.recoil, first.recoil.modifier, first.attack.target_number) == (3, 3, 7)
    second, _ = resolve(body, state, phase)
    assert (second.recoil.recoil, second.attack.target_number) == (6, 10)
    # Recoil compensation 2 takes 2 off: +1, then +4.
    steady = make.attack(
        weapon={**rifle, "recoil_compensation": 2}, mode="BF", dice={"attack": MISS}
    )
    first, state = resolve(steady, turn=phase)
    second, _ = resolve(steady, state, phase)
    assert (first.recoil.modifier, second.recoil.modifier) == (1, 4)
    assert first.action == second.action == "simple"  # 002: Fire Weapon (SA/BF)
    assert first.rounds_fired == 3
    assert first.ammo_left == 27


@pytest.mark.parametrize(
    ("rounds", "compensation", "modifier"), [(10, 0, 10), (10, 3, 7), (6, 0, 6)]
)
def test_full_auto_is_plus_one_a_round(rounds: int, compensation: int, modifier: int) -> None:
    rifle = make.weapon(
        category="assault_rifle", modes=["FA"], ammo=30, recoil_compensation=compensation
    )
    result, _ = resolve(make.attack(weapon=rifle, mode="FA", rounds=rounds, dice={"attack": MISS}))
    # SR3 modifiers: full auto +1 per round fired, less compensation.
    assert result.recoil.modifier == modifier
    assert result.attack.target_number == 4 + modifier
    assert result.action == "complex"  # 002: Fire Weapon (SS/FA)
    assert (result.rounds_fired, result.ammo_left) == (rounds, 30 - rounds)


def test_heavy_weapons_double_the_uncompensated_recoil() -> None:
    # SR3 modifiers: heavy weapon 2 x uncompensated recoil: a light machine gun's burst, +3
    # less compensation 1 = 2, doubled = 4; TN 4 (short, 4 m) + 4 = 8.
    lmg = make.weapon(category="light_machine_gun", modes=["BF"], ammo=50, recoil_compensation=1)
    result, _ = resolve(make.attack(weapon=lmg, mode="BF", dice={"attack": MISS}))
    assert result.recoil.heavy_weapon
    assert result.recoil.modifier == 4
    assert result.attack.target_number == 8


def test_single_shot_is_a_complex_action_without_recoil() -> None:
    result, _ = resolve(
        make.attack(weapon=make.weapon(modes=["SS"]), mode="SS", dice={"attack": MISS})
    )
    assert (result.action, result.recoil.modifier, result.rounds_fired) == ("complex", 0, 1)


def test_a_new_action_phase_of_the_shooter_clears_its_recoil_when_phases_are_not_counted() -> None:
    _, state = resolve(make.attack(dice={"attack": MISS}))
    assert state.actors["sam"].rounds_in_phase == 1
    after, effects = SR3.on_advance(
        AdvanceRequest(to="action_phase", actor="sam"), state, TurnState()
    )
    assert isinstance(after, SR3State)
    assert after.actors["sam"].rounds_in_phase == 0
    assert effects
    result, _ = resolve(make.attack(dice={"attack": MISS}), after)
    assert result.recoil.modifier == 0


# --- the other situation modifiers (SR3 modifiers; README for the wounds) ----------------------


# SR3 modifiers (README for the wounds): each situation, the source it shows as, its value.
SITUATIONS: list[tuple[dict[str, Any], dict[str, Any], str, int]] = [
    ({}, {"cover": "partial"}, "cover (partial)", 4),
    ({}, {"cover": "good"}, "cover (good)", 4),
    ({}, {"cover": "full"}, "blind fire", 8),
    ({"blind_fire": True}, {}, "blind fire", 8),
    ({"movement": "walking"}, {}, "attacker walking", 1),
    ({"movement": "walking_difficult"}, {}, "attacker walking difficult", 2),
    ({"movement": "running"}, {}, "attacker running", 4),
    ({"movement": "running_difficult"}, {}, "attacker running difficult", 6),
    ({}, {"movement": "stationary"}, "target stationary", -1),
    ({}, {"movement": "running"}, "target running", 2),
    ({"melee_opponents": 2}, {}, "attacker in melee (2 opponents)", 4),
    ({"attacker": make.attacker(wounds="L")}, {}, "wounds (L)", 1),
    ({"attacker": make.attacker(wounds="M")}, {}, "wounds (M)", 2),
    ({"attacker": make.attacker(wounds="S")}, {}, "wounds (S)", 3),
    ({"attacker": make.attacker(wounds="D")}, {}, "wounds (D)", 4),
    ({"second_firearm": True}, {}, "second firearm", 2),
    ({"called_shot": True}, {}, "called shot", 4),
]


@pytest.mark.parametrize(("fields", "target_fields", "source", "value"), SITUATIONS)
def test_situation_modifiers(
    fields: dict[str, Any], target_fields: dict[str, Any], source: str, value: int
) -> None:
    result, _ = resolve(
        make.attack(target=make.target(**target_fields), dice={"attack": MISS}, **fields)
    )
    assert tn_modifier(result, source) == value
    assert result.attack.target_number == max(2, 4 + value)  # short range, standard vision


def test_blind_fire_and_cover_do_not_add_up() -> None:
    result, _ = resolve(
        make.attack(target=make.target(cover="partial"), blind_fire=True, dice={"attack": MISS})
    )
    assert result.attack.target_number == 12  # 4 + 8, not + 4 more
    assert tn_modifier(result, "cover (partial)") is None


def test_multiple_targets_are_plus_two_per_extra_target_in_the_phase() -> None:
    # Recoil compensation 5 leaves the shots' recoil out of it.
    steady = make.weapon(recoil_compensation=5)
    phase = TurnState(phase=2)
    first, state = resolve(make.attack(weapon=steady, dice={"attack": MISS}), turn=phase)
    assert first.attack.target_number == 4
    body = make.attack(weapon=steady, target=make.target(id="goon-2"), dice={"attack": MISS})
    second, state = resolve(body, state, phase)
    # SR3 modifiers: +2 per additional target that phase.
    assert tn_modifier(second, "multiple targets (2 this phase)") == 2
    assert second.attack.target_number == 6
    third, state = resolve(make.attack(weapon=steady, dice={"attack": MISS}), state, phase)
    assert third.attack.target_number == 6  # goon-1 again: still two targets this phase
    body = make.attack(weapon=steady, target=make.target(id="goon-3"), dice={"attack": MISS})
    fourth, _ = resolve(body, state, phase)
    assert fourth.attack.target_number == 8  # a third target: +4
    fresh, _ = resolve(body, state, TurnState(phase=3))
    assert fresh.attack.target_number == 4


def test_aimed_shots_take_one_per_simple_action_up_to_half_the_skill() -> None:
    state = SR3State()
    for _ in range(3):
        effects, state = act("take_aim", state)
    assert state.actors["sam"].aims == 3
    assert "aiming: 3 simple actions so far" in effects[1]
    # SR3 modifiers: -1 per simple action, at most half the skill: skill 4 gives -2.
    result, after = resolve(make.attack(dice={"attack": MISS}), state)
    assert tn_modifier(result, "aimed (2 simple actions)") == -2
    assert result.attack.target_number == 2
    assert after.actors["sam"].aims == 0  # the shot uses the aim
    # Skill 6: all three count, -3.
    result, _ = resolve(
        make.attack(attacker=make.attacker(skill=6), dice={"attack": [1, 1, 1, 1, 1, 2]}), state
    )
    assert tn_modifier(result, "aimed (3 simple actions)") == -3


@pytest.mark.parametrize("action", ["other", "drop_prone", "change_position", "reload_firearm"])
def test_any_other_action_ends_the_aim(action: str) -> None:
    _, state = act("take_aim", SR3State())
    effects, state = act(action, state)
    assert "aim lost (1 simple actions of aiming)" in effects
    assert state.actors["sam"].aims == 0
    result, _ = resolve(make.attack(dice={"attack": MISS}), state)
    assert result.attack.target_number == 4


# SR3 visibility: light and obscurant rows, by vision column (cyber / natural where the table
# splits low-light and thermographic).
VISIBILITY_ROWS = {
    "full_darkness": (8, 8, 8, 4, 2, 4),
    "minimal": (6, 4, 2, 4, 2, 3),
    "partial": (2, 1, 0, 2, 1, 1),
    "glare": (2, 4, 2, 4, 2, 1),
    "mist": (2, 2, 0, 0, 0, 1),
    "light_smoke": (4, 4, 2, 0, 0, 2),
    "heavy_smoke": (6, 6, 4, 1, 0, 3),
    "thermal_smoke": (4, 4, 4, 8, 6, 2),
}
VISIONS = (
    "normal",
    "low_light_cyber",
    "low_light_natural",
    "thermographic_cyber",
    "thermographic_natural",
    "ultrasound",
)
LIGHTS = {"full_darkness", "minimal", "partial", "glare"}


@pytest.mark.parametrize("row", sorted(VISIBILITY_ROWS))
@pytest.mark.parametrize("vision", VISIONS)
def test_visibility_table(row: str, vision: str) -> None:
    condition = {"light": row} if row in LIGHTS else {"obscurant": row}
    result, _ = resolve(
        make.attack(visibility={"vision": vision, **condition}, dice={"attack": MISS})
    )
    value = VISIBILITY_ROWS[row][VISIONS.index(vision)]
    assert result.attack.target_number == 4 + value


def test_visibility_light_and_obscurant_add_and_melee_takes_half() -> None:
    # Minimal light (+6) and light smoke (+4) with normal vision: +10; in melee half of it.
    seen = {"vision": "normal", "light": "minimal", "obscurant": "light_smoke"}
    result, _ = resolve(make.attack(visibility=seen, dice={"attack": MISS}))
    assert result.attack.target_number == 14
    result, _ = resolve(make.attack(visibility={**seen, "melee": True}, dice={"attack": MISS}))
    assert result.attack.target_number == 9  # 4 + 10 / 2
    # Minimal light with normal vision, in melee: 6 / 2 = 3; partial light: 2 / 2 = 1.
    result, _ = resolve(
        make.attack(visibility={"light": "partial", "melee": True}, dice={"attack": MISS})
    )
    assert result.attack.target_number == 5


def test_an_odd_visibility_modifier_halved_in_melee_rounds_down() -> None:
    # Cybernetic low-light vision: partial light +1 and mist +2 = +3; in melee half of it,
    # rounded down (docs/rulesets/sr3.md, "Visibility": SR3 halves without saying which way;
    # the service rounds down as SR3's other halvings here do): +1, so TN 4 + 1 = 5, not 6.
    seen = {"vision": "low_light_cyber", "light": "partial", "obscurant": "mist"}
    result, _ = resolve(make.attack(visibility=seen, dice={"attack": MISS}))
    assert result.attack.target_number == 4 + 3
    result, _ = resolve(make.attack(visibility={**seen, "melee": True}, dice={"attack": MISS}))
    assert result.attack.target_number == 4 + 1
    # A lone +1 (thermographic natural, partial light) halves to nothing: no modifier at all.
    alone = {"vision": "thermographic_natural", "light": "partial", "melee": True}
    result, _ = resolve(make.attack(visibility=alone, dice={"attack": MISS}))
    assert result.attack.target_number == 4
    assert not [m for m in result.attack.modifiers if m.source.startswith("visibility")]


# --- dodge (SR3 crib sheet, SR3 p. 113) ---------------------------------------------------------


def test_dodge_successes_take_away_attack_successes() -> None:
    # Attack 5, 5, 5, 2 at 4: 3 successes. Dodge 2 pool dice at 4: 4, 4: 2; 1 left, a hit.
    result, state = resolve(
        make.attack(
            target=make.target(dodge=2),
            dice={"attack": [5, 5, 5, 2], "dodge:goon-1": [4, 4], "resist:goon-1": MISS},
        )
    )
    assert result.target.dodge is not None
    assert result.target.dodge.target_number == 4
    assert (result.target.attack_successes, result.target.dodge_successes) == (3, 2)
    assert result.target.net_successes == 1
    assert result.target.outcome == "hit"
    assert state.actors["goon-1"].pool_left == 3  # 5 - 2 dodge


def test_a_dodge_that_takes_every_success_is_a_miss() -> None:
    result, _ = resolve(
        make.attack(
            target=make.target(dodge=3),
            dice={"attack": [5, 5, 5, 2], "dodge:goon-1": [6, 4, 5]},
        )
    )
    assert result.target.net_successes == 0
    assert result.target.outcome == "dodged"
    assert result.target.damage is None


def test_dodging_autofire_is_plus_one_per_three_rounds() -> None:
    # SR3 crib sheet: 4 + 1 per three rounds: a burst 5; ten rounds of full auto 4 + 3 = 7,
    # where the six of 6, 4 is rolled again (1): 7, a success.
    rifle = make.weapon(
        category="assault_rifle", modes=["BF", "FA"], ammo=30, recoil_compensation=10
    )
    burst, _ = resolve(
        make.attack(
            weapon=rifle,
            mode="BF",
            target=make.target(dodge=2),
            dice={"attack": [5, 2, 2, 2], "dodge:goon-1": [5, 4], "resist:goon-1": MISS},
        )
    )
    assert burst.target.dodge is not None
    assert burst.target.dodge.target_number == 5
    assert burst.target.dodge_successes == 1
    auto, _ = resolve(
        make.attack(
            weapon=rifle,
            mode="FA",
            target=make.target(dodge=2),
            dice={"attack": [5, 5, 2, 2], "dodge:goon-1": [6, 4, 1], "resist:goon-1": MISS},
        )
    )
    assert auto.target.dodge is not None
    assert auto.target.dodge.target_number == 7
    assert auto.target.dodge.totals == [7, 4]
    assert auto.target.net_successes == 1


def test_no_dodge_is_rolled_against_an_attack_without_successes() -> None:
    result, state = resolve(
        make.attack(target=make.target(dodge=2, resist=2), dice={"attack": MISS})
    )
    assert result.target.outcome == "miss"
    assert result.target.dodge is None
    assert [d.step for d in result.dice] == ["attack"]
    # No test made, no pool dice spent.
    assert state.actors["goon-1"].pool_left == 5


# --- damage (SR3 crib sheet, SR3 pp. 113-114, 125; SR3 pp. 115-116 for autofire) ----------------


@pytest.mark.parametrize(
    ("attack", "resist", "net", "stages", "level", "boxes"),
    [
        # 4 attack successes, none resisted: 4 net, 2 stages up: M -> D, 10 boxes.
        ([5, 5, 5, 5], [1, 2, 3, 2], 4, 2, "D", 10),
        # 4 against 2 (4, 4 at TN 9 - 5 = 4): 2 net, 1 up: S, 6 boxes.
        ([5, 5, 5, 5], [4, 4, 1, 2], 2, 1, "S", 6),
        # 3 against 0: 3 net, 1 up (every two): S.
        ([5, 5, 5, 2], MISS, 3, 1, "S", 6),
        # 2 against 2: a tie, the weapon's M, 3 boxes.
        ([5, 5, 2, 2], [4, 4, 1, 2], 0, 0, "M", 3),
        # 1 against 3: 2 net for the defender, 1 down: L, 1 box.
        ([5, 2, 2, 2], [4, 4, 4, 1], -2, -1, "L", 1),
        # 1 against 4: 3 net for the defender, 1 down: L.
        ([5, 2, 2, 2], [4, 4, 4, 4], -3, -1, "L", 1),
    ],
)
def test_staging_by_net_successes(
    attack: list[int], resist: list[int], net: int, stages: int, level: str, boxes: int
) -> None:
    result, _ = resolve(make.attack(dice={"attack": attack, "resist:goon-1": resist}))
    hurt = result.target.damage
    assert hurt is not None
    # Resistance: Body 4 against Power 9 - ballistic 5 = 4.
    assert (hurt.resist.dice, hurt.resist.target_number) == (4, 4)
    assert [(m.source, m.value) for m in hurt.resist.modifiers] == [
        ("power", 9),
        ("ballistic armour", -5),
    ]
    assert (hurt.net_successes, hurt.stages, hurt.level, hurt.boxes) == (net, stages, level, boxes)
    assert (hurt.track, hurt.overflow, result.target.outcome) == ("physical", 0, "hit")


def test_staged_below_light_is_no_damage() -> None:
    # 1 attack success; Body 4 + 2 pool dice: 4, 4, 4, 4, 5, 6: 6; 5 net for the defender, 2
    # stages down: M -> below L.
    result, state = resolve(
        make.attack(
            target=make.target(resist=2),
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": [4, 4, 4, 4, 5, 6]},
        )
    )
    hurt = result.target.damage
    assert hurt is not None
    assert (hurt.resist.dice, hurt.resist.pool_dice) == (6, 2)
    assert (hurt.net_successes, hurt.stages, hurt.level, hurt.boxes) == (-5, -2, None, 0)
    assert result.target.outcome == "resisted"
    assert state.actors["goon-1"].pool_left == 3  # 5 - 2


def test_staging_past_deadly_is_overflow() -> None:
    # A 9D weapon, 4 net: 2 stages past D: D, 10 boxes, overflow 2.
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(damage_level="D"),
            dice={"attack": [5, 5, 5, 5], "resist:goon-1": MISS},
        )
    )
    hurt = result.target.damage
    assert hurt is not None
    assert (hurt.level, hurt.boxes, hurt.overflow) == ("D", 10, 2)


def test_a_burst_adds_three_power_and_one_level() -> None:
    # SR3 (Burst Fire): 9M fired as a burst is 12S. Resistance at 12 - 5 = 7: the six of 6, 2,
    # 3, 4 is rolled again (1): 7, one success. 2 attack successes - 1 = 1 net: no stage: S.
    rifle = make.weapon(category="assault_rifle", modes=["BF"], ammo=30, recoil_compensation=3)
    result, _ = resolve(
        make.attack(
            weapon=rifle, mode="BF", dice={"attack": [5, 5, 2, 2], "resist:goon-1": [6, 2, 3, 4, 1]}
        )
    )
    hurt = result.target.damage
    assert hurt is not None
    assert hurt.power == 12
    assert [(m.source, m.value) for m in hurt.level_modifiers] == [("burst (3 rounds)", 1)]
    assert hurt.resist.target_number == 7
    assert hurt.resist.successes == 1
    assert (hurt.net_successes, hurt.level, hurt.boxes) == (1, "S", 6)


@pytest.mark.parametrize(
    ("rounds", "power", "levels", "level", "overflow"),
    [(10, 19, 3, "D", 1), (6, 15, 2, "D", 0), (5, 14, 1, "S", 0), (2, 11, 0, "M", 0)],
)
def test_full_auto_adds_a_power_a_round_and_a_level_per_three(
    rounds: int, power: int, levels: int, level: str, overflow: int
) -> None:
    # SR3 (Full Auto): +1 Power a round, +1 level per 3 rounds, from 9M. 1 attack success, no
    # resistance success (Power - 5 is at least 6: 2s never reach it): no stage.
    rifle = make.weapon(category="assault_rifle", modes=["FA"], ammo=30, recoil_compensation=10)
    result, _ = resolve(
        make.attack(
            weapon=rifle,
            mode="FA",
            rounds=rounds,
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": MISS},
        )
    )
    hurt = result.target.damage
    assert hurt is not None
    assert hurt.power == power
    assert sum(m.value for m in hurt.level_modifiers) == levels
    assert hurt.resist.target_number == power - 5
    assert (hurt.level, hurt.overflow) == (level, overflow)


def test_stun_weapons_hurt_the_stun_track() -> None:
    taser = make.weapon(category="taser", power=10, damage_level="S", damage_type="stun")
    result, _ = resolve(
        make.attack(weapon=taser, dice={"attack": [5, 2, 2, 2], "resist:goon-1": MISS})
    )
    hurt = result.target.damage
    assert hurt is not None
    assert (hurt.track, hurt.level, hurt.boxes) == ("stun", "S", 6)


def test_impact_projectiles_meet_impact_armour_and_the_request_may_say_which() -> None:
    # 002: a bow is an impact projectile: Power 6 - impact 3 = TN 3.
    bow = make.weapon(category="bow", power=6, modes=["SS"])
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(strength=4),
            weapon=bow,
            mode="SS",
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": MISS},
        )
    )
    hurt = result.target.damage
    assert hurt is not None
    assert (hurt.armor, hurt.armor_rating, hurt.resist.target_number) == ("impact", 3, 3)
    # A firearm told to meet impact armour: 9 - 3 = 6.
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(armor="impact"), dice={"attack": [5, 2, 2, 2], "resist:goon-1": MISS}
        )
    )
    assert result.target.damage is not None
    assert result.target.damage.resist.target_number == 6


def test_the_resistance_target_number_is_never_below_two() -> None:
    # Power 6 - ballistic 5 = 1: TN 2 (README).
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(power=6),
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": [2, 1, 1, 1]},
        )
    )
    assert result.target.damage is not None
    assert result.target.damage.resist.target_number == 2
    assert result.target.damage.resist.successes == 1


# --- armour layering and its penalty (002, "Armor Layering"; SR3 armor) ---------------------------

LAYERS = [
    {"name": "jacket", "ballistic": 5, "impact": 3},
    {"name": "vest", "ballistic": 4, "impact": 2},
    {"name": "suit", "ballistic": 2, "impact": 4},
]


def test_armour_layers_the_highest_in_full_and_half_of_every_other_piece() -> None:
    # 002: ballistic 5 + 4 / 2 + 2 / 2 = 8; impact 4 + 3 / 2 + 2 / 2 = 4 + 1 + 1 = 6.
    # 8 reaches twice Quickness 4: one Combat Pool die off, (4 + 3 + 3) / 2 - 1 = 4.
    result, state = resolve(
        make.attack(
            target=make.target(defender=make.defender(armor=LAYERS)),
            dice={"attack": [5, 2, 2, 2], "resist:goon-1": MISS},
        )
    )
    armor = result.target.armor
    assert (armor.ballistic, armor.impact, armor.pool_penalty) == (8, 6, 1)
    assert state.actors["goon-1"].combat_pool == 4
    # Power 9 - 8 = 1: TN 2.
    assert result.target.damage is not None
    assert result.target.damage.resist.target_number == 2


@pytest.mark.parametrize(("quickness", "penalty", "pool"), [(5, 0, 5), (4, 1, 4), (3, 3, 1)])
def test_armour_penalty_once_the_layered_rating_reaches_twice_quickness(
    quickness: int, penalty: int, pool: int
) -> None:
    # Layered ballistic 8 (above). Quickness 5: twice is 10, not reached; the pool is
    # (5 + 3 + 3) / 2 = 5. Quickness 4: 8 reached, 8 - 8 + 1 = 1 die off (4 + 3 + 3) / 2 = 5:
    # 4. Quickness 3: 8 - 6 + 1 = 3 dice off (3 + 3 + 3) / 2 = 4: 1 (002; SR3 armor).
    defender = make.defender(armor=LAYERS, quickness=quickness)
    result, state = resolve(
        make.attack(target=make.target(defender=defender), dice={"attack": MISS})
    )
    assert result.target.armor.pool_penalty == penalty
    assert state.actors["goon-1"].combat_pool == pool


# --- the Combat Pool (SR3 pools; SR3 crib sheet) --------------------------------------------------


def test_the_attack_adds_the_committed_combat_pool_dice_to_the_skill() -> None:
    result, state = resolve(
        make.attack(pool=2, dice={"attack": [5, 5, 2, 2, 2, 2], "resist:goon-1": MISS})
    )
    # Skill 4 + 2 pool dice; Sam's pool (5 + 4 + 3) / 2 = 6, 4 left.
    assert (result.attack.dice, result.attack.pool_dice) == (6, 2)
    assert state.actors["sam"].combat_pool == 6
    assert state.actors["sam"].pool_left == 4
    assert [(p.actor, p.spent, p.left) for p in result.combat_pool] == [
        ("sam", 2, 4),
        ("goon-1", 0, 5),
    ]


def test_the_attack_adds_at_most_the_skill_in_pool_dice() -> None:
    problem = refused(make.attack(pool=5))
    assert (problem.kind, problem.path, problem.status) == ("too-many-pool-dice", "$.pool", 422)


def test_asking_more_pool_dice_than_are_left_is_a_409_saying_how_many_remain() -> None:
    state = SR3State(actors={"sam": SR3ActorState(combat_pool=6, pool_left=1)})
    problem = refused(make.attack(pool=2), state)
    assert (problem.status, problem.kind, problem.path) == (409, "combat-pool-exhausted", "$.pool")
    assert "1 Combat Pool dice left" in problem.detail
    # The defender's dodge and resistance come out of one pool: 3 + 3 of 5.
    problem = refused(make.attack(target=make.target(dodge=3, resist=3)))
    assert (problem.status, problem.path) == (409, "$.target.resist")
    assert "5 Combat Pool dice left" in problem.detail


def test_the_request_may_set_the_pool_and_must_when_the_attributes_are_not_given() -> None:
    result, state = resolve(
        make.attack(attacker=make.attacker(combat_pool=9), pool=4, dice={"attack": MISS * 2})
    )
    assert state.actors["sam"].pool_left == 5  # 9 - 4
    bare = {"id": "sam", "skill": 4}
    problem = refused(make.attack(attacker=bare, pool=1))
    assert (problem.kind, problem.path) == ("combat-pool-unknown", "$.attacker.combat_pool")
    result, _ = resolve(make.attack(attacker=bare, dice={"attack": MISS}))  # no pool, no need
    assert result.attack.pool_dice == 0


def test_the_pool_refreshes_when_a_combat_turn_begins_and_not_before() -> None:
    _, state = resolve(make.attack(pool=3, dice={"attack": [*MISS, 2, 2, 2]}))
    assert state.actors["sam"].pool_left == 3
    after, _ = SR3.on_advance(AdvanceRequest(to="initiative_pass"), state, TurnState())
    assert isinstance(after, SR3State)
    assert after.actors["sam"].pool_left == 3
    after, effects = SR3.on_advance(AdvanceRequest(to="combat_turn"), state, TurnState())
    assert isinstance(after, SR3State)
    assert after.actors["sam"].pool_left == 6
    assert "sam: Combat Pool refreshed to 6 (3 were left)" in effects


@settings(max_examples=200, deadline=None)
@given(
    attack=st.lists(st.integers(1, 6), min_size=30, max_size=30),
    dodge=st.lists(st.integers(1, 6), min_size=30, max_size=30),
    resist=st.lists(st.integers(1, 6), min_size=30, max_size=30),
    pool=st.integers(0, 4),
    dodges=st.integers(0, 5),
    distance=st.sampled_from([3, 10, 30, 50]),
)
def test_properties_successes_never_negative_same_dice_same_result_pool_never_below_zero(
    attack: list[int],
    dodge: list[int],
    resist: list[int],
    pool: int,
    dodges: int,
    distance: int,
) -> None:
    request = msgspec.convert(
        make.attack(
            pool=pool,
            target=make.target(distance_m=distance, dodge=dodges, resist=5 - dodges),
        ),
        SR3AttackRequest,
    )
    given_dice = {"attack": attack, "dodge:goon-1": dodge, "resist:goon-1": resist}
    first = SR3.resolve_attack(request, SR3State(), TurnState(), Dice(1, given_dice))
    again = SR3.resolve_attack(request, SR3State(), TurnState(), Dice(1, given_dice))
    assert msgspec.to_builtins(first.result) == msgspec.to_builtins(again.result)
    result = first.result
    assert isinstance(result, SR3AttackResult)
    assert result.attack.successes >= 0
    assert result.target.net_successes >= 0
    assert result.target.dodge_successes >= 0
    if result.target.damage is not None:
        assert result.target.damage.resist.successes >= 0
        assert result.target.damage.boxes >= 0
    assert isinstance(first.state, SR3State)
    assert all(a.pool_left >= 0 for a in first.state.actors.values())


# --- actions (002, "FREE ACTIONS", "SIMPLE ACTIONS", "COMPLEX ACTIONS") --------------------------

# 002: the three tables, as typed from the document.
FREE = """activate_cyberware call_a_shot change_smartgun_fire_mode deactivate_focus delay_action
drop_object drop_prone drop_sustained_spell eject_smartgun_clip gesture observe
speak_a_phrase""".split()
SIMPLE = """activate_focus call_nature_spirit change_gun_mode change_position command_a_spirit
fire_weapon_sa_bf insert_clip observe_in_detail pick_up_put_down_object quick_draw ready_weapon
remove_clip shift_perception take_aim throw_weapon use_simple_object""".split()
COMPLEX = """astral_projection banish_spirit call_elemental cast_spell control_spirit
erase_astral_signature fire_weapon_ss_fa fire_mounted_weapon fire_vehicle_weapon
melee_unarmed_attack reload_firearm summon_nature_spirit use_complex_object use_skill""".split()


def test_every_action_of_the_three_tables_has_its_kind() -> None:
    expected = {
        **dict.fromkeys(FREE, "free"),
        **dict.fromkeys(SIMPLE, "simple"),
        **dict.fromkeys(COMPLEX, "complex"),
    }
    assert dict(tables.ACTION_KINDS) == expected
    assert set(get_args(SR3ActionName)) == {*expected, "other"}
    assert set(SR3.info.actions) == {*expected, "other"}
    # 002: Fire Weapon (SA/BF) simple, (SS/FA) complex.
    modes = {mode: tables.FIRING_MODES[mode].action for mode in ("SS", "SA", "BF", "FA")}
    assert modes == {"SS": "complex", "SA": "simple", "BF": "simple", "FA": "complex"}
    assert {m: tables.ACTION_KINDS[a] for m, a in tables.MODE_ACTIONS.items()} == modes


@pytest.mark.parametrize("action", sorted(get_args(SR3ActionName)))
def test_every_action_is_accepted_and_says_what_it_changed(action: str) -> None:
    effects, state = act(action, SR3State())
    kind = tables.ACTION_KINDS.get(action)
    assert effects[0].endswith(f"{kind} action" if kind else "an action the tables do not name")
    if action == "take_aim":
        assert state.actors["sam"].aims == 1
    else:
        assert effects[1] == "changes no ranged-combat state"
        assert state == SR3State()


# --- zones -------------------------------------------------------------------------------------


def test_sr3_has_no_suppression_zones() -> None:
    assert SR3.zones(SR3State()) == []
    assert SR3.info.zone_shapes == []
    with pytest.raises(RuleViolation) as caught:
        SR3.resolve_zone_test(
            "zone-1", SR3ZoneTestRequest(actor="sam"), SR3State(), TurnState(), Dice(1)
        )
    assert (caught.value.status, caught.value.kind) == (422, "no-zones")
    assert "sr3 has no suppression zones" in caught.value.detail


def test_validation_names_the_field() -> None:
    cases = [
        (make.attack(mode="BF"), "$.mode", "mode-not-available"),
        (make.attack(rounds=3), "$.rounds", "rule-violation"),
        (make.attack(weapon=make.weapon(ammo=0)), "$.weapon.ammo", "out-of-ammo"),
        (make.attack(target=make.target(id="sam")), "$.target.id", "rule-violation"),
    ]
    for body, path, kind in cases:
        problem = refused(body)
        assert (problem.path, problem.kind) == (path, kind)


def test_a_re_rolled_six_takes_the_next_given_die_after_the_pools() -> None:
    # docs/rulesets/sr3.md, "Dice steps": the pool's 3 dice first (6, 3, 6), then each six
    # still under TN 8, in order, the next given die: 6 + 5 = 11 and 6 + 2 = 8; 3 stays 3.
    # Two successes. Read as "the die right after each six", the totals would differ
    # (6 + 3, then 6 + 5).
    dice = Dice(0, {"attack": [6, 3, 6, 5, 2]})
    rolled = dice.target_number_test("attack", 3, 8)
    assert (rolled.totals, rolled.successes) == ((11, 3, 8), 2)
    dice.check_given_used()
