"""The d100 odds (service/rules/d100/odds.py) against `resolve` and against the rules.

Statistical: each request is resolved with many seeds through the ruleset's own resolve_attack
and resolve_zone_test on the same state, and every probability the odds report is held to the
observed frequencies (tests/odds_check.py). By hand: the core test (rules-sources/README.md,
"d100": a roll of 1-100 at or under the Success Target succeeds with 1 + (ST - roll) div 10
hits), bonus dice, Passive Defense, both barrels and the split of the Success Target
(rules-sources/003_e47222605a1f2969.txt), counted with fractions. State: the odds read the zones
and action points the attack would, and refuse what it refuses.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import msgspec
import pytest

from schemas.d100 import (
    D100AttackRequest,
    D100AttackResult,
    D100State,
    D100TargetResult,
    D100ZoneTestRequest,
    D100ZoneTestResult,
)
from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from service.rules import RULESETS, RuleViolation
from service.rules.d100 import attack as d100_attack
from service.rules.d100 import odds
from service.rules.dice import Dice
from tests import d100_requests as make
from tests.odds_check import SAMPLES, Observed, check_distribution, check_probability, check_target

D100 = RULESETS["d100"]
F = Fraction
# The d10 table (docs/rulesets/d100.md): 1 head, 2 right arm, 3 left arm, 4-8 torso, 9 right
# leg, 10 left leg.
D10 = {
    "head": F(1, 10),
    "right_arm": F(1, 10),
    "left_arm": F(1, 10),
    "torso": F(5, 10),
    "right_leg": F(1, 10),
    "left_leg": F(1, 10),
}


def close(a: float, b: float | Fraction) -> bool:
    return abs(a - float(b)) < 1e-12


def attack_request(body: dict[str, Any]) -> D100AttackRequest:
    return msgspec.convert(body, D100AttackRequest)


def zone_request(body: dict[str, Any]) -> D100ZoneTestRequest:
    return msgspec.convert({"actor": "runner", **body}, D100ZoneTestRequest)


def attack_odds(body: dict[str, Any], state: D100State | None = None) -> AttackOdds:
    return D100.attack_odds(attack_request(body), state or D100State(), TurnState(), 1, 4000)


def zone_odds(zone: str, body: dict[str, Any], state: D100State) -> ZoneTestOdds:
    return D100.zone_test_odds(zone, zone_request(body), state, TurnState(), 1, 4000)


def resolved(body: dict[str, Any], state: D100State, seed: int) -> D100AttackResult:
    result = D100.resolve_attack(attack_request(body), state, TurnState(), Dice(seed)).result
    assert isinstance(result, D100AttackResult)
    return result


def observed(result: D100TargetResult | D100ZoneTestResult) -> Observed:
    """One target's (or zone test's) result in the odds' terms: the damage key is (damage
    points, None, the wound, the location)."""
    if isinstance(result, D100TargetResult):
        outcome, net = result.outcome, result.net_hits
    else:
        outcome, net = ("hit" if result.hit else str(result.avoided)), 0
    damage = result.damage
    if damage is None:
        return Observed(outcome, net)
    return Observed(
        outcome,
        net,
        (damage.damage, None, str(damage.wound), damage.location),
        locations=frozenset({damage.location}),
    )


def fired(shooter: str, x: float, y: float, roll: int, state: D100State) -> D100State:
    """`state` after `shooter`'s suppressive fire at (x, y) rolled `roll` (Marksmanship 50 at
    the medium band: 50, so a roll of 21 is 3 hits, -15)."""
    body = make.suppressive(x, y, attacker=make.attacker(id=shooter), dice={"suppression": [roll]})
    request = attack_request(body)
    resolution = D100.resolve_attack(request, state, TurnState(), Dice(1, request.dice))
    after = resolution.state
    assert isinstance(after, D100State)
    return after


# sniper's 3-hit zone-1 at (30, 0) (30 m: the medium band, 50; a roll of 21: 3 hits, -15),
# lookout's 1-hit zone-2 at (33, 0) over it (41: 1 hit), vex's own 2-hit zone-3 at (0, 20) where
# her target stands (31: 2 hits), and marksman's 3-hit zone-4 around vex at (0, 0) (0 m: the
# close band, 60; 31: 3 hits).
ZONES = D100State()
for _shooter, _x, _y, _roll in (
    ("sniper", 30, 0, 21),
    ("lookout", 33, 0, 41),
    ("vex", 0, 20, 31),
    ("marksman", 0, 0, 31),
):
    ZONES = fired(_shooter, _x, _y, _roll, ZONES)
assert [(z.zone.id, z.zone.hits) for z in ZONES.zones.values()] == [
    ("zone-1", 3),
    ("zone-2", 1),
    ("zone-3", 2),
    ("zone-4", 3),
]


# --- statistical: odds against many seeds of resolve ------------------------------------------

SHOTGUN = make.weapon(
    id="coach-gun", shot_rate=0, ammo=2, double_barreled=True, bonus_dice=2, armor_penetration=0
)

ATTACKS: list[tuple[str, dict[str, Any], D100State]] = [
    ("single shot", make.attack(), D100State()),
    (
        "every modifier",
        make.attack(
            attacker=make.attacker(wound_modifier=-10),
            weapon=make.weapon(bonus_dice=3, bonus_die=10),
            shot_rate=5,
            aim=20,
            modifiers=[{"source": "smartlink", "value": 5}],
            targets=[
                make.target(
                    distance_m=5,
                    visibility=-10,
                    modifiers=[{"source": "moving", "value": -5}],
                    defender=make.defender(
                        defense=45,
                        passive_defense=None,
                        armor=2,
                        armor_by_location={"head": 8, "torso": 5},
                        test_modifiers=[{"source": "wounded", "value": -10}],
                    ),
                )
            ],
        ),
        D100State(),
    ),
    (
        "multi-target fire",
        make.attack(
            shot_rate=3,
            targets=[
                make.target(id="near", distance_m=5, share_percent=50),
                make.target(id="far", distance_m=120, share_percent=30, defender={"armor": 6}),
                make.target(
                    id="called",
                    share_percent=20,
                    location="head",
                    defender=make.defender(defense=None, passive_defense=40, armor=1),
                ),
            ],
        ),
        D100State(),
    ),
    (
        "both barrels",
        make.attack(weapon=SHOTGUN, both_barrels=True, targets=[make.target(distance_m=8)]),
        D100State(),
    ),
    (
        # Marksmanship 130 at SR1: 135, all of it at "sure" (hits 4 to 13 against a defense of
        # 100, Passive Defense 95 and no bonus dice: much damage is 0), none at "hopeless" (0,
        # long range -20: it never succeeds).
        "sure and hopeless",
        make.attack(
            attacker=make.attacker(marksmanship=130),
            weapon=make.weapon(damage=0, bonus_dice=0),
            shot_rate=1,
            targets=[
                make.target(
                    id="sure",
                    share_percent=100,
                    defender=make.defender(defense=100, passive_defense=95, armor=1),
                ),
                make.target(id="hopeless", share_percent=0, distance_m=150),
            ],
        ),
        D100State(),
    ),
    (
        # vex stands in marksman's zone-4 (-15 on her attack); goon-1 in vex's own zone-3
        # (ended by her attacking: no penalty); goon-2 in zone-1 and zone-2 (the strongest,
        # -15, on its defense and Passive Defense).
        "in zones",
        make.attack(
            attacker=make.attacker(position={"x": 0, "y": 0}),
            shot_rate=2,
            targets=[
                make.target(
                    id="goon-1",
                    share_percent=50,
                    defender=make.defender(position={"x": 0, "y": 20}),
                ),
                make.target(
                    id="goon-2",
                    share_percent=50,
                    distance_m=31,
                    defender=make.defender(position={"x": 31, "y": 0}),
                ),
            ],
        ),
        ZONES,
    ),
]


@pytest.mark.parametrize(("case", "body", "state"), ATTACKS, ids=[c[0] for c in ATTACKS])
def test_attack_odds_match_many_seeds_of_resolve(
    case: str, body: dict[str, Any], state: D100State
) -> None:
    computed = attack_odds(body, state)
    assert computed.method == "exact" and computed.sampling is None
    assert [t.target for t in computed.targets] == [t["id"] for t in body["targets"]]
    seen: dict[str, list[Observed]] = {t.target: [] for t in computed.targets}
    any_hit = 0
    for seed in range(SAMPLES):
        result = resolved(body, state, seed)
        for target in result.targets:
            seen[target.target].append(observed(target))
        any_hit += any(t.outcome == "hit" for t in result.targets)
    for target in computed.targets:
        check_target(target, seen[target.target])
        # d100 has no glitch.
        assert target.glitch == target.critical_glitch == 0.0
    check_probability(f"{case}: any hit", computed.any_hit, any_hit, SAMPLES)
    assert close(computed.damage_mean, sum(t.damage_mean for t in computed.targets))


ZONE_TESTS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "athletics in a zone",
        "zone-1",
        {"athletics": 55, "defender": make.defender(armor_by_location={"torso": 6})},
    ),
    (
        "the strongest of two zones, a called location",
        "zone-2",
        {
            "athletics": 70,
            "location": "left_leg",
            "modifiers": [{"source": "fatigue", "value": -5}],
            "defender": {
                "passive_defense": 45,
                "armor": 4,
                "position": {"x": 31, "y": 0},
                "test_modifiers": [{"source": "wounded", "value": -10}],
            },
        },
    ),
    ("hit the dirt", "zone-1", {"athletics": 10, "avoid": "hit_the_dirt"}),
    ("hopeless", "zone-1", {"athletics": 10, "defender": {"armor": 50}}),
]


@pytest.mark.parametrize(("case", "zone", "body"), ZONE_TESTS, ids=[c[0] for c in ZONE_TESTS])
def test_zone_test_odds_match_many_seeds_of_resolve(
    case: str, zone: str, body: dict[str, Any]
) -> None:
    computed = zone_odds(zone, body, ZONES)
    assert (computed.zone, computed.actor, computed.method) == (zone, "runner", "exact")
    request = zone_request(body)
    seen = []
    for seed in range(SAMPLES):
        result = D100.resolve_zone_test(zone, request, ZONES, TurnState(), Dice(seed)).result
        assert isinstance(result, D100ZoneTestResult)
        seen.append(observed(result))
    check_target(computed.target, seen)


def test_suppressive_fire_has_no_targets_and_says_the_chance_of_its_zone() -> None:
    # Marksmanship 50, the medium band, visibility -10, a named +5: 45.
    body = make.suppressive()
    body["suppressive"] = {
        "origin": {"x": 0, "y": 0},
        "center": {"x": 30, "y": 0},
        "visibility": -10,
        "modifiers": [{"source": "tracer", "value": 5}],
    }
    computed = attack_odds(body)
    assert (computed.targets, computed.any_hit, computed.damage_mean) == ([], 0.0, 0.0)
    (note,) = computed.notes
    # 45 %: rolls 1-45; hits 1 + (45 - roll) div 10: 5 for 1-5, then 10 rolls each of 4, 3, 2,
    # 1: (5 * 5 + 10 * (4 + 3 + 2 + 1)) / 45 = 125 / 45 = 2.78.
    assert "Success Target 45" in note and "45.0 %" in note and "2.78 hits" in note
    assert "zones/{zone}/tests/odds" in note
    # The test's hits, as resolve rolls them (no zone is 0 hits).
    request = attack_request(body)
    build = d100_attack.build_suppression(request, d100_attack.build_attack(request, D100State()))
    hits = odds.test_hits(build.success_target)
    seen: Counter[int] = Counter()
    for seed in range(SAMPLES):
        zone = resolved(body, D100State(), seed).zone
        assert zone is not None
        seen[zone.test.hits] += 1
        assert (zone.zone is not None) == (zone.test.hits > 0)
    check_distribution("suppression hits", dict(enumerate(hits)), seen, SAMPLES)


# --- by hand: the rules' own numbers -----------------------------------------------------------


@pytest.mark.parametrize(
    ("success_target", "expected"),
    [
        # 50: rolls 41-50 one hit, 31-40 two, ..., 1-10 five; 51-100 none.
        (50, {0: F(1, 2), 1: F(1, 10), 2: F(1, 10), 3: F(1, 10), 4: F(1, 10), 5: F(1, 10)}),
        # 35: 26-35 one, 16-25 two, 6-15 three, 1-5 four.
        (35, {0: F(65, 100), 1: F(1, 10), 2: F(1, 10), 3: F(1, 10), 4: F(1, 20)}),
        # 1: only a 1 succeeds, with one hit.
        (1, {0: F(99, 100), 1: F(1, 100)}),
        # 0 or less never succeeds (no automatic success: docs/rulesets/d100.md).
        (0, {0: F(1)}),
        (-15, {0: F(1)}),
        # 100 always succeeds: 91-100 one hit ... 1-10 ten.
        (100, {h: F(1, 10) for h in range(1, 11)}),
        # 120: a roll of 100 has 1 + 20 div 10 = 3 hits, a roll of 1 has 1 + 119 div 10 = 12.
        (120, {h: F(1, 10) for h in range(3, 13)}),
    ],
)
def test_a_single_d100_test(success_target: int, expected: dict[int, Fraction]) -> None:
    hits = odds.test_hits(success_target)
    assert {h: p for h, p in enumerate(hits) if p} == pytest.approx(
        {h: float(p) for h, p in expected.items()}, abs=1e-12
    )
    assert close(sum(hits), 1)


def test_an_attack_against_an_active_defense() -> None:
    """50 against a defense of 30 (README: ties to the defender): the attack's hits are 1-5 at
    1/10 each; the defense rolls only on a success, 0 hits at 7/10, 1-3 at 1/10 each."""
    attack_hits = {a: F(1, 10) for a in range(1, 6)}
    defense_hits = {0: F(7, 10), 1: F(1, 10), 2: F(1, 10), 3: F(1, 10)}
    net: Counter[int] = Counter()
    for a, pa in attack_hits.items():
        for d, pd in defense_hits.items():
            if a > d:
                net[a - d] += pa * pd
    # Net 1: 1-0, 2-1, 3-2, 4-3 = 7/100 + 3/100; net 5: only 5-0, 7/100.
    assert dict(net) == {1: F(10, 100), 2: F(10, 100), 3: F(9, 100), 4: F(8, 100), 5: F(7, 100)}
    hit = sum(net.values())
    assert hit == F(44, 100)
    body = make.attack(weapon=make.weapon(bonus_dice=0), targets=[make.target(location="torso")])
    (target,) = attack_odds(body).targets
    assert close(target.hit, hit) and close(target.miss, 1 - hit) and target.graze == 0
    assert {o.outcome: o.p for o in target.outcomes} == pytest.approx(
        {"hit": 0.44, "miss": 0.56}, abs=1e-12
    )
    assert {c.value: c.p for c in target.net_hits} == pytest.approx(
        {0: 0.56, **{n: float(p) for n, p in net.items()}}, abs=1e-12
    )


def _damage(target: TargetOdds) -> dict[tuple[int, str | None, str | None], float]:
    return {(d.boxes, d.level, d.location): d.p for d in target.damage}


def _dice_sum(count: int, sides: int = 6) -> dict[int, Fraction]:
    """The sum of `count` dice, counted over every face."""
    total: dict[int, Fraction] = {0: F(1)}
    for _ in range(count):
        after: Counter[int] = Counter()
        for value, p in total.items():
            for face in range(1, sides + 1):
                after[value + face] += p / sides
        total = dict(after)
    return total


def _one_hit_at_ten(**weapon: Any) -> dict[str, Any]:
    # Success Target 10: rolls 1-10 succeed, each with 1 + (10 - roll) div 10 = 1 hit; no
    # defense, no Passive Defense: a hit (1/10) with 1 net hit, at the torso, armour 3 less
    # armour penetration 1: 2.
    return make.attack(
        attacker=make.attacker(marksmanship=10),
        weapon=make.weapon(**{"damage": 5, "armor_penetration": 1, **weapon}),
        targets=[make.target(location="torso", defender={"armor": 3})],
    )


def test_one_bonus_die() -> None:
    (target,) = attack_odds(_one_hit_at_ten(bonus_dice=1)).targets
    # 5 + d6 + 1: 7 to 12, each 1/6 of the hit; the wound 2 less.
    expected = {(5 + face + 1, str(face + 4), "torso"): F(1, 60) for face in range(1, 7)}
    # Hot bonus dice (README): a miss rolls none, it has no damage.
    expected[(0, None, None)] = F(9, 10)
    assert _damage(target) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)
    assert close(target.damage_mean, F(1, 10) * (6 + F(7, 2)))
    assert [(loc.location, loc.p) for loc in target.locations] == [("torso", pytest.approx(0.1))]


def test_two_bonus_dice() -> None:
    (target,) = attack_odds(_one_hit_at_ten(bonus_dice=2)).targets
    # 2d6: 2 to 12, (6 - |s - 7|)/36.
    expected = {
        (6 + s, str(4 + s), "torso"): F(1, 10) * F(6 - abs(s - 7), 36) for s in range(2, 13)
    }
    expected[(0, None, None)] = F(9, 10)
    assert _damage(target) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)


def test_both_barrels_double_the_bonus_dice_only() -> None:
    # "Double-Barreled Shotguns": 7 + 2d6 becomes 7 + 4d6; the test and its hits are one shot's.
    body = make.attack(
        attacker=make.attacker(marksmanship=10),
        weapon={**SHOTGUN, "damage": 7},
        both_barrels=True,
        targets=[make.target(location="torso", defender={"armor": 0})],
    )
    (target,) = attack_odds(body).targets
    expected = {(7 + s + 1, str(7 + s + 1), "torso"): F(1, 10) * p for s, p in _dice_sum(4).items()}
    expected[(0, None, None)] = F(9, 10)
    assert _damage(target) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)
    assert close(target.hit, F(1, 10))


def test_passive_defense_takes_a_point_a_hit() -> None:
    # Passive Defense 10: one hit on rolls 1-10 (1/10), else none; 5 + d6 + 1 - that.
    body = _one_hit_at_ten(bonus_dice=1)
    body["targets"][0]["defender"]["passive_defense"] = 10
    (target,) = attack_odds(body).targets
    expected: Counter[tuple[int, str | None, str | None]] = Counter()
    for face in range(1, 7):
        for passive, p in ((0, F(9, 10)), (1, F(1, 10))):
            dealt = 5 + face + 1 - passive
            expected[(dealt, str(dealt - 2), "torso")] += F(1, 60) * p
    expected[(0, None, None)] = F(9, 10)
    assert _damage(target) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)


def test_damage_never_below_zero_nor_the_wound() -> None:
    # Flat 0, no bonus dice, 1 net hit; Passive Defense 100 has 1 to 10 hits: always 0 damage,
    # and armour 3 less armour penetration 1 leaves the wound at 0.
    body = _one_hit_at_ten(bonus_dice=0, damage=0)
    body["targets"][0]["defender"]["passive_defense"] = 100
    (target,) = attack_odds(body).targets
    assert _damage(target) == pytest.approx({(0, None, None): 0.9, (0, "0", "torso"): 0.1})


def test_the_hit_location_table_and_armour_by_location() -> None:
    # The d10 table; armour 8 at the head, 2 elsewhere, armour penetration 3: 5 and 0.
    body = make.attack(
        attacker=make.attacker(marksmanship=10),
        weapon=make.weapon(damage=9, bonus_dice=0, armor_penetration=3),
        targets=[make.target(defender={"armor": 2, "armor_by_location": {"head": 8}})],
    )
    (target,) = attack_odds(body).targets
    assert {loc.location: loc.p for loc in target.locations} == pytest.approx(
        {k: float(F(1, 10) * p) for k, p in D10.items()}, abs=1e-12
    )
    # 9 + 1 net hit = 10; the wound 10 - 5 at the head, 10 - 0 elsewhere.
    expected = {(10, "5" if loc == "head" else "10", loc): F(1, 10) * p for loc, p in D10.items()}
    expected[(0, None, None)] = F(9, 10)
    assert _damage(target) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)


def test_multi_target_fire_splits_the_success_target() -> None:
    # The docs' example: 50 + 15 (SR3, Recoil Control 3) = 65 at 50/50: 33 and 32 (largest
    # remainder, the tie to the earlier); +10 close: 43; -20 long: 12. No defenses: a success
    # is a hit.
    body = make.attack(
        shot_rate=3,
        targets=[
            make.target(id="a", distance_m=5, share_percent=50, defender={}),
            make.target(id="b", distance_m=120, share_percent=50, defender={}),
        ],
    )
    computed = attack_odds(body)
    a, b = computed.targets
    assert close(a.hit, F(43, 100)) and close(b.hit, F(12, 100))
    # Each target is rolled apart: at least one hit.
    assert close(computed.any_hit, 1 - F(57, 100) * F(88, 100))
    assert "a 33, b 32" in computed.notes[1]


def test_a_zone_tests_cold_bonus_dice() -> None:
    # zone-1: sniper's 3 hits, -15. Athletics 55: 40, so a failure (a hit) is 60/100. Cold dice:
    # 7 + 2d6 whatever the test's hits, no net hits; armour 3 less armour penetration 2: 1.
    computed = zone_odds("zone-1", {"athletics": 55, "defender": {"armor": 3}}, ZONES).target
    assert close(computed.hit, F(6, 10)) and close(computed.miss, F(4, 10))
    assert {o.outcome: o.p for o in computed.outcomes} == pytest.approx(
        {"athletics": 0.4, "hit": 0.6}, abs=1e-12
    )
    assert [(c.value, c.p) for c in computed.net_hits] == [(0, pytest.approx(1.0))]
    expected = {
        (7 + s, str(6 + s), loc): F(6, 10) * F(6 - abs(s - 7), 36) * pl
        for s in range(2, 13)
        for loc, pl in D10.items()
    }
    expected[(0, None, None)] = F(4, 10)
    assert _damage(computed) == pytest.approx({k: float(p) for k, p in expected.items()}, abs=1e-12)
    assert close(computed.damage_mean, F(6, 10) * 14)


def test_hit_the_dirt_rolls_nothing() -> None:
    computed = zone_odds("zone-1", {"athletics": 10, "avoid": "dive_for_cover"}, ZONES).target
    assert [(o.outcome, o.p) for o in computed.outcomes] == [("dive_for_cover", 1.0)]
    assert (computed.hit, computed.miss, computed.damage_mean) == (0.0, 1.0, 0.0)


# --- state: what the odds read, and what they refuse ---------------------------------------------


def test_a_zone_around_the_shooter_lowers_the_odds_as_its_penalty_would() -> None:
    at = make.attacker(position={"x": 0, "y": 0})
    body = make.attack(attacker=at)
    before = attack_odds(body, D100State())
    inside = fired("sniper", 0, 0, 31, D100State())
    after = attack_odds(body, inside)
    assert after.targets[0].hit < before.targets[0].hit
    # Exactly the odds of the same shot with its -15 named.
    named = make.attack(attacker=at, modifiers=[{"source": "as the zone", "value": -15}])
    assert after == attack_odds(named, D100State())


def test_a_zone_around_the_defender_raises_the_odds_and_its_own_ends_when_it_fires() -> None:
    standing = make.defender(position={"x": 0, "y": 20})
    body = make.attack(targets=[make.target(defender=standing)])
    clear = attack_odds(body, D100State())
    theirs = attack_odds(body, fired("sniper", 0, 20, 21, D100State()))
    named = make.defender(test_modifiers=[{"source": "as the zone", "value": -15}])
    assert theirs == attack_odds(make.attack(targets=[make.target(defender=named)]), D100State())
    assert theirs.targets[0].hit > clear.targets[0].hit
    # vex's own zone ends as she attacks: it takes nothing off her target's defense.
    assert attack_odds(body, fired("vex", 0, 20, 21, D100State())) == clear


def test_the_odds_change_nothing() -> None:
    state = ZONES
    encoded = msgspec.json.encode(state)
    attack_odds(make.attack(), state)
    zone_odds("zone-1", {"athletics": 40}, state)
    assert msgspec.json.encode(state) == encoded


def _budget_spent(spent_by: int) -> D100State:
    state = D100State(action_point_budget=4)
    for seed in range(spent_by):
        after = D100.resolve_attack(attack_request(make.attack()), state, TurnState(), Dice(seed))
        assert isinstance(after.state, D100State)
        state = after.state
    return state


REFUSED_ATTACKS: list[tuple[str, dict[str, Any], D100State]] = [
    ("out of range", make.attack(targets=[make.target(distance_m=500)]), D100State()),
    (
        "second target out of range",
        make.attack(
            shot_rate=1,
            targets=[
                make.target(id="a", share_percent=50),
                make.target(id="b", share_percent=50, distance_m=300),
            ],
        ),
        D100State(),
    ),
    (
        "above the weapon's shot rate",
        make.attack(weapon=make.weapon(shot_rate=2), shot_rate=3),
        D100State(),
    ),
    ("out of ammo", make.attack(weapon=make.weapon(ammo=10), shot_rate=4), D100State()),
    (
        "SR0 at two",
        make.attack(
            targets=[make.target(id="a", share_percent=50), make.target(id="b", share_percent=50)]
        ),
        D100State(),
    ),
    (
        "aim at two",
        make.attack(
            shot_rate=1,
            aim=10,
            targets=[make.target(id="a", share_percent=50), make.target(id="b", share_percent=50)],
        ),
        D100State(),
    ),
    (
        "shares not 100",
        make.attack(
            shot_rate=1,
            targets=[make.target(id="a", share_percent=50), make.target(id="b", share_percent=40)],
        ),
        D100State(),
    ),
    ("no target", make.attack(targets=[]), D100State()),
    ("both barrels of an SMG", make.attack(both_barrels=True), D100State()),
    ("suppressive at SR2", make.suppressive(shot_rate=2), D100State()),
    ("suppressive out of range", make.suppressive(500, 0), D100State()),
    ("over the budget", make.attack(), _budget_spent(2)),
]


def _refusal(call: Any) -> tuple[str, str | None, str, int]:
    with pytest.raises(RuleViolation) as caught:
        call()
    error = caught.value
    return (error.detail, error.path, error.kind, error.status)


@pytest.mark.parametrize(
    ("case", "body", "state"), REFUSED_ATTACKS, ids=[c[0] for c in REFUSED_ATTACKS]
)
def test_the_odds_refuse_what_resolve_refuses(
    case: str, body: dict[str, Any], state: D100State
) -> None:
    by_resolve = _refusal(lambda: resolved(body, state, 1))
    assert _refusal(lambda: attack_odds(body, state)) == by_resolve


def test_within_the_budget_the_odds_answer() -> None:
    assert attack_odds(make.attack(), _budget_spent(1)).targets[0].hit > 0


@pytest.mark.parametrize(
    ("zone", "body"),
    [
        ("zone-9", {"athletics": 40}),
        ("zone-3", {"athletics": 40, "defender": {"position": {"x": 30, "y": 0}}}),
    ],
)
def test_zone_test_odds_refuse_what_resolve_refuses(zone: str, body: dict[str, Any]) -> None:
    request = zone_request(body)
    by_resolve = _refusal(
        lambda: D100.resolve_zone_test(zone, request, ZONES, TurnState(), Dice(1))
    )
    assert _refusal(lambda: zone_odds(zone, body, ZONES)) == by_resolve
