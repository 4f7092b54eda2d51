"""The pure rules core: dice, the ruleset interface and one subpackage per ruleset.

Nothing here does I/O; everything takes its dice from a `Dice` passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from service.rules.d100 import D100Ruleset
from service.rules.ruleset import Resolution, Ruleset, RuleViolation
from service.rules.sr3 import SR3Ruleset
from service.rules.sr3hl import HardLifeRuleset
from service.rules.sr4 import SR4Ruleset
from service.rules.sr5 import SR5Ruleset

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        "sr5": SR5Ruleset(),
        "d100": D100Ruleset(),
        "sr3": SR3Ruleset(),
        "sr4": SR4Ruleset(),
        "sr3-hardlife": HardLifeRuleset(),
    }
)

__all__ = ["RULESETS", "Resolution", "RuleViolation", "Ruleset"]
