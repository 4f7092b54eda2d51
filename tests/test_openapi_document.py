"""The OpenAPI document as client generators read it (issue 27, "Clients generated from the
contract"): schemas they can read, names they can call, unions they can tell apart."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from service.api.openapi import docs_html, document
from service.api.openapi_schemas import RULESET_IDS, walk
from service.api.operations import OPERATIONS, TAGS
from service.api.problems import PROBLEM_KINDS, PROBLEM_TYPE

DOC = json.loads(json.dumps(document()))
SCHEMAS = DOC["components"]["schemas"]
REST = [(path, method, op) for path, ops in DOC["paths"].items() for method, op in ops.items()]
# Where JSON Schema takes a schema (a `false` there is the schema nothing matches).
SCHEMA_KEYWORDS = {
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalProperties",
}


def false_schemas(node: Any) -> list[str]:
    """Every `false` schema in `node` but a request's closed object (`additionalProperties`:
    false, which every generator reads as "no other fields")."""
    found = []
    for schema in walk(node):
        for key, value in schema.items():
            if value is False and key in SCHEMA_KEYWORDS and key != "additionalProperties":
                found.append(f"{key} in {json.dumps(schema)[:80]}")
        for key in ("properties", "$defs", "patternProperties"):
            if isinstance(schema.get(key), dict):
                found += [f"{key}.{k}" for k, v in schema[key].items() if v is False]
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            found += [f"{key}[{i}]" for i, v in enumerate(schema.get(key, ())) if v is False]
    return found


def test_no_false_schema_and_no_tuple_anywhere() -> None:
    assert false_schemas(DOC) == []
    assert [s for s in walk(DOC) if "prefixItems" in s] == []
    # ...and the check sees what msgspec made of `tuple[float, float]` before.
    tuple_schema = {"prefixItems": [{"type": "number"}] * 2, "items": False}
    assert false_schemas({"properties": {"polygon": {"items": tuple_schema}}}) != []


def test_a_polygon_is_a_list_of_named_vertices() -> None:
    assert SCHEMAS["PolygonVertex"] == {
        "title": "PolygonVertex",
        "description": "A corner of a zone's polygon: [x, y] in metres on the scene plane.",
        "type": "array",
        "items": {"type": "number"},
        "minItems": 2,
        "maxItems": 2,
    }
    for zone in ("SR5ZoneStateOut", "SR4ZoneStateOut", "HLZoneStateOut", "SR5ZoneState"):
        polygon = SCHEMAS[zone]["properties"]["polygon"]
        assert polygon["items"] == {"$ref": "#/components/schemas/PolygonVertex"}, zone
        assert (polygon["minItems"], polygon["maxItems"]) == (3, 16)


def test_every_operation_has_a_stable_camel_case_id_and_a_tag() -> None:
    ids = [op["operationId"] for _, _, op in REST]
    assert len(ids) == len(set(ids)) == len(OPERATIONS) - 1  # the socket is apart
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", i) for i in ids), ids
    by_id = {op["operationId"]: (method, path) for path, method, op in REST}
    # The names generated clients call: changing one breaks them.
    assert by_id["createEncounter"] == ("post", "/v1/encounters")
    assert by_id["resolveAttack"] == ("post", "/v1/encounters/{encounter}/attacks")
    assert by_id["previewAttackOdds"] == ("post", "/v1/encounters/{encounter}/attacks/odds")
    assert by_id["getEncounter"] == ("get", "/v1/encounters/{encounter}")
    for _, _, op in REST:
        assert op["tags"] and set(op["tags"]) <= set(TAGS), op["operationId"]
    assert [t["name"] for t in DOC["tags"]] == list(TAGS)
    assert {t for _, _, op in REST for t in op["tags"]} == set(TAGS)


def test_servers_and_security() -> None:
    assert DOC["servers"] == [{"url": "/", "description": "This service"}]
    assert DOC["security"] == [{"bearer": []}]
    public = sorted(path for path, _, op in REST if op["security"] == [])
    assert public == ["/healthz", "/readyz", "/v1/rulesets", "/v1/rulesets/{ruleset}"]
    assert all("security" in op for _, _, op in REST)


def test_the_websocket_is_described_apart_with_its_token() -> None:
    assert not any(path.endswith("/ws") for path in DOC["paths"])
    socket = DOC["x-websockets"]["/v1/encounters/{encounter}/ws"]
    assert socket["operationId"] == "watchEvents"
    assert {p["name"]: p["in"] for p in socket["parameters"]} == {
        "encounter": "path",
        "after": "query",
        "token": "query",
    }
    assert socket["message"] == {"$ref": "#/components/schemas/Event"}
    assert socket["security"] == [{"bearer": []}, {"token": []}]


# --- input and output apart ------------------------------------------------------------------


def test_what_a_client_sends_requires_only_what_has_no_default() -> None:
    # The README's creation sends the ruleset and a name; every other field has a default.
    assert SCHEMAS["EncounterCreate"]["required"] == ["ruleset"]
    # A sheet's numbers are all optional; the ruleset tells the union's members apart.
    assert SCHEMAS["SR5Sheet"]["required"] == ["ruleset"]
    # The attack's body is decoded as the encounter's ruleset's: its tag may be left out.
    assert SCHEMAS["SR5AttackAsk"]["required"] == ["attacker", "weapon", "mode"]
    assert "ruleset" in SCHEMAS["SR5AttackAsk"]["properties"]


def test_what_the_service_answers_requires_what_it_always_writes() -> None:
    # A problem leaves out `path` and `request_id` when it has none (omit_defaults).
    assert SCHEMAS["Problem"]["required"] == ["type", "title", "status", "detail"]
    # A sheet as the service writes it: every field, null or not.
    assert len(SCHEMAS["SR5SheetOut"]["required"]) == len(SCHEMAS["SR5SheetOut"]["properties"])
    assert SCHEMAS["TurnStateOut"]["required"] == [
        "combat_turn",
        "initiative_pass",
        "action_phase",
        "phase",
        "initiative",
    ]
    # The changes of an answer leave out what did not change.
    assert SCHEMAS["StateChanges"]["required"] == ["version"]
    # Answers may gain fields: they are not closed; requests are.
    assert "additionalProperties" not in SCHEMAS["SR5SheetOut"]
    assert SCHEMAS["SR5Sheet"]["additionalProperties"] is False
    # Names: `...Out` only where the same struct is sent too.
    assert "SR5AttackResultOut" not in SCHEMAS and "SR5AttackResult" in SCHEMAS
    assert SCHEMAS["SR5SheetOut"]["title"] == "SR5SheetOut"


def test_answers_refer_to_answer_schemas_only() -> None:
    """An answer's schema never reaches a request's (its `required` would be the other side's)."""
    requests = {
        name
        for _, _, op in REST
        for content in op.get("requestBody", {}).get("content", {}).values()
        for name in _reached(content["schema"])
    }
    answers = {
        name
        for _, _, op in REST
        for response in op["responses"].values()
        for content in response.get("content", {}).values()
        for name in _reached(content["schema"])
    }
    shared = requests & answers
    assert shared <= {"Ruleset", "PolygonVertex"}, shared


def _reached(schema: Any) -> set[str]:
    found: set[str] = set()
    todo = [schema]
    while todo:
        for node in walk(todo.pop()):
            target = node.get("$ref")
            if isinstance(target, str):
                name = target.rsplit("/", 1)[-1]
                if name not in found:
                    found.add(name)
                    todo.append(SCHEMAS[name])
    return found


# --- unions, enums ---------------------------------------------------------------------------


def test_every_discriminator_names_a_property_each_member_requires() -> None:
    discriminators = [s["discriminator"] for s in walk(DOC) if "discriminator" in s]
    assert len(discriminators) > 10
    for discriminator in discriminators:
        tag = discriminator["propertyName"]
        for value, target in discriminator["mapping"].items():
            member = SCHEMAS[target.rsplit("/", 1)[-1]]
            assert tag in member["required"], (tag, target)
            assert member["properties"][tag] == {"enum": [value]}
    # An attack's answer: `kind` tells the rulesets' results apart.
    result = SCHEMAS["AttackOutcome"]["properties"]["result"]
    assert result["discriminator"]["propertyName"] == "kind"
    assert result["discriminator"]["mapping"]["sr5_attack"].endswith("/SR5AttackResult")
    # A sheet sent (or null): its `ruleset`.
    sheets, null = SCHEMAS["SceneActor"]["properties"]["sheet"]["anyOf"]
    assert null == {"type": "null"}
    assert sheets["discriminator"]["propertyName"] == "ruleset"
    assert sheets["discriminator"]["mapping"]["sr5"].endswith("/SR5Sheet")


@pytest.mark.parametrize("side", ["EncounterCreate", "EncounterCreated", "CampaignView"])
def test_the_ruleset_is_one_named_enum(side: str) -> None:
    assert SCHEMAS["Ruleset"]["enum"] == ["d100", "sr3", "sr3-hardlife", "sr4", "sr5"]
    assert SCHEMAS[side]["properties"]["ruleset"] == {"$ref": "#/components/schemas/Ruleset"}
    inline = [s for s in walk(SCHEMAS) if sorted(s.get("enum", ())) == RULESET_IDS]
    assert inline == [SCHEMAS["Ruleset"]]


def test_problem_types_are_listed() -> None:
    types = SCHEMAS["Problem"]["properties"]["type"]["enum"]
    assert types == [PROBLEM_TYPE + kind for kind in PROBLEM_KINDS]
    for kind in ("validation", "dice", "out-of-ammo", "encounter-not-found", "rate-limited"):
        assert f"https://firefight.invalid/problems/{kind}" in types


def test_the_readable_page_shows_the_names_and_the_socket() -> None:
    page = docs_html()
    assert "<code>resolveAttack</code>, play" in page
    assert "<code>GET /v1/encounters/{encounter}/ws</code> (WebSocket)" in page
    assert "query parameter <code>token</code>" in page
    assert "id='schema-PolygonVertex'" in page and "id='schema-SR5SheetOut'" in page


@pytest.mark.parametrize(
    "path",
    [
        "/v1/encounters/{encounter}/attacks",
        "/v1/encounters/{encounter}/attacks/odds",
        "/v1/encounters/{encounter}/actions",
        "/v1/encounters/{encounter}/zones/{zone}/tests",
        "/v1/encounters/{encounter}/zones/{zone}/tests/odds",
        "/v1/encounters/{encounter}/actors/{actor}/move",
    ],
)
def test_a_player_acting_for_an_actor_it_does_not_control_is_a_documented_403(path: str) -> None:
    """Found when the fuzzer first played the examples: the shared player token moving the GM's
    actor got a 403 the document did not list (tests/test_players.py has the 403s themselves)."""
    assert "403" in DOC["paths"][path]["post"]["responses"]


def test_an_undo_may_come_without_its_count() -> None:
    """Found by the fuzzer: a player's event of an undo leaves out `left` (it would count the
    hidden actors' changes), so an answer's UndoResult does not require it."""
    assert SCHEMAS["UndoResult"]["required"] == ["kind", "undone", "undone_type", "reason"]
