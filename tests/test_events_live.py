"""Live events over the WebSocket: replay then live, each once and in order, across replicas."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import aiohttp
import pytest
from aiohttp import WSCloseCode, WSMsgType

from service.api import app as app_module
from service.api.websocket import REPLAY_PAGE
from service.config import Config
from service.store import MemoryStore
from service.store.base import Events
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
    # The server's close frame as it was sent. Not `ws.close_code`: that is the client's own
    # view, 1006 when its automatic reply to the frame met the connection the server had closed
    # already (both reached the client's loop at once: failed once in a full run).
    assert (closing.type, closing.data, closing.extra) == (
        WSMsgType.CLOSE,
        WSCloseCode.OK,
        "encounter ended",
    )


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


class ReplayAfterLiveStore:
    """The memory store, except that a socket's replay (a page read) waits until the test says:
    the test commits an event and sees the live reader pick it up first."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner
        self.replay_reached = asyncio.Event()
        self.replay_may_read = asyncio.Event()
        self.read_live: list[str] = []
        self.live_arrived = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        if limit == REPLAY_PAGE:  # the socket's replay, not the check before the upgrade
            self.replay_reached.set()
            await self.replay_may_read.wait()
        return await self._inner.events_after(encounter_id, after, limit)

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        found = await self._inner.read_new(cursors, timeout_s)
        # The hub fans these out as soon as this returns, before any other task runs.
        self.read_live += [event_id for events in found.values() for event_id, _ in events]
        self.live_arrived.set()
        return found


async def on_replay_after_live_store(
    make_client: Any, monkeypatch: pytest.MonkeyPatch, **config: Any
) -> tuple[Any, ReplayAfterLiveStore]:
    """A test client whose app keeps its encounters in a ReplayAfterLiveStore, and that store."""
    stores: list[ReplayAfterLiveStore] = []

    def make_store(config: Config) -> Any:
        stores.append(ReplayAfterLiveStore(MemoryStore()))
        return stores[-1]

    monkeypatch.setattr(app_module, "store_for", make_store)
    client = await make_client(**config)
    (store,) = stores
    return client, store


async def test_an_event_both_replayed_and_live_is_sent_once(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store = await on_replay_after_live_store(make_client, monkeypatch)
    encounter = await new_encounter(client)
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    # The socket has subscribed to the hub and its replay is about to read the stream.
    await asyncio.wait_for(store.replay_reached.wait(), TIMEOUT)
    both = await attack(client, encounter)
    while both not in store.read_live:
        store.live_arrived.clear()
        await asyncio.wait_for(store.live_arrived.wait(), TIMEOUT)
    # Now the event is in the socket's live queue, and the replay will read it too.
    store.replay_may_read.set()
    assert (await receive(ws))["type"] == "encounter_created"
    assert (await receive(ws))["id"] == both
    later = await attack(client, encounter)
    assert (await receive(ws))["id"] == later  # not `both` a second time
    await ws.close()
