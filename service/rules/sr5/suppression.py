"""SR5 suppressive fire: the zone a shooter lays down, who it affects, and when it ends.

The guide (000_43afc0edeb7f6e19.txt), "Suppressive fire", "Enhanced", "Flechette"; choices in
rules-sources/README.md and docs/rulesets/sr5.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from schemas.common import MAX_ZONES, Modifier, Point, Zone, on_plane
from schemas.encounter import TurnState
from schemas.sr5 import (
    SR5ActorState,
    SR5Affected,
    SR5AttackRequest,
    SR5State,
    SR5Target,
    SR5Test,
    SR5ZoneOrder,
    SR5ZoneResult,
    SR5ZoneState,
    SR5ZoneTestRequest,
    SR5ZoneTestResult,
)
from service.rules import geometry
from service.rules.dice import Dice, Edition
from service.rules.ruleset import RuleViolation
from service.rules.sr5 import tables
from service.rules.sr5.defense import SoakTest, full_defense, resist, soak_test, wounds

EDITION: Edition = "sr5"
STEP = "suppression"


def end_zones_of(state: SR5State, shooter: str) -> SR5State:
    """The guide: the zone lasts so long as the shooter does not move or do anything else."""
    kept = {zid: z for zid, z in state.zones.items() if z.zone.shooter != shooter}
    if len(kept) == len(state.zones):
        return state
    return SR5State(actors=state.actors, zones=kept, zones_made=state.zones_made)


def end_all_zones(state: SR5State) -> SR5State:
    """The guide: the zone lasts until the end of the combat turn."""
    if not state.zones:
        return state
    return SR5State(actors=state.actors, zones={}, zones_made=state.zones_made)


def _shape(request: SR5AttackRequest, order: SR5ZoneOrder) -> tuple[float, int, bool, str]:
    """End width, test modifier, whether dropping prone avoids it, and its kind."""
    if request.choke is not None:
        width, modifier = tables.FLECHETTE_ZONE[request.choke]
        return width, modifier, False, f"flechette suppressive fire ({request.choke})"
    if order.enhanced:
        return tables.ENHANCED_END_WIDTH, 0, False, "enhanced suppressive fire"
    return tables.ZONE_END_WIDTH, 0, True, "suppressive fire"


def _validate(request: SR5AttackRequest) -> SR5ZoneOrder:
    order = request.zone
    if order is None:
        raise RuleViolation(
            "suppressive fire needs its `zone`: origin, direction and length",
            path="$.zone",
            kind="rule-violation",
        )
    if request.targets:
        raise RuleViolation(
            "suppressive fire covers an area: give the others as `bystanders`, not targets",
            path="$.targets",
            kind="rule-violation",
        )
    reach = tables.RANGE_BANDS[request.weapon.category].extreme
    if order.length_m > reach:
        raise RuleViolation(
            f"{order.length_m:g} m is beyond the {request.weapon.category}'s range of {reach:g} m",
            path="$.zone.length_m",
            kind="out-of-range",
        )
    return order


def check_suppressive(request: SR5AttackRequest, state: SR5State) -> SR5ZoneOrder:
    """The zone's order, checked before any die is rolled."""
    order = _validate(request)
    if len(state.zones) >= MAX_ZONES:
        raise RuleViolation(
            f"an encounter holds at most {MAX_ZONES} suppression zones at once",
            path="$.zone",
            kind="limit-exceeded",
        )
    return order


def suppression_pool(modifiers: list[Modifier]) -> int:
    """The zone's test pool: Skill + Agility with the whole attack's modifiers."""
    return max(0, sum(m.value for m in modifiers))


def zone_hits(rolled: int, limit: int) -> int:
    """The guide: Skill + Agility [Accuracy]: the hits up to the limit make the zone."""
    return min(rolled, limit)


def suppressive_fire(
    request: SR5AttackRequest,
    state: SR5State,
    order: SR5ZoneOrder,
    modifiers: list[Modifier],
    limit: int,
    damage: tuple[int, int, str],
    dice: Dice,
) -> tuple[SR5ZoneResult, SR5State]:
    """The zone's hits come from Skill + Agility [Accuracy] with the whole attack's modifiers
    (`check_suppressive` checked the order)."""
    roll = dice.pool(STEP, suppression_pool(modifiers), EDITION)
    hits = zone_hits(roll.hits, limit)
    width, test_modifier, allows_prone, kind = _shape(request, order)
    origin = (order.origin.x, order.origin.y)
    polygon = geometry.triangle(origin, order.direction_deg, order.length_m, width)
    made = state.zones_made + 1
    zone = Zone(
        id=f"zone-{made}",
        shooter=request.attacker.id,
        shape="triangle",
        hits=hits,
        penalty=-hits,
        kind=kind,
        lasts="until the combat turn ends, or the shooter moves or acts",
        points=[on_plane(x, y) for x, y in polygon],
    )
    dv, ap, damage_type = damage
    live = dict(state.zones)
    live[zone.id] = SR5ZoneState(
        zone=zone,
        polygon=polygon,
        dv=dv,
        ap=ap,
        damage_type="P" if damage_type == "P" else "S",
        allows_prone=allows_prone,
        test_modifier=test_modifier,
    )
    affected = [
        _affected(
            bystander.id,
            (bystander.position.x, bystander.position.y),
            bystander.aware,
            bystander.in_cover or bystander.prone,
            zone.id,
            live,
        )
        for bystander in request.bystanders
    ]
    test = SR5Test(
        pool=roll.pool,
        hits=hits,
        ones=roll.ones,
        glitch=roll.glitch,
        critical_glitch=roll.critical_glitch,
    )
    after = SR5State(actors=state.actors, zones=live, zones_made=made)
    return SR5ZoneResult(zone=zone, suppression=test, affected=affected), after


def _affected(
    actor: str,
    position: Point | tuple[float, float],
    aware: bool,
    sheltered: bool,
    zone_id: str,
    zones: dict[str, SR5ZoneState],
) -> SR5Affected:
    point = position if isinstance(position, tuple) else (position.x, position.y)
    here = zones[zone_id]
    gap = geometry.distance(here.polygon, point)
    # The guide: with several zones over the same area, only the highest penalty counts.
    near = [
        z.zone.hits
        for z in zones.values()
        if geometry.distance(z.polygon, point) <= tables.ADJACENT_M
    ]
    penalty = -max(near) if near and aware else 0
    inside = gap == 0
    return SR5Affected(
        actor=actor,
        inside=inside,
        adjacent=0 < gap <= tables.ADJACENT_M,
        penalty=penalty,
        must_test=inside and not sheltered,
    )


def zone_test_steps(request: SR5ZoneTestRequest) -> dict[str, int]:
    return {f"zone_test:{request.actor}": 6, f"soak:{request.actor}": 6}


@dataclass(frozen=True, slots=True)
class ZoneTest:
    """One actor's zone test as it is built, before a die is rolled: what `zone_test` rolls
    and `odds.zone_test_odds` turns into distributions."""

    live: SR5ZoneState
    actor: SR5ActorState
    tested: list[str]
    target: SR5Target
    avoided: str | None
    edge_spent: int
    modifiers: list[Modifier]
    pool: int

    def hit(self, hits: int) -> bool:
        """The guide: the zone's hits are the test's threshold; short of it, the actor is hit."""
        return hits < self.live.zone.hits

    def soak(self) -> SoakTest:
        """A hit takes the weapon's base DV, with its ammunition, resisted as usual."""
        dv = [Modifier("weapon and ammunition (base DV)", self.live.dv)]
        return soak_test(dv, self.live.ap, self.live.damage_type, self.target)


def build_zone_test(
    zone_id: str, request: SR5ZoneTestRequest, state: SR5State, turn: TurnState
) -> ZoneTest:
    """Reaction + Edge (+ full defense) against a threshold of the zone's hits, checked and
    built from the zone and the actor's state, with no die rolled."""
    live = state.zones.get(zone_id)
    if live is None:
        raise RuleViolation(
            f"no live zone '{zone_id}' (it may have ended)",
            path="zone",
            kind="zone-not-found",
            status=404,
        )
    actor = state.actors.get(request.actor, SR5ActorState())
    tested = actor.zone_tests if actor.zone_tests_phase == turn.phase else []
    if zone_id in tested:
        raise RuleViolation(
            f"{request.actor} already tested against {zone_id} in this action phase",
            path="$.actor",
            kind="already-tested",
            status=409,
        )
    edge_spent = 0
    avoided: str | None = None
    if request.avoid in ("drop_prone", "hit_the_dirt"):
        if not live.allows_prone:
            raise RuleViolation(
                f"{live.zone.kind} cannot be avoided by going prone; only Lucky Cover (Edge)",
                path="$.avoid",
                kind="rule-violation",
            )
        avoided = request.avoid
    elif request.avoid == "lucky_cover":
        if request.edge < 1:
            raise RuleViolation("Lucky Cover needs Edge", path="$.edge", kind="no-edge")
        avoided, edge_spent = "lucky_cover", 1

    modifiers = [Modifier("reaction", request.defender.reaction), Modifier("edge", request.edge)]
    target = SR5Target(id=request.actor, distance_m=0, defender=request.defender)
    bonus, _ = full_defense(target, "$.defender", actor.full_defense)
    if bonus is not None:
        modifiers.append(bonus)
    modifiers.extend(wounds(request.defender))
    if live.test_modifier:
        modifiers.append(Modifier("flechette spread", live.test_modifier))
    if tested:
        # The guide: successive tests in the same action phase take -1 each.
        modifiers.append(Modifier(f"{len(tested)} earlier zone test(s) this phase", -len(tested)))
    return ZoneTest(
        live=live,
        actor=actor,
        tested=tested,
        target=target,
        avoided=avoided,
        edge_spent=edge_spent,
        modifiers=modifiers,
        pool=max(0, sum(m.value for m in modifiers)),
    )


def zone_test(
    zone_id: str,
    request: SR5ZoneTestRequest,
    state: SR5State,
    turn: TurnState,
    dice: Dice,
) -> tuple[SR5ZoneTestResult, SR5State]:
    """The zone test of `build_zone_test`, rolled: a failure takes the zone's damage."""
    built = build_zone_test(zone_id, request, state, turn)
    live = built.live
    test = None
    damage = None
    hit = False
    if built.avoided is None:
        roll = dice.pool(f"zone_test:{request.actor}", built.pool, EDITION)
        test = SR5Test(roll.pool, roll.hits, roll.ones, roll.glitch, roll.critical_glitch)
        hit = built.hit(roll.hits)
        if hit:
            soak = built.soak()
            damage = resist(soak.dv_modifiers, live.ap, live.damage_type, built.target, dice)
    actors = dict(state.actors)
    actors[request.actor] = msgspec.structs.replace(
        built.actor, zone_tests_phase=turn.phase, zone_tests=[*built.tested, zone_id]
    )
    result = SR5ZoneTestResult(
        actor=request.actor,
        zone=zone_id,
        avoided=built.avoided,
        threshold=live.zone.hits,
        pool=built.pool,
        modifiers=built.modifiers,
        test=test,
        hit=hit,
        damage=damage,
        edge_spent=built.edge_spent,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return result, msgspec.structs.replace(state, actors=actors)
