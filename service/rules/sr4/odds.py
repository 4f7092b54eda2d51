"""The odds of sr4's attacks and zone tests (service/rules/odds.py, docs/odds.md#sr4).

Every test is built by the same functions `resolve_attack` and `resolve_zone_test` roll
(attack.plan_attack / plan_target / plan_throw, grenades.landing / tested_walls / exposure,
suppression.plan_zone_test), then counted exactly: d6 pools with SR4's glitch (half or more
ones), Edge's exploding sixes, the opposed test (ties to the defender, a graze on the GM's
rule), damage against armour, the soak. A grenade's scatter (1D6 direction, the scatter dice)
is enumerated landing by landing, and so is each barrier's test; a blast too large for that is
sampled with the ruleset's own resolve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.common import Point
from schemas.encounter import TurnState
from schemas.odds import AttackOdds, Sampling, TargetOdds, ZoneTestOdds
from schemas.sr4 import (
    MAX_PENDING_GRENADES,
    SR4AttackRequest,
    SR4AttackResult,
    SR4BlastActor,
    SR4Scatter,
    SR4State,
    SR4ZoneTestRequest,
)
from service.rules import odds
from service.rules.dice import Dice
from service.rules.odds import NO_DAMAGE, Dist, PoolOdds, Tally
from service.rules.sr4 import (
    attack,
    grenade_attack,
    grenade_timing,
    grenades,
    modifiers,
    opposed,
    suppression,
)
from service.rules.sr4.grenade_tables import SCATTER_DIRECTIONS

RULESET = "sr4"
EDITION = opposed.EDITION
TOUCHED = frozenset({"hit"})
GRAZED = frozenset({"graze"})
DamageKey = tuple[int, str | None, str | None, str | None]
# A blast is enumerated landing by landing, barrier outcome by barrier outcome, actor by actor;
# past this many exposures (about a second of geometry), or more barriers left to chance, it is
# sampled instead (docs/odds.md).
MAX_EXPOSURES = 40_000
MAX_UNCERTAIN_WALLS = 8

EDGE_REROLL_NOTE = (
    "Edge's re-roll of the misses (action edge_reroll) comes after the attack and is an "
    "action, not an attack: it has no odds of its own"
)
EXPLODE_NOTE = (
    "Edge adds the attacker's Edge in dice and its sixes explode (Rule of Six); the extra hits "
    f"of exploding sixes are counted to {odds.MAX_EXTRA_HITS} a die, the rest is below 1e-15"
)


# --- pieces ------------------------------------------------------------------------------------


def _pool(dice: int, explode: bool = False) -> PoolOdds:
    return odds.pool(dice, EDITION, explode)


def _damage_key(boxes: int, track: str) -> DamageKey:
    """A result's damage as the odds count it: boxes and track, none when no box is left."""
    return (boxes, track, None, None) if boxes > 0 else NO_DAMAGE


def _soaked(dv: int, track: str, soak_pool: int | None) -> list[tuple[DamageKey, float]]:
    """The boxes of `dv` resisted by a soak pool (none without a soak: the DV as it reached)."""
    if soak_pool is None:
        return [(_damage_key(dv, track), 1.0)]
    return [
        (_damage_key(max(0, dv - hits), track), p)
        for hits, p in enumerate(_pool(soak_pool).hits)
        if p > 0.0
    ]


def _add(tally: Tally, key: DamageKey, p: float) -> None:
    tally.damage[key] = tally.damage.get(key, 0.0) + p


def _opposed(
    request: SR4AttackRequest, built: attack.TargetPlan, test: PoolOdds
) -> tuple[TargetOdds, list[float]]:
    """One target of an opposed test (001, "Opposed Combat Test"): its odds, and its chance of
    a hit for each number of attack hits (the attack test of a spread is shared)."""
    defense = _pool(built.defense_pool, built.defense_explodes).hits
    net: dict[int, float] = {}
    hit_given: list[float] = []
    p_hit = p_graze = 0.0
    for hits, p_attack in enumerate(test.hits):
        if hits == 0:
            hit_given.append(0.0)  # no hits: no defense is rolled, a miss
            continue
        beaten = 0.0
        for defense_hits in range(min(hits, len(defense))):
            p = p_attack * defense[defense_hits]
            net[hits - defense_hits] = net.get(hits - defense_hits, 0.0) + p
            beaten += defense[defense_hits]
        hit_given.append(beaten)
        p_hit += p_attack * beaten
        if request.grazing and hits < len(defense):
            p_graze += p_attack * defense[hits]
    tally = Tally(built.target.id, TOUCHED, GRAZED)
    tally.outcomes = {"hit": p_hit, "graze": p_graze, "miss": max(0.0, 1.0 - p_hit - p_graze)}
    tally.net = {0: max(0.0, 1.0 - p_hit), **net}
    tally.damage = {NO_DAMAGE: max(0.0, 1.0 - p_hit)}
    for net_hits, p in net.items():
        # 001 steps 4-6, as resolve's `resist`: the modified DV against the modified armour.
        resisting = built.harm.resisting(net_hits)
        track = "physical" if resisting.physical else "stun"
        for key, q in _soaked(resisting.dv, track, resisting.soak_pool):
            _add(tally, key, p * q)
    tally.glitch, tally.critical_glitch = test.glitch, test.critical_glitch
    if built.pool <= 0:
        tally.notes.append(f"a pool of {built.pool}: the attack fails outright (001)")
    if request.grazing and p_graze > 0:
        effect = modifiers.gun_of(request, built.target).contact_effect
        tally.notes.append(
            "a tie grazes: contact without damage" + (f" ({effect})" if effect else "")
        )
    return tally.odds(), hit_given


def _answer(
    request: SR4AttackRequest,
    targets: list[TargetOdds],
    any_hit: float,
    notes: list[str],
    sampling: Sampling | None = None,
) -> AttackOdds:
    if request.edge == "extra_dice":
        notes = [*notes, EXPLODE_NOTE]
    return odds.attack_answer(
        RULESET, request.attacker.id, targets, [*notes, EDGE_REROLL_NOTE], any_hit, sampling
    )


# --- the attack -------------------------------------------------------------------------------


def attack_odds(
    request: SR4AttackRequest, state: SR4State, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    """The attack's odds on this state: built (and refused) as `resolve_attack` builds it."""
    plan = attack.plan_attack(request, state, turn)
    if request.mode == "suppressive":
        return _suppressive(request, state, plan)
    if request.grenade is not None:
        return _grenade(request, state, turn, plan, seed, samples)
    built = list(_targets(plan))
    shared = _pool(built[0].pool, built[0].explode) if plan.spread else None
    answers = [_opposed(request, one, shared or _pool(one.pool, one.explode)) for one in built]
    targets = [odds_ for odds_, _ in answers]
    if shared is not None:
        # One test against all the spread's targets (001, "Shotguns"): their hits are not
        # independent; given the attack's hits, their defenses are.
        miss_all = 0.0
        for hits, p in enumerate(shared.hits):
            missed = p
            for _, hit_given in answers:
                missed *= 1.0 - hit_given[hits]
            miss_all += missed
        any_hit = 1.0 - miss_all
        notes = ["one attack test against every target of the spread (001)"]
    else:
        any_hit = odds.any_hit_of_independent(targets)
        notes = []
    return _answer(request, targets, any_hit, notes)


def _targets(plan: attack.AttackPlan) -> Iterable[attack.TargetPlan]:
    for index, target in enumerate(plan.request.targets):
        yield attack.plan_target(plan, index, target)


def _suppressive(request: SR4AttackRequest, state: SR4State, plan: attack.AttackPlan) -> AttackOdds:
    """001, "Suppressive Fire": no target, a zone whose hits set the threshold of the tests of
    those in it."""
    suppression.check_suppressive(request, suppression.end_zones_of(state, request.attacker.id))
    pool = modifiers.total(attack.suppressive_modifiers(plan))
    test = _pool(pool, request.edge != "none")
    shown = ", ".join(f"{k}: {p:.1%}" for k, p in enumerate(test.hits) if p >= 0.005)
    notes = [
        "suppressive fire makes a zone, it targets no one: ask for a zone test's odds "
        "(POST .../zones/{zone}/tests/odds) once it stands",
        f"the suppression test ({max(0, pool)} dice): hits {shown}; mean "
        f"{odds.mean(test.hits):.2f}, glitch {test.glitch:.1%}",
    ]
    return _answer(request, [], 0.0, notes)


# --- grenades ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Landing:
    scatter: SR4Scatter
    p: float


def _uniform_sum(dice: int) -> Dist:
    total: Dist = (1.0,)
    for _ in range(dice):
        total = odds.convolve(total, (0.0, *([1 / 6] * 6)))
    return total


def _net_of_throw(throw: attack.Throw) -> tuple[PoolOdds, dict[int, float]]:
    """The throw's test and its net hits: against the target's defense (rolled only against
    hits), or the hits of a success test at a point."""
    test = _pool(throw.pool, throw.explode)
    if throw.target is None:
        return test, {k: p for k, p in enumerate(test.hits) if p > 0.0}
    defense = _pool(throw.defense_pool, throw.target.edge).hits
    net: dict[int, float] = {}
    for hits, p_attack in enumerate(test.hits):
        if hits == 0:
            net[0] = net.get(0, 0.0) + p_attack
            continue
        for defense_hits, p_defense in enumerate(defense):
            k = max(0, hits - defense_hits)
            net[k] = net.get(k, 0.0) + p_attack * p_defense
    return test, net


def _landings(request: SR4AttackRequest, aimed: Point, net: dict[int, float]) -> list[_Landing]:
    """001, "Determine Scatter": every place the grenade may come down, by grenades.landing,
    with its chance (1D6 direction, the scatter dice, the net hits)."""
    grenade = request.grenade
    assert grenade is not None
    origin = grenade_attack.origin_of(request)
    rolled = _uniform_sum(grenades.scatter_dice(grenade))
    found: dict[tuple[float, float, int, bool, bool], _Landing] = {}
    by_remaining: dict[tuple[float, int], SR4Scatter] = {}

    def add(scatter: SR4Scatter, p: float) -> None:
        key = (scatter.landed.x, scatter.landed.y, scatter.extra_dv, scatter.dud, scatter.on_target)
        was = found.get(key)
        found[key] = _Landing(scatter, p + (was.p if was is not None else 0.0))

    for net_hits, p_net in net.items():
        for metres, p_rolled in enumerate(rolled):
            p = p_net * p_rolled
            if p <= 0.0:
                continue
            straight = grenades.landing(aimed, origin, grenade, net_hits, 1, metres)
            if straight.on_target:
                add(straight, p)
                continue
            for direction in range(1, SCATTER_DIRECTIONS + 1):
                key = (straight.distance_m, direction)
                scatter = by_remaining.get(key)
                if scatter is None:
                    scatter = grenades.landing(aimed, origin, grenade, net_hits, direction, metres)
                    by_remaining[key] = scatter
                add(scatter, p / SCATTER_DIRECTIONS)
    return list(found.values())


def _grenade(
    request: SR4AttackRequest,
    state: SR4State,
    turn: TurnState,
    plan: attack.AttackPlan,
    seed: int,
    samples: int,
) -> AttackOdds:
    throw = attack.plan_throw(
        request, plan.whole, dict(state.actors), plan.locked_on, plan.engaged, plan.phase.shot
    )
    grenade, numbers, aimed = grenade_attack.check_grenade(request)
    test, net = _net_of_throw(throw)
    landings = _landings(request, aimed, net)
    p_dud = sum(one.p for one in landings if one.scatter.dud)
    p_on = sum(one.p for one in landings if one.scatter.on_target and not one.scatter.dud)
    mean_m = sum(one.p * one.scatter.distance_m for one in landings)
    notes = [
        f"the grenade lands on the aimed point {p_on:.1%} of the time; it scatters "
        f"{mean_m:.1f} m on average"
    ]
    if p_dud > 0:
        notes.append(f"{p_dud:.1%}: it lands within its arming range and does not go off")
    aimed_id = request.targets[0].id if request.targets else None
    if not grenade.airburst:
        if len(state.pending) >= MAX_PENDING_GRENADES and p_dud < 1.0:
            # resolve's refusal when the grenade is held (a dud is not).
            grenade_timing.pending_grenade(
                state.grenades_thrown,
                state.pending,
                request.attacker.id,
                aimed,
                numbers,
                turn,
                request.barriers,
                request.confined,
                0,
                "$.grenade",
            )
        return _held(request, test, net, landings, aimed_id, notes)
    return _airburst(request, state, turn, test, net, landings, aimed, seed, samples, notes)


def _held(
    request: SR4AttackRequest,
    test: PoolOdds,
    net: dict[int, float],
    landings: Sequence[_Landing],
    aimed_id: str | None,
    notes: list[str],
) -> AttackOdds:
    """A grenade without an airburst link goes off in the next initiative pass, on whoever
    stands there then: the preview is its landing; the target's `hit` is its result's (the
    grenade came down on it exactly)."""
    notes = [
        *notes,
        "it goes off in the next initiative pass at the thrower's score, on whoever stands "
        "within reach then: its blast has no odds now (ask for the odds of an airburst "
        "grenade to see a blast where everyone stands now)",
    ]
    if aimed_id is None:
        return _answer(request, [], 0.0, notes)
    tally = Tally(aimed_id, TOUCHED, GRAZED)
    p_on = sum(one.p for one in landings if one.scatter.on_target)
    tally.outcomes = {"hit": p_on, "miss": max(0.0, 1.0 - p_on)}
    tally.net = dict(net)
    tally.damage = {NO_DAMAGE: 1.0}
    tally.glitch, tally.critical_glitch = test.glitch, test.critical_glitch
    tally.notes.append("hit: the grenade lands on it exactly; its blast comes when it goes off")
    target = tally.odds()
    return _answer(request, [target], target.hit, notes)


def _airburst(
    request: SR4AttackRequest,
    state: SR4State,
    turn: TurnState,
    test: PoolOdds,
    net: dict[int, float],
    landings: Sequence[_Landing],
    aimed: Point,
    seed: int,
    samples: int,
    notes: list[str],
) -> AttackOdds:
    """001, "Blast Effects": an airburst grenade goes off where it lands, on everyone it may
    reach; each actor's `hit` is the blast reaching it with a DV."""
    grenade = request.grenade
    assert grenade is not None
    numbers = grenades.numbers(grenade, "$.grenade")
    actors = _unique(grenade_attack.blast_actors(request, aimed))
    aimed_id = request.targets[0].id if request.targets else None
    tallies = {actor.id: Tally(actor.id, TOUCHED, GRAZED) for actor in actors}
    places = {actor.id: (actor.position.x, actor.position.y) for actor in actors}
    # First every landing's barrier outcomes (cheap), to know what enumerating costs.
    cases: list[tuple[_Landing, list[tuple[list[Any], float]]]] = []
    for one in landings:
        if one.scatter.dud:
            cases.append((one, []))
            continue
        centre = (one.scatter.landed.x, one.scatter.landed.y)
        walls = grenades.tested_walls(
            centre,
            numbers,
            one.scatter.extra_dv,
            list(places.values()),
            request.barriers,
            request.confined,
        )
        settled = _wall_outcomes(walls, request.confined)
        if settled is None:
            return _sampled(
                request, state, turn, (seed, samples), (test, net, aimed), notes, "barriers"
            )
        cases.append((one, settled))
    exposures = sum(len(settled) for _, settled in cases) * len(actors)
    if exposures > MAX_EXPOSURES:
        return _sampled(
            request, state, turn, (seed, samples), (test, net, aimed), notes, "landings"
        )
    # Per actor: the chance of each (DV, track, soak pool) it may take, soaked at the end.
    taken: dict[str, dict[tuple[int, str, int | None], float]] = {a.id: {} for a in actors}
    any_hit = 0.0
    for one, settled in cases:
        if one.scatter.dud:
            for tally in tallies.values():
                tally.outcomes["miss"] = tally.outcomes.get("miss", 0.0) + one.p
                _add(tally, NO_DAMAGE, one.p)
            continue
        centre = (one.scatter.landed.x, one.scatter.landed.y)
        extra = one.scatter.extra_dv
        for standing, p_walls in settled:
            p = one.p * p_walls
            reached = False
            for actor in actors:
                tally = tallies[actor.id]
                found = grenades.exposure(
                    actor, places[actor.id], numbers, extra, centre, standing, request.confined
                )
                if found is None or found.dv <= 0:
                    tally.outcomes["miss"] = tally.outcomes.get("miss", 0.0) + p
                    _add(tally, NO_DAMAGE, p)
                    continue
                reached = True
                tally.outcomes["hit"] = tally.outcomes.get("hit", 0.0) + p
                dose = (found.dv, found.track, found.soak_pool)
                taken[actor.id][dose] = taken[actor.id].get(dose, 0.0) + p
            if reached:
                any_hit += p
    for actor_id, doses in taken.items():
        for (dv, track, pool), p in doses.items():
            for key, q in _soaked(dv, track, pool):
                _add(tallies[actor_id], key, p * q)
    targets = []
    for actor in actors:
        tally = tallies[actor.id]
        if actor.id != aimed_id and tally.outcomes.get("hit", 0.0) <= odds.NEGLIGIBLE:
            continue  # out of the blast's reach wherever it lands
        tally.net = dict(net) if actor.id == aimed_id else {0: 1.0}
        tally.glitch, tally.critical_glitch = test.glitch, test.critical_glitch
        targets.append(tally.odds())
    notes = [
        *notes,
        "an airburst grenade goes off where it lands: each actor's hit is the blast reaching "
        "it with a DV, its damage after its Body + impact armor soak",
    ]
    return _answer(request, targets, any_hit, notes)


def _unique(actors: Sequence[SR4BlastActor]) -> list[SR4BlastActor]:
    seen: set[str] = set()
    kept = []
    for actor in actors:
        if actor.id not in seen:
            seen.add(actor.id)
            kept.append(actor)
    return kept


def _wall_outcomes(
    walls: Sequence[tuple[Any, int]], confined: bool
) -> list[tuple[list[Any], float]] | None:
    """Every way the barriers the blast meets may stand (SR4 "Barriers"), with its chance: the
    ones decided without a test stand as decided, each other holds or falls on its Structure +
    Armor test. None when too many are left to chance to enumerate."""
    tests = [grenades.wall_test(wall, dv) for wall, dv in walls]
    uncertain = [t for t in tests if t.pool is not None]
    if len(uncertain) > MAX_UNCERTAIN_WALLS:
        return None
    holds_p: dict[str, float] = {}
    for wall_test in uncertain:
        assert wall_test.pool is not None
        holds_p[wall_test.wall.id] = sum(
            p for hits, p in enumerate(_pool(wall_test.pool).hits) if wall_test.holds_after(hits)[1]
        )
    ways: list[tuple[list[Any], float]] = [([], 1.0)]
    for wall_test in tests:
        if wall_test.pool is None:
            ways = [
                ([*w, grenades.standing(wall_test.wall, wall_test.holds, confined)], p)
                for w, p in ways
            ]
            continue
        q = holds_p[wall_test.wall.id]
        ways = [
            ([*w, grenades.standing(wall_test.wall, holds, confined)], p * (q if holds else 1 - q))
            for w, p in ways
            for holds in (True, False)
            if (q if holds else 1 - q) > odds.NEGLIGIBLE
        ]
    return ways


# --- sampled: the ruleset's own resolve, many seeds -------------------------------------------


def observed(result: SR4AttackResult) -> list[tuple[str, str, int, DamageKey]]:
    """What the odds count of one resolved attack, per actor: its outcome, net hits and damage
    (a grenade: the blast's, each actor it reached with a DV a hit)."""
    if result.scatter is None:
        return [
            (
                t.target,
                t.outcome,
                t.net_hits,
                _damage_key(t.damage.boxes, t.damage.track) if t.damage else NO_DAMAGE,
            )
            for t in result.targets
        ]
    aimed = {t.target: t.net_hits for t in result.targets}
    seen = []
    if result.blast is not None:
        for hit in result.blast.hits:
            if hit.dv > 0:
                key = _damage_key(hit.boxes, hit.track)
                seen.append((hit.actor, "hit", aimed.get(hit.actor, 0), key))
    return seen


def _sampled(
    request: SR4AttackRequest,
    state: SR4State,
    turn: TurnState,
    sample: tuple[int, int],
    throw: tuple[PoolOdds, dict[int, float], Point],
    notes: list[str],
    why: str,
) -> AttackOdds:
    """A blast with too many landings x barrier outcomes x actors to enumerate fast: the
    ruleset's own resolve_attack, `samples` times from seeds drawn from `seed`. The throw's
    glitch and net hits stay exact."""
    seed, samples = sample
    test, net, aimed = throw
    aimed_id = request.targets[0].id if request.targets else None
    ids = [a.id for a in _unique(grenade_attack.blast_actors(request, aimed))]
    tallies = {i: Tally(i, TOUCHED, GRAZED) for i in ids}
    counts: dict[str, Counter[tuple[str, DamageKey]]] = {i: Counter() for i in ids}
    hit_any = 0
    for drawn in odds.sampled(seed, samples):
        result = attack.resolve_attack(request, state, turn, Dice(drawn)).result
        seen = {actor: (outcome, key) for actor, outcome, _, key in observed(result)}
        hit_any += bool(seen)
        for actor_id, counted in counts.items():
            counted[seen.get(actor_id, ("miss", NO_DAMAGE))] += 1
    # Whole counts over the sample size: each distribution adds up to 1 but for one rounding.
    for actor_id, counted in counts.items():
        tally = tallies[actor_id]
        for (outcome, key), n in counted.items():
            tally.outcomes[outcome] = tally.outcomes.get(outcome, 0) + n
            tally.damage[key] = tally.damage.get(key, 0) + n
        tally.outcomes = {k: n / samples for k, n in tally.outcomes.items()}
        tally.damage = {k: n / samples for k, n in tally.damage.items()}
    any_hit = hit_any / samples
    targets = []
    for actor_id, tally in tallies.items():
        if actor_id != aimed_id and tally.outcomes.get("hit", 0.0) <= 0.0:
            continue
        tally.net = dict(net) if actor_id == aimed_id else {0: 1.0}
        tally.glitch, tally.critical_glitch = test.glitch, test.critical_glitch
        targets.append(tally.odds())
    what = (
        "the blast: too many landings x barrier outcomes x actors to enumerate fast"
        if why == "landings"
        else f"the blast: more than {MAX_UNCERTAIN_WALLS} barriers left to their tests"
    )
    sampling = odds.sampling(what, samples, seed, targets)
    notes = [*notes, f"sampled: {what}; {samples} resolutions of the attack itself"]
    return _answer(request, targets, any_hit, notes, sampling)


# --- the zone test -----------------------------------------------------------------------------


def zone_test_odds(
    zone_id: str,
    request: SR4ZoneTestRequest,
    state: SR4State,
    turn: TurnState,
    seed: int,
    samples: int,
) -> ZoneTestOdds:
    """001, "Suppressive Fire": Reaction + Edge (+ Dodge on full defense) against the zone's
    hits; fewer hits: the weapon's base DV, resisted as any damage."""
    del seed, samples
    built = suppression.plan_zone_test(zone_id, request, state, turn)
    threshold = built.live.zone.hits
    tally = Tally(request.actor, TOUCHED, GRAZED)
    notes = [f"the zone's threshold: {threshold} hits"]
    if built.avoided is not None:
        tally.add(1.0, "avoided")
        notes.append(f"{built.avoided.replace('_', ' ')}: not at risk, no test (001)")
    else:
        test = _pool(built.pool)
        resisting = built.resisting(request.defender)
        track = "physical" if resisting.physical else "stun"
        damage = _soaked(resisting.dv, track, resisting.soak_pool)
        tally.glitch, tally.critical_glitch = test.glitch, test.critical_glitch
        for hits, p in enumerate(test.hits):
            if hits >= threshold:
                tally.outcomes["miss"] = tally.outcomes.get("miss", 0.0) + p
                tally.net[0] = tally.net.get(0, 0.0) + p
                _add(tally, NO_DAMAGE, p)
                continue
            tally.outcomes["hit"] = tally.outcomes.get("hit", 0.0) + p
            tally.net[threshold - hits] = tally.net.get(threshold - hits, 0.0) + p
            for key, q in damage:
                _add(tally, key, p * q)
        notes.append("net hits: the threshold less the test's hits, when the fire hits")
    return ZoneTestOdds(
        ruleset=RULESET,
        zone=zone_id,
        actor=request.actor,
        method="exact",
        target=tally.odds(),
        notes=notes,
    )
