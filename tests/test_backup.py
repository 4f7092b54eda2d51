"""Issue 25: `python -m service export` and `import` move a table from one store to another (a
laptop's data directory to a compose deployment's Redis), run as a user runs them: in a process
of their own, the encounter then read through the service on the store it landed in."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis

from service.backup import export_encounter, import_encounter, read_document, write_document
from service.data_dir import DATA_FILE
from service.store import MemoryStore, SQLiteStore, StoredEncounter
from service.store.base import START
from tests.conftest import TEST_TTL_SECONDS, AppFactory
from tests.test_undo_http import SR5_BURST, SR5_RIFLE

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = "redis://127.0.0.1:6379/0"


def firefight(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m service ...` with no FIREFIGHT_* setting but what `args` give."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def on_sqlite(data: Path) -> dict[str, Any]:
    return {"store": "sqlite", "data_dir": str(data), "encounter_ttl_seconds": None}


async def table_on_sqlite(make_client: AppFactory, data: Path) -> tuple[str, str]:
    """An encounter in `data` with a scene (the shooter armed, the ganger placed) and the worked
    burst of tests/test_undo_http.py; its id and GM token. The app is closed after: the data
    directory is free for the export."""
    client = await make_client(**on_sqlite(data))
    async with client.post("/v1/encounters", json={"ruleset": "sr5"}) as response:
        assert response.status == 201, await response.text()
        created = await response.json()
    base, gm = (
        f"/v1/encounters/{created['id']}",
        {"Authorization": f"Bearer {created['tokens']['gm']}"},
    )
    armed = {"sheet": {"ruleset": "sr5", "weapons": [SR5_RIFLE]}, "position": {"x": 0, "y": 0}}
    for actor, body in (("sam", armed), ("goon-1", {"position": {"x": 0, "y": 20}})):
        async with client.put(f"{base}/actors/{actor}", json=body, headers=gm) as response:
            assert response.status in (200, 201), await response.text()
    async with client.post(f"{base}/attacks", json=SR5_BURST, headers=gm) as response:
        assert response.status == 201, await response.text()
    await client.close()
    return created["id"], created["tokens"]["gm"]


async def read_table(client: Any, encounter: str, gm: str) -> tuple[dict[str, Any], list[Any]]:
    """The GM's view and the events (each without its id) as the service answers them."""
    headers = {"Authorization": f"Bearer {gm}"}
    async with client.get(f"/v1/encounters/{encounter}", headers=headers) as response:
        assert response.status == 200, await response.text()
        view = await response.json()
    async with client.get(f"/v1/encounters/{encounter}/events", headers=headers) as response:
        assert response.status == 200, await response.text()
        events = (await response.json())["events"]
    return view, [{k: v for k, v in event.items() if k != "id"} for event in events]


def exported(data: Path, out: Path, *args: str) -> dict[str, Any]:
    done = firefight("export", "--data-dir", str(data), "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(out.read_text())
    return document


@pytest.mark.parametrize("target", ["sqlite", "redis"])
async def test_an_encounter_moves_to_a_fresh_store_with_its_state_and_events(
    make_client: AppFactory, tmp_path: Path, target: str
) -> None:
    laptop = tmp_path / "laptop"
    encounter, gm = await table_on_sqlite(make_client, laptop)
    client = await make_client(**on_sqlite(laptop))
    view_before, events_before = await read_table(client, encounter, gm)
    await client.close()

    document = exported(laptop, tmp_path / "table.json", "--all")
    assert document["firefight_export"] == 1
    [moved] = document["encounters"]
    # Created, two actors put on the scene, one burst: four events, version 4.
    assert (moved["id"], moved["version"], moved["ended"]) == (encounter, 4, False)
    assert len(moved["events"]) == 4

    into = ["--redis-url", REDIS_URL] if target == "redis" else ["--data-dir", str(tmp_path / "b")]
    done = firefight("import", str(tmp_path / "table.json"), *into)
    assert done.returncode == 0, done.stderr
    assert f"imported {encounter}" in done.stderr

    settings = {"redis_url": REDIS_URL} if target == "redis" else on_sqlite(tmp_path / "b")
    client = await make_client(**settings)
    view_after, events_after = await read_table(client, encounter, gm)
    # The burst fired three of the rifle's 30 rounds (tests/test_undo_http.py): 27 left, there
    # as here.
    assert view_after["scene"]["sam"]["sheet"]["weapons"][0]["ammo"] == 27
    # Every event was appended again in order, one commit each: the version counts them (4, as
    # before); the ids are the new store's own.
    assert view_after["version"] == 4
    assert view_after.pop("last_event_id") != view_before.pop("last_event_id")
    # The laptop kept it with no expiry; Redis keeps it for the TTL of the service reading it.
    expiry = ("expires_at", "ttl_seconds")
    assert [view_before.pop(name) for name in expiry] == [None, None]
    ttl_after = view_after.pop("ttl_seconds")
    assert ttl_after == (TEST_TTL_SECONDS if target == "redis" else None)
    assert (view_after.pop("expires_at") is None) == (target == "sqlite")
    assert view_after == view_before
    assert events_after == events_before
    await client.close()


async def test_an_encounter_already_in_the_store_is_refused(
    make_client: AppFactory, tmp_path: Path
) -> None:
    laptop = tmp_path / "laptop"
    encounter, _ = await table_on_sqlite(make_client, laptop)
    out = tmp_path / "table.json"
    exported(laptop, out, "--encounter", encounter)
    # Into the store it came from: the encounter is there, and is left as it is.
    done = firefight("import", str(out), "--data-dir", str(laptop))
    assert done.returncode == 2
    assert f"encounter {encounter} is already in the store" in done.stderr
    assert exported(laptop, tmp_path / "again.json", "--all")["encounters"][0]["version"] == 4


async def test_a_corrupt_file_is_refused_naming_where_and_nothing_is_written(
    make_client: AppFactory, tmp_path: Path
) -> None:
    laptop = tmp_path / "laptop"
    await table_on_sqlite(make_client, laptop)
    await table_on_sqlite(make_client, laptop)
    document = exported(laptop, tmp_path / "table.json", "--all")
    # The second encounter's third event is no base64 any more.
    document["encounters"][1]["events"][2]["body"] = "not base64!"
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text(json.dumps(document))
    fresh = tmp_path / "fresh"
    done = firefight("import", str(corrupt), "--data-dir", str(fresh))
    assert done.returncode == 2
    assert str(corrupt) in done.stderr
    assert "$.encounters[1].events[2].body" in done.stderr
    # The whole file is read before the store is opened: not even the first, whole encounter
    # was written (the data directory was never made).
    assert not fresh.exists()

    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps(document)[:100])
    done = firefight("import", str(truncated), "--data-dir", str(fresh))
    assert (done.returncode, "truncated" in done.stderr or "malformed" in done.stderr) == (2, True)


async def test_a_file_of_a_later_format_or_a_reserved_field_is_refused(tmp_path: Path) -> None:
    later = tmp_path / "later.json"
    later.write_text(json.dumps({"firefight_export": 2, "encounters": []}))
    done = firefight("import", str(later), "--data-dir", str(tmp_path / "d"))
    assert done.returncode == 2
    assert "$.firefight_export" in done.stderr
    body = base64.b64encode(b"{}").decode()
    reserved = tmp_path / "reserved.json"
    encounter = {
        "id": "abc",
        "version": 1,
        "ended": False,
        "fields": {"v": body},
        "events": [{"id": "1-0", "body": body}],
    }
    reserved.write_text(json.dumps({"firefight_export": 1, "encounters": [encounter]}))
    done = firefight("import", str(reserved), "--data-dir", str(tmp_path / "d"))
    assert done.returncode == 2
    assert "$.encounters[0].fields" in done.stderr and "'v'" in done.stderr


async def test_export_refuses_a_data_directory_a_running_service_holds(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    held = SQLiteStore(data / DATA_FILE)
    try:
        done = firefight("export", "--all", "--data-dir", str(data))
    finally:
        await held.close()
    assert done.returncode == 2
    assert "is in use by another firefight process" in done.stderr
    assert "stop the service" in done.stderr


async def test_export_of_an_unknown_encounter_or_store_names_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = firefight("export", "--all", "--data-dir", str(data))
    assert done.returncode == 2
    assert f"{data / DATA_FILE} does not exist: no store there" in done.stderr
    data.mkdir()
    await SQLiteStore(data / DATA_FILE).close()
    done = firefight("export", "--encounter", "nosuch", "--data-dir", str(data))
    assert done.returncode == 2
    assert "encounter nosuch is not in the store" in done.stderr


async def test_an_ended_encounter_comes_back_ended_with_its_last_event() -> None:
    source, target = MemoryStore(), MemoryStore()
    await source.create("ended", {"head": b"h1"}, b"created")
    await source.commit("ended", 1, {"head": b"h2"}, (), b"shot")
    await source.delete("ended", b"ended")
    moved = read_document(write_document([await export_encounter(source, "ended")]), "file")
    [encounter] = moved.encounters
    # Created (1), one commit (2), the end (3).
    assert (encounter.version, encounter.ended) == (3, True)
    assert await import_encounter(target, encounter) == 3
    assert await target.load("ended") == StoredEncounter(3, {"head": b"h2"}, ended=True)
    events = await target.events_after("ended", START, 10)
    assert [body for _, body in events] == [b"created", b"shot", b"ended"]


async def test_a_campaign_moves_with_its_characters_and_its_encounter(
    make_client: AppFactory, tmp_path: Path
) -> None:
    """A campaign is a document of the store like an encounter: `--all` takes it, and on Redis
    (where encounters expire) it lands without a TTL."""
    laptop = tmp_path / "laptop"
    client = await make_client(**on_sqlite(laptop))
    async with client.post("/v1/campaigns", json={"ruleset": "sr5", "name": "Seattle"}) as made:
        assert made.status == 201, await made.text()
        campaign = await made.json()
    base, gm = f"/v1/campaigns/{campaign['id']}", {"Authorization": f"Bearer {campaign['token']}"}
    kestrel = {"name": "Kestrel", "monitor": {"physical": 3}, "edge_spent": 1}
    async with client.put(f"{base}/actors/kestrel", json=kestrel, headers=gm) as response:
        assert response.status == 201, await response.text()
    async with client.post(
        f"{base}/encounters", json={"bring": [{"actor": "kestrel"}]}, headers=gm
    ) as response:
        assert response.status == 201, await response.text()
        encounter = (await response.json())["id"]
    await client.close()

    document = exported(laptop, tmp_path / "table.json", "--all")
    assert sorted(e["id"] for e in document["encounters"]) == sorted([campaign["id"], encounter])
    done = firefight("import", str(tmp_path / "table.json"), "--redis-url", REDIS_URL)
    assert done.returncode == 0, done.stderr

    client = await make_client(redis_url=REDIS_URL)
    async with client.get(base, headers=gm) as response:
        assert response.status == 200, await response.text()
        kept = (await response.json())["actors"]["kestrel"]
    assert (kept["monitor"]["physical"], kept["edge_spent"]) == (3, 1)
    # The campaign's GM token still opens the encounter it started, and its end gives back.
    async with client.delete(f"/v1/encounters/{encounter}", headers=gm) as response:
        assert response.status == 200, await response.text()
        assert (await response.json())["carried"] == {"kestrel": []}
    keys = redis.Redis.from_url(REDIS_URL)
    assert keys.pttl(f"ff:{{{campaign['id']}}}:state") == -1
    await client.close()
