"""The Hard Life body map (README: the product's own figure for 004's missing Figure 1) and its
serving at GET /v1/rulesets/sr3-hardlife."""

from __future__ import annotations

import math
from typing import Any, get_args

from schemas.sr3hl import Hex, Location
from service.rules.sr3hl import body, odds_auto, tables

PROBLEM = "application/problem+json"


def test_every_location_of_tables_6_and_10_is_on_the_map() -> None:
    on_map = set(body.HEXES.values())
    assert on_map == set(get_args(Location))
    assert set(tables.DAMAGE_MODIFIERS) == on_map
    assert set(tables.HIT_LOCATION.values()) | set(tables.EXTREMITY.values()) == on_map


def test_each_location_is_one_piece_and_its_aim_point_is_on_it() -> None:
    for location in get_args(Location):
        cells = {h for h, loc in body.HEXES.items() if loc == location}
        start = next(iter(cells))
        seen = {start}
        frontier = [start]
        while frontier:
            at = frontier.pop()
            for d in body.DIRECTIONS:
                (nxt,) = body.step(at, d, 1)
                if nxt in cells and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        assert seen == cells, location
        assert body.location_at(body.AIM_POINTS[location]) == location


def test_the_default_aim_point_is_the_torso() -> None:
    # 004's Carter example: 5 net successes do not scatter and the goon is hit in the torso.
    assert body.location_at(body.DEFAULT_AIM) == "torso"


def test_direction_1_is_up_then_clockwise() -> None:
    # Flat-topped hexes drawn at x = 1.5 q, y = sqrt(3) (r + q / 2), y down: the six steps
    # go up, then round clockwise (the screen's angle from "up" grows by 60 degrees a step).
    angles = []
    for d in range(1, 7):
        step = list(body.DIRECTIONS.values())[d - 1]
        x, y = 1.5 * step.q, math.sqrt(3) * (step.r + step.q / 2)
        angles.append(round(math.degrees(math.atan2(x, -y)) % 360))
    assert angles == [0, 60, 120, 180, 240, 300]


def test_scatter_follows_table_1() -> None:
    # 004, Table 1: 1 net -> 3 hexes, 2 -> 2, 3 -> 1, 4+ -> 0; README: a tie (0) -> 4.
    assert [body.scatter_hexes(n) for n in range(7)] == [4, 3, 2, 1, 0, 0, 0]


def test_a_scatter_lands_where_its_steps_end() -> None:
    # From the torso centre straight up: vitals, then the two head hexes, then off the body.
    path = body.step(body.DEFAULT_AIM, 1, 4)
    assert [body.location_at(h) for h in path] == ["vitals", "head", "head", None]
    assert path[-1] == Hex(body.DEFAULT_AIM.q, body.DEFAULT_AIM.r - 4)


async def test_the_body_map_is_served_for_clients_to_draw(client: Any) -> None:
    response = await client.get("/v1/rulesets/sr3-hardlife")
    assert response.status == 200
    served = await response.json()
    assert served["id"] == "sr3-hardlife"
    assert "attack" in served["dice_steps"]
    hexes = served["body_map"]["hexes"]
    assert len(hexes) == len(body.HEXES)
    assert {h["location"] for h in hexes} == set(get_args(Location))
    torso = served["body_map"]["default_aim"]
    assert body.location_at(Hex(torso["q"], torso["r"])) == "torso"
    assert served["body_map"]["directions"]["1"] == {"q": 0, "r": -1}
    assert sorted(served["body_map"]["primary"]) == ["groin", "head", "torso", "vitals"]


async def test_other_rulesets_have_no_body_map_and_an_unknown_one_is_a_404(client: Any) -> None:
    sr3 = await (await client.get("/v1/rulesets/sr3")).json()
    assert sr3["body_map"] is None
    assert sr3["initiative"]["base"] == ["reaction"]
    missing = await client.get("/v1/rulesets/sr6")
    assert missing.status == 404
    assert missing.content_type == PROBLEM
    problem = await missing.json()
    assert problem["path"] == "ruleset"
    assert "sr6" in problem["detail"]


def test_the_distance_to_the_figure_is_counted_in_hexes() -> None:
    """odds_auto.to_body (a path of automatic fire off the figure ends when the rounds still to
    come cannot scatter back): 4 straight up from the head's top hex (column 2, row 0) is 4
    hexes from the figure (the head is its highest hex; the torso's side columns begin a row
    lower), and every hex around the figure, out past where the table is worked out at import,
    is as far as its nearest hex of the map."""
    top = body.axial(2, 0)
    assert odds_auto.to_body(Hex(top.q, top.r - 4)) == 4
    assert all(odds_auto.to_body(h) == 0 for h in body.HEXES)

    def nearest(at: Hex) -> int:
        return min(
            (abs(at.q - h.q) + abs(at.r - h.r) + abs(at.q - h.q + at.r - h.r)) // 2
            for h in body.HEXES
        )

    for q in range(-32, 37):
        for r in range(-34, 36):
            assert odds_auto.to_body(Hex(q, r)) == nearest(Hex(q, r)), (q, r)
