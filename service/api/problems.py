"""Every error is `application/problem+json`: a stable type, a detail and the bad field's path."""

from __future__ import annotations

import re

import msgspec
from aiohttp import web

from schemas.common import Problem

PROBLEM_TYPE = "https://firefight.invalid/problems/"
CONTENT_TYPE = "application/problem+json"

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
