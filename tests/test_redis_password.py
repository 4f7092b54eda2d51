"""A Redis that requires a password: the service takes it from FIREFIGHT_REDIS_PASSWORD (the URL
stays without it, so no URL-encoding), and a wrong one is a 503 on /readyz, not a crash.

The compose file runs Redis with `--requirepass`; this runs a redis-server of the test's own the
same way, with a password full of the characters a URL would need encoded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
import redis

from service.config import load_config
from service.store.redis import state_key
from tests.redis_server import OwnRedis
from tests.service_process import ADMIN_KEY, Services, running_services, wait_answer

PASSWORD = "p@ss:w/rd#1?&=% x"  # @ : / # ? & % and a space: all of them break a URL


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    yield from running_services(tmp_path)


@pytest.fixture
def guarded_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path, password=PASSWORD)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_the_password_comes_from_the_environment_and_is_never_shown() -> None:
    env = {"FIREFIGHT_REDIS_URL": "redis://redis:6379/0", "FIREFIGHT_REDIS_PASSWORD": PASSWORD}
    config = load_config(argv=[], environ=env)
    assert config.redis_password == PASSWORD
    assert PASSWORD not in repr(config)
    assert load_config(argv=["--redis-password", "flag-wins"], environ=env).redis_password == (
        "flag-wins"
    )
    # Unset or empty: no password (a Redis without one).
    assert load_config(argv=[], environ={"FIREFIGHT_REDIS_PASSWORD": ""}).redis_password is None


async def test_the_service_works_with_the_password_and_not_without_it(
    guarded_redis: OwnRedis, services: Services
) -> None:
    # The server really requires it: without a password it refuses.
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(guarded_redis.url).ping()

    right = services.start(
        "right",
        {"FIREFIGHT_REDIS_URL": guarded_redis.url, "FIREFIGHT_REDIS_PASSWORD": PASSWORD},
    )
    wrong = services.start(
        "wrong",
        {"FIREFIGHT_REDIS_URL": guarded_redis.url, "FIREFIGHT_REDIS_PASSWORD": "not-the-password"},
    )
    missing = services.start("missing", {"FIREFIGHT_REDIS_URL": guarded_redis.url})
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with aiohttp.ClientSession(headers=admin) as http:
        assert await wait_answer(http, right, "/readyz", 200) == {"status": "ok", "store": "redis"}
        created = await http.post(f"{right.base}/v1/encounters", json={"ruleset": "sr5"})
        assert created.status == 201, await created.text()
        encounter = (await created.json())["id"]

        for refused in (wrong, missing):
            ready = await wait_answer(http, refused, "/readyz", 503)
            assert ready == {"status": "unavailable", "store": "redis"}
            # A request that needs the store is a 503 problem, and the replica keeps running.
            answer = await http.get(f"{refused.base}/v1/encounters/{encounter}")
            assert answer.status == 503, await answer.text()
            problem = await answer.json()
            assert problem["type"].endswith("store-unavailable"), problem
            assert PASSWORD not in str(problem)
            assert refused.process.poll() is None, refused.log_text()

    # The encounter is in the guarded Redis, reached with the password.
    store = redis.Redis.from_url(guarded_redis.url, password=PASSWORD)
    try:
        assert store.exists(state_key(encounter))
    finally:
        store.close()

    for service in (right, wrong, missing):
        service.stop()
        assert service.process.returncode == 0, service.log_text()
        logs = service.log_text()
        assert '"event": "request"' in logs
        assert PASSWORD not in logs and "not-the-password" not in logs
