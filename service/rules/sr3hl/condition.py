"""The monitors Hard Life keeps per actor, and what they mean (004, "Taking Damage", "Death and
Injury"; README: boxes as SR3 counts them, a damage shift staging by successes).

A hit is written as a level and the successes that staged it: its own location's monitor gets
the level staged again by Table 6's bonus damage successes, the trauma monitor by the damage
shift. Area effects (grenades, shot, combat spells) write the same level to every location and
the trauma monitor, unmodified.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from schemas.sr3hl import (
    HLCondition,
    HLMonitor,
    HLWound,
    Location,
    MonitorName,
)
from service.rules.sr3hl import tables
from service.rules.sr3hl.tables import DamageLevel

Track = Literal["physical", "stun"]
Monitors = Mapping[MonitorName, HLMonitor]
# SR3 (p. 126): stun past the track's 10 boxes overflows into physical damage (**choice**:
# each monitor's stun overflows into its own physical boxes).
STUN_TRACK_BOXES = 10
_EMPTY = HLMonitor()


def stages(successes: int) -> int:
    """004: every two successes stage one level up, every two below zero one level down."""
    if successes >= 0:
        return successes // tables.SUCCESSES_PER_STAGE
    return -((-successes) // tables.SUCCESSES_PER_STAGE)


def staged(base: DamageLevel, successes: int) -> tuple[DamageLevel | None, int]:
    """The level `successes` stage `base` to (None below Light) and the stages past Deadly."""
    index = tables.LEVELS.index(base) + stages(successes)
    top = len(tables.LEVELS) - 1
    if index < 0:
        return None, 0
    return tables.LEVELS[min(index, top)], max(0, index - top)


def level_of(boxes: int) -> DamageLevel | None:
    """README: the level is the highest whose boxes the monitor has reached."""
    for level in reversed(tables.LEVELS):
        if boxes >= tables.BOXES[level]:
            return level
    return None


def added(monitor: HLMonitor, track: Track, level: DamageLevel | None) -> HLMonitor:
    """The monitor with a wound of `level` written on `track` (capped at MAX_BOXES)."""
    if level is None:
        return monitor
    boxes = tables.BOXES[level]
    physical, stun = monitor.physical, monitor.stun
    if track == "stun":
        stun += boxes
        physical += max(0, stun - STUN_TRACK_BOXES)
        stun = min(stun, STUN_TRACK_BOXES)
    else:
        physical += boxes
    return HLMonitor(physical=min(physical, tables.MAX_BOXES), stun=min(stun, tables.MAX_BOXES))


def reached(location: Location | None) -> list[tuple[MonitorName, int]]:
    """004, Table 6: the monitors a hit at `location` is written on, each with the successes
    it adds (the location's bonus, the trauma monitor's shift); None, an area effect: the
    trauma monitor and every location, unmodified."""
    if location is None:
        return [("trauma", 0), *((loc, 0) for loc in tables.DAMAGE_MODIFIERS)]
    bonus, shift = tables.DAMAGE_MODIFIERS[location]
    return [(location, bonus), ("trauma", shift)]


def wounded(
    monitors: Monitors,
    location: Location | None,
    track: Track,
    base: DamageLevel,
    successes: int,
) -> tuple[dict[MonitorName, HLMonitor], list[HLWound]]:
    """A hit of `base` staged by `successes` at `location` (None: an area effect, every
    location and the trauma monitor alike), written on its monitors (Table 6)."""
    after = dict(monitors)
    wounds: list[HLWound] = []
    for monitor, modifier in reached(location):
        level, _ = staged(base, successes + modifier)
        now = added(after.get(monitor, _EMPTY), track, level)
        if level is not None:
            after[monitor] = now
        boxes = getattr(now, track)
        wounds.append(
            HLWound(
                monitor=monitor,
                track=track,
                modifier=modifier,
                level=level,
                boxes=tables.BOXES[level] if level is not None else 0,
                boxes_now=boxes,
                level_now=level_of(boxes),
            )
        )
    return after, wounds


def _worst(monitors: Monitors, names: Iterable[MonitorName], track: Track) -> int:
    return max(
        (
            tables.WOUND_MODIFIER[level]
            for name in names
            if (level := level_of(getattr(monitors.get(name, _EMPTY), track))) is not None
        ),
        default=0,
    )


def injury_modifier(monitors: Monitors, limbs: Iterable[Location] = ()) -> int:
    """004: the target-number modifier of the worst primary location or the trauma monitor, or
    of a limb in use that is worse; physical and stun added up (as both of 004's examples do).
    The initiative loses as much."""
    used: list[MonitorName] = list(limbs)
    tracks: tuple[Track, ...] = ("physical", "stun")
    return sum(
        max(_worst(monitors, tables.PRIMARY, track), _worst(monitors, used, track))
        for track in tracks
    )


def condition(monitors: Monitors, body: int | None) -> HLCondition:
    """What the monitors mean now: the modifiers, deadly on a primary location or trauma (the
    consciousness test), death at 10 + Body boxes of physical damage there, limbs at deadly
    (not working) and at 10 + Body (crippled)."""
    modifier = injury_modifier(monitors)
    limit = None if body is None else tables.DEATH_BOXES_BASE + body

    def at(name: MonitorName, boxes: int | None) -> bool:
        m = monitors.get(name, _EMPTY)
        if boxes is None:
            return False
        return m.physical >= boxes

    def deadly(name: MonitorName) -> bool:
        m = monitors.get(name, _EMPTY)
        return "D" in (level_of(m.physical), level_of(m.stun))

    return HLCondition(
        target_number_modifier=modifier,
        initiative_modifier=-modifier,
        deadly=any(deadly(name) for name in tables.PRIMARY),
        dead=any(at(name, limit) for name in tables.PRIMARY),
        disabled=sorted(loc for loc in tables.LIMBS if deadly(loc)),
        crippled=sorted(loc for loc in tables.LIMBS if at(loc, limit)),
    )
