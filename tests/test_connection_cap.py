"""The connection cap counts a burst: asyncio accepts many connections at once and calls the
protocol factory for each before any is made (`connection_made` comes later, by call_soon), so a
cap that counted only aiohttp's made connections let a burst through (test_slow_bodies saw a
connection beyond the health reserve taken in as a health check, now and then)."""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from service.api.connections import ConnectionCap


async def _nothing(request: web.BaseRequest) -> web.Response:
    return web.Response()


async def test_a_burst_of_connections_is_held_to_the_cap_and_the_reserve() -> None:
    api, health = web.Server(_nothing), web.Server(_nothing)
    cap = ConnectionCap(api, limit=2, health=health, reserve=1)
    # One burst: four factory calls before any connection is made.
    burst = [cap() for _ in range(4)]
    assert [type(p) is RequestHandler for p in burst] == [True, True, True, False]
    assert [getattr(p, "_manager", None) for p in burst[:3]] == [api, api, health]
    # One turn of the loop (not a wait for time) runs the burst's callbacks; then aiohttp's own
    # count holds the places: none of these was made, so they are free again.
    await asyncio.sleep(0)
    assert type(cap()) is RequestHandler
