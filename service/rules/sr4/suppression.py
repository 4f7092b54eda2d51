"""SR4 suppressive fire (001_2cfc288dfef1df08.txt, "Suppressive Fire"): the triangle a shooter
suppresses until its next action phase, who in it is at risk, and their Reaction + Edge test.

The triangle and who stands in it are the shared geometry (service/rules/geometry.py)."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from schemas.common import MAX_ZONES, Modifier, Zone, on_plane
from schemas.encounter import TurnState
from schemas.sr4 import (
    SR4ActorState,
    SR4Affected,
    SR4AttackRequest,
    SR4Defender,
    SR4State,
    SR4ZoneOrder,
    SR4ZoneResult,
    SR4ZoneState,
    SR4ZoneTestRequest,
    SR4ZoneTestResult,
)
from service.rules import geometry
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr4 import opposed, tables
from service.rules.sr4.modifiers import total

STEP = "suppression"


def end_zones_of(state: SR4State, shooter: str) -> SR4State:
    """001: the area stays suppressed until the shooter's next action phase."""
    kept = {zid: z for zid, z in state.zones.items() if z.zone.shooter != shooter}
    if len(kept) == len(state.zones):
        return state
    return msgspec.structs.replace(state, zones=kept)


def check_suppressive(request: SR4AttackRequest, state: SR4State) -> SR4ZoneOrder:
    """What suppressive fire needs before its test: a zone within the weapon's reach, no
    targets, room for another zone."""
    order = request.zone
    if order is None:
        raise RuleViolation(
            "suppressive fire needs its `zone`: origin, direction and length", path="$.zone"
        )
    if request.targets:
        raise RuleViolation(
            "suppressive fire covers an area, not targets: the others are `bystanders`",
            path="$.targets",
        )
    bands = tables.RANGE_BANDS[request.weapon.category]
    reach = bands.bounds(request.attacker.strength)[3]
    if order.length_m > reach:
        raise RuleViolation(
            f"{order.length_m:g} m is beyond the {request.weapon.category}'s range of {reach:g} m",
            path="$.zone.length_m",
            kind="out-of-range",
        )
    if len(state.zones) >= MAX_ZONES:
        raise RuleViolation(
            f"an encounter holds at most {MAX_ZONES} suppression zones at once",
            path="$.zone",
            kind="limit-exceeded",
        )
    return order


def suppressive_fire(
    request: SR4AttackRequest, state: SR4State, modifiers: list[Modifier], dice: Dice
) -> tuple[SR4ZoneResult, SR4State]:
    """001: a Success Test of Agility + firearm skill; note the hits."""
    order = check_suppressive(request, state)
    pool = total(modifiers)
    roll = opposed.test_of(dice.pool(STEP, pool, opposed.EDITION, explode=request.edge != "none"))
    polygon = geometry.triangle(
        (order.origin.x, order.origin.y), order.direction_deg, order.length_m, tables.ZONE_END_WIDTH
    )
    made = state.zones_made + 1
    zone = Zone(
        id=f"zone-{made}",
        shooter=request.attacker.id,
        shape="triangle",
        hits=roll.hits,
        penalty=0,
        kind="suppressive fire",
        lasts="until the shooter's next action phase",
        points=[on_plane(x, y) for x, y in polygon],
    )
    name, load = opposed.ammunition(request)
    del name
    weapon = request.weapon
    live = dict(state.zones)
    live[zone.id] = SR4ZoneState(
        zone=zone,
        polygon=polygon,
        dv=max(0, weapon.damage + load.dv),
        ap=weapon.ap + load.ap,
        damage_type="S" if (load.damage_type or weapon.damage_type) == "S" else "P",
        armor_type=opposed.armor_type(request, weapon),
    )
    affected = []
    for bystander in request.bystanders:
        if bystander.id == request.attacker.id:
            continue
        inside = geometry.contains(polygon, (bystander.position.x, bystander.position.y))
        sheltered = bystander.id in request.sheltered
        affected.append(
            SR4Affected(
                actor=bystander.id,
                inside=inside,
                sheltered=sheltered,
                must_test=inside and not sheltered,
            )
        )
    after = msgspec.structs.replace(state, zones=live, zones_made=made)
    return SR4ZoneResult(zone=zone, suppression=roll, modifiers=modifiers, affected=affected), after


def zone_test_steps(request: SR4ZoneTestRequest) -> dict[str, int]:
    return {f"zone_test:{request.actor}": 6, f"soak:{request.actor}": 6}


@dataclass(frozen=True, slots=True)
class ZoneTest:
    """A zone test as built: the zone, the actor's state and earlier tests this phase, its
    Reaction + Edge (+ Dodge) pool, and what avoids it."""

    live: SR4ZoneState
    actor: SR4ActorState
    tested: list[str]
    modifiers: list[Modifier]
    pool: int
    avoided: str | None

    def resisting(self, defender: SR4Defender) -> opposed.Resisting:
        """The weapon's base DV (its ammunition's too, no net hits), resisted as any damage."""
        live = self.live
        return opposed.resisting(
            self.dv_modifiers, 0, live.ap, live.damage_type, live.armor_type, defender
        )

    @property
    def dv_modifiers(self) -> list[Modifier]:
        return [Modifier("weapon's base DV", self.live.dv)]


def plan_zone_test(
    zone_id: str, request: SR4ZoneTestRequest, state: SR4State, turn: TurnState
) -> ZoneTest:
    live = state.zones.get(zone_id)
    if live is None:
        raise RuleViolation(
            f"no live zone '{zone_id}' (it may have ended)",
            path="zone",
            kind="zone-not-found",
            status=404,
        )
    actor = state.actors.get(request.actor, SR4ActorState())
    tested = actor.zone_tests if actor.zone_tests_phase == turn.phase else []
    if zone_id in tested:
        raise RuleViolation(
            f"{request.actor} already tested against {zone_id} in this action phase",
            path="$.actor",
            kind="already-tested",
            status=409,
        )
    defender = request.defender
    modifiers = [Modifier("reaction", defender.reaction), Modifier("edge", defender.edge)]
    if actor.full_defense and defender.dodge:
        modifiers.append(Modifier("dodge (full defense)", defender.dodge))
    modifiers.extend(opposed.wounds(defender))
    pool = max(0, total(modifiers))
    avoided = None if request.avoid == "none" else request.avoid
    return ZoneTest(live, actor, tested, modifiers, pool, avoided)


def zone_test(
    zone_id: str,
    request: SR4ZoneTestRequest,
    state: SR4State,
    turn: TurnState,
    dice: Dice,
) -> tuple[SR4ZoneTestResult, SR4State]:
    """001: Reaction + Edge (+ Dodge on full defense), less the actor's wounds (SR4 core,
    "Wound Modifiers"), against a threshold of the zone's hits; a failure takes the weapon's
    base DV (its ammunition's too), resisted as any damage (no wounds on that test)."""
    built = plan_zone_test(zone_id, request, state, turn)
    live, actor, tested, modifiers = built.live, built.actor, built.tested, built.modifiers
    pool, avoided = built.pool, built.avoided
    actors = dict(state.actors)
    defender = request.defender
    test = None
    damage = None
    hit = False
    if avoided is None:
        test = opposed.test_of(dice.pool(f"zone_test:{request.actor}", pool, opposed.EDITION))
        hit = test.hits < live.zone.hits
        if hit:
            damage = opposed.resist(
                f"soak:{request.actor}",
                built.dv_modifiers,
                0,
                live.ap,
                live.damage_type,
                live.armor_type,
                defender,
                dice,
            )
    actors[request.actor] = msgspec.structs.replace(
        actor, zone_tests_phase=turn.phase, zone_tests=[*tested, zone_id][:MAX_ZONES]
    )
    result = SR4ZoneTestResult(
        actor=request.actor,
        zone=zone_id,
        avoided=avoided,
        threshold=live.zone.hits,
        pool=pool,
        modifiers=modifiers,
        test=test,
        hit=hit,
        damage=damage,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return result, msgspec.structs.replace(state, actors=actors)
