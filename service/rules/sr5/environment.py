"""The SR5 environment table: visibility, light, glare, wind and range, each a row from none to
the worst; vision gear moves rows; only the worst counts, and two at the worst make -10.

Sources: rules-sources/README.md ("Environmental modifiers ... only the most severe applies; two
or more conditions at -6 give -10") and the guide's vision gear list (000_43afc0edeb7f6e19.txt).
"""

from __future__ import annotations

import msgspec

from schemas.common import Modifier
from schemas.sr5 import SR5AttackRequest

# Row by row: none, light, moderate, heavy (README: 0 / -1 / -3 / -6).
ROW_MODIFIER = (0, -1, -3, -6)
# Two or more conditions in the worst row.
TWO_WORST = -10
WORST = len(ROW_MODIFIER) - 1

VISIBILITY = ("clear", "light", "moderate", "heavy")
LIGHT = ("full", "partial", "dim", "total_darkness")
GLARE = ("none", "weak", "moderate", "blinding")
WIND = ("none", "light", "moderate", "strong")
RANGE = ("short", "medium", "long", "extreme")
# The guide: ultrasound ignores light conditions up to this distance.
ULTRASOUND_RANGE_M = 50.0
SMARTLINKED = frozenset({"wired", "wireless_gear", "wireless_implant"})


class Environment(msgspec.Struct, frozen=True, gc=False):
    """The one environment modifier of a target, if any (a Struct: one is made per target)."""

    modifier: Modifier | None
    # Total darkness still counts after vision gear (blind fire is then not added to it).
    total_darkness: bool


# Clear conditions at short range: nothing to add (the usual case, shared).
NO_MODIFIER = Environment(None, total_darkness=False)


def _up(row: int, steps: int = 1) -> int:
    return max(0, row - steps)


def environment(
    request: SR5AttackRequest, band: str, distance_m: float, aimed_range_shift: bool
) -> Environment:
    """The environment's one modifier for a target at `band`, after the attacker's gear."""
    conditions = request.environment
    gear = request.vision
    smartlink = request.smartlink in SMARTLINKED

    visibility = raw_visibility = VISIBILITY.index(conditions.visibility)
    if "ultrasound" in gear or (
        "thermographic" in gear and conditions.visibility_cause != "thermal_smoke"
    ):
        visibility = _up(visibility)

    light = raw_light = LIGHT.index(conditions.light)
    if "ultrasound" in gear and distance_m <= ULTRASOUND_RANGE_M:
        light = 0
    else:
        if "low_light" in gear and conditions.light in ("partial", "dim"):
            light = 0
        # Choice: the flashlight turns total darkness into dim light; nothing chains further.
        elif "low_light" in gear and "low_light_flashlight" in gear and light == WORST:
            light = LIGHT.index("dim")
        if "thermographic" in gear:
            light = _up(light, 2 if "infrared_flashlight" in gear else 1)

    glare = raw_glare = GLARE.index(conditions.glare)
    if "flare_compensation" in gear:
        glare = _up(glare, 2)

    wind = raw_wind = WIND.index(conditions.wind)
    if smartlink:
        wind = _up(wind)
    if "tracer_rounds" in gear and wind > WIND.index("light"):
        wind = _up(wind)

    range_row = raw_range = RANGE.index(band)
    shifts = []
    if aimed_range_shift:
        shifts.append("image magnification")
    if "improved_rangefinder" in gear and smartlink:
        shifts.append("improved rangefinder")
    if "tracer_rounds" in gear and range_row > 0:
        shifts.append("tracer rounds")
    range_row = _up(range_row, len(shifts))

    # Each condition as (its kind, its level, its row after gear, its row before), in the order
    # the modifier describes them; only those left above none count.
    rows = (
        ("visibility", conditions.visibility, visibility, raw_visibility),
        ("light", conditions.light, light, raw_light),
        ("glare", conditions.glare, glare, raw_glare),
        ("wind", conditions.wind, wind, raw_wind),
        ("range", band, range_row, raw_range),
    )
    counted = [condition for condition in rows if condition[2] > 0]
    if not counted:
        return NO_MODIFIER
    worst = max(row for _, _, row, _ in counted)
    at_worst = sum(1 for _, _, row, _ in counted if row == WORST)
    value = TWO_WORST if at_worst >= 2 else ROW_MODIFIER[worst]
    if len(counted) == 1 and not shifts and counted[0][0] == "range":
        source = f"range ({band})"  # the usual case: range alone
    else:
        described = ", ".join(
            f"{kind} {level} ({ROW_MODIFIER[row]})" + (" after gear" if row != raw else "")
            for kind, level, row, raw in counted
        )
        if shifts:
            described += f"; range moved closer by {' and '.join(shifts)}"
        source = f"environment: {described}; " + (
            "two at the worst make -10" if at_worst >= 2 else "the worst counts"
        )
    return Environment(Modifier(source, value), total_darkness=light == WORST)
