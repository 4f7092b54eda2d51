"""Every preview has a bound: its work (samples x size), its client (gone: it stops), and its
share of the process (a budget of previews in flight per token and per encounter). A player
keeping 32 Hard Life full-auto previews in flight took every thread and slot of the process;
previews ran on for 89 s after their clients hung up; `?samples=20000` of a large airburst was
minutes of CPU."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from service.api import create_app
from service.api.app import ENCOUNTERS
from service.config import Config
from service.engine.previews import Previews
from service.rules import odds
from service.rules.sr5 import SR5Ruleset
from tests import sr3hl_requests as hl
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_api import new_encounter

# Long enough that a preview still runs when its client goes (about 0.4 ms a sample: 8 s).
MANY = odds.MAX_SAMPLES


async def _until(previews: Previews, condition: Callable[[], bool], timeout: float = 30) -> None:
    """Waits (on the previews' own signal, no sleep) until `condition` holds."""
    async with asyncio.timeout(timeout):
        while not condition():
            previews.changed.clear()
            await previews.changed.wait()


def _full_auto() -> dict[str, Any]:
    """Hard Life's full auto: sampled (each round its own target number and scatter)."""
    return hl.attack(weapon=hl.smg(recoil_compensation=2), mode="FA", rounds=10)


def _airburst(bystanders: int, barriers: int) -> dict[str, Any]:
    """An SR4 airburst among `bystanders` and past `barriers` walls: too many barriers left to
    their tests to enumerate, so sampled."""
    return {
        "attacker": {"id": "sam", "agility": 4, "skill": 3, "strength": 5},
        "weapon": {
            "id": "frags",
            "category": "standard_grenade",
            "damage": 0,
            "modes": ["SS"],
            "ammo": 3,
        },
        "mode": "SS",
        "grenade": {"type": "fragmentation", "airburst": True},
        "origin": {"x": 0, "y": 0},
        "targets": [{"id": "goon", "distance_m": 8, "defender": {"reaction": 3, "body": 3}}],
        "bystanders": [{"id": "goon", "position": {"x": 0, "y": 8}, "body": 3}]
        + [
            {"id": f"b{i}", "position": {"x": (i % 10) - 5, "y": 8 + i // 10}, "body": 3}
            for i in range(bystanders - 1)
        ],
        "barriers": [
            {
                "id": f"w{i}",
                "start": {"x": -6 + i * 0.2, "y": 5},
                "end": {"x": -6 + i * 0.2, "y": 12},
                "armor": 4,
                "structure": 4,
            }
            for i in range(barriers)
        ],
    }


@pytest.mark.parametrize("handler_cancellation", [False, True], ids=["served", "cancelled"])
async def test_a_preview_whose_client_hangs_up_stops(handler_cancellation: bool) -> None:
    """The client goes while its preview of 20,000 samples runs: the thread stops before its
    next sample instead of running on, seconds after nobody waits for it. As the service
    serves (aiohttp does not cancel the handler: the connection is watched), and with handler
    cancellation (aiohttp's test server: the cancelled handler stops its thread)."""
    config = Config(
        admin_key=ADMIN_KEY, preview_work=10**10, rate_limit_per_second=0, refusals_per_second=0
    )
    runner = web.AppRunner(
        create_app(config), access_log=None, handler_cancellation=handler_cancellation
    )
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        previews = runner.app[ENCOUNTERS].previews
        port = runner.addresses[0][1]
        base = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        async with aiohttp.ClientSession(base, headers=headers) as session:
            created = await session.post(
                "/v1/encounters", json={"ruleset": "sr3-hardlife", "name": "x"}
            )
            path = f"/v1/encounters/{(await created.json())['id']}/attacks/odds"
            asking = asyncio.create_task(session.post(f"{path}?samples={MANY}", json=_full_auto()))
            await _until(previews, lambda: previews.started == 1)
            asking.cancel()  # the client hangs up: aiohttp closes the connection
            with pytest.raises(asyncio.CancelledError):
                await asking
            await _until(previews, lambda: previews.stopped == 1)
            assert previews.samples_drawn < MANY
            # And the next preview is answered in full.
            answer = await session.post(f"{path}?samples=300", json=_full_auto())
            assert answer.status == 200, await answer.text()
            assert (await answer.json())["sampling"]["samples"] == 300
    finally:
        await runner.cleanup()


async def test_a_token_at_its_budget_is_told_and_another_is_served(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's token holds its two previews in flight (held in their threads until the
    test lets them go): a third is a 429 at once, while the GM's preview is answered."""
    client = await make_client()
    previews = client.app[ENCOUNTERS].previews
    release = threading.Event()
    real = SR5Ruleset.attack_odds

    def held(self: SR5Ruleset, request: Any, *arguments: Any) -> Any:
        if request.attacker.id == "sam":
            release.wait(30)
        return real(self, request, *arguments)

    monkeypatch.setattr(SR5Ruleset, "attack_odds", held)
    created = await client.post(
        "/v1/encounters", json={"ruleset": "sr5", "name": "x", "sheet_policy": "typed"}
    )
    ids = await created.json()
    path = f"/v1/encounters/{ids['id']}/attacks/odds"
    player = {"Authorization": f"Bearer {ids['tokens']['player']}"}
    gm = {"Authorization": f"Bearer {ids['tokens']['gm']}"}
    held_ones = [
        asyncio.create_task(client.post(path, json=make.attack(), headers=player)) for _ in range(2)
    ]
    await _until(previews, lambda: previews.started == 2)
    third = await client.post(path, json=make.attack(), headers=player)
    assert third.status == 429, await third.text()
    assert third.headers["Retry-After"] == "1"
    assert (await third.json())["type"].endswith("/too-many-previews")
    other = make.attack(attacker=make.attacker(id="ann"))
    served = await client.post(path, json=other, headers=gm)
    assert served.status == 200, await served.text()
    release.set()
    assert [(await answer).status for answer in held_ones] == [200, 200]
    # Answered, they leave room: the player's token is served again.
    again = await client.post(path, json=other, headers=player)
    assert again.status == 200, await again.text()


async def test_an_encounter_at_its_budget_is_told(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a budget of 2 per encounter, two previews in flight on it (the player token's and
    the GM token's) are as many as it may have: a third, from a token with room of its own (the
    admin key), is a 429 naming the encounter."""
    client = await make_client(previews_per_encounter=2)
    previews = client.app[ENCOUNTERS].previews
    release = threading.Event()
    real = SR5Ruleset.attack_odds

    def held(self: SR5Ruleset, *arguments: Any) -> Any:
        release.wait(30)
        return real(self, *arguments)

    monkeypatch.setattr(SR5Ruleset, "attack_odds", held)
    created = await client.post(
        "/v1/encounters", json={"ruleset": "sr5", "name": "x", "sheet_policy": "typed"}
    )
    ids = await created.json()
    path = f"/v1/encounters/{ids['id']}/attacks/odds"
    player = {"Authorization": f"Bearer {ids['tokens']['player']}"}
    gm = {"Authorization": f"Bearer {ids['tokens']['gm']}"}
    first = asyncio.create_task(client.post(path, json=make.attack(), headers=player))
    second = asyncio.create_task(client.post(path, json=make.attack(), headers=gm))
    await _until(previews, lambda: previews.started == 2)
    third = await client.post(path, json=make.attack())  # the admin key: a third token
    assert third.status == 429, await third.text()
    assert "encounter" in (await third.json())["detail"]
    release.set()
    assert [(await first).status, (await second).status] == [200, 200]


async def test_more_samples_than_the_work_bound_is_a_422_naming_samples(
    make_client: Any,
) -> None:
    """An airburst among 40 actors past 20 walls costs far more a sample than a single shot:
    `?samples=20000` of it is refused before anything runs; the largest number the answer
    names is taken, and one more is not."""
    client = await make_client(preview_work=1_500_000)
    previews = client.app[ENCOUNTERS].previews
    encounter = await new_encounter(client, ruleset="sr4")
    path = f"/v1/encounters/{encounter}/attacks/odds"
    body = _airburst(40, 20)
    refused = await client.post(f"{path}?samples={MANY}", json=body)
    assert refused.status == 422, await refused.text()
    problem = await refused.json()
    assert (problem["type"].endswith("/limit-exceeded"), problem["path"]) == (True, "samples")
    assert previews.started == 0
    most = int(problem["detail"].split("at most ")[1].split()[0])
    assert odds.MIN_SAMPLES <= most < odds.DEFAULT_SAMPLES
    taken = await client.post(f"{path}?samples={most}", json=body)
    assert taken.status == 200, await taken.text()
    assert (await taken.json())["sampling"]["samples"] == most
    one_more = await client.post(f"{path}?samples={most + 1}", json=body)
    assert one_more.status == 422
    # Without `?samples=`, the preview takes what fits and says why it took fewer.
    default = await client.post(path, json=body)
    assert default.status == 200, await default.text()
    answer = await default.json()
    assert answer["sampling"]["samples"] == most
    assert any("is bounded" in note for note in answer["notes"])


async def test_a_small_preview_takes_the_default_samples_and_says_nothing(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr3-hardlife")
    path = f"/v1/encounters/{encounter}/attacks/odds"
    answer = await (await memory_client.post(path, json=_full_auto())).json()
    assert answer["sampling"]["samples"] == odds.DEFAULT_SAMPLES
    assert not any("is bounded" in note for note in answer["notes"])
