"""The odds of d100's attacks and zone tests, exact (docs/odds.md, "d100").

Built by the very functions `resolve` rolls on (attack.build_attack, build_target,
build_suppression; suppression.build_zone_test), then counted instead of rolled: a d100 test's
hits over its 100 faces, bonus dice by convolution, and the rest (defense, Passive Defense, the
hit location, armour) as small sums over independent distributions. Nothing is sampled.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from schemas.d100 import D100AttackRequest, D100State, D100ZoneTestRequest, Location
from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from service.rules import odds
from service.rules.d100 import attack, core, suppression, tables

RULESET = "d100"
# dice.py's d100: a face of 1 to 100, each alike.
D100_FACES = range(1, 101)
HIT = "hit"
MISS = "miss"
DamageKey = tuple[int, str | None, str | None, str | None]


@lru_cache(maxsize=4096)
def test_hits(success_target: int) -> odds.Dist:
    """P(hits = h) of one d100 test at `success_target` (core.hits on each face); P(hits = 0)
    is the chance it fails."""
    counts: dict[int, int] = {}
    for roll in D100_FACES:
        got = core.hits(success_target, roll)
        counts[got] = counts.get(got, 0) + 1
    return tuple(counts.get(h, 0) / len(D100_FACES) for h in range(max(counts) + 1))


@lru_cache(maxsize=1024)
def bonus_hits(dice: int, die: int) -> odds.Dist:
    """P(bonus hits = b): the sum of `dice` dice of `die` sides."""
    face = (0.0, *([1.0 / die] * die))
    total: odds.Dist = (1.0,)
    for _ in range(dice):
        total = odds.convolve(total, face)
    return total


@lru_cache(maxsize=16)
def location_chances(given: Location | None) -> Mapping[Location, float]:
    """Where a hit lands: the request's location, else the d10 table (tables.HIT_LOCATIONS)."""
    if given is not None:
        return {given: 1.0}
    chances: dict[Location, float] = {}
    for location in tables.HIT_LOCATIONS.values():
        chances[location] = chances.get(location, 0.0) + 1.0 / tables.LOCATION_DIE
    return chances


def _add(table: dict[int, float], key: int, p: float) -> None:
    table[key] = table.get(key, 0.0) + p


def hit_damage(
    build: core.DamageBuild, net: Mapping[int, float]
) -> tuple[dict[DamageKey, float], dict[str, float]]:
    """The damage of a hit, as core.damage rolls it, for each net hits with the chance of a hit
    with them (`net` adds up to the chance of a hit): (damage points, None, the wound, the
    location) and the chance of landing at each location."""
    bonus = bonus_hits(build.bonus_dice, build.bonus_die)
    passive = test_hits(build.passive_defense) if build.passive_defense is not None else (1.0,)
    before_passive: dict[int, float] = {}
    for net_hits, p_net in net.items():
        for bonus_got, p_bonus in enumerate(bonus):
            if p_bonus:
                _add(before_passive, build.flat + bonus_got + net_hits, p_net * p_bonus)
    points: dict[int, float] = {}
    for before, p_before in before_passive.items():
        for passive_hits, p_passive in enumerate(passive):
            if p_passive:
                _add(points, core.damage_points(before, passive_hits), p_before * p_passive)
    locations = location_chances(build.location)
    damage: dict[DamageKey, float] = {}
    for dealt, p_dealt in points.items():
        for location, p_location in locations.items():
            wound = core.wound(dealt, build.effective_armor(location))
            key: DamageKey = (dealt, None, str(wound), location)
            damage[key] = damage.get(key, 0.0) + p_dealt * p_location
    hit = sum(net.values())
    landed: dict[str, float] = {location: hit * p for location, p in locations.items()}
    return damage, landed


def _tally(
    name: str,
    outcomes: Mapping[str, float],
    net: Mapping[int, float],
    damage: Mapping[DamageKey, float],
    landed: Mapping[str, float],
    notes: list[str],
) -> TargetOdds:
    tally = odds.Tally(name, touched=frozenset({HIT}))
    # The marginals are computed whole here, so they go in as they are (the d100 has no glitch:
    # tally.glitch and critical_glitch stay 0).
    tally.outcomes.update(outcomes)
    tally.net.update(net)
    tally.damage.update(damage)
    tally.locations.update(landed)
    tally.notes.extend(notes)
    return tally.odds()


def _target_odds(build: attack.TargetBuild) -> TargetOdds:
    """One target, as attack._roll_target rolls it: the attack test; on a success the Active
    Defense; a hit on more hits than the defense; its damage."""
    attack_hits = test_hits(build.success_target)
    defense_hits = test_hits(build.defense) if build.defense is not None else (1.0,)
    on_hit: dict[int, float] = {}
    for got, p_got in enumerate(attack_hits):
        # No hits is a failed test: the defender rolls none.
        if got == 0 or not p_got:
            continue
        for against, p_against in enumerate(defense_hits):
            net_hits = core.net_hits(got, against)
            if core.hits_home(True, net_hits):
                _add(on_hit, net_hits, p_got * p_against)
    p_hit = sum(on_hit.values())
    p_miss = 1.0 - p_hit
    damage, landed = hit_damage(build.damage, on_hit)
    damage[odds.NO_DAMAGE] = damage.get(odds.NO_DAMAGE, 0.0) + p_miss
    net = {0: p_miss, **on_hit}
    notes = [f"attack test at Success Target {build.success_target}"]
    if build.defense is not None:
        notes.append(f"Active Defense at Success Target {build.defense}, on a success")
    if build.damage.passive_defense is not None:
        notes.append(f"Passive Defense at Success Target {build.damage.passive_defense}, on a hit")
    return _tally(build.target.id, {HIT: p_hit, MISS: p_miss}, net, damage, landed, notes)


def _percent(p: float) -> str:
    return f"{100 * p:.1f} %"


def _suppressive_note(request: D100AttackRequest, built: attack.AttackBuild) -> str:
    build = attack.build_suppression(request, built)
    hits = test_hits(build.success_target)
    made = 1.0 - hits[0]
    note = (
        "suppressive fire makes a zone, not a hit: it has no targets. Its test at Success "
        f"Target {build.success_target} makes a {tables.SUPPRESSION_DIAMETER_M:g} m circle "
        f"{_percent(made)} of the time"
    )
    if made > 0:
        mean_hits = odds.mean(hits) / made
        note += (
            f", of {mean_hits:.2f} hits on average when it does "
            f"({tables.SUPPRESSION_PENALTY_PER_HIT} a hit to every test inside)"
        )
    return note + "; ask .../zones/{zone}/tests/odds for the odds of those who must avoid it"


def attack_odds(
    request: D100AttackRequest, state: D100State, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    """The attack's odds on `state`, refused as resolve_attack refuses it; exact, so the seed and
    the sample size are not used."""
    del turn, seed, samples
    built = attack.build_attack(request, state)
    if request.suppressive is not None:
        return odds.attack_answer(
            RULESET, request.attacker.id, [], [_suppressive_note(request, built)]
        )
    targets = [
        _target_odds(attack.build_target(request, built, index))
        for index in range(len(request.targets))
    ]
    notes = [f"the whole attack's Success Target is {built.success_target}"]
    if len(targets) > 1:
        shares = ", ".join(
            f"{t.id} {s}" for t, s in zip(request.targets, built.shares, strict=True)
        )
        notes.append(f"divided among the targets: {shares}; each is rolled apart")
    # Each target has its own d100, defense and damage dice: they are hit apart.
    return odds.attack_answer(RULESET, request.attacker.id, targets, notes)


def zone_test_odds(
    zone_id: str,
    request: D100ZoneTestRequest,
    state: D100State,
    turn: TurnState,
    seed: int,
    samples: int,
) -> ZoneTestOdds:
    """A zone test's odds, refused as resolve_zone_test refuses it: `hit` is the chance the
    zone's fire hits the actor; the outcomes are "hit" and the result's `avoided`."""
    del turn, seed, samples
    built = suppression.build_zone_test(zone_id, request, state)
    actor = request.actor
    if built.success_target is None:
        target = _tally(
            actor,
            {request.avoid: 1.0},
            {0: 1.0},
            {odds.NO_DAMAGE: 1.0},
            {},
            [f"{request.avoid} avoids the fire: nothing is rolled"],
        )
    else:
        fails = test_hits(built.success_target)[0]
        damage, landed = hit_damage(built.damage, {suppression.ZONE_HIT_NET_HITS: fails})
        damage[odds.NO_DAMAGE] = damage.get(odds.NO_DAMAGE, 0.0) + (1.0 - fails)
        notes = [
            f"Athletics test at Success Target {built.success_target}: a failure is a hit "
            "without active defense, the zone's bonus dice cold (they count without a success)"
        ]
        if built.damage.passive_defense is not None:
            notes.append(
                f"Passive Defense at Success Target {built.damage.passive_defense}, on a hit"
            )
        target = _tally(
            actor,
            {HIT: fails, "athletics": 1.0 - fails},
            {suppression.ZONE_HIT_NET_HITS: 1.0},
            damage,
            landed,
            notes,
        )
    return ZoneTestOdds(
        ruleset=RULESET, zone=zone_id, actor=actor, method="exact", target=target, notes=[]
    )
