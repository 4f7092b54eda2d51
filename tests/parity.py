"""One rule's case sent over HTTP as a VTT sends it (actions first, then the attack with a seed)
answers exactly what the rules core resolves for it: shared by every ruleset's HTTP tests."""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import TurnState
from service.rules import RULESETS
from service.rules.dice import Dice
from tests.test_api import new_encounter

SEED = 20261130


def resolved(
    ruleset_id: str, actor: str, actions: list[dict[str, Any]], body: dict[str, Any]
) -> dict[str, Any]:
    ruleset = RULESETS[ruleset_id]
    state = ruleset.new_state()
    for action in actions:
        request = msgspec.convert({"actor": actor, **action}, ruleset.action_type)
        state = ruleset.resolve_action(request, state, TurnState(), Dice(0)).state
    attack = msgspec.convert(body, ruleset.attack_type)
    resolution = ruleset.resolve_attack(attack, state, TurnState(), Dice(body["seed"], attack.dice))
    result: dict[str, Any] = msgspec.to_builtins(resolution.result)
    return result


async def answers_as_resolved(
    client: Any, ruleset_id: str, actor: str, actions: list[dict[str, Any]], body: dict[str, Any]
) -> None:
    body = {**body, "seed": SEED}
    encounter = await new_encounter(client, ruleset=ruleset_id)
    for action in actions:
        response = await client.post(
            f"/v1/encounters/{encounter}/actions", json={"actor": actor, **action}
        )
        assert response.status == 201, await response.text()
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 201, await response.text()
    assert (await response.json())["result"] == resolved(ruleset_id, actor, actions, body)
