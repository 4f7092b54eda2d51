"""Issue 25: a character file imported onto an encounter's scene actor over HTTP
(`POST /v1/encounters/{id}/actors/{actor}/import?format=...`), on the memory store, Redis and
the cluster: a new actor and an existing one (its place and damage kept, its monitor sized anew
by the new sheet), an attack with the imported gun, the refusals, who hears of it, and undo.

Every number is worked by hand from tests/data/imports/kestrel.chum5 (tests/test_imports_chummer5.py
reads the same file field by field) and SR5's condition monitor: physical 8 + ceil(Body/2), stun
8 + ceil(Willpower/2), -1 per 3 boxes of each track."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from service.imports import MAX_IMPORT_BYTES
from tests.conftest import ADMIN_KEY
from tests.sr5_requests import README_GANGER_SHEET
from tests.test_imports_chummer5 import BILLION_LAUGHS

DATA = Path(__file__).parent / "data" / "imports"
KESTREL = (DATA / "kestrel.chum5").read_bytes()
GHOST = (DATA / "ghost.chum").read_bytes()

GANGER = {"name": "Ganger", "position": {"x": 12.0, "y": 0.0}, "sheet": README_GANGER_SHEET}
# An actor the GM placed and hurt before importing its character: Body 8 (physical 8 + 4 = 12
# boxes), Willpower 1 (stun 8 + 1 = 9), 3 physical and 2 stun boxes marked.
RUNNER = {
    "name": "Runner",
    "controller": "anna",
    "position": {"x": 0.0, "y": 0.0},
    "posture": {"cover": "partial", "prone": False},
    "sheet": {"ruleset": "sr5", "body": 8, "willpower": 1, "agility": 3},
    "monitor": {"physical": 3, "stun": 2},
}


async def encounter(client: Any, ruleset: str = "sr5") -> str:
    response = await client.post("/v1/encounters", json={"ruleset": ruleset})
    assert response.status == 201, await response.text()
    return f"/v1/encounters/{(await response.json())['id']}"


async def imported(
    client: Any, base: str, actor: str, data: bytes, source_format: str = "chummer5", **kw: Any
) -> Any:
    return await client.post(
        f"{base}/actors/{actor}/import",
        params={"format": source_format},
        data=data,
        headers={"Content-Type": "application/octet-stream", **kw.pop("headers", {})},
        **kw,
    )


async def test_a_new_actor_takes_the_files_sheet_and_name_and_the_report(client: Any) -> None:
    base = await encounter(client)
    response = await imported(client, base, "kestrel", KESTREL)
    assert response.status == 201, await response.text()
    answer = await response.json()
    result = answer["result"]
    assert (result["kind"], result["change"], result["actor"]) == ("scene", "set", "kestrel")
    actor = result["state"]
    # kestrel.chum5: <name>Kestrel</name>; a new actor is the GM's, visible, not placed.
    assert (actor["name"], actor["controller"], actor["hidden"]) == ("Kestrel", "gm", False)
    assert "position" not in actor or actor["position"] is None
    sheet = actor["sheet"]
    # The attributes are the file's totals (BOD 4, AGI 6, REA 5, WIL 3) and its guns.
    assert (sheet["body"], sheet["agility"], sheet["reaction"], sheet["willpower"]) == (4, 6, 5, 3)
    assert [w["id"] for w in sheet["weapons"]] == ["ares-predator-v", "ares-alpha", "enfield-as-7"]
    # A fresh monitor sized by the sheet: physical 8 + ceil(4 / 2) = 10, stun 8 + ceil(3 / 2) = 10.
    status = actor["monitor"]["status"]
    assert (status["physical_max"], status["stun_max"]) == (10, 10)
    # The scene answer's shape, plus the import's report.
    assert answer["changes"]["scene"]["kestrel"]["sheet"] == sheet
    assert answer["event_id"]
    report = answer["report"]
    assert (report["source_format"], report["ruleset"], report["name"]) == (
        "chummer5",
        "sr5",
        "Kestrel",
    )
    read = {entry["field"]: entry for entry in report["read"]}
    assert read["agility"]["value"] == "6"
    assert read["agility"]["source"] == "/character/attributes/attribute[name='AGI']/totalvalue"
    left_out = {entry["source"]: entry["reason"] for entry in report["left_out"]}
    assert left_out["/character/weapons/weapon[1] (Unarmed Attack)"] == "a melee weapon"
    stored = await (await client.get(f"{base}/actors/kestrel")).json()
    assert stored == actor


async def test_an_existing_actor_keeps_its_place_and_damage_and_shoots_the_imported_gun(
    client: Any,
) -> None:
    base = await encounter(client)
    for actor_id, actor in (("runner", RUNNER), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    before = await (await client.get(f"{base}/actors/runner")).json()
    sized = before["monitor"]["status"]
    assert (sized["physical_max"], sized["stun_max"]) == (12, 9)

    response = await imported(client, base, "runner", KESTREL)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    assert (result["change"], result["actor"]) == ("patched", "runner")
    runner = result["state"]
    # Its name, controller, position, posture and hidden flag stay the GM's, not the file's.
    for kept in ("name", "controller", "position", "posture", "hidden"):
        assert runner[kept] == before[kept], kept
    assert (runner["name"], runner["controller"], runner["posture"]["cover"]) == (
        "Runner",
        "anna",
        "partial",
    )
    assert runner["sheet"]["body"] == 4
    # The damage it carries stays (3 physical, 2 stun), on tracks sized by the new sheet:
    # physical 8 + ceil(Body 4 / 2) = 10, stun 8 + ceil(Willpower 3 / 2) = 10; -1 per 3 boxes of
    # each track: 3 // 3 + 2 // 3 = 1, a wound modifier of -1.
    monitor = runner["monitor"]
    assert (monitor["physical"], monitor["stun"]) == (3, 2)
    status = monitor["status"]
    assert (status["physical_max"], status["stun_max"], status["wound_modifier"]) == (10, 10, -1)
    assert await (await client.get(f"{base}/actors/runner")).json() == runner

    attack = {
        "attacker": "runner",
        "weapon": "ares-predator-v",
        "mode": "SA",
        "targets": [{"id": "goon-1"}],
        "dice": {
            "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2],
            "defense:goon-1": [5, 2, 3, 1, 4, 2],
            "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
        },
    }
    response = await client.post(f"{base}/attacks", json=attack)
    assert response.status == 201, await response.text()
    target = (await response.json())["result"]["targets"][0]
    # Agility 6 + Pistols 5 = 11 (the imported sheet's), -1 for its wounds = 10, -1 for the
    # ganger 12 m away (medium range for a heavy pistol) = 9 dice; 4 hits (6 5 5 5), under the
    # Predator's Accuracy 5. Defense Reaction 3 + Intuition 3 = 6 dice, 1 hit: 3 net hits.
    # DV 8 + 3 = 11 against armour 9 - AP 1 = 8: physical; soak Body 4 + 8 = 12 dice, 2 hits
    # (5 6): 9 boxes.
    assert target["attack"]["pool"] == 9
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (11, 8, 2, 9)
    # The round comes off the imported clip of 12.
    runner = await (await client.get(f"{base}/actors/runner")).json()
    assert runner["sheet"]["weapons"][0]["ammo"] == 11


async def test_the_files_ruleset_must_be_the_encounters(client: Any) -> None:
    base = await encounter(client, "sr4")
    response = await imported(client, base, "kestrel", KESTREL)
    assert response.status == 422, await response.text()
    problem = await response.json()
    assert problem["type"].endswith("/wrong-ruleset")
    # It names the file's ruleset and the encounter's.
    assert "sr5" in problem["detail"] and "sr4" in problem["detail"]
    assert problem["path"] == "format"
    # A Chummer 4 file is an sr4 character: read there, refused on sr5.
    assert (await imported(client, base, "ghost", GHOST, "chummer4")).status == 201
    sr5 = await encounter(client)
    refused = await imported(client, sr5, "ghost", GHOST, "chummer4")
    assert refused.status == 422
    assert (await client.get(f"{sr5}/actors/ghost")).status == 404


async def test_hostile_or_unreadable_files_are_refused_naming_why(client: Any) -> None:
    base = await encounter(client)
    response = await imported(client, base, "kestrel", BILLION_LAUGHS)
    assert response.status == 422
    problem = await response.json()
    assert problem["type"].endswith("/import-refused")
    assert "DTD" in problem["detail"] and problem["path"] == "/"
    broken = KESTREL.replace(b"<totalvalue>4</totalvalue>", b"<totalvalue>x<", 1)
    response = await imported(client, base, "kestrel", broken)
    assert response.status == 422
    assert "not well-formed" in (await response.json())["detail"]
    # Nothing was written.
    assert (await client.get(f"{base}/actors/kestrel")).status == 404


async def test_format_is_required_and_one_of_three(client: Any) -> None:
    base = await encounter(client)
    for params in ({}, {"format": "pdf"}):
        response = await client.post(f"{base}/actors/kestrel/import", params=params, data=KESTREL)
        assert response.status == 400, await response.text()
        problem = await response.json()
        assert problem["path"] == "format"
        assert "chummer5" in problem["detail"]


async def test_the_import_takes_up_to_its_own_bound_and_other_routes_keep_theirs(
    client: Any,
) -> None:
    base = await encounter(client)
    # A real character with a base64 mugshot of 1.5 MB: above every other route's bound (256
    # KiB), within the import's (4 MiB).
    mugshot = b"<mugshots><mugshot>" + b"A" * 1_500_000 + b"</mugshot></mugshots>"
    response = await imported(client, base, "kestrel", KESTREL.replace(b"<mugshots />", mugshot))
    assert response.status == 201, await response.text()
    too_large_put = await client.put(
        f"{base}/actors/other", data=b'{"name": "' + b"a" * 300_000 + b'"}'
    )
    assert too_large_put.status == 413

    five_mb = KESTREL.replace(b"<mugshots />", b"<mugshots>" + b"A" * 5_000_000 + b"</mugshots>")
    response = await imported(client, base, "big", five_mb)
    assert response.status == 413
    problem = await response.json()
    assert problem["type"].endswith("/import-too-large")
    assert str(MAX_IMPORT_BYTES) in problem["detail"]

    async def chunks() -> AsyncIterator[bytes]:
        # The same, sent chunked with no Content-Length: refused once past the bound.
        for start in range(0, len(five_mb), 64 * 1024):
            yield five_mb[start : start + 64 * 1024]

    response = await imported(client, base, "big", chunks())  # type: ignore[arg-type]
    assert response.status == 413
    assert (await response.json())["type"].endswith("/import-too-large")
    assert (await client.get(f"{base}/actors/big")).status == 404


async def test_a_players_token_may_not_import(client: Any) -> None:
    base = await encounter(client)
    issued = await client.post(f"{base}/players/anna", json={"actors": []})
    token = (await issued.json())["token"]
    response = await imported(
        client, base, "kestrel", KESTREL, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status == 403
    assert (await client.get(f"{base}/actors/kestrel")).status == 404


async def test_a_hidden_actors_import_is_the_gms_alone_and_undo_takes_it_back(
    client: Any,
) -> None:
    base = await encounter(client)
    shade = {**RUNNER, "name": "Shade", "hidden": True}
    assert (await client.put(f"{base}/actors/shade", json=shade)).status == 200
    issued = await client.post(f"{base}/players/anna", json={"actors": []})
    player = {"Authorization": f"Bearer {(await issued.json())['token']}"}

    response = await imported(client, base, "shade", KESTREL)
    assert response.status == 201, await response.text()
    event_id = (await response.json())["event_id"]
    gm_events = (await (await client.get(f"{base}/events")).json())["events"]
    assert [e["id"] for e in gm_events if e["type"] == "scene"][-1] == event_id
    players_events = (await (await client.get(f"{base}/events", headers=player)).json())["events"]
    assert event_id not in [e["id"] for e in players_events]
    assert "shade" not in str(players_events).lower()

    undone = await client.post(f"{base}/undo", json={"event": event_id})
    assert undone.status == 200, await undone.text()
    shade_now = await (await client.get(f"{base}/actors/shade")).json()
    # Its own sheet and monitor again: Body 8, 12 physical boxes with 3 marked.
    assert shade_now["sheet"]["body"] == 8
    assert (shade_now["monitor"]["physical"], shade_now["monitor"]["status"]["physical_max"]) == (
        3,
        12,
    )

    # A new actor's import undone takes the actor off the scene.
    response = await imported(client, base, "kestrel", KESTREL)
    event_id = (await response.json())["event_id"]
    assert (await client.post(f"{base}/undo", json={"event": event_id})).status == 200
    assert (await client.get(f"{base}/actors/kestrel")).status == 404


async def test_a_file_announced_larger_is_refused_before_a_byte_of_it_is_read(
    client: Any,
) -> None:
    """Headers saying 5 MB and no body at all: the answer is the 413 at once, not the body
    timeout's 408 (the service never waits for the file)."""
    base = await encounter(client)
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(
        f"POST {base}/actors/big/import?format=chummer5 HTTP/1.1\r\n"
        f"Host: test\r\nAuthorization: Bearer {ADMIN_KEY}\r\n"
        "Content-Length: 5000000\r\n\r\n".encode()
    )
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    assert status_line.split()[1] == b"413"


async def test_an_import_spends_the_encounters_rate_of_changes(make_client: Any) -> None:
    """1 change a second in bursts of 2 (FIREFIGHT_RATE_LIMIT=1): imports one after another run
    out of it (two at once, one more per second that passes) and get a 429 with Retry-After
    before their file is read; nothing of a refused one is written."""
    client = await make_client(rate_limit_per_second=1)
    base = await encounter(client)
    statuses = []
    for n in range(12):
        response = await imported(client, base, f"kestrel-{n}", KESTREL)
        statuses.append(response.status)
        if response.status == 429:
            assert "Retry-After" in response.headers
            assert (await client.get(f"{base}/actors/kestrel-{n}")).status == 404
            break
    assert statuses[:2] == [201, 201] and statuses[-1] == 429, statuses
