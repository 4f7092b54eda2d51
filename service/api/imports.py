"""The import route: a character file's bytes put onto an encounter's scene actor
(`POST /v1/encounters/{encounter}/actors/{actor}/import?format=`). Its body is a file, not
JSON, and may be larger than any other route's (MAX_IMPORT_BYTES, not FIREFIGHT_MAX_BODY_BYTES)."""

from __future__ import annotations

from aiohttp import web

from schemas.imports import ImportFormat
from service.api.app_keys import ENCOUNTERS
from service.api.handling import admit, answered, idempotency_key, received_file, route_actor
from service.api.problems import ProblemError
from service.imports import IMPORT_FORMATS, MAX_IMPORT_BYTES

IMPORT_ROUTE = "/v1/encounters/{encounter}/actors/{actor}/import"

TOO_LARGE = ProblemError(
    413,
    "import-too-large",
    "Import too large",
    f"a character file is at most {MAX_IMPORT_BYTES} bytes",
)


def source_format(request: web.Request) -> ImportFormat:
    """`?format=`: which reader the file is for (required: a file's bytes do not say it
    reliably, and nothing is guessed)."""
    asked = request.query.get("format")
    if asked not in IMPORT_FORMATS:
        given = "none given" if asked is None else f"not {asked[:32]!r}"
        raise ProblemError(
            400,
            "validation",
            "Invalid request",
            f"format is one of {', '.join(IMPORT_FORMATS)} ({given})",
            "format",
        )
    return asked


async def import_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    key = idempotency_key(request)
    # Who asks, from the headers, and the encounter's rate of changes, before the format and
    # the body: a stranger learns nothing and costs no read of a file.
    admitted = await admit(request, "gm")
    chosen = source_format(request)
    data = await received_file(request, MAX_IMPORT_BYTES, TOO_LARGE)
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.import_actor(admitted, actor_id, chosen, data, key))


def add_routes(app: web.Application) -> None:
    app.router.add_post(IMPORT_ROUTE, import_actor)
