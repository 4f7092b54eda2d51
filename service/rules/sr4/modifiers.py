"""Shadowrun 4 attacks before any die (001_2cfc288dfef1df08.txt, "The Combat Sequence"): what
a firing mode fires and the checks of the guns, recoil per action phase, and every modifier of
the attack's pool. The attack (attack.py) and its odds (odds.py) both build on these.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.common import Modifier
from schemas.sr4 import (
    SR4ActorState,
    SR4AttackRequest,
    SR4Recoil,
    SR4Target,
    SR4Weapon,
)
from service.rules.ruleset import RuleViolation
from service.rules.sr4 import tables
from service.rules.sr4.tables import RangeBand


def total(modifiers: list[Modifier]) -> int:
    return sum(m.value for m in modifiers)


# --- what is fired ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fired:
    """The mode as fired: its row, what it counts as after too few rounds (001, "Not Enough
    Bullets"), the rounds it uses and how many modifiers it lost to a short clip."""

    name: str
    row: tables.FiringMode
    rounds: int
    short: int


def fired(mode: str, ammo: int) -> Fired:
    row = tables.FIRING_MODES[mode]
    if mode == "LB" and ammo < row.rounds:
        if ammo >= tables.LONG_BURST_MIN_ROUNDS:
            return Fired("LB", row, ammo, row.rounds - ammo)
        mode, row = "BF", tables.FIRING_MODES["BF"]  # 3 or fewer: a short burst
    if mode == "BF" and ammo < row.rounds:
        if ammo >= tables.SHORT_BURST_MIN_ROUNDS:
            return Fired("BF", row, ammo, row.rounds - ammo)
        if ammo == 1:  # one bullet: a single shot
            return Fired("SS", tables.FIRING_MODES["SS"], 1, 0)
    return Fired(mode, row, row.rounds, 0)


def lessened(value: int, short: int) -> int:
    """A modifier `short` points nearer 0 (001, "Not Enough Bullets")."""
    if value > 0:
        return max(0, value - short)
    return min(0, value + short)


def choke_of(request: SR4AttackRequest, shooter: SR4ActorState) -> str | None:
    return shooter.chokes.get(request.weapon.id, request.weapon.choke)


def _check_gun(weapon: SR4Weapon, mode: str, path: str) -> None:
    row = tables.FIRING_MODES[mode]
    if not row.needs & set(weapon.modes):
        raise RuleViolation(
            f"{mode} needs a weapon with {' or '.join(sorted(row.needs))}; "
            f"'{weapon.id}' has {', '.join(weapon.modes)}",
            path=path,
            kind="mode-not-available",
        )
    least = 1
    if mode == "FB" or mode == "suppressive":
        least = row.rounds
    if weapon.ammo < least:
        raise RuleViolation(
            f"{mode} fires {least} rounds but '{weapon.id}' has {weapon.ammo} left",
            path="$.weapon.ammo" if path == "$.mode" else "$.second_weapon.ammo",
            kind="out-of-ammo",
        )


def validate(request: SR4AttackRequest, choke: str | None) -> None:
    _check_gun(request.weapon, request.mode, "$.mode")
    second = request.second_weapon
    ids = [t.id for t in request.targets]
    if len(set(ids)) != len(ids):
        raise RuleViolation("each target may be named once", path="$.targets")
    if request.mode == "suppressive":
        return
    if request.grenade is None and not ids:
        raise RuleViolation("an attack needs a target", path="$.targets")
    if request.grenade is not None and request.aim_point is None and len(ids) != 1:
        raise RuleViolation(
            "a grenade goes at one target, or at a point (aim_point)", path="$.targets"
        )
    if second is not None:
        _check_gun(second, request.mode, "$.second_weapon.modes")
        for path, gun in (("$.weapon", request.weapon), ("$.second_weapon", second)):
            if gun.category not in tables.TWO_GUN_CATEGORIES:
                raise RuleViolation(
                    "two guns are pistol- or SMG-class weapons (001)",
                    path=f"{path}.category",
                )
        if request.mode not in ("SS", "SA", "BF"):
            raise RuleViolation("two guns fire with one simple action: SS, SA or BF", path="$.mode")
        guns = [t.gun for t in request.targets]
        if len(guns) != len(set(guns)):
            raise RuleViolation("each gun shoots at one target", path="$.targets")
    else:
        for index, target in enumerate(request.targets):
            if target.gun == "second":
                raise RuleViolation(
                    "a target for the second gun needs a second_weapon",
                    path=f"$.targets[{index}].gun",
                )
    if choke is not None and request.weapon.category not in tables.SHOTGUNS:
        raise RuleViolation("a choke belongs to a shotgun firing shot", path="$.weapon.choke")
    several = len(ids) > 1 and second is None
    if choke is not None:
        most = tables.CHOKES[choke].most_targets
        if len(ids) > most:
            raise RuleViolation(
                f"a {choke} spread reaches at most {most} target(s) (001)",
                path="$.targets",
                kind="too-many-targets",
            )
    elif several and request.mode != "FB":
        raise RuleViolation(
            f"{request.mode} attacks one target; a full burst or a shotgun's medium or wide "
            "spread several",
            path="$.targets",
        )
    if several and len(ids) > max(tables.FULL_BURST_SPLITS) and choke is None:
        raise RuleViolation(
            "a full burst reaches at most three targets (001)",
            path="$.targets",
            kind="too-many-targets",
        )
    if several and request.targets_apart_m > tables.SPREAD_WITHIN_M:
        raise RuleViolation(
            f"the targets are {request.targets_apart_m:g} m apart; several are reached only "
            f"within {tables.SPREAD_WITHIN_M:g} m of each other (001)",
            path="$.targets_apart_m",
        )


# --- recoil (001, "Recoil", "Heavy Weapons", "Recoil Compensation") ---------------------------


def recoil(
    row: tables.FiringMode,
    mode: str,
    shot_in_phase: int,
    short: int,
    weapon: SR4Weapon,
    other_gun: int = 0,
) -> SR4Recoil:
    base = row.first_recoil if shot_in_phase == 1 else row.second_recoil
    base = lessened(base, short)
    uncompensated = min(0, base + weapon.rc)
    doubled = weapon.category in tables.HEAVY_WEAPONS or (
        weapon.category in tables.SHOTGUNS and row.burst and mode != "SS"
    )
    if doubled:
        uncompensated *= tables.HEAVY_RECOIL_FACTOR
    return SR4Recoil(
        shot_in_phase=shot_in_phase,
        base=base,
        short_rounds=short,
        compensation=weapon.rc,
        doubled=doubled,
        uncompensated=uncompensated,
        other_gun=other_gun,
        penalty=uncompensated + other_gun,
    )


def movement_and_recoil(
    request: SR4AttackRequest, weapon: SR4Weapon, shot: SR4Recoil
) -> list[Modifier]:
    """Recoil and running, and what gyro-stabilisation takes off them both (001)."""
    modifiers = []
    if shot.penalty:
        modifiers.append(Modifier("recoil", shot.penalty))
    if request.running:
        modifiers.append(Modifier("attacker running", tables.RUNNING_ATTACK))
    burden = -total(modifiers)
    if weapon.gyro and burden > 0:
        modifiers.append(Modifier("gyro-stabilisation", min(weapon.gyro, burden)))
    return modifiers


# --- modifiers --------------------------------------------------------------------------------


def range_band(
    category: str, distance_m: float, strength: int, path: str, minimum: float | None = None
) -> RangeBand:
    """The band of the weapon range table; closer than its minimum range (or `minimum`: a
    launcher grenade's arming range, which an Armorer can take off, 001) fails the attack."""
    bands = tables.RANGE_BANDS[category]
    if distance_m < (bands.minimum if minimum is None else minimum):
        raise RuleViolation(
            f"{distance_m:g} m is closer than the {category} minimum range of "
            f'{bands.minimum:g} m: the attack fails (001, "Minimum Ranges")',
            path=path,
            kind="below-minimum-range",
        )
    short, medium, long, extreme = bands.bounds(strength)
    for band, bound in (("short", short), ("medium", medium), ("long", long)):
        if distance_m <= bound:
            return band  # type: ignore[return-value]
    if distance_m <= extreme:
        return "extreme"
    raise RuleViolation(
        f"{distance_m:g} m is beyond the {category} extreme range of {extreme:g} m",
        path=path,
        kind="out-of-range",
    )


def visibility(request: SR4AttackRequest) -> list[Modifier]:
    sight = request.visibility
    column = tables.VISIONS.index(sight.vision)
    rows = []
    if sight.light == "full_darkness":
        rows.append("full_darkness")
    elif sight.light == "partial":
        rows.append("partial_light")
    if sight.glare:
        rows.append("glare")
    if sight.obscurant != "none":
        rows.append(sight.obscurant)
    found = []
    for row in rows:
        value = tables.VISIBILITY[row][column]
        if value:
            found.append(Modifier(f"visibility: {row.replace('_', ' ')} ({sight.vision})", value))
    return found


def two_guns(request: SR4AttackRequest) -> bool:
    return request.second_weapon is not None


def whole_modifiers(request: SR4AttackRequest, aims: int) -> list[Modifier]:
    """What applies to every test of the attack, but for the pool, recoil and the target."""
    attacker = request.attacker
    modifiers = []
    if attacker.wound_modifier:
        modifiers.append(Modifier("wound modifier", attacker.wound_modifier))
    if request.in_melee:
        modifiers.append(Modifier("attacker in melee", tables.IN_MELEE_ATTACK))
    if request.from_moving_vehicle:
        modifiers.append(Modifier("firing from a moving vehicle", tables.MOVING_VEHICLE_ATTACK))
    if request.from_cover:
        modifiers.append(Modifier("firing from cover", tables.FROM_COVER_ATTACK))
    if request.off_hand:
        modifiers.append(Modifier("off-hand weapon", tables.OFF_HAND_ATTACK))
    if request.smartlink and request.weapon.smartgun and not two_guns(request):
        modifiers.append(Modifier("smartlink", tables.SMARTLINK))
    if aims:
        modifiers.append(Modifier(f"aimed ({aims} Take Aim)", aims * tables.AIM_BONUS))
    if request.edge == "extra_dice":
        if attacker.edge < 1:
            raise RuleViolation(
                f"{attacker.id} has no Edge to spend", path="$.attacker.edge", kind="no-edge"
            )
        modifiers.append(Modifier("Edge", attacker.edge))
    return modifiers


def gun_of(request: SR4AttackRequest, target: SR4Target) -> SR4Weapon:
    if target.gun == "second" and request.second_weapon is not None:
        return request.second_weapon
    return request.weapon


def target_modifiers(
    request: SR4AttackRequest,
    target: SR4Target,
    index: int,
    band: RangeBand,
    locked: bool,
    earlier_targets: int,
    spread: bool,
) -> list[Modifier]:
    modifiers = []
    if locked:
        # 001, "Attacker Using Image Magnification": the range counts as short.
        if band != "short":
            modifiers.append(Modifier(f"range: {band} (image magnification: short)", 0))
    elif tables.RANGE_MODIFIER[band]:
        modifiers.append(Modifier(f"range: {band}", tables.RANGE_MODIFIER[band]))
    cover = target.cover
    if cover == "partial" and target.prone and target.distance_m >= tables.PRONE_GOOD_COVER_FROM_M:
        cover = "good"
    if cover == "none" and target.prone and target.distance_m >= tables.PRONE_GOOD_COVER_FROM_M:
        modifiers.append(Modifier("good cover (prone, 20 m or more)", tables.GOOD_COVER))
    elif cover == "good":
        modifiers.append(Modifier("good cover", tables.GOOD_COVER))
    elif cover == "partial":
        modifiers.append(Modifier("partial cover", tables.PARTIAL_COVER))
    if target.hidden:
        modifiers.append(Modifier("blind fire", tables.BLIND_FIRE))
    if target.called_shot:
        modifiers.append(Modifier("called shot", target.called_shot_modifier))
    modifiers.extend(visibility(request))
    weapon = gun_of(request, target)
    smartlinked = request.smartlink and weapon.smartgun
    if (
        weapon.laser_sight
        and not smartlinked
        and not two_guns(request)
        and target.distance_m <= tables.LASER_SIGHT_REACH_M
        and request.visibility.obscurant not in tables.LASER_COUNTERED_BY
    ):
        modifiers.append(Modifier("laser sight", tables.LASER_SIGHT))
    if earlier_targets and not spread:
        modifiers.append(
            Modifier(
                f"multiple targets ({earlier_targets} before this one in the phase)",
                tables.MULTIPLE_TARGETS * earlier_targets,
            )
        )
    del index
    return modifiers


def attribute(request: SR4AttackRequest, target: SR4Target | None) -> Modifier:
    attacker = request.attacker
    if target is not None and target.hidden:
        return Modifier("intuition (blind fire)", attacker.intuition)
    return Modifier("agility", attacker.agility)


def skill(request: SR4AttackRequest) -> Modifier:
    attacker = request.attacker
    if two_guns(request) and request.second_skill is not None:
        if request.second_skill < attacker.skill:
            return Modifier("skill (the smaller pool of the two guns')", request.second_skill)
    return Modifier("skill", attacker.skill)
