"""Two condition tracks, physical and stun, as the Shadowrun editions keep them (sr5, sr4, sr3):
stun past a full stun track overflows into physical, physical past a full physical track into
overflow, and overflow past its size is death. Each edition gives its own numbers (`Editions`,
`TwoTracks` subclasses in service/rules/<ruleset>/monitor.py); pure.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from schemas.monitor import Condition, Monitor, MonitorStatus, Track
from service.rules.monitor import Dealt

# The most boxes a monitor field holds (schemas/monitor.py, `Boxes`): a track without a size
# (the sheet lacks the attribute) stops here.
MAX_BOXES = 1000


@dataclass(frozen=True, slots=True)
class Sizes:
    """How many boxes each track holds; None: the sheet lacks the attribute that sizes it."""

    physical: int | None
    stun: int | None
    overflow: int | None


@dataclass(frozen=True, slots=True)
class Edition:
    """An edition's rules for two tracks, each with its source."""

    # Boxes of stun past a full stun track that make one physical box, counted per hit (the
    # odd box left over is lost).
    stun_per_physical: int
    # When a character with a full physical track is dying: as soon as the track is "full", or
    # once damage has gone "overflow" past it (before that: unconscious).
    dying_from: Literal["full", "overflow"]


def _onto(now: int, boxes: int, size: int | None) -> tuple[int, int]:
    """`boxes` written on a track holding `now` of `size`: the track after, and the boxes
    that did not fit (none without a size: the track takes them all, up to MAX_BOXES)."""
    if size is None:
        return min(now + boxes, MAX_BOXES), 0
    room = max(0, size - now)
    taken = min(boxes, room)
    return now + taken, boxes - taken


def damaged(monitor: Monitor, track: Track, boxes: int, sizes: Sizes, edition: Edition) -> Monitor:
    """`monitor` with `boxes` on `track`: stun past its track goes to physical (so many stun
    boxes to one), physical past its track to overflow, overflow no further than one box past
    its size (dead). The status is left for the caller to work out."""
    physical, stun, overflow = monitor.physical, monitor.stun, monitor.overflow
    to_physical = boxes
    if track == "stun":
        stun, past = _onto(stun, boxes, sizes.stun)
        to_physical = past // edition.stun_per_physical
    physical, past = _onto(physical, to_physical, sizes.physical)
    if past:
        most = MAX_BOXES if sizes.overflow is None else sizes.overflow + 1
        overflow = min(overflow + past, most)
    return msgspec.structs.replace(
        monitor, physical=physical, stun=stun, overflow=overflow, status=None
    )


def clamped(monitor: Monitor, sizes: Sizes) -> Monitor:
    """`monitor` as written, each track cut to its size where known (overflow to one box past
    its size: dead). Nothing moves from one track to another: a GM's numbers stand as set."""

    def cut(value: int, size: int | None) -> int:
        return value if size is None else min(value, size)

    return msgspec.structs.replace(
        monitor,
        physical=cut(monitor.physical, sizes.physical),
        stun=cut(monitor.stun, sizes.stun),
        overflow=cut(monitor.overflow, None if sizes.overflow is None else sizes.overflow + 1),
        status=None,
    )


def condition(monitor: Monitor, sizes: Sizes, edition: Edition) -> Condition:
    """Dead past the overflow's size; dying with a full physical track (or past it, as the
    edition says); unconscious with either track full; else ok. A size the sheet cannot give
    decides nothing."""
    if sizes.overflow is not None and monitor.overflow > sizes.overflow:
        return "dead"
    physical_full = sizes.physical is not None and monitor.physical >= sizes.physical
    if physical_full and (edition.dying_from == "full" or monitor.overflow > 0):
        return "dying"
    if physical_full or (sizes.stun is not None and monitor.stun >= sizes.stun):
        return "unconscious"
    return "ok"


class TwoTracks(ABC):
    """`MonitorRules` for an edition with physical and stun tracks: what is shared. A subclass
    gives the numbers (`edition`, `source`, `sizes`, the wound modifier) and reads its own
    results (`dealt`) and sheets (`wounded`)."""

    edition: Edition
    source: str

    @abstractmethod
    def sizes(self, sheet: Any | None) -> Sizes: ...

    @abstractmethod
    def wound_modifier(self, monitor: Monitor) -> int: ...

    @abstractmethod
    def initiative_modifier(self, wound_modifier: int) -> int: ...

    def status(self, sheet: Any | None, monitor: Monitor) -> MonitorStatus:
        sizes = self.sizes(sheet)
        wounds = self.wound_modifier(monitor)
        return MonitorStatus(
            physical_max=sizes.physical,
            stun_max=sizes.stun,
            overflow_max=sizes.overflow,
            wound_modifier=wounds,
            initiative_modifier=self.initiative_modifier(wounds),
            condition=condition(monitor, sizes, self.edition),
            source=self.source,
        )

    def damaged(self, monitor: Monitor, dealt: Dealt, sheet: Any | None) -> Monitor:
        after = damaged(monitor, dealt.track, dealt.boxes, self.sizes(sheet), self.edition)
        return msgspec.structs.replace(after, status=self.status(sheet, after))

    def settled(self, monitor: Monitor, sheet: Any | None) -> Monitor:
        after = clamped(monitor, self.sizes(sheet))
        return msgspec.structs.replace(after, status=self.status(sheet, after))


class DicePoolTracks(TwoTracks):
    """The shape SR5 and SR4 share: each track holds `track_base` + half its attribute rounded
    up (Body physical, Willpower stun), the overflow Body; the wound modifier is -1 die per
    `boxes_per_wound` boxes of each track, the two added, and it comes off the Initiative too;
    the sheet the rules read has it as its `wound_modifier` (no worse than the sheet allows).
    Each edition gives these numbers where it cites them."""

    sheet_type: type[Any]
    track_base: int
    boxes_per_wound: int
    worst_wound_modifier: int

    def track_size(self, attribute: int | None) -> int | None:
        return None if attribute is None else self.track_base + math.ceil(attribute / 2)

    def sizes(self, sheet: Any | None) -> Sizes:
        if not isinstance(sheet, self.sheet_type):
            return Sizes(physical=None, stun=None, overflow=None)
        return Sizes(
            physical=self.track_size(sheet.body),
            stun=self.track_size(sheet.willpower),
            overflow=sheet.body,
        )

    def wound_modifier(self, monitor: Monitor) -> int:
        return -(monitor.physical // self.boxes_per_wound) - (monitor.stun // self.boxes_per_wound)

    def initiative_modifier(self, wound_modifier: int) -> int:
        return wound_modifier

    def wounded(self, sheet: Any, status: MonitorStatus) -> Any:
        if not isinstance(sheet, self.sheet_type):
            return sheet
        wounds = max(status.wound_modifier, self.worst_wound_modifier)
        return msgspec.structs.replace(sheet, wound_modifier=wounds)


def dealt_to(target: str, damage: Any, source: str) -> list[Dealt]:
    """The damage of one target's hit (a struct with `track` and `boxes`; None: no hit), as
    Dealt: none when it did no boxes (soaked, staged below Light)."""
    if damage is None or damage.boxes <= 0:
        return []
    return [Dealt(target=target, track=damage.track, boxes=damage.boxes, source=source)]
