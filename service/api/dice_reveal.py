"""The GM's reveal of the dice secret (`POST /v1/encounters/{encounter}/dice/reveal`,
docs/dice.md): a GM write like any other, rate limited with the encounter's changes."""

from __future__ import annotations

from aiohttp import web

from service.api.app_keys import ENCOUNTERS
from service.api.handling import answered, change_arguments

REVEAL_ROUTE = "/v1/encounters/{encounter}/dice/reveal"


async def reveal_dice(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.reveal_dice(*await change_arguments(request, "gm")))


def add_routes(app: web.Application) -> None:
    app.router.add_post(REVEAL_ROUTE, reveal_dice)
