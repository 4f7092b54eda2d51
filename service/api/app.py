"""The aiohttp application: `create_app(config)` is the only way to build it."""

from __future__ import annotations

import asyncio
import math
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import structlog
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.payload import AsyncIterablePayload

from schemas.common import ID_MAX_LENGTH, ID_PATTERN, MAX_JSON_DEPTH
from schemas.encounter import (
    Health,
    RulesetDetail,
    RulesetInfo,
    RulesetList,
)
from service.api import foundry, openapi
from service.api.admission import InFlight, admission
from service.api.app_keys import (
    ADMITTED,
    BODY,
    CONFIG,
    ENCOUNTERS,
    HUB,
    IN_FLIGHT,
    LIMITER,
    SOCKET_COUNTS,
    SOCKETS,
    STORE,
)
from service.api.connections import TOO_MANY_CONNECTIONS
from service.api.hub import DROPPED, EventHub, SocketFeed, Subscription, changes_tokens
from service.api.json_depth import deeper_than
from service.api.limits import (
    CLIENT_FRAME_BURST,
    CLIENT_FRAMES_PER_SECOND,
    CLIENT_MESSAGE_BYTES,
    RateLimiter,
    SocketCounts,
)
from service.api.middlewares import (
    RETRY_AFTER_HEADERS,
    RETRY_AFTER_SECONDS,
    cors,
    problems,
    problems_as_seen,
    refusals,
    request_context,
)
from service.api.problems import ProblemError
from service.config import Config
from service.engine import (
    EVENTS_PAGE,
    Admitted,
    Answer,
    Encounters,
    Unauthorized,
)
from service.engine.access import Permission, token_hash
from service.engine.encounters import PREVIEW_THREADS
from service.engine.previews import Previews
from service.rules import RULESETS, Ruleset, initiative, odds
from service.store import (
    EncounterStore,
    MemoryStore,
    RedisStore,
    StoreLimits,
    StoreUnavailable,
)
from service.store.base import START, Events, parse_event_id

CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The close code of a socket whose token was revoked or replaced (the private range of RFC 6455,
# 7.4.2; 4000 + the HTTP status a new socket with that token gets).
WS_TOKEN_REVOKED = 4401
# When a token that holds as many sockets as it may is told to try again.
TOO_MANY_SOCKETS_RETRY_SECONDS = 5
# How long a client that broke the protocol gets to take its close frame before it is cut.
CLIENT_CLOSE_SECONDS = 1.0

JSON = "application/json"
IDEMPOTENCY_HEADER = openapi.IDEMPOTENCY_HEADER
# How often a running preview's connection is looked at: a preview whose client is gone stops
# within this (and a sample).
HANG_UP_POLL_SECONDS = 0.05

# The web console: static files served as they are (no build step).
CONSOLE_DIR = Path(__file__).resolve().parent.parent / "console"

T = TypeVar("T")
log = structlog.get_logger("firefight.api")
_json = msgspec.json.Encoder()
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json_response(value: object, status: int = 200) -> web.Response:
    return web.Response(body=_json.encode(value), status=status, content_type=JSON)


_ROUTE_ID = re.compile(ID_PATTERN)


def _route_id(request: web.Request, name: str) -> str:
    """The route's actor or player id, checked as the ids of bodies are."""
    value = request.match_info[name]
    if not (len(value) <= ID_MAX_LENGTH and _ROUTE_ID.search(value)):
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"{value[:64]!r} is not an id (letters, digits, _ . : -, up to {ID_MAX_LENGTH})",
            name,
        )
    return value


def _actor_id(request: web.Request) -> str:
    return _route_id(request, "actor")


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


# --- handlers ------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    return _alive(request.app)


async def readyz(request: web.Request) -> web.Response:
    return await _ready(request.app)


def _alive(app: web.Application) -> web.Response:
    return _json_response(Health(status="ok", store=_store_kind(app)))


async def _ready(app: web.Application) -> web.Response:
    try:
        await app[STORE].ping()
    except StoreUnavailable:
        return _json_response(Health(status="unavailable", store=_store_kind(app)), 503)
    return _json_response(Health(status="ok", store=_store_kind(app)))


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
    return "redis" if app[CONFIG].redis_url else "memory"


async def console_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(CONSOLE_DIR / "index.html", headers={"Cache-Control": "no-cache"})


def _ruleset_info(ruleset: Ruleset) -> RulesetInfo:
    rules = ruleset.initiative
    if rules is None:
        return ruleset.info
    return msgspec.structs.replace(ruleset.info, initiative=initiative.described(rules))


async def rulesets(request: web.Request) -> web.Response:
    return _json_response(RulesetList(rulesets=[_ruleset_info(r) for r in RULESETS.values()]))


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
    return _json_response(RulesetDetail(**fields, body_map=ruleset.body_map))


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


async def read_body(request: web.Request) -> bytes:
    """The request's body, or a 408 when it has not all arrived within the body timeout: a client
    trickling or stalling its body does not hold a connection and a handler for ever. A body
    nested deeper than any request is (MAX_JSON_DEPTH) is a 400 before it is decoded."""
    body = await _received_body(request)
    if deeper_than(body, MAX_JSON_DEPTH):
        raise ProblemError(
            400,
            "malformed-json",
            "Malformed JSON",
            f"the body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels",
            "$",
        )
    return body


async def _received_body(request: web.Request) -> bytes:
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
        raise ProblemError(
            408,
            "request-timeout",
            "Request timeout",
            f"the request body did not arrive within {timeout:g} s",
        ) from None


async def create_encounter(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    credential = _credential(request)
    # The admin key, from the headers, before a byte of the body is read.
    encounters.check_admin(credential)
    key = _idempotency_key(request)
    answer = await encounters.create(await read_body(request), credential, key)
    structlog.contextvars.bind_contextvars(encounter=answer.encounter_id)
    response = _answer(answer)
    response.headers["Location"] = f"/v1/encounters/{answer.encounter_id}"
    return response


async def _admit(
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
    encounter_id = _encounter_id(request)
    credential = _encounter_credential(request, query_allowed)
    admitted = await request.app[ENCOUNTERS].admit(
        encounter_id, credential, needed, ended_ok, fresh=preview
    )
    request[ADMITTED] = admitted
    limiter = request.app[LIMITER]
    if limiter is not None and request.method in CHANGING_METHODS and not preview:
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
    return admitted


async def zone_test(request: web.Request) -> web.Response:
    admitted, body, key = await _change_arguments(request, "play")
    zone_id = request.match_info["zone"]
    return _answer(await request.app[ENCOUNTERS].zone_test(admitted, zone_id, body, key))


async def zones(request: web.Request) -> web.Response:
    admitted = await _admit(request, "read")
    return _json_response(await request.app[ENCOUNTERS].zones(admitted))


async def get_encounter(request: web.Request) -> web.Response:
    admitted = await _admit(request, "read")
    return _json_response(await request.app[ENCOUNTERS].view(admitted))


async def delete_encounter(request: web.Request) -> web.Response:
    admitted = await _admit(request, "gm")
    await request.app[ENCOUNTERS].end(admitted)
    return web.Response(status=204)


async def attack(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.attack(*await _change_arguments(request, "play")))


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
    admitted = await _admit(request, "play", preview=True)
    return admitted, await read_body(request), _samples(request)


async def attack_odds(request: web.Request) -> web.Response:
    admitted, body, samples = await _preview_arguments(request)
    encounters = request.app[ENCOUNTERS]
    return _json_response(
        await _while_connected(
            request, lambda stop: encounters.attack_odds(admitted, body, samples, stop)
        )
    )


async def zone_test_odds(request: web.Request) -> web.Response:
    admitted, body, samples = await _preview_arguments(request)
    zone_id = request.match_info["zone"]
    encounters = request.app[ENCOUNTERS]
    return _json_response(
        await _while_connected(
            request,
            lambda stop: encounters.zone_test_odds(admitted, zone_id, body, samples, stop),
        )
    )


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
    return _answer(await encounters.action(*await _change_arguments(request, "play")))


async def advance(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.advance(*await _change_arguments(request, "gm")))


async def start_initiative(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.start_initiative(*await _change_arguments(request, "gm")))


async def get_initiative(request: web.Request) -> web.Response:
    admitted = await _admit(request, "read")
    return _json_response(await request.app[ENCOUNTERS].initiative_view(admitted))


async def stop_initiative(request: web.Request) -> web.Response:
    key = _idempotency_key(request)
    admitted = await _admit(request, "gm")
    return _answer(await request.app[ENCOUNTERS].stop_initiative(admitted, key), 200)


async def join_initiative(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.join_initiative(*await _change_arguments(request, "gm")))


async def leave_initiative(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    key = _idempotency_key(request)
    admitted = await _admit(request, "gm")
    return _answer(await request.app[ENCOUNTERS].leave_initiative(admitted, actor_id, key), 200)


async def edit_state(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.edit_state(*await _change_arguments(request, "gm")))


async def _change_arguments(
    request: web.Request, needed: Permission
) -> tuple[Admitted, bytes, str | None]:
    """Who asks is checked from the headers first; only then is the body read."""
    key = _idempotency_key(request)
    admitted = await _admit(request, needed)
    return admitted, await read_body(request), key


async def list_actors(request: web.Request) -> web.Response:
    admitted = await _admit(request, "read")
    return _json_response(await request.app[ENCOUNTERS].actors(admitted))


async def get_actor(request: web.Request) -> web.Response:
    admitted = await _admit(request, "read")
    return _json_response(await request.app[ENCOUNTERS].actor(admitted, _actor_id(request)))


async def put_actor(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    admitted, body, key = await _change_arguments(request, "gm")
    return _answer(await request.app[ENCOUNTERS].put_actor(admitted, actor_id, body, key), 200)


async def patch_actor(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    admitted, body, key = await _change_arguments(request, "gm")
    return _answer(await request.app[ENCOUNTERS].patch_actor(admitted, actor_id, body, key), 200)


async def delete_actor(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    key = _idempotency_key(request)
    admitted = await _admit(request, "gm")
    return _answer(await request.app[ENCOUNTERS].remove_actor(admitted, actor_id, key), 200)


async def move_actor(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    admitted, body, key = await _change_arguments(request, "play")
    return _answer(await request.app[ENCOUNTERS].move_actor(admitted, actor_id, body, key))


async def issue_player_token(request: web.Request) -> web.Response:
    player_id = _route_id(request, "player")
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
    admitted, body, _ = await _change_arguments(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.issue_player_token(admitted, player_id, body))


async def revoke_player_token(request: web.Request) -> web.Response:
    player_id = _route_id(request, "player")
    admitted = await _admit(request, "gm")
    return _answer(await request.app[ENCOUNTERS].revoke_player_token(admitted, player_id), 200)


async def edit_monitor(request: web.Request) -> web.Response:
    actor_id = _actor_id(request)
    admitted, body, key = await _change_arguments(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.edit_monitor(admitted, actor_id, body, key), 200)


async def apply_pending(request: web.Request) -> web.Response:
    actor_id, damage_id = _actor_id(request), _route_id(request, "damage")
    key = _idempotency_key(request)
    # The GM, or a player for the actor it controls (checked on the state).
    admitted = await _admit(request, "play")
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.apply_pending(admitted, actor_id, damage_id, key), 200)


async def decline_pending(request: web.Request) -> web.Response:
    actor_id, damage_id = _actor_id(request), _route_id(request, "damage")
    key = _idempotency_key(request)
    admitted = await _admit(request, "gm")
    encounters = request.app[ENCOUNTERS]
    return _answer(await encounters.decline_pending(admitted, actor_id, damage_id, key), 200)


async def events(request: web.Request) -> web.Response:
    """A page of events, written event by event as the connection takes them (a payload the
    response streams once the middlewares have set its headers): a page never becomes one
    body of its size."""
    after = _after(request)
    admitted = await _admit(request, "read", ended_ok=True)
    page = await request.app[ENCOUNTERS].events(admitted, after, EVENTS_PAGE)
    tail = b'],"last_event_id":%b,"more":%b}' % (
        _json.encode(page.last_event_id),
        b"true" if page.more else b"false",
    )

    async def written() -> AsyncIterator[bytes]:
        yield b'{"events":['
        for index, event in enumerate(page.events):
            yield b"," + event if index else event
        yield tail

    return web.Response(body=AsyncIterablePayload(written(), content_type=JSON))


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Missed events first (after `after`), then live ones, each once and in order."""
    after = _after(request)
    app = request.app
    # Refuse before the upgrade, so the client gets a problem it can read.
    admitted = await _admit(request, "read", ended_ok=True, query_allowed=True)
    config = app[CONFIG]
    counts = app[SOCKET_COUNTS]
    if counts.total >= config.max_sockets:
        raise ProblemError(
            503,
            "sockets-full",
            "Too many sockets",
            f"this replica holds as many WebSockets as it may ({config.max_sockets}); retry in "
            "a moment",
            headers=RETRY_AFTER_HEADERS,
        )
    holder = (admitted.encounter_id, token_hash(admitted.credential or ""))
    held = counts.held(holder)
    if held >= config.max_sockets_per_token:
        raise ProblemError(
            429,
            "too-many-sockets",
            "Too many sockets",
            f"this token has {held} sockets open on this encounter, as many as one replica "
            f"allows ({config.max_sockets_per_token}); close one, or retry after "
            f"{TOO_MANY_SOCKETS_RETRY_SECONDS} s",
            headers={"Retry-After": str(TOO_MANY_SOCKETS_RETRY_SECONDS)},
        )
    counts.add(holder)
    try:
        return await _follow(request, admitted, after)
    finally:
        counts.remove(holder)


async def _follow(
    request: web.Request, admitted: Admitted, after: str | None
) -> web.WebSocketResponse:
    app = request.app
    encounters = app[ENCOUNTERS]
    config = app[CONFIG]
    # No per-message compression: the hub writes every socket of an audience the same prepared
    # frames, which a compressor per socket could not share. No message from the client is
    # read beyond a control frame's size, and pings are answered here, where they are counted.
    socket = web.WebSocketResponse(
        heartbeat=config.ws_heartbeat_seconds,
        compress=False,
        autoping=False,
        max_msg_size=CLIENT_MESSAGE_BYTES,
    )
    writer = await socket.prepare(request)
    # Kept from the start: once the socket closes, aiohttp no longer gives the request's.
    transport = request.transport
    if transport is None:  # the client left during the handshake
        return socket
    app[SOCKETS][socket] = transport
    try:
        players_only = admitted.role != "gm"
        subscription = await app[HUB].subscribe(admitted.encounter_id, players_only=players_only)
        credential = admitted.credential

        async def still_admitted() -> None:
            """Raises Unauthorized once this socket's token opens the encounter no more."""
            await encounters.admit(admitted.encounter_id, credential, "read", ended_ok=True)

        sender = asyncio.create_task(
            _send_events(
                SocketFeed(socket, transport, writer),
                encounters,
                subscription,
                after or START,
                config.ws_send_timeout_seconds,
                # The GM's token is never revoked; a player's is checked again on each change
                # of tokens.
                still_admitted if players_only else None,
            )
        )
        try:
            await _read_client(socket, transport)
        finally:
            sender.cancel()
            app[HUB].unsubscribe(subscription)
            if transport.get_write_buffer_size():
                # Closed (the heartbeat found it dead) with bytes it never read: the transport
                # would wait for them to be sent before it let go of the connection.
                transport.abort()
    finally:
        del app[SOCKETS][socket]
    return socket


async def _read_client(socket: web.WebSocketResponse, transport: asyncio.Transport) -> None:
    """Reads what the client sends until the socket closes: reading keeps the heartbeat and the
    close working. Pings are answered. Anything else the protocol does not need (a message:
    clients have nothing to say; more frames than a client needs) closes the socket 1008; a
    message above CLIENT_MESSAGE_BYTES is refused 1009 by aiohttp from its header, unread."""
    frames = RateLimiter(CLIENT_FRAMES_PER_SECOND, CLIENT_FRAME_BURST)
    async for message in socket:
        if message.type is WSMsgType.ERROR:
            # aiohttp closed it (1009 for a message too big); the loop ends next.
            log.info("socket_closed", reason=str(message.data), code=socket.close_code)
            continue
        if frames.retry_after("frames") is not None:
            reason = b"too many frames: this socket only sends events"
        elif message.type is WSMsgType.PING:
            await socket.pong(message.data)
            continue
        elif message.type is WSMsgType.PONG:
            continue  # the heartbeat's answer (aiohttp notes any data as the client alive)
        else:
            reason = b"clients send no messages on this socket; resume with ?after="
        log.info("socket_closed", reason=reason.decode(), code=WSCloseCode.POLICY_VIOLATION)
        try:
            async with asyncio.timeout(CLIENT_CLOSE_SECONDS):
                await socket.close(code=WSCloseCode.POLICY_VIOLATION, message=reason)
        except TimeoutError:
            transport.abort()
        return


# Events a socket's replay reads from the store at once: each may take up to
# FIREFIGHT_MAX_EVENT_BYTES, and a page is held in memory until the socket has taken it.
REPLAY_PAGE = 32


async def _send_events(
    feed: SocketFeed,
    encounters: Encounters,
    subscription: Subscription,
    after: str,
    send_timeout: float,
    still_admitted: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """The replay, a page at a time; then what came live meanwhile (skipping what the replay
    sent, and for a player's token the events about hidden actors); then the hub writes the
    live events to the socket itself, and this task only wakes when the client falls behind
    (to wait until it has taken what it was sent, and catch up), the encounter ends, or, for
    a socket with `still_admitted`, the tokens changed.

    Before it sends events among which the tokens changed, `still_admitted` checks the
    socket's token against the encounter as it is now (on whichever replica the change was
    made: each reads the stream): a token revoked or replaced gets none of them, and its
    socket is closed WS_TOKEN_REVOKED at once.

    Every such wait and every close has `send_timeout`: a client that does not take what it is
    sent is not reading, and its connection is cut (aborted) rather than waited on: closing it
    would wait for its unsent bytes to be read first, which never happens, and it would never be
    reclaimed."""
    subscription.last = parse_event_id(after)
    socket, transport = feed.socket, feed.transport

    async def send(events: Events) -> bool:
        """Sends what the socket has not had of `events`; True when the encounter ended."""
        if still_admitted is not None and any(changes_tokens(stored) for _, stored in events):
            await still_admitted()
        for frame, ends in subscription.frames(events):
            if ends:
                feed.write(frame)
                return True
            if feed.write(frame):
                await feed.drained(send_timeout)
        return False

    async def close(code: int, message: bytes) -> None:
        async with asyncio.timeout(send_timeout):
            await socket.close(code=code, message=message)

    try:
        cursor = after
        while True:
            page = await encounters.store.events_after(
                subscription.encounter_id, cursor, REPLAY_PAGE
            )
            if await send(page):
                await close(WSCloseCode.OK, b"encounter ended")
                return
            if len(page) < REPLAY_PAGE:
                break
            cursor = page[-1][0]
        while True:
            while not subscription.queue.empty():
                batch = subscription.queue.get_nowait()
                if batch is DROPPED:
                    # Too far behind: the hub dropped it; the client resumes with `after`.
                    await close(WSCloseCode.TRY_AGAIN_LATER, b"resume with after")
                    return
                if await send(batch):
                    await close(WSCloseCode.OK, b"encounter ended")
                    return
            # The queue is empty and nothing was awaited since: from here the hub writes.
            subscription.go_live(feed)
            await subscription.wait_woken()
            if subscription.ended:
                await close(WSCloseCode.OK, b"encounter ended")
                return
            await feed.drained(send_timeout)
    except Unauthorized:
        log.info("socket_closed", reason="token revoked", code=WS_TOKEN_REVOKED)
        try:
            await close(WS_TOKEN_REVOKED, b"token revoked")
        except TimeoutError:
            transport.abort()
        return
    except StoreUnavailable as error:
        log.warning("socket_replay_store_unavailable", error=str(error))
    except ConnectionResetError:
        return
    except TimeoutError:
        log.info("socket_dropped", reason="not reading", timeout_s=send_timeout)
        transport.abort()
        return
    # The store failed mid-replay: the client resumes with `after`.
    try:
        await close(WSCloseCode.TRY_AGAIN_LATER, b"resume with after")
    except TimeoutError:
        transport.abort()


# --- app -------------------------------------------------------------------------------------


def _make_store(config: Config) -> EncounterStore:
    limits = StoreLimits(
        ttl_seconds=config.encounter_ttl_seconds,
        max_events=config.max_events_per_encounter,
        max_event_stream_bytes=config.max_event_stream_bytes,
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
        store,
        app[CONFIG].admin_key,
        max_actors=app[CONFIG].max_actors_per_encounter,
        max_state_bytes=app[CONFIG].max_state_bytes,
        state_cache_bytes=app[CONFIG].state_cache_bytes,
        max_event_bytes=app[CONFIG].max_event_bytes,
        events_page_bytes=app[CONFIG].events_page_bytes,
        previews=Previews(
            PREVIEW_THREADS,
            work=app[CONFIG].preview_work,
            per_token=app[CONFIG].previews_per_token,
            per_encounter=app[CONFIG].previews_per_encounter,
        ),
    )
    app[HUB] = EventHub(store, app[CONFIG].event_poll_seconds, app[CONFIG].ws_queue_batches)
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
    app = web.Application(
        client_max_size=config.max_body_bytes,
        middlewares=[
            request_context,
            cors(config.cors_origins),
            admission(in_flight, RETRY_AFTER_SECONDS),
            problems_as_seen,
            problems,
            refusals(
                RateLimiter(config.refusals_per_second, 5 * config.refusals_per_second)
                if config.refusals_per_second
                else None
            ),
        ],
    )
    app[CONFIG] = config
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
    foundry.add_routes(
        app, foundry.PublicAddress(config.public_url, frozenset(config.allowed_hosts))
    )
    # The rulesets.
    app.router.add_get("/v1/rulesets", rulesets)
    app.router.add_get("/v1/rulesets/{ruleset}", ruleset_detail)
    # Encounters and players: creation, reading, the GM's edits, players' tokens, the end.
    app.router.add_post("/v1/encounters", create_encounter)
    app.router.add_get("/v1/encounters/{encounter}", get_encounter)
    app.router.add_delete("/v1/encounters/{encounter}", delete_encounter)
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
    # Attacks, actions and zone tests, and their odds.
    app.router.add_post("/v1/encounters/{encounter}/attacks", attack)
    app.router.add_post("/v1/encounters/{encounter}/attacks/odds", attack_odds)
    app.router.add_post("/v1/encounters/{encounter}/actions", action)
    app.router.add_get("/v1/encounters/{encounter}/zones", zones)
    app.router.add_post("/v1/encounters/{encounter}/zones/{zone}/tests", zone_test)
    app.router.add_post("/v1/encounters/{encounter}/zones/{zone}/tests/odds", zone_test_odds)
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
    return app
