"""Issue 25: an encounter outlives a restart of the service on its default store (SQLite in the
data directory), as a GM's laptop restarts `make run` between two sessions: the same admin key,
the encounter, its events, the GM's token and what the GM may undo are all still there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp

from tests.service_process import ServiceProcess, Services, wait_answer
from tests.test_undo_http import SR5_BURST, SR5_RIFLE

# No admin key (the service makes one and keeps it) and no TTL (kept until it ends): what a
# GM who runs `make run` has.
UNSET = {"FIREFIGHT_ADMIN_KEY": "", "FIREFIGHT_ENCOUNTER_TTL_SECONDS": ""}


async def started(services: Services, name: str, data: Path) -> ServiceProcess:
    service = services.start(name, {**UNSET, "FIREFIGHT_DATA_DIR": str(data)})
    async with aiohttp.ClientSession() as http:
        await wait_answer(http, service, "/readyz", 200)
    return service


async def stopped(service: ServiceProcess) -> None:
    service.terminate()
    assert await service.exited(30) == 0, service.log_text()


async def answer(
    http: aiohttp.ClientSession, method: str, url: str, token: str, body: Any = None
) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    async with http.request(method, url, json=body, headers=headers) as response:
        assert response.status in (200, 201), await response.text()
        return await response.json()


async def test_an_encounter_survives_a_restart_with_its_key_events_and_undo(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    services = Services(tmp_path)
    try:
        first = await started(services, "first", data)
        printed = [line for line in first.log_text().splitlines() if "admin key:" in line]
        assert len(printed) == 1
        admin = printed[0].split("admin key:")[1].strip()
        async with aiohttp.ClientSession() as http:
            created = await answer(
                http, "POST", f"{first.base}/v1/encounters", admin, {"ruleset": "sr5"}
            )
            gm = created["tokens"]["gm"]
            base = f"/v1/encounters/{created['id']}"
            armed = {"sheet": {"ruleset": "sr5", "weapons": [SR5_RIFLE]}}
            await answer(http, "PUT", f"{first.base}{base}/actors/sam", gm, armed)
            await answer(http, "PUT", f"{first.base}{base}/actors/goon-1", gm, {"name": "Goon"})
            shot = await answer(http, "POST", f"{first.base}{base}/attacks", gm, SR5_BURST)
            before = await answer(http, "GET", f"{first.base}{base}", gm)
            events = await answer(http, "GET", f"{first.base}{base}/events", gm)
        # The burst fired three of the rifle's 30 rounds: 27 left.
        assert before["scene"]["sam"]["sheet"]["weapons"][0]["ammo"] == 27
        await stopped(first)

        second = await started(services, "second", data)
        # The key is not printed again: the log says where it is kept.
        assert admin not in second.log_text()
        assert f"the admin key kept in {data / 'admin-key'}" in second.log_text()
        async with aiohttp.ClientSession() as http:
            after = await answer(http, "GET", f"{second.base}{base}", gm)
            assert after == before
            assert await answer(http, "GET", f"{second.base}{base}/events", gm) == events
            # The same admin key makes encounters, and the GM undoes the burst made before.
            await answer(http, "POST", f"{second.base}/v1/encounters", admin, {"ruleset": "sr5"})
            undone = await answer(http, "POST", f"{second.base}{base}/undo", gm)
            assert undone["result"]["undone"] == shot["event_id"]
            back = await answer(http, "GET", f"{second.base}{base}", gm)
        # The three rounds are back in the rifle: 30.
        assert back["scene"]["sam"]["sheet"]["weapons"][0]["ammo"] == 30
        await stopped(second)
    finally:
        services.stop_all()
