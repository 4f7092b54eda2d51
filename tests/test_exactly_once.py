"""The concurrency proof on the real Redis: two replicas, one shooter firing concurrently, every
request retried with its key. Each distinct request counts once, and every client sees the same
events in the same order."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from typing import Any

import pytest

from tests import sr5_requests as make
from tests.test_events_live import receive
from tests.test_trust import bearer, open_table

DISTINCT = 24
COPIES = 3  # each request sent this many times, at once, to either replica


async def post_until_answered(client: Any, path: str, body: Any, headers: dict[str, str]) -> Any:
    """What a VTT does: retry while the key is in use (409) or the table is busy (503)."""
    for _ in range(200):
        response = await client.post(path, json=body, headers=headers)
        if response.status not in (409, 503):
            return response
        await asyncio.sleep(random.uniform(0.005, 0.02))
    raise AssertionError(f"{path} was never answered")


@pytest.mark.parametrize("shared", ["redis", "cluster"])
async def test_concurrent_retries_across_replicas_count_each_request_once(
    make_client: Any, shared: str
) -> None:
    replicas = [
        await make_client(redis=shared == "redis", cluster=shared == "cluster", admin=False)
        for _ in range(2)
    ]
    encounter, tokens = await open_table(replicas[0])
    player = bearer(tokens["player"])
    watchers = [
        await replicas[n % 2].ws_connect(f"/v1/encounters/{encounter}/ws", headers=player)
        for n in range(4)
    ]
    path = f"/v1/encounters/{encounter}/attacks"
    body = make.attack(weapon=make.weapon(ammo=100, rc=5))

    async def send(key: str) -> tuple[str, int, bytes]:
        replica = replicas[random.randrange(2)]
        headers = {**player, "Idempotency-Key": key}
        response = await post_until_answered(replica, path, body, headers)
        return key, response.status, await response.read()

    keys = [str(uuid.uuid4()) for _ in range(DISTINCT)]
    sends = [send(key) for key in keys for _ in range(COPIES)]
    random.shuffle(sends)
    answers: dict[str, set[bytes]] = {}
    for key, status, answer in await asyncio.gather(*sends):
        assert status == 201, answer
        answers.setdefault(key, set()).add(answer)
    # Every copy of a request got the very same answer; distinct requests got distinct events.
    assert all(len(bodies) == 1 for bodies in answers.values())
    event_ids = {json.loads(next(iter(bodies)))["event_id"] for bodies in answers.values()}
    assert len(event_ids) == DISTINCT

    view = await (await replicas[1].get(f"/v1/encounters/{encounter}", headers=player)).json()
    assert view["combat"]["actors"]["sam"]["recoil_rounds"] == DISTINCT  # one SA round each
    page = await (
        await replicas[0].get(f"/v1/encounters/{encounter}/events", headers=player)
    ).json()
    stream = [event["id"] for event in page["events"]]
    assert len(stream) == 1 + DISTINCT
    assert set(stream[1:]) == event_ids
    for ws in watchers:
        seen = [(await receive(ws))["id"] for _ in stream]
        assert seen == stream
        await ws.close()
