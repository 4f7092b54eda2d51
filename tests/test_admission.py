"""The cap on requests in flight (FIREFIGHT_MAX_IN_FLIGHT): past it a request is answered 503
with Retry-After at once, health checks and WebSockets pass, and the service serves again as soon
as requests finish."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import web

from service.api import create_app
from service.api.app import IN_FLIGHT
from service.config import Config, ConfigError, load_config
from tests.conftest import ADMIN_KEY, TEST_TTL_SECONDS

AUTH = {"Authorization": f"Bearer {ADMIN_KEY}"}


class Held:
    """A route whose requests stay in flight until the test lets them go: the test knows when
    each one is being worked on without guessing with a sleep."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.entered = 0
        self.all_entered = asyncio.Event()
        self.release = asyncio.Event()

    async def handler(self, request: web.Request) -> web.Response:
        self.entered += 1
        if self.entered == self.expected:
            self.all_entered.set()
        await self.release.wait()
        return web.json_response({"held": True})


def _app(held: Held, limit: int) -> web.Application:
    app = create_app(
        Config(
            admin_key=ADMIN_KEY,
            max_in_flight=limit,
            rate_limit_per_second=0,
            refusals_per_second=0,
            encounter_ttl_seconds=TEST_TTL_SECONDS,
        )
    )
    app.router.add_post("/held", held.handler)
    return app


async def test_past_the_limit_requests_get_503_with_retry_after_then_are_served_again(
    aiohttp_client: Any,
) -> None:
    held = Held(expected=2)
    app = _app(held, limit=2)
    client = await aiohttp_client(app, headers=AUTH)
    created = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    assert created.status == 201
    encounter = (await created.json())["id"]
    # A WebSocket lives for hours: it must not hold a place.
    socket = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    assert (await socket.receive_json(timeout=5))["type"] == "encounter_created"
    assert app[IN_FLIGHT].count == 0

    slow = [asyncio.create_task(client.post("/held")) for _ in range(2)]
    await asyncio.wait_for(held.all_entered.wait(), 10)

    refused = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    assert refused.status == 503
    assert refused.headers["Retry-After"] == "1"
    assert refused.content_type == "application/problem+json"
    problem = await refused.json()
    assert problem["type"].endswith("/overloaded")
    assert problem["status"] == 503
    # The refusal is a request like any other: it has its id, in the answer and the header.
    assert problem["request_id"] == refused.headers["X-Request-Id"]
    # Nothing of it was done.
    assert held.entered == 2
    # Health checks answer whatever the load.
    assert (await client.get("/healthz")).status == 200
    assert (await client.get("/readyz")).status == 200

    held.release.set()
    for answer in await asyncio.gather(*slow):
        assert answer.status == 200
    assert app[IN_FLIGHT].count == 0
    again = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    assert again.status == 201
    await socket.close()


async def test_with_the_limit_off_nothing_is_refused(aiohttp_client: Any) -> None:
    held = Held(expected=5)
    client = await aiohttp_client(_app(held, limit=0), headers=AUTH)
    slow = [asyncio.create_task(client.post("/held")) for _ in range(5)]
    await asyncio.wait_for(held.all_entered.wait(), 10)
    assert (await client.post("/v1/encounters", json={"ruleset": "sr5"})).status == 201
    held.release.set()
    assert [a.status for a in await asyncio.gather(*slow)] == [200] * 5


def test_the_limit_is_a_setting() -> None:
    assert load_config([], {}).max_in_flight == 32
    assert load_config([], {"FIREFIGHT_MAX_IN_FLIGHT": "0"}).max_in_flight == 0
    with pytest.raises(ConfigError, match="FIREFIGHT_MAX_IN_FLIGHT must be a whole number"):
        load_config([], {"FIREFIGHT_MAX_IN_FLIGHT": "many"})
