"""The campaigns' routes: a campaign (the admin key makes it), its characters and templates, its
players' tokens, the encounters started in it, and what an encounter's end gives back to it."""

from __future__ import annotations

import msgspec
from aiohttp import web

from schemas.campaign import CARRY_PARTS, CarryPart
from service import logs
from service.api.app_keys import ENCOUNTERS
from service.api.handling import (
    CHANGING_METHODS,
    admit,
    answered,
    bearer_token,
    check_rate,
    idempotency_key,
    json_response,
    read_body,
    received_file,
    route_actor,
    route_id,
)
from service.api.imports import TOO_LARGE, source_format
from service.api.problems import ProblemError
from service.engine.campaign_core import Campaign
from service.imports import MAX_IMPORT_BYTES

CAMPAIGN = "/v1/campaigns/{campaign}"


async def _campaign(request: web.Request, gm: bool) -> Campaign:
    """The route's campaign, once the credential (from the headers) is shown to open it; then,
    for a change, the campaign's rate of changes. Nothing of the body is read yet."""
    campaign_id = request.match_info["campaign"]
    logs.bind(campaign=campaign_id)
    campaign = await request.app[ENCOUNTERS].campaign(campaign_id, bearer_token(request), gm)
    if request.method in CHANGING_METHODS:
        check_rate(request, campaign_id)
    return campaign


async def create_campaign(request: web.Request) -> web.Response:
    encounters = request.app[ENCOUNTERS]
    credential = bearer_token(request)
    encounters.check_admin(credential)
    key = idempotency_key(request)
    answer = await encounters.create_campaign(await read_body(request), credential, key)
    response = answered(answer)
    response.headers["Location"] = f"/v1/campaigns/{answer.encounter_id}"
    return response


async def get_campaign(request: web.Request) -> web.Response:
    campaign = await _campaign(request, gm=False)
    return json_response(request.app[ENCOUNTERS].campaign_view(campaign))


async def put_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    campaign = await _campaign(request, gm=True)
    engine = request.app[ENCOUNTERS]
    return answered(await engine.put_campaign_actor(campaign, actor_id, await read_body(request)))


async def patch_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    campaign = await _campaign(request, gm=True)
    engine = request.app[ENCOUNTERS]
    body = await read_body(request)
    return answered(await engine.patch_campaign_actor(campaign, actor_id, body), status=200)


async def delete_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    campaign = await _campaign(request, gm=True)
    answer = await request.app[ENCOUNTERS].delete_campaign_actor(campaign, actor_id)
    return answered(answer, status=200)


async def import_actor(request: web.Request) -> web.Response:
    actor_id = route_actor(request)
    campaign = await _campaign(request, gm=True)
    chosen = source_format(request)
    data = await received_file(request, MAX_IMPORT_BYTES, TOO_LARGE)
    engine = request.app[ENCOUNTERS]
    return answered(await engine.import_campaign_actor(campaign, actor_id, chosen, data))


async def issue_player_token(request: web.Request) -> web.Response:
    player_id = route_id(request, "player")
    campaign = await _campaign(request, gm=True)
    engine = request.app[ENCOUNTERS]
    return answered(await engine.campaign_player(campaign, player_id, await read_body(request)))


async def revoke_player_token(request: web.Request) -> web.Response:
    player_id = route_id(request, "player")
    campaign = await _campaign(request, gm=True)
    return answered(await request.app[ENCOUNTERS].revoke_campaign_player(campaign, player_id), 200)


async def create_encounter(request: web.Request) -> web.Response:
    key = idempotency_key(request)
    campaign = await _campaign(request, gm=True)
    engine = request.app[ENCOUNTERS]
    answer = await engine.create_in_campaign(campaign, await read_body(request), key)
    logs.bind(encounter=answer.encounter_id)
    response = answered(answer)
    response.headers["Location"] = f"/v1/encounters/{answer.encounter_id}"
    return response


def _carry(request: web.Request) -> tuple[tuple[CarryPart, ...], frozenset[str] | None]:
    """`?carry=monitor,ammo,edge` (or `none`; all three when not given) and `?actors=a,b`
    (the characters that take it back; all the encounter brought when not given)."""
    asked = request.query.get("carry")
    parts: tuple[CarryPart, ...] = CARRY_PARTS
    if asked is not None:
        names = [] if asked == "none" else asked.split(",")
        wrong = [n for n in names if n not in CARRY_PARTS]
        if wrong:
            raise ProblemError(
                400,
                "validation",
                "Invalid request",
                f"carry is 'none' or some of {', '.join(CARRY_PARTS)} ({wrong[0][:32]!r} is not)",
                "carry",
            )
        parts = tuple(p for p in CARRY_PARTS if p in names)
    actors = request.query.get("actors")
    only = None if actors is None else frozenset(a for a in actors.split(",") if a)
    return parts, only


async def delete_encounter(request: web.Request) -> web.Response:
    """Ends the encounter; one started in a campaign first gives its characters back what the
    fight changed, and says what it gave (200); any other ends with 204."""
    admitted = await admit(request, "gm")
    parts, only = _carry(request)
    engine = request.app[ENCOUNTERS]
    carried = None
    if admitted.envelope.campaign is not None or only is not None:
        carried = await engine.carry_back(admitted, parts, only)
    await engine.end(admitted)
    if carried is None:
        return web.Response(status=204)
    return web.json_response(body=msgspec.json.encode(carried))


def add_routes(app: web.Application) -> None:
    app.router.add_post("/v1/campaigns", create_campaign)
    app.router.add_get(CAMPAIGN, get_campaign)
    app.router.add_put(CAMPAIGN + "/actors/{actor}", put_actor)
    app.router.add_patch(CAMPAIGN + "/actors/{actor}", patch_actor)
    app.router.add_delete(CAMPAIGN + "/actors/{actor}", delete_actor)
    app.router.add_post(CAMPAIGN + "/actors/{actor}/import", import_actor)
    app.router.add_post(CAMPAIGN + "/players/{player}", issue_player_token)
    app.router.add_delete(CAMPAIGN + "/players/{player}", revoke_player_token)
    app.router.add_post(CAMPAIGN + "/encounters", create_encounter)
