"""The body map: the product's own hit-location figure of hexes (004's "Figure 1" is missing;
README: the product defines it, with every location of Tables 6 and 10, and uses it for aim
points and for scatter directions 1-6, 1 up, then clockwise).

Flat-topped hexes, so that one neighbour is straight up. The figure faces the reader: its right
side is on the viewer's left. Laid out in columns (odd columns sit half a hex lower), drawn in
docs/rulesets/sr3-hardlife.md:

    col:   0      1      2      3      4
    row 0                head
    row 1  r.arm  torso  head   torso  l.arm
    row 2  r.arm  torso  vitals torso  l.arm
    row 3  r.arm  torso  TORSO  torso  l.arm      TORSO: the default aim point
    row 4  r.arm  r.thi  torso  l.thi  l.arm
    row 5  r.hand r.thi  groin  l.thi  l.hand
    row 6         r.leg         l.leg
    row 7         r.leg         l.leg
    row 8         r.foot        l.foot
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from schemas.sr3hl import BodyHex, BodyMap, Hex, Location, ScatterDirection
from service.rules.sr3hl import tables

# (column, row) -> location, columns as drawn above.
_LAYOUT: tuple[tuple[int, int, Location], ...] = (
    (2, 0, "head"),
    (2, 1, "head"),
    (2, 2, "vitals"),
    (2, 3, "torso"),
    (2, 4, "torso"),
    (2, 5, "groin"),
    (1, 1, "torso"),
    (1, 2, "torso"),
    (1, 3, "torso"),
    (3, 1, "torso"),
    (3, 2, "torso"),
    (3, 3, "torso"),
    (1, 4, "right_thigh"),
    (1, 5, "right_thigh"),
    (1, 6, "right_leg"),
    (1, 7, "right_leg"),
    (1, 8, "right_foot"),
    (3, 4, "left_thigh"),
    (3, 5, "left_thigh"),
    (3, 6, "left_leg"),
    (3, 7, "left_leg"),
    (3, 8, "left_foot"),
    (0, 1, "right_arm"),
    (0, 2, "right_arm"),
    (0, 3, "right_arm"),
    (0, 4, "right_arm"),
    (0, 5, "right_hand"),
    (4, 1, "left_arm"),
    (4, 2, "left_arm"),
    (4, 3, "left_arm"),
    (4, 4, "left_arm"),
    (4, 5, "left_hand"),
)
# The hex a shot at each location aims at (column, row): a called shot's aim point, and where a
# suppression round's Table 10 location scatters from.
_AIM: Mapping[Location, tuple[int, int]] = MappingProxyType(
    {
        "head": (2, 1),
        "vitals": (2, 2),
        "torso": (2, 3),
        "groin": (2, 5),
        "right_arm": (0, 2),
        "left_arm": (4, 2),
        "right_hand": (0, 5),
        "left_hand": (4, 5),
        "right_thigh": (1, 4),
        "left_thigh": (3, 4),
        "right_leg": (1, 6),
        "left_leg": (3, 6),
        "right_foot": (1, 8),
        "left_foot": (3, 8),
    }
)
DEFAULT_AIM_LOCATION: Location = "torso"
# Scatter directions as axial steps of flat-topped hexes: 1 up, then clockwise.
DIRECTIONS: Mapping[ScatterDirection, Hex] = MappingProxyType(
    {
        1: Hex(0, -1),
        2: Hex(1, -1),
        3: Hex(1, 0),
        4: Hex(0, 1),
        5: Hex(-1, 1),
        6: Hex(-1, 0),
    }
)


def axial(column: int, row: int) -> Hex:
    """A hex of the layout (odd columns half a hex lower) in axial coordinates."""
    return Hex(column, row - (column - (column & 1)) // 2)


HEXES: Mapping[Hex, Location] = MappingProxyType(
    {axial(col, row): location for col, row, location in _LAYOUT}
)
AIM_POINTS: Mapping[Location, Hex] = MappingProxyType(
    {location: axial(*at) for location, at in _AIM.items()}
)
DEFAULT_AIM = AIM_POINTS[DEFAULT_AIM_LOCATION]


def location_at(at: Hex) -> Location | None:
    """The location of a hex, or None off the body."""
    return HEXES.get(at)


def step(at: Hex, direction: ScatterDirection, hexes: int) -> list[Hex]:
    """The hexes a scatter of `hexes` steps in `direction` passes, the last where it lands."""
    d = DIRECTIONS[direction]
    return [Hex(at.q + d.q * i, at.r + d.r * i) for i in range(1, hexes + 1)]


def scatter_hexes(successes: int) -> int:
    """004, Table 1 (README: 0 net scatters 4): the hexes a shot with these successes
    scatters."""
    if successes >= tables.NO_SCATTER_FROM:
        return 0
    return tables.SCATTER_HEXES[max(successes, 0)]


def _centre(at: Hex) -> tuple[float, float]:
    return 1.5 * at.q, round(math.sqrt(3) * (at.r + at.q / 2), 4)


def body_map() -> BodyMap:
    """The map as GET /v1/rulesets/sr3-hardlife serves it, for clients to draw."""
    return BodyMap(
        hexes=[
            BodyHex(q=h.q, r=h.r, location=loc, x=_centre(h)[0], y=_centre(h)[1])
            for h, loc in HEXES.items()
        ],
        default_aim=DEFAULT_AIM,
        aim_points={loc: at for loc, at in AIM_POINTS.items()},
        directions={str(k): v for k, v in DIRECTIONS.items()},
        primary=sorted(tables.PRIMARY - {"trauma"}),
        limbs=sorted(tables.LIMBS),
    )
