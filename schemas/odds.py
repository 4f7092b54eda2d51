"""Odds previews: an attack or zone test resolved as a probability distribution, not a roll.

`POST /v1/encounters/{id}/attacks/odds` and `.../zones/{zone}/tests/odds` take the body of the
attack (or zone test) and answer these: nothing is rolled, stored or published. Every ruleset
answers the same shape, so a client draws any of them alike (docs/odds.md).

Probabilities are floats in [0, 1]; a distribution's entries add up to 1 (to within rounding),
each entry is an outcome the ruleset can reach, and none has p 0.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Method = Literal["exact", "sampled"]


class Chance(msgspec.Struct, frozen=True, gc=False):
    """One value of a discrete distribution (net hits, successes) and its probability."""

    value: int
    p: float


class OutcomeChance(msgspec.Struct, frozen=True, gc=False):
    """One of the ruleset's own outcomes of a target (its result's `outcome`), e.g. "dodged"."""

    outcome: str
    p: float


class DamageChance(msgspec.Struct, frozen=True, gc=False):
    """One damage outcome of a target and its probability. The outcome with no damage is an
    entry too (`boxes` 0, everything else null)."""

    p: float
    # The number the outcome is measured in: boxes on the track for Shadowrun (sr3 and
    # sr3-hardlife: the boxes of the level, L 1, M 3, S 6, D 10; Hard Life: on the trauma
    # monitor, every wound of the attack added up), damage points for d100.
    boxes: int
    # "physical" or "stun" (Shadowrun); null for d100 and for no damage.
    track: str | None = None
    # sr3, sr3-hardlife: the damage level "L", "M", "S", "D" (Hard Life: the highest of the
    # attack's wounds); d100: the wound.
    level: str | None = None
    # d100, sr3-hardlife: where it landed (Hard Life: the location of the highest wound).
    location: str | None = None


class LocationChance(msgspec.Struct, frozen=True, gc=False):
    """The chance that at least one round of the attack lands at `location` (d100, Hard Life)."""

    location: str
    p: float


class Sampling(msgspec.Struct, frozen=True, gc=False):
    """How a sampled answer was made: a seeded Monte Carlo of the ruleset's own resolution."""

    # What could not be enumerated and was sampled, in words (e.g. Hard Life's per-bullet
    # automatic fire with scatter).
    what: str
    samples: int
    seed: int
    # Every probability of the answer lies within `margin` of the true one with this confidence
    # (the widest half-width of the Wilson score intervals of the reported probabilities).
    confidence: float
    margin: float


class TargetOdds(msgspec.Struct, gc=False):
    """The odds of one target of an attack, or of the actor of a zone test."""

    target: str
    # Touched (the ruleset's hit outcomes, a hit that armour or soak stopped included), grazed
    # (sr4, sr5: a tie, contact but no damage) or missed (everything else): they add up to 1.
    hit: float
    graze: float
    miss: float
    # The ruleset's own outcomes, as its result's `outcome` names them.
    outcomes: list[OutcomeChance]
    # Net hits (Shadowrun 4/5, d100) or net successes (sr3, sr3-hardlife): attack against
    # defense, 0 for a miss.
    net_hits: list[Chance]
    net_hits_mean: float
    # Damage, the no-damage outcome included; `damage_mean` is the mean of `boxes`.
    damage: list[DamageChance]
    damage_mean: float
    # A glitch and a critical glitch of the test that decides the hit: the attacker's attack test
    # (attacks), the actor's own test (zone tests). sr3 and sr3-hardlife: the Rule of One (every
    # die a 1) is both.
    glitch: float
    critical_glitch: float
    # Where the attack lands (d100, sr3-hardlife); empty where a ruleset has no hit locations.
    locations: list[LocationChance] = []
    notes: list[str] = []


class AttackOdds(msgspec.Struct, tag="attack_odds", tag_field="kind", gc=False):
    """`POST /v1/encounters/{id}/attacks/odds`: the attack, per target and whole."""

    ruleset: str
    attacker: str
    # "exact": every probability is computed; "sampled": some are estimated, see `sampling`.
    method: Method
    targets: list[TargetOdds]
    # The whole attack: at least one target hit (touched), and the expected boxes (or damage
    # points) of all its targets added up.
    any_hit: float
    damage_mean: float
    sampling: Sampling | None = None
    notes: list[str] = []


class ZoneTestOdds(msgspec.Struct, tag="zone_test_odds", tag_field="kind", gc=False):
    """`POST /v1/encounters/{id}/zones/{zone}/tests/odds`: the zone test of one actor."""

    ruleset: str
    zone: str
    actor: str
    method: Method
    # The actor's odds: `hit` is the chance the zone's fire hits it.
    target: TargetOdds
    sampling: Sampling | None = None
    notes: list[str] = []
