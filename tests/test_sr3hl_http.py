"""Every Hard Life shot of tests/test_sr3hl_rules.py through the HTTP API: each attack those
tests resolve from a fresh encounter (its table rows, its rules, 004's worked examples, with
their given dice) is sent as a VTT sends it and must answer exactly the result the rules core
resolves, and leave the same state; 004's worked examples also on Redis and the cluster.

The bodies are gathered by running the rule tests' own functions with their parameters while
`run` records what it resolves (only those that start from an empty state and turn: the rest
need state the HTTP tests of the turn, tests/test_sr3hl_turn.py, build through the API).
"""

from __future__ import annotations

import copy
import inspect
import itertools
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.sr3hl import HLAttackRequest, HLState
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from tests import test_sr3hl_rules as rules
from tests.test_api import new_encounter

HL = RULESETS["sr3-hardlife"]
SEED = 20261201


def _gathered() -> dict[str, dict[str, Any]]:
    """Every body the rule tests resolve from an empty state, by the test that sent it."""
    found: dict[str, dict[str, Any]] = {}
    original = rules.run

    def recording(body: dict[str, Any], state: Any = None, turn: Any = None) -> Any:
        if state is None and turn is None and "suppression" not in body:
            found.setdefault(f"{name}#{len(found)}", copy.deepcopy(body))
        return original(body, state, turn)

    rules.run = recording  # type: ignore[assignment]
    try:
        for name, test in inspect.getmembers(rules, inspect.isfunction):
            if not name.startswith("test_") or getattr(test, "hypothesis", None) is not None:
                continue
            marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
            wanted = set(inspect.signature(test).parameters)
            grids = []
            for mark in marks:
                given_names = mark.args[0]
                names = (
                    [n.strip() for n in given_names.split(",")]
                    if isinstance(given_names, str)
                    else list(given_names)
                )
                values = [v if len(names) > 1 else (v,) for v in mark.args[1]]
                grids.append([dict(zip(names, v, strict=True)) for v in values])
            given = {n for grid in grids for n in grid[0]} if grids else set()
            if wanted - given:
                continue  # needs a fixture (monkeypatch): not a plain rule case
            for combo in itertools.product(*grids) if grids else [()]:
                arguments: dict[str, Any] = {}
                for part in combo:
                    arguments.update(part)
                test(**arguments)
    finally:
        rules.run = original  # type: ignore[assignment]
    return found


BODIES = _gathered()
EXAMPLES = {
    k: v
    for k, v in BODIES.items()
    if any(w in k for w in ("carter", "goon", "whisper", "pete", "ripley"))
}


def test_the_rule_tests_give_the_http_tests_their_cases() -> None:
    # Every table of 004 the rule tests cover comes through: a test that stopped sending its
    # bodies through `run` would drop out of the HTTP tests unseen.
    for table in (
        "table_1",
        "table_2",
        "table_3",
        "table_4",
        "table_5",
        "table_6",
        "table_7",
        "table_8",
        "carter",
        "whisper",
        "pete",
    ):
        assert any(table in name for name in BODIES), table
    assert len(BODIES) > 300


def resolved(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    request = msgspec.convert(body, HLAttackRequest)
    resolution = HL.resolve_attack(
        request, HLState(), TurnState(), Dice(body["seed"], request.dice)
    )
    state = msgspec.to_builtins(resolution.state)
    return msgspec.to_builtins(resolution.result), state["actors"]


async def _answers_as_resolved(client: Any, body: dict[str, Any]) -> None:
    body = {**body, "seed": SEED}
    encounter = await new_encounter(client, ruleset="sr3-hardlife", dice_policy="any")
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    try:
        expected, actors = resolved(body)
    except RuleViolation as refused:
        # A refused shot is refused over HTTP the same way: the status, the kind and the field.
        assert response.status == refused.status, await response.text()
        problem = await response.json()
        assert (problem["type"].rsplit("/", 1)[-1], problem["path"]) == (refused.kind, refused.path)
        return
    assert response.status == 201, await response.text()
    assert (await response.json())["result"] == expected
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["combat"]["actors"] == actors


@pytest.mark.parametrize("name", sorted(BODIES))
async def test_each_shot_answers_over_http_as_the_rules_core_resolves_it(
    memory_client: Any, name: str
) -> None:
    await _answers_as_resolved(memory_client, BODIES[name])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
async def test_the_worked_examples_answer_over_http_on_every_store(client: Any, name: str) -> None:
    await _answers_as_resolved(client, EXAMPLES[name])
