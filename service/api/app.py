"""The aiohttp application: `create_app(config)` is the only way to build it."""

from __future__ import annotations

import asyncio
import math
import re
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import structlog
from aiohttp import WSCloseCode, web

from schemas.encounter import (
    Health,
    RulesetList,
)
from service.api import openapi
from service.api.hub import EventHub, Subscription
from service.api.limits import RateLimiter
from service.api.problems import ProblemError, problem_response, validation_problem
from service.config import Config
from service.engine import (
    EVENTS_PAGE,
    Answer,
    EncounterEnded,
    EncounterNotFound,
    Encounters,
    Forbidden,
    IdempotencyConflict,
    IdempotencyInProgress,
    LimitExceeded,
    StoreContention,
    Unauthorized,
    event_json,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import DiceError
from service.store import (
    EncounterStore,
    IdempotencyKeyLost,
    MemoryStore,
    RedisStore,
    StoreLimits,
    StoreUnavailable,
)
from service.store.base import START, parse_event_id

CONFIG = web.AppKey("config", Config)
STORE = web.AppKey("store", EncounterStore)
ENCOUNTERS = web.AppKey("encounters", Encounters)
HUB = web.AppKey("hub", EventHub)
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")

JSON = "application/json"
REQUEST_ID_HEADER = "X-Request-Id"
IDEMPOTENCY_HEADER = openapi.IDEMPOTENCY_HEADER

# The web console: static files served as they are (no build step).
CONSOLE_DIR = Path(__file__).resolve().parent.parent / "console"

T = TypeVar("T")
log = structlog.get_logger("firefight.api")
_json = msgspec.json.Encoder()
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json_response(value: object, status: int = 200) -> web.Response:
    return web.Response(body=_json.encode(value), status=status, content_type=JSON)


def _encounter_id(request: web.Request) -> str:
    encounter_id = request.match_info["encounter"]
    structlog.contextvars.bind_contextvars(encounter=encounter_id)
    return encounter_id


_AFTER = re.compile(openapi.AFTER_PATTERN)


def _after(request: web.Request) -> str | None:
    """The `after` event id, None when absent or empty. Checked here as the contract has it (ASCII
    digits, 19 at most each): the store would take other digits, or numbers Redis refuses."""
    after = request.query.get("after") or None
    if after is not None and not _AFTER.fullmatch(after):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"{after[:64]!r} is not an event id (expected <milliseconds>-<sequence>, as returned)",
            "after",
        )
    return after


# --- middlewares -------------------------------------------------------------------------


@web.middleware
async def request_context(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request id for every request, and one canonical log line when it ends."""
    given = request.headers.get(REQUEST_ID_HEADER, "")
    request_id = given if 0 < len(given) <= 64 and given.isprintable() else uuid.uuid4().hex
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=request_id)
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        response.headers[REQUEST_ID_HEADER] = request_id
        return response
    finally:
        log.info(
            "request",
            method=request.method,
            path=request.path,
            status=status,
            duration_ms=round((time.perf_counter() - started) * 1000, 2),
        )


@web.middleware
async def problems(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turns every error into problem+json; bad input is never a 500."""
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    try:
        return await handler(request)
    except ProblemError as error:
        return problem_response(error, request_id)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        return problem_response(validation_problem(error), request_id)
    except DiceError as error:
        return problem_response(
            ProblemError(400, "dice", "Given dice do not fit", error.detail, error.path), request_id
        )
    except RuleViolation as error:
        return problem_response(
            ProblemError(
                error.status, error.kind, "Not allowed by the rules", error.detail, error.path
            ),
            request_id,
        )
    except Unauthorized as error:
        response = problem_response(
            ProblemError(401, "unauthorized", "Unauthorized", str(error)), request_id
        )
        response.headers["WWW-Authenticate"] = 'Bearer realm="firefight"'
        return response
    except Forbidden as error:
        return problem_response(ProblemError(403, "forbidden", "Forbidden", str(error)), request_id)
    except LimitExceeded as error:
        return problem_response(
            ProblemError(422, "limit-exceeded", "Limit exceeded", str(error)), request_id
        )
    except EncounterEnded as error:
        return problem_response(
            ProblemError(410, "encounter-ended", "Encounter ended", str(error)), request_id
        )
    except IdempotencyConflict as error:
        return problem_response(
            ProblemError(
                422,
                "idempotency-key-reused",
                "Idempotency-Key reused",
                str(error),
                IDEMPOTENCY_HEADER,
            ),
            request_id,
        )
    except (IdempotencyInProgress, IdempotencyKeyLost) as error:
        detail = (
            str(error)
            if isinstance(error, IdempotencyInProgress)
            else ("another attempt with this Idempotency-Key took over; retry to get its answer")
        )
        return problem_response(
            ProblemError(
                409, "idempotency-key-in-use", "Request in progress", detail, IDEMPOTENCY_HEADER
            ),
            request_id,
        )
    except EncounterNotFound as error:
        return problem_response(
            ProblemError(404, "encounter-not-found", "No such encounter", str(error)), request_id
        )
    except StoreContention as error:
        return problem_response(
            ProblemError(503, "contention", "Busy, retry", str(error)), request_id
        )
    except StoreUnavailable:
        return problem_response(
            ProblemError(
                503,
                "store-unavailable",
                "Store unavailable",
                "the encounter store cannot be reached",
            ),
            request_id,
        )
    except web.HTTPException as error:
        if error.status < 400:
            raise
        kind = {404: "not-found", 405: "method-not-allowed", 413: "body-too-large"}.get(
            error.status, "http"
        )
        detail = error.text or error.reason
        if error.status == 413:
            detail = f"the body is larger than {request.app[CONFIG].max_body_bytes} bytes"
        response = problem_response(
            ProblemError(error.status, kind, error.reason, detail), request_id
        )
        if error.status == 405 and "Allow" in error.headers:
            response.headers["Allow"] = error.headers["Allow"]
        return response
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unhandled_error")
        return problem_response(
            ProblemError(500, "internal", "Internal error", "the service failed; see its logs"),
            request_id,
        )


def rate_limit(limiter: RateLimiter | None) -> Callable[..., Awaitable[web.StreamResponse]]:
    """429 for state changes beyond the per-encounter rate (reads and sockets are not limited)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        encounter_id = request.match_info.get("encounter")
        if limiter is not None and encounter_id and request.method in ("POST", "PUT", "DELETE"):
            wait = limiter.retry_after(encounter_id)
            if wait is not None:
                raise ProblemError(
                    429,
                    "rate-limited",
                    "Too many requests",
                    "this encounter changes state faster than the service allows; retry after "
                    f"{wait:.2f} s",
                    headers={"Retry-After": str(max(1, math.ceil(wait)))},
                )
        return await handler(request)

    return middleware


def cors(origins: tuple[str, ...]) -> Callable[..., Awaitable[web.StreamResponse]]:
    """Answers the configured origins only (Foundry runs on its own origin); nothing by default."""
    allowed = frozenset(origins)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is None or origin not in allowed:
            return await handler(request)
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response: web.StreamResponse = web.Response(status=204)
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Access-Control-Allow-Headers"] = (
                "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
            )
            response.headers["Access-Control-Max-Age"] = "600"
        else:
            response = await handler(request)
            response.headers["Access-Control-Expose-Headers"] = REQUEST_ID_HEADER
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
        return response

    return middleware


# --- handlers ------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    return _json_response(Health(status="ok", store=_store_kind(request.app)))


async def readyz(request: web.Request) -> web.Response:
    try:
        await request.app[STORE].ping()
    except StoreUnavailable:
        return _json_response(Health(status="unavailable", store=_store_kind(request.app)), 503)
    return _json_response(Health(status="ok", store=_store_kind(request.app)))


def _store_kind(app: web.Application) -> str:
    return "redis" if app[CONFIG].redis_url else "memory"


async def console_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(CONSOLE_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def rulesets(request: web.Request) -> web.Response:
    return _json_response(RulesetList(rulesets=[r.info for r in RULESETS.values()]))


def _credential(request: web.Request, query_allowed: bool = False) -> str | None:
    """The Bearer token; a WebSocket may pass it as `?token=` (browsers cannot set headers)."""
    header = request.headers.get("Authorization")
    if header is None:
        return request.query.get("token") if query_allowed else None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send the token as 'Authorization: Bearer <token>'")
    return token.strip()


def _encounter_credential(request: web.Request, query_allowed: bool = False) -> str:
    """The credential for an encounter's route. Without one the answer is 401 before the encounter
    is looked up, so an anonymous caller learns nothing, not even whether it exists."""
    credential = _credential(request, query_allowed)
    if credential is None:
        raise Unauthorized("this encounter needs its GM or player token as a Bearer token")
    return credential


def _idempotency_key(request: web.Request) -> str | None:
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


def _answer(answer: Answer, status: int = 201) -> web.Response:
    response = web.Response(body=answer.body, status=status, content_type=JSON)
    if answer.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


async def create_encounter(request: web.Request) -> web.Response:
    answer = await request.app[ENCOUNTERS].create(
        await request.read(), _credential(request), _idempotency_key(request)
    )
    structlog.contextvars.bind_contextvars(encounter=answer.encounter_id)
    response = _answer(answer)
    response.headers["Location"] = f"/v1/encounters/{answer.encounter_id}"
    return response


async def zone_test(request: web.Request) -> web.Response:
    encounter_id, body, credential, key = await _change_arguments(request)
    encounters = request.app[ENCOUNTERS]
    zone_id = request.match_info["zone"]
    return _answer(await encounters.zone_test(encounter_id, zone_id, body, credential, key))


async def zones(request: web.Request) -> web.Response:
    credential = _encounter_credential(request)
    return _json_response(await request.app[ENCOUNTERS].zones(_encounter_id(request), credential))


async def get_encounter(request: web.Request) -> web.Response:
    credential = _encounter_credential(request)
    view = await request.app[ENCOUNTERS].view(_encounter_id(request), credential)
    return _json_response(view)


async def delete_encounter(request: web.Request) -> web.Response:
    credential = _encounter_credential(request)
    await request.app[ENCOUNTERS].end(_encounter_id(request), credential)
    return web.Response(status=204)


async def attack(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.attack(*await _change_arguments(request)))


async def action(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.action(*await _change_arguments(request)))


async def advance(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.advance(*await _change_arguments(request)))


async def edit_state(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.edit_state(*await _change_arguments(request)))


async def _change_arguments(request: web.Request) -> tuple[str, bytes, str | None, str | None]:
    encounter_id = _encounter_id(request)
    credential = _encounter_credential(request)
    key = _idempotency_key(request)
    return encounter_id, await request.read(), credential, key


async def events(request: web.Request) -> web.Response:
    encounter_id = _encounter_id(request)
    credential = _encounter_credential(request)
    after = _after(request)
    page = await request.app[ENCOUNTERS].events(encounter_id, after, EVENTS_PAGE, credential)
    last = _json.encode(page[-1][0] if page else None)
    body = b'{"events":[' + b",".join(e for _, e in page) + b'],"last_event_id":' + last + b"}"
    return web.Response(body=body, content_type=JSON)


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Missed events first (after `after`), then live ones, each once and in order."""
    encounter_id = _encounter_id(request)
    credential = _encounter_credential(request, query_allowed=True)
    after = _after(request)
    app = request.app
    encounters = app[ENCOUNTERS]
    # Refuse before the upgrade, so the client gets a problem it can read.
    await encounters.events(encounter_id, after, 1, credential)
    socket = web.WebSocketResponse(heartbeat=app[CONFIG].ws_heartbeat_seconds)
    await socket.prepare(request)
    app[SOCKETS].add(socket)
    subscription = await app[HUB].subscribe(encounter_id)
    sender = asyncio.create_task(_send_events(socket, encounters, subscription, after or START))
    try:
        async for _ in socket:
            pass  # clients have nothing to say; reading keeps the heartbeat and close working
    finally:
        sender.cancel()
        app[HUB].unsubscribe(subscription)
    return socket


async def _send_events(
    socket: web.WebSocketResponse, encounters: Encounters, subscription: Subscription, after: str
) -> None:
    """The replay, a page at a time, then the live queue, skipping what the replay sent."""
    last = parse_event_id(after)

    async def send(event_id: str, stored: bytes) -> bool:
        """Sends one event; True when it was the last the encounter will have."""
        nonlocal last
        position = parse_event_id(event_id)
        if position <= last:
            return False
        last = position
        await socket.send_str(event_json(event_id, stored).decode())
        # StoredEvent encodes `type` first: no need to decode every event to spot the end.
        return stored.startswith(b'{"type":"encounter_ended"')

    try:
        cursor = after
        while True:
            page = await encounters.store.events_after(
                subscription.encounter_id, cursor, EVENTS_PAGE
            )
            for event_id, stored in page:
                if await send(event_id, stored):
                    await socket.close(code=WSCloseCode.OK, message=b"encounter ended")
                    return
                cursor = event_id
            if len(page) < EVENTS_PAGE:
                break
        while not (subscription.overflowed and subscription.queue.empty()):
            for event_id, stored in await subscription.queue.get():
                if await send(event_id, stored):
                    await socket.close(code=WSCloseCode.OK, message=b"encounter ended")
                    return
    except StoreUnavailable as error:
        log.warning("socket_replay_store_unavailable", error=str(error))
    except ConnectionResetError:
        return
    # Too far behind, or the store failed mid-replay: the client resumes with `after`.
    await socket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"resume with after")


# --- app -------------------------------------------------------------------------------------


def _make_store(config: Config) -> EncounterStore:
    limits = StoreLimits(
        ttl_seconds=config.encounter_ttl_seconds, max_events=config.max_events_per_encounter
    )
    if config.redis_url:
        return RedisStore(
            config.redis_url,
            limits,
            cluster=config.redis_cluster,
            password=config.redis_password,
        )
    return MemoryStore(limits)


async def _store_ctx(app: web.Application) -> AsyncIterator[None]:
    store = _make_store(app[CONFIG])
    app[STORE] = store
    app[ENCOUNTERS] = Encounters(
        store, app[CONFIG].admin_key, max_actors=app[CONFIG].max_actors_per_encounter
    )
    app[HUB] = EventHub(store, app[CONFIG].event_poll_seconds)
    yield
    await store.close()


async def _hub_ctx(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.create_task(app[HUB].run())
    yield
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


async def _close_sockets(app: web.Application) -> None:
    sockets: weakref.WeakSet[web.WebSocketResponse] = app[SOCKETS]
    for socket in list(sockets):
        await socket.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def create_app(config: Config) -> web.Application:
    if not config.admin_key:
        raise ValueError("create_app needs a Config with an admin_key (load_config makes one)")
    app = web.Application(
        client_max_size=config.max_body_bytes,
        middlewares=[
            request_context,
            cors(config.cors_origins),
            problems,
            rate_limit(
                RateLimiter(config.rate_limit_per_second, 2 * config.rate_limit_per_second)
                if config.rate_limit_per_second
                else None
            ),
        ],
    )
    app[CONFIG] = config
    app[SOCKETS] = weakref.WeakSet()
    app.cleanup_ctx.append(_store_ctx)
    app.cleanup_ctx.append(_hub_ctx)
    app.on_shutdown.append(_close_sockets)
    app.router.add_get("/", console_page)
    app.router.add_static("/console/", CONSOLE_DIR)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/openapi.json", openapi.openapi_json)
    app.router.add_get("/docs", openapi.docs_page)
    app.router.add_get("/v1/rulesets", rulesets)
    app.router.add_post("/v1/encounters", create_encounter)
    app.router.add_get("/v1/encounters/{encounter}", get_encounter)
    app.router.add_delete("/v1/encounters/{encounter}", delete_encounter)
    app.router.add_post("/v1/encounters/{encounter}/attacks", attack)
    app.router.add_post("/v1/encounters/{encounter}/actions", action)
    app.router.add_post("/v1/encounters/{encounter}/advance", advance)
    app.router.add_put("/v1/encounters/{encounter}/state", edit_state)
    app.router.add_get("/v1/encounters/{encounter}/zones", zones)
    app.router.add_post("/v1/encounters/{encounter}/zones/{zone}/tests", zone_test)
    app.router.add_get("/v1/encounters/{encounter}/events", events)
    app.router.add_get("/v1/encounters/{encounter}/ws", websocket)
    return app
