"""Draws Hard Life's body map (service/rules/sr3hl/body.py, as GET /v1/rulesets/sr3-hardlife
serves it) as the SVG of docs/rulesets/sr3-hardlife.md: every hex coloured by its location,
the aim points, the default aim point and the six scatter directions.

`make docs-images` runs it (`python -m scripts.body_map_svg [out.svg]`);
tests/test_sr3hl_suppression.py checks the committed drawing is what the map draws today.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from schemas.sr3hl import BodyMap
from service.rules.sr3hl import body

OUT = Path("docs/img/sr3-hardlife-body-map.svg")
# Pixels per hex size (centre to corner); the map's x, y are in hex sizes.
SIZE = 28.0
MARGIN = 40.0
LEGEND_WIDTH = 190.0
SHORT: dict[str, str] = {
    "head": "head",
    "vitals": "vitals",
    "torso": "torso",
    "groin": "groin",
    "right_arm": "R arm",
    "left_arm": "L arm",
    "right_hand": "R hand",
    "left_hand": "L hand",
    "right_thigh": "R thigh",
    "left_thigh": "L thigh",
    "right_leg": "R leg",
    "left_leg": "L leg",
    "right_foot": "R foot",
    "left_foot": "L foot",
}
COLOURS: dict[str, str] = {
    "head": "#f4c27a",
    "vitals": "#e8776f",
    "torso": "#f2a07b",
    "groin": "#d9a3c9",
    "right_arm": "#9cc7e8",
    "left_arm": "#9cc7e8",
    "right_hand": "#6fa8d6",
    "left_hand": "#6fa8d6",
    "right_thigh": "#a8d8a0",
    "left_thigh": "#a8d8a0",
    "right_leg": "#c8e6a0",
    "left_leg": "#c8e6a0",
    "right_foot": "#8fc26f",
    "left_foot": "#8fc26f",
}


def _corners(cx: float, cy: float) -> str:
    """A flat-topped hex: corners at 0, 60, ..., 300 degrees."""
    points = []
    for k in range(6):
        angle = math.radians(60 * k)
        points.append(f"{cx + SIZE * math.cos(angle):.1f},{cy + SIZE * math.sin(angle):.1f}")
    return " ".join(points)


def draw(body_map: BodyMap) -> str:
    xs = [h.x for h in body_map.hexes]
    ys = [h.y for h in body_map.hexes]
    left, top = min(xs), min(ys)

    def at(x: float, y: float) -> tuple[float, float]:
        return MARGIN + (x - left) * SIZE, MARGIN + (y - top) * SIZE

    width = MARGIN * 2 + (max(xs) - left) * SIZE + LEGEND_WIDTH
    height = MARGIN * 2 + (max(ys) - top) * SIZE + 30
    centre = {(h.q, h.r): at(h.x, h.y) for h in body_map.hexes}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="10">',
        "<title>Hard Life body map (sr3-hardlife): flat-topped hexes, the figure faces the "
        "reader</title>",
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
    ]
    for h in body_map.hexes:
        cx, cy = centre[(h.q, h.r)]
        out.append(
            f'<polygon points="{_corners(cx, cy)}" fill="{COLOURS[h.location]}" '
            f'stroke="#444444" stroke-width="1"><title>{h.location} (q {h.q}, r {h.r})</title>'
            "</polygon>"
        )
        out.append(
            f'<text x="{cx:.1f}" y="{cy + 3:.1f}" text-anchor="middle">{SHORT[h.location]}</text>'
        )
    for location, aim in body_map.aim_points.items():
        cx, cy = centre[(aim.q, aim.r)]
        out.append(
            f'<circle cx="{cx:.1f}" cy="{cy - 10:.1f}" r="3" fill="#222222">'
            f"<title>aim point: {location}</title></circle>"
        )
    dx, dy = centre[(body_map.default_aim.q, body_map.default_aim.r)]
    out.append(
        f'<circle cx="{dx:.1f}" cy="{dy:.1f}" r="{SIZE * 0.7:.1f}" fill="none" '
        'stroke="#c0392b" stroke-width="2.5"><title>default aim point</title></circle>'
    )
    # The directions, around a hex of the legend.
    lx = width - LEGEND_WIDTH + 80
    ly = MARGIN + 60
    out.append(f'<polygon points="{_corners(lx, ly)}" fill="#eeeeee" stroke="#444444"/>')
    out.append(f'<text x="{lx:.1f}" y="{ly - 60:.1f}" text-anchor="middle">scatter d6</text>')
    for number, step in body_map.directions.items():
        # An axial step's centre offset, as body.py places centres (x = 1.5 q,
        # y = sqrt(3) (r + q / 2)).
        ox = 1.5 * step.q * SIZE
        oy = math.sqrt(3) * (step.r + step.q / 2) * SIZE
        tx, ty = lx + ox, ly + oy
        out.append(
            f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{lx + ox * 0.7:.1f}" y2="{ly + oy * 0.7:.1f}" '
            'stroke="#222222" stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{ty + 4:.1f}" text-anchor="middle" font-size="13" '
            f'font-weight="bold">{number}</text>'
        )
    notes = [
        "its right side is on",
        "the viewer's left",
        "ring: default aim (torso)",
        "dot: a location's aim",
        "point (called shots,",
        "suppression rounds)",
    ]
    for i, note in enumerate(notes):
        out.append(f'<text x="{lx - 70:.1f}" y="{ly + 80 + 14 * i:.1f}">{note}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> None:
    target = Path(argv[1]) if len(argv) > 1 else OUT
    target.write_text(draw(body.body_map()), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
