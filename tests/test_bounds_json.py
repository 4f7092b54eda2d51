"""JSON nested deeper than any request is a 400 on every route that reads a body: msgspec
raised RecursionError (a 500) when it skipped a deep value to find a tagged union's tag."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.common import MAX_JSON_DEPTH
from tests.test_api import new_encounter

PROBLEM = "application/problem+json"
# 20,000 deep, as the issue found it: far past Python's recursion limit (1000).
DEEP = b"[" * 20_000 + b"]" * 20_000
# Where msgspec went that deep and raised RecursionError (a 500): skipping a value to find a
# tagged union's tag (the combat state's `ruleset`, a sheet's) that comes after it.
COMBAT_BEFORE_ITS_TAG = (
    b'{"ruleset": "sr5", "name": "x", "combat": {"zz": ' + DEEP + b', "ruleset": "sr5"}}'
)
SHEET_BEFORE_ITS_TAG = b'{"name": "Sam", "sheet": {"zz": ' + DEEP + b', "ruleset": "sr5"}}'

# Every route whose handler reads a body: method, path (after /v1/encounters/{id}).
BODY_ROUTES = [
    ("POST", ""),
    ("POST", "/attacks"),
    ("POST", "/attacks/odds"),
    ("POST", "/actions"),
    ("POST", "/advance"),
    ("PUT", "/state"),
    ("POST", "/initiative"),
    ("POST", "/initiative/actors"),
    ("POST", "/zones/z-1/tests"),
    ("POST", "/zones/z-1/tests/odds"),
    ("PUT", "/actors/sam"),
    ("PATCH", "/actors/sam"),
    ("POST", "/actors/sam/move"),
    ("POST", "/players/ann"),
]


@pytest.mark.parametrize(
    ("method", "tail", "body"),
    [
        ("POST", "", COMBAT_BEFORE_ITS_TAG),
        ("PUT", "/state", b'{"combat": {"zz": ' + DEEP + b', "ruleset": "sr5"}}'),
        ("PUT", "/actors/sam", SHEET_BEFORE_ITS_TAG),
        ("PATCH", "/actors/sam", SHEET_BEFORE_ITS_TAG),
    ],
)
async def test_json_that_was_a_500_is_a_400(
    memory_client: Any, method: str, tail: str, body: bytes
) -> None:
    await test_json_nested_too_deep_is_a_400_naming_the_body(memory_client, method, tail, body)


@pytest.mark.parametrize(("method", "tail"), BODY_ROUTES)
@pytest.mark.parametrize("body", [DEEP, b'{"name": ' + b"[" * 20_000], ids=["closed", "open"])
async def test_json_nested_too_deep_is_a_400_naming_the_body(
    memory_client: Any, method: str, tail: str, body: bytes
) -> None:
    encounter = "" if (method, tail) == ("POST", "") else await new_encounter(memory_client)
    path = "/v1/encounters" if encounter == "" else f"/v1/encounters/{encounter}{tail}"
    response = await memory_client.request(
        method, path, data=body, headers={"Content-Type": "application/json"}
    )
    assert response.status == 400, await response.text()
    assert response.content_type == PROBLEM
    problem = await response.json()
    assert problem["type"].endswith("/malformed-json")
    assert problem["path"] == "$"
    assert f"deeper than {MAX_JSON_DEPTH}" in problem["detail"]


async def test_json_as_deep_as_allowed_is_read(memory_client: Any) -> None:
    """The bound refuses only what is deeper than it: an attack whose `name` is a list nested
    MAX_JSON_DEPTH - 1 deep (the object around it is the first level) is decoded, and refused
    for what it is (a list is no name), not for its depth."""
    nested = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)
    body = f'{{"ruleset": "sr5", "name": {nested}}}'.encode()
    response = await memory_client.post(
        "/v1/encounters", data=body, headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    problem = await response.json()
    assert problem["type"].endswith("/validation")
    assert problem["path"] == "$.name"


async def test_brackets_inside_strings_are_not_depth(memory_client: Any) -> None:
    name = "[" * 150
    response = await memory_client.post("/v1/encounters", json={"ruleset": "sr5", "name": name})
    assert response.status == 201, await response.text()
