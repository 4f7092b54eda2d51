"""SR4 grenades (001_2cfc288dfef1df08.txt, "GRENADES"): where one lands (scatter), the blast and
what barriers do to it (shield, fall, or in a confined space send it back), and when a thrown
grenade goes off (the next initiative pass, at the thrower's score).

Pure functions: the attack (service/rules/sr4) calls `resolve_grenade` with its attack test; the
turn's crossings call `went_off`. Numbers and their sources: grenade_tables.py."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from schemas.common import DiceRoll, Modifier, Point, Zone
from schemas.encounter import AdvanceRequest, TurnState
from schemas.scene import SceneActor
from schemas.sr4 import (
    MAX_PENDING_GRENADES,
    SR4Barrier,
    SR4BarrierResult,
    SR4BlastActor,
    SR4BlastHit,
    SR4BlastResult,
    SR4Grenade,
    SR4GrenadeNumbers,
    SR4PendingGrenade,
    SR4Scatter,
    SR4Test,
)
from service.rules import blast as plane
from service.rules.dice import Dice, Edition, PoolRoll
from service.rules.ruleset import RuleViolation
from service.rules.sr4 import grenade_tables as tables

EDITION: Edition = "sr4"
XY = tuple[float, float]


def test_of(roll: PoolRoll) -> SR4Test:
    return SR4Test(roll.pool, roll.hits, roll.ones, roll.glitch, roll.critical_glitch)


def _xy(point: Point) -> XY:
    return (point.x, point.y)


def _point(xy: XY) -> Point:
    # Three decimals (millimetres) keep the wire free of 1e-16 noise from the trigonometry.
    return Point(x=round(xy[0], 3) + 0.0, y=round(xy[1], 3) + 0.0)


# --- the grenade's numbers ---------------------------------------------------------------------


def numbers(grenade: SR4Grenade, path: str) -> SR4GrenadeNumbers:
    """The grenade's damage code and fall-off: its row of the grenade table, with what the
    request gives in place of the row's numbers. A custom grenade gives them all."""
    row = tables.GRENADES.get(grenade.type)
    if row is None:
        missing = [name for name in ("dv", "damage_type") if getattr(grenade, name) is None] + (
            ["falloff_per_m"] if grenade.falloff_per_m is None and grenade.radius_m is None else []
        )
        if missing:
            raise RuleViolation(
                f"a custom grenade gives its {', '.join(missing)} (and falloff_per_m or "
                "radius_m): the grenade table has no row for it",
                path=f"{path}.{missing[0]}",
                kind="grenade-incomplete",
            )
        return SR4GrenadeNumbers(
            type=grenade.type,
            dv=grenade.dv or 0,
            damage_type=grenade.damage_type or "P",
            ap=grenade.ap if grenade.ap is not None else 0,
            falloff_per_m=grenade.falloff_per_m or 0,
            radius_m=grenade.radius_m,
        )
    return SR4GrenadeNumbers(
        type=grenade.type,
        dv=grenade.dv if grenade.dv is not None else row.dv,
        damage_type=grenade.damage_type or row.damage_type,
        ap=grenade.ap if grenade.ap is not None else row.ap,
        falloff_per_m=(
            grenade.falloff_per_m if grenade.falloff_per_m is not None else row.falloff_per_m
        ),
        radius_m=grenade.radius_m if grenade.radius_m is not None else row.radius_m,
    )


def scatter_dice(grenade: SR4Grenade) -> int:
    """The d6 rolled for the scatter distance: as given, else 1 for an airburst grenade (001),
    else the Scatter Table's for its delivery."""
    if grenade.scatter_dice is not None:
        return grenade.scatter_dice
    if grenade.airburst:
        return tables.AIRBURST_SCATTER_DICE
    return tables.SCATTER_DICE[grenade.delivery]


def arming_m(grenade: SR4Grenade) -> float:
    """How far a grenade travels before it arms: a launcher's 5 m (001), 0 for a thrown one."""
    if grenade.arming_m is not None:
        return grenade.arming_m
    return tables.LAUNCHER_ARMING_M if grenade.delivery == "launcher" else 0.0


def check_arming(grenade: SR4Grenade, origin: Point | None, aimed_at: Point, path: str) -> None:
    """001, "Grenade Launcher Minimum Range": a launcher is never aimed closer than it arms."""
    minimum = arming_m(grenade)
    if origin is None or minimum <= 0:
        return
    metres = plane.distance(_xy(origin), _xy(aimed_at))
    if metres < minimum:
        raise RuleViolation(
            f"{metres:g} m is closer than the {minimum:g} m a launcher grenade travels before it "
            "arms (disarm the safety and give arming_m 0)",
            path=path,
            kind="out-of-range",
        )


# --- scatter -----------------------------------------------------------------------------------


def _heading(origin: Point | None, aimed_at: Point) -> XY:
    """The unit vector of the throw: from the thrower to the aimed point; +y without a thrower's
    position (or when it stands on the point)."""
    if origin is not None:
        dx, dy = aimed_at.x - origin.x, aimed_at.y - origin.y
        length = math.hypot(dx, dy)
        if length > plane.EPSILON:
            return (dx / length, dy / length)
    return (0.0, 1.0)


def scatter_heading(direction: int, heading: XY) -> XY:
    """The scatter diagram: 1 along the throw, then 60 degrees clockwise per step (4 back toward
    the thrower), clockwise as seen with +x to the right and +y up."""
    angle = math.radians(-(direction - 1) * tables.DEGREES_PER_DIRECTION)
    cos, sin = math.cos(angle), math.sin(angle)
    return (heading[0] * cos - heading[1] * sin, heading[0] * sin + heading[1] * cos)


def scatter(
    aimed_at: Point, origin: Point | None, grenade: SR4Grenade, net_hits: int, dice: Dice
) -> SR4Scatter:
    """001, "Determine Scatter": 1D6 for the direction (step "scatter_direction"), the scatter
    dice for the distance (step "scatter"), less 2 m (standard) or 4 m (aerodynamic, launcher)
    per net hit. At 0 or less it lands on the aimed point, and the hits the distance did not
    need add to the DV. A launcher grenade that lands within its arming range of the launcher
    is a dud."""
    net_hits = max(0, net_hits)
    direction = dice.roll(tables.SCATTER_DIRECTION_STEP, 1)[0]
    count = scatter_dice(grenade)
    rolled = sum(dice.roll(tables.SCATTER_STEP, count))
    per_hit = tables.METRES_PER_NET_HIT[grenade.delivery]
    remaining = rolled - per_hit * net_hits
    if remaining <= 0:
        # The hits it took to bring the distance to 0; the rest are whole hits left over.
        needed = math.ceil(rolled / per_hit)
        landed, distance, extra_dv = aimed_at, 0.0, net_hits - needed
    else:
        way = scatter_heading(direction, _heading(origin, aimed_at))
        landed = _point((aimed_at.x + way[0] * remaining, aimed_at.y + way[1] * remaining))
        distance, extra_dv = float(remaining), 0
    minimum = arming_m(grenade)
    dud = origin is not None and minimum > 0 and plane.distance(_xy(origin), _xy(landed)) < minimum
    return SR4Scatter(
        aimed_at=aimed_at,
        direction=direction,
        dice=count,
        rolled_m=rolled,
        net_hits=net_hits,
        per_hit_m=per_hit,
        distance_m=distance,
        landed=landed,
        on_target=remaining <= 0,
        extra_dv=extra_dv,
        dud=dud,
    )


# --- the blast ---------------------------------------------------------------------------------


def dv_at(numbers: SR4GrenadeNumbers, extra_dv: int, metres: float) -> int:
    """The DV `metres` from the blast point: less the fall-off for each whole metre (rounded
    down), none past an even blast's radius. Never below 0."""
    if numbers.radius_m is not None and metres > numbers.radius_m + plane.EPSILON:
        return 0
    whole = math.floor(metres + tables.METRE_SLACK)
    return max(0, numbers.dv + extra_dv - numbers.falloff_per_m * whole)


def reach_m(numbers: SR4GrenadeNumbers, extra_dv: int = 0) -> float | None:
    """How far the blast hurts anyone: an even blast's radius, else the last metre where the DV
    is still above 0 (None: a DV that never falls and has no radius)."""
    if numbers.dv + extra_dv <= 0:
        return 0.0
    if numbers.falloff_per_m <= 0:
        return numbers.radius_m
    last = math.ceil((numbers.dv + extra_dv) / numbers.falloff_per_m) - 1
    return float(last + 1) if numbers.radius_m is None else min(numbers.radius_m, last + 1)


@dataclass(frozen=True, slots=True)
class _Barrier:
    wall: SR4Barrier
    start: XY
    end: XY
    holds: bool
    reflects: bool


def _barrier_test(
    wall: SR4Barrier, dv: int, confined: bool, dice: Dice
) -> tuple[SR4BarrierResult, bool]:
    """SR4 "Barriers" (grenade_tables.BLAST_DV_AGAINST_BARRIERS): the blast's DV at the wall,
    doubled, must exceed its Armor to damage it; it resists with Structure + Armor (step
    "barrier:<id>"); damage that reaches its Structure breaks it. The GM's `holds` wins."""
    doubled = dv * tables.BLAST_DV_AGAINST_BARRIERS
    test: SR4Test | None = None
    damage = 0
    if wall.holds is not None:
        holds = wall.holds
    elif doubled <= wall.armor:
        holds = True
    else:
        test = test_of(dice.pool(f"barrier:{wall.id}", wall.structure + wall.armor, EDITION))
        damage = max(0, doubled - test.hits)
        holds = damage < wall.structure
    result = SR4BarrierResult(
        barrier=wall.id,
        dv=doubled,
        test=test,
        damage=damage,
        holds=holds,
        reflects=holds and confined,
    )
    return result, holds


def _crossed(
    start: XY, end: XY, walls: Sequence[_Barrier], but: _Barrier | None = None
) -> list[tuple[float, _Barrier]]:
    """The walls the straight path from `start` to `end` crosses, nearest first."""
    found = []
    for wall in walls:
        if wall is but:
            continue
        where = plane.crossing(start, end, wall.start, wall.end)
        if where is not None:
            found.append((where, wall))
    return sorted(found, key=lambda pair: pair[0])


def _rebound(
    numbers: SR4GrenadeNumbers,
    extra_dv: int,
    point: XY,
    here: XY,
    walls: Sequence[_Barrier],
) -> list[tuple[str, int]]:
    """001, "Blast in a Confined Space": the wave off each wall that holds, where it comes back
    to `here` (first reflections only): the path from the point mirrored across the wall to
    `here` crosses the wall itself, and neither leg (to the wall, back from it) is stopped by
    another wall that holds. Its DV falls off over the whole path."""
    holding = [w for w in walls if w.holds]
    found = []
    for wall in walls:
        if not wall.reflects:
            continue
        mirrored = plane.mirror(point, wall.start, wall.end)
        where = plane.crossing(mirrored, here, wall.start, wall.end)
        if where is None:
            continue
        bounce = (
            mirrored[0] + (here[0] - mirrored[0]) * where,
            mirrored[1] + (here[1] - mirrored[1]) * where,
        )
        if _crossed(point, bounce, holding, but=wall) or _crossed(bounce, here, holding, wall):
            continue
        dv = dv_at(numbers, extra_dv, plane.distance(mirrored, here))
        if dv > 0:
            found.append((wall.wall.id, dv))
    return found


def _soak(
    actor: SR4BlastActor,
    numbers: SR4GrenadeNumbers,
    dv: int,
    armor_modifiers: list[Modifier],
    dice: Dice,
) -> tuple[int, tables.Track, SR4Test | None, int]:
    """001, "Blast Effects" and "Compare Armor": Body + impact armor, the grenade's AP applied
    to the armor (never below 0), step "soak:<actor id>"; Physical damage is Stun when the DV
    does not exceed that armor. Without a Body on the sheet: no test, the DV as it reached."""
    armor = max(0, sum(m.value for m in armor_modifiers) + numbers.ap)
    physical = numbers.damage_type == "P" and dv > armor
    track: tables.Track = "physical" if physical else "stun"
    if actor.body is None or dv <= 0:
        return armor, track, None, 0
    soak = test_of(dice.pool(f"soak:{actor.id}", actor.body + armor, EDITION))
    return armor, track, soak, soak.hits


def blast(
    grenade_id: str,
    thrower: str,
    point: Point,
    numbers: SR4GrenadeNumbers,
    actors: Sequence[SR4BlastActor],
    barriers: Sequence[SR4Barrier],
    confined: bool,
    dice: Dice,
    extra_dv: int = 0,
    seed: int = 0,
) -> SR4BlastResult:
    """A grenade going off at `point`: the barriers its wave meets, then everyone it reaches
    with the DV there (and back off walls that held, in a confined space), resisted."""
    rolled_before = len(dice.rolls)
    centre = _xy(point)
    places = {actor.id: _xy(actor.position) for actor in actors}
    # The barriers that matter: those between the point and someone, and in a confined space
    # every wall the wave reaches (the walls that hold send it back). Each is tested once.
    between = {
        wall.id
        for wall in barriers
        for here in places.values()
        if plane.crossing(centre, here, _xy(wall.start), _xy(wall.end)) is not None
    }
    results: list[SR4BarrierResult] = []
    walls: list[_Barrier] = []
    for wall in barriers:
        start, end = _xy(wall.start), _xy(wall.end)
        reached = dv_at(numbers, extra_dv, plane.segment_distance(centre, start, end))
        if reached <= 0 or not (confined or wall.id in between):
            continue
        result, holds = _barrier_test(wall, reached, confined, dice)
        results.append(result)
        walls.append(_Barrier(wall, start, end, holds, result.reflects))
    hits: list[SR4BlastHit] = []
    for actor in actors:
        here = places[actor.id]
        metres = plane.distance(centre, here)
        direct = dv_at(numbers, extra_dv, metres)
        crossed = _crossed(centre, here, walls)
        shield = next((wall for _, wall in crossed if wall.holds), None)
        fallen = [wall for _, wall in crossed if not wall.holds]
        armor_modifiers = [Modifier("impact armor", actor.impact_armor or 0)] + [
            Modifier(f"barrier {wall.wall.id} (fell)", wall.wall.armor) for wall in fallen
        ]
        rebounds = _rebound(numbers, extra_dv, centre, here, walls) if confined else []
        dv_direct = 0 if shield is not None else direct
        dv_rebound = sum(dv for _, dv in rebounds)
        dv = dv_direct + dv_rebound
        if dv <= 0 and (shield is None or direct <= 0):
            continue
        armor, track, soak, soak_hits = _soak(actor, numbers, dv, armor_modifiers, dice)
        hits.append(
            SR4BlastHit(
                actor=actor.id,
                distance_m=round(metres, 2),
                dv_direct=dv_direct,
                dv_rebound=dv_rebound,
                dv=dv,
                shielded_by=shield.wall.id if shield is not None else None,
                armor=armor,
                armor_modifiers=armor_modifiers,
                ap=numbers.ap,
                track=track,
                soak=soak,
                soak_hits=soak_hits,
                boxes=max(0, dv - soak_hits),
            )
        )
    rolled: list[DiceRoll] = dice.rolls[rolled_before:]
    return SR4BlastResult(
        grenade=grenade_id,
        thrower=thrower,
        point=point,
        type=numbers.type,
        dv=numbers.dv + extra_dv,
        damage_type=numbers.damage_type,
        ap=numbers.ap,
        falloff_per_m=numbers.falloff_per_m,
        radius_m=numbers.radius_m,
        confined=confined,
        barriers=results,
        hits=hits,
        dice=rolled,
        seed=seed,
    )


def blast_steps(barriers: Sequence[SR4Barrier], actor_ids: Sequence[str]) -> dict[str, int]:
    """The steps a blast may roll: each barrier's test and each actor's soak, all d6."""
    steps = {f"barrier:{wall.id}": 6 for wall in barriers}
    steps.update({f"soak:{actor_id}": 6 for actor_id in actor_ids})
    return steps


def scatter_steps() -> dict[str, int]:
    return {tables.SCATTER_DIRECTION_STEP: 6, tables.SCATTER_STEP: 6}


# --- the grenade held until it goes off --------------------------------------------------------


def detonation_seed(seed: int) -> int:
    """The seed of a thrown grenade's blast, from the throw's: the same throw always goes off
    the same way (BLAKE2b of the seed's digits, 63 bits)."""
    digest = hashlib.blake2b(f"sr4-grenade:{seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def thrower_score(turn: TurnState, thrower: str) -> int | None:
    """The thrower's initiative score now, when the service runs the initiative and it is in it."""
    initiative = turn.initiative
    if initiative is None:
        return None
    return next((e.score for e in initiative.entries if e.actor == thrower), None)


def pending_grenade(
    grenades_thrown: int,
    pending: Sequence[SR4PendingGrenade],
    thrower: str,
    point: Point,
    numbers: SR4GrenadeNumbers,
    turn: TurnState,
    barriers: Sequence[SR4Barrier],
    confined: bool,
    seed: int,
    path: str,
) -> SR4PendingGrenade:
    """A thrown grenade as the state holds it until it goes off (001, "Timing Grenades"): id
    "g<n>", the turn and pass it was thrown in, the thrower's score then."""
    if len(pending) >= MAX_PENDING_GRENADES:
        raise RuleViolation(
            f"{len(pending)} grenades are waiting to go off already, the most an encounter "
            "holds: advance the turn first",
            path=path,
            kind="too-many-grenades",
            status=409,
        )
    return SR4PendingGrenade(
        id=f"g{grenades_thrown + 1}",
        thrower=thrower,
        point=point,
        numbers=numbers,
        combat_turn=turn.combat_turn,
        initiative_pass=turn.initiative_pass,
        score=thrower_score(turn, thrower),
        barriers=list(barriers),
        confined=confined,
        seed=detonation_seed(seed),
    )


def _goes_off_now(crossing: AdvanceRequest, grenade: SR4PendingGrenade, turn: TurnState) -> bool:
    """At this action phase of a pass after the throw's: the thrower's own phase, or (with the
    service's initiative) the first phase whose actor's score is below the thrower's."""
    if crossing.to != "action_phase" or grenade.passes_ended < 1 or crossing.actor is None:
        return False
    if crossing.actor == grenade.thrower:
        return True
    initiative = turn.initiative
    if initiative is None:
        return False
    scores = {e.actor: e.score for e in initiative.entries}
    # The thrower's score in this pass (the pass cost came off everyone's alike); the score it
    # threw at once it has left the order.
    at = scores.get(grenade.thrower, grenade.score)
    acting = scores.get(crossing.actor)
    return at is not None and acting is not None and acting < at


def due(
    crossing: AdvanceRequest, pending: Sequence[SR4PendingGrenade], turn: TurnState
) -> tuple[list[SR4PendingGrenade], list[SR4PendingGrenade]]:
    """The grenades still waiting after `crossing`, and those that go off at it, in the order
    they were thrown.

    A grenade goes off in the first initiative pass after the one it was thrown in, at the
    thrower's score (001, "Timing Grenades"): the first phase of that pass whose actor's score
    is below the thrower's, or the thrower's own phase, or the end of that pass, whichever comes
    first. While the VTT runs the initiative (no scores): the thrower's next phase in a later
    pass, or the end of that next pass. `turn` is the turn after the whole move (the engine's
    crossings all see it); `passes_ended` counts the pass boundaries on the grenade itself, as
    a new combat turn leaves no trace of the pass that ended."""
    waiting: list[SR4PendingGrenade] = []
    going: list[SR4PendingGrenade] = []
    boundary = crossing.to in ("initiative_pass", "combat_turn")
    for grenade in pending:
        if boundary:
            grenade = msgspec.structs.replace(grenade, passes_ended=grenade.passes_ended + 1)
            (going if grenade.passes_ended >= 2 else waiting).append(grenade)
        elif _goes_off_now(crossing, grenade, turn):
            going.append(grenade)
        else:
            waiting.append(grenade)
    return waiting, going


def blast_actor(actor_id: str, actor: SceneActor) -> SR4BlastActor | None:
    """An actor of the scene where a blast may reach it (None without a position): its Body and
    impact armor from its sheet, when the sheet has them."""
    if actor.position is None:
        return None
    return SR4BlastActor(
        id=actor_id,
        position=actor.position,
        body=getattr(actor.sheet, "body", None),
        impact_armor=getattr(actor.sheet, "impact_armor", None),
    )


def scene_actors(scene: Mapping[str, SceneActor]) -> list[SR4BlastActor]:
    """Everyone on the scene with a position, where they stand now, in id order."""
    found = (blast_actor(actor_id, actor) for actor_id, actor in sorted(scene.items()))
    return [actor for actor in found if actor is not None]


def go_off(grenade: SR4PendingGrenade, scene: Mapping[str, SceneActor]) -> SR4BlastResult:
    """A held grenade's blast, on the scene as it is now, with its own seed's dice."""
    return blast(
        grenade.id,
        grenade.thrower,
        grenade.point,
        grenade.numbers,
        scene_actors(scene),
        grenade.barriers,
        grenade.confined,
        Dice(grenade.seed),
        seed=grenade.seed,
    )


def went_off_blasts(
    crossing: AdvanceRequest,
    pending: Sequence[SR4PendingGrenade],
    turn: TurnState,
    scene: Mapping[str, SceneActor],
) -> tuple[list[SR4PendingGrenade], list[SR4BlastResult], list[str]]:
    """The grenades still waiting, the blasts of those that went off at `crossing`, and what
    happened in words."""
    waiting, going = due(crossing, pending, turn)
    blasts = [go_off(grenade, scene) for grenade in going]
    return waiting, blasts, [described(result) for result in blasts]


def described(result: SR4BlastResult) -> str:
    """A blast in one line a player reads."""
    where = f"({result.point.x:g}, {result.point.y:g})"
    if not result.hits:
        return f"{result.thrower}'s grenade {result.grenade} goes off at {where}: nobody is hit"
    hit = ", ".join(
        f"{h.actor} {h.boxes}{'P' if h.track == 'physical' else 'S'}" for h in result.hits
    )
    return f"{result.thrower}'s grenade {result.grenade} goes off at {where}: {hit}"


def pending_zone(grenade: SR4PendingGrenade) -> Zone:
    """A grenade waiting to go off, as the map draws it: a circle as far as its blast hurts."""
    reach = reach_m(grenade.numbers)
    return Zone(
        id=grenade.id,
        shooter=grenade.thrower,
        shape="circle",
        hits=0,
        penalty=0,
        kind=f"grenade ({grenade.numbers.type})",
        lasts="until it goes off: the next initiative pass, at the thrower's score",
        center=grenade.point,
        radius_m=reach if reach is not None else 0.0,
    )
