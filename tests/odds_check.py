"""Checks that reported odds match what `resolve` does: many seeds, observed frequencies.

Every ruleset's odds test resolves the same request with many seeds through its `resolve`, turns
each result into an `Observed` (its outcome, net hits, damage, glitches, locations), and hands
them here with the odds. Each reported distribution is held to a chi-square test and each
probability to a binomial bound, both at a false-alarm rate of about one in a million per check
(the binomial bound from the binomial's own terms, so that it holds for the rare cells too: a
damage distribution of automatic fire has some 500, most expected far less than once), and any
outcome the odds call impossible but `resolve` produced fails at once.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from schemas.odds import TargetOdds

# One-sided normal quantile of a one-in-a-million chance, and the two-sided bound per probability.
Z_CHI = 4.753
Z_BINOMIAL = 5.0
MIN_EXPECTED = 5.0
# The chance a probability's bound leaves to chance alone, half in each tail: the normal curve's
# two-sided tail beyond Z_BINOMIAL (5.7e-7).
ALPHA_BINOMIAL = math.erfc(Z_BINOMIAL / math.sqrt(2))

# How many resolutions each ruleset's odds tests observe. The bounds above are what chance alone
# may do, whatever the count; the count decides how far off a wrong preview must be to be caught.
# The smallest change a rule makes is the yardstick: a 5-point modifier of d100 (Shot Rate,
# Suppression), one die more or less in an SR3/SR4/SR5 pool, a target number one off. At 6,000
# each of them fails its check about 98 times in 100 seeds or more (worked with the noncentral
# chi-square's mean less two deviations): d100's +5 on a hit chance between 30 and 70 % needs
# 5,000 to 5,750; one die more in a pool of 20 against 8 changes the net hits enough at 4,250, in
# a pool of 10 against 6 at 2,000; a target number one off, at 750. A larger count finds only
# errors smaller than any rule makes, at its cost in time.
SAMPLES = 6000


@dataclass(frozen=True)
class Observed:
    """What one resolution did to one target, in the odds' terms."""

    outcome: str
    net: int = 0
    # (boxes, track, level, location) as DamageChance has them; (0, None, None, None) for none.
    damage: tuple[int, str | None, str | None, str | None] = (0, None, None, None)
    glitch: bool = False
    critical_glitch: bool = False
    locations: frozenset[str] = field(default_factory=frozenset)


def binomial_range(p: float, samples: int, alpha: float = ALPHA_BINOMIAL) -> tuple[int, int]:
    """The fewest and the most times an outcome of chance p comes in `samples` draws but for
    chance alone at most alpha/2 below and alpha/2 above, summed from the binomial's terms.

    The normal curve's Z_BINOMIAL deviations (plus one) are this where many draws are expected,
    but not where far less than one is: at p = 5e-6 in 8000 draws they allowed one, and two come
    by chance once in 1,300 runs, so a dodged burst's damage (518 cells, 380 of them expected less
    than once) failed by chance one run in 37; with these bounds, one in 18,000.
    """
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return samples, samples
    mode = min(samples, int((samples + 1) * p))
    at_mode = math.exp(
        math.lgamma(samples + 1)
        - math.lgamma(mode + 1)
        - math.lgamma(samples - mode + 1)
        + mode * math.log(p)
        + (samples - mode) * math.log1p(-p)
    )
    ratio = p / (1 - p)
    # Each side's terms, walked out from the mode until what is left of the tail (bounded by the
    # last term's ratio, which only falls from there) is negligible against alpha.
    above: list[float] = []
    term, k = at_mode, mode
    while k < samples:
        step = (samples - k) / (k + 1) * ratio
        term *= step
        k += 1
        above.append(term)
        if step < 1 and term * step / (1 - step) < alpha * 1e-6:
            break
    below: list[float] = []
    term, k = at_mode, mode
    while k > 0:
        step = k / (samples - k + 1) / ratio
        term *= step
        k -= 1
        below.append(term)
        if step < 1 and term * step / (1 - step) < alpha * 1e-6:
            break
    return mode - _within(below, alpha / 2), mode + _within(above, alpha / 2)


def _within(terms: list[float], tail: float) -> int:
    """How many of the terms (out from the mode) a count may reach while the chance of reaching
    that far stays above `tail`: their sums from the far end, smallest first."""
    reached = 0.0
    for j in range(len(terms) - 1, -1, -1):
        reached += terms[j]
        if reached > tail:
            return j + 1
    return 0


def chi_square_critical(df: int, z: float = Z_CHI) -> float:
    """The chi-square value exceeded by chance with about the normal tail of z (Wilson-Hilferty)."""
    k = 2 / (9 * df)
    return df * (1 - k + z * math.sqrt(k)) ** 3


def check_distribution(
    what: str,
    expected: Mapping[Hashable, float],
    observed: Mapping[Hashable, int],
    samples: int,
) -> None:
    """The observed counts of `samples` resolutions against the expected probabilities."""
    impossible = {k: n for k, n in observed.items() if expected.get(k, 0.0) <= 0.0 and n}
    assert not impossible, f"{what}: resolve produced {impossible}, which the odds call impossible"
    total = sum(expected.values())
    assert abs(total - 1.0) < 1e-9, f"{what}: the odds add up to {total}"
    # Binomial bound on each probability.
    for key, p in expected.items():
        count = observed.get(key, 0)
        fewest, most = binomial_range(p, samples)
        assert fewest <= count <= most, (
            f"{what}: {key!r} came {count} times of {samples} where the odds say "
            f"{p:.6g} ({samples * p:.3g} expected, chance alone {fewest} to {most})"
        )
    # Chi-square over the cells expected at least MIN_EXPECTED times, the rest pooled.
    cells: list[tuple[float, int]] = []
    pooled_p, pooled_n = 0.0, 0
    for key, p in expected.items():
        if samples * p >= MIN_EXPECTED:
            cells.append((p, observed.get(key, 0)))
        else:
            pooled_p += p
            pooled_n += observed.get(key, 0)
    if pooled_p * samples >= MIN_EXPECTED:
        cells.append((pooled_p, pooled_n))
    if len(cells) < 2:
        return
    statistic = sum((n - samples * p) ** 2 / (samples * p) for p, n in cells)
    critical = chi_square_critical(len(cells) - 1)
    assert statistic <= critical, (
        f"{what}: chi-square {statistic:.1f} over {len(cells) - 1} degrees of freedom exceeds "
        f"{critical:.1f}; observed {dict(Counter(observed).most_common(8))}, "
        f"expected {sorted(expected.items(), key=lambda kv: -kv[1])[:8]}"
    )


def check_probability(what: str, p: float, count: int, samples: int) -> None:
    check_distribution(
        what, {True: p, False: 1 - p}, {True: count, False: samples - count}, samples
    )


def check_target(odds: TargetOdds, observed: Sequence[Observed]) -> None:
    """Every probability one target's odds report, against what `resolve` did to it."""
    samples = len(observed)
    name = odds.target
    check_distribution(
        f"{name} outcomes",
        {o.outcome: o.p for o in odds.outcomes},
        Counter(o.outcome for o in observed),
        samples,
    )
    check_distribution(
        f"{name} net hits",
        {c.value: c.p for c in odds.net_hits},
        Counter(o.net for o in observed),
        samples,
    )
    check_distribution(
        f"{name} damage",
        {(d.boxes, d.track, d.level, d.location): d.p for d in odds.damage},
        Counter(o.damage for o in observed),
        samples,
    )
    check_probability(f"{name} glitch", odds.glitch, sum(o.glitch for o in observed), samples)
    check_probability(
        f"{name} critical glitch",
        odds.critical_glitch,
        sum(o.critical_glitch for o in observed),
        samples,
    )
    for location in odds.locations:
        check_probability(
            f"{name} at {location.location}",
            location.p,
            sum(location.location in o.locations for o in observed),
            samples,
        )
    landed = {loc for o in observed for loc in o.locations}
    reported = {loc.location for loc in odds.locations}
    assert landed <= reported, f"{name}: landed at {landed - reported}, which the odds omit"
    # The summary agrees with the outcomes it sums (each ruleset says which are hits).
    assert abs(odds.hit + odds.graze + odds.miss - 1.0) < 1e-9
    assert abs(odds.net_hits_mean - sum(c.value * c.p for c in odds.net_hits)) < 1e-9
    assert abs(odds.damage_mean - sum(d.boxes * d.p for d in odds.damage)) < 1e-9


def observe_many(
    resolve: Callable[[int], Iterable[tuple[str, Observed]]], seeds: Iterable[int]
) -> dict[str, list[Observed]]:
    """`resolve(seed)` gives (target, Observed) pairs of one resolution; gathered per target."""
    gathered: dict[str, list[Observed]] = {}
    for seed in seeds:
        for target, observed in resolve(seed):
            gathered.setdefault(target, []).append(observed)
    return gathered
