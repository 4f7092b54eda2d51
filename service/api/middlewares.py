"""The middleware every request goes through: its id and log line, CORS, admission, problem+json
for every error (as the token that asked may see it), and the refusals of clients without a valid
token."""

from __future__ import annotations

import asyncio
import ipaddress
import math
import os
import time
from collections.abc import Awaitable, Callable

import msgspec
import structlog
from aiohttp import web

from service import logs
from service.api import openapi
from service.api.admission import InFlight, counts, overloaded
from service.api.app_keys import ADMITTED, BODY, CONFIG, ENCOUNTERS
from service.api.limits import RateLimiter
from service.api.problems import CONTENT_TYPE as PROBLEM_CONTENT_TYPE
from service.api.problems import (
    HTTP_KINDS,
    OTHER_HTTP_KIND,
    ProblemError,
    problem_response,
    validation_problem,
)
from service.config import IPNetwork
from service.engine import (
    ActorNotFound,
    EncounterEnded,
    EncounterNotFound,
    Forbidden,
    IdempotencyConflict,
    IdempotencyInProgress,
    LimitExceeded,
    StateChanged,
    StateLimitExceeded,
    StoreContention,
    StoredStateInvalid,
    Unauthorized,
)
from service.engine.campaign_core import CampaignNotFound
from service.engine.previews import RETRY_AFTER_SECONDS as PREVIEW_RETRY_AFTER_SECONDS
from service.engine.previews import PreviewTooLarge, TooManyPreviews
from service.rules import RuleViolation
from service.rules.dice import DiceError
from service.store import IdempotencyKeyLost, StoreUnavailable

# The status logged for a request its client hung up on (nginx's, never sent to anyone).
CLIENT_CLOSED_REQUEST = 499
REQUEST_ID_HEADER = "X-Request-Id"
# What a browser client may read of an answer: when to retry, whether it was a replay, where a
# new encounter is.
EXPOSED_HEADERS = f"{REQUEST_ID_HEADER}, Retry-After, Idempotent-Replayed, Location"
# How long a client waits before retrying when the store is unreachable or contended.
RETRY_AFTER_SECONDS = 1
IDEMPOTENCY_HEADER = openapi.IDEMPOTENCY_HEADER

log = structlog.get_logger("firefight.api")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

RETRY_AFTER_HEADERS = {"Retry-After": str(RETRY_AFTER_SECONDS)}


# uuid.uuid4()'s version and variant bits, set on 128 random bits as it sets them.
_UUID4_KEPT = ~(0xC000 << 48) & ~(0xF000 << 64) & ((1 << 128) - 1)
_UUID4_SET = (0x8000 << 48) | (0x4000 << 64)


def _request_id() -> str:
    """`uuid.uuid4().hex` (the same random bits, from os.urandom) at half its CPU: no UUID."""
    return f"{int.from_bytes(os.urandom(16)) & _UUID4_KEPT | _UUID4_SET:032x}"


# --- the middleware ------------------------------------------------------------------------


def serving(
    origins: tuple[str, ...],
    in_flight: InFlight,
    limiter: RateLimiter | None,
    served: Callable[[web.Request, int, float], None] = lambda request, status, seconds: None,
) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The one middleware every request goes through, doing in this order what six nested ones
    did (each a coroutine and a frame per request; docs/performance.md, "Issue 28"):

    1. the request id (given or made) in the log context, echoed in `X-Request-Id`, and one
       canonical log line when the request ends;
    2. CORS for the configured origins only (Foundry runs on its own origin): a preflight is
       answered here; other answers say which headers a browser may read;
    3. admission (`service/api/admission.py`): past the cap on requests in flight, a 503 with
       Retry-After before any work;
    4. a problem's text as the token that asked may see it;
    5. every error as problem+json, bad input never a 500;
    6. past the limit of refusals for want of a valid token, 429 instead of 401.

    `served(request, status, seconds)` is told of every request once it is answered (its
    metrics: service/api/metrics.py).
    """
    allowed = frozenset(origins)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = given if 0 < len(given) <= 64 and given.isprintable() else _request_id()
        logs.new_context(request_id=request_id)
        started = time.perf_counter()
        status = 500
        cancelled = False
        origin = request.headers.get("Origin")
        if origin is not None and origin not in allowed:
            origin = None
        counted = False
        try:
            if (
                origin is not None
                and request.method == "OPTIONS"
                and "Access-Control-Request-Method" in request.headers
            ):
                response: web.StreamResponse = _preflight()
            else:
                counted = counts(request)
                if counted and in_flight.full():
                    counted = False
                    response = overloaded(in_flight, request_id, RETRY_AFTER_HEADERS)
                else:
                    if counted:
                        in_flight.count += 1
                    try:
                        response = await handler(request)
                    except Exception as error:
                        response = await _problem(request, error, request_id, limiter)
                    response = _as_seen(request, response)
                if origin is not None:
                    response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
            if origin is not None:
                response.headers["Access-Control-Allow-Origin"] = origin
                response.headers["Vary"] = "Origin"
            status = response.status
            response.headers[REQUEST_ID_HEADER] = request_id
            return response
        except asyncio.CancelledError:
            # Cut short (the shutdown deadline passed): no answer was sent, and it is no 500.
            status, cancelled = CLIENT_CLOSED_REQUEST, True
            raise
        finally:
            if counted:
                in_flight.count -= 1
            seconds = time.perf_counter() - started
            served(request, status, seconds)
            line = {
                "method": request.method,
                "path": request.path,
                "status": status,
                "duration_ms": round(seconds * 1000, 2),
            }
            if cancelled:
                line["cancelled"] = True
            logs.request_line(line)

    return middleware


def _preflight() -> web.Response:
    response = web.Response(status=204)
    response.headers["Access-Control-Allow-Methods"] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    response.headers["Access-Control-Allow-Headers"] = (
        "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
    )
    response.headers["Access-Control-Max-Age"] = "600"
    return response


def _as_seen(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """A problem's text as the token that asked may see it: a player's token never reads a
    hidden actor's name there (the same redaction as its answers and events)."""
    admitted = request.get(ADMITTED)
    if (
        admitted is None
        or admitted.role == "gm"
        or not isinstance(response, web.Response)
        or response.content_type != PROBLEM_CONTENT_TYPE
        or not isinstance(response.body, bytes)
    ):
        return response
    sight = request.app[ENCOUNTERS].sight(admitted)
    # A name the request gave itself is said back as given: it tells the player nothing it did
    # not say (and so a hidden actor's name and an unknown one are said back alike).
    sight = sight.but_what_was_asked(
        request.path + " " + request.get(BODY, b"").decode(errors="replace")
    )
    if not sight.everything:
        response.body = sight.redact_json(response.body)
    return response


async def _problem(
    request: web.Request, error: Exception, request_id: str, limiter: RateLimiter | None
) -> web.Response:
    """Every error as problem+json; bad input is never a 500. Raises again what is no error
    (an HTTP redirect)."""
    if isinstance(error, Unauthorized) and limiter is not None:
        # Refusals for want of a valid credential are counted per client address: past the
        # limit the address gets 429 instead of 401, whatever encounter it tries. Only
        # authenticated requests count against an encounter's own limit (`_admit`), so a
        # stranger cannot lock a table out.
        wait = limiter.retry_after(client_address(request))
        if wait is not None:
            error = ProblemError(
                429,
                "rate-limited",
                "Too many requests",
                "too many requests without a valid token from this address; retry after "
                f"{wait:.2f} s",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )
    try:
        raise error
    except ProblemError as error:
        response = problem_response(error, request_id)
        if error.status == 408:
            await _answer_and_hang_up(request, response, request_id)
        return response
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
        return problem_response(
            ProblemError(403, "forbidden", "Forbidden", str(error), error.path), request_id
        )
    except PreviewTooLarge as error:
        return problem_response(
            ProblemError(422, "limit-exceeded", "Limit exceeded", str(error), "samples"),
            request_id,
        )
    except LimitExceeded as error:
        return problem_response(
            ProblemError(422, "limit-exceeded", "Limit exceeded", str(error)), request_id
        )
    except TooManyPreviews as error:
        return problem_response(
            ProblemError(
                429,
                "too-many-previews",
                "Too many previews",
                str(error),
                headers={"Retry-After": str(PREVIEW_RETRY_AFTER_SECONDS)},
            ),
            request_id,
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
    except CampaignNotFound as error:
        return problem_response(
            ProblemError(404, "campaign-not-found", "No such campaign", str(error)), request_id
        )
    except ActorNotFound as error:
        return problem_response(
            ProblemError(404, "actor-not-found", "No such actor", str(error), error.path),
            request_id,
        )
    except StoredStateInvalid as error:
        return problem_response(
            ProblemError(
                409, "stored-state-invalid", "Stored state invalid", str(error), error.path
            ),
            request_id,
        )
    except StateLimitExceeded as error:
        return problem_response(
            ProblemError(422, "limit-exceeded", "Limit exceeded", str(error)), request_id
        )
    except StateChanged as error:
        return problem_response(
            ProblemError(409, "state-changed", "State changed", str(error), error.path),
            request_id,
        )
    except StoreContention as error:
        return problem_response(
            ProblemError(503, "contention", "Busy, retry", str(error), headers=RETRY_AFTER_HEADERS),
            request_id,
        )
    except StoreUnavailable:
        return problem_response(
            ProblemError(
                503,
                "store-unavailable",
                "Store unavailable",
                "the encounter store cannot be reached",
                headers=RETRY_AFTER_HEADERS,
            ),
            request_id,
        )
    except web.HTTPException as error:
        if error.status < 400:
            raise
        detail = error.text or error.reason
        if error.status == 413:
            detail = f"the body is larger than {request.app[CONFIG].max_body_bytes} bytes"
        response = problem_response(
            ProblemError(
                error.status,
                HTTP_KINDS.get(error.status, OTHER_HTTP_KIND),
                error.reason,
                detail,
            ),
            request_id,
        )
        if error.status == 405 and "Allow" in error.headers:
            response.headers["Allow"] = error.headers["Allow"]
        return response
    except ConnectionResetError:
        # The client hung up mid-request (aiohttp fails the body's read so): nobody to answer,
        # nothing wrong with the service. The status is only for the log line.
        log.info("client_disconnected")
        return problem_response(
            ProblemError(
                CLIENT_CLOSED_REQUEST,
                "client-disconnected",
                "Client closed request",
                "the client closed the connection before the request was read",
            ),
            request_id,
        )
    except Exception:
        log.exception("unhandled_error")
        return problem_response(
            ProblemError(500, "internal", "Internal error", "the service failed; see its logs"),
            request_id,
        )


async def _answer_and_hang_up(
    request: web.Request, response: web.Response, request_id: str | None
) -> None:
    """Sends `response` now and closes the connection. What is left of a stalled body is no
    request, and aiohttp would otherwise linger reading it (10 s), holding the very connection
    the body timeout is there to free."""
    if request_id is not None:
        response.headers[REQUEST_ID_HEADER] = request_id
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    if request.transport is not None:
        request.transport.close()


def client_address(request: web.Request) -> str:
    """The client's address: the peer's, or behind a trusted proxy the last hop it names in
    X-Forwarded-For (the one it saw; earlier hops, and earlier lines of the header, are the
    client's word: a proxy that appends a line of its own puts it last)."""
    peer = request.remote or ""
    if _is_trusted(peer, request.app[CONFIG].trusted_proxies):
        lines = request.headers.getall("X-Forwarded-For", ())
        hops = [hop.strip() for hop in ",".join(lines).split(",")]
        if hops and hops[-1]:
            return hops[-1]
    return peer


def _is_trusted(peer: str, proxies: tuple[IPNetwork, ...]) -> bool:
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in proxies)
