"""SR5 what a defender brings: full defense, and resisting damage with Body and armor.

Shared by attacks and by the tests of suppression zones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schemas.common import Modifier
from schemas.sr5 import SR5Damage, SR5Defender, SR5Target, SR5Test
from service.rules.dice import Dice, Edition, PoolRoll
from service.rules.ruleset import RuleViolation
from service.rules.sr5 import tables

EDITION: Edition = "sr5"


def test_of(roll: PoolRoll) -> SR5Test:
    return SR5Test(roll.pool, roll.hits, roll.ones, roll.glitch, roll.critical_glitch)


def full_defense(
    target: SR5Target, path: str, quality: str | None
) -> tuple[Modifier | None, int | None]:
    """What a full defense adds to this defender's pool, and the limit it brings, if any;
    `path` is where the request holds this defender's values."""
    if quality is None:
        return None, None
    bonus = tables.FULL_DEFENSE[quality]
    fields = [bonus.adds] + ([bonus.limit] if bonus.limit else [])
    values = []
    for field in fields:
        value = getattr(target.defender, field)
        if value is None:
            raise RuleViolation(
                f"{target.id} is in full defense ({quality}): give its {field}",
                path=f"{path}.{field}",
                kind="missing-defender-value",
            )
        values.append(value)
    source = (
        f"full defense ({bonus.adds})"
        if quality == "willpower"
        else (f"full defense, {quality.replace('_', ' ')} ({bonus.adds})")
    )
    return Modifier(source, values[0]), (values[1] if bonus.limit else None)


def wounds(defender: SR5Defender) -> list[Modifier]:
    """The guide, "Character wounded": the wound modifier is a penalty to "all appropriate
    tests", so to the tests a defender makes to avoid a hit (its defense test, full defense
    included, and its zone tests); never to its soak (SR5 core, "Damage and Healing": not to
    the tests that reduce the boxes about to be taken)."""
    if defender.wound_modifier == 0:
        return []
    return [Modifier("wound modifier", defender.wound_modifier)]


@dataclass(frozen=True, slots=True)
class SoakTest:
    """The guide, 3b: the damage a defender resists, built before its soak test is rolled."""

    dv_modifiers: list[Modifier]
    ap: int
    modified_dv: int
    modified_armor: int
    track: Literal["physical", "stun"]
    soak_modifiers: list[Modifier]
    pool: int

    def boxes(self, soak_hits: int) -> int:
        """The guide, 4: each soak hit takes one off the modified DV, down to none."""
        return max(0, self.modified_dv - soak_hits)


def soak_test(
    dv_modifiers: list[Modifier], ap: int, damage_type: str, target: SR5Target
) -> SoakTest:
    """The guide, 3b and 4: modified DV and armor, stun when the armor is the greater, and the
    soak pool of Body and the modified armor."""
    modified_dv = max(0, sum([m.value for m in dv_modifiers]))
    # A negative modified armor protects nothing: the defender resists with Body alone.
    modified_armor = max(0, target.defender.armor + ap)
    physical = damage_type == "P" and not modified_armor > modified_dv
    soak_modifiers = [
        Modifier("body", target.defender.body),
        Modifier("modified armor", modified_armor),
    ]
    return SoakTest(
        dv_modifiers=dv_modifiers,
        ap=ap,
        modified_dv=modified_dv,
        modified_armor=modified_armor,
        track="physical" if physical else "stun",
        soak_modifiers=soak_modifiers,
        pool=max(0, sum([m.value for m in soak_modifiers])),
    )


def resist(
    dv_modifiers: list[Modifier],
    ap: int,
    damage_type: str,
    target: SR5Target,
    dice: Dice,
    soak_rolled: SR5Test | None = None,
) -> SR5Damage:
    """The soak test of `soak_test`, rolled (or the one already rolled), and what it leaves."""
    test = soak_test(dv_modifiers, ap, damage_type, target)
    if soak_rolled is None:
        soak = test_of(dice.pool(f"soak:{target.id}", test.pool, EDITION))
    else:
        soak = soak_rolled  # a re-resolved attack keeps the soak the defender already rolled
    return SR5Damage(
        dv=test.modified_dv,
        armor=test.modified_armor,
        dv_modifiers=dv_modifiers,
        ap=ap,
        track=test.track,
        soak=soak,
        soak_modifiers=test.soak_modifiers,
        soak_hits=soak.hits,
        boxes=test.boxes(soak.hits),
    )
