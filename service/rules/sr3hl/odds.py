"""The odds of Hard Life's attacks and zone tests (service/rules/odds.py, docs/odds.md).

A single shot is computed exactly from the attack's own build (attack.build_attack) and the
pure parts of what its rounds do (hits.py, condition.py, body.py): the attack test against the
dodge, the net successes' scatter on the body map (a d6 direction), the armour test at the
location it lands on, the damage test and its staging on the location's and the trauma monitor.
Per-bullet automatic fire and suppression fire's zone tests are too many paths to enumerate
(each round's own target number, the dodge off the highest dice, scatter chained from round to
round, armour in groups of three): they are a seeded Monte Carlo of the ruleset's own roll
(roll_attack, roll_zone_test: resolve_attack and resolve_zone_test less their build, which is
made once).

The damage key (schemas/odds.py): boxes added to the trauma monitor by the damage tests' wounds
(every round's added up), the track of the weapon's damage, the level of the highest wound on a
location's own monitor, and that location (the first hit, in the order the rounds hit, among
equals). The knock-back's stun, a stopped burst's stun hit and the recovery roll are not in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from schemas.sr3hl import (
    HLArmorPiece,
    HLAttackRequest,
    HLState,
    HLTargetResult,
    HLWeapon,
    HLZoneTestRequest,
    Location,
)
from service.rules import odds
from service.rules.dice import Dice
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3hl import attack, body, condition, dodge, hits, suppression, tables

RULESET = "sr3-hardlife"
# HLTargetResult.outcome's values: a shot that landed on the body touched the target, even when
# the armour stopped it.
TOUCHED = frozenset({"hit", "stopped"})
DamageKey = tuple[int, str | None, str | None, str | None]
DIRECTIONS = tuple(body.DIRECTIONS)
DAMAGE_FACES = (1, 2, 3, 4, 5, 6)
KNOCKED_DOWN = "knocked_down"
KNOCKED_BACK = "knocked_back"
NOT_IN_DAMAGE = (
    "The damage counts the damage tests' wounds: the knock-back roll's stun, a stopped burst's "
    "stun hit and the recovery roll are not in it."
)


def sample_seeds(seed: int, samples: int) -> list[int]:
    """The seeds of a sampled answer's resolutions (odds.seeds)."""
    return list(odds.seeds(seed, samples))


def _track(weapon: HLWeapon) -> condition.Track:
    return "stun" if weapon.damage_type == "stun" else "physical"


def _percent(p: float) -> str:
    return f"{100 * p:.1f} %"


def _knock_back_note(down: float, back: float, exact: bool) -> str:
    how = "" if exact else " (sampled)"
    return (
        f"Knock-back{how} (004, Table 4): knocked down {_percent(down)}, knocked back "
        f"{_percent(back)}; the Body roll is made even when the armour stops the shot."
    )


# --- the exact single shot ------------------------------------------------------------------


@lru_cache(maxsize=256)
def damage_test(dice: int) -> tuple[int, tuple[float, ...]]:
    """The damage test's count of `dice` dice (004, "Damage Test": successes - ones + sixes,
    hits.damage_count, die by die): its lowest value and the distribution from there."""
    face = [0.0] * 4  # values -1 .. 2 of one die
    low = min(hits.damage_count([f])[3] for f in DAMAGE_FACES)
    for f in DAMAGE_FACES:
        face[hits.damage_count([f])[3] - low] += 1 / len(DAMAGE_FACES)
    total: tuple[float, ...] = (1.0,)
    for _ in range(dice):
        total = odds.convolve(total, face)
    return low * dice, total


def _test(dice: int, modifiers: Sequence[Modifier]) -> tuple[float, ...]:
    """A target-number test's successes (sr3's `test`: the modifiers' sum, never below 2)."""
    return odds.target_number_test(dice, sr3_attack.target_number(list(modifiers))).successes


def _wound_key(
    track: condition.Track,
    level: tables.DamageLevel,
    successes: int,
    location: Location,
    area: bool,
) -> DamageKey:
    """condition.wounded's monitors for a hit of `level` staged by `successes` at `location`:
    the boxes on the trauma monitor, the level on the location's own."""
    trauma_boxes = 0
    at_location: str | None = None
    for monitor, modifier in condition.reached(None if area else location):
        written, _ = condition.staged(level, successes + modifier)
        if written is None:
            continue
        if monitor == "trauma":
            trauma_boxes = tables.BOXES[written]
        if monitor == location:
            at_location = written
    if at_location is None and trauma_boxes == 0:
        return odds.NO_DAMAGE
    return (trauma_boxes, track, at_location, location)


def _single_shot(request: HLAttackRequest, built: attack.AttackBuild) -> TargetOdds:
    weapon = request.weapon
    target = built.target
    defender = target.defender
    area = weapon.area_effect
    stun_weapon = weapon.damage_type == "stun"
    track = _track(weapon)
    worn = hits.worn_by(built.victim, defender)
    tally = odds.Tally(target.id, touched=TOUCHED)

    shot = odds.target_number_test(built.count, built.target_numbers[0])
    tally.glitch = tally.critical_glitch = shot.all_ones
    dodge_dice = dodge.dice_of(target.dodge)
    dodged: tuple[float, ...] = (1.0,)
    if dodge_dice:
        dodged = _test(dodge_dice, dodge.modifiers(target.dodge, built.rounds, area))

    # The net successes of the shots that are neither missed nor dodged.
    net: dict[int, float] = {}
    for a, pa in enumerate(shot.successes):
        if a == 0:
            tally.add(pa, "miss")
            continue
        for d, pd in enumerate(dodged):
            if attack.is_clean_miss(a, d):
                tally.add(pa * pd, "dodged")
            else:
                net[a - d] = net.get(a - d, 0.0) + pa * pd

    # Where each lands: Table 1's hexes from the aim point, a d6 direction (attack.py).
    landed: dict[tuple[int, Location], float] = {}
    for n, pn in net.items():
        hexes = attack.scatter_hexes(n, area)
        if not hexes:
            landed[(n, built.aim_location)] = landed.get((n, built.aim_location), 0.0) + pn
            continue
        for direction in DIRECTIONS:
            at = body.location_at(body.step(built.aim, direction, hexes)[-1])
            p = pn / len(DIRECTIONS)
            if at is None:
                tally.add(p, "off_body", net=n)
            else:
                landed[(n, at)] = landed.get((n, at), 0.0) + p

    knock_down = knock_back = 0.0
    skips_stun = stun_weapon or weapon.ammo_kind == "gel"
    # What a shot does at a location depends on its net successes only through Table 3's dice.
    outcomes_at: dict[tuple[Location, int], list[tuple[float, str, DamageKey]]] = {}
    knocked: dict[Location, tuple[float, float]] = {}
    for (n, location), p in landed.items():
        _, dice = hits.damage_dice(weapon, n)
        if (location, dice) not in outcomes_at:
            outcomes_at[(location, dice)] = _at_location(
                request, built, worn, location, dice, track
            )
        for q, outcome, key in outcomes_at[(location, dice)]:
            tally.add(p * q, outcome, net=n, damage=key, locations=[location])
        if not skips_stun:
            if location not in knocked:
                knocked[location] = _knock_back(request, built, worn, location)
            down, back = knocked[location]
            knock_down += p * down
            knock_back += p * back
    if not skips_stun:
        tally.notes.append(_knock_back_note(knock_down, knock_back, exact=True))
    tally.notes.append(NOT_IN_DAMAGE)
    return tally.odds()


def _at_location(
    request: HLAttackRequest,
    built: attack.AttackBuild,
    worn: list[HLArmorPiece],
    location: Location,
    dice: int,
    track: condition.Track,
) -> list[tuple[float, str, DamageKey]]:
    """What one shot with `dice` damage dice does at `location` (hits._location for one round):
    stopped by the armour, or the damage test's wound."""
    weapon = request.weapon
    defender = built.target.defender
    area = weapon.area_effect
    built_armor = hits.armor_build(weapon, defender, worn, location, area)
    armor_dist = _test(built_armor.count, built_armor.modifiers)
    lacing: tuple[float, ...] = (1.0,)
    if built_armor.lacing_count:
        lacing = _test(built_armor.lacing_count, built_armor.lacing_modifiers)
    stopped = sum(armor_dist[built_armor.soak :])
    found: dict[tuple[str, DamageKey], float] = {}

    def add(p: float, outcome: str, key: DamageKey) -> None:
        if p > 0.0:
            found[(outcome, key)] = found.get((outcome, key), 0.0) + p

    add(stopped, "stopped", odds.NO_DAMAGE)
    # The damage test's count less the armour's and the lacing's successes (the shots that
    # penetrated: fewer armour successes than the soak number).
    low, damage = damage_test(dice)
    less_lacing = odds.convolve(damage, lacing[::-1])
    low -= len(lacing) - 1
    counted: dict[int, float] = {}
    for armor_successes, pa in enumerate(armor_dist[: built_armor.soak]):
        for i, p in enumerate(less_lacing):
            value = low + i - armor_successes
            counted[value] = counted.get(value, 0.0) + pa * p
    if weapon.damage_type != "stun":
        for value, p in counted.items():
            if condition.staged(weapon.damage_level, value)[0] is None:
                # Staged below Light: no wound, whatever the location's bonus (hits._location).
                add(p, "hit", odds.NO_DAMAGE)
            else:
                add(p, "hit", _wound_key(track, weapon.damage_level, value, location, area))
        return [(p, outcome, key) for (outcome, key), p in found.items()]
    # A stun weapon: Body resists the damage test's level (the attack's first Body roll).
    by_level: dict[tables.DamageLevel | None, float] = {}
    for value, p in counted.items():
        level, _ = condition.staged(weapon.damage_level, value)
        by_level[level] = by_level.get(level, 0.0) + p
    impact = hits.impact_at(worn, location, area)
    body_dist = _test(
        defender.body + built.target.resist,
        hits.body_modifiers(weapon.power, impact, "stun weapon power"),
    )
    for level, p in by_level.items():
        if level is None:
            add(p, "hit", odds.NO_DAMAGE)
            continue
        for b, pb in enumerate(body_dist):
            resisted = hits.level_down(level, b)
            key = (
                odds.NO_DAMAGE
                if resisted is None
                else _wound_key(track, resisted, 0, location, area)
            )
            add(p * pb, "hit", key)
    return [(p, outcome, key) for (outcome, key), p in found.items()]


def _knock_back(
    request: HLAttackRequest,
    built: attack.AttackBuild,
    worn: list[HLArmorPiece],
    location: Location,
) -> tuple[float, float]:
    """004, "Resolve Stun and Knock-back" (hits._stun_and_knock_back): Body + `resist` against
    half the Power less the impact there; Table 4's row by the base level."""
    weapon = request.weapon
    defender = built.target.defender
    power = weapon.power // tables.STUN_POWER_DIVISOR
    impact = hits.impact_at(worn, location, weapon.area_effect)
    successes = _test(
        defender.body + built.target.resist,
        hits.body_modifiers(power, impact, "stun power (half the weapon's)"),
    )
    row = tables.KNOCK_BACK[weapon.damage_level]
    down = back = 0.0
    for b, pb in enumerate(successes):
        effect, _ = row[min(b, len(row) - 1)]
        if effect == KNOCKED_DOWN:
            down += pb
        elif effect == KNOCKED_BACK:
            back += pb
    return down, back


# --- sampled: automatic fire and zone tests -------------------------------------------------


def damage_key(target: HLTargetResult, weapon: HLWeapon) -> DamageKey:
    """A resolution's damage in the odds' key: the damage tests' wounds (the weapon's track),
    their trauma boxes added up, the highest level on a location's own monitor and where."""
    track = _track(weapon)
    boxes = 0
    worst: tuple[int, str, str] | None = None
    for hit in target.hits:
        for wound in hit.wounds:
            if wound.track != track or wound.level is None:
                continue
            if wound.monitor == "trauma":
                boxes += wound.boxes
            if wound.monitor == hit.location:
                rank = tables.LEVELS.index(wound.level)
                if worst is None or rank > worst[0]:
                    worst = (rank, wound.level, hit.location)
    if worst is None and boxes == 0:
        return odds.NO_DAMAGE
    return (
        boxes,
        track,
        worst[1] if worst else None,
        worst[2] if worst else None,
    )


def _tally_sample(
    tally: odds.Tally, weight: float, target: HLTargetResult, weapon: HLWeapon, all_ones: bool
) -> None:
    tally.add(
        weight,
        target.outcome,
        net=target.net_successes,
        damage=damage_key(target, weapon),
        locations=[r.location for r in target.rounds if r.outcome == "hit" and r.location],
        glitch=all_ones,
        critical_glitch=all_ones,
    )


def _knock_back_sampled(tally: odds.Tally, down: int, back: int, samples: int) -> None:
    tally.notes.append(_knock_back_note(down / samples, back / samples, exact=False))


def _sampled_attack(
    request: HLAttackRequest,
    state: HLState,
    turn: TurnState,
    built: attack.AttackBuild,
    seed: int,
    samples: int,
) -> tuple[TargetOdds, str]:
    weapon = request.weapon
    tally = odds.Tally(built.target.id, touched=TOUCHED)
    weight = 1.0 / samples
    down = back = 0
    for sample in odds.sampled(seed, samples):
        result = attack.roll_attack(request, state, turn, built, Dice(sample)).result
        target = result.target
        assert target is not None and result.attack is not None
        _tally_sample(tally, weight, target, weapon, result.attack.rule_of_one)
        down += target.knock_back == KNOCKED_DOWN
        back += target.knock_back == KNOCKED_BACK
    if not (weapon.damage_type == "stun" or weapon.ammo_kind == "gel"):
        _knock_back_sampled(tally, down, back, samples)
    tally.notes.append(NOT_IN_DAMAGE)
    what = (
        f"per-bullet automatic fire ({built.rounds} rounds, {request.mode}): each round's own "
        "target number, the dodge off the highest dice, scatter chained from round to round and "
        "armour tests in groups of three are too many paths to enumerate; "
        f"{samples} seeded resolutions of the attack"
    )
    return tally.odds(), what


def attack_odds(
    request: HLAttackRequest, state: HLState, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    """An attack's odds: a single shot exactly, automatic fire sampled, suppression fire none
    (it makes a zone: its zone tests have odds)."""
    if request.suppression is not None and request.target is None:
        # Made as the real fire would be, for its refusals; it rolls nothing.
        suppression.fire(request, state, turn, Dice(seed))
        return odds.attack_answer(
            RULESET,
            request.attacker.id,
            [],
            [
                "Suppression fire makes a zone and hits no one now: whoever enters it or moves "
                "in it takes a zone test; ask for a zone test's odds."
            ],
        )
    built = attack.build_attack(request, state, turn)
    if built.autofire:
        # A sample that hits a target without Willpower is refused as resolve refuses it.
        target, what = _sampled_attack(request, state, turn, built, seed, samples)
        return odds.attack_answer(
            RULESET,
            request.attacker.id,
            [target],
            sampling=odds.sampling(what, samples, seed, [target]),
        )
    target = _single_shot(request, built)
    if target.hit > 0:
        # resolve_attack refuses a hit on a target without Willpower (its recovery roll).
        hits.check_willpower(built.target.defender, "$.target.defender")
    return odds.attack_answer(RULESET, request.attacker.id, [target])


def zone_test_odds(
    zone_id: str,
    request: HLZoneTestRequest,
    state: HLState,
    turn: TurnState,
    seed: int,
    samples: int,
) -> ZoneTestOdds:
    """A zone test's odds, sampled: a seeded Monte Carlo of resolve_zone_test."""
    built = suppression.build_zone_test(zone_id, request, state)
    # Every zone test rolls at least one bullet, so a hit is possible: resolve_zone_test
    # refuses one on a tester without Willpower.
    hits.check_willpower(request.defender, "$.defender")
    weapon = built.live.weapon
    tally = odds.Tally(request.actor, touched=TOUCHED)
    weight = 1.0 / samples
    down = back = 0
    for sample in odds.sampled(seed, samples):
        rolled = suppression.roll_zone_test(zone_id, request, state, turn, built, Dice(sample))
        result = rolled.result
        _tally_sample(tally, weight, result.target, weapon, result.attack.rule_of_one)
        down += result.target.knock_back == KNOCKED_DOWN
        back += result.target.knock_back == KNOCKED_BACK
    if not (weapon.damage_type == "stun" or weapon.ammo_kind == "gel"):
        _knock_back_sampled(tally, down, back, samples)
    tally.notes.append(NOT_IN_DAMAGE)
    target = tally.odds()
    what = (
        f"suppression fire ({built.live.bullets_per_m2} bullets per m², target number "
        f"{built.target_number}): Table 10's locations, a d6 of successes per round, one dodge "
        "off every round, scatter per round and armour tests in groups of three are too many "
        f"paths to enumerate; {samples} seeded resolutions of the zone test"
    )
    return ZoneTestOdds(
        ruleset=RULESET,
        zone=zone_id,
        actor=request.actor,
        method="sampled",
        target=target,
        sampling=odds.sampling(what, samples, seed, [target]),
    )
