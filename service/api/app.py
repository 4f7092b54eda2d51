"""The aiohttp application: `create_app(config)` is the only way to build it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import structlog
from aiohttp import WSCloseCode, web
from aiohttp.payload import AsyncIterablePayload

from schemas.encounter import Health, RulesetDetail, RulesetInfo, RulesetList
from service import logs
from service.api import campaigns, dice_reveal, foundry, imports, metrics, openapi
from service.api.admission import InFlight
from service.api.app_keys import (
    CONFIG,
    ENCOUNTERS,
    HUB,
    IN_FLIGHT,
    LIMITER,
    METRICS,
    SOCKET_COUNTS,
    SOCKETS,
    STORE,
)
from service.api.connections import TOO_MANY_CONNECTIONS
from service.api.handling import (
    IDEMPOTENCY_HEADER,
    JSON,
    admit,
    after_id,
    answered,
    bearer_token,
    change_arguments,
    idempotency_key,
    json_encoder,
    json_response,
    read_body,
    route_actor,
    route_id,
)
from service.api.hub import EventHub
from service.api.limits import RateLimiter, SocketCounts
from service.api.metrics import Metrics
from service.api.middlewares import RETRY_AFTER_SECONDS, serving
from service.api.problems import ProblemError
from service.api.websocket import websocket
from service.config import Config
from service.engine import EVENTS_PAGE, Admitted, Encounters
from service.engine.encounters import PREVIEW_THREADS
from service.engine.previews import Previews
from service.rules import RULESETS, Ruleset, initiative, odds
from service.store import StoreUnavailable
from service.store.choice import store_for, store_limits

# How often a running preview's connection is looked at: a preview whose client is gone stops
# within this (and a sample).
HANG_UP_POLL_SECONDS = 0.05

# The web console: static files served as they are (no build step).
CONSOLE_DIR = Path(__file__).resolve().parent.parent / "console"

T = TypeVar("T")
log = structlog.get_logger("firefight.api")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


# --- handlers ------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    return _alive(request.app)


async def readyz(request: web.Request) -> web.Response:
    return await _ready(request.app)


def _alive(app: web.Application) -> web.Response:
    return json_response(Health(status="ok", store=_store_kind(app)))


async def _ready(app: web.Application) -> web.Response:
    try:
        await app[STORE].ping()
    except StoreUnavailable:
        return json_response(Health(status="unavailable", store=_store_kind(app)), 503)
    return json_response(Health(status="ok", store=_store_kind(app)))


def health_only(app: web.Application) -> Callable[[web.BaseRequest], Awaitable[web.Response]]:
    """The handler of the connections taken in above the connection cap (`ConnectionCap`'s
    reserve): `/healthz` and `/readyz` as the app answers them, anything else the cap's 503.
    One answer each, then the connection is closed: a reserve place is never kept."""

    async def handler(request: web.BaseRequest) -> web.Response:
        if request.path == "/healthz":
            response = _alive(app)
        elif request.path == "/readyz":
            response = await _ready(app)
        else:
            response = web.Response(
                body=TOO_MANY_CONNECTIONS,
                status=503,
                content_type="application/problem+json",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        response.force_close()
        return response

    return handler


def _store_kind(app: web.Application) -> str:
    return "redis" if app[CONFIG].redis_url else app[CONFIG].store


async def console_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(CONSOLE_DIR / "index.html", headers={"Cache-Control": "no-cache"})


def _ruleset_info(ruleset: Ruleset) -> RulesetInfo:
    rules = ruleset.initiative
    if rules is None:
        return ruleset.info
    return msgspec.structs.replace(ruleset.info, initiative=initiative.described(rules))


async def rulesets(request: web.Request) -> web.Response:
    return json_response(RulesetList(rulesets=[_ruleset_info(r) for r in RULESETS.values()]))


async def ruleset_detail(request: web.Request) -> web.Response:
    ruleset_id = request.match_info["ruleset"]
    ruleset = RULESETS.get(ruleset_id)
    if ruleset is None:
        raise ProblemError(
            404,
            "ruleset-not-found",
            "No such ruleset",
            f"no ruleset '{ruleset_id}'; GET /v1/rulesets lists them",
            "ruleset",
        )
    info = _ruleset_info(ruleset)
    fields = msgspec.structs.asdict(info)
    return json_response(RulesetDetail(**fields, body_map=ruleset.body_map))


async def create_encounter(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    credential = bearer_token(request)
    # The admin key, from the headers, before a byte of the body is read.
    encounters.check_admin(credential)
    key = idempotency_key(request)
    answer = await encounters.create(await read_body(request), credential, key)
    logs.bind(encounter=answer.encounter_id)
    response = answered(answer)
    response.headers["Location"] = f"/v1/encounters/{answer.encounter_id}"
    return response


async def zone_test(request: web.Request) -> web.Response:
    admitted, body, key = await change_arguments(request, "play")
    zone_id = request.match_info["zone"]
    return answered(await request.app[ENCOUNTERS].zone_test(admitted, zone_id, body, key))


async def zones(request: web.Request) -> web.Response:
    admitted = await admit(request, "read")
    return json_response(await request.app[ENCOUNTERS].zones(admitted))


async def get_encounter(request: web.Request) -> web.Response:
    admitted = await admit(request, "read")
    return json_response(await request.app[ENCOUNTERS].view(admitted))


async def attack(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.attack(*await change_arguments(request, "play")))


def _samples(request: web.Request) -> int | None:
    """`?samples=`: a sampled preview's sample size, within the service's bounds (None: not
    asked, the default within the preview's work bound)."""
    asked = request.query.get("samples")
    if asked is None:
        return None
    if (
        not asked.isascii()
        or not asked.isdigit()
        or not (odds.MIN_SAMPLES <= int(asked) <= odds.MAX_SAMPLES)
    ):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"samples is a whole number from {odds.MIN_SAMPLES} to {odds.MAX_SAMPLES}, "
            f"not {asked[:32]!r}",
            "samples",
        )
    return int(asked)


async def _preview_arguments(request: web.Request) -> tuple[Admitted, bytes, int | None]:
    """A preview's: who asks first (401 before anything else), as every route; then the body and
    `?samples=`."""
    admitted = await admit(request, "play", preview=True)
    return admitted, await read_body(request), _samples(request)


async def attack_odds(request: web.Request) -> web.Response:
    admitted, body, samples = await _preview_arguments(request)
    encounters = request.app[ENCOUNTERS]
    return json_response(
        await _while_connected(
            request, lambda stop: encounters.attack_odds(admitted, body, samples, stop)
        )
    )


async def zone_test_odds(request: web.Request) -> web.Response:
    admitted, body, samples = await _preview_arguments(request)
    zone_id = request.match_info["zone"]
    encounters = request.app[ENCOUNTERS]
    return json_response(
        await _while_connected(
            request,
            lambda stop: encounters.zone_test_odds(admitted, zone_id, body, samples, stop),
        )
    )


async def dice_needs(request: web.Request) -> web.Response:
    """The dice a request needs before it is rolled: a preview, admitted as the odds are."""
    admitted = await admit(request, "play", preview=True)
    body = await read_body(request)
    return json_response(await request.app[ENCOUNTERS].dice_needs(admitted, body))


async def _while_connected(
    request: web.Request, preview: Callable[[threading.Event], Awaitable[T]]
) -> T:
    """A preview, stopped (its thread between two samples) once its client hangs up: aiohttp
    does not cancel the handler then (handler_cancellation is off), so the connection is
    watched while the preview runs."""
    stop = threading.Event()

    async def watch() -> None:
        while not _hung_up(request):
            await asyncio.sleep(HANG_UP_POLL_SECONDS)
        log.info("preview_client_gone")
        stop.set()

    watcher = asyncio.create_task(watch())
    try:
        return await preview(stop)
    except odds.Stopped:
        raise ConnectionResetError("the client closed the connection during its preview") from None
    finally:
        watcher.cancel()


def _hung_up(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def action(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.action(*await change_arguments(request, "play")))


async def advance(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.advance(*await change_arguments(request, "gm")))


async def start_initiative(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.start_initiative(*await change_arguments(request, "gm")))


async def get_initiative(request: web.Request) -> web.Response:
    admitted = await admit(request, "read")
    return json_response(await request.app[ENCOUNTERS].initiative_view(admitted))


async def stop_initiative(request: web.Request) -> web.Response:
    key = idempotency_key(request)
    admitted = await admit(request, "gm")
    return answered(await request.app[ENCOUNTERS].stop_initiative(admitted, key), 200)


async def join_initiative(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.join_initiative(*await change_arguments(request, "gm")))


async def leave_initiative(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    key = idempotency_key(request)
    admitted = await admit(request, "gm")
    return answered(await request.app[ENCOUNTERS].leave_initiative(admitted, actor_id, key), 200)


async def edit_state(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.edit_state(*await change_arguments(request, "gm")))


async def undo(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.undo(*await change_arguments(request, "gm")), 200)


async def list_actors(request: web.Request) -> web.Response:
    admitted = await admit(request, "read")
    return json_response(await request.app[ENCOUNTERS].actors(admitted))


async def get_actor(request: web.Request) -> web.Response:
    admitted = await admit(request, "read")
    return json_response(await request.app[ENCOUNTERS].actor(admitted, route_actor(request)))


async def put_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    admitted, body, key = await change_arguments(request, "gm")
    return answered(await request.app[ENCOUNTERS].put_actor(admitted, actor_id, body, key), 200)


async def patch_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    admitted, body, key = await change_arguments(request, "gm")
    return answered(await request.app[ENCOUNTERS].patch_actor(admitted, actor_id, body, key), 200)


async def delete_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    key = idempotency_key(request)
    admitted = await admit(request, "gm")
    return answered(await request.app[ENCOUNTERS].remove_actor(admitted, actor_id, key), 200)


async def move_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    admitted, body, key = await change_arguments(request, "play")
    return answered(await request.app[ENCOUNTERS].move_actor(admitted, actor_id, body, key))


async def issue_player_token(request: web.Request) -> web.Response:
    player_id = route_id(request, "player")
    if IDEMPOTENCY_HEADER in request.headers:
        # A retry must not be answered with a token kept in the store: issue again instead.
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            "a player's token is not kept for retries; send this without an Idempotency-Key "
            "(issuing again replaces the token)",
            IDEMPOTENCY_HEADER,
        )
    admitted, body, _ = await change_arguments(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.issue_player_token(admitted, player_id, body))


async def revoke_player_token(request: web.Request) -> web.Response:
    player_id = route_id(request, "player")
    admitted = await admit(request, "gm")
    return answered(await request.app[ENCOUNTERS].revoke_player_token(admitted, player_id), 200)


async def edit_monitor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    admitted, body, key = await change_arguments(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.edit_monitor(admitted, actor_id, body, key), 200)


async def apply_pending(request: web.Request) -> web.Response:
    actor_id, damage_id = route_actor(request), route_id(request, "damage")
    key = idempotency_key(request)
    # The GM, or a player for the actor it controls (checked on the state).
    admitted = await admit(request, "play")
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.apply_pending(admitted, actor_id, damage_id, key), 200)


async def decline_pending(request: web.Request) -> web.Response:
    actor_id, damage_id = route_actor(request), route_id(request, "damage")
    key = idempotency_key(request)
    admitted = await admit(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.decline_pending(admitted, actor_id, damage_id, key), 200)


async def events(request: web.Request) -> web.Response:
    """A page of events, written event by event as the connection takes them (a payload the
    response streams once the middlewares have set its headers): a page never becomes one
    body of its size."""
    after = after_id(request)
    admitted = await admit(request, "read", ended_ok=True)
    page = await request.app[ENCOUNTERS].events(admitted, after, EVENTS_PAGE)
    tail = b'],"last_event_id":%b,"more":%b}' % (
        json_encoder.encode(page.last_event_id),
        b"true" if page.more else b"false",
    )

    async def written() -> AsyncIterator[bytes]:
        yield b'{"events":['
        for index, event in enumerate(page.events):
            yield b"," + event if index else event
        yield tail

    return web.Response(body=AsyncIterablePayload(written(), content_type=JSON))


# --- app -------------------------------------------------------------------------------------


async def _store_ctx(app: web.Application) -> AsyncIterator[None]:
    store = store_for(app[CONFIG])
    limits = store_limits(app[CONFIG])
    app[STORE] = store
    app[ENCOUNTERS] = Encounters(
        store,
        app[CONFIG].admin_key,
        max_actors=app[CONFIG].max_actors_per_encounter,
        max_state_bytes=app[CONFIG].max_state_bytes,
        state_cache_bytes=app[CONFIG].state_cache_bytes,
        max_event_bytes=app[CONFIG].max_event_bytes,
        events_page_bytes=app[CONFIG].events_page_bytes,
        ttl_seconds=limits.ttl_seconds,
        ended_ttl_seconds=limits.ended_ttl_seconds,
        previews=Previews(
            PREVIEW_THREADS,
            work=app[CONFIG].preview_work,
            per_token=app[CONFIG].previews_per_token,
            per_encounter=app[CONFIG].previews_per_encounter,
        ),
    )
    app[HUB] = EventHub(store, app[CONFIG].event_poll_seconds, app[CONFIG].ws_queue_batches)
    app[METRICS].hear(app[ENCOUNTERS], app[HUB], store)
    yield
    await app[ENCOUNTERS].close()
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
    """Closes every socket going away, all at once: one client that does not read cannot hold up
    the others or the shutdown. A socket not closed by the deadline is cut."""
    deadline = app[CONFIG].ws_close_timeout_seconds

    async def close(socket: web.WebSocketResponse, transport: asyncio.Transport) -> None:
        try:
            async with asyncio.timeout(deadline):
                await socket.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
        except TimeoutError:
            log.info("socket_dropped", reason="no close by the shutdown deadline")
            transport.abort()

    await asyncio.gather(*(close(socket, transport) for socket, transport in app[SOCKETS].items()))


def create_app(config: Config) -> web.Application:
    if not config.admin_key:
        raise ValueError("create_app needs a Config with an admin_key (load_config makes one)")
    in_flight = InFlight(config.max_in_flight)
    measured = Metrics()
    in_flight.on_shed = measured.shed["in_flight"].inc
    app = web.Application(
        client_max_size=config.max_body_bytes,
        middlewares=[
            serving(
                config.cors_origins,
                in_flight,
                RateLimiter(config.refusals_per_second, 5 * config.refusals_per_second)
                if config.refusals_per_second
                else None,
                measured.served,
            )
        ],
    )
    app[CONFIG] = config
    app[METRICS] = measured
    app[IN_FLIGHT] = in_flight
    app[LIMITER] = (
        RateLimiter(config.rate_limit_per_second, 2 * config.rate_limit_per_second)
        if config.rate_limit_per_second
        else None
    )
    app[SOCKETS] = {}
    app[SOCKET_COUNTS] = SocketCounts()
    app.cleanup_ctx.append(_store_ctx)
    app.cleanup_ctx.append(_hub_ctx)
    app.on_shutdown.append(_close_sockets)
    app.router.add_get("/", console_page)
    app.router.add_static("/console/", CONSOLE_DIR)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/openapi.json", openapi.openapi_json)
    app.router.add_get("/docs", openapi.docs_page)
    metrics.add_routes(app, config, measured)
    foundry.add_routes(
        app, foundry.PublicAddress(config.public_url, frozenset(config.allowed_hosts))
    )
    # The rulesets.
    app.router.add_get("/v1/rulesets", rulesets)
    app.router.add_get("/v1/rulesets/{ruleset}", ruleset_detail)
    # Attacks, actions and zone tests, and their odds: first of the encounter's routes, which
    # aiohttp tries one after the other, as they are what a table sends most (no two of these
    # paths match the same URL, so the order changes nothing else).
    app.router.add_post("/v1/encounters/{encounter}/attacks", attack)
    app.router.add_post("/v1/encounters/{encounter}/attacks/odds", attack_odds)
    app.router.add_post("/v1/encounters/{encounter}/actions", action)
    app.router.add_post("/v1/encounters/{encounter}/dice", dice_needs)
    app.router.add_get("/v1/encounters/{encounter}/zones", zones)
    app.router.add_post("/v1/encounters/{encounter}/zones/{zone}/tests", zone_test)
    app.router.add_post("/v1/encounters/{encounter}/zones/{zone}/tests/odds", zone_test_odds)
    # Encounters and players: creation, reading, the GM's edits, players' tokens, the end.
    app.router.add_post("/v1/encounters", create_encounter)
    app.router.add_get("/v1/encounters/{encounter}", get_encounter)
    app.router.add_delete("/v1/encounters/{encounter}", campaigns.delete_encounter)
    app.router.add_put("/v1/encounters/{encounter}/state", edit_state)
    app.router.add_post("/v1/encounters/{encounter}/players/{player}", issue_player_token)
    app.router.add_delete("/v1/encounters/{encounter}/players/{player}", revoke_player_token)
    app.router.add_get("/v1/encounters/{encounter}/events", events)
    app.router.add_get("/v1/encounters/{encounter}/ws", websocket)
    # The scene.
    app.router.add_get("/v1/encounters/{encounter}/actors", list_actors)
    app.router.add_get("/v1/encounters/{encounter}/actors/{actor}", get_actor)
    app.router.add_put("/v1/encounters/{encounter}/actors/{actor}", put_actor)
    app.router.add_patch("/v1/encounters/{encounter}/actors/{actor}", patch_actor)
    app.router.add_delete("/v1/encounters/{encounter}/actors/{actor}", delete_actor)
    app.router.add_post("/v1/encounters/{encounter}/actors/{actor}/move", move_actor)
    imports.add_routes(app)
    # Campaigns: characters and templates kept between encounters.
    campaigns.add_routes(app)
    # The turn and the initiative.
    app.router.add_post("/v1/encounters/{encounter}/advance", advance)
    app.router.add_post("/v1/encounters/{encounter}/initiative", start_initiative)
    app.router.add_get("/v1/encounters/{encounter}/initiative", get_initiative)
    app.router.add_delete("/v1/encounters/{encounter}/initiative", stop_initiative)
    app.router.add_post("/v1/encounters/{encounter}/initiative/actors", join_initiative)
    app.router.add_delete("/v1/encounters/{encounter}/initiative/actors/{actor}", leave_initiative)
    # Monitors and undo.
    monitor = "/v1/encounters/{encounter}/actors/{actor}/monitor"
    app.router.add_post(monitor, edit_monitor)
    app.router.add_post(monitor + "/pending/{damage}", apply_pending)
    app.router.add_delete(monitor + "/pending/{damage}", decline_pending)
    app.router.add_post("/v1/encounters/{encounter}/undo", undo)
    dice_reveal.add_routes(app)
    return app
