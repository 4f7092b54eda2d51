"""Exact distributions of the dice the rulesets roll, and the tally every ruleset's odds fill.

Pure arithmetic, no dice: a d6 pool's hits with its glitches (exploding sixes too), a
target-number test's successes (Rule of Six, Rule of One), and small helpers to convolve and
summarise. Each ruleset's `odds.py` builds its tests with the same functions its `resolve` uses
and hands them here (docs/odds.md).

Distributions are tuples of probabilities indexed by value (`dist[k]` = P(X = k)).
"""

from __future__ import annotations

import contextlib
import math
import random
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache

from schemas.odds import (
    AttackOdds,
    Chance,
    DamageChance,
    LocationChance,
    OutcomeChance,
    Sampling,
    TargetOdds,
)
from service.rules.dice import HIT_MINIMUM, Edition, is_glitch

Dist = tuple[float, ...]

# The chances of one d6: a 1, a hit (5-6; 000 and 001: "a 5 or 6 is a hit"), a six.
ONE = 1 / 6
HIT = (7 - HIT_MINIMUM) / 6
SIX = 1 / 6
# Exploding sixes (Push the Limit, SR4 Edge) have no end: the chance of k more hits from one six
# falls as 6**-k, so the tail past this many extra hits (below 1e-15) is folded into the last.
MAX_EXTRA_HITS = 20
# Entries below this are rounding, not outcomes: they are left out of the answers.
NEGLIGIBLE = 1e-15
# A sampled preview's samples (`?samples=` asks for others within the bounds), and its seed when
# the request gives none: the same form gives the same odds, so a live preview does not flicker.
# 2000 resolutions of Hard Life's full auto take about 0.4 s of one core here, a wait a live
# preview can bear, and put every chance within 2.2 points at 95 %.
DEFAULT_SAMPLES = 2000
MIN_SAMPLES = 100
MAX_SAMPLES = 20000
SEED = 1
# z of the two-sided 95 % interval, for sampled answers.
Z_95 = 1.959963984540054


class Stopped(Exception):
    """A sampled preview stopped between two samples: whoever asked for it is gone."""


@dataclass(slots=True)
class Run:
    """A sampled preview as it runs (in a thread of its own): `stop`, set from outside, ends it
    before its next sample (`Stopped`); `drawn` counts the samples it began."""

    stop: threading.Event = field(default_factory=threading.Event)
    drawn: int = 0


# The run of the preview computed in this context. Context-local, not global: each preview
# runs in a thread with a copy of its caller's context (asyncio.to_thread), and an odds call
# made outside any run (the tests, the console's checks) samples to the end.
_RUN: ContextVar[Run | None] = ContextVar("odds_run", default=None)


@contextlib.contextmanager
def running(run: Run) -> Iterator[Run]:
    """Samples drawn within are counted in `run` and end when its `stop` is set."""
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)


def seeds(seed: int, samples: int) -> Iterator[int]:
    """The seeds of a sampled answer's resolutions: drawn from `seed`, so the same seed gives
    the same answer (and a larger sample begins with the smaller one's)."""
    draw = random.Random(seed)
    for _ in range(samples):
        yield draw.getrandbits(63)


def sampled(seed: int, samples: int) -> Iterator[int]:
    """`seeds`, one per resolution a sampled answer makes: before each, the preview's run (if
    any) is asked whether to go on, so one nobody waits for any more stops within a sample."""
    run = _RUN.get()
    for sample in seeds(seed, samples):
        if run is not None:
            if run.stop.is_set():
                raise Stopped
            run.drawn += 1
        yield sample


def checkpoint() -> None:
    """Between two steps of a long exact computation: end it (`Stopped`) when the preview's run
    (if any) has been told to stop, as `sampled` does between two samples."""
    run = _RUN.get()
    if run is not None and run.stop.is_set():
        raise Stopped


@dataclass(frozen=True, slots=True)
class PoolOdds:
    """A d6 pool counted for hits: P(hits = h), and P(hits = h and a glitch)."""

    hits: Dist
    glitch_with: Dist

    @property
    def glitch(self) -> float:
        return sum(self.glitch_with)

    @property
    def critical_glitch(self) -> float:
        """A glitch with no hits."""
        return self.glitch_with[0] if self.glitch_with else 0.0


def binomial(n: int, p: float) -> Dist:
    """P(k successes of n), each with chance p."""
    if n <= 0:
        return (1.0,)
    q = 1.0 - p
    return tuple(math.comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


def convolve(a: Sequence[float], b: Sequence[float]) -> Dist:
    """The distribution of X + Y for independent X ~ a, Y ~ b."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, pa in enumerate(a):
        if pa == 0.0:
            continue
        for j, pb in enumerate(b):
            out[i + j] += pa * pb
    return tuple(out)


def capped(dist: Sequence[float], cap: int) -> Dist:
    """min(X, cap): a limit on hits (SR5), the mass above it folded onto it."""
    cap = max(cap, 0)
    if len(dist) <= cap + 1:
        return tuple(dist)
    return (*dist[:cap], sum(dist[cap:]))


def mean(dist: Sequence[float]) -> float:
    return sum(k * p for k, p in enumerate(dist))


def at_least(dist: Sequence[float], k: int) -> float:
    """P(X >= k)."""
    return sum(dist[max(k, 0) :])


def _extra_hits_of_a_six() -> Dist:
    """Hits a six adds by exploding: its extra die is a 5 (one hit), a 6 (one hit and another
    die) or no hit. P(k) = 4/6 for k = 0, (10/6)(1/6)**k after; the tail folds into the last."""
    probs = [4 / 6] + [(10 / 6) * SIX**k for k in range(1, MAX_EXTRA_HITS + 1)]
    probs[-1] += 1.0 - sum(probs)
    return tuple(probs)


EXTRA_OF_A_SIX = _extra_hits_of_a_six()
# What one hit of the first roll adds when sixes explode: half the hits are sixes.
_EXTRA_OF_A_HIT = tuple((0.5 if k == 0 else 0.0) + 0.5 * p for k, p in enumerate(EXTRA_OF_A_SIX))


def _trimmed(dist: Dist) -> Dist:
    """The distribution without its tail of chances too small to matter (below 1e-18 each):
    exploding sixes would otherwise carry 20 values more per die."""
    last = len(dist) - 1
    while last > 0 and dist[last] < 1e-18:
        last -= 1
    return dist[: last + 1]


@lru_cache(maxsize=1024)
def pool(dice: int, edition: Edition, explode: bool = False) -> PoolOdds:
    """The hits of a d6 pool of `dice` dice, and when it glitches (dice.py's `count_pool`: the
    glitch is judged on the dice first rolled; the extra dice of exploding sixes only add hits).
    """
    dice = max(dice, 0)
    if dice == 0:
        return PoolOdds((1.0,), (0.0,))
    # The first roll: h hits and o ones of `dice` dice, a multinomial over (hit, one, other).
    other = 1.0 - HIT - ONE
    first = [0.0] * (dice + 1)
    first_glitch = [0.0] * (dice + 1)
    for hits in range(dice + 1):
        for ones in range(dice - hits + 1):
            rest = dice - hits - ones
            p = (
                math.factorial(dice)
                / (math.factorial(hits) * math.factorial(ones) * math.factorial(rest))
                * HIT**hits
                * ONE**ones
                * other**rest
            )
            first[hits] += p
            if is_glitch(ones, dice, edition):
                first_glitch[hits] += p
    if not explode:
        return PoolOdds(tuple(first), tuple(first_glitch))
    size = dice + dice * MAX_EXTRA_HITS + 1
    total = [0.0] * size
    total_glitch = [0.0] * size
    extra: Dist = (1.0,)  # what h hits of the first roll add: _EXTRA_OF_A_HIT convolved h times
    for hits in range(dice + 1):
        if hits:
            extra = _trimmed(convolve(extra, _EXTRA_OF_A_HIT))
        for more, p in enumerate(extra):
            total[hits + more] += first[hits] * p
            total_glitch[hits + more] += first_glitch[hits] * p
    last = max(k for k, p in enumerate(total) if p > NEGLIGIBLE)
    return PoolOdds(tuple(total[: last + 1]), tuple(total_glitch[: last + 1]))


def die_reaches(target_number: int) -> float:
    """One die's chance of reaching `target_number` by the Rule of Six (a 6 is rolled again and
    added): (7 - TN)/6 up to 6, a sixth of that of TN - 6 above it."""
    chance = 1.0
    while target_number > 6:
        chance *= SIX
        target_number -= 6
    if target_number <= 1:
        return chance
    return chance * (7 - target_number) / 6


@dataclass(frozen=True, slots=True)
class TargetNumberOdds:
    """An SR3 test (dice.py's `target_number_test`): P(successes = k), and the Rule of One's
    chance (every die a 1: the test fails outright)."""

    successes: Dist
    all_ones: float


@lru_cache(maxsize=1024)
def target_number_test(dice: int, target_number: int) -> TargetNumberOdds:
    dice = max(dice, 0)
    if dice == 0:
        return TargetNumberOdds((1.0,), 0.0)
    all_ones = ONE**dice
    reach = die_reaches(target_number)
    if target_number > 1:
        # A 1 never reaches a target number of 2 or more: every die a 1 is already no success.
        return TargetNumberOdds(binomial(dice, reach), all_ones)
    # Every die succeeds, unless every one shows a 1.
    successes = [0.0] * (dice + 1)
    successes[0] = all_ones
    successes[dice] = 1.0 - all_ones
    return TargetNumberOdds(tuple(successes), all_ones)


def wilson_margin(p: float, samples: int, z: float = Z_95) -> float:
    """The wider half of the Wilson score interval around an observed frequency p."""
    if samples <= 0:
        return 1.0
    denominator = 1 + z * z / samples
    centre = (p + z * z / (2 * samples)) / denominator
    half = z * math.sqrt(p * (1 - p) / samples + z * z / (4 * samples * samples)) / denominator
    return max(centre + half - p, p - (centre - half))


def sampling(what: str, samples: int, seed: int, targets: Iterable[TargetOdds]) -> Sampling:
    """How a sampled answer was made, with the widest Wilson half-width of what it reports."""
    reported: list[float] = []
    for target in targets:
        reported += [target.hit, target.graze, target.miss, target.glitch]
        reported += [o.p for o in target.outcomes]
        reported += [c.p for c in target.net_hits]
        reported += [d.p for d in target.damage]
        reported += [loc.p for loc in target.locations]
    margin = max((wilson_margin(p, samples) for p in reported), default=0.0)
    return Sampling(what=what, samples=samples, seed=seed, confidence=0.95, margin=margin)


NO_DAMAGE: tuple[int, str | None, str | None, str | None] = (0, None, None, None)


@dataclass(slots=True)
class Tally:
    """What a ruleset's odds add up for one target: each outcome with its probability (an exact
    enumeration adds each case's chance; a sample adds 1/n per resolution), then `odds()`.

    The answer reports outcomes, net hits, damage and locations each as a distribution of its
    own (their marginals), so the tally keeps each apart: `add` adds one case to all of them,
    and a ruleset that works a marginal out whole (a convolution) may add it to its dict
    directly. `touched` and `grazed` name the ruleset's outcomes that count as a hit and as a
    graze."""

    target: str
    touched: frozenset[str]
    grazed: frozenset[str] = frozenset()
    outcomes: dict[str, float] = field(default_factory=dict)
    net: dict[int, float] = field(default_factory=dict)
    damage: dict[tuple[int, str | None, str | None, str | None], float] = field(
        default_factory=dict
    )
    locations: dict[str, float] = field(default_factory=dict)
    glitch: float = 0.0
    critical_glitch: float = 0.0
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        p: float,
        outcome: str,
        net: int = 0,
        damage: tuple[int, str | None, str | None, str | None] = NO_DAMAGE,
        locations: Iterable[str] = (),
        glitch: bool = False,
        critical_glitch: bool = False,
    ) -> None:
        """One case: its outcome, net hits, damage (boxes, track, level, location) and the
        locations it landed at (each counted once)."""
        if p <= 0.0:
            return
        self.outcomes[outcome] = self.outcomes.get(outcome, 0.0) + p
        self.net[net] = self.net.get(net, 0.0) + p
        self.damage[damage] = self.damage.get(damage, 0.0) + p
        for location in set(locations):
            self.locations[location] = self.locations.get(location, 0.0) + p
        if glitch:
            self.glitch += p
        if critical_glitch:
            self.critical_glitch += p

    def odds(self) -> TargetOdds:
        total = sum(self.outcomes.values())
        # Exact enumerations add up to 1 but for rounding; make it so (a certain outcome is
        # then 1 to within a rounding, which `_chance` keeps from passing 1).
        scale = 1.0 / total if total > 0 else 1.0
        outcomes = {
            k: _chance(p * scale) for k, p in self.outcomes.items() if p * scale > NEGLIGIBLE
        }
        hit = _chance(sum(p for k, p in outcomes.items() if k in self.touched))
        graze = _chance(sum(p for k, p in outcomes.items() if k in self.grazed))
        net = sorted((k, _chance(p * scale)) for k, p in self.net.items() if p * scale > NEGLIGIBLE)
        damage = sorted(
            ((key, _chance(p * scale)) for key, p in self.damage.items() if p * scale > NEGLIGIBLE),
            key=lambda item: (item[0][0], *(part or "" for part in item[0][1:])),
        )
        return TargetOdds(
            target=self.target,
            hit=hit,
            graze=graze,
            miss=max(0.0, 1.0 - hit - graze),
            outcomes=[OutcomeChance(k, p) for k, p in sorted(outcomes.items())],
            net_hits=[Chance(k, p) for k, p in net],
            net_hits_mean=sum(k * p for k, p in net),
            damage=[
                DamageChance(p=p, boxes=key[0], track=key[1], level=key[2], location=key[3])
                for key, p in damage
            ],
            damage_mean=sum(key[0] * p for key, p in damage),
            glitch=_chance(self.glitch * scale),
            critical_glitch=_chance(self.critical_glitch * scale),
            locations=[
                LocationChance(k, _chance(p * scale))
                for k, p in sorted(self.locations.items())
                if p * scale > NEGLIGIBLE
            ],
            notes=self.notes,
        )


def _chance(p: float) -> float:
    """A probability summed from parts, kept within [0, 1] against rounding."""
    return min(1.0, max(0.0, p))


def any_hit_of_independent(targets: Sequence[TargetOdds]) -> float:
    """At least one target hit, where each target's test is rolled apart (sr4, sr5, d100)."""
    if len(targets) == 1:
        return targets[0].hit
    miss_all = 1.0
    for target in targets:
        miss_all *= 1.0 - target.hit
    return 1.0 - miss_all


def attack_answer(
    ruleset: str,
    attacker: str,
    targets: list[TargetOdds],
    notes: Iterable[str] = (),
    any_hit: float | None = None,
    sampling: Sampling | None = None,
) -> AttackOdds:
    """The whole attack's answer from its targets' odds: the chance of at least one hit (of
    targets tested apart, unless `any_hit` says otherwise: a test they share), the expected total
    of their damage, and `sampled` where `sampling` says how. No target (fire that makes a zone)
    is no hit and no damage."""
    return AttackOdds(
        ruleset=ruleset,
        attacker=attacker,
        method="exact" if sampling is None else "sampled",
        targets=targets,
        any_hit=_chance(any_hit_of_independent(targets) if any_hit is None else any_hit),
        damage_mean=sum(t.damage_mean for t in targets),
        sampling=sampling,
        notes=list(notes),
    )
