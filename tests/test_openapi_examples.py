"""The contract's examples: each validates against its operation's schemas, the README's and the
API guide's bodies are those examples or validate, and the service, given the examples' requests
in order, answers what the examples say (tests/openapi_examples.py plays and writes them)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest

from service.api.examples import EXAMPLES
from service.api.openapi import document
from tests.openapi_examples import (
    BY_ID,
    README_ATTACK,
    README_CREATE,
    SCENARIO,
    masked,
    play,
    readme_shell_bodies,
)
from tests.test_cli import ROOT, served

__all__ = ["served"]

DOC = json.loads(json.dumps(document()))


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


@pytest.mark.parametrize("operation_id", sorted(EXAMPLES))
def test_each_example_validates_against_its_schemas(operation_id: str) -> None:
    op, example = operation(operation_id), EXAMPLES[operation_id]
    if "request" in example:
        body = op["requestBody"]["content"]["application/json"]
        assert body["example"] == example["request"]
        assert violations(body["schema"], example["request"]) == []
    status = str(BY_ID[operation_id].status)
    answer = op["responses"][status]["content"]["application/json"]
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


def test_the_readme_quickstart_bodies_are_the_examples() -> None:
    assert EXAMPLES["createEncounter"]["request"] == README_CREATE
    assert EXAMPLES["resolveAttack"]["request"] == README_ATTACK
    # The odds: the same body without its dice, as the README says.
    assert EXAMPLES["previewAttackOdds"]["request"] == {
        k: v for k, v in README_ATTACK.items() if k != "dice"
    }
    assert set(README_ATTACK["dice"]) == {"attack", "defense:goon-1", "soak:goon-1"}


@pytest.mark.parametrize("page", ["README.md", "docs/api.md", "docs/campaigns.md"])
def test_every_curl_body_of_the_docs_validates(page: str) -> None:
    bodies = readme_shell_bodies(ROOT / page)
    # Every body the page gives (a check that finds none checks nothing).
    assert len(bodies) == {"README.md": 2, "docs/api.md": 3, "docs/campaigns.md": 2}[page]
    for method, path, body in bodies:
        op = DOC["paths"][path][method]
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        assert violations(schema, body) == [], (page, method, path)


def test_the_service_answers_what_the_examples_say(served: str) -> None:
    played = play(served)
    assert list(played) == [step.operation_id for step in SCENARIO]
    assert masked(played) == masked(EXAMPLES), (
        "the examples are stale: `python -m tests.openapi_examples` writes them anew"
    )
    # The README's numbers, in its example: 9 boxes of physical damage to goon-1.
    [target] = EXAMPLES["resolveAttack"]["answer"]["result"]["targets"]
    assert (target["net_hits"], target["damage"]["boxes"]) == (3, 9)
    assert target["damage"]["track"] == "physical"
