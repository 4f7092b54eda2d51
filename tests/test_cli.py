"""`python -m service` as a user runs it: configuration, the embedded store, the README."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Config, ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 15) -> dict[str, str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"the service exited: {process.stderr.read() if process.stderr else ''!r}"
            )
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=1) as response:
                body: dict[str, str] = json.load(response)
                return body
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{url} was not ready within {seconds} s")


ADMIN_KEY = "cli-admin-key-0123456789"


@contextlib.contextmanager
def serve(
    *args: str,
    admin_key: str | None = ADMIN_KEY,
    expect_store: str = "sqlite",
    data_dir: Path | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`python -m service` with nothing configured but the port, the admin key, the data
    directory (a fresh one unless given: never the repository's) and `args`."""
    with contextlib.ExitStack() as cleanup:
        if data_dir is None:
            data_dir = Path(cleanup.enter_context(tempfile.TemporaryDirectory())) / "data"
        yield cleanup.enter_context(_serve(args, admin_key, expect_store, data_dir))


@contextlib.contextmanager
def _serve(
    args: tuple[str, ...], admin_key: str | None, expect_store: str, data_dir: Path
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    env["FIREFIGHT_DATA_DIR"] = str(data_dir)
    if admin_key is not None:
        env["FIREFIGHT_ADMIN_KEY"] = admin_key
    process = subprocess.Popen(
        [sys.executable, "-m", "service", "--port", str(port), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        ready = wait_ready(url, process)
        assert ready == {"status": "ok", "store": expect_store}
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def served() -> Iterator[str]:
    with serve() as (url, _):
        yield url


def test_defaults_are_localhost_8080_and_the_embedded_store() -> None:
    config = load_config([], {})
    assert (config.host, config.port, config.redis_url) == ("127.0.0.1", 8080, None)
    assert config.cors_origins == ()
    # The durable embedded store, in ./firefight-data, keeping encounters until they end.
    assert (config.store, config.data_dir, config.encounter_ttl_seconds) == (
        "sqlite",
        "firefight-data",
        None,
    )


def test_the_store_and_its_directory_by_environment_or_flag() -> None:
    assert load_config(["--store", "memory"], {}).store == "memory"
    assert load_config([], {"FIREFIGHT_STORE": "memory"}).store == "memory"
    assert load_config(["--store", "sqlite"], {"FIREFIGHT_STORE": "memory"}).store == "sqlite"
    assert load_config([], {"FIREFIGHT_REDIS_URL": "redis://cache:6379/0"}).store == "redis"
    assert load_config(["--data-dir", "/srv/ff"], {}).data_dir == "/srv/ff"
    assert load_config([], {"FIREFIGHT_DATA_DIR": "/srv/ff"}).data_dir == "/srv/ff"
    # A TTL applies where the operator set one, and only there.
    assert (
        load_config([], {"FIREFIGHT_ENCOUNTER_TTL_SECONDS": "3600"}).encounter_ttl_seconds == 3600
    )


def test_environment_and_flags_with_flags_winning() -> None:
    env = {
        "FIREFIGHT_HOST": "0.0.0.0",
        "FIREFIGHT_PORT": "9000",
        "FIREFIGHT_REDIS_URL": "redis://cache:6379/1",
        "FIREFIGHT_CORS_ORIGINS": "http://localhost:30000, https://vtt.example.org/",
        "FIREFIGHT_LOG_FORMAT": "console",
        "FIREFIGHT_MAX_BODY_BYTES": "4096",
        "FIREFIGHT_ADMIN_KEY": ADMIN_KEY,
    }
    config = load_config(["--port", "9100"], env)
    assert config == Config(
        host="0.0.0.0",
        port=9100,
        redis_url="redis://cache:6379/1",
        store="redis",
        admin_key=ADMIN_KEY,
        cors_origins=("http://localhost:30000", "https://vtt.example.org"),
        log_format="console",
        max_body_bytes=4096,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FIREFIGHT_PORT": "eighty"}, "FIREFIGHT_PORT must be a whole number"),
        ({"FIREFIGHT_PORT": "70000"}, "between 0 and 65535"),
        ({"FIREFIGHT_CORS_ORIGINS": "*"}, "'*' is not allowed"),
        (
            {"FIREFIGHT_HOST": "0.0.0.0"},
            "FIREFIGHT_ADMIN_KEY is required when listening on 0.0.0.0",
        ),
        ({"FIREFIGHT_ADMIN_KEY": "short"}, "at least 16 characters"),
        ({"FIREFIGHT_REDIS_CLUSTER": "maybe"}, "FIREFIGHT_REDIS_CLUSTER must be true or false"),
        ({"FIREFIGHT_RATE_LIMIT": "-1"}, "FIREFIGHT_RATE_LIMIT must be between"),
        ({"FIREFIGHT_LOG_FORMAT": "xml"}, "json or console"),
        ({"FIREFIGHT_UNDO_DEPTH": "1001"}, "FIREFIGHT_UNDO_DEPTH must be between 0 and 1000"),
        ({"FIREFIGHT_UNDO_DEPTH": "-1"}, "FIREFIGHT_UNDO_DEPTH must be between 0 and 1000"),
        ({"FIREFIGHT_UNDO_BYTES": "1000"}, "FIREFIGHT_UNDO_BYTES must be between 65536"),
        ({"FIREFIGHT_STORE": "postgres"}, "FIREFIGHT_STORE must be sqlite, memory or redis"),
        ({"FIREFIGHT_STORE": "redis"}, "FIREFIGHT_STORE=redis needs FIREFIGHT_REDIS_URL"),
        (
            {"FIREFIGHT_STORE": "sqlite", "FIREFIGHT_REDIS_URL": "redis://cache:6379/0"},
            "FIREFIGHT_STORE is sqlite, but FIREFIGHT_REDIS_URL is set",
        ),
        ({"FIREFIGHT_DATA_DIR": " "}, "FIREFIGHT_DATA_DIR names a directory"),
    ],
)
def test_bad_configuration_is_refused_clearly(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config([], env)


def test_a_bad_setting_stops_the_service_with_a_message() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service"],
        env={**os.environ, "FIREFIGHT_PORT": "eighty"},
        capture_output=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert b"FIREFIGHT_PORT must be a whole number" in result.stderr


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "firefight"
    result = subprocess.run([str(script), "--help"], capture_output=True, timeout=30)
    assert result.returncode == 0
    assert b"--redis-url" in result.stdout


def test_help_says_what_host_port_and_log_format_do() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service", "--help"], capture_output=True, timeout=30, cwd=ROOT
    )
    assert result.returncode == 0
    text = " ".join(result.stdout.decode().split())
    host = "--host HOST address to listen on (default 127.0.0.1: this machine only); 0.0.0.0"
    assert host in text
    assert "needs FIREFIGHT_ADMIN_KEY" in text
    assert "--port PORT port to listen on (default 8080)" in text
    assert "--log-format {json,console} json (one JSON object a line" in text


def test_the_startup_line_gives_the_consoles_address() -> None:
    with serve() as (url, process):
        pass
    assert process.stderr is not None
    lines = [json.loads(line) for line in process.stderr.read().decode().splitlines()]
    starting = [line for line in lines if line.get("event") == "starting"]
    assert len(starting) == 1
    assert starting[0]["url"] == url + "/"


def test_the_consoles_address_on_the_tables_network() -> None:
    from service.__main__ import SOME_ADDRESS, console_url

    every = Config(host="0.0.0.0", port=8080)
    assert console_url(every, lambda: "192.168.1.20") == "http://192.168.1.20:8080/"
    assert console_url(every, lambda: None) == f"http://{SOME_ADDRESS}:8080/"
    assert console_url(Config(host="::1", port=9000)) == "http://[::1]:9000/"
    public = Config(host="0.0.0.0", public_url="https://vtt.example.org/firefight")
    assert console_url(public) == "https://vtt.example.org/firefight/"


def test_logs_are_json_lines_one_per_request_with_its_id() -> None:
    with serve() as (url, process):
        request = urllib.request.Request(
            url + "/v1/encounters",
            data=b'{"ruleset": "sr5"}',
            headers={
                "X-Request-Id": "log-probe",
                "Content-Type": "application/json",
                "Authorization": f"Bearer {ADMIN_KEY}",
            },
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            encounter = json.load(response)["id"]
    assert process.stderr is not None
    lines = [json.loads(line) for line in process.stderr.read().decode().splitlines()]
    probe = [line for line in lines if line.get("request_id") == "log-probe"]
    assert len(probe) == 1
    assert probe[0]["event"] == "request"
    assert (probe[0]["method"], probe[0]["path"], probe[0]["status"]) == (
        "POST",
        "/v1/encounters",
        201,
    )
    assert probe[0]["encounter"] == encounter
    assert isinstance(probe[0]["duration_ms"], float)


def quickstart() -> str:
    readme = (ROOT / "README.md").read_text()
    marker = readme.index("<!-- quickstart:")
    block = re.search(r"```sh\n(.*?)```", readme[marker:], re.S)
    assert block is not None
    return block.group(1)


def test_the_readme_example_resolves_a_shot_as_the_readme_says(served: str) -> None:
    script = quickstart().replace("http://127.0.0.1:8080", served)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        timeout=60,
        env={**os.environ, "ADMIN_KEY": ADMIN_KEY},
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    attack = outcome["result"]
    target = attack["targets"][0]
    # The numbers the README states.
    assert attack["pool"] == 14
    assert target["attack"]["pool"] == 13
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    assert target["damage"]["dv"] == 11
    assert target["damage"]["armor"] == 8
    assert (target["damage"]["soak_hits"], target["damage"]["boxes"]) == (2, 9)
    assert target["damage"]["track"] == "physical"


def test_a_localhost_service_without_a_key_makes_one_and_prints_it_once() -> None:
    config = load_config([], {})
    assert config.admin_key_generated and len(config.admin_key) >= 32
    assert config.admin_key not in repr(config)
    assert load_config([], {}).admin_key != config.admin_key
    with serve(admin_key=None) as (url, process):
        request = urllib.request.Request(url + "/v1/encounters", data=b'{"ruleset": "sr5"}')
        try:
            urllib.request.urlopen(request, timeout=5)
            raise AssertionError("created an encounter without the admin key")
        except urllib.error.HTTPError as refused:
            assert refused.code == 401
    assert process.stderr is not None
    lines = process.stderr.read().decode().splitlines()
    printed = [line for line in lines if "admin key:" in line]
    assert len(printed) == 1
    key = printed[0].split("admin key:")[1].strip()
    assert len(key) >= 32
    # The key is on the console once, never in a log line.
    assert sum(key in line for line in lines) == 1


async def test_tokens_and_keys_never_reach_the_logs() -> None:
    import aiohttp

    from tests import sr5_requests as make

    with serve("--log-level", "debug") as (url, process):
        admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        async with aiohttp.ClientSession() as http:
            created = await (
                await http.post(
                    f"{url}/v1/encounters",
                    json={"ruleset": "sr5", "sheet_policy": "typed"},
                    headers=admin,
                )
            ).json()
            encounter, tokens = created["id"], created["tokens"]
            player = {"Authorization": f"Bearer {tokens['player']}"}
            gm = {"Authorization": f"Bearer {tokens['gm']}"}
            base = f"{url}/v1/encounters/{encounter}"
            ws = await http.ws_connect(f"{base}/ws?token={tokens['player']}")
            assert (await http.post(f"{base}/attacks", json=make.attack(), headers=player)).ok
            assert (await ws.receive_json(timeout=5))["type"] == "encounter_created"
            assert (await ws.receive_json(timeout=5))["type"] == "attack"
            await ws.close()
            refused = await http.delete(base, headers=player)
            assert refused.status == 403
            wrong = await http.get(base, headers={"Authorization": "Bearer not-a-token-at-all"})
            assert wrong.status == 401
            assert (await http.post(f"{base}/advance", json={"to": "combat_turn"}, headers=gm)).ok
    assert process.stderr is not None
    logs = process.stderr.read().decode()
    assert logs.count('"event": "request"') >= 7
    for secret in (ADMIN_KEY, tokens["gm"], tokens["player"], "not-a-token-at-all"):
        assert secret not in logs


def test_the_cluster_switch_by_environment_or_flag() -> None:
    assert not load_config([], {}).redis_cluster
    assert load_config([], {"FIREFIGHT_REDIS_CLUSTER": "true"}).redis_cluster
    assert load_config(["--redis-cluster"], {}).redis_cluster


async def test_the_undo_stack_is_as_deep_as_configured(tmp_path: Path) -> None:
    from service.store.choice import store_for

    config = load_config(
        ["--data-dir", str(tmp_path)],
        {"FIREFIGHT_UNDO_DEPTH": "2", "FIREFIGHT_UNDO_BYTES": "65536"},
    )
    assert (config.undo_depth, config.undo_bytes) == (2, 65536)
    assert (load_config([], {}).undo_depth, load_config([], {}).undo_bytes) == (20, 8 * 1024**2)
    store = store_for(config)
    await store.create("e", {"body": b"v"}, b"created")
    for version in (1, 2, 3):
        await store.commit("e", version, {"body": b"v"}, (), b"e", undo=b"r%d" % version)
    # Three changes with records, two kept (FIREFIGHT_UNDO_DEPTH): the newest, r3, on top.
    top = await store.undo_top("e")
    assert top is not None and (top.record, top.depth) == (b"r3", 2)
    await store.close()
    # The default store, in the data directory it names.
    assert (tmp_path / "firefight.sqlite3").exists()


def run_until_refused(*args: str, data_dir: Path) -> str:
    """`python -m service` that is expected to stop at once with exit code 2: what it said."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    result = subprocess.run(
        [sys.executable, "-m", "service", "--port", str(free_port()), *args],
        cwd=ROOT,
        env={**env, "FIREFIGHT_DATA_DIR": str(data_dir)},
        capture_output=True,
        timeout=30,
    )
    assert result.returncode == 2, result.stderr
    return result.stderr.decode()


def test_a_data_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    taken = tmp_path / "notes.txt"
    taken.write_text("not a directory")
    said = run_until_refused(data_dir=taken)
    assert f"FIREFIGHT_DATA_DIR (--data-dir) {taken} is not a directory" in said


def test_a_data_directory_that_cannot_be_made_is_refused(tmp_path: Path) -> None:
    # /sys refuses new entries to everyone, root included (a chmod would not stop root).
    said = run_until_refused(data_dir=Path("/sys/firefight-data"))
    assert "FIREFIGHT_DATA_DIR (--data-dir) /sys/firefight-data cannot be made" in said


def test_the_admin_key_made_at_first_start_is_kept_and_the_same_next_time(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    with serve(admin_key=None, data_dir=data) as (url, process):
        # The directory and the key are the owner's alone.
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        kept = data / "admin-key"
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        key = kept.read_text().strip()
        assert create_encounter(url, key) == 201
    assert process.stderr is not None
    first = process.stderr.read().decode()
    assert first.count(key) == 1 and f"kept in {kept}" in first
    with serve(admin_key=None, data_dir=data) as (url, process):
        assert create_encounter(url, key) == 201
    assert process.stderr is not None
    second = process.stderr.read().decode()
    # Not printed again: where it is instead.
    assert key not in second and f"the admin key kept in {kept}" in second
    assert (data / "firefight.sqlite3").exists()


def test_the_memory_store_keeps_nothing_on_disk(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with serve("--store", "memory", admin_key=None, data_dir=data, expect_store="memory") as (
        url,
        _,
    ):
        assert create_encounter(url, ADMIN_KEY) == 401
    assert not data.exists()


def create_encounter(url: str, key: str) -> int:
    request = urllib.request.Request(
        url + "/v1/encounters",
        data=b'{"ruleset": "sr5"}',
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


def test_a_second_service_on_the_same_data_directory_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with serve(data_dir=data):
        said = run_until_refused(data_dir=data)
    assert f"{data / 'firefight.sqlite3'} is in use by another firefight process" in said
