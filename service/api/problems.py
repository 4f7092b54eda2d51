"""Every error is `application/problem+json`: a stable type, a detail and the bad field's path."""

from __future__ import annotations

import re

import msgspec
from aiohttp import web

from schemas.common import Problem

PROBLEM_TYPE = "https://firefight.invalid/problems/"
CONTENT_TYPE = "application/problem+json"

# Every problem type the service can answer, after PROBLEM_TYPE: the one list the contract's
# `Problem.type` enum is made from. tests/test_openapi_problems.py reads the code for every kind
# a ProblemError or a RuleViolation is raised with and checks it is this list, no more, no less.
PROBLEM_KINDS: tuple[str, ...] = tuple(
    """
    action-lost action-not-supported action-points-exceeded actor-down actor-incapacitated
    actor-not-found actor-not-on-scene already-attacked already-tested below-minimum-range
    body-too-large brought-twice campaign-not-found cannot-undo character-copied
    client-disconnected combat-pool-exhausted combat-pool-unknown consciousness-test-due
    contention dice dice-given dodge-pool-exhausted dodge-pool-unknown edge-already-used
    encounter-ended encounter-not-found forbidden grenade-incomplete host-not-allowed http
    id-taken id-too-long idempotency-key-in-use idempotency-key-reused import-refused
    import-too-large initiative-conflict initiative-incomplete initiative-too-low internal
    limb-not-working limit-exceeded malformed-json method-not-allowed missing-defender-value
    mode-not-available no-action-left no-attack no-campaign no-consciousness-test-due no-edge
    no-initiative no-monitors no-recovery-due no-token no-zones not-brought not-found
    not-in-initiative not-your-phase nothing-to-edit nothing-to-hold-for nothing-to-undo
    one-monitor-edit out-of-ammo out-of-range over-capacity overloaded pending-not-found
    phase-full position-unknown rate-limited recovery-roll-due request-timeout reserved-name
    rule-violation ruleset-not-found sheet-incomplete sockets-full state-changed
    state-out-of-bounds store-unavailable stored-state-invalid strength-needed surprised
    too-many-grenades too-many-pool-dice too-many-previews too-many-sockets too-many-targets
    unauthorized uneven-split validation weapon-not-carried willpower-needed willpower-unknown
    wrong-ruleset zone-not-found zone-without-test
    """.split()
)
# What an aiohttp HTTP error (an unknown route, a method, a body too large) is answered as.
HTTP_KINDS = {404: "not-found", 405: "method-not-allowed", 413: "body-too-large"}
OTHER_HTTP_KIND = "http"

_AT_PATH = re.compile(r" - at `(\$[^`]*)`$")
_UNKNOWN_FIELD = re.compile(r"^Object contains unknown field `([^`]*)`")
_MISSING_FIELD = re.compile(r"^Object missing required field `([^`]*)`")
_OVER_LIMIT = re.compile(r"^Expected `(array|object|str)` of length <= \d+$")

_encoder = msgspec.json.Encoder()


class ProblemError(Exception):
    """Raised anywhere in the API layer to answer with a problem."""

    def __init__(
        self,
        status: int,
        kind: str,
        title: str,
        detail: str,
        path: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.title = title
        self.detail = detail
        self.path = path
        self.headers = headers or {}


def validation_problem(error: msgspec.ValidationError | msgspec.DecodeError) -> ProblemError:
    """msgspec's message carries the JSON path ("... - at `$.targets[0]`"): surface it."""
    message = str(error)
    if not isinstance(error, msgspec.ValidationError):
        return ProblemError(
            400, "malformed-json", "Malformed JSON", f"the body is not JSON: {message}"
        )
    match = _AT_PATH.search(message)
    path = match.group(1) if match else "$"
    detail = _AT_PATH.sub("", message)
    # msgspec names the missing or unknown field in the message, not in the path.
    field = _UNKNOWN_FIELD.match(detail) or _MISSING_FIELD.match(detail)
    if field:
        path = f"{path}.{field.group(1)}"
    if _OVER_LIMIT.match(detail):
        # Too many targets, dice, steps or characters: a limit of the service, not a typo.
        return ProblemError(422, "limit-exceeded", "Limit exceeded", detail, path)
    return ProblemError(400, "validation", "Invalid request", detail, path)


def problem_response(error: ProblemError, request_id: str | None) -> web.Response:
    body = Problem(
        type=PROBLEM_TYPE + error.kind,
        title=error.title,
        status=error.status,
        detail=error.detail,
        path=error.path,
        request_id=request_id,
    )
    return web.Response(
        body=_encoder.encode(body),
        status=error.status,
        content_type=CONTENT_TYPE,
        headers=error.headers,
    )
