"""What every handler does with a request: its ids, its credential, its body, its answer;
and the admission of an encounter's route (who asks, then the encounter's rate of changes)."""

from __future__ import annotations

import asyncio
import math
import re

import msgspec
from aiohttp import web

from schemas.common import ID_MAX_LENGTH, ID_PATTERN, MAX_JSON_DEPTH
from service import logs
from service.api import openapi
from service.api.app_keys import ADMITTED, BODY, CONFIG, ENCOUNTERS, LIMITER
from service.api.json_depth import deeper_than
from service.api.problems import ProblemError
from service.engine import Admitted, Answer, Unauthorized
from service.engine.access import Permission

CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON = "application/json"
IDEMPOTENCY_HEADER = openapi.IDEMPOTENCY_HEADER


json_encoder = msgspec.json.Encoder()


def json_response(value: object, status: int = 200) -> web.Response:
    return web.Response(body=json_encoder.encode(value), status=status, content_type=JSON)


ROUTE_ID = re.compile(ID_PATTERN)


def route_id(request: web.Request, name: str) -> str:
    """The route's actor or player id, checked as the ids of bodies are."""
    value = request.match_info[name]
    if not (len(value) <= ID_MAX_LENGTH and ROUTE_ID.search(value)):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"{value[:64]!r} is not an id (letters, digits, _ . : -, up to {ID_MAX_LENGTH})",
            name,
        )
    return value


def route_actor(request: web.Request) -> str:
    return route_id(request, "actor")


def route_encounter(request: web.Request) -> str:
    encounter_id = request.match_info["encounter"]
    logs.bind(encounter=encounter_id)
    return encounter_id


AFTER = re.compile(openapi.AFTER_PATTERN)


def after_id(request: web.Request) -> str | None:
    """The `after` event id, None when absent or empty. Checked here as the contract has it (ASCII
    digits, 19 at most each): the store would take other digits, or numbers Redis refuses."""
    after = request.query.get("after") or None
    if after is not None and not AFTER.fullmatch(after):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"{after[:64]!r} is not an event id (expected <milliseconds>-<sequence>, as returned)",
            "after",
        )
    return after


def bearer_token(request: web.Request, query_allowed: bool = False) -> str | None:
    """The Bearer token; a WebSocket may pass it as `?token=` (browsers cannot set headers)."""
    header = request.headers.get("Authorization")
    if header is None:
        return request.query.get("token") if query_allowed else None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send the token as 'Authorization: Bearer <token>'")
    return token.strip()


def encounter_token(request: web.Request, query_allowed: bool = False) -> str:
    """The credential for an encounter's route. Without one the answer is 401 before the encounter
    is looked up, so an anonymous caller learns nothing, not even whether it exists."""
    credential = bearer_token(request, query_allowed)
    if credential is None:
        raise Unauthorized("this encounter needs its GM or player token as a Bearer token")
    return credential


def idempotency_key(request: web.Request) -> str | None:
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not (0 < len(key) <= 255 and key.isascii() and key.isprintable()):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            "an Idempotency-Key is 1 to 255 printable ASCII characters (a UUID is best)",
            IDEMPOTENCY_HEADER,
        )
    return key


def answered(answer: Answer, status: int = 201) -> web.Response:
    response = web.Response(body=answer.body, status=status, content_type=JSON)
    if answer.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


async def read_body(request: web.Request) -> bytes:
    """The request's body, or a 408 when it has not all arrived within the body timeout: a client
    trickling or stalling its body does not hold a connection and a handler for ever. A body
    nested deeper than any request is (MAX_JSON_DEPTH) is a 400 before it is decoded."""
    body = await received_body(request)
    if deeper_than(body, MAX_JSON_DEPTH):
        raise ProblemError(
            400,
            "malformed-json",
            "Malformed JSON",
            f"the body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels",
            "$",
        )
    return body


async def received_body(request: web.Request) -> bytes:
    if request.content.is_eof():
        # All of it came with the headers (as a table's small bodies do): nothing to wait for.
        request[BODY] = body = await request.read()
        return body
    timeout = request.app[CONFIG].body_timeout_seconds
    try:
        async with asyncio.timeout(timeout):
            request[BODY] = body = await request.read()
            return body
    except TimeoutError:
        raise _body_timeout(timeout) from None


async def received_file(request: web.Request, max_bytes: int, too_large: ProblemError) -> bytes:
    """A file's bytes as sent (any Content-Type), up to `max_bytes` in place of the app's body
    bound: `too_large` as soon as the Content-Length, or what has arrived, says it is larger,
    never after reading it whole. Within the body timeout, as every body."""
    if request.content_length is not None and request.content_length > max_bytes:
        raise too_large
    timeout = request.app[CONFIG].body_timeout_seconds
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.content.iter_any():
                size += len(chunk)
                if size > max_bytes:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise _body_timeout(timeout) from None
    return b"".join(chunks)


def _body_timeout(timeout: float) -> ProblemError:
    return ProblemError(
        408,
        "request-timeout",
        "Request timeout",
        f"the request body did not arrive within {timeout:g} s",
    )


async def admit(
    request: web.Request,
    needed: Permission,
    ended_ok: bool = False,
    query_allowed: bool = False,
    preview: bool = False,
) -> Admitted:
    """The encounter of the route, once the caller's credential (from the headers) is shown to
    have `needed` on it; then, for a change, the encounter's rate limit. Nothing of the body has
    been read yet. A `preview` (odds) changes nothing: it reads the encounter as it is in the
    store, as a read does, and spends none of its rate of changes."""
    encounter_id = route_encounter(request)
    credential = encounter_token(request, query_allowed)
    admitted = await request.app[ENCOUNTERS].admit(
        encounter_id, credential, needed, ended_ok, fresh=preview
    )
    request[ADMITTED] = admitted
    if request.method in CHANGING_METHODS and not preview:
        check_rate(request, encounter_id)
    return admitted


def check_rate(request: web.Request, document_id: str) -> None:
    """A change to an encounter (or a campaign) within the rate the service allows it."""
    limiter = request.app[LIMITER]
    wait = None if limiter is None else limiter.retry_after(document_id)
    if wait is not None:
        raise ProblemError(
            429,
            "rate-limited",
            "Too many requests",
            "this encounter changes state faster than the service allows; retry after "
            f"{wait:.2f} s",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


async def change_arguments(
    request: web.Request, needed: Permission
) -> tuple[Admitted, bytes, str | None]:
    """Who asks is checked from the headers first; only then is the body read."""
    key = idempotency_key(request)
    admitted = await admit(request, needed)
    return admitted, await read_body(request), key
