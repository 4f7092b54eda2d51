"""Plane geometry of a blast wave: which walls a wave crosses on its way to someone, the point a
wall mirrors, and where a path crosses it. Metres on the scene plane (service/rules/geometry.py's
`Point`); used by the SR4 grenades (service/rules/sr4/grenades.py), free of any ruleset."""

from __future__ import annotations

import math

from service.rules.geometry import Point, segment_distance

# Below this a length or a cross product counts as zero (positions are given in metres, to
# centimetres at best).
EPSILON = 1e-9

__all__ = ["EPSILON", "Point", "crossing", "distance", "mirror", "segment_distance"]


def distance(a: Point, b: Point) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def _cross(ox: float, oy: float, ax: float, ay: float) -> float:
    return ox * ay - oy * ax


def crossing(a: Point, b: Point, c: Point, d: Point) -> float | None:
    """Where the path from `a` to `b` crosses the wall from `c` to `d`, as the fraction of the
    path (0 at `a`, 1 at `b`); None when it does not cross it.

    A path along the wall's line (parallel to it), or that starts or ends on the wall, does not
    cross it: a blast against a wall's face goes out on its own side, and someone standing
    against a wall is on the side they stand. A path through an end of the wall crosses it."""
    rx, ry = b[0] - a[0], b[1] - a[1]
    sx, sy = d[0] - c[0], d[1] - c[1]
    denominator = _cross(rx, ry, sx, sy)
    if abs(denominator) < EPSILON:
        return None
    qx, qy = c[0] - a[0], c[1] - a[1]
    t = _cross(qx, qy, sx, sy) / denominator
    u = _cross(qx, qy, rx, ry) / denominator
    if t <= EPSILON or t >= 1 - EPSILON or u < -EPSILON or u > 1 + EPSILON:
        return None
    return t


def mirror(point: Point, c: Point, d: Point) -> Point:
    """`point` mirrored across the line through `c` and `d` (where a wave reflected off that
    wall seems to come from)."""
    sx, sy = d[0] - c[0], d[1] - c[1]
    length2 = sx * sx + sy * sy
    if length2 < EPSILON:
        return point
    t = ((point[0] - c[0]) * sx + (point[1] - c[1]) * sy) / length2
    foot = (c[0] + t * sx, c[1] + t * sy)
    return (2 * foot[0] - point[0], 2 * foot[1] - point[1])
