"""The exact odds of a Hard Life single shot (SS, SA; docs/odds.md, "sr3-hardlife"), from the
attack's own build (attack.build_attack) and the pure parts of what its round does (hits.py,
condition.py, body.py): the attack test against the dodge, the net successes' scatter on the
body map (a d6 direction), the armour test at the location it lands on, the damage test and its
staging on the location's and the trauma monitor. Also the pieces automatic fire and zone tests
share (odds_rounds.py): the damage test's count and a wound in the damage key.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from schemas.common import Modifier
from schemas.odds import TargetOdds
from schemas.sr3hl import HLArmorPiece, HLAttackRequest, HLWeapon, Location
from service.rules import odds
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3hl import attack, body, condition, dodge, hits, tables

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


def track_of(weapon: HLWeapon) -> condition.Track:
    return "stun" if weapon.damage_type == "stun" else "physical"


def _percent(p: float) -> str:
    return f"{100 * p:.1f} %"


def knock_back_note(down: float, back: float, exact: bool) -> str:
    how = "" if exact else " (sampled)"
    return (
        f"Knock-back{how} (004, Table 4): knocked down {_percent(down)}, knocked back "
        f"{_percent(back)}; the Body roll is made even when the armour stops the shot."
    )


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


def successes_of(dice: int, modifiers: Sequence[Modifier]) -> tuple[float, ...]:
    """A target-number test's successes (sr3's `test`: the modifiers' sum, never below 2)."""
    return odds.target_number_test(dice, sr3_attack.target_number(list(modifiers))).successes


def wound_key(
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


def single_shot(request: HLAttackRequest, built: attack.AttackBuild) -> TargetOdds:
    weapon = request.weapon
    target = built.target
    defender = target.defender
    area = weapon.area_effect
    stun_weapon = weapon.damage_type == "stun"
    track = track_of(weapon)
    worn = hits.worn_by(built.victim, defender)
    tally = odds.Tally(target.id, touched=TOUCHED)

    shot = odds.target_number_test(built.count, built.target_numbers[0])
    tally.glitch = tally.critical_glitch = shot.all_ones
    dodge_dice = dodge.dice_of(target.dodge)
    dodged: tuple[float, ...] = (1.0,)
    if dodge_dice:
        dodged = successes_of(dodge_dice, dodge.modifiers(target.dodge, built.rounds, area))

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
        tally.notes.append(knock_back_note(knock_down, knock_back, exact=True))
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
    armor_dist = successes_of(built_armor.count, built_armor.modifiers)
    lacing: tuple[float, ...] = (1.0,)
    if built_armor.lacing_count:
        lacing = successes_of(built_armor.lacing_count, built_armor.lacing_modifiers)
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
                add(p, "hit", wound_key(track, weapon.damage_level, value, location, area))
        return [(p, outcome, key) for (outcome, key), p in found.items()]
    # A stun weapon: Body resists the damage test's level (the attack's first Body roll).
    by_level: dict[tables.DamageLevel | None, float] = {}
    for value, p in counted.items():
        level, _ = condition.staged(weapon.damage_level, value)
        by_level[level] = by_level.get(level, 0.0) + p
    impact = hits.impact_at(worn, location, area)
    body_dist = successes_of(
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
                else wound_key(track, resisted, 0, location, area)
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
    power = hits.stun_power(weapon)
    impact = hits.impact_at(worn, location, weapon.area_effect)
    successes = successes_of(
        defender.body + built.target.resist,
        hits.body_modifiers(power, impact, "stun power (half the weapon's)"),
    )
    down = back = 0.0
    for b, pb in enumerate(successes):
        effect, _ = hits.knock_back(weapon.damage_level, b)
        if effect == KNOCKED_DOWN:
            down += pb
        elif effect == KNOCKED_BACK:
            back += pb
    return down, back
