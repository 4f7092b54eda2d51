"""Plane geometry for zones: metres on the scene plane, angles in degrees (0 = +x, counter-
clockwise). Shared by every ruleset's suppression zones (triangles, circles, and Hard Life's
polygons, which need not be convex)."""

from __future__ import annotations

import math
from collections.abc import Sequence

Point = tuple[float, float]


def triangle(origin: Point, direction_deg: float, length: float, end_width: float) -> list[Point]:
    """A triangle from `origin` along `direction_deg`, `end_width` wide at `length`."""
    angle = math.radians(direction_deg)
    ux, uy = math.cos(angle), math.sin(angle)
    px, py = -uy, ux  # the perpendicular
    ex, ey = origin[0] + ux * length, origin[1] + uy * length
    half = end_width / 2
    return [origin, (ex + px * half, ey + py * half), (ex - px * half, ey - py * half)]


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def contains(polygon: Sequence[Point], point: Point) -> bool:
    """Inside or on the edge of a convex polygon."""
    signs = [
        _cross(polygon[i], polygon[(i + 1) % len(polygon)], point) for i in range(len(polygon))
    ]
    return all(s >= -1e-9 for s in signs) or all(s <= 1e-9 for s in signs)


def inside(polygon: Sequence[Point], point: Point) -> bool:
    """Inside or on the edge of any simple polygon, convex or not (even-odd crossings)."""
    n = len(polygon)
    if any(segment_distance(point, polygon[i], polygon[(i + 1) % n]) <= 1e-9 for i in range(n)):
        return True
    x, y = point
    crossings = 0
    for i in range(n):
        (ax, ay), (bx, by) = polygon[i], polygon[(i + 1) % n]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            crossings += 1
    return crossings % 2 == 1


def area(polygon: Sequence[Point]) -> float:
    """The area a simple polygon encloses (the shoelace formula), whichever way it winds."""
    n = len(polygon)
    twice = sum(
        polygon[i][0] * polygon[(i + 1) % n][1] - polygon[(i + 1) % n][0] * polygon[i][1]
        for i in range(n)
    )
    return abs(twice) / 2


def _on_segment(a: Point, b: Point, p: Point) -> bool:
    return min(a[0], b[0]) - 1e-9 <= p[0] <= max(a[0], b[0]) + 1e-9 and (
        min(a[1], b[1]) - 1e-9 <= p[1] <= max(a[1], b[1]) + 1e-9
    )


def _segments_meet(a: Point, b: Point, c: Point, d: Point) -> bool:
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    if ((d1 > 1e-9 and d2 < -1e-9) or (d1 < -1e-9 and d2 > 1e-9)) and (
        (d3 > 1e-9 and d4 < -1e-9) or (d3 < -1e-9 and d4 > 1e-9)
    ):
        return True
    return (
        (abs(d1) <= 1e-9 and _on_segment(c, d, a))
        or (abs(d2) <= 1e-9 and _on_segment(c, d, b))
        or (abs(d3) <= 1e-9 and _on_segment(a, b, c))
        or (abs(d4) <= 1e-9 and _on_segment(a, b, d))
    )


def crosses_itself(polygon: Sequence[Point]) -> bool:
    """Whether two edges that do not share a corner meet (the polygon is not simple)."""
    n = len(polygon)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # the last edge and the first share the first corner
            a, b = polygon[i], polygon[(i + 1) % n]
            c, d = polygon[j], polygon[(j + 1) % n]
            if _segments_meet(a, b, c, d):
                return True
    return False


def segment_distance(point: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = (
        0.0
        if length2 == 0
        else max(0.0, min(1.0, ((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length2))
    )
    return math.hypot(point[0] - (a[0] + t * dx), point[1] - (a[1] + t * dy))


def distance(polygon: Sequence[Point], point: Point) -> float:
    """0 inside; else how far `point` is from the polygon's edge."""
    if contains(polygon, point):
        return 0.0
    return min(
        segment_distance(point, polygon[i], polygon[(i + 1) % len(polygon)])
        for i in range(len(polygon))
    )


def in_zone(
    points: Sequence[Point], center: Point | None, radius_m: float | None, point: Point
) -> bool:
    """Inside a zone as the wire draws it: a polygon's points, or a circle's centre and radius."""
    if center is not None and radius_m is not None:
        return math.hypot(point[0] - center[0], point[1] - center[1]) <= radius_m + 1e-9
    return len(points) >= 3 and inside(points, point)
