"""Every Hard Life shot of tests/test_sr3hl_rules.py and every zone test of
tests/test_sr3hl_suppression.py through the HTTP API: each attack those tests resolve from a
fresh encounter (their table rows, their rules, 004's worked examples, with their given dice) is
sent as a VTT sends it and must answer exactly what the rules core resolves, and leave the same
state (or be refused the same way); each zone test against the zone Pete's suppression fire
leaves, fired over HTTP first; 004's worked examples also on Redis and the cluster.

The bodies are gathered by running the rule tests' own functions with their parameters while
their `run` and `zone_test` record what they resolve (only those from an empty state and turn,
or the plain zone: the rest need state that tests/test_sr3hl_turn_http.py builds through the
API).
"""

from __future__ import annotations

import copy
import inspect
import itertools
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.sr3hl import HLAttackRequest, HLState, HLZoneTestRequest
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from tests import test_sr3hl_rules as rules
from tests import test_sr3hl_suppression as suppression
from tests.test_api import new_encounter

HL = RULESETS["sr3-hardlife"]
SEED = 20261201


def _gathered(
    module: Any, recorder: str, keep: Callable[[dict[str, Any], dict[str, Any]], bool]
) -> dict[str, dict[str, Any]]:
    """Every body `module`'s tests hand to its `recorder` function that `keep` accepts (the
    body and the other arguments), by the test that sent it."""
    found: dict[str, dict[str, Any]] = {}
    original = getattr(module, recorder)
    name = ""

    def recording(*args: Any, **fields: Any) -> Any:
        bound = inspect.signature(original).bind(*args, **fields)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        body = arguments.get("body") or arguments.get("fields") or {}
        if keep(copy.deepcopy(body), arguments):
            found.setdefault(f"{name}#{len(found)}", copy.deepcopy(body))
        return original(*args, **fields)

    setattr(module, recorder, recording)
    try:
        for name, test in inspect.getmembers(module, inspect.isfunction):
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
                continue  # needs a fixture (monkeypatch, a client): not a plain rule case
            for combo in itertools.product(*grids) if grids else [()]:
                arguments: dict[str, Any] = {}
                for part in combo:
                    arguments.update(part)
                test(**arguments)
    finally:
        setattr(module, recorder, original)
    return found


BODIES = _gathered(
    rules,
    "run",
    lambda body, given: (
        given["state"] is None and given["turn"] is None and "suppression" not in body
    ),
)
# Zone tests against the zone Pete's suppression fire leaves when unhurt (zone_state()'s): an
# injured shooter's rows need its wounds, which tests/test_sr3hl_suppression.py checks there.
ZONE_TESTS = _gathered(
    suppression,
    "zone_test",
    lambda body, given: (
        given["state"] in (None, suppression.zone_state()) and given["zone"] == "zone-1"
    ),
)
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
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_rules.py and tests/test_sr3hl_http_by_hand.py."""
    await _answers_as_resolved(memory_client, BODIES[name])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
async def test_the_worked_examples_answer_over_http_on_every_store(client: Any, name: str) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_rules.py and tests/test_sr3hl_http_by_hand.py."""
    await _answers_as_resolved(client, EXAMPLES[name])


def test_the_suppression_tests_give_the_http_tests_their_zone_tests() -> None:
    for table in ("table_9", "table_10", "pete", "dodge", "tie", "cover"):
        assert any(table in name for name in ZONE_TESTS), table


@pytest.mark.parametrize("name", sorted(ZONE_TESTS))
async def test_each_zone_test_answers_over_http_as_the_rules_core_resolves_it(
    memory_client: Any, name: str
) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_suppression.py."""
    # Pete's suppression fire over HTTP makes the zone the rules test against; the zone test
    # then answers as resolve_zone_test does against it (or is refused the same way).
    fields = ZONE_TESTS[name]
    encounter = await new_encounter(memory_client, ruleset="sr3-hardlife", dice_policy="any")
    fired = {
        "attacker": suppression.PETE,
        "weapon": suppression.SMG,
        "mode": "FA",
        "suppression": {"area": suppression.SQUARE, "bullets_per_m2": 6},
    }
    response = await memory_client.post(f"/v1/encounters/{encounter}/attacks", json=fired)
    assert response.status == 201, await response.text()
    body = {"actor": "whisper", "defender": suppression.WHISPER, "distance_m": 8, **fields}
    body["seed"] = SEED
    response = await memory_client.post(f"/v1/encounters/{encounter}/zones/zone-1/tests", json=body)
    request = msgspec.convert(body, HLZoneTestRequest)
    try:
        resolution = HL.resolve_zone_test(
            "zone-1", request, suppression.zone_state(), TurnState(), Dice(SEED, request.dice)
        )
    except RuleViolation as refused:
        assert response.status == refused.status, await response.text()
        problem = await response.json()
        assert problem["path"] == refused.path
        return
    assert response.status == 201, await response.text()
    assert (await response.json())["result"] == msgspec.to_builtins(resolution.result)
