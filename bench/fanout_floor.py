"""The floor of live push, for `python -m bench.fanout`: `python -m bench.server fanout-floor`.

A bare aiohttp app on firefight's URL shapes that does the least a service pushing events must
do: read and parse the POST's body, one Redis round trip (`INCR`, which numbers the event),
then write one prepared WebSocket frame (the event: its id and the request it answers, about
the size of firefight's) to every socket of the encounter, and answer. No rules, no state, no
audiences, no stream read back: what it costs from the POST to the last watcher's receipt is
what the machine itself costs (the loopback's sends to N sockets, the client beside the server
on the same cores), which firefight's figure is compared with in the same run.
"""

from __future__ import annotations

import itertools

import msgspec
from aiohttp import web

from bench.server import REDIS, redis_app
from service.api.hub import text_frame

FLOOR_KEY = "firefight-bench:fanout-floor"
SOCKETS = web.AppKey("sockets", dict)
_encode = msgspec.json.Encoder().encode
_ids = itertools.count(1)


async def _create(request: web.Request) -> web.Response:
    encounter = str(next(_ids))
    request.app[SOCKETS][encounter] = set()
    body = {"id": encounter, "tokens": {"player": "floor-player"}}
    return web.json_response(body, status=201)


async def _put_actor(request: web.Request) -> web.Response:
    return web.json_response({"event_id": "0-1"})


async def _delete(request: web.Request) -> web.Response:
    request.app[SOCKETS].pop(request.match_info["encounter"], None)
    return web.Response(status=204)


async def _watch(request: web.Request) -> web.StreamResponse:
    socket = web.WebSocketResponse(compress=False)
    await socket.prepare(request)
    transport = request.transport
    watchers = request.app[SOCKETS].setdefault(request.match_info["encounter"], set())
    assert transport is not None
    watchers.add(transport)
    try:
        async for _ in socket:
            pass
    finally:
        watchers.discard(transport)
    return socket


async def _post(request: web.Request) -> web.Response:
    body = await request.read()
    msgspec.json.decode(body)
    number = await request.app[REDIS].incr(FLOOR_KEY)
    event_id = f"{number}-0"
    frame = text_frame(b'{"id":"' + event_id.encode() + b'","request":' + body + b"}")
    for transport in request.app[SOCKETS].get(request.match_info["encounter"], ()):
        if not transport.is_closing():
            transport.write(frame)
    return web.Response(
        body=_encode({"event_id": event_id}), status=201, content_type="application/json"
    )


def floor_app(redis_url: str) -> web.Application:
    app = redis_app(redis_url)
    app[SOCKETS] = {}

    async def forget(app: web.Application) -> None:
        await app[REDIS].delete(FLOOR_KEY)

    app.on_shutdown.append(forget)
    app.router.add_post("/v1/encounters", _create)
    app.router.add_put("/v1/encounters/{encounter}/actors/{actor}", _put_actor)
    app.router.add_delete("/v1/encounters/{encounter}", _delete)
    app.router.add_get("/v1/encounters/{encounter}/ws", _watch)
    app.router.add_post("/v1/encounters/{encounter}/attacks", _post)
    app.router.add_post("/v1/encounters/{encounter}/actions", _post)
    return app
