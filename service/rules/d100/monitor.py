"""d100 condition monitors: hit points lost, the wounds by location, and what they do.

The firearms chapter (003_e47222605a1f2969.txt) names Wounds as a test modifier and resolves
each hit to a wound at a location, but gives no hit points or thresholds: the sheet gives the
hit points, and the rest is the product's **choice** (docs/rulesets/d100.md, "Condition
monitor"), kept in the same shape as the Shadowrun tracks (service/rules/tracks.py).
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.d100 import D100AttackResult, D100Sheet, D100ZoneTestResult
from schemas.monitor import Monitor, MonitorStatus
from service.rules import tracks
from service.rules.monitor import Dealt
from service.rules.tracks import Edition, Sizes

# **Choice**: hit points lost fill `physical` up to the sheet's hit points (0 left:
# unconscious); what is lost past them goes on `overflow`, the hit points below zero (dying),
# and more below zero than the hit points is death. No stun: every wound is physical.
EDITION = Edition(stun_per_physical=1, dying_from="overflow")
# **Choice**: once half the hit points are gone (lost x 2 >= hit points), every test takes
# -10 to its Success Target (the chapter's "Wounds" modifier, 003, "Multi-Target Fire" and
# "Suppressive Fire").
WOUNDED_SHARE = 2
WOUND_PENALTY = -10

SOURCE = (
    "003_e47222605a1f2969.txt (Wounds modify the Success Target; a wound at each hit "
    "location); the sheet's hit_points; product choices (docs/rulesets/d100.md, Condition "
    "monitor): 0 hit points unconscious, below 0 dying, below minus the hit points dead, "
    "-10 once half are lost"
)


def _sizes(sheet: Any | None) -> Sizes:
    hit_points = sheet.hit_points if isinstance(sheet, D100Sheet) else None
    return Sizes(physical=hit_points, stun=None, overflow=hit_points)


def _dealt(target: str, damage: Any, source: str) -> list[Dealt]:
    if damage is None or damage.wound <= 0:
        return []
    return [
        Dealt(
            target=target,
            track="physical",
            boxes=damage.wound,
            location=damage.location,
            source=source,
        )
    ]


class D100Monitor:
    source = SOURCE

    def status(self, sheet: Any | None, monitor: Monitor) -> MonitorStatus:
        sizes = _sizes(sheet)
        lost = monitor.physical + monitor.overflow
        wounded = sizes.physical is not None and lost * WOUNDED_SHARE >= sizes.physical
        return MonitorStatus(
            physical_max=sizes.physical,
            overflow_max=sizes.overflow,
            wound_modifier=WOUND_PENALTY if wounded else 0,
            condition=tracks.condition(monitor, sizes, EDITION),
            source=self.source,
        )

    def damaged(self, monitor: Monitor, dealt: Dealt, sheet: Any | None) -> Monitor:
        after = tracks.damaged(monitor, "physical", dealt.boxes, _sizes(sheet), EDITION)
        if dealt.location is not None:
            wounds = dict(monitor.wounds)
            wounds[dealt.location] = min(
                wounds.get(dealt.location, 0) + dealt.boxes, tracks.MAX_BOXES
            )
            after = msgspec.structs.replace(after, wounds=wounds)
        return msgspec.structs.replace(after, status=self.status(sheet, after))

    def settled(self, monitor: Monitor, sheet: Any | None) -> Monitor:
        after = tracks.clamped(monitor, _sizes(sheet))
        return msgspec.structs.replace(after, status=self.status(sheet, after))

    def dealt(self, result: Any) -> list[Dealt]:
        """Each target's wound (the damage that got through the armour) at its location, and
        a failed zone test's; a suppressive attack's zone deals none."""
        if isinstance(result, D100AttackResult):
            source = f"attack by {result.attacker} ({result.weapon})"
            return [d for t in result.targets for d in _dealt(t.target, t.damage, source)]
        if isinstance(result, D100ZoneTestResult):
            return _dealt(result.actor, result.damage, f"suppressive fire ({result.zone})")
        return []

    def wounded(self, sheet: Any, status: MonitorStatus) -> Any:
        if not isinstance(sheet, D100Sheet):
            return sheet
        return msgspec.structs.replace(sheet, wound_modifier=status.wound_modifier)
