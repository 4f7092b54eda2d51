"""The contract, generated from `schemas/`: `/openapi.json` (OpenAPI 3.1) and a readable `/docs`."""

from __future__ import annotations

import functools
import html
import json
from dataclasses import dataclass
from typing import Any

import msgspec
from aiohttp import web

from schemas.common import Problem
from schemas.encounter import (
    ActionOutcome,
    ActionRequest,
    AdvanceOutcome,
    AdvanceRequest,
    AttackOutcome,
    AttackRequest,
    EncounterCreate,
    EncounterCreated,
    EncounterView,
    Event,
    EventPage,
    Health,
    RulesetList,
)

VERSION = "0.1.0"
_REF = "#/components/schemas/{name}"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    request: Any = None
    response: Any = None
    status: int = 200
    query_after: bool = False
    errors: tuple[int, ...] = ()


OPERATIONS = (
    Operation("get", "/healthz", "The process is alive.", response=Health),
    Operation(
        "get",
        "/readyz",
        "The store answers (503 when it does not).",
        response=Health,
        errors=(503,),
    ),
    Operation("get", "/v1/rulesets", "Ruleset ids with what each supports.", response=RulesetList),
    Operation(
        "post",
        "/v1/encounters",
        "Start an encounter; returns its id and tokens.",
        request=EncounterCreate,
        response=EncounterCreated,
        status=201,
        errors=(400,),
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}",
        "The encounter's state and last event id.",
        response=EncounterView,
        errors=(404,),
    ),
    Operation(
        "delete", "/v1/encounters/{encounter}", "End the encounter.", status=204, errors=(404,)
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/attacks",
        "Resolve an attack; the body is the encounter's ruleset's attack.",
        request=AttackRequest,
        response=AttackOutcome,
        status=201,
        errors=(400, 404, 422, 503),
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actions",
        "A non-attack action that changes combat state.",
        request=ActionRequest,
        response=ActionOutcome,
        status=201,
        errors=(400, 404, 422, 503),
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/advance",
        "Move to an actor's action phase, the next initiative pass or the next combat turn.",
        request=AdvanceRequest,
        response=AdvanceOutcome,
        status=201,
        errors=(400, 404, 422, 503),
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/events",
        "Events after an id, oldest first.",
        response=EventPage,
        query_after=True,
        errors=(400, 404),
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/ws",
        "WebSocket: the events after `after` first, then live ones; each text message is "
        "one Event.",
        response=Event,
        status=101,
        query_after=True,
        errors=(400, 404),
    ),
)


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", None) or "AttackRequest"


@functools.cache
def document() -> dict[str, Any]:
    kinds = [k for op in OPERATIONS for k in (op.request, op.response) if k is not None]
    schemas, components = msgspec.json.schema_components([*kinds, Problem], ref_template=_REF)
    refs = dict(zip(kinds, schemas[:-1], strict=True))
    problem_ref = schemas[-1]
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        entry: dict[str, Any] = {"summary": op.summary, "responses": {}}
        parameters = []
        if "{encounter}" in op.path:
            parameters.append(
                {"name": "encounter", "in": "path", "required": True, "schema": {"type": "string"}}
            )
        if op.query_after:
            parameters.append(
                {
                    "name": "after",
                    "in": "query",
                    "required": False,
                    "description": "An event id: only events after it.",
                    "schema": {"type": "string", "pattern": r"^\d+-\d+$"},
                }
            )
        if parameters:
            entry["parameters"] = parameters
        if op.request is not None:
            entry["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": refs[op.request]}},
            }
        ok: dict[str, Any] = {"description": "OK"}
        if op.response is not None:
            ok["content"] = {"application/json": {"schema": refs[op.response]}}
        entry["responses"][str(op.status)] = ok
        for status in op.errors:
            entry["responses"][str(status)] = {
                "description": "problem",
                "content": {"application/problem+json": {"schema": problem_ref}},
            }
        paths.setdefault(op.path, {})[op.method] = entry
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "firefight",
            "version": VERSION,
            "description": "Ranged-combat resolution for virtual tabletops.",
        },
        "paths": paths,
        "components": {"schemas": components},
    }


async def openapi_json(request: web.Request) -> web.Response:
    return web.json_response(document())


def _schema_html(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        return f'<a href="#schema-{html.escape(name)}">{html.escape(name)}</a>'
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " | ".join(_schema_html(s) for s in schema[combinator])
    if schema.get("type") == "array":
        return f"array of {_schema_html(schema.get('items', {}))}"
    if "enum" in schema:
        return "one of " + ", ".join(
            f"<code>{html.escape(json.dumps(v))}</code>" for v in schema["enum"]
        )
    text = html.escape(str(schema.get("type", "any")))
    limits = [
        f"{k} {schema[k]}"
        for k in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")
        if k in schema
    ]
    return text + (f" <small>({html.escape(', '.join(limits))})</small>" if limits else "")


@functools.cache
def docs_html() -> str:
    doc = document()
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>firefight API</title><style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem;",
        "max-width:70rem}code,td{font-family:ui-monospace,monospace}table{border-collapse:collapse}",
        "td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}",
        "h3{margin-top:2rem}</style>",
        "</head><body><h1>firefight API</h1>",
        f"<p>{html.escape(doc['info']['description'])} Version {doc['info']['version']}. ",
        "Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p><h2>Endpoints</h2>",
    ]
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            parts.append(f"<h3><code>{method.upper()} {html.escape(path)}</code></h3>")
            parts.append(f"<p>{html.escape(op['summary'])}</p><ul>")
            for parameter in op.get("parameters", []):
                parts.append(
                    f"<li>{parameter['in']} parameter <code>{parameter['name']}</code></li>"
                )
            body = op.get("requestBody")
            if body:
                parts.append(
                    f"<li>body: {_schema_html(body['content']['application/json']['schema'])}</li>"
                )
            for status, answer in op["responses"].items():
                content = answer.get("content", {})
                shown = ", ".join(_schema_html(c["schema"]) for c in content.values()) or "no body"
                parts.append(f"<li>{status}: {shown}</li>")
            parts.append("</ul>")
    parts.append("<h2>Schemas</h2>")
    for name, schema in doc["components"]["schemas"].items():
        parts.append(f"<h3 id='schema-{html.escape(name)}'>{html.escape(name)}</h3>")
        if schema.get("description"):
            parts.append(f"<p>{html.escape(schema['description'])}</p>")
        properties = schema.get("properties")
        if properties:
            required = set(schema.get("required", []))
            parts.append(
                "<table><tr><th>field</th><th>type</th><th>required</th><th>default</th></tr>"
            )
            for field, field_schema in properties.items():
                default = (
                    html.escape(json.dumps(field_schema["default"]))
                    if "default" in field_schema
                    else ""
                )
                parts.append(
                    f"<tr><td>{html.escape(field)}</td><td>{_schema_html(field_schema)}</td>"
                    f"<td>{'yes' if field in required else ''}</td><td>{default}</td></tr>"
                )
            parts.append("</table>")
        else:
            parts.append(f"<p>{_schema_html(schema)}</p>")
    parts.append("</body></html>")
    return "".join(parts)


async def docs_page(request: web.Request) -> web.Response:
    return web.Response(text=docs_html(), content_type="text/html")
