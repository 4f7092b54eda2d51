"""The SR5 environment table: visibility, light, glare, wind and range, each a row from none to
the worst; vision gear moves rows; only the worst counts, and two at the worst make -10.

Sources: rules-sources/README.md ("Environmental modifiers ... only the most severe applies; two
or more conditions at -6 give -10") and the guide's vision gear list (000_43afc0edeb7f6e19.txt).
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Environment:
    modifier: Modifier | None
    # Total darkness still counts after vision gear (blind fire is then not added to it).
    total_darkness: bool


def _up(row: int, steps: int = 1) -> int:
    return max(0, row - steps)


def environment(
    request: SR5AttackRequest, band: str, distance_m: float, aimed_range_shift: bool
) -> Environment:
    """The environment's one modifier for a target at `band`, after the attacker's gear."""
    conditions = request.environment
    gear = set(request.vision)
    smartlink = request.smartlink in SMARTLINKED

    visibility = VISIBILITY.index(conditions.visibility)
    if "ultrasound" in gear or (
        "thermographic" in gear and conditions.visibility_cause != "thermal_smoke"
    ):
        visibility = _up(visibility)

    light = LIGHT.index(conditions.light)
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

    glare = GLARE.index(conditions.glare)
    if "flare_compensation" in gear:
        glare = _up(glare, 2)

    wind = WIND.index(conditions.wind)
    if smartlink:
        wind = _up(wind)
    if "tracer_rounds" in gear and wind > WIND.index("light"):
        wind = _up(wind)

    range_row = RANGE.index(band)
    shifts = []
    if aimed_range_shift:
        shifts.append("image magnification")
    if "improved_rangefinder" in gear and smartlink:
        shifts.append("improved rangefinder")
    if "tracer_rounds" in gear and range_row > 0:
        shifts.append("tracer rounds")
    range_row = _up(range_row, len(shifts))

    rows = {
        f"visibility {conditions.visibility}": visibility,
        f"light {conditions.light}": light,
        f"glare {conditions.glare}": glare,
        f"wind {conditions.wind}": wind,
        f"range {band}": range_row,
    }
    counted = {name: row for name, row in rows.items() if row > 0}
    if not counted:
        return Environment(None, total_darkness=False)
    worst = max(counted.values())
    at_worst = [name for name, row in counted.items() if row == WORST]
    value = TWO_WORST if len(at_worst) >= 2 else ROW_MODIFIER[worst]
    described = ", ".join(
        f"{name} ({ROW_MODIFIER[row]})" + (" after gear" if row != _raw(name) else "")
        for name, row in counted.items()
    )
    if shifts:
        described += f"; range moved closer by {' and '.join(shifts)}"
    if len(counted) == 1 and not shifts and next(iter(counted)).startswith("range"):
        source = f"range ({band})"  # the usual case: range alone
    else:
        source = f"environment: {described}; " + (
            "two at the worst make -10" if len(at_worst) >= 2 else "the worst counts"
        )
    return Environment(Modifier(source, value), total_darkness=light == WORST)


def _raw(name: str) -> int:
    """The row a condition named 'kind level' stands in before any gear."""
    kind, level = name.split(" ", 1)
    table = {"visibility": VISIBILITY, "light": LIGHT, "glare": GLARE, "wind": WIND}
    return (table.get(kind) or RANGE).index(level)
