"""The dice's own routes (docs/dice.md): the GM's reveal of the secret
(`POST /v1/encounters/{encounter}/dice/reveal`) and a token's own seed
(`PUT .../dice/client-seed`), writes like any other, rate limited with the encounter's changes."""

from __future__ import annotations

from aiohttp import web

from service.api.app_keys import ENCOUNTERS
from service.api.handling import answered, change_arguments

REVEAL_ROUTE = "/v1/encounters/{encounter}/dice/reveal"
CLIENT_SEED_ROUTE = "/v1/encounters/{encounter}/dice/client-seed"


async def reveal_dice(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.reveal_dice(*await change_arguments(request, "gm")))


async def set_client_seed(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    return answered(await encounters.set_client_seed(*await change_arguments(request, "play")), 200)


def add_routes(app: web.Application) -> None:
    app.router.add_post(REVEAL_ROUTE, reveal_dice)
    app.router.add_put(CLIENT_SEED_ROUTE, set_client_seed)
