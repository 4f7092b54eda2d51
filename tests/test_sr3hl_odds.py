"""Hard Life's odds (service/rules/sr3hl/odds*.py) against what resolve_attack and
resolve_zone_test do: the exact previews (a single shot, automatic fire, a zone test) against
many seeds of the same attack on the same state (chi-square and binomial bounds,
tests/odds_check.py); the previews past the exact computation's bound, sampled, against an
independent run with other seeds, within their stated margin; hand-computed cases from 004's
rules and the body map; the state they read; the refusals they share with resolve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from math import comb
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds
from schemas.sr3hl import (
    HLActorState,
    HLArmorPiece,
    HLAttackRequest,
    HLAttackResult,
    HLMonitor,
    HLState,
    HLTargetResult,
    HLWeapon,
    HLZoneTestRequest,
)
from service.rules import RULESETS, RuleViolation
from service.rules import odds as shared
from service.rules.dice import Dice
from service.rules.sr3hl import attack
from service.rules.sr3hl import odds as hl_odds
from service.rules.sr3hl.odds_rounds import MAX_STATES
from tests import sr3hl_requests as r
from tests import test_sr3hl_suppression as zone_tests
from tests.odds_check import SAMPLES, Z_BINOMIAL, Observed, check_target

HL = RULESETS["sr3-hardlife"]
TURN = TurnState()
F = Fraction
# Seeds of the independent runs: far from the ones the previews draw (odds.sample_seeds).
FIRST_SEED = 10**8
EXACT_SAMPLES = SAMPLES  # every ruleset's: an off-by-one fails at 6,000 as at 8,000
PREVIEW_SAMPLES = 2000
CHECK_SAMPLES = 6000
LEVELS = ("L", "M", "S", "D")


def request(body: dict[str, Any]) -> HLAttackRequest:
    return msgspec.convert(body, HLAttackRequest)


def observed(target: HLTargetResult, all_ones: bool, weapon: HLWeapon) -> Observed:
    """A resolution in the odds' terms, as docs/odds.md defines the damage key: the damage
    tests' wounds on the weapon's track, their trauma boxes added up, the highest level on a
    location's own monitor and that location (the first among equals)."""
    track = "stun" if weapon.damage_type == "stun" else "physical"
    boxes = sum(
        w.boxes for h in target.hits for w in h.wounds if w.monitor == "trauma" and w.track == track
    )
    own = [
        (w.level, h.location)
        for h in target.hits
        for w in h.wounds
        if w.monitor == h.location and w.track == track and w.level is not None
    ]
    damage: tuple[int, str | None, str | None, str | None] = (0, None, None, None)
    if own or boxes:
        level, location = max(own, key=lambda x: LEVELS.index(x[0]))
        damage = (boxes, track, level, location)
    return Observed(
        outcome=target.outcome,
        net=target.net_successes,
        damage=damage,
        glitch=all_ones,
        critical_glitch=all_ones,
        locations=frozenset(x.location for x in target.rounds if x.outcome == "hit" and x.location),
    )


def observe_attack(
    body: dict[str, Any], state: HLState, seeds: range, turn: TurnState = TURN
) -> list[Observed]:
    asked = request(body)
    found = []
    for seed in seeds:
        result: HLAttackResult = HL.resolve_attack(asked, state, turn, Dice(seed)).result
        assert result.target is not None and result.attack is not None
        found.append(observed(result.target, result.attack.rule_of_one, asked.weapon))
    return found


def odds_of(body: dict[str, Any], state: HLState | None = None, **kw: Any) -> AttackOdds:
    return HL.attack_odds(
        request(body),
        state or HLState(),
        kw.get("turn", TURN),
        kw.get("seed", 1),
        kw.get("n", 4000),
    )


def by_key(target: TargetOdds) -> dict[str, dict[Hashable, float]]:
    return {
        "outcome": {o.outcome: o.p for o in target.outcomes},
        "net": {c.value: c.p for c in target.net_hits},
        "damage": {(d.boxes, d.track, d.level, d.location): d.p for d in target.damage},
        "location": {loc.location: loc.p for loc in target.locations},
        "summary": {"hit": target.hit, "glitch": target.glitch},
    }


# --- the exact single shot against resolve ----------------------------------------------------

JACKET_WORN = HLState(
    actors={"goon": HLActorState(armor=[HLArmorPiece(garment="jacket", wear={"torso": 3})])}
)
INJURED_AFTER_A_SHOT = HLState(
    actors={"carter": HLActorState(monitors={"trauma": HLMonitor(physical=3)}, rounds_in_phase=1)}
)

SINGLE_SHOTS: dict[str, tuple[dict[str, Any], HLState]] = {
    # Carter's heavy pistol at the goon in an armoured jacket (TN 3, 6 dice; jacket 6/4).
    "carter at the goon": (r.attack(), HLState()),
    # A called shot at the head (SR3 +4) under a helmet; the goon also wears a long coat.
    "called head, helmet": (
        r.attack(
            called_shot="head",
            target=r.target(
                defender=r.defender(armor=[r.jacket(), {"garment": "helmet"}]),
            ),
        ),
        HLState(),
    ),
    # Table 8: Combat Pool and Dodge Pool dice, dodging into cover 3 m away (4 - 2 + 1).
    "dodge into cover": (
        r.attack(
            target=r.target(
                defender=r.defender(combat_pool=5, dodge_skill=3),
                dodge={"combat_pool": 2, "dodge_pool": 3, "into_cover_m": 3},
            )
        ),
        HLState(),
    ),
    # The torso worn down by 3 in the state; armour-piercing rounds, dermal armour and bone
    # lacing (its own dice, only taking off damage successes).
    "worn, AP, dermal, lacing": (
        r.attack(
            weapon=r.weapon(ammo_kind="armor_piercing"),
            target=r.target(
                defender=r.defender(dermal_armor=2, bone_lacing={"ballistic": 2, "impact": 2})
            ),
        ),
        JACKET_WORN,
    ),
    # A stun weapon: Body (with 2 Combat Pool dice) takes its damage down.
    "stun weapon": (
        r.attack(
            weapon=r.weapon(damage_type="stun", power=8),
            target=r.target(defender=r.defender(combat_pool=4), resist=2),
        ),
        HLState(),
    ),
    # An area effect: no scatter, the overall armour, every monitor alike.
    "area effect": (
        r.attack(weapon=r.weapon(area_effect=True, damage_level="S", power=6)),
        HLState(),
    ),
    # The attacker wounded (M: +2) and recoiling from its earlier round; a called shot at the
    # right hand (+4 bonus, -4 shift), gel rounds.
    "injured, recoil, hand, gel": (
        r.attack(called_shot="right_hand", weapon=r.weapon(ammo_kind="gel")),
        INJURED_AFTER_A_SHOT,
    ),
    # Light and deadly weapons at the thigh (-1 on trauma) and groin (+2), no armour.
    "light at a thigh": (
        r.attack(
            called_shot="left_thigh",
            weapon=r.weapon(damage_level="L", power=5),
            target=r.target(defender=r.defender(armor=[])),
        ),
        HLState(),
    ),
    "deadly at the groin": (
        r.attack(
            called_shot="groin",
            weapon=r.weapon(damage_level="D", power=10, category="sniper_rifle"),
            target=r.target(distance_m=30, defender=r.defender(armor=[{"garment": "clothing"}])),
        ),
        HLState(),
    ),
}


@pytest.mark.parametrize("name", sorted(SINGLE_SHOTS))
def test_a_single_shot_is_exact_against_many_seeds_of_resolve(name: str) -> None:
    body, state = SINGLE_SHOTS[name]
    answer = odds_of(body, state)
    assert answer.method == "exact" and answer.sampling is None
    (target,) = answer.targets
    check_target(target, observe_attack(body, state, range(FIRST_SEED, FIRST_SEED + EXACT_SAMPLES)))
    assert answer.any_hit == target.hit and answer.damage_mean == target.damage_mean
    assert target.hit == sum(o.p for o in target.outcomes if o.outcome in ("hit", "stopped"))
    assert target.graze == 0.0
    # Table 6: where there is no damage shift (head, vitals, torso, groin) the trauma monitor
    # takes the damage test's own level, so every wound there adds boxes to it; a test staged
    # below Light writes nothing, whatever the location's bonus.
    for d in target.damage:
        if d.location in ("head", "vitals", "torso", "groin"):
            assert d.boxes > 0, d


def test_a_single_shot_answers_fast() -> None:
    # The bound for an exact preview is a matter of bench/; here only a sanity bound
    # that fails if the single shot were sampled by mistake.
    import time

    # The largest pools the request allows on every test: 60 attack dice, 60 dodge dice, a
    # stun weapon of Power 30 against 30 dermal and lacing dice and Body 30 with 30 pool dice.
    body = r.attack(
        attacker=r.attacker(skill=30, combat_pool=30),
        pool=30,
        weapon=r.weapon(damage_type="stun", power=30),
        target=r.target(
            defender=r.defender(
                combat_pool=60,
                dodge_skill=30,
                body=30,
                dermal_armor=30,
                bone_lacing={"ballistic": 30, "impact": 30},
                armor=[{"garment": "full_suit"}, r.jacket()],
            ),
            dodge={"combat_pool": 30, "dodge_pool": 30},
            resist=30,
        ),
    )
    start = time.perf_counter()
    odds_of(body)
    assert time.perf_counter() - start < 1.0


# --- sampled previews against an independent run ----------------------------------------------


def _within_margin(target: TargetOdds, margin: float, samples: int, seen: list[Observed]) -> None:
    """Every probability the preview reports (and 0 for what it does not) against what an
    independent run of resolve saw: within the preview's stated margin plus that run's own
    Wilson half-width, both widened from 95 % to tests/odds_check.py's one-in-a-million bound
    (Z_BINOMIAL); and within a two-sample binomial bound of the same strength on its own."""
    n = len(seen)
    widen = Z_BINOMIAL / shared.Z_95
    observed_by: dict[str, Mapping[Hashable, float]] = {
        "outcome": {k: c / n for k, c in Counter(o.outcome for o in seen).items()},
        "net": {k: c / n for k, c in Counter(o.net for o in seen).items()},
        "damage": {k: c / n for k, c in Counter(o.damage for o in seen).items()},
        "location": {
            k: c / n for k, c in Counter(loc for o in seen for loc in o.locations).items()
        },
        "summary": {
            "hit": sum(o.outcome in ("hit", "stopped") for o in seen) / n,
            "glitch": sum(o.glitch for o in seen) / n,
        },
    }
    for what, reported in by_key(target).items():
        frequencies = observed_by[what]
        for key in set(reported) | set(frequencies):
            p, f = reported.get(key, 0.0), frequencies.get(key, 0.0)
            # The stated margin is the widest of the reported probabilities' half-widths.
            assert shared.wilson_margin(p, samples) <= margin + 1e-12
            stated = widen * (margin + shared.wilson_margin(f, n))
            pooled = (p * samples + f * n) / (samples + n)
            two_sample = Z_BINOMIAL * (pooled * (1 - pooled) * (1 / samples + 1 / n)) ** 0.5
            bound = min(stated, two_sample + 1 / samples)
            assert abs(p - f) <= bound, (
                f"{what} {key!r}: preview {p:.4f}, resolve {f:.4f}, bound {bound:.4f}"
            )


EXACT_AUTOFIRE: dict[str, tuple[dict[str, Any], HLState]] = {
    # A burst from an SMG without recoil compensation at a dodging goon (+1 per 3 rounds):
    # three rounds at three target numbers, the dodge taking the highest dice first.
    "burst, dodged": (
        r.attack(
            weapon=r.smg(),
            mode="BF",
            target=r.target(
                defender=r.defender(combat_pool=4), dodge={"combat_pool": 3}, distance_m=10
            ),
        ),
        HLState(),
    ),
    # Four rounds of full auto from a called shot at the head: several rounds on one location
    # (a group of three and a fourth that opens a group on the armour the first wore down).
    "full auto at the head, worn": (
        r.attack(
            attacker=r.attacker(skill=10),
            called_shot="head",
            weapon=r.smg(recoil_compensation=3),
            mode="FA",
            rounds=4,
            target=r.target(
                defender=r.defender(armor=[r.jacket(), {"garment": "helmet"}]), distance_m=3
            ),
        ),
        HLState(),
    ),
    # A stun weapon's burst, the target's Combat Pool dice on its first Body roll.
    "stun burst, resist": (
        r.attack(
            weapon=r.smg(damage_type="stun", power=8),
            mode="BF",
            target=r.target(defender=r.defender(combat_pool=4), resist=2, distance_m=6),
        ),
        HLState(),
    ),
}


@pytest.mark.parametrize("name", sorted(EXACT_AUTOFIRE))
def test_automatic_fire_is_exact_against_many_seeds_of_resolve(name: str) -> None:
    body, state = EXACT_AUTOFIRE[name]
    answer = odds_of(body, state)
    assert answer.method == "exact" and answer.sampling is None
    (target,) = answer.targets
    check_target(target, observe_attack(body, state, range(FIRST_SEED, FIRST_SEED + EXACT_SAMPLES)))
    assert answer.any_hit == target.hit


SAMPLED_ATTACKS: dict[str, tuple[dict[str, Any], HLState]] = {
    # Whisper's six rounds of full auto, recoil compensation 2, at the goon whose torso is worn:
    # the rounds scatter far and often, so the landing patterns pass the bound of the exact
    # computation (odds_rounds.MAX_STATES) and the preview samples.
    "full auto, worn": (
        r.attack(weapon=r.smg(recoil_compensation=2), mode="FA", rounds=6),
        JACKET_WORN,
    ),
}


@pytest.mark.parametrize("name", sorted(SAMPLED_ATTACKS))
def test_automatic_fire_past_the_bound_is_sampled_within_its_margin(name: str) -> None:
    body, state = SAMPLED_ATTACKS[name]
    answer = odds_of(body, state, seed=5, n=PREVIEW_SAMPLES)
    assert answer.method == "sampled" and answer.sampling is not None
    assert (answer.sampling.samples, answer.sampling.seed) == (PREVIEW_SAMPLES, 5)
    assert "automatic fire" in answer.sampling.what
    assert f"more than {MAX_STATES} states" in answer.sampling.what
    assert answer.sampling.confidence == 0.95
    (target,) = answer.targets
    seen = observe_attack(body, state, range(FIRST_SEED, FIRST_SEED + CHECK_SAMPLES))
    _within_margin(target, answer.sampling.margin, PREVIEW_SAMPLES, seen)
    assert answer.any_hit == target.hit


def test_the_same_seed_gives_the_same_sampled_answer_and_another_seed_another() -> None:
    body, state = SAMPLED_ATTACKS["full auto, worn"]
    first = odds_of(body, state, seed=11, n=300)
    again = odds_of(body, state, seed=11, n=300)
    other = odds_of(body, state, seed=12, n=300)
    assert msgspec.json.encode(first) == msgspec.json.encode(again)
    assert msgspec.json.encode(first) != msgspec.json.encode(other)
    # A larger sample begins with the smaller one's resolutions.
    assert hl_odds.sample_seeds(11, 300) == hl_odds.sample_seeds(11, 600)[:300]


def zone_test_body(**fields: Any) -> dict[str, Any]:
    return {"actor": "whisper", "defender": zone_tests.WHISPER, "distance_m": 8, **fields}


def _observe_zone(asked: HLZoneTestRequest, state: HLState, seeds: range) -> list[Observed]:
    weapon = state.zones["zone-1"].weapon
    seen = []
    for seed in seeds:
        result = HL.resolve_zone_test("zone-1", asked, state, TURN, Dice(seed)).result
        seen.append(observed(result.target, result.attack.rule_of_one, weapon))
    return seen


def test_a_zone_test_is_exact_against_many_seeds_of_resolve() -> None:
    """Two bullets per m² at a dodging Whisper: up to two rounds, each from its Table 10
    location with a d6 of successes less the dodge's, scattered, through the armour."""
    state = zone_tests.zone_state(bullets_per_m2=2)
    body = zone_test_body(dodge={"combat_pool": 2})
    asked = msgspec.convert(body, HLZoneTestRequest)
    answer = HL.zone_test_odds("zone-1", asked, state, TURN, 9, PREVIEW_SAMPLES)
    assert answer.method == "exact" and answer.sampling is None
    seen = _observe_zone(asked, state, range(FIRST_SEED, FIRST_SEED + EXACT_SAMPLES))
    check_target(answer.target, seen)


def test_a_zone_test_past_the_bound_is_sampled_within_its_margin() -> None:
    state = zone_tests.zone_state()
    body = zone_test_body(dodge={"combat_pool": 3}, cover="partial")
    asked = msgspec.convert(body, HLZoneTestRequest)
    answer = HL.zone_test_odds("zone-1", asked, state, TURN, 9, PREVIEW_SAMPLES)
    assert answer.method == "sampled" and answer.sampling is not None
    assert answer.sampling.samples == PREVIEW_SAMPLES and "suppression fire" in answer.sampling.what
    assert f"more than {MAX_STATES} states" in answer.sampling.what
    seen = _observe_zone(asked, state, range(FIRST_SEED, FIRST_SEED + CHECK_SAMPLES))
    _within_margin(answer.target, answer.sampling.margin, PREVIEW_SAMPLES, seen)


def test_suppression_fire_makes_a_zone_and_points_at_its_zone_tests() -> None:
    body = {
        "attacker": zone_tests.PETE,
        "weapon": zone_tests.SMG,
        "mode": "FA",
        "suppression": {"area": zone_tests.SQUARE, "bullets_per_m2": 6},
    }
    answer = odds_of(body)
    assert answer.targets == [] and answer.any_hit == 0.0 and answer.method == "exact"
    assert any("zone test" in note for note in answer.notes)


# --- hand-computed cases ----------------------------------------------------------------------


def close(a: float, b: Fraction | float, tolerance: float = 1e-12) -> bool:
    return abs(a - float(b)) <= tolerance


def test_one_die_against_four_on_the_body_map() -> None:
    """One attack die at TN 4 (heavy pistol, short range, a walking target): half miss; a
    success is 1 net, Table 1's 3 hexes from the torso's centre (column 2, row 3): up it lands
    on the head (row 0), every other direction leaves the figure (columns -1 and 5, or row 6 of
    column 2)."""
    body = r.attack(attacker=r.attacker(skill=1), target=r.target(movement="walking"))
    assert attack.build_attack(request(body), HLState(), TURN).base_target_number == 4
    (target,) = odds_of(body).targets
    outcomes = {o.outcome: o.p for o in target.outcomes}
    assert close(outcomes["miss"], F(1, 2))
    assert close(outcomes["off_body"], F(5, 12))
    assert close(outcomes.get("hit", 0) + outcomes.get("stopped", 0), F(1, 12))
    assert [(loc.location, round(loc.p * 12, 12)) for loc in target.locations] == [("head", 1)]
    # The Rule of One: the one die a 1.
    assert close(target.glitch, F(1, 6)) and close(target.critical_glitch, F(1, 6))


def test_one_die_against_two_dodge_dice() -> None:
    """One attack die at 4 against two dodge dice at 4 (Table 8, no modifiers): the attack
    succeeds half the time; two dodge successes (1/4) are a clean miss, one (1/2) a tie (README:
    4 hexes from the torso: off the body whichever way), none (1/4) 1 net (3 hexes: the head
    one time in six)."""
    body = r.attack(
        attacker=r.attacker(skill=1),
        target=r.target(
            movement="walking", defender=r.defender(combat_pool=2), dodge={"combat_pool": 2}
        ),
    )
    (target,) = odds_of(body).targets
    outcomes = {o.outcome: o.p for o in target.outcomes}
    assert close(outcomes["miss"], F(1, 2))
    assert close(outcomes["dodged"], F(1, 8))
    assert close(outcomes["off_body"], F(1, 4) + F(1, 8) * F(5, 6))
    assert close(target.hit, F(1, 48))
    nets = {c.value: c.p for c in target.net_hits}
    assert close(nets[0], F(1, 2) + F(1, 8) + F(1, 4)) and close(nets[1], F(1, 8))


def test_the_goon_in_a_jacket_stops_carter_by_the_armour_test() -> None:
    """004's Carter example: the jacket's 6 dice against 9 - 6 = 3 stop a moderate shot with 4
    successes (Table 2): P = (C(6,4) 2^4 + C(6,5) 2^5 + 2^6) / 3^6 = 496/729, when the shot lands
    on the torso (30 dice at TN 3 fall short of 4 successes about once in 10^10)."""
    body = r.attack(attacker=r.attacker(skill=30))
    (target,) = odds_of(body).targets
    stopped = sum(comb(6, k) * 2**k for k in range(4, 7))
    assert stopped == 496
    outcomes = {o.outcome: o.p for o in target.outcomes}
    assert close(outcomes["stopped"], F(496, 729), 1e-6)
    # Two rounds of full auto (RC 2: both at TN 3), each with 4+ successes (no scatter): both
    # land on the torso, in one group of three, so one armour test stops both or neither.
    body = r.attack(attacker=r.attacker(skill=30), weapon=r.smg(power=9, recoil_compensation=2))
    (target,) = odds_of({**body, "mode": "FA", "rounds": 2}).targets
    assert close({o.outcome: o.p for o in target.outcomes}["stopped"], F(496, 729), 1e-6)


def test_two_rounds_of_full_auto_with_one_die_on_the_body_map() -> None:
    """Two rounds of full auto (recoil compensation 2: both at the base target number 4), one
    attack die, no dodge, no armour. The one die is both rounds' success (attack.tier_successes:
    the rounds share the tier), so half the time neither round is fired home (a miss); else
    each round has 1 net success: Table 1's 3 hexes, a d6 direction each, the second from where
    the first landed. From the torso's centre (column 2, row 3) the 36 pairs of directions
    give (body.py's map, worked out hex by hex):
    - up (1), onto the head (column 2, row 0); then down (4) back onto the torso: 1 pair;
      any other way off the figure: 5 pairs;
    - off the figure first (the five other ways), then back onto the torso: 5 pairs (2 then 5,
      3 then 6, 4 then 1, 5 then 2, 6 then 3), onto the head: 2 pairs (2 then 6, 6 then 2);
      off again: 23 pairs.
    So off the body 1/2 x 23/36 = 23/72, hit 1/2 x 13/36 = 13/72 (no armour stops it); the
    head is hit 1/2 x 8/36 = 1/9, the torso 1/2 x 6/36 = 1/12. A round's damage test has
    Power 7 less Table 3's 3 dice = 4 dice; its count (-1, 0, 0, +1, +1, +2 a die) stages
    Moderate below Light only at -4 (four ones, 1/1296): no wound at all on 12 of the landing
    pairs' single rounds with 1/1296 each, and on the one pair of two rounds with 1/1296^2."""
    body = r.attack(
        attacker=r.attacker(skill=1),
        weapon=r.smg(recoil_compensation=2),
        mode="FA",
        rounds=2,
        target=r.target(movement="walking", defender=r.defender(armor=[])),
    )
    built = attack.build_attack(request(body), HLState(), TURN)
    assert built.target_numbers == [4, 4]
    answer = odds_of(body)
    assert answer.method == "exact" and answer.sampling is None
    (target,) = answer.targets
    outcomes = {o.outcome: o.p for o in target.outcomes}
    assert set(outcomes) == {"miss", "off_body", "hit"}
    assert close(outcomes["miss"], F(1, 2))
    assert close(outcomes["off_body"], F(23, 72))
    assert close(outcomes["hit"], F(13, 72)) and close(target.hit, F(13, 72))
    locations = {loc.location: loc.p for loc in target.locations}
    assert set(locations) == {"head", "torso"}
    assert close(locations["head"], F(1, 9)) and close(locations["torso"], F(1, 12))
    assert {c.value: c.p for c in target.net_hits} == pytest.approx({0: 0.5, 1: 0.5}, abs=1e-12)
    assert close(target.glitch, F(1, 6))
    no_damage = {(d.boxes, d.level): d.p for d in target.damage}[(0, None)]
    single, double = F(12, 72), F(1, 72)
    expected = F(1, 2) + F(23, 72) + single * F(1, 1296) + double * F(1, 1296) ** 2
    assert close(no_damage, expected)


def test_automatic_fire_and_zone_tests_answer_exact() -> None:
    """A burst, a small full auto and a zone test of a few bullets are computed, not sampled:
    `method` says so, there is no `sampling`, and the seed changes nothing."""
    burst, state = EXACT_AUTOFIRE["burst, dodged"]
    one, other = odds_of(burst, state, seed=1, n=100), odds_of(burst, state, seed=2, n=100)
    assert one.method == "exact" and one.sampling is None
    assert msgspec.json.encode(one) == msgspec.json.encode(other)
    full_auto, state = EXACT_AUTOFIRE["full auto at the head, worn"]
    assert odds_of(full_auto, state).method == "exact"
    zone = msgspec.convert(zone_test_body(), HLZoneTestRequest)
    answer = HL.zone_test_odds(
        "zone-1", zone, zone_tests.zone_state(bullets_per_m2=1), TURN, 1, 100
    )
    assert answer.method == "exact" and answer.sampling is None


def test_the_damage_test_counts_ones_and_sixes() -> None:
    """004, "Damage Test" (no Rule of Six): a die counts -1 (a 1), 0 (2, 3), +1 (4, 5) or +2
    (a 6). Two dice: -2 1/36, -1 4/36, 0 8/36, 1 10/36, 2 8/36, 3 4/36, 4 1/36."""
    low, one = hl_odds.damage_test(1)
    assert low == -1 and [round(p * 6, 12) for p in one] == [1, 2, 2, 1]
    low, two = hl_odds.damage_test(2)
    assert low == -2 and [round(p * 36, 12) for p in two] == [1, 4, 8, 10, 8, 4, 1]


def test_a_light_shot_staged_by_three_damage_dice() -> None:
    """Power 1, Light, no armour, 30 attack dice at 3 (6+ net but about once in 10^8: Table 3's
    +2, three dice): every two of the count stage Light one level (004): -3 or -2 is below
    Light (1/216 + 3 * 2/216), -1 to 1 L, 2-3 M, 4-5 S, 6 D (three sixes, 1/216); the torso has
    no bonus or shift."""
    body = r.attack(
        attacker=r.attacker(skill=30),
        weapon=r.weapon(power=1, damage_level="L"),
        target=r.target(defender=r.defender(armor=[])),
    )
    (target,) = odds_of(body).targets
    damage = {(d.boxes, d.level): d.p for d in target.damage}
    assert close(damage[(0, None)], F(7, 216), 1e-6)
    assert close(damage[(10, "D")], F(1, 216), 1e-6)
    # M: counts 2 and 3 of three dice valued -1, 0, 0, 1, 1, 2 (by sixths).
    faces = [-1, 0, 0, 1, 1, 2]
    counts = Counter(a + b + c for a in faces for b in faces for c in faces)
    assert close(damage[(3, "M")], F(counts[2] + counts[3], 216), 1e-6)


# --- the state they read, the state they leave ------------------------------------------------


def test_the_odds_read_recoil_from_the_state_and_change_nothing() -> None:
    """A second semi-automatic shot in the phase has SR3's recoil +1: six dice at 4 instead of
    3 (no dodge: a miss is no success, (1/3)^6 then (1/2)^6)."""
    body = r.attack()
    state = HLState()
    before = msgspec.json.encode(state)
    first = odds_of(body, state).targets[0]
    assert msgspec.json.encode(state) == before
    assert close({o.outcome: o.p for o in first.outcomes}["miss"], F(1, 3**6))
    after = HL.resolve_attack(request(body), state, TURN, Dice(3)).state
    second = odds_of(body, after).targets[0]
    assert close({o.outcome: o.p for o in second.outcomes}["miss"], F(1, 2**6))


def test_the_odds_read_the_armour_a_hit_wore_down() -> None:
    body = r.attack(attacker=r.attacker(skill=12))
    fresh = odds_of(body).targets[0]
    # A seed whose shot got through at the torso: the jacket is worn there from then on.
    for seed in range(200):
        resolution = HL.resolve_attack(request(body), HLState(), TURN, Dice(seed))
        target = resolution.result.target
        assert target is not None
        if target.outcome == "hit" and target.hits[0].location == "torso":
            break
    worn_state = msgspec.structs.replace(
        resolution.state,
        actors={"goon": resolution.state.actors["goon"]},  # the shooter's recoil set aside
    )
    worn = worn_state.actors["goon"].armor
    assert worn is not None and worn[0].wear.get("torso", 0) > 0
    later = odds_of(body, worn_state).targets[0]
    stopped = {o.outcome: o.p for o in fresh.outcomes}["stopped"]
    assert {o.outcome: o.p for o in later.outcomes}["stopped"] < stopped


def test_automatic_fire_reads_the_rounds_fired_in_the_phase() -> None:
    body = r.attack(weapon=r.smg(), mode="BF")
    fresh = odds_of(body, n=500).targets[0]
    fired = HLState(actors={"carter": HLActorState(rounds_in_phase=6)})
    later = odds_of(body, fired, n=500).targets[0]
    assert later.damage_mean < fresh.damage_mean


# --- refusals ---------------------------------------------------------------------------------


def _refusal(call: Callable[[], object]) -> tuple[int, str, str | None, str]:
    with pytest.raises(RuleViolation) as refused:
        call()
    e = refused.value
    return e.status, e.kind, e.path, e.detail


def _resolve_refusal(call: Callable[[Dice], object]) -> tuple[int, str, str | None, str]:
    """resolve's refusal: before it rolls, or (no Willpower) on a hit, so the first seed of a
    few that is refused."""
    for seed in range(100):
        try:
            call(Dice(seed))
        except RuleViolation as e:
            return e.status, e.kind, e.path, e.detail
    raise AssertionError("resolve refused none of 100 seeds")


REFUSED: dict[str, tuple[dict[str, Any], HLState]] = {
    "too far": (r.attack(target=r.target(distance_m=5000)), HLState()),
    "itself": (r.attack(target=r.target(id="carter")), HLState()),
    "pool not left": (
        r.attack(attacker=r.attacker(combat_pool=3), pool=5),
        HLState(),
    ),
    "dodge pool unknown": (r.attack(target=r.target(dodge={"dodge_pool": 2})), HLState()),
    "dodge pool spent": (
        r.attack(
            target=r.target(defender=r.defender(dodge_skill=3), dodge={"dodge_pool": 2}),
        ),
        HLState(actors={"goon": HLActorState(dodge_pool=3, dodge_left=1)}),
    ),
    "no such mode": (r.attack(mode="FA"), HLState()),
    "no willpower": (
        r.attack(target=r.target(defender={"body": 4, "armor": []})),
        HLState(),
    ),
    "no willpower, full auto": (
        r.attack(weapon=r.smg(), mode="FA", target=r.target(defender={"body": 4})),
        HLState(),
    ),
    "suppression with a pool": (
        {
            "attacker": zone_tests.PETE,
            "weapon": zone_tests.SMG,
            "mode": "FA",
            "pool": 2,
            "suppression": {"area": zone_tests.SQUARE, "bullets_per_m2": 6},
        },
        HLState(),
    ),
    "attacker down": (r.attack(), HLState(actors={"carter": HLActorState(unconscious=True)})),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_odds_refuse_what_resolve_refuses(name: str) -> None:
    body, state = REFUSED[name]
    asked = request(body)
    refused = _resolve_refusal(lambda dice: HL.resolve_attack(asked, state, TURN, dice))
    assert _refusal(lambda: HL.attack_odds(asked, state, TURN, 1, 200)) == refused


ZONE_REFUSED: dict[str, tuple[str, dict[str, Any]]] = {
    "no such zone": ("zone-9", zone_test_body()),
    "its own zone": ("zone-1", zone_test_body(actor="pete")),
    "out of range": ("zone-1", zone_test_body(distance_m=5000)),
    "dodge pool unknown": ("zone-1", zone_test_body(dodge={"dodge_pool": 2})),
    "no willpower": ("zone-1", zone_test_body(defender={"body": 4})),
}


@pytest.mark.parametrize("name", sorted(ZONE_REFUSED))
def test_zone_test_odds_refuse_what_the_zone_test_refuses(name: str) -> None:
    zone, body = ZONE_REFUSED[name]
    asked = msgspec.convert(body, HLZoneTestRequest)
    state = zone_tests.zone_state()
    refused = _resolve_refusal(lambda dice: HL.resolve_zone_test(zone, asked, state, TURN, dice))
    assert _refusal(lambda: HL.zone_test_odds(zone, asked, state, TURN, 1, 200)) == refused
