"""d100 attacks: Shot Rate, single- and multi-target fire, double barrels, suppressive fire.

rules-sources/003_e47222605a1f2969.txt, "Shot Rate", "Single-Target Fire", "Multi-Target Fire",
"Suppressive Fire", "Effects of Suppression", "Double-Barreled Shotguns"; the core test is in
core.py. Choices where the chapter is silent: docs/rulesets/d100.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import msgspec

from schemas.common import MAX_ZONES, Modifier, Point, Zone
from schemas.d100 import (
    D100Affected,
    D100AttackRequest,
    D100AttackResult,
    D100RangeBand,
    D100State,
    D100Target,
    D100TargetResult,
    D100Weapon,
    D100ZoneOrder,
    D100ZoneResult,
    D100ZoneState,
)
from service.rules.d100 import core, tables
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation

SUPPRESSION_STEP = "suppression"


def attack_step(request: D100AttackRequest, target_id: str) -> str:
    # One d100 for a single target; one per target, named by it, in multi-target fire.
    return "attack" if len(request.targets) == 1 else f"attack:{target_id}"


def dice_steps(request: D100AttackRequest) -> dict[str, int]:
    if request.suppressive is not None:
        return {SUPPRESSION_STEP: 100}
    steps: dict[str, int] = {}
    weapon = request.weapon
    for target in request.targets:
        steps[attack_step(request, target.id)] = 100
        steps[f"defense:{target.id}"] = 100
        steps.update(core.damage_steps(target.id, weapon.bonus_die, target.defender))
    return steps


def _range_band(weapon: D100Weapon, distance_m: float, path: str) -> tuple[int, D100RangeBand]:
    for index, band in enumerate(weapon.range_bands):
        if distance_m <= band.up_to_m:
            return index, band
    reach = weapon.range_bands[-1].up_to_m
    raise RuleViolation(
        f"{distance_m:g} m is beyond the range of '{weapon.id}' ({reach:g} m)",
        path=path,
        kind="out-of-range",
    )


def _range_modifier(weapon: D100Weapon, distance_m: float, path: str) -> tuple[str, Modifier]:
    """The range band at `distance_m` (by its name, or "band N"), and its modifier."""
    index, band = _range_band(weapon, distance_m, path)
    name = band.name or f"band {index + 1}"
    return name, Modifier(f"range ({name}, {distance_m:g} m)", band.modifier)


def _cost(request: D100AttackRequest) -> tables.ShotRateCost:
    if request.suppressive is not None:
        return tables.ShotRateCost(tables.SUPPRESSIVE_ACTION_POINTS, tables.SUPPRESSIVE_ROUNDS)
    cost = tables.SHOT_RATES[request.shot_rate]
    if request.both_barrels:
        return tables.ShotRateCost(cost.action_points, tables.BOTH_BARRELS_SHELLS)
    return cost


def _check_bands(weapon: D100Weapon) -> None:
    reach = 0.0
    for index, band in enumerate(weapon.range_bands):
        if band.up_to_m <= reach:
            raise RuleViolation(
                "range bands go from the nearest out, each farther than the one before",
                path=f"$.weapon.range_bands[{index}].up_to_m",
            )
        reach = band.up_to_m


def _check_suppressive(request: D100AttackRequest) -> None:
    if request.targets:
        raise RuleViolation(
            "suppressive fire controls an area: it has no targets", path="$.targets"
        )
    if request.shot_rate:
        raise RuleViolation(
            "Recoil Control and Shot Rate do not affect suppressive fire: leave shot_rate at 0",
            path="$.shot_rate",
        )
    if request.both_barrels:
        raise RuleViolation(
            "both barrels fire at a single target, not suppressive fire", path="$.both_barrels"
        )


def _check_targets(request: D100AttackRequest) -> None:
    targets = request.targets
    if not targets:
        raise RuleViolation(
            "an attack needs a target (or `suppressive` for suppressive fire)", path="$.targets"
        )
    seen: set[str] = set()
    for index, target in enumerate(targets):
        if target.id in seen:
            raise RuleViolation(f"'{target.id}' is targeted twice", path=f"$.targets[{index}].id")
        seen.add(target.id)
    if len(targets) > 1:
        if request.shot_rate < tables.MULTI_TARGET_MIN_SHOT_RATE:
            raise RuleViolation(
                "SR0 attacks one target only: fire at Shot Rate 1 or more at several targets",
                path="$.shot_rate",
            )
        if request.aim:
            raise RuleViolation("aiming cannot be combined with multi-target fire", path="$.aim")
        for index, target in enumerate(targets):
            if target.share_percent is None:
                raise RuleViolation(
                    "with several targets, give each its share_percent of the Success Target "
                    "(they add up to 100)",
                    path=f"$.targets[{index}].share_percent",
                )
    shares = sum(t.share_percent if t.share_percent is not None else 100 for t in targets)
    if shares != 100:
        raise RuleViolation(
            f"the targets' share_percent add up to {shares}, not 100",
            path=f"$.targets[{len(targets) - 1}].share_percent",
        )
    if request.both_barrels:
        if not request.weapon.double_barreled:
            raise RuleViolation(
                f"'{request.weapon.id}' is not a double-barreled shotgun", path="$.both_barrels"
            )
        if request.shot_rate or len(targets) > 1:
            raise RuleViolation(
                "both barrels fire one attack at a single target, at SR0", path="$.both_barrels"
            )


def check(request: D100AttackRequest) -> tables.ShotRateCost:
    """Everything the request must be before any die is rolled; the attack's cost."""
    weapon = request.weapon
    _check_bands(weapon)
    if request.shot_rate > weapon.shot_rate:
        raise RuleViolation(
            f"'{weapon.id}' fires at Shot Rate {weapon.shot_rate} at most",
            path="$.shot_rate",
            kind="mode-not-available",
        )
    if request.suppressive is not None:
        _check_suppressive(request)
    else:
        _check_targets(request)
    cost = _cost(request)
    if weapon.ammo < cost.rounds:
        what = (
            "suppressive fire"
            if request.suppressive is not None
            else "both barrels"
            if request.both_barrels
            else f"SR{request.shot_rate}"
        )
        raise RuleViolation(
            f"{what} spends {cost.rounds} rounds but '{weapon.id}' has {weapon.ammo} left",
            path="$.weapon.ammo",
            kind="out-of-ammo",
        )
    return cost


def split(success_target: int, shares: list[int]) -> list[int]:
    """ "Multi-Target Fire": the Success Target divided in the given proportions (percent),
    by largest remainder, so the parts add up to the whole; ties go to the earlier target."""
    exact = [success_target * share for share in shares]
    parts = [value // 100 for value in exact]
    left = success_target - sum(parts)
    order = sorted(range(len(shares)), key=lambda i: (-(exact[i] % 100), i))
    for index in order[:left]:
        parts[index] += 1
    return parts


def _whole_attack(request: D100AttackRequest, state: D100State) -> list[Modifier]:
    attacker = request.attacker
    modifiers = [Modifier("Marksmanship", attacker.marksmanship)]
    if request.shot_rate:
        counted = min(request.shot_rate, attacker.recoil_control)
        modifiers.append(
            Modifier(
                f"Shot Rate {request.shot_rate} (+{tables.SHOT_RATE_BONUS} a point up to "
                f"Recoil Control {attacker.recoil_control})",
                counted * tables.SHOT_RATE_BONUS,
            )
        )
    if attacker.wound_modifier:
        modifiers.append(Modifier("wounds", attacker.wound_modifier))
    if request.aim:
        modifiers.append(Modifier("aim", request.aim))
    modifiers.extend(core.suppression_modifiers(state, attacker.position))
    modifiers.extend(core.named(request.modifiers))
    return modifiers


def _target_modifiers(
    request: D100AttackRequest, index: int, target: D100Target
) -> tuple[str, list[Modifier]]:
    band, by_range = _range_modifier(
        request.weapon, target.distance_m, f"$.targets[{index}].distance_m"
    )
    modifiers = [by_range]
    if target.visibility:
        modifiers.append(Modifier("visibility", target.visibility))
    modifiers.extend(core.named(target.modifiers))
    return band, modifiers


@dataclass(frozen=True, slots=True)
class AttackBuild:
    """The whole attack before any die is rolled: its cost, the state it is rolled on (the
    action points spent, the shooter's own zones ended) and its Success Target, divided."""

    cost: tables.ShotRateCost
    state: D100State
    modifiers: list[Modifier]
    success_target: int
    # Each target's part of the Success Target ("Multi-Target Fire"); none for suppressive fire.
    shares: list[int]


@dataclass(frozen=True, slots=True)
class TargetBuild:
    """One target's tests before any die is rolled."""

    target: D100Target
    step: str
    share: int
    band: str
    modifiers: list[Modifier]
    # The attack test's Success Target at this target: its share and its own modifiers.
    success_target: int
    # Every test the defender makes here takes these (Active and Passive Defense).
    test_modifiers: list[Modifier]
    # The Active Defense test's Success Target; None: the defender rolls none.
    defense: int | None
    damage: core.DamageBuild


@dataclass(frozen=True, slots=True)
class SuppressionBuild:
    """The suppressive fire test before its die is rolled."""

    order: D100ZoneOrder
    modifiers: list[Modifier]
    success_target: int


def build_attack(request: D100AttackRequest, state: D100State) -> AttackBuild:
    """Every refusal of the attack and everything it rolls against, nothing rolled: `resolve`
    rolls on it, the odds (odds.py) count on it."""
    cost = check(request)
    attacker = request.attacker.id
    path = "$.suppressive" if request.suppressive is not None else "$.shot_rate"
    state = core.spend(state, attacker, cost.action_points, path)
    # Attacking ends the shooter's suppressive fire.
    state = core.end_zones_of(state, attacker)
    if request.suppressive is not None and len(state.zones) >= MAX_ZONES:
        raise RuleViolation(
            f"an encounter holds at most {MAX_ZONES} suppression zones at once",
            path="$.suppressive",
            kind="limit-exceeded",
        )
    whole = _whole_attack(request, state)
    success_target = core.total(whole)
    shares = []
    if request.suppressive is None:
        shares = split(
            success_target,
            [t.share_percent if t.share_percent is not None else 100 for t in request.targets],
        )
    return AttackBuild(cost, state, whole, success_target, shares)


def build_target(request: D100AttackRequest, built: AttackBuild, index: int) -> TargetBuild:
    """The tests at target `index`: its range band may refuse it (a target out of range)."""
    target = request.targets[index]
    share = built.shares[index]
    band, modifiers = _target_modifiers(request, index, target)
    defender = target.defender
    test_modifiers = [
        *core.defender_modifiers(defender),
        *core.suppression_modifiers(built.state, defender.position),
    ]
    weapon = request.weapon
    # "Double-Barreled Shotguns": the bonus dice doubled, nothing else.
    bonus_dice = weapon.bonus_dice * (tables.BOTH_BARRELS_BONUS_DICE if request.both_barrels else 1)
    return TargetBuild(
        target=target,
        step=attack_step(request, target.id),
        share=share,
        band=band,
        modifiers=modifiers,
        success_target=share + core.total(modifiers),
        test_modifiers=test_modifiers,
        defense=(
            defender.defense + core.total(test_modifiers) if defender.defense is not None else None
        ),
        damage=core.build_damage(
            flat=weapon.damage,
            bonus_dice=bonus_dice,
            bonus_die=weapon.bonus_die,
            armor_penetration=weapon.armor_penetration,
            defender=defender,
            test_modifiers=test_modifiers,
            location=target.location,
        ),
    )


def build_suppression(request: D100AttackRequest, built: AttackBuild) -> SuppressionBuild:
    """ "Suppressive Fire": Marksmanship to the centre of the circle, with its range band."""
    order = request.suppressive
    assert order is not None
    distance = math.hypot(order.center.x - order.origin.x, order.center.y - order.origin.y)
    modifiers = [
        *built.modifiers,
        _range_modifier(request.weapon, distance, "$.suppressive.center")[1],
    ]
    if order.visibility:
        modifiers.append(Modifier("visibility", order.visibility))
    modifiers.extend(core.named(order.modifiers))
    return SuppressionBuild(order, modifiers, core.total(modifiers))


def _roll_target(build: TargetBuild, dice: Dice) -> D100TargetResult:
    target = build.target
    attack = core.test(dice, build.step, build.success_target)
    defense = None
    # An attack that fails is a miss: the defender rolls (and is charged) no defense.
    if attack.success and build.defense is not None:
        defense = core.test(dice, f"defense:{target.id}", build.defense)
    net_hits = core.net_hits(attack.hits, defense.hits if defense is not None else 0)
    hit = core.hits_home(attack.success, net_hits)
    damage = None
    if hit:
        # Hot bonus dice: they count on a successful test only, so they are rolled on a hit.
        damage = core.damage(dice, target.id, build.damage, net_hits)
    return D100TargetResult(
        target=target.id,
        outcome="hit" if hit else "miss",
        range_band=build.band,
        share_percent=target.share_percent if target.share_percent is not None else 100,
        share=build.share,
        modifiers=build.modifiers,
        attack=attack,
        defense=defense,
        defense_modifiers=build.test_modifiers if defense is not None else [],
        net_hits=max(net_hits, 0) if attack.success else 0,
        damage=damage,
    )


def zone_of(request: D100AttackRequest, state: D100State, hits: int) -> Zone:
    """The circle a successful suppressive fire test makes, of its hits."""
    order = request.suppressive
    assert order is not None
    shooter = request.attacker.id
    return Zone(
        id=f"zone-{state.zones_made + 1}",
        shooter=shooter,
        shape="circle",
        hits=hits,
        penalty=tables.SUPPRESSION_PENALTY_PER_HIT * hits,
        kind="suppressive fire",
        lasts=f"until the start of {shooter}'s next turn, or until {shooter} moves, attacks "
        "or does anything beyond a free action",
        center=Point(x=order.center.x, y=order.center.y),
        radius_m=tables.SUPPRESSION_DIAMETER_M / 2,
    )


def _suppressive_fire(
    request: D100AttackRequest, build: SuppressionBuild, state: D100State, dice: Dice
) -> tuple[D100ZoneResult, D100State]:
    """ "Suppressive Fire": its hits set the zone's strength, and a failure makes no zone."""
    modifiers = build.modifiers
    test = core.test(dice, SUPPRESSION_STEP, build.success_target)
    if not test.success:
        return D100ZoneResult(zone=None, test=test, modifiers=modifiers, affected=[]), state
    zone = zone_of(request, state, test.hits)
    weapon = request.weapon
    live = dict(state.zones)
    live[zone.id] = D100ZoneState(
        zone=zone,
        damage=weapon.damage,
        bonus_dice=weapon.bonus_dice,
        bonus_die=weapon.bonus_die,
        armor_penetration=weapon.armor_penetration,
    )
    after = msgspec.structs.replace(state, zones=live, zones_made=state.zones_made + 1)
    affected = []
    for bystander in request.bystanders:
        here = core.zones_at(after, bystander.position)
        inside = any(z.zone.id == zone.id for z in here)
        worst = core.strongest(here)
        affected.append(
            D100Affected(
                actor=bystander.id,
                inside=inside,
                penalty=worst.zone.penalty if worst is not None else 0,
                # "Effects of Suppression": whoever is neither in cover nor prone.
                must_test=inside and not (bystander.in_cover or bystander.prone),
            )
        )
    return D100ZoneResult(zone=zone, test=test, modifiers=modifiers, affected=affected), after


def resolve_attack(
    request: D100AttackRequest, state: D100State, dice: Dice
) -> Resolution[D100AttackResult]:
    built = build_attack(request, state)
    state = built.state
    attacker = request.attacker.id
    targets: list[D100TargetResult] = []
    zone = None
    if request.suppressive is not None:
        zone, state = _suppressive_fire(request, build_suppression(request, built), state, dice)
    else:
        # Each target built, then rolled, in turn.
        for index in range(len(request.targets)):
            targets.append(_roll_target(build_target(request, built, index), dice))
    cost = built.cost
    result = D100AttackResult(
        attacker=attacker,
        weapon=request.weapon.id,
        shot_rate=request.shot_rate,
        both_barrels=request.both_barrels,
        action_points=cost.action_points,
        action_points_spent=state.actors[attacker].action_points_spent,
        rounds_fired=cost.rounds,
        ammo_left=request.weapon.ammo - cost.rounds,
        success_target=built.success_target,
        modifiers=built.modifiers,
        targets=targets,
        zone=zone,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(result=result, state=state, actor=attacker)
