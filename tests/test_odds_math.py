"""The exact distributions of service/rules/odds.py against hand-computed cases, and the
statistical checks of tests/odds_check.py against distributions they must reject."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from service.rules import odds
from service.rules.dice import Dice
from tests.odds_check import (
    ALPHA_BINOMIAL,
    Z_BINOMIAL,
    Observed,
    binomial_range,
    check_distribution,
    check_target,
)

F = Fraction


def close(a: float, b: float | Fraction) -> bool:
    return abs(a - float(b)) < 1e-12


def test_one_die() -> None:
    # A d6: 5 and 6 hit (1/3); a single 1 is more than half the pool (SR5) and half or more
    # (SR4): a glitch, and with no hit a critical glitch.
    for edition in ("sr5", "sr4"):
        one = odds.pool(1, edition)
        assert close(one.hits[0], F(2, 3)) and close(one.hits[1], F(1, 3))
        assert close(one.glitch, F(1, 6)) and close(one.critical_glitch, F(1, 6))


def test_two_dice() -> None:
    two = odds.pool(2, "sr5")
    assert [round(p * 81) for p in two.hits] == [36, 36, 9]  # 4/9, 4/9, 1/9
    # SR5: both dice 1 (1/36), never with a hit.
    assert close(two.glitch, F(1, 36)) and close(two.critical_glitch, F(1, 36))
    # SR4: one 1 is half the pool. With a hit beside it: 2 * 1/6 * 1/3 = 4/36; with none: a 1 and
    # a 2-4 (2 * 1/6 * 1/2 = 6/36) or two 1s (1/36).
    two4 = odds.pool(2, "sr4")
    assert close(two4.glitch_with[1], F(4, 36)) and close(two4.critical_glitch, F(7, 36))
    assert close(two4.glitch, F(11, 36))


def test_one_die_exploding() -> None:
    # 1-4: no hit (4/6). 5: one hit; a 6 then 1-4: one hit (1/6 + 1/6 * 4/6 = 10/36).
    # 6 then 5, or 6, 6, 1-4: two hits (1/36 + 1/36 * 4/6 = 10/216).
    one = odds.pool(1, "sr5", explode=True)
    assert close(one.hits[0], F(4, 6))
    assert close(one.hits[1], F(10, 36))
    assert close(one.hits[2], F(10, 216))
    assert close(sum(one.hits), 1)
    # Sixes explode for more hits only: the glitch is still the one die's 1.
    assert close(one.glitch, F(1, 6))
    # Each die adds a third of a hit, and each six one fifth more (1/6 * 6/5 = 1/5 * ... ):
    # E[hits of an exploding die] = 1/3 + 1/6 * E = 2/5.
    assert abs(odds.mean(one.hits) - 0.4) < 1e-12


def test_a_pool_of_ten_against_six() -> None:
    """SR5's opposed test of 10 dice against 6, counted by hand from two binomials: the
    attacker needs more hits (a hit), a tie grazes, fewer misses."""

    def bin3(n: int, k: int) -> Fraction:
        return comb(n, k) * F(1, 3) ** k * F(2, 3) ** (n - k)

    hit = sum(bin3(10, a) * bin3(6, d) for a in range(11) for d in range(7) if a > d)
    tie = sum(bin3(10, a) * bin3(6, a) for a in range(7))
    attack, defense = odds.pool(10, "sr5").hits, odds.pool(6, "sr5").hits
    assert close(sum(attack[a] * defense[d] for a in range(11) for d in range(7) if a > d), hit)
    assert close(sum(attack[a] * defense[a] for a in range(7)), tie)
    # Over 3**16 equally likely (hit or not) patterns of the 16 dice: 66.85 %.
    assert hit == F(28778273, 3**16)
    # The glitch: 6 or more ones of 10 (SR5: more than half).
    glitch = sum(comb(10, o) * F(1, 6) ** o * F(5, 6) ** (10 - o) for o in range(6, 11))
    assert close(odds.pool(10, "sr5").glitch, glitch)


def test_pools_match_dice_counting() -> None:
    """Every (hits, glitch) of small pools, enumerated over all faces with dice.py's count."""
    from itertools import product

    from service.rules.dice import count_pool

    for edition in ("sr5", "sr4"):
        for n in range(1, 5):
            hits: Counter[int] = Counter()
            glitch: Counter[int] = Counter()
            for faces in product(range(1, 7), repeat=n):
                counted = count_pool(faces, n, edition)
                hits[counted.hits] += 1
                glitch[counted.hits] += counted.glitch
            computed = odds.pool(n, edition)
            for h in range(n + 1):
                assert close(computed.hits[h], F(hits[h], 6**n))
                assert close(computed.glitch_with[h], F(glitch[h], 6**n))


def test_target_numbers_by_the_rule_of_six() -> None:
    assert close(odds.die_reaches(2), F(5, 6))
    assert close(odds.die_reaches(4), F(1, 2))
    assert close(odds.die_reaches(6), F(1, 6))
    assert close(odds.die_reaches(7), F(1, 6))  # a 6, then anything
    assert close(odds.die_reaches(8), F(5, 36))  # a 6, then 2 or more
    assert close(odds.die_reaches(12), F(1, 36))
    assert close(odds.die_reaches(13), F(1, 36))  # 6, 6, then anything
    assert close(odds.die_reaches(14), F(5, 216))
    two = odds.target_number_test(2, 5)
    assert [round(p * 9) for p in two.successes] == [4, 4, 1]
    assert close(two.all_ones, F(1, 36))


def test_target_number_tests_match_dice() -> None:
    """dice.py's target_number_test, many seeds: the same distribution."""
    for dice_count, tn in ((3, 4), (2, 9), (4, 13)):
        expected = odds.target_number_test(dice_count, tn)
        n = 20000
        seen: Counter[int] = Counter()
        ones = 0
        for seed in range(n):
            roll = Dice(seed).target_number_test("t", dice_count, tn)
            seen[roll.successes] += 1
            ones += roll.all_ones
        check_distribution(
            f"{dice_count} dice at TN {tn}",
            dict(enumerate(expected.successes)),
            seen,
            n,
        )
        check_distribution(
            "all ones",
            {1: expected.all_ones, 0: 1 - expected.all_ones},
            Counter({1: ones, 0: n - ones}),
            n,
        )


def test_exploding_pools_match_dice() -> None:
    expected = odds.pool(8, "sr5", explode=True)
    n = 20000
    seen: Counter[int] = Counter()
    glitches = 0
    for seed in range(n):
        roll = Dice(seed).pool("p", 8, "sr5", explode=True)
        seen[roll.hits] += 1
        glitches += roll.glitch
    check_distribution("8 exploding dice", dict(enumerate(expected.hits)), seen, n)
    check_distribution(
        "their glitch",
        {1: expected.glitch, 0: 1 - expected.glitch},
        Counter({1: glitches, 0: n - glitches}),
        n,
    )


def test_the_checks_can_fail() -> None:
    """A distribution off by a little, an outcome called impossible, a wrong glitch: each fails."""
    rng = random.Random(7)
    n = 20000
    true = odds.pool(6, "sr5").hits
    draws = Counter(rng.choices(range(len(true)), weights=true, k=n))
    check_distribution("true", dict(enumerate(true)), draws, n)
    # 3 points of probability moved from 1 hit to 2 hits.
    wrong = list(true)
    wrong[1] -= 0.03
    wrong[2] += 0.03
    with pytest.raises(AssertionError, match="wrong"):
        check_distribution("wrong", dict(enumerate(wrong)), draws, n)
    # The odds leave out an outcome that happened.
    with pytest.raises(AssertionError, match="impossible"):
        check_distribution(
            "cut",
            {k: p for k, p in enumerate(true) if k < 5} | {0: true[0] + sum(true[5:])},
            draws,
            n,
        )
    tally = odds.Tally("t", touched=frozenset({"hit"}))
    tally.add(0.5, "hit", 1, (3, "physical", None, None), glitch=True)
    tally.add(0.5, "miss")
    observed = [Observed("hit", 1, (3, "physical", None, None), glitch=True)] * (n // 2) + [
        Observed("miss")
    ] * (n // 2)
    check_target(tally.odds(), observed)
    tally.glitch = 0.45
    with pytest.raises(AssertionError, match="glitch"):
        check_target(tally.odds(), observed)


def test_the_binomial_bound_leaves_chance_its_stated_share() -> None:
    """Each probability's bound is the binomial's own: below its fewest and above its most, chance
    alone comes at most ALPHA_BINOMIAL / 2 each side, and one count further in, more (summed as
    fractions). Rare, middling and near-certain outcomes alike."""
    half = F(ALPHA_BINOMIAL) / 2
    for p, n in [
        (F(1, 200_000), 300),
        (F(1, 1000), 400),
        (F(1, 6), 60),
        (F(1, 5), 350),
        (F(1, 2), 200),
        (F(999, 1000), 300),
    ]:
        fewest, most = binomial_range(float(p), n)
        chance = [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        assert sum(chance[:fewest]) <= half < sum(chance[: fewest + 1]), (p, n, fewest)
        assert sum(chance[most + 1 :]) <= half < sum(chance[most:]), (p, n, most)
    assert binomial_range(0.0, 100) == (0, 0) and binomial_range(1.0, 100) == (100, 100)


def test_a_rare_outcome_may_come_twice_by_chance() -> None:
    """A damage cell of automatic fire at 5e-6 in 8000 resolutions (0.04 expected) comes twice by
    chance about once in 1,300 runs, three times once in 100,000 (Poisson), more than 5.7e-7 each:
    the normal curve's 5 deviations and one (at most once) failed a distribution of some 400 such
    cells one run in 40. Four times (once in 10 million) is still a failure. Where many are
    expected the bound is the normal curve's, within a few counts (its skew)."""
    n, p = 8000, 5e-6
    rare = {("cell", i): p for i in range(400)}
    expected = {**rare, "none": 1 - sum(rare.values())}
    seen = Counter({("cell", 0): 2, ("cell", 1): 3, "none": n - 5})
    check_distribution("rare", expected, seen, n)
    seen = Counter({("cell", 0): 4, "none": n - 4})
    with pytest.raises(AssertionError, match=r"\('cell', 0\) came 4 times"):
        check_distribution("rare", expected, seen, n)
    for p, n in [(0.3, 8000), (0.5, 20000), (0.05, 6000)]:
        fewest, most = binomial_range(p, n)
        sigma = (n * p * (1 - p)) ** 0.5
        assert abs(fewest - (n * p - Z_BINOMIAL * sigma)) <= 5
        assert abs(most - (n * p + Z_BINOMIAL * sigma)) <= 5


def test_tally_sums_and_summaries() -> None:
    tally = odds.Tally("t", touched=frozenset({"hit", "resisted"}), grazed=frozenset({"graze"}))
    tally.add(0.25, "hit", 2, (4, "physical", None, None), locations=("head", "head"))
    tally.add(0.25, "resisted", 1)
    tally.add(0.125, "graze")
    tally.add(0.375, "miss")
    result = tally.odds()
    assert result.hit == 0.5 and result.graze == 0.125 and result.miss == 0.375
    assert result.damage_mean == 1.0 and result.net_hits_mean == 0.75
    assert [(loc.location, loc.p) for loc in result.locations] == [("head", 0.25)]
    assert [d.boxes for d in result.damage] == [0, 4]


def test_wilson_margin() -> None:
    # p = 0.5 of 4000: about 1.96 * sqrt(0.25 / 4000) = 0.0155.
    assert abs(odds.wilson_margin(0.5, 4000) - 0.0155) < 2e-4
    # p = 0: the interval still reaches up by about z^2 / n.
    assert 0 < odds.wilson_margin(0.0, 4000) < 0.002
