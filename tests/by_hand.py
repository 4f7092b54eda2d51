"""What the hand-worked HTTP suites share (tests/test_<ruleset>_http_by_hand.py): an attack's
result and the state (their `store_client` is in conftest.py)."""

from __future__ import annotations

from typing import Any


async def attack(client: Any, encounter: str, body: dict[str, Any]) -> dict[str, Any]:
    """The result of an attack that must stand (201)."""
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 201, await response.text()
    result: dict[str, Any] = (await response.json())["result"]
    return result


async def state(client: Any, encounter: str) -> dict[str, Any]:
    """The encounter as GET answers it."""
    answer: dict[str, Any] = await (await client.get(f"/v1/encounters/{encounter}")).json()
    return answer
