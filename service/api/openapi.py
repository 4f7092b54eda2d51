"""The contract, generated from `schemas/`: `/openapi.json` (OpenAPI 3.1) and a readable `/docs`."""

from __future__ import annotations

import functools
import html
import json
import typing
from typing import Any

from aiohttp import web

from schemas.common import Problem
from schemas.imports import ImportFormat
from service.api import openapi_schemas
from service.api.examples import EXAMPLES
from service.api.openapi_schemas import ref
from service.api.operations import OPERATIONS, PROBLEMS, TAGS, Auth, Operation
from service.api.problems import PROBLEM_KINDS, PROBLEM_TYPE
from service.imports import MAX_IMPORT_BYTES
from service.rules import odds

VERSION = "0.1.0"
Schema = dict[str, Any]
Refs = dict[Any, Schema]
IDEMPOTENCY_HEADER = "Idempotency-Key"
# An event id as the API takes it. Redis stream ids are two 64-bit numbers; 19 digits each keeps
# every id the pattern allows a valid one (and thousands of years away from the first clash).
AFTER_PATTERN = r"^([0-9]{1,19}-[0-9]{1,19})?$"


# A file's bytes, sent as they are.
_FILE = {"type": "string", "format": "binary", "maxLength": MAX_IMPORT_BYTES}


def _header(description: str, required: bool = True, **schema: Any) -> dict[str, Any]:
    return {
        "description": description,
        "required": required,
        "schema": {"type": "string", **schema},
    }


_REQUEST_ID = _header("The request's id (the caller's, if it sent a usable one); in the log line.")
_SECURITY: dict[Auth, list[dict[str, list[str]]]] = {
    "admin": [{"bearer": []}],
    "encounter": [{"bearer": []}],
    "campaign": [{"bearer": []}],
    "socket": [{"bearer": []}, {"token": []}],
    # The empty one: no token from a loopback or allowed address.
    "metrics": [{"metricsToken": []}, {}],
}
_SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "The server's admin key (creates encounters and acts as GM on any), or "
        "one of the encounter's tokens: GM or player.",
    },
    "metricsToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "The metrics token (FIREFIGHT_METRICS_TOKEN), for GET /metrics only; a "
        "loopback or allowed address (FIREFIGHT_METRICS_ALLOW) needs none.",
    },
    "token": {
        "type": "apiKey",
        "in": "query",
        "name": "token",
        "description": "The WebSocket's alternative to the Authorization header (browsers cannot "
        "set headers on one).",
    },
}


def _parameters(op: Operation) -> list[dict[str, Any]]:
    parameters: list[dict[str, Any]] = []
    # Path ids are any string here; an actor's or a player's is checked by the route as the ids
    # of bodies are (a 400 naming `actor` or `player`), as the description says.
    for name in ("ruleset", "campaign", "encounter", "zone", "actor", "player", "damage"):
        if "{" + name + "}" in op.path:
            parameters.append(
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            )
    if op.query_after:
        parameters.append(
            {
                "name": "after",
                "in": "query",
                "required": False,
                "description": "An event id: only events after it (empty: from the first).",
                "schema": {"type": "string", "pattern": AFTER_PATTERN},
            }
        )
    if op.file_body:
        parameters.append(
            {
                "name": "format",
                "in": "query",
                "required": True,
                "description": "The file's format: `chummer5` (an sr5 character), `chummer4` "
                "(sr4), `foundry` (the ruleset of the system it was exported from).",
                "schema": {"type": "string", "enum": list(typing.get_args(ImportFormat))},
            }
        )
    if op.query_carry:
        parameters.append(
            {
                "name": "carry",
                "in": "query",
                "required": False,
                "description": "What the end of a campaign's encounter gives back to its "
                "characters: `none`, or some of `monitor`, `ammo`, `edge` (comma-separated; "
                "all three when not given).",
                "schema": {"type": "string"},
            }
        )
        parameters.append(
            {
                "name": "actors",
                "in": "query",
                "required": False,
                "description": "The characters that take it back (comma-separated ids; all "
                "the encounter brought from its campaign when not given).",
                "schema": {"type": "string"},
            }
        )
    if op.query_samples:
        parameters.append(
            {
                "name": "samples",
                "in": "query",
                "required": False,
                "description": "How many resolutions a sampled preview draws (Hard Life's "
                f"automatic fire); default {odds.DEFAULT_SAMPLES}, fewer for a large request "
                "(its work, samples x size, is bounded: more than it may take is a 422 naming "
                "`samples`). Exact odds ignore it.",
                "schema": {
                    "type": "integer",
                    "minimum": odds.MIN_SAMPLES,
                    "maximum": odds.MAX_SAMPLES,
                },
            }
        )
    if op.idempotent:
        parameters.append(
            {
                "name": IDEMPOTENCY_HEADER,
                "in": "header",
                "required": False,
                "description": "Makes a retry safe: the first answer is kept a day and every "
                "retry with the same key and body gets it back (a UUID is best).",
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 255,
                    # Printable ASCII; HTTP drops spaces around a header value.
                    "pattern": "^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$",
                },
            }
        )
    return parameters


def _success(op: Operation, refs: Refs, example: Any) -> Schema:
    ok: Schema = {"description": "OK"}
    if op.response is not None:
        answer: Schema = {"schema": refs[op.response]}
        if example is not None:
            answer["example"] = example
        ok["content"] = {"application/json": answer}
    if op.text_answer:
        text: Schema = {"schema": {"type": "string"}}
        if example is not None:
            text["example"] = example
        ok["content"] = {"text/plain": text}
    headers = {"X-Request-Id": _REQUEST_ID}
    if op.idempotent:
        headers["Idempotent-Replayed"] = _header(
            "Present on a retry's answer (the first one, kept)", required=False, enum=["true"]
        )
    if op.method == "post" and op.path.endswith(("/v1/encounters", "/encounters")):
        headers["Location"] = _header("The new encounter's path.")
    if op.method == "post" and op.path == "/v1/campaigns":
        headers["Location"] = _header("The new campaign's path.")
    ok["headers"] = headers
    return ok


def _problem(status: int, problem_ref: dict[str, Any]) -> dict[str, Any]:
    headers = {"X-Request-Id": _REQUEST_ID}
    if status == 401:
        headers["WWW-Authenticate"] = _header("How to authenticate: a Bearer token.")
    if status in (429, 503):
        headers["Retry-After"] = _header("Seconds to wait before retrying.", pattern="^[0-9]+$")
    return {
        "description": PROBLEMS[status],
        "headers": headers,
        "content": {"application/problem+json": {"schema": problem_ref}},
    }


def _problem_types(problem: dict[str, Any]) -> None:
    """The type of every problem the service answers: a client can switch on it."""
    problem["properties"]["type"]["enum"] = [PROBLEM_TYPE + kind for kind in PROBLEM_KINDS]


def _undo_count_for_the_gm(undo: dict[str, Any]) -> None:
    """Players' events of an undo leave out how many changes are left to undo (it counts the
    hidden actors' too: service/engine/events.py)."""
    undo["required"].remove("left")


# A touch of its own for a schema, by name, after it is made from its struct.
_TOUCHES = {"Problem": _problem_types, "UndoResult": _undo_count_for_the_gm}


def _operation(op: Operation, in_refs: Refs, out_refs: Refs, problem: Schema) -> Schema:
    entry: Schema = {
        "operationId": op.operation_id,
        "tags": [op.tag],
        "summary": op.summary,
    }
    parameters = _parameters(op)
    if parameters:
        entry["parameters"] = parameters
    # The public operations say so: the document's default is the Bearer token.
    entry["security"] = [] if op.auth is None else _SECURITY[op.auth]
    example = EXAMPLES.get(op.operation_id, {})
    if op.request is not None:
        body: Schema = {"schema": in_refs[op.request]}
        if "request" in example:
            body["example"] = example["request"]
        entry["requestBody"] = {
            "required": not op.body_optional,
            "content": {"application/json": body},
        }
    if op.file_body:
        entry["requestBody"] = {
            "required": True,
            "content": {"application/octet-stream": {"schema": _FILE}},
        }
    # The answer's example, under the status it came with (an encounter of a campaign ends
    # with 200 and what it gave back, where another ends with an empty 204).
    answered = example.get("status", op.status)
    answer = example.get("answer") if answered == op.status else None
    entry["responses"] = {str(op.status): _success(op, out_refs, answer)}
    if op.other_success is not None:
        status, kind = op.other_success
        other: Schema = {"schema": out_refs[kind]}
        if answered == status and "answer" in example:
            other["example"] = example["answer"]
        entry["responses"][str(status)] = {
            "description": "OK",
            "headers": {"X-Request-Id": _REQUEST_ID},
            "content": {"application/json": other},
        }
    for status in op.also:
        entry["responses"][str(status)] = {
            "description": "Unavailable",
            "headers": {"X-Request-Id": _REQUEST_ID},
            "content": {"application/json": {"schema": out_refs[op.response]}},
        }
    for status in op.errors:
        entry["responses"][str(status)] = _problem(status, problem)
    return entry


def _websocket(op: Operation, out_refs: Refs) -> Schema:
    """A socket is no REST call: generators would make a GET of it that only gets a 400. It is
    described apart, with its `?token=`, what each message is and one as the service sent it."""
    socket: Schema = {
        "operationId": op.operation_id,
        "tags": [op.tag],
        "summary": op.summary,
        "description": "Open with a WebSocket client (`ws://` or `wss://` on this server), the "
        "token in the Authorization header or, from a browser, in `?token=`. The server sends "
        "one text message per event (the schema below) and never reads what the client sends.",
        "parameters": [
            *_parameters(op),
            {
                "name": "token",
                "in": "query",
                "required": False,
                "description": "A token of the encounter, for clients that cannot set headers.",
                "schema": {"type": "string"},
            },
        ],
        "security": _SECURITY["socket"],
        "message": out_refs[op.response],
        "errors": {
            str(status): {"description": PROBLEMS[status], "schema": ref("Problem")}
            for status in op.errors
        },
    }
    example = EXAMPLES.get(op.operation_id, {})
    if "message" in example:
        socket["messageExample"] = example["message"]
    return socket


@functools.cache
def document() -> dict[str, Any]:
    inputs = [op.request for op in OPERATIONS if op.request is not None]
    outputs = [op.response for op in OPERATIONS if op.response is not None]
    outputs += [op.other_success[1] for op in OPERATIONS if op.other_success is not None]
    in_refs, out_refs, components = openapi_schemas.build(inputs, [*outputs, Problem], _TOUCHES)
    problem = out_refs[Problem]
    paths: dict[str, dict[str, Any]] = {}
    websockets: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        if op.websocket:
            websockets[op.path] = _websocket(op, out_refs)
        else:
            paths.setdefault(op.path, {})[op.method] = _operation(op, in_refs, out_refs, problem)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "firefight",
            "version": VERSION,
            "description": "Ranged-combat resolution for virtual tabletops. Schemas named "
            "`...Out` are what the service answers with, beside the same names without it "
            "for what a client sends.",
        },
        "servers": [{"url": "/", "description": "This service"}],
        "security": _SECURITY["encounter"],
        "tags": [{"name": name, "description": text} for name, text in TAGS.items()],
        "paths": paths,
        "x-websockets": websockets,
        "components": {"schemas": components, "securitySchemes": _SECURITY_SCHEMES},
    }


async def openapi_json(request: web.Request) -> web.Response:
    return web.json_response(document())


def _schema_html(schema: dict[str, Any] | bool) -> str:
    if isinstance(schema, bool):  # JSON Schema's "anything" (true) and "nothing" (false)
        return "any" if schema else "nothing"
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
            parts.append(
                f"<p>{html.escape(op['summary'])} <small>(<code>{op['operationId']}</code>, "
                f"{html.escape(op['tags'][0])})</small></p><ul>"
            )
            for parameter in op.get("parameters", []):
                parts.append(
                    f"<li>{parameter['in']} parameter <code>{parameter['name']}</code></li>"
                )
            body = op.get("requestBody")
            if body:
                shown = ", ".join(_schema_html(c["schema"]) for c in body["content"].values())
                parts.append(f"<li>body: {shown}</li>")
            for status, answer in op["responses"].items():
                content = answer.get("content", {})
                shown = ", ".join(_schema_html(c["schema"]) for c in content.values()) or "no body"
                parts.append(f"<li>{status}: {shown}</li>")
            parts.append("</ul>")
    parts.append("<h2>WebSockets</h2>")
    for path, socket in doc["x-websockets"].items():
        parts.append(f"<h3><code>GET {html.escape(path)}</code> (WebSocket)</h3>")
        parts.append(f"<p>{html.escape(socket['summary'])} {html.escape(socket['description'])}")
        parts.append(f" Each message: {_schema_html(socket['message'])}.</p><ul>")
        for parameter in socket["parameters"]:
            parts.append(f"<li>{parameter['in']} parameter <code>{parameter['name']}</code></li>")
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
