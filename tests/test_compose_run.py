"""The service as the compose file and the Dockerfile run it, without a Docker engine: the
image's command with the compose environment serves on a Redis of its own, its healthcheck
passes, and the compose file refuses to start without what it requires (tests/test_compose.py
checks the files themselves)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest
import redis
import yaml

from service.store.redis import events_key, state_key
from tests import sr5_requests as make
from tests.redis_server import OwnRedis
from tests.test_compose import (
    COMPOSE,
    COMPOSE_ADMIN_KEY,
    READY_SECONDS,
    REQUIRED,
    dockerfile_cmd,
    dockerfile_healthcheck,
    environment,
    exposed_port,
    healthcheck_argv,
    interpolate,
    load_compose,
)


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def compose_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    """A redis-server as the compose file runs it: requiring the compose password."""
    command = load_compose()["services"]["redis"]["command"]
    password = command[command.index("--requirepass") + 1]
    (tmp_path / "redis").mkdir()
    server = OwnRedis(tmp_path / "redis", password=password)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def compose_service(
    compose_redis: OwnRedis, tmp_path: Path, request: pytest.FixtureRequest
) -> Running:
    """`firefight` as the image runs it: the Dockerfile CMD, the compose environment.

    Two changes, for a machine without Docker: the Redis URL's host `redis` (the compose service)
    becomes a local redis-server started with the compose file's password, and port 8080 becomes
    a free port. The host stays 0.0.0.0 as in the image, so the run also shows that a server bound
    to every interface answers the HEALTHCHECK on 127.0.0.1; it is up for a few seconds on a
    random port.
    """
    env = environment(load_compose()["services"]["firefight"])
    compose_url = urlsplit(env["FIREFIGHT_REDIS_URL"])
    assert compose_url.hostname == "redis", compose_url
    local = urlsplit(compose_redis.url)
    env["FIREFIGHT_REDIS_URL"] = compose_url._replace(netloc=local.netloc, path=local.path).geturl()

    cmd = dockerfile_cmd()
    port_at = cmd.index("--port") + 1
    assert cmd[port_at] == str(exposed_port())
    port = free_port(cmd[cmd.index("--host") + 1])
    cmd[port_at] = str(port)
    executable = Path(sys.executable).parent / cmd[0]
    assert executable.is_file(), f"no {cmd[0]} console script next to {sys.executable}"

    # The container sees the compose environment only: drop FIREFIGHT_* of the developer's shell.
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    log = tmp_path / "firefight.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(executable), *cmd[1:]],
            env={**inherited, **env},
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    request.addfinalizer(stop)
    return Running(process, port, log)


async def wait_ready(http: aiohttp.ClientSession, service: Running) -> aiohttp.ClientResponse:
    """Polls /readyz until it answers 200, the process dies, or the deadline passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + READY_SECONDS
    last_seen = "no answer"
    while loop.time() < deadline:
        if service.process.poll() is not None:
            pytest.fail(
                f"firefight exited with {service.process.returncode}:\n{service.log_tail()}"
            )
        try:
            response = await http.get(
                f"http://127.0.0.1:{service.port}/readyz", timeout=aiohttp.ClientTimeout(total=2)
            )
        except (aiohttp.ClientConnectionError, TimeoutError) as error:
            last_seen = repr(error)
        else:
            if response.status == 200:
                return response
            last_seen = f"{response.status} {await response.text()}"
        await asyncio.sleep(0.05)
    pytest.fail(f"/readyz not ready in {READY_SECONDS}s ({last_seen}):\n{service.log_tail()}")


def run_healthcheck(argv: list[str], port: int) -> subprocess.CompletedProcess[str]:
    """A healthcheck's exec form as the engine runs it, on the test's port, without proxies."""
    assert argv[0] == "python"
    args = [part.replace(f"127.0.0.1:{exposed_port()}/", f"127.0.0.1:{port}/") for part in argv]
    assert args != argv, f"the healthcheck does not call 127.0.0.1:{exposed_port()}"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    return subprocess.run(
        [sys.executable, *args[1:]], capture_output=True, text=True, timeout=15, env=env
    )


# Given dice: attack 10 (agility 5 + skill 5), defense 6 (reaction 3 + intuition 3),
# soak 12 (body 4 + armor 9 - AP 1).
DICE = {
    "attack": [6, 5, 5, 1, 2, 2, 3, 3, 4, 4],
    "defense:goon-1": [5, 1, 2, 2, 3, 3],
    "soak:goon-1": [5, 5, 1, 1, 2, 2, 3, 3, 4, 4, 2, 3],
}


async def test_dockerfile_command_with_compose_environment_serves_on_redis(
    compose_service: Running, compose_redis: OwnRedis
) -> None:
    base = f"http://127.0.0.1:{compose_service.port}"
    admin = {"Authorization": f"Bearer {COMPOSE_ADMIN_KEY}"}
    async with aiohttp.ClientSession(headers=admin) as http:
        ready = await wait_ready(http, compose_service)
        assert await ready.json() == {"status": "ok", "store": "redis"}

        created = await http.post(f"{base}/v1/encounters", json={"ruleset": "sr5", "name": "x"})
        assert created.status == 201, await created.text()
        encounter = (await created.json())["id"]

        attacked = await http.post(
            f"{base}/v1/encounters/{encounter}/attacks", json=make.attack(dice=DICE)
        )
        assert attacked.status == 201, await attacked.text()
        outcome = await attacked.json()
        assert set(outcome) == {"event_id", "result", "changes"}
        result = outcome["result"]
        assert [roll["values"] for roll in result["dice"]] == list(DICE.values())
        assert all(roll["given"] for roll in result["dice"])
        hit = result["targets"][0]
        assert (hit["outcome"], hit["attack_hits"], hit["defense_hits"]) == ("hit", 3, 1)
        assert (hit["damage"]["dv"], hit["damage"]["soak_hits"], hit["damage"]["boxes"]) == (
            10,
            2,
            8,
        )

        viewed = await http.get(f"{base}/v1/encounters/{encounter}")
        assert viewed.status == 200, await viewed.text()
        view = await viewed.json()
        assert view["combat"]["actors"]["sam"] == outcome["changes"]["combat"]["actors"]["sam"]
        assert view["version"] == outcome["changes"]["version"]
        assert view["last_event_id"] == outcome["event_id"]
        assert view["version"] == 2  # created, then the attack
        assert view["combat"]["actors"]["sam"]["recoil_rounds"] == 1

    # The event is in the local Redis itself, not in an embedded store.
    store = redis.Redis.from_url(compose_redis.url, password=compose_redis.password)
    try:
        newest = store.xrevrange(events_key(encounter), count=1)
        assert newest[0][0].decode() == outcome["event_id"]
        assert store.exists(state_key(encounter))
    finally:
        store.delete(events_key(encounter), state_key(encounter))
        store.close()

    # Both healthchecks, as the engine would run them.
    compose_check = healthcheck_argv(load_compose()["services"]["firefight"])
    assert compose_check[0] == "CMD"
    for argv in (dockerfile_healthcheck(), compose_check[1:]):
        check = run_healthcheck(argv, compose_service.port)
        assert check.returncode == 0, check.stderr

    # `docker stop` sends SIGTERM: firefight exits cleanly, having logged JSON lines only.
    compose_service.process.send_signal(signal.SIGTERM)
    assert compose_service.process.wait(timeout=10) == 0, compose_service.log_tail()
    lines = [json.loads(line) for line in compose_service.log.read_text().splitlines() if line]
    starting = next(line for line in lines if line.get("event") == "starting")
    assert (starting["host"], starting["port"], starting["store"]) == (
        "0.0.0.0",
        compose_service.port,
        "redis",
    )
    assert any(line.get("path") == "/readyz" and line.get("status") == 200 for line in lines)

    # And the image's healthcheck notices a service that is gone.
    assert run_healthcheck(dockerfile_healthcheck(), compose_service.port).returncode != 0


@pytest.mark.parametrize("required", sorted(REQUIRED))
def test_compose_refuses_to_start_without_an_admin_key_or_redis_password(required: str) -> None:
    raw = yaml.safe_load(COMPOSE.read_text())
    others = {name: value for name, value in REQUIRED.items() if name != required}
    with pytest.raises(ValueError, match=required):
        interpolate(raw, others)
    with pytest.raises(ValueError, match=required):
        interpolate(raw, {**others, required: ""})  # `:?` refuses an empty value too
