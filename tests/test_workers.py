"""`python -m service --workers N`: N processes on one port, on a real Redis; SIGTERM stops them
all with exit 0, a worker that dies takes the service down, and workers outlive no supervisor."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from service.config import ConfigError, load_config
from tests.service_process import (
    ADMIN_KEY,
    ServiceProcess,
    Services,
    running_services,
    wait_answer,
    wait_until,
)

AUTH = {"Authorization": f"Bearer {ADMIN_KEY}"}
# New connections the kernel spreads over the two workers: all of them on one worker by chance
# is one in 2**39.
CONNECTIONS = 40


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    yield from running_services(tmp_path)


def _parent_of(pid: int) -> int | None:
    """The parent pid in the process table, None once the process is gone (or a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
    return None if state == "Z" else int(parent)


async def _started(service: ServiceProcess, count: int) -> list[dict[str, Any]]:
    """The workers' `listening` lines, once all `count` are listening."""

    def listening() -> list[dict[str, Any]]:
        return [line for line in service.log_lines() if line.get("event") == "listening"]

    async def all_listening() -> bool:
        if service.process.poll() is not None:
            pytest.fail(f"the service exited:\n{service.log_text()}")
        return len(listening()) == count

    await wait_until(all_listening, 20, service.log_text)
    return listening()


async def _two_workers(services: Services, redis_url: str) -> tuple[ServiceProcess, list[int]]:
    service = services.start("workers", {"FIREFIGHT_REDIS_URL": redis_url}, args=["--workers", "2"])
    lines = await _started(service, 2)
    pids = sorted(int(line["pid"]) for line in lines)
    assert sorted(line["worker"] for line in lines) == [0, 1]
    # Two processes of their own, both children of the one started.
    assert len(set(pids)) == 2 and service.process.pid not in pids
    assert [_parent_of(pid) for pid in pids] == [service.process.pid] * 2
    return service, pids


async def test_two_workers_share_the_port_and_sigterm_stops_them_all(
    services: Services, redis_url: str
) -> None:
    service, pids = await _two_workers(services, redis_url)
    request_ids = [uuid.uuid4().hex for _ in range(CONNECTIONS)]
    # A new connection per request, so the kernel chooses a worker for each.
    connector = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(connector=connector, headers=AUTH) as http:
        for request_id in request_ids:
            async with http.post(
                f"{service.url}/v1/encounters",
                json={"ruleset": "sr5"},
                headers={"X-Request-Id": request_id},
            ) as answer:
                assert answer.status == 201, await answer.text()
        # An encounter made by one worker is read by the other (they share Redis).
        created = await (
            await http.post(f"{service.url}/v1/encounters", json={"ruleset": "sr5"})
        ).json()
        for _ in range(8):
            async with http.get(f"{service.url}/v1/encounters/{created['id']}") as read:
                assert read.status == 200

    served: dict[int, set[str]] = {0: set(), 1: set()}
    for line in service.log_lines():
        if line.get("request_id") in request_ids:
            served[line["worker"]].add(line["request_id"])
    assert served[0] and served[1], served
    assert served[0] | served[1] == set(request_ids)

    service.terminate()
    assert await service.exited(30) == 0
    assert [_parent_of(pid) for pid in pids] == [None, None]
    stopped = [line for line in service.log_lines() if line.get("event") == "stopping"]
    assert sorted(line["worker"] for line in stopped) == [0, 1]


async def test_a_worker_that_dies_takes_the_service_down(
    services: Services, redis_url: str
) -> None:
    service, pids = await _two_workers(services, redis_url)
    os.kill(pids[0], signal.SIGKILL)
    assert await service.exited(30) == 1
    assert _parent_of(pids[1]) is None
    died = [line for line in service.log_lines() if line.get("event") == "worker_exited"]
    assert [(line["pid"], line["exit_code"]) for line in died] == [(pids[0], -signal.SIGKILL)]


async def test_workers_stop_when_their_supervisor_is_killed(
    services: Services, redis_url: str
) -> None:
    service, pids = await _two_workers(services, redis_url)
    service.process.kill()
    await service.exited(10)

    async def workers_gone() -> bool:
        return all(_parent_of(pid) is None for pid in pids)

    await wait_until(workers_gone, 30, service.log_text)
    stopped = [line for line in service.log_lines() if line.get("event") == "stopping"]
    assert sorted(line["worker"] for line in stopped) == [0, 1]


async def test_one_worker_is_one_process_as_before(services: Services, redis_url: str) -> None:
    service = services.start("single", {"FIREFIGHT_REDIS_URL": redis_url})
    async with aiohttp.ClientSession() as http:
        await wait_answer(http, service, "/readyz", 200)
    assert not [line for line in service.log_lines() if "worker" in line]
    children = Path(f"/proc/{service.process.pid}/task/{service.process.pid}/children")
    if children.exists():
        assert children.read_text().split() == []
    service.terminate()
    assert await service.exited(30) == 0


def test_workers_need_redis_and_a_port() -> None:
    with pytest.raises(ConfigError, match="FIREFIGHT_WORKERS is 2, which needs FIREFIGHT_REDIS"):
        load_config(["--workers", "2"], {})
    with pytest.raises(ConfigError, match="needs a FIREFIGHT_PORT"):
        load_config(["--port", "0"], {"FIREFIGHT_WORKERS": "2", "FIREFIGHT_REDIS_URL": "redis://r"})
    with pytest.raises(ConfigError, match="FIREFIGHT_WORKERS must be between 1 and 64"):
        load_config(["--workers", "0"], {})
    config = load_config([], {"FIREFIGHT_WORKERS": "3", "FIREFIGHT_REDIS_URL": "redis://r"})
    assert config.workers == 3
