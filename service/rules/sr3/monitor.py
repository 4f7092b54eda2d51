"""SR3 condition monitors: ten physical and ten stun boxes, the wound level each reaches, the
target-number modifiers and initiative loss of those levels, and the overflow (SR3 core pp.
125-126, as rules-sources/README.md directs; its wound row L+1/M+2/S+3/D+4 is tables.WOUNDS).
Hard Life (service/rules/sr3hl/condition.py) counts its per-location boxes the same way."""

from __future__ import annotations

from typing import Any, cast

import msgspec

from schemas.monitor import Monitor, MonitorStatus
from schemas.sr3 import SR3AttackResult, SR3Sheet, WoundLevel
from service.rules.monitor import Dealt
from service.rules.sr3 import tables
from service.rules.tracks import Edition, Sizes, TwoTracks, dealt_to

# SR3 core p. 125, "Condition Monitor": each track has ten boxes, whatever the attributes (a
# Deadly wound fills it).
TRACK_BOXES = tables.BOXES["D"]
# SR3 core p. 126, "Damage Overflow": stun past a full stun track carries over into physical
# box for box (Hard Life's condition.py does the same); a Deadly physical wound is unconscious
# and dying unless stabilised; death comes when the overflow passes Body.
EDITION = Edition(stun_per_physical=1, dying_from="full")

SOURCE = (
    "SR3 core pp. 125-126, Condition Monitor, Damage Modifiers and Damage Overflow (10 boxes "
    "each, L 1 M 3 S 6 D 10, stun past the track = physical box for box, overflow up to Body, "
    "the two tracks' modifiers added up); rules-sources/README.md (wounds L+1/M+2/S+3/D+4, the "
    "initiative losing as much)"
)


def level_of(boxes: int) -> WoundLevel:
    """The highest level whose boxes the track has reached (L at 1, M at 3, S at 6, D at 10)."""
    for level in reversed(tables.LEVELS):
        if boxes >= tables.BOXES[level]:
            return cast(WoundLevel, level)
    return "none"


class SR3Monitor(TwoTracks):
    edition = EDITION
    source = SOURCE

    def sizes(self, sheet: Any | None) -> Sizes:
        body = sheet.body if isinstance(sheet, SR3Sheet) else None
        return Sizes(physical=TRACK_BOXES, stun=TRACK_BOXES, overflow=body)

    def wound_modifier(self, monitor: Monitor) -> int:
        """SR3 core p. 126 ("Damage Modifiers"): the modifiers of the physical and the stun
        monitor add up, each its level's target-number modifier."""
        return tables.WOUNDS[level_of(monitor.physical)] + tables.WOUNDS[level_of(monitor.stun)]

    def initiative_modifier(self, wound_modifier: int) -> int:
        # SR3 core p. 126: a wound takes off the initiative what it adds to target numbers
        # (tables.INITIATIVE reads the sheet the same way).
        return -wound_modifier

    def dealt(self, result: Any) -> list[Dealt]:
        """An attack's one target: its damage is a level after staging, and the level's boxes
        (damage.py). SR3 has no zone tests, and no action re-resolves an attack."""
        if not isinstance(result, SR3AttackResult):
            return []
        target = result.target
        source = f"attack by {result.attacker} ({result.weapon})"
        return dealt_to(target.target, target.damage, source)

    def wounded(self, sheet: Any, status: MonitorStatus) -> Any:
        """**Choice**: the sheet's `wound_modifier` is the two monitors' modifiers added up
        (what the attack and the initiative read: it wins over `wounds`), and `wounds` the
        level of one wound that modifies as much (L + M stun reads "S"; past D's, "D"), for
        whatever reads only the level."""
        if not isinstance(sheet, SR3Sheet):
            return sheet
        return msgspec.structs.replace(
            sheet,
            wound_modifier=status.wound_modifier,
            wounds=self.level(status),
        )

    def level(self, status: MonitorStatus) -> WoundLevel:
        """The highest level whose modifier the status's reaches."""
        reached: WoundLevel = "none"
        for level in tables.LEVELS:
            if status.wound_modifier >= tables.WOUNDS[level]:
                reached = cast(WoundLevel, level)
        return reached
