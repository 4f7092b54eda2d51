"""The event loop the service runs on (issue 28): uvloop by default, asyncio's own on request;
either serves the same answers."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from service.config import ConfigError, load_config
from service.event_loop import resolved
from tests.test_cli import ADMIN_KEY, serve

KEY = {"FIREFIGHT_ADMIN_KEY": ADMIN_KEY}


def test_uvloop_is_the_default_and_asyncio_can_be_asked_for() -> None:
    # uvloop is a dependency of the lock the tests run on: "auto" finds it.
    assert load_config([], KEY).event_loop == "auto"
    assert resolved("auto") == "uvloop"
    assert load_config([], {**KEY, "FIREFIGHT_EVENT_LOOP": "uvloop"}).event_loop == "uvloop"
    assert load_config([], {**KEY, "FIREFIGHT_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"
    # The flag wins over the environment.
    asked = load_config(["--event-loop", "Asyncio"], {**KEY, "FIREFIGHT_EVENT_LOOP": "uvloop"})
    assert asked.event_loop == "asyncio"


def test_an_unknown_loop_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="FIREFIGHT_EVENT_LOOP must be auto, uvloop or asyncio"):
        load_config([], {**KEY, "FIREFIGHT_EVENT_LOOP": "trio"})


def _loaded_libraries(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_either_loop_serves_an_attack(loop: str) -> None:
    args = () if loop == "uvloop" else ("--event-loop", "asyncio")
    with serve(*args, "--store", "memory", expect_store="memory") as (url, process):
        headers = {"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"}
        created = urllib.request.Request(
            url + "/v1/encounters", data=b'{"ruleset": "sr5"}', headers=headers
        )
        with urllib.request.urlopen(created, timeout=10) as response:
            assert response.status == 201
            encounter = json.load(response)["id"]
        read = urllib.request.Request(f"{url}/v1/encounters/{encounter}", headers=headers)
        with urllib.request.urlopen(read, timeout=10) as response:
            assert response.status == 200
        # uvloop's extension is loaded only when the process runs on it.
        assert ("uvloop/loop" in _loaded_libraries(process.pid)) == (loop == "uvloop")
    assert process.stderr is not None
    lines = [json.loads(line) for line in process.stderr.read().decode().splitlines()]
    starting = next(line for line in lines if line.get("event") == "starting")
    assert starting["event_loop"] == loop
    requests = [line for line in lines if line.get("event") == "request"]
    assert [r["status"] for r in requests if r["path"].startswith("/v1/")] == [201, 200]
