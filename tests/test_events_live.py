"""Live events over the WebSocket: replay then live, each once and in order, across replicas."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiohttp import WSCloseCode, WSMsgType

from tests import sr5_requests as make
from tests.test_api import new_encounter

TIMEOUT = 5


async def attack(client: Any, encounter: str, **fields: Any) -> str:
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack(**fields))
    assert response.status == 201, await response.text()
    return str((await response.json())["event_id"])


async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    message = await ws.receive(timeout=TIMEOUT)
    assert message.type == WSMsgType.TEXT, message
    event: dict[str, Any] = message.json()
    return event


async def test_live_events_reach_a_watching_socket(client: Any) -> None:
    encounter = await new_encounter(client)
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    created = await receive(ws)  # no `after`: everything from the start
    assert created["type"] == "encounter_created"
    event_id = await attack(client, encounter)
    live = await receive(ws)
    assert (live["id"], live["type"], live["actor"]) == (event_id, "attack", "sam")
    assert live["result"]["kind"] == "sr5_attack"
    await ws.close()


async def test_replay_after_an_id_then_live(client: Any) -> None:
    encounter = await new_encounter(client)
    ids = [await attack(client, encounter) for _ in range(3)]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws?after={ids[0]}")
    assert [(await receive(ws))["id"] for _ in range(2)] == ids[1:]
    later = await attack(client, encounter)
    assert (await receive(ws))["id"] == later
    await ws.close()


async def test_an_ended_encounter_says_so_and_closes(client: Any) -> None:
    encounter = await new_encounter(client)
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    await receive(ws)
    await client.delete(f"/v1/encounters/{encounter}")
    assert (await receive(ws))["type"] == "encounter_ended"
    closing = await ws.receive(timeout=TIMEOUT)
    assert closing.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert ws.close_code == WSCloseCode.OK


async def test_a_socket_for_an_unknown_encounter_or_bad_after_is_refused(client: Any) -> None:
    response = await client.get("/v1/encounters/nope/ws")
    assert response.status == 404
    encounter = await new_encounter(client)
    bad = await client.get(f"/v1/encounters/{encounter}/ws?after=last-tuesday")
    assert bad.status == 400
    assert (await bad.json())["path"] == "after"


async def test_shutdown_closes_sockets_going_away(make_client: Any) -> None:
    client = await make_client()
    encounter = await new_encounter(client)
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    await receive(ws)
    await client.server.app.shutdown()
    closing = await ws.receive(timeout=TIMEOUT)
    assert closing.type == WSMsgType.CLOSE
    assert closing.data == WSCloseCode.GOING_AWAY


@pytest.mark.parametrize("shared", ["redis", "cluster"])
async def test_two_replicas_one_redis_events_cross_and_resume_exactly_once(
    make_client: Any, shared: str
) -> None:
    first = await make_client(redis=shared == "redis", cluster=shared == "cluster")
    second = await make_client(redis=shared == "redis", cluster=shared == "cluster")
    encounter = await new_encounter(first)

    ws = await first.ws_connect(f"/v1/encounters/{encounter}/ws")
    created = await receive(ws)
    posted = await attack(second, encounter)  # posted to the other replica
    seen = await receive(ws)
    assert seen["id"] == posted

    # The client drops; three attacks land on either replica while it is away.
    await ws.close()
    missed = [
        await attack(second, encounter),
        await attack(first, encounter),
        await attack(second, encounter),
    ]
    ws = await second.ws_connect(f"/v1/encounters/{encounter}/ws?after={seen['id']}")
    replayed = [(await receive(ws))["id"] for _ in missed]
    assert replayed == missed
    live = await attack(first, encounter)
    assert (await receive(ws))["id"] == live
    # Nothing more: no duplicate of anything already delivered.
    try:
        extra = await ws.receive(timeout=0.7)
    except TimeoutError:
        extra = None
    assert extra is None, extra
    await ws.close()
    assert created["type"] == "encounter_created"


@pytest.mark.parametrize("shared", ["redis", "cluster"])
async def test_many_watchers_see_the_same_events_in_the_same_order(
    make_client: Any, shared: str
) -> None:
    replicas = [
        await make_client(redis=shared == "redis", cluster=shared == "cluster") for _ in range(2)
    ]
    encounter = await new_encounter(replicas[0])
    sockets = [await replicas[n % 2].ws_connect(f"/v1/encounters/{encounter}/ws") for n in range(4)]
    for ws in sockets:
        await receive(ws)
    posted = [await attack(replicas[n % 2], encounter) for n in range(6)]
    for ws in sockets:
        assert [(await receive(ws))["id"] for _ in posted] == posted
        await ws.close()
