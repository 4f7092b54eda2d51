"""SR4 grenades (001_2cfc288dfef1df08.txt, "GRENADES"): where one lands (scatter), and the blast
with what barriers do to it (shield, fall, or in a confined space send it back).

Pure functions. The attack calls them through grenade_attack.py; when a thrown grenade goes off
is grenade_timing.py's. Numbers and their sources: grenade_tables.py."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.common import DiceRoll, Modifier, Point, on_plane
from schemas.sr4 import (
    SR4Barrier,
    SR4BarrierResult,
    SR4BlastActor,
    SR4BlastHit,
    SR4BlastResult,
    SR4Grenade,
    SR4GrenadeNumbers,
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
    return on_plane(round(xy[0], 3) + 0.0, round(xy[1], 3) + 0.0)


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
            kind="below-minimum-range",
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
    dice for the distance (step "scatter"); `landing` says where that puts it."""
    direction = dice.roll(tables.SCATTER_DIRECTION_STEP, 1)[0]
    rolled = sum(dice.roll(tables.SCATTER_STEP, scatter_dice(grenade)))
    return landing(aimed_at, origin, grenade, net_hits, direction, rolled)


def landing(
    aimed_at: Point,
    origin: Point | None,
    grenade: SR4Grenade,
    net_hits: int,
    direction: int,
    rolled: int,
) -> SR4Scatter:
    """Where a grenade lands for a direction and a scatter distance rolled: less 2 m
    (standard) or 4 m (aerodynamic, launcher) per net hit. At 0 or less it lands on the aimed
    point, and the hits the distance did not need add to the DV. A launcher grenade that lands
    within its arming range of the launcher is a dud."""
    net_hits = max(0, net_hits)
    count = scatter_dice(grenade)
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


@dataclass(frozen=True, slots=True)
class WallTest:
    """A barrier the blast meets, before its test: the DV against it (doubled), and its
    Structure + Armor pool (None: it is decided without a test, `holds` says how)."""

    wall: SR4Barrier
    dv: int
    pool: int | None
    holds: bool

    def holds_after(self, hits: int) -> tuple[int, bool]:
        """The damage the wall takes with `hits` on its test, and whether it holds."""
        damage = max(0, self.dv - hits)
        return damage, damage < self.wall.structure


def wall_test(wall: SR4Barrier, dv: int) -> WallTest:
    """SR4 "Barriers" (grenade_tables.BLAST_DV_AGAINST_BARRIERS): the blast's DV at the wall,
    doubled, must exceed its Armor to damage it; it resists with Structure + Armor (step
    "barrier:<id>"); damage that reaches its Structure breaks it. The GM's `holds` wins."""
    doubled = dv * tables.BLAST_DV_AGAINST_BARRIERS
    if wall.holds is not None:
        return WallTest(wall, doubled, None, wall.holds)
    if doubled <= wall.armor:
        return WallTest(wall, doubled, None, True)
    return WallTest(wall, doubled, wall.structure + wall.armor, False)


def _barrier_test(
    wall: SR4Barrier, dv: int, confined: bool, dice: Dice
) -> tuple[SR4BarrierResult, bool]:
    built = wall_test(wall, dv)
    test: SR4Test | None = None
    damage = 0
    holds = built.holds
    if built.pool is not None:
        test = test_of(dice.pool(f"barrier:{wall.id}", built.pool, EDITION))
        damage, holds = built.holds_after(test.hits)
    result = SR4BarrierResult(
        barrier=wall.id,
        dv=built.dv,
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


def soaking(
    actor: SR4BlastActor, numbers: SR4GrenadeNumbers, dv: int, armor_modifiers: list[Modifier]
) -> tuple[int, tables.Track, int | None]:
    """001, "Blast Effects" and "Compare Armor": Body + impact armor, the grenade's AP applied
    to the armor (never below 0); Physical damage is Stun when the DV does not exceed that
    armor. The pool is None without a Body on the sheet (no test, the DV as it reached)."""
    armor = max(0, sum(m.value for m in armor_modifiers) + numbers.ap)
    physical = numbers.damage_type == "P" and dv > armor
    track: tables.Track = "physical" if physical else "stun"
    if actor.body is None or dv <= 0:
        return armor, track, None
    return armor, track, actor.body + armor


def tested_walls(
    centre: XY,
    numbers: SR4GrenadeNumbers,
    extra_dv: int,
    places: Sequence[XY],
    barriers: Sequence[SR4Barrier],
    confined: bool,
) -> list[tuple[SR4Barrier, int]]:
    """The barriers that matter, with the DV reaching each: those between the point and
    someone, and in a confined space every wall the wave reaches (the walls that hold send it
    back). Each is tested once."""
    between = {
        wall.id
        for wall in barriers
        for here in places
        if plane.crossing(centre, here, _xy(wall.start), _xy(wall.end)) is not None
    }
    found = []
    for wall in barriers:
        start, end = _xy(wall.start), _xy(wall.end)
        reached = dv_at(numbers, extra_dv, plane.segment_distance(centre, start, end))
        if reached <= 0 or not (confined or wall.id in between):
            continue
        found.append((wall, reached))
    return found


def standing(wall: SR4Barrier, holds: bool, confined: bool) -> _Barrier:
    return _Barrier(wall, _xy(wall.start), _xy(wall.end), holds, holds and confined)


@dataclass(frozen=True, slots=True)
class Exposure:
    """What the blast does to one actor once the barriers are settled, before its soak."""

    metres: float
    dv_direct: int
    dv_rebound: int
    dv: int
    shield: _Barrier | None
    armor_modifiers: list[Modifier]
    armor: int
    track: tables.Track
    soak_pool: int | None


def exposure(
    actor: SR4BlastActor,
    here: XY,
    numbers: SR4GrenadeNumbers,
    extra_dv: int,
    centre: XY,
    walls: Sequence[_Barrier],
    confined: bool,
) -> Exposure | None:
    """The DV reaching `actor` straight and back off walls that held, the walls that shield it
    or add their armor, and its soak's pool; None when the blast does not reach it."""
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
        return None
    armor, track, pool = soaking(actor, numbers, dv, armor_modifiers)
    return Exposure(metres, dv_direct, dv_rebound, dv, shield, armor_modifiers, armor, track, pool)


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
    # By id, as the blast always counted them (a repeated id stands at its last position).
    places = {actor.id: _xy(actor.position) for actor in actors}
    results: list[SR4BarrierResult] = []
    walls: list[_Barrier] = []
    for wall, reached in tested_walls(
        centre, numbers, extra_dv, list(places.values()), barriers, confined
    ):
        result, holds = _barrier_test(wall, reached, confined, dice)
        results.append(result)
        walls.append(standing(wall, holds, confined))
    hits: list[SR4BlastHit] = []
    for actor in actors:
        found = exposure(actor, places[actor.id], numbers, extra_dv, centre, walls, confined)
        if found is None:
            continue
        soak = None
        if found.soak_pool is not None:
            soak = test_of(dice.pool(f"soak:{actor.id}", found.soak_pool, EDITION))
        soak_hits = soak.hits if soak is not None else 0
        hits.append(
            SR4BlastHit(
                actor=actor.id,
                distance_m=round(found.metres, 2),
                dv_direct=found.dv_direct,
                dv_rebound=found.dv_rebound,
                dv=found.dv,
                shielded_by=found.shield.wall.id if found.shield is not None else None,
                armor=found.armor,
                armor_modifiers=found.armor_modifiers,
                ap=numbers.ap,
                track=found.track,
                soak=soak,
                soak_hits=soak_hits,
                boxes=max(0, found.dv - soak_hits),
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


def described(result: SR4BlastResult) -> str:
    """A blast in one line a player reads."""
    where = f"({result.point.x:g}, {result.point.y:g})"
    if not result.hits:
        return f"{result.thrower}'s grenade {result.grenade} goes off at {where}: nobody is hit"
    hit = ", ".join(
        f"{h.actor} {h.boxes}{'P' if h.track == 'physical' else 'S'}" for h in result.hits
    )
    return f"{result.thrower}'s grenade {result.grenade} goes off at {where}: {hit}"
