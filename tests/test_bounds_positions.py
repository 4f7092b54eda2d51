"""Positions are bounded as every other length is: 1e308 put two actors `inf` metres apart."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.common import MAX_COORDINATE_M
from tests import sr5_requests as make
from tests.test_api import new_encounter


@pytest.mark.parametrize("value", [1e308, -1e308, MAX_COORDINATE_M + 1, -MAX_COORDINATE_M - 1])
@pytest.mark.parametrize("axis", ["x", "y"])
async def test_positions_beyond_the_plane_are_a_400_naming_the_field(
    memory_client: Any, value: float, axis: str
) -> None:
    encounter = await new_encounter(memory_client)
    position = {"x": 0.0, "y": 0.0, axis: value}
    actor = {"name": "Sam", "position": position}
    put = await memory_client.put(f"/v1/encounters/{encounter}/actors/sam", json=actor)
    assert put.status == 400, await put.text()
    assert (await put.json())["path"] == f"$.position.{axis}"
    await memory_client.put(f"/v1/encounters/{encounter}/actors/sam", json={"name": "Sam"})
    moved = await memory_client.post(
        f"/v1/encounters/{encounter}/actors/sam/move", json={"position": position}
    )
    assert moved.status == 400, await moved.text()
    assert (await moved.json())["path"] == f"$.position.{axis}"


async def test_positions_at_the_edges_of_the_plane_are_taken(memory_client: Any) -> None:
    """Two actors at opposite corners of the plane are a finite distance apart."""
    encounter = await new_encounter(memory_client)
    for actor_id, corner in (("sam", -MAX_COORDINATE_M), ("goon-1", MAX_COORDINATE_M)):
        actor = {"name": actor_id, "position": {"x": corner, "y": corner}}
        put = await memory_client.put(f"/v1/encounters/{encounter}/actors/{actor_id}", json=actor)
        assert put.status == 200, await put.text()


async def test_a_zone_reaching_past_the_plane_ends_at_its_edge(memory_client: Any) -> None:
    """Suppressive fire from 10 m inside the plane's edge, 30 m along +x: the zone's far corners
    would be at x = 999,990 + 30 = 1,000,020, past the plane. They are kept on its edge, so the
    state that holds the zone reads back (it would not, with a corner the Point type refuses)."""
    encounter = await new_encounter(memory_client)
    base = f"/v1/encounters/{encounter}"
    edge = MAX_COORDINATE_M
    body = make.attack(
        mode="suppressive",
        weapon=make.weapon(category="light_machine_gun", modes=["FA"], ammo=100),
        targets=[],
        zone={"origin": {"x": edge - 10, "y": 0}, "direction_deg": 0, "length_m": 30},
    )
    response = await memory_client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    corners = (await response.json())["result"]["zone"]["zone"]["points"]
    assert corners[0] == {"x": edge - 10, "y": 0.0}
    assert [corner["x"] for corner in corners[1:]] == [edge, edge]
    view = await memory_client.get(base)
    assert view.status == 200, await view.text()
    (zone,) = (await (await memory_client.get(f"{base}/zones")).json())["zones"]
    assert zone["points"] == corners
