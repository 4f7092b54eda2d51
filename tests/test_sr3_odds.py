"""sr3's odds previews (service/rules/sr3/odds.py): against many seeds of `resolve_attack` on
the same request and state, every branch (miss, the Rule of One, dodged, resisted, hit at each
level, overflow); against values worked out by hand from the rules; against the state the
attack reads (recoil, aim, targets this phase, a spent Combat Pool); and refusing what the
attack refuses, as it refuses it.

"002" is rules-sources/002_65e09aecd368bc68.txt; "README" is rules-sources/README.md, "Shadowrun
3"; the SR3 tables are those docs/rulesets/sr3.md cites. The builders (tests/sr3_requests.py):
skill 4 and a Combat Pool of (5 + 4 + 3) / 2 = 6; an Ares Predator 9M SA; a ganger of Body 4,
Combat Pool (4 + 3 + 3) / 2 = 5, armour jacket 5 ballistic / 3 impact, 4 m away: heavy pistol
short range, standard vision TN 4 (002). Its resistance: Power 9 - 5 = TN 4.
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import comb
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds
from schemas.sr3 import SR3ActorState, SR3AttackRequest, SR3AttackResult, SR3State
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from service.rules.odds import NO_DAMAGE
from tests import sr3_requests as make
from tests.odds_check import SAMPLES, Observed, check_probability, check_target
from tests.test_sr3_rules import act, resolve

SR3 = RULESETS["sr3"]
F = Fraction
SEEDS = SAMPLES

RIFLE = make.weapon(
    id="ak",
    category="assault_rifle",
    power=8,
    damage_level="M",
    modes=["SA", "BF", "FA"],
    ammo=30,
    recoil_compensation=1,
)


def preview(
    body: dict[str, Any], state: SR3State | None = None, turn: TurnState | None = None
) -> AttackOdds:
    request = msgspec.convert(body, SR3AttackRequest)
    return SR3.attack_odds(request, state or SR3State(), turn or TurnState(), 1, 4000)


def the_target(body: dict[str, Any], state: SR3State | None = None) -> TargetOdds:
    answer = preview(body, state)
    assert answer.method == "exact" and answer.sampling is None
    (target,) = answer.targets
    return target


def resolved(request: SR3AttackRequest, state: SR3State, seed: int) -> SR3AttackResult:
    """The attack rolled with server dice from `seed`, through the ruleset's resolve_attack."""
    result = SR3.resolve_attack(request, state, TurnState(), Dice(seed)).result
    assert isinstance(result, SR3AttackResult)
    return result


def observed(result: SR3AttackResult) -> Observed:
    """One resolution in the odds' terms: the result's outcome, net successes (after the
    dodge), damage key and the Rule of One (sr3's glitch and critical glitch)."""
    hurt = result.target.damage
    key = (
        (hurt.boxes, hurt.track, hurt.level, None)
        if hurt is not None and hurt.level is not None
        else NO_DAMAGE
    )
    return Observed(
        outcome=result.target.outcome,
        net=result.target.net_successes,
        damage=key,
        glitch=result.attack.rule_of_one,
        critical_glitch=result.attack.rule_of_one,
    )


def close(a: float, b: Fraction | float) -> bool:
    return abs(a - float(b)) < 1e-12


def outcome(target: TargetOdds, name: str) -> float:
    return next((o.p for o in target.outcomes if o.outcome == name), 0.0)


def damage_of(target: TargetOdds) -> dict[str | None, float]:
    return {d.level: d.p for d in target.damage}


def net_of(target: TargetOdds) -> dict[int, float]:
    return {c.value: c.p for c in target.net_hits}


def overflow_noted(target: TargetOdds) -> float:
    for note in target.notes:
        found = re.match(r"overflow .*: ([0-9.]+)%", note)
        if found:
            return float(found.group(1)) / 100
    return 0.0


# --- against resolve_attack, many seeds -------------------------------------------------------

STATISTICAL: list[tuple[str, dict[str, Any], SR3State]] = [
    (
        # Every branch at once: misses (some by the Rule of One), dodged, resisted, L/M/S.
        "semi-automatic, pool dice to attack, dodge and resistance",
        make.attack(pool=2, target=make.target(dodge=2, resist=1)),
        SR3State(),
    ),
    (
        # One die: the Rule of One a sixth of the time; no dodge committed.
        "one die, no dodge",
        make.attack(attacker=make.attacker(skill=1)),
        SR3State(),
    ),
    (
        # Recoil from the state: 3 rounds already this phase + the burst's 3, less 1: +5; a
        # smartlink at medium range 3: TN 8 by the Rule of Six. The burst's dodge is at 5,
        # its damage 11S stun.
        "burst after a burst, stun, Rule of Six",
        make.attack(
            weapon={**RIFLE, "damage_type": "stun"},
            mode="BF",
            pool=4,
            sight="smartlink",
            target=make.target(distance_m=60, dodge=3),
        ),
        SR3State(actors={"sam": SR3ActorState(combat_pool=6, pool_left=6, rounds_in_phase=3)}),
    ),
    (
        # Ten rounds: 8 + 10 Power, M + 3 levels (Deadly, a stage past it already); the dodge
        # at 4 + 3 = 7; resistance at 18 - 5 = 13.
        "full auto, overflow",
        make.attack(
            weapon={**RIFLE, "recoil_compensation": 9},
            mode="FA",
            rounds=10,
            pool=3,
            target=make.target(dodge=4, resist=1),
        ),
        SR3State(),
    ),
    (
        # A launch weapon fired indirectly: standard vision's long launch number 8, the
        # smartlink-2's -1: 7; a heavy weapon.
        "grenade launcher, indirect, long",
        make.attack(
            weapon=make.weapon(
                id="m79", category="grenade_launcher", power=10, damage_level="S", modes=["SS"]
            ),
            mode="SS",
            indirect=True,
            sight="smartlink_2",
            target=make.target(distance_m=120, dodge=1),
        ),
        SR3State(),
    ),
    (
        # A bow meets impact armour: 3 - 3, TN 2; Body 4 + 2 at 2: resisted most often.
        "bow against impact armour, resisted",
        make.attack(
            attacker=make.attacker(strength=4),
            weapon=make.weapon(
                id="bow", category="bow", power=3, damage_level="L", modes=["SS"], ammo=10
            ),
            mode="SS",
            target=make.target(distance_m=3, resist=2),
        ),
        SR3State(),
    ),
    (
        # Laser sight short 3; 2 aims -2; a second target +2; partial cover +4; wounds L +1;
        # a stationary target -1; partial light +2; a called shot +4: TN 13.
        "every situation modifier, aim and targets from the state",
        make.attack(
            attacker=make.attacker(wounds="L"),
            sight="laser_sight",
            pool=4,
            called_shot=True,
            visibility={"light": "partial"},
            target=make.target(cover="partial", movement="stationary", dodge=1),
        ),
        SR3State(
            actors={
                "sam": SR3ActorState(
                    combat_pool=6, pool_left=6, aims=3, targets_in_phase=["goon-2"]
                )
            }
        ),
    ),
    (
        # Ten dice against a dodge of six, both at 4.
        "ten dice against a dodge of six",
        make.attack(
            attacker=make.attacker(skill=10),
            target=make.target(dodge=6, resist=2, defender=make.defender(combat_pool=10, body=5)),
        ),
        SR3State(),
    ),
]


@pytest.mark.parametrize(
    ("body", "state"), [(b, s) for _, b, s in STATISTICAL], ids=[n for n, _, _ in STATISTICAL]
)
def test_the_odds_match_many_seeds_of_resolve(body: dict[str, Any], state: SR3State) -> None:
    answer = preview(body, state)
    (target,) = answer.targets
    request = msgspec.convert(body, SR3AttackRequest)
    results = [resolved(request, state, seed) for seed in range(SEEDS)]
    seen = [observed(result) for result in results]
    check_target(target, seen)
    touched = sum(o.outcome in ("hit", "resisted") for o in seen)
    check_probability("any hit", answer.any_hit, touched, SEEDS)
    assert answer.any_hit == target.hit and answer.damage_mean == target.damage_mean
    # Overflow is in the notes (the damage key has no field for it), rounded to 0.1 %.
    overflowed = sum(r.target.damage is not None and r.target.damage.overflow > 0 for r in results)
    noted = overflow_noted(target)
    sigma = (noted * (1 - noted) / SEEDS) ** 0.5
    assert abs(noted - overflowed / SEEDS) <= 5 * sigma + 0.0005 + 1 / SEEDS
    assert (noted > 0) == (overflowed > 0) or noted < 0.001


def test_the_statistical_cases_cover_every_outcome_and_level() -> None:
    """The cases above reach every outcome of the result, every level and overflow."""
    outcomes: set[str] = set()
    levels: set[str | None] = set()
    overflow = False
    for _, body, state in STATISTICAL:
        target = the_target(body, state)
        outcomes |= {o.outcome for o in target.outcomes if o.p > 0.01}
        levels |= {d.level for d in target.damage if d.p > 0.01}
        overflow = overflow or overflow_noted(target) > 0.01
        assert target.glitch > 0
    assert outcomes == {"hit", "miss", "dodged", "resisted"}
    assert levels == {None, "L", "M", "S", "D"}
    assert overflow


# --- by hand, from the rules ------------------------------------------------------------------


def test_one_die() -> None:
    """One die at TN 4 (002: heavy pistol, 4 m, short, standard vision): a success 3/6; the
    Rule of One 1/6 (README). No dodge. Resistance: Body 4 at TN 9 - 5 = 4, each 1/2. SR3
    crib sheet: the net successes 1 - r stage by twos: r <= 2 leaves M (1 - 2 = -1 is no
    stage), r = 3 or 4 stage down once: L. P(r <= 2) = (1 + 4 + 6) / 16."""
    target = the_target(make.attack(attacker=make.attacker(skill=1)))
    assert close(target.hit, F(1, 2)) and close(target.miss, F(1, 2))
    assert close(outcome(target, "hit"), F(1, 2)) and outcome(target, "dodged") == 0
    assert close(target.glitch, F(1, 6)) and close(target.critical_glitch, F(1, 6))
    assert net_of(target).keys() == {0, 1} and close(net_of(target)[1], F(1, 2))
    levels = damage_of(target)
    assert levels.keys() == {None, "L", "M"}
    assert close(levels["M"], F(1, 2) * F(11, 16)) and close(levels["L"], F(1, 2) * F(5, 16))
    # SR3 p. 125: M 3 boxes, L 1.
    assert close(target.damage_mean, F(1, 2) * (F(11, 16) * 3 + F(5, 16) * 1))
    assert {(d.boxes, d.track) for d in target.damage if d.level} == {
        (1, "physical"),
        (3, "physical"),
    }


def test_two_dice_at_five() -> None:
    """Two dice at TN 5 (002: 10 m is a heavy pistol's medium band): each 2/6. Successes 0, 1,
    2: 4/9, 4/9, 1/9; the Rule of One (both 1) 1/36."""
    target = the_target(
        make.attack(attacker=make.attacker(skill=2), target=make.target(distance_m=10))
    )
    assert close(target.miss, F(4, 9))
    net = net_of(target)
    assert close(net[0], F(4, 9)) and close(net[1], F(4, 9)) and close(net[2], F(1, 9))
    assert close(target.glitch, F(1, 36))


def test_target_numbers_above_six_by_the_rule_of_six() -> None:
    """README, Rule of Six: a 6 is rolled again and added. TN 9 (002: 50 m is a heavy pistol's
    extreme band) is a 6 then 3-6: 1/6 * 4/6 = 1/9 a die; two dice miss (8/9)^2. TN 13 (a
    called shot, +4, SR3 modifiers) is 6, 6, then anything: 1/36 a die. TN 7 (long band 6,
    attacker walking +1) has the odds of TN 6: 1/6."""
    extreme = make.target(distance_m=50)
    two = make.attacker(skill=2)
    assert close(the_target(make.attack(attacker=two, target=extreme)).miss, F(64, 81))
    called = the_target(make.attack(attacker=two, target=extreme, called_shot=True))
    assert close(called.miss, F(35, 36) ** 2)
    one = make.attacker(skill=1)
    seven = the_target(
        make.attack(attacker=one, target=make.target(distance_m=30), movement="walking")
    )
    six = the_target(make.attack(attacker=one, target=make.target(distance_m=30)))
    assert close(seven.miss, F(5, 6)) and close(six.miss, F(5, 6))
    # The Rule of One does not care for the target number.
    assert close(called.glitch, F(1, 36)) and close(seven.glitch, F(1, 6))


def test_ten_dice_against_a_dodge_of_six() -> None:
    """Ten attack dice and a dodge of six dice, all at TN 4 (a single shot's dodge, SR3 crib
    sheet), each die 1/2. A - D + 6 = A + (6 - D) is 16 fair coins: n net successes left is
    C(16, 6 + n) / 2^16; no attack success 1/2^10 (a miss, the dodge not rolled); the rest,
    A <= D with A > 0, dodged."""
    target = the_target(
        make.attack(
            attacker=make.attacker(skill=10),
            target=make.target(dodge=6, resist=2, defender=make.defender(combat_pool=10)),
        )
    )
    coins = 2**16
    assert close(outcome(target, "miss"), F(1, 2**10))
    dodged = F(sum(comb(16, k) for k in range(7)), coins) - F(1, 2**10)
    assert close(outcome(target, "dodged"), dodged)
    net = net_of(target)
    for n in range(1, 11):
        assert close(net[n], F(comb(16, 6 + n), coins)), n
    assert close(net[0], F(1, 2**10) + dodged)
    assert close(target.hit, F(sum(comb(16, k) for k in range(7, 17)), coins))
    assert close(target.glitch, F(1, 6**10))


def test_a_light_wound_resisted() -> None:
    """A bow (3L) against impact armour 3 (002: impact projectiles meet impact armour): TN
    max(2, 3 - 3) = 2 (README), each Body die 5/6. One attack die (1/2 at TN 4, 002: 3 m is
    short at Strength 4): one net success. 1 - r stages down once from r = 3 (1 - 3 = -2):
    below Light, resisted, with Body 3: (5/6)^3."""
    target = the_target(
        make.attack(
            attacker=make.attacker(skill=1, strength=4),
            weapon=make.weapon(
                id="bow", category="bow", power=3, damage_level="L", modes=["SS"], ammo=10
            ),
            mode="SS",
            target=make.target(distance_m=3, defender=make.defender(body=3)),
        )
    )
    assert close(outcome(target, "resisted"), F(1, 2) * F(125, 216))
    assert close(outcome(target, "hit"), F(1, 2) * F(91, 216))
    # A resisted hit touched the target: it counts as a hit, with no damage.
    assert close(target.hit, F(1, 2))
    assert close(damage_of(target)[None], F(1, 2) + F(1, 2) * F(125, 216))
    assert close(target.damage_mean, F(1, 2) * F(91, 216))


# --- the state the attack reads ---------------------------------------------------------------

ONE_DIE = make.attack(attacker=make.attacker(skill=1))


def test_recoil_from_the_state_and_a_new_phase() -> None:
    """SR3 modifiers, "Recoil": a second semi-automatic shot in a phase is +1: one die at TN 5
    (2/6). A new action phase starts the count again: 1/2."""
    before = the_target(ONE_DIE)
    _, state = resolve(ONE_DIE)
    after = the_target(ONE_DIE, state)
    assert close(before.hit, F(1, 2)) and close(after.hit, F(1, 3))
    request = msgspec.convert(ONE_DIE, SR3AttackRequest)
    next_phase = SR3.attack_odds(request, state, TurnState(phase=1), 1, 4000)
    assert close(next_phase.targets[0].hit, F(1, 2))
    assert "recoil +1" in preview(ONE_DIE, state).notes[0]


def test_aim_and_a_second_target_from_the_state() -> None:
    """SR3 modifiers: an aimed shot -1 per simple action, at most half the skill (2: one); a
    second target in the phase +2. Two dice at 4: miss 1/4; aimed, at 3: 1/9."""
    two = make.attack(attacker=make.attacker(skill=2))
    _, state = act("take_aim", SR3State())
    _, state = act("take_aim", state)
    assert close(the_target(two).miss, F(1, 4))
    assert close(the_target(two, state).miss, F(1, 9))
    # A shot at goon-1, then one at goon-2: +1 recoil, +2 for the second target: TN 7, the
    # odds of 6: (5/6)^2.
    _, shot = resolve(two)
    other = make.attack(attacker=make.attacker(skill=2), target=make.target(id="goon-2"))
    assert close(the_target(other, shot).miss, F(25, 36))


def test_the_combat_pool_as_the_state_keeps_it() -> None:
    """SR3 pools: Sam's 6 dice, 4 spent on a shot: 2 left. A preview asking 4 more is refused
    as the attack is (409); 2 are fine. The preview spends nothing."""
    spend = make.attack(pool=4)
    _, state = resolve(spend)
    assert state.actors["sam"].pool_left == 2
    with pytest.raises(RuleViolation) as by_resolve:
        resolve(spend, state)
    with pytest.raises(RuleViolation) as by_odds:
        preview(spend, state)
    assert by_resolve.value.status == by_odds.value.status == 409
    assert _refusal(by_odds.value) == _refusal(by_resolve.value)
    kept = msgspec.json.encode(state)
    two = preview(make.attack(pool=2), state)
    assert msgspec.json.encode(state) == kept
    # Six dice (4 + 2) at 4 after one shot's recoil: 5, each 1/3.
    assert close(two.targets[0].miss, F(2, 3) ** 6)
    # The defender's two commitments come out of one pool: 5, of which 3 + 3 is too many.
    both = make.attack(target=make.target(dodge=3, resist=3))
    with pytest.raises(RuleViolation) as too_many:
        preview(both)
    assert (too_many.value.kind, too_many.value.path) == (
        "combat-pool-exhausted",
        "$.target.resist",
    )


def test_the_odds_read_the_tests_resolve_builds() -> None:
    """The preview's target numbers are those of the resolved attack on the same state."""
    for _, body, state in STATISTICAL:
        request = msgspec.convert(body, SR3AttackRequest)
        result = resolved(request, state, 3)
        notes = preview(body, state).notes
        assert f"against target number {result.attack.target_number} (" in notes[0]
        text = ", ".join(
            f"{m.source} {m.value:+d}" if i else f"{m.source} {m.value}"
            for i, m in enumerate(result.attack.modifiers)
        )
        assert text in notes[0]


# --- refusals, as the attack's ----------------------------------------------------------------


def _refusal(violation: RuleViolation) -> tuple[Any, ...]:
    return (violation.status, violation.kind, violation.path, str(violation))


@pytest.mark.parametrize(
    ("body", "state"),
    [
        (make.attack(mode="BF"), None),  # mode-not-available
        (make.attack(pool=5), None),  # too-many-pool-dice
        (make.attack(target=make.target(distance_m=61)), None),  # out-of-range
        (make.attack(weapon=make.weapon(ammo=0)), None),  # out-of-ammo
        (make.attack(target=make.target(id="sam")), None),  # itself
        (make.attack(indirect=True), None),
        (make.attack(weapon=make.weapon(category="bow")), None),  # strength-needed
        (make.attack(attacker={"id": "sam", "skill": 4}, pool=1), None),  # pool unknown
        (make.attack(rounds=3), None),
        (
            make.attack(target=make.target(dodge=1)),
            SR3State(actors={"goon-1": SR3ActorState(combat_pool=5, pool_left=0)}),
        ),
    ],
)
def test_refusals_are_the_attacks(body: dict[str, Any], state: SR3State | None) -> None:
    with pytest.raises(RuleViolation) as by_resolve:
        resolve(body, state)
    with pytest.raises(RuleViolation) as by_odds:
        preview(body, state)
    assert _refusal(by_odds.value) == _refusal(by_resolve.value)


def test_zone_test_odds_are_refused_as_zone_tests_are() -> None:
    from schemas.sr3 import SR3ZoneTestRequest

    request = SR3ZoneTestRequest(actor="sam")
    with pytest.raises(RuleViolation) as by_resolve:
        SR3.resolve_zone_test("zone-1", request, SR3State(), TurnState(), Dice(1))
    with pytest.raises(RuleViolation) as by_odds:
        SR3.zone_test_odds("zone-1", request, SR3State(), TurnState(), 1, 4000)
    assert _refusal(by_odds.value) == _refusal(by_resolve.value)
    assert by_odds.value.kind == "no-zones"
