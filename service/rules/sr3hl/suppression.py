"""Hard Life suppression fire by square metre (004, "Suppression Fire", Tables 9 and 10): the
polygon a shooter fills with bullets until its next combat phase, and the attack anyone who
enters it or moves in it suffers.

The zone test rolls the bullets per square metre against Table 9's target number; each success
is a round that hits, at a Table 10 location, with a d6 of attacker's successes; one dodge takes
its successes off every round; each round scatters from its own location's aim point (Table 1);
then hits.struck does to the target what the rounds that landed do. The geometry is
service/rules/geometry.py; docs/rulesets/sr3-hardlife.md lists every choice made here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from schemas.common import MAX_ZONES, Modifier, Zone
from schemas.encounter import TurnState
from schemas.sr3 import SR3Test
from schemas.sr3hl import (
    HLActorState,
    HLAttackRequest,
    HLAttackResult,
    HLLocationHit,
    HLPoolSpent,
    HLRound,
    HLScatter,
    HLState,
    HLTargetResult,
    HLWeapon,
    HLZoneResult,
    HLZoneState,
    HLZoneTestRequest,
    HLZoneTestResult,
    Location,
    ScatterDirection,
)
from service.rules import geometry
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr3 import tables as sr3_tables
from service.rules.sr3.tables import RangeBand
from service.rules.sr3hl import able, body, condition, dodge, hits, tables

ZONE_KIND = "suppression fire"
# HLZoneState.injury_modifier's bound (schemas/sr3hl.py).
MAX_INJURY_MODIFIER = 20
# How many decimals of a square metre count when the bullets are rounded up: a square drawn
# from floats (0.1 + 0.2) must not cost a bullet more than its area.
AREA_DECIMALS = 6
# HLState.zones_made's bound: the counter stops there (zone ids stay unique, see fire).
MAX_ZONES_MADE = 1_000_000_000
# Table 10 is read from two dice; the dice steps are all d6.
LOCATION_DICE = 2


def suppression_step(actor: str) -> str:
    return f"suppression:{actor}"


def location_step(actor: str) -> str:
    return f"location:{actor}"


def accuracy_step(actor: str) -> str:
    return f"accuracy:{actor}"


def scatter_step(actor: str) -> str:
    return f"scatter:{actor}"


# --- the zone ------------------------------------------------------------------------------------


def area_bullets(bullets_per_m2: int, area_m2: float) -> int:
    """004: the bullets fired are the bullets per square metre over the whole area, rounded up
    (**choice**: a part of a square metre takes a whole square metre's bullets, at most)."""
    return math.ceil(round(bullets_per_m2 * area_m2, AREA_DECIMALS))


def _strength_weapon(request: HLAttackRequest) -> HLWeapon:
    """The weapon as the zone keeps it: an impact projectile's range bands count Strength, so
    the shooter's is written into it for the zone tests to come."""
    weapon = request.weapon
    if not sr3_tables.RANGE_BANDS[weapon.category].per_strength or weapon.strength_rating:
        return weapon
    if request.attacker.strength is None:
        raise RuleViolation(
            f"a {weapon.category}'s range bands are counted from Strength: give the "
            "attacker's strength (or the weapon's strength_rating)",
            path="$.attacker.strength",
            kind="strength-needed",
        )
    return msgspec.structs.replace(weapon, strength_rating=request.attacker.strength)


def fire(
    request: HLAttackRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLAttackResult]:
    """Suppression fire (request.suppression set, no target): the zone it makes. attack.py
    calls this for every request with `suppression`. Nothing is rolled now: each
    zone test rolls the bullets per square metre (004)."""
    order = request.suppression
    if order is None:
        raise RuleViolation(
            "suppression fire needs its `suppression`: the area and the bullets per square metre",
            path="$.suppression",
        )
    if request.target is not None:
        raise RuleViolation(
            "suppression fire covers an area, not a target: whoever enters it or moves in it "
            "takes a zone test",
            path="$.target",
        )
    if request.rounds is not None:
        raise RuleViolation(
            "suppression fire's rounds are its bullets per square metre over its area",
            path="$.rounds",
        )
    if request.pool:
        raise RuleViolation(
            "suppression fire rolls its bullets per square metre, not the skill and the Combat "
            "Pool (004, 'Suppression Fire')",
            path="$.pool",
        )
    weapon = request.weapon
    if request.mode not in weapon.modes:
        raise RuleViolation(
            f"'{weapon.id}' fires {', '.join(weapon.modes)}, not {request.mode}",
            path="$.mode",
            kind="mode-not-available",
        )
    polygon = [(p.x, p.y) for p in order.area]
    if geometry.crosses_itself(polygon):
        raise RuleViolation(
            "the suppressed area's edges cross: give its corners in order around it",
            path="$.suppression.area",
        )
    area_m2 = geometry.area(polygon)
    if area_m2 <= 0:
        raise RuleViolation(
            "the suppressed area encloses no ground (its corners are on one line)",
            path="$.suppression.area",
        )
    bullets = area_bullets(order.bullets_per_m2, area_m2)
    if weapon.ammo < bullets:
        raise RuleViolation(
            f"{order.bullets_per_m2} bullets per m² over {area_m2:g} m² are {bullets} rounds "
            f"but '{weapon.id}' has {weapon.ammo} left",
            path="$.weapon.ammo",
            kind="out-of-ammo",
        )
    kept_weapon = _strength_weapon(request)
    if len(state.zones) >= MAX_ZONES:
        raise RuleViolation(
            f"an encounter holds at most {MAX_ZONES} suppression zones at once",
            path="$.suppression",
            kind="limit-exceeded",
            status=409,
        )
    attacker = request.attacker
    shooter = state.actors.get(attacker.id)
    able.check_able(attacker.id, shooter, turn, "attack", "$.attacker", attacker.limbs)
    shooter = shooter or HLActorState()
    # Table 9, "Attacker Injured": the shooter's injury modifier as it fires (a limb in use
    # counts when it is worse, 004 "Taking Damage").
    injury = min(condition.injury_modifier(shooter.monitors, attacker.limbs), MAX_INJURY_MODIFIER)

    made = min(state.zones_made + 1, MAX_ZONES_MADE)
    zone_id = f"zone-{made}"
    while zone_id in state.zones:  # only once the counter is at its bound
        zone_id += "+"
    zone = Zone(
        id=zone_id,
        shooter=attacker.id,
        shape="polygon",
        hits=order.bullets_per_m2,
        penalty=0,
        kind=ZONE_KIND,
        lasts=f"until the start of {attacker.id}'s next combat phase",
        points=list(order.area),
    )
    live = dict(state.zones)
    live[zone.id] = HLZoneState(
        zone=zone,
        polygon=polygon,
        bullets_per_m2=order.bullets_per_m2,
        weapon=kept_weapon,
        injury_modifier=injury,
        origin=order.origin,
    )
    actors = dict(state.actors)
    in_phase = shooter.phase == turn.phase
    actors[attacker.id] = msgspec.structs.replace(
        shooter,
        phase=turn.phase,
        rounds_in_phase=min(
            (shooter.rounds_in_phase if in_phase else 0) + bullets,
            sr3_tables.MAX_ROUNDS_IN_PHASE,
        ),
        targets_in_phase=shooter.targets_in_phase if in_phase else [],
        aims=0,
    )
    result = HLAttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        action=sr3_tables.FIRING_MODES[request.mode].action,
        rounds_fired=bullets,
        ammo_left=weapon.ammo - bullets,
        attack=None,
        suppression=HLZoneResult(
            zone=zone, bullets_per_m2=order.bullets_per_m2, area_m2=round(area_m2, 4)
        ),
        combat_pool=[],
        dice=dice.rolls,
        seed=dice.seed,
    )
    after = msgspec.structs.replace(state, actors=actors, zones=live, zones_made=made)
    return Resolution(result=result, state=after, actor=attacker.id)


def end_zones_of(state: HLState, shooter: str) -> HLState:
    """004: suppression fire lasts until the start of the shooter's next combat phase (called
    by actions.on_advance)."""
    kept = {zid: z for zid, z in state.zones.items() if z.zone.shooter != shooter}
    if len(kept) == len(state.zones):
        return state
    return msgspec.structs.replace(state, zones=kept)


def zones(state: HLState) -> list[Zone]:
    return [z.zone for z in state.zones.values()]


# --- the zone test: the rounds ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Incoming:
    """A round that hit (a success of the zone test): its Table 10 location and its d6 of
    attacker's successes, before the dodge."""

    round: int
    location: Location
    accuracy: int


def table_10(roll: int, extremity: int | None) -> Location:
    """004, Table 10: the 2d6 total's location; an arm or a leg is the hand or the foot on a
    d6 of 6."""
    location = tables.HIT_LOCATION[roll]
    if extremity == tables.EXTREMITY_ON and location in tables.EXTREMITY:
        return tables.EXTREMITY[location]
    return location


def incoming(actor: str, rounds: int, dice: Dice) -> list[Incoming]:
    """The rounds that hit: for each, 2d6 on Table 10 (and a d6 for an arm's hand or a leg's
    foot) on step location:<actor>; then for each a d6 of successes on step accuracy:<actor>
    (004: "This number is considered the attackers successes")."""
    locations: list[Location] = []
    for _ in range(rounds):
        roll = sum(dice.roll(location_step(actor), LOCATION_DICE))
        extremity = (
            dice.roll(location_step(actor), 1)[0]
            if tables.HIT_LOCATION[roll] in tables.EXTREMITY
            else None
        )
        locations.append(table_10(roll, extremity))
    accuracies = dice.roll(accuracy_step(actor), rounds)
    return [
        Incoming(round=i + 1, location=loc, accuracy=acc)
        for i, (loc, acc) in enumerate(zip(locations, accuracies, strict=True))
    ]


def _direction(value: int) -> ScatterDirection:
    directions: tuple[ScatterDirection, ...] = (1, 2, 3, 4, 5, 6)
    return directions[value - 1]


def placed(
    actor: str,
    rounds: Sequence[Incoming],
    dodge_successes: int,
    target_number: int,
    dice: Dice,
) -> list[HLRound]:
    """004: the dodge's successes come off each round: below 0 it is dodged; exactly 0 is a tie
    (README: it scatters 4 hexes and takes -4 damage dice); the rest scatter by Table 1 from
    their own location's aim point on the body map, a d6 direction each on step
    scatter:<actor>, in round order; off the body, the round misses."""
    placed_rounds: list[HLRound] = []
    for incoming_round in rounds:
        successes = incoming_round.accuracy - dodge_successes
        if successes < 0:
            placed_rounds.append(
                HLRound(
                    round=incoming_round.round,
                    target_number=target_number,
                    successes=0,
                    outcome="dodged",
                )
            )
            continue
        aim = body.AIM_POINTS[incoming_round.location]
        hexes = body.scatter_hexes(successes)
        direction = _direction(dice.roll(scatter_step(actor), 1)[0]) if hexes else None
        path = body.step(aim, direction, hexes) if direction is not None else []
        landed = path[-1] if path else aim
        location = body.location_at(landed)
        placed_rounds.append(
            HLRound(
                round=incoming_round.round,
                target_number=target_number,
                successes=successes,
                outcome="hit" if location is not None else "off_body",
                scatter=HLScatter(
                    aim=aim,
                    successes=successes,
                    hexes=hexes,
                    direction=direction,
                    path=path,
                    landed=landed,
                    location=location,
                ),
                location=location,
            )
        )
    return placed_rounds


# --- the zone test: Table 9 ---------------------------------------------------------------------


def range_band(weapon: HLWeapon, distance_m: float) -> RangeBand:
    """002, "WEAPON RANGE TABLE" for the zone's weapon, by the tester's distance to the shooter;
    beyond extreme (or inside a launcher's minimum) the fire does not reach it: no attack."""
    bands = sr3_tables.RANGE_BANDS[weapon.category]
    bounds = bands.bounds(weapon.strength_rating or 1)
    if distance_m < bands.minimum:
        raise RuleViolation(
            f"{distance_m:g} m from the shooter is inside the {weapon.category}'s minimum range "
            f"of {bands.minimum:g} m: the suppression fire makes no attack there",
            path="$.distance_m",
            kind="out-of-range",
        )
    for band, bound in zip(sr3_tables.BANDS, bounds, strict=True):
        if distance_m <= bound:
            return band
    raise RuleViolation(
        f"{distance_m:g} m from the shooter is beyond the {weapon.category}'s extreme range of "
        f"{bounds[-1]:g} m: the suppression fire makes no attack there",
        path="$.distance_m",
        kind="out-of-range",
    )


def table_9(live: HLZoneState, request: HLZoneTestRequest) -> tuple[list[Modifier], RangeBand]:
    """004, Table 9: 4, + cover (partial +2, good +8), + the shooter's injury modifier, + the
    range band's (medium +1, long +2, extreme +4)."""
    band = range_band(live.weapon, request.distance_m)
    modifiers = [Modifier("suppression fire", tables.SUPPRESSION_TARGET_NUMBER)]
    if tables.SUPPRESSION_COVER[request.cover]:
        modifiers.append(
            Modifier(f"cover ({request.cover})", tables.SUPPRESSION_COVER[request.cover])
        )
    if live.injury_modifier:
        modifiers.append(Modifier("attacker injured", live.injury_modifier))
    if tables.SUPPRESSION_RANGE[band]:
        modifiers.append(Modifier(f"range ({band})", tables.SUPPRESSION_RANGE[band]))
    return modifiers, band


def dice_steps(request: HLZoneTestRequest) -> dict[str, int]:
    """Every step a zone test may roll, all d6, in the order they are rolled."""
    actor = request.actor
    return {
        step: 6
        for step in (
            suppression_step(actor),
            location_step(actor),
            accuracy_step(actor),
            f"dodge:{actor}",
            scatter_step(actor),
            f"armor:{actor}",
            f"lacing:{actor}",
            f"damage:{actor}",
            f"stun:{actor}",
            f"recovery:{actor}",
        )
    }


ZoneOutcome = Literal["hit", "miss", "dodged", "off_body", "stopped"]


def _outcome(
    attack: SR3Test, rounds: Sequence[HLRound], struck: Sequence[HLLocationHit]
) -> ZoneOutcome:
    """The zone test as a whole: a miss with no round hitting; dodged when the dodge took every
    round; off the body when none that was left landed on it; stopped when the armour stopped
    every round that landed; else a hit."""
    if attack.successes == 0:
        return "miss"
    if all(r.outcome == "dodged" for r in rounds):
        return "dodged"
    if not any(r.outcome == "hit" for r in rounds):
        return "off_body"
    if struck and all(h.armor and all(t.stopped for t in h.armor) for h in struck):
        return "stopped"
    return "hit"


@dataclass(frozen=True, slots=True)
class ZoneTestBuild:
    """A zone test before any die is rolled: the live zone, Table 9's modifiers and target
    number, the tester as the state has it (`before`) and counted and checked for its dodge
    and Body roll dice (`victim`). resolve_zone_test rolls it; odds.py samples it."""

    live: HLZoneState
    modifiers: list[Modifier]
    band: RangeBand
    before: HLActorState | None
    victim: HLActorState
    target_number: int


def build_zone_test(zone_id: str, request: HLZoneTestRequest, state: HLState) -> ZoneTestBuild:
    """Everything of a zone test that needs no dice, with every refusal it makes before it
    rolls."""
    live = state.zones.get(zone_id)
    if live is None:
        raise RuleViolation(
            f"no live zone '{zone_id}' (it may have ended)",
            path="zone",
            kind="zone-not-found",
            status=404,
        )
    actor_id = request.actor
    if actor_id == live.zone.shooter:
        raise RuleViolation(
            f"{actor_id} fired '{zone_id}': its own suppression fire does not attack it",
            path="$.actor",
        )
    modifiers, band = table_9(live, request)
    before = state.actors.get(actor_id)
    # The pools counted, and the dodge's and the Body roll's dice checked before anything is
    # rolled (409 when more are asked than are left).
    victim = dodge.check(
        actor_id,
        request.defender,
        before or HLActorState(),
        request.dodge,
        "$.dodge",
        "$.defender",
        resist=request.resist,
    )
    tn = max(sr3_tables.MINIMUM_TARGET_NUMBER, sum(m.value for m in modifiers))
    return ZoneTestBuild(
        live=live, modifiers=modifiers, band=band, before=before, victim=victim, target_number=tn
    )


def resolve_zone_test(
    zone_id: str, request: HLZoneTestRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLZoneTestResult]:
    """004, "Suppression Fire": the attack of the zone on one actor who entered it or moved in
    it."""
    return roll_zone_test(
        zone_id, request, state, turn, build_zone_test(zone_id, request, state), dice
    )


def roll_zone_test(
    zone_id: str,
    request: HLZoneTestRequest,
    state: HLState,
    turn: TurnState,
    built: ZoneTestBuild,
    dice: Dice,
) -> Resolution[HLZoneTestResult]:
    """The zone test `built` (build_zone_test of the same zone, request and state) rolled."""
    live, modifiers, band, tn = built.live, built.modifiers, built.band, built.target_number
    actor_id = request.actor
    actors = dict(state.actors)
    before, victim = built.before, built.victim
    roll = dice.target_number_test(suppression_step(actor_id), live.bullets_per_m2, tn)
    attack = SR3Test(
        dice=live.bullets_per_m2,
        pool_dice=0,
        target_number=tn,
        modifiers=modifiers,
        totals=list(roll.totals),
        successes=roll.successes,
        rule_of_one=roll.all_ones,
    )
    rounds_in = incoming(actor_id, attack.successes, dice)

    # One dodge for all the rounds that hit (004: +1 to its target number per 3 of them).
    dodge_test = None
    if rounds_in:
        dodge_test, victim = dodge.dodge(
            actor_id,
            request.defender,
            victim,
            request.dodge,
            len(rounds_in),
            False,  # 004's Whisper example: 4 + 1 for three rounds, no area-effect +2
            dice,
            "$.dodge",
        )
    dodge_successes = dodge_test.successes if dodge_test is not None else 0
    rounds = placed(actor_id, rounds_in, dodge_successes, tn, dice)

    location_hits: list[HLLocationHit] = []
    recovery = None
    knock_back: Literal["none", "knocked_down", "knocked_back"] = "none"
    knock_back_m = 0
    notes: list[str] = []
    turn_after = None
    resist_spent = 0
    if any(r.outcome == "hit" for r in rounds):
        # The rounds are automatic fire's (groups of three, stopped rounds summed), whatever
        # mode fired them.
        done = hits.struck(
            actor_id,
            request.defender,
            live.weapon,
            rounds,
            victim,
            dice,
            request.resist,
            autofire=True,
            path="$.defender",
        )
        resist_spent = done.resist_spent
        location_hits, victim, recovery = done.hits, done.actor, done.recovery
        knock_back, knock_back_m = done.knock_back, done.knock_back_m
        if done.loses_action:
            victim, turn_after, note = able.lose_next_action(
                actor_id, victim, turn, sr3_tables.INITIATIVE
            )
            notes.append(note)
    if (
        location_hits
        or victim.combat_pool is not None
        or victim.dodge_pool is not None
        or before is not None
    ):
        actors[actor_id] = victim

    # As attacks report them (attack.py): each pool the state knows, with what this spent.
    spent = []
    asked = request.dodge if dodge_test is not None else None
    if victim.combat_pool is not None:
        used = (asked.combat_pool if asked else 0) + resist_spent
        spent.append(HLPoolSpent(actor_id, "combat", used, victim.pool_left))
    if victim.dodge_pool is not None:
        used = asked.dodge_pool if asked else 0
        spent.append(HLPoolSpent(actor_id, "dodge", used, victim.dodge_left))
    first = rounds_in[0].location if rounds_in else body.DEFAULT_AIM_LOCATION
    result = HLZoneTestResult(
        actor=actor_id,
        zone=zone_id,
        attack=attack,
        target=HLTargetResult(
            target=actor_id,
            outcome=_outcome(attack, rounds, location_hits),
            range=band,
            aim=first,
            attack_successes=attack.successes,
            dodge=dodge_test,
            dodge_successes=dodge_successes,
            net_successes=sum(1 for r in rounds if r.outcome != "dodged"),
            rounds=rounds,
            hits=location_hits,
            recovery=recovery,
            condition=victim.condition,
            knock_back=knock_back,
            knock_back_m=knock_back_m,
        ),
        combat_pool=spent,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(
        result=result,
        state=msgspec.structs.replace(state, actors=actors),
        actor=actor_id,
        notes=notes,
        turn=turn_after,
    )
