"""The contract, generated from `schemas/`: `/openapi.json` (OpenAPI 3.1) and a readable `/docs`."""

from __future__ import annotations

import functools
import html
import json
import typing
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
from aiohttp import web

from schemas.common import Problem
from schemas.encounter import (
    ActionOutcome,
    ActionRequest,
    AdvanceOutcome,
    AdvanceRequest,
    AttackAsk,
    AttackOutcome,
    CombatState,
    EncounterCreate,
    EncounterCreated,
    EncounterView,
    Event,
    EventPage,
    Health,
    ImportOutcome,
    InitiativeOutcome,
    MonitorOutcome,
    PlayerOutcome,
    RulesetDetail,
    RulesetList,
    SceneOutcome,
    StateEdit,
    StateEditOutcome,
    UndoOutcome,
    UndoRequest,
    ZoneList,
    ZoneTestAsk,
    ZoneTestOutcome,
)
from schemas.imports import ImportFormat
from schemas.initiative import InitiativeJoin, InitiativeStart, InitiativeView
from schemas.monitor import MonitorEdit
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.scene import ActorList, ActorMove, ActorPatch, ActorSheet, PlayerBinding, SceneActor
from service.imports import MAX_IMPORT_BYTES
from service.rules import odds

VERSION = "0.1.0"
_REF = "#/components/schemas/{name}"
IDEMPOTENCY_HEADER = "Idempotency-Key"
# An event id as the API takes it. Redis stream ids are two 64-bit numbers; 19 digits each keeps
# every id the pattern allows a valid one (and thousands of years away from the first clash).
AFTER_PATTERN = r"^([0-9]{1,19}-[0-9]{1,19})?$"

# Who may call an operation: the server's admin key; a token of the encounter (the admin key acts
# as its GM); the same, or for a WebSocket `?token=` (browsers cannot set headers).
Auth = Literal["admin", "encounter", "socket"]

# What each problem status means; every status an operation can answer is listed with it.
PROBLEMS: dict[int, str] = {
    400: "Invalid request: malformed JSON, a field or parameter that does not fit, given dice "
    "that do not fit, or (WebSocket) a request that is not a WebSocket upgrade",
    401: "No credential, or one that is not valid here (see WWW-Authenticate)",
    403: "The credential's role may not do this (only the GM may)",
    404: "No such encounter (it may have expired), or no such actor in the scene",
    409: "A request with this Idempotency-Key is still running (retry in a moment), the "
    "stored state does not fit this version's bounds (`path` says where; the GM reads it with "
    "GET and replaces it with PUT .../state), a PUT .../state whose `version` the encounter "
    "has moved past (`state-changed`: nothing written; read it again), or what the rules do "
    "not allow in this state of the fight",
    410: "The encounter has ended; its events stay readable a while",
    408: "The body did not all arrive within the body timeout; the connection is closed",
    413: "The body is larger than the service accepts",
    422: "Not allowed by the rules, past one of the service's limits, or an Idempotency-Key "
    "used before for another request (or whose kept answer has expired)",
    429: "The encounter changes state faster than the service allows, this address sent too "
    "many requests without a valid token, or (odds previews) the token or the encounter has "
    "as many previews in flight as it may (`too-many-previews`); retry after Retry-After",
    503: (
        "The store cannot be reached, the encounter kept changing, or the replica is working on "
        "as many requests as it may; retry after Retry-After"
    ),
}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    request: Any = None
    response: Any = None
    status: int = 200
    query_after: bool = False
    # Takes `?samples=`: the sample size of a sampled odds preview.
    query_samples: bool = False
    # Every problem status the operation can answer (application/problem+json).
    errors: tuple[int, ...] = ()
    auth: Auth | None = None
    # Takes an Idempotency-Key header: a retry with it gets the first answer back.
    idempotent: bool = False
    # Statuses answered with `response`'s type rather than a problem (/readyz's 503).
    also: tuple[int, ...] = ()
    # The body may be left out (the request's defaults).
    body_optional: bool = False
    # The body is a file's bytes as they are (any Content-Type), not JSON; and `?format=` says
    # which reader it is for (the import).
    file_body: bool = False


OPERATIONS = (
    Operation("get", "/healthz", "The process is alive.", response=Health),
    Operation(
        "get",
        "/readyz",
        "The store answers (503 when it does not).",
        response=Health,
        also=(503,),
    ),
    Operation("get", "/v1/rulesets", "Ruleset ids with what each supports.", response=RulesetList),
    Operation(
        "get",
        "/v1/rulesets/{ruleset}",
        "One ruleset, with the data clients draw with (sr3-hardlife's body map).",
        response=RulesetDetail,
        errors=(404,),
    ),
    Operation(
        "post",
        "/v1/encounters",
        "Start an encounter; returns its id and tokens.",
        request=EncounterCreate,
        response=EncounterCreated,
        status=201,
        errors=(400, 401, 408, 413, 422, 429, 503),
        auth="admin",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}",
        "The encounter's state and last event id.",
        response=EncounterView,
        errors=(401, 404, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}",
        "End the encounter (GM).",
        status=204,
        errors=(401, 403, 404, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/attacks",
        "Resolve an attack; the body is the encounter's ruleset's attack.",
        request=AttackAsk,
        response=AttackOutcome,
        status=201,
        errors=(400, 401, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/attacks/odds",
        "The odds of an attack before its dice: the same body, answered as a distribution per "
        "target on the encounter as it stands; nothing is rolled, stored or published.",
        request=AttackAsk,
        response=AttackOdds,
        errors=(400, 401, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        query_samples=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actions",
        "A non-attack action that changes combat state.",
        request=ActionRequest,
        response=ActionOutcome,
        status=201,
        errors=(400, 401, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/advance",
        "Move to an actor's action phase, the next initiative pass or the next combat turn (GM).",
        request=AdvanceRequest,
        response=AdvanceOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/initiative",
        "Start a combat turn with these actors' initiative, rolled or given (GM); the service "
        "runs its passes and phases from now on. No actors: everyone of the last turn again.",
        request=InitiativeStart,
        response=InitiativeOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/initiative",
        "The initiative the service runs: the order, the scores, whose phase it is and what "
        "that actor has left of it (404 while the VTT runs its own).",
        response=InitiativeView,
        errors=(401, 404, 409, 410, 422, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/initiative",
        "Stop running the initiative (GM): the VTT's own tracker goes on with advance.",
        response=InitiativeOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/initiative/actors",
        "Actors join the combat turn under way, each in its place by its score (GM).",
        request=InitiativeJoin,
        response=InitiativeOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/initiative/actors/{actor}",
        "An actor leaves the combat turn; if it was acting, the next phase begins (GM).",
        response=InitiativeOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/undo",
        "Take back the newest change (GM): the state goes back to what it was before it, its "
        "dice are not rolled again, and the undo is an event. A chain of undos walks back up "
        "to FIREFIGHT_UNDO_DEPTH changes. 409 `nothing-to-undo` when none is left, "
        "`cannot-undo` when the newest gave or revoked a player's token, `state-changed` when "
        "the body's `event` is not the newest change (nothing undone).",
        request=UndoRequest,
        response=UndoOutcome,
        body_optional=True,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "put",
        "/v1/encounters/{encounter}/state",
        "Set the turn, the combat state or both by hand (GM): a correction at the table. With "
        "`version` (GET's), it is written only on that version: on any other, 409 "
        "`state-changed` and nothing is written.",
        request=StateEdit,
        response=StateEditOutcome,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/zones",
        "The live suppression zones.",
        response=ZoneList,
        errors=(401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/zones/{zone}/tests",
        "The test of one actor in, entering or moving in a zone; the body is the encounter's "
        "ruleset's zone test.",
        request=ZoneTestAsk,
        response=ZoneTestOutcome,
        status=201,
        errors=(400, 401, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/zones/{zone}/tests/odds",
        "The odds of a zone test before its dice, as the attack's odds.",
        request=ZoneTestAsk,
        response=ZoneTestOdds,
        errors=(400, 401, 404, 409, 410, 408, 413, 422, 429, 503),
        auth="encounter",
        query_samples=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/actors",
        "The scene's actors (a player's token sees none hidden).",
        response=ActorList,
        errors=(401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/actors/{actor}",
        "One actor of the scene.",
        response=SceneActor,
        errors=(400, 401, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "put",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Set an actor whole, new or replaced (GM).",
        request=SceneActor,
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "patch",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Change the parts of an actor the body gives (GM).",
        request=ActorPatch,
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/actors/{actor}",
        "Take an actor off the scene (GM).",
        response=SceneOutcome,
        errors=(400, 401, 403, 404, 409, 410, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/move",
        "Move an actor to a position on the scene plane.",
        request=ActorMove,
        response=SceneOutcome,
        status=201,
        errors=(400, 401, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/import",
        "Import a character file onto an actor (GM): the body is the file as it is (a Chummer 5 "
        ".chum5, a Chummer 4 .chum, a Foundry actor's JSON export; any Content-Type), up to "
        f"{MAX_IMPORT_BYTES} bytes, more than other routes take. Its ruleset must be the "
        "encounter's (422 `wrong-ruleset`). A new actor takes the file's sheet and name; one on "
        "the scene keeps all but its sheet, its monitor settled on the new sheet. A scene "
        "change (its event, undo); the answer adds the import's report. 422 `import-refused` "
        "names the element or JSON path it cannot read; 413 `import-too-large`.",
        response=ImportOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
        file_body=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/players/{player}",
        "Give a player a token of its own for the actors it controls (GM); the token is in this "
        "answer only, and a new one replaces the old.",
        request=PlayerBinding,
        response=PlayerOutcome,
        status=201,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/players/{player}",
        "Revoke a player's token (GM).",
        response=PlayerOutcome,
        errors=(400, 401, 403, 404, 409, 410, 429, 503),
        auth="encounter",
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/monitor",
        "Heal, set or clear an actor's condition monitor (GM): exactly one of `heal`, `set` and "
        "`clear`. With `version` (GET's), it is written only on that version: on any other, "
        "409 `state-changed`. 409 `no-monitors` where the VTT keeps them (damage 'vtt') or "
        "the ruleset keeps its own (sr3-hardlife).",
        request=MonitorEdit,
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "post",
        "/v1/encounters/{encounter}/actors/{actor}/monitor/pending/{damage}",
        "Apply damage waiting for confirmation (damage 'confirm'), once: the GM, or the player "
        "who controls the actor. 404 `pending-not-found` once it waits no more.",
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "delete",
        "/v1/encounters/{encounter}/actors/{actor}/monitor/pending/{damage}",
        "Decline damage waiting for confirmation (GM): it is dropped, nothing written.",
        response=MonitorOutcome,
        errors=(400, 401, 403, 404, 409, 410, 422, 429, 503),
        auth="encounter",
        idempotent=True,
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/events",
        "Events after an id, oldest first.",
        response=EventPage,
        query_after=True,
        errors=(400, 401, 404, 429, 503),
        auth="encounter",
    ),
    Operation(
        "get",
        "/v1/encounters/{encounter}/ws",
        "WebSocket: the events after `after` first, then live ones; each text message is "
        "one Event.",
        response=Event,
        status=101,
        query_after=True,
        errors=(400, 401, 404, 429, 503),
        auth="socket",
    ),
)


# A file's bytes, sent as they are.
_FILE = {"type": "string", "format": "binary", "maxLength": MAX_IMPORT_BYTES}


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", None) or "AttackRequest"


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
    "socket": [{"bearer": []}, {"token": []}],
}
_SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "The server's admin key (creates encounters and acts as GM on any), or "
        "one of the encounter's tokens: GM or player.",
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
    for name in ("ruleset", "encounter", "zone", "actor", "player", "damage"):
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


def _success(op: Operation, refs: dict[Any, Any]) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": "Switching Protocols" if op.status == 101 else "OK"}
    if op.response is not None:
        ok["content"] = {"application/json": {"schema": refs[op.response]}}
    # The upgrade is answered before the request's id can be added.
    headers = {} if op.status == 101 else {"X-Request-Id": _REQUEST_ID}
    if op.idempotent:
        headers["Idempotent-Replayed"] = _header(
            "Present on a retry's answer (the first one, kept)", required=False, enum=["true"]
        )
    if op.method == "post" and op.path == "/v1/encounters":
        headers["Location"] = _header("The new encounter's path.")
    if headers:
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


# The combat states (a creation's or a state edit's `combat`) and the actors' sheets are decoded
# as unions, where the "ruleset" tag tells them apart and is required.
_UNION_DECODED = {
    member.__name__ for union in (CombatState, ActorSheet) for member in typing.get_args(union)
}


def _optional_tags(components: dict[str, Any]) -> None:
    """msgspec needs a struct's tag only to pick a member of a union. A body decoded as the
    encounter's ruleset's type, or a result nested in a state, may leave it out: say so."""
    for name, schema in components.items():
        if name in _UNION_DECODED:
            continue
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        for tag in ("ruleset", "kind"):
            if tag in required and len(properties[tag].get("enum", ())) == 1:
                required.remove(tag)


@functools.cache
def document() -> dict[str, Any]:
    kinds = [k for op in OPERATIONS for k in (op.request, op.response) if k is not None]
    schemas, components = msgspec.json.schema_components([*kinds, Problem], ref_template=_REF)
    refs = dict(zip(kinds, schemas[:-1], strict=True))
    problem_ref = schemas[-1]
    _optional_tags(components)
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        entry: dict[str, Any] = {"summary": op.summary, "responses": {}}
        parameters = _parameters(op)
        if parameters:
            entry["parameters"] = parameters
        if op.auth is not None:
            entry["security"] = _SECURITY[op.auth]
        if op.request is not None:
            entry["requestBody"] = {
                "required": not op.body_optional,
                "content": {"application/json": {"schema": refs[op.request]}},
            }
        if op.file_body:
            entry["requestBody"] = {
                "required": True,
                "content": {"application/octet-stream": {"schema": _FILE}},
            }
        entry["responses"][str(op.status)] = _success(op, refs)
        for status in op.also:
            entry["responses"][str(status)] = {
                "description": "Unavailable",
                "headers": {"X-Request-Id": _REQUEST_ID},
                "content": {"application/json": {"schema": refs[op.response]}},
            }
        for status in op.errors:
            entry["responses"][str(status)] = _problem(status, problem_ref)
        paths.setdefault(op.path, {})[op.method] = entry
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "firefight",
            "version": VERSION,
            "description": "Ranged-combat resolution for virtual tabletops.",
        },
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": _SECURITY_SCHEMES},
    }


async def openapi_json(request: web.Request) -> web.Response:
    return web.json_response(document())


def _schema_html(schema: dict[str, Any] | bool) -> str:
    if isinstance(schema, bool):  # JSON Schema's "anything" (true) and "nothing" (false)
        return "any" if schema else "nothing"
    if "prefixItems" in schema:  # a tuple
        return "[" + ", ".join(_schema_html(s) for s in schema["prefixItems"]) + "]"
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
                shown = ", ".join(_schema_html(c["schema"]) for c in body["content"].values())
                parts.append(f"<li>body: {shown}</li>")
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
