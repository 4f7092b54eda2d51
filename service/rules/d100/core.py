"""The d100 core test, damage, suppression penalties and action points, shared by attacks,
zone tests and actions (rules-sources/README.md, "d100"; 003_e47222605a1f2969.txt)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from schemas.common import Modifier, Point
from schemas.d100 import (
    D100ActorState,
    D100Damage,
    D100Defender,
    D100Modifier,
    D100State,
    D100Test,
    D100ZoneState,
    Location,
)
from service.rules.d100 import tables
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation


def hits(success_target: int, roll: int) -> int:
    """README: a success is a roll at or under the Success Target, with 1 + (ST - roll) div 10
    hits; a failure has none."""
    if roll > success_target:
        return 0
    return 1 + (success_target - roll) // tables.HITS_PER


def test(dice: Dice, step: str, success_target: int) -> D100Test:
    roll = dice.d100(step)
    got = hits(success_target, roll)
    return D100Test(success_target, roll, got > 0, got)


def net_hits(attack_hits: int, defense_hits: int) -> int:
    return attack_hits - defense_hits


def hits_home(attack_success: bool, net: int) -> bool:
    """README: a successful attack hits with more hits than the defense; ties go to the
    defender."""
    return attack_success and net > 0


def total(modifiers: Sequence[Modifier]) -> int:
    return sum([m.value for m in modifiers])


def named(modifiers: Sequence[D100Modifier]) -> list[Modifier]:
    return [Modifier(m.source, m.value) for m in modifiers]


def defender_modifiers(defender: D100Defender) -> list[Modifier]:
    """What every test the defender makes takes (Active and Passive Defense, a zone's Athletics
    test): the table's `test_modifiers` and its Wounds. 003 names Wounds for the attack and the
    suppressive test; the defender's tests take them too (**choice**, docs/rulesets/d100.md)."""
    modifiers = named(defender.test_modifiers)
    if defender.wound_modifier:
        modifiers.append(Modifier("wounds", defender.wound_modifier))
    return modifiers


def _inside(zone: D100ZoneState, point: Point) -> bool:
    center = zone.zone.center
    radius = zone.zone.radius_m
    assert center is not None and radius is not None
    return math.hypot(point.x - center.x, point.y - center.y) <= radius + 1e-9


def zones_at(state: D100State, point: Point | None) -> list[D100ZoneState]:
    if point is None:
        return []
    return [zone for zone in state.zones.values() if _inside(zone, point)]


def strongest(zones: Sequence[D100ZoneState]) -> D100ZoneState | None:
    """ "Effects of Suppression": of overlapping zones only the one with the most hits counts."""
    return max(zones, key=lambda z: z.zone.hits, default=None)


def suppression_modifiers(state: D100State, point: Point | None) -> list[Modifier]:
    """The suppression penalty on every test of whoever stands at `point`."""
    zone = strongest(zones_at(state, point))
    if zone is None:
        return []
    return [Modifier(f"suppression ({zone.zone.id}, {zone.zone.hits} hits)", zone.zone.penalty)]


@dataclass(frozen=True, slots=True)
class DamageBuild:
    """Everything a hit's damage needs but the dice: the weapon's parts, the defender's Passive
    Defense test and armour (README: flat + bonus hits + net hits, less one per Passive Defense
    hit, then the armour at the hit location less the armour penetration, not below 0)."""

    flat: int
    bonus_dice: int
    bonus_die: int
    armor_penetration: int
    # The Passive Defense test's Success Target; None: the defender has none, it is not rolled.
    passive_defense: int | None
    # The location the request gives (a called shot); None: the d10 table decides.
    location: Location | None
    armor: int
    armor_by_location: Mapping[Location, int]

    def armor_at(self, location: Location) -> int:
        return self.armor_by_location.get(location, self.armor)

    def effective_armor(self, location: Location) -> int:
        return max(0, self.armor_at(location) - self.armor_penetration)


def build_damage(
    flat: int,
    bonus_dice: int,
    bonus_die: int,
    armor_penetration: int,
    defender: D100Defender,
    test_modifiers: Sequence[Modifier],
    location: Location | None,
) -> DamageBuild:
    passive = None
    if defender.passive_defense is not None:
        passive = defender.passive_defense + total(test_modifiers)
    return DamageBuild(
        flat=flat,
        bonus_dice=bonus_dice,
        bonus_die=bonus_die,
        armor_penetration=armor_penetration,
        passive_defense=passive,
        location=location,
        armor=defender.armor,
        armor_by_location=defender.armor_by_location,
    )


def damage_points(before_passive: int, passive_hits: int) -> int:
    """README: one point less per Passive Defense hit, never below 0."""
    return max(0, before_passive - passive_hits)


def wound(points: int, effective_armor: int) -> int:
    """What gets through the armour, never below 0."""
    return max(0, points - effective_armor)


def damage(dice: Dice, subject: str, build: DamageBuild, net_hits: int) -> D100Damage:
    """A hit's damage, rolled: the bonus dice, Passive Defense, the hit location."""
    bonus = dice.roll(f"bonus:{subject}", build.bonus_dice, build.bonus_die)
    passive = None
    if build.passive_defense is not None:
        passive = test(dice, f"passive_defense:{subject}", build.passive_defense)
    passive_hits = passive.hits if passive is not None else 0
    dealt = damage_points(build.flat + sum(bonus) + net_hits, passive_hits)
    location = build.location
    if location is None:
        location = tables.HIT_LOCATIONS[dice.roll(f"location:{subject}", 1, tables.LOCATION_DIE)[0]]
    effective = build.effective_armor(location)
    return D100Damage(
        flat=build.flat,
        bonus_dice=build.bonus_dice,
        bonus_hits=sum(bonus),
        net_hits=net_hits,
        passive_defense=passive,
        passive_defense_hits=passive_hits,
        damage=dealt,
        location=location,
        armor=build.armor_at(location),
        armor_penetration=build.armor_penetration,
        effective_armor=effective,
        wound=wound(dealt, effective),
    )


def damage_steps(subject: str, bonus_die: int, defender: D100Defender) -> dict[str, int]:
    steps = {f"bonus:{subject}": bonus_die, f"location:{subject}": tables.LOCATION_DIE}
    if defender.passive_defense is not None:
        steps[f"passive_defense:{subject}"] = 100
    return steps


def spend(state: D100State, actor_id: str, action_points: int, path: str) -> D100State:
    """The actor's action points this turn, within the encounter's budget if it has one (409)."""
    actor = state.actors.get(actor_id, D100ActorState())
    spent = actor.action_points_spent + action_points
    budget = state.action_point_budget
    if budget is not None and spent > budget:
        left = budget - actor.action_points_spent
        raise RuleViolation(
            f"this costs {action_points} action points but {actor_id} has {left} of "
            f"{budget} left this turn",
            path=path,
            kind="action-points-exceeded",
            status=409,
        )
    actors = dict(state.actors)
    # Without a budget nothing reads the total past any budget there can be: it stops there.
    actors[actor_id] = msgspec.structs.replace(
        actor, action_points_spent=min(spent, tables.MAX_ACTION_POINTS_COUNTED)
    )
    return msgspec.structs.replace(state, actors=actors)


def end_zones_of(state: D100State, shooter: str) -> D100State:
    """ "Suppressive Fire": moving, attacking or anything beyond a free action ends it; so does
    the start of the shooter's next turn."""
    kept = {zid: z for zid, z in state.zones.items() if z.zone.shooter != shooter}
    if len(kept) == len(state.zones):
        return state
    return msgspec.structs.replace(state, zones=kept)
