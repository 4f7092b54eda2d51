"""The contract's examples: every operation has them, each validates against its operation's
schemas, every body is a `curl` body of the README or the guides (and every such body
validates), and the service, given the examples' requests in order, answers what the examples
say (tests/openapi_examples.py plays and writes them, tests/openapi_scenario.py says what)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest

from service.api.examples import EXAMPLES
from service.api.openapi import document
from service.api.operations import OPERATIONS
from tests.openapi_examples import BY_ID, masked, play, serve
from tests.openapi_scenario import (
    GOON_ZONE_TEST,
    PAGES,
    README_ATTACK,
    README_CREATE,
    SCENARIO,
    shell_calls,
)

DOC = json.loads(json.dumps(document()))
SOCKETS = DOC["x-websockets"]


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    with serve() as url:
        yield url


def validator(schema: dict[str, Any]) -> jsonschema_rs.Draft202012Validator:
    """`schema` (a `$ref` into the document, most of the time) with the document's components."""
    return jsonschema_rs.Draft202012Validator({**schema, "components": DOC["components"]})


def violations(schema: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{list(e.instance_path)}: {e.message}"[:300] for e in validator(schema).iter_errors(value)
    ]


def operation(operation_id: str) -> dict[str, Any]:
    op = BY_ID[operation_id]
    found: dict[str, Any] = DOC["paths"][op.path][op.method]
    return found


def test_every_operation_has_its_examples() -> None:
    """A new operation without examples fails here: `python -m tests.openapi_examples` writes
    them once the scenario (tests/openapi_scenario.py) calls it."""
    assert sorted(EXAMPLES) == sorted(op.operation_id for op in OPERATIONS)
    for op in OPERATIONS:
        example = EXAMPLES[op.operation_id]
        if op.websocket:
            assert set(example) == {"message"}, op.operation_id
            continue
        # A JSON body has its example; a file (an import) is sent as it is.
        assert ("request" in example) == (op.request is not None), op.operation_id
        assert "answer" in example, op.operation_id
    # And the document carries them: every operation's answer, every JSON body.
    for op in OPERATIONS:
        if op.websocket:
            assert SOCKETS[op.path]["messageExample"] == EXAMPLES[op.operation_id]["message"]
            continue
        entry = operation(op.operation_id)
        answers = [
            content["example"]
            for response in entry["responses"].values()
            for content in response.get("content", {}).values()
            if "example" in content
        ]
        assert answers == [EXAMPLES[op.operation_id]["answer"]], op.operation_id


@pytest.mark.parametrize("operation_id", sorted(EXAMPLES))
def test_each_example_validates_against_its_schemas(operation_id: str) -> None:
    example = EXAMPLES[operation_id]
    if BY_ID[operation_id].websocket:
        assert violations(SOCKETS[BY_ID[operation_id].path]["message"], example["message"]) == []
        return
    op = operation(operation_id)
    if "request" in example:
        body = op["requestBody"]["content"]["application/json"]
        assert body["example"] == example["request"]
        assert violations(body["schema"], example["request"]) == []
    # JSON, or the metrics' text/plain.
    (answer,) = op["responses"][str(example["status"])]["content"].values()
    assert answer["example"] == example["answer"]
    assert violations(answer["schema"], example["answer"]) == []


def test_the_check_sees_a_body_that_does_not_fit() -> None:
    schema = operation("createEncounter")["requestBody"]["content"]["application/json"]["schema"]
    assert violations(schema, {"ruleset": "sr5"}) == []
    assert violations(schema, {"ruleset": "sr6"}) != []
    assert violations(schema, {"ruleset": "sr5", "nmae": "typo"}) != []
    answer = operation("resolveAttack")["responses"]["201"]["content"]["application/json"]
    without_kind = json.loads(json.dumps(EXAMPLES["resolveAttack"]["answer"]))
    del without_kind["result"]["kind"]
    assert violations(answer["schema"], without_kind) != []
    message = json.loads(json.dumps(EXAMPLES["watchEvents"]["message"]))
    message["type"] = "no-such-event"
    assert violations(SOCKETS["/v1/encounters/{encounter}/ws"]["message"], message) != []


def test_the_readme_quickstart_bodies_are_the_examples() -> None:
    assert EXAMPLES["createEncounter"]["request"] == README_CREATE
    assert EXAMPLES["resolveAttack"]["request"] == README_ATTACK
    # The odds: the same body without its dice, as the README says.
    assert EXAMPLES["previewAttackOdds"]["request"] == {
        k: v for k, v in README_ATTACK.items() if k != "dice"
    }
    assert set(README_ATTACK["dice"]) == {"attack", "defense:goon-1", "soak:goon-1"}


def test_every_request_example_is_a_body_of_the_docs() -> None:
    documented: dict[str, list[dict[str, Any]]] = {}
    for page in PAGES:
        for call in shell_calls(page):
            if call.body is not None:
                documented.setdefault(call.operation.operation_id, []).append(call.body)
    # The odds previews take "the same body without `dice`" (the README; docs/api.md,
    # "Suppression zones").
    odds = {"previewAttackOdds": "resolveAttack", "previewZoneTestOdds": "resolveZoneTest"}
    for operation_id, example in EXAMPLES.items():
        if "request" not in example:
            continue
        if operation_id in odds:
            bodies = documented[odds[operation_id]]
            assert any(
                example["request"] == {k: v for k, v in b.items() if k != "dice"} for b in bodies
            ), operation_id
        else:
            assert example["request"] in documented[operation_id], operation_id
    assert EXAMPLES["previewZoneTestOdds"]["request"] == {"actor": "goon-1"}
    assert EXAMPLES["resolveZoneTest"]["request"] == GOON_ZONE_TEST


@pytest.mark.parametrize("page", PAGES)
def test_every_curl_body_of_the_docs_validates(page: str) -> None:
    calls = shell_calls(page)
    bodies = [call for call in calls if call.body is not None]
    # Every body the page gives (a check that finds none checks nothing).
    assert len(bodies) == {"README.md": 2, "docs/api.md": 21, "docs/campaigns.md": 5}[page]
    for call in bodies:
        op = DOC["paths"][call.operation.path][call.operation.method]
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        assert violations(schema, call.body) == [], (page, call.operation.operation_id)


def test_the_service_answers_what_the_examples_say(served: str) -> None:
    played = play(served)
    assert list(played) == [step.operation_id for step in SCENARIO if step.record]
    assert masked(played) == masked(EXAMPLES), (
        "the examples are stale: `python -m tests.openapi_examples` writes them anew"
    )
    # The README's numbers, in its example: 9 boxes of physical damage to goon-1.
    [target] = EXAMPLES["resolveAttack"]["answer"]["result"]["targets"]
    assert (target["net_hits"], target["damage"]["boxes"]) == (3, 9)
    assert target["damage"]["track"] == "physical"


def test_the_zone_test_and_its_damage_as_worked_by_hand() -> None:
    """docs/api.md, "Suppression zones" and "Condition monitors and damage": Vex's 2 hits (two
    5s of 10 dice) are the threshold. The ganger tests Reaction 3 + Edge 0 - 1 for the 4 boxes
    the GM set (-1 per 3) = 2 dice, 2 and 2: no hit, so the gun hits it, DV 10 against armour
    9 - 2 AP = 7, soaked with Body 4 + 7 = 11 dice, one 5: 9 boxes, waiting as d1. Applied:
    4 + 9 = 13 of 10 physical boxes, 3 in overflow (of Body 4): dying."""
    result = EXAMPLES["resolveZoneTest"]["answer"]["result"]
    assert (result["threshold"], result["pool"], result["test"]["hits"]) == (2, 2, 0)
    damage = result["damage"]
    assert (result["hit"], damage["dv"], damage["armor"], damage["soak_hits"]) == (True, 10, 7, 1)
    assert (damage["boxes"], damage["track"]) == (9, "physical")
    [pending] = EXAMPLES["resolveZoneTest"]["answer"]["changes"]["scene"]["goon-1"]["monitor"][
        "pending"
    ]
    assert (pending["id"], pending["boxes"]) == ("d1", 9)
    monitor = EXAMPLES["applyPendingDamage"]["answer"]["result"]["monitor"]
    assert (monitor["physical"], monitor["overflow"]) == (10, 3)
    assert monitor["status"]["condition"] == "dying"
    # Sam's 8 boxes (Reaction 4: 3 2 2 1, no hit; soak 4 + 7 = 11 dice, 6 and 5: 2 hits) were
    # declined: nothing written.
    declined = EXAMPLES["declinePendingDamage"]["answer"]["result"]
    assert (declined["change"], declined["monitor"].get("physical", 0)) == ("declined", 0)
    # The socket's frame is the decline's event, as the page of events after the applied one.
    [event] = EXAMPLES["listEvents"]["answer"]["events"]
    assert EXAMPLES["watchEvents"]["message"] == event
    assert (event["type"], event["result"]["change"]) == ("monitor", "declined")
