"""The odds of Hard Life's attacks and zone tests (service/rules/odds.py, docs/odds.md).

Every preview is exact, from the attack's (or zone test's) own build and resolve's own steps:
a single shot in odds_shot.py, per-bullet automatic fire in odds_auto.py, a zone test in
odds_zone.py, what the rounds that land do in odds_rounds.py. A request whose exact computation
would hold more than odds_rounds.MAX_STATES states at once (full auto of many rounds that mostly
hit, a zone of many bullets) is sampled instead: a seeded Monte Carlo of the ruleset's own roll
(roll_attack, roll_zone_test: resolve_attack and resolve_zone_test less their build, made once),
and says so.

The damage key (schemas/odds.py): boxes added to the trauma monitor by the damage tests' wounds
(every round's added up), the track of the weapon's damage, the level of the highest wound on a
location's own monitor, and that location (the first hit, in the order the rounds hit, among
equals). The knock-back's stun, a stopped burst's stun hit and the recovery roll are not in it.
"""

from __future__ import annotations

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from schemas.sr3hl import (
    HLAttackRequest,
    HLState,
    HLTargetResult,
    HLWeapon,
    HLZoneTestRequest,
)
from service.rules import odds
from service.rules.dice import Dice
from service.rules.sr3hl import attack, hits, odds_auto, odds_zone, suppression, tables
from service.rules.sr3hl.odds_rounds import MAX_STATES, TooManyPaths
from service.rules.sr3hl.odds_shot import (
    KNOCKED_BACK,
    KNOCKED_DOWN,
    NOT_IN_DAMAGE,
    TOUCHED,
    DamageKey,
    damage_test,
    knock_back_note,
    single_shot,
    track_of,
)

RULESET = "sr3-hardlife"
__all__ = ["attack_odds", "damage_test", "sample_seeds", "zone_test_odds"]


def sample_seeds(seed: int, samples: int) -> list[int]:
    """The seeds of a sampled answer's resolutions (odds.seeds)."""
    return list(odds.seeds(seed, samples))


def _folded_note(left_out: float) -> list[str]:
    """Paths dropped below odds_auto.FOLD each, when they add up to more than a rounding."""
    if left_out <= odds.NEGLIGIBLE:
        return []
    return [
        f"Paths of automatic fire below {odds_auto.FOLD:g} each are left out: {left_out:.1e} "
        "in all; the chances given are of the rest."
    ]


def _too_many(paths: TooManyPaths) -> str:
    return (
        f"its exact computation would hold more than {MAX_STATES} states at once by round "
        f"{paths.args[0]} (where the last round landed, and which rounds landed at which "
        "location: the chain has no smaller state that gives the damage key exactly)"
    )


# --- sampled: automatic fire and zone tests -------------------------------------------------


def damage_key(target: HLTargetResult, weapon: HLWeapon) -> DamageKey:
    """A resolution's damage in the odds' key: the damage tests' wounds (the weapon's track),
    their trauma boxes added up, the highest level on a location's own monitor and where."""
    track = track_of(weapon)
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
    tally.notes.append(knock_back_note(down / samples, back / samples, exact=False))


def _sampled_attack(
    request: HLAttackRequest,
    state: HLState,
    turn: TurnState,
    built: attack.AttackBuild,
    seed: int,
    samples: int,
    why: str,
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
        f"per-bullet automatic fire ({built.rounds} rounds, {request.mode}): {why}; "
        f"{samples} seeded resolutions of the attack"
    )
    return tally.odds(), what


def _willpower_if_hit(target: TargetOdds, built: attack.AttackBuild) -> None:
    """resolve_attack refuses a round landing on a target without Willpower (its recovery
    roll): so does the preview where one can."""
    if target.hit > 0:
        hits.check_willpower(built.target.defender, "$.target.defender")


def attack_odds(
    request: HLAttackRequest, state: HLState, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    """An attack's odds: a single shot and automatic fire exactly (automatic fire past
    MAX_STATES sampled), suppression fire none (it makes a zone: its zone tests have odds).
    `seed` and `samples` serve only a sampled one."""
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
    if not built.autofire:
        target = single_shot(request, built)
        _willpower_if_hit(target, built)
        return odds.attack_answer(RULESET, request.attacker.id, [target])
    try:
        target, left_out = odds_auto.autofire(request, built)
    except TooManyPaths as paths:
        # A sample that hits a target without Willpower is refused as resolve refuses it.
        target, what = _sampled_attack(request, state, turn, built, seed, samples, _too_many(paths))
        return odds.attack_answer(
            RULESET,
            request.attacker.id,
            [target],
            sampling=odds.sampling(what, samples, seed, [target]),
        )
    _willpower_if_hit(target, built)
    target.notes.extend(_folded_note(left_out))
    return odds.attack_answer(RULESET, request.attacker.id, [target])


def zone_test_odds(
    zone_id: str,
    request: HLZoneTestRequest,
    state: HLState,
    turn: TurnState,
    seed: int,
    samples: int,
) -> ZoneTestOdds:
    """A zone test's odds, exactly (past MAX_STATES, a seeded Monte Carlo of
    resolve_zone_test)."""
    built = suppression.build_zone_test(zone_id, request, state)
    # Every zone test rolls at least one bullet, so a hit is possible: resolve_zone_test
    # refuses one on a tester without Willpower.
    hits.check_willpower(request.defender, "$.defender")
    try:
        exact = odds_zone.zone_test(request, built)
    except TooManyPaths as paths:
        return _sampled_zone_test(zone_id, request, state, turn, built, seed, samples, paths)
    return ZoneTestOdds(
        ruleset=RULESET, zone=zone_id, actor=request.actor, method="exact", target=exact
    )


def _sampled_zone_test(
    zone_id: str,
    request: HLZoneTestRequest,
    state: HLState,
    turn: TurnState,
    built: suppression.ZoneTestBuild,
    seed: int,
    samples: int,
    paths: TooManyPaths,
) -> ZoneTestOdds:
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
        f"{built.target_number}): {_too_many(paths)}; {samples} seeded resolutions of the "
        "zone test"
    )
    return ZoneTestOdds(
        ruleset=RULESET,
        zone=zone_id,
        actor=request.actor,
        method="sampled",
        target=target,
        sampling=odds.sampling(what, samples, seed, [target]),
    )
