"""One rule's case sent over HTTP as a VTT sends it (actions first, then the attack with a seed)
answers exactly what the rules core resolves for it; and the same case with given dice answers
the numbers worked out by hand. Shared by every ruleset's HTTP tests.

`answers_as_resolved` is a plumbing check only: the rules core is on both sides of it, so it
cannot see a rule bug (two rule mutations once passed every one of them). `answers_by_hand`,
with numbers written in the test, is what checks the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    """The HTTP answer is the rules core's for the same request and state: the plumbing (the
    request's decoding, the state kept between requests, the answer's encoding), not the rules."""
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


async def answer(
    client: Any, ruleset_id: str, actor: str, actions: list[dict[str, Any]], body: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The encounter and the POST answer's `result` for `body` after `actions`, over HTTP."""
    encounter = await new_encounter(client, ruleset=ruleset_id)
    for action in actions:
        response = await client.post(
            f"/v1/encounters/{encounter}/actions", json={"actor": actor, **action}
        )
        assert response.status == 201, await response.text()
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 201, await response.text()
    result: dict[str, Any] = (await response.json())["result"]
    return encounter, result


# What `mismatches` finds at a path the document does not have: expect it to say "not kept".
MISSING = "<missing>"

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[(\w+)=([^\]]+)\]")


def at(document: Any, path: str) -> Any:
    """The value at `path` in a JSON document: `targets[0].damage.boxes`, and
    `modifiers[source=recoil].value` for the item of a list whose field has that value."""
    value = document
    for key, index, name, wanted in _STEP.findall(path.replace("].", "]").replace(".[", "[")):
        if key:
            value = value[key]
        elif index:
            value = value[int(index)]
        else:
            matches = [item for item in value if str(item.get(name)) == wanted]
            assert len(matches) == 1, f"{path}: {len(matches)} items with {name}={wanted}"
            value = matches[0]
    return value


def mismatches(document: Any, expected: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Each expected path whose value differs, as (expected, found); a missing path is found
    as `MISSING`."""
    found: dict[str, tuple[Any, Any]] = {}
    for path, value in expected.items():
        try:
            actual = at(document, path)
        except (KeyError, IndexError, TypeError):
            actual = MISSING
        if actual != value:
            found[path] = (value, actual)
    return found


@dataclass(frozen=True)
class Case:
    """One rule over HTTP: the actions taken first and the attack (sent with a seed for the
    parity test); the dice to give it for the hand-worked test, the numbers worked out by hand
    for the answer's `result` (paths as `at` reads them), and for the encounter's `combat`
    state afterwards (`GET /v1/encounters/{id}`) where the rule's point is a change of state."""

    rule: str
    actions: list[dict[str, Any]]
    body: dict[str, Any]
    dice: dict[str, list[int]]
    expected: dict[str, Any]
    combat: dict[str, Any] = field(default_factory=dict)


async def answers_by_hand(client: Any, ruleset_id: str, actor: str, case: Case) -> None:
    body = {**case.body, "dice": case.dice}
    encounter, result = await answer(client, ruleset_id, actor, case.actions, body)
    wrong = mismatches(result, case.expected)
    assert not wrong, f"{case.rule}: result (expected, found): {wrong}"
    if case.combat:
        combat = (await (await client.get(f"/v1/encounters/{encounter}")).json())["combat"]
        wrong = mismatches(combat, case.combat)
        assert not wrong, f"{case.rule}: combat state (expected, found): {wrong}"
