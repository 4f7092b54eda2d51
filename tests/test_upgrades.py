"""Issue 29, "Upgrades keep every encounter": what each earlier landed version stored
(tests/fixtures/stored, made by that version's own service: tests/make_stored_fixture.py) is
opened by this one, on the embedded store and on a real Redis: both tokens read it, an attack
with given dice plays on the state it kept and an undo takes the attack back, the old events
are served as they were stored, and the first write leaves the document in this version's
shape. A document a later version stored is refused, and never written."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from service.api.app import STORE
from service.backup import import_encounter, read_document
from service.engine.migrations import SCHEMA_VERSION
from service.store import Committed, StoredEncounter
from tests.conftest import AppFactory
from tests.make_stored_fixture import ATTACK

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stored"
# Every landed state of main whose stored shape differs from the next one's (see the fixtures'
# README): stop 7 and 17 kept the whole document in one field `doc`; 31 in fields, before the
# service kept monitors; 32 with monitors, before campaigns; 34 an encounter of a campaign.
LABELS = ["stop07", "stop17", "stop31", "stop32", "stop34"]
# The versions whose encounters the service applies damage to (the monitors came with stop 32);
# the earlier ones leave it to the VTT, as they did then.
KEEPS_MONITORS = {"stop32", "stop34"}

# The second shot of the README's quickstart, played by this version on what each kept.
SECOND_SHOT = {
    **copy.deepcopy(ATTACK),
    "dice": {
        # 3 hits (5, 6, 5) of 13 dice.
        "attack": [5, 6, 5, 1, 2, 3, 4, 2, 3, 4, 2, 3, 4],
        # 1 hit of 5 dice.
        "defense:goon-1": [5, 1, 2, 3, 4],
        # 2 hits of 12 dice.
        "soak:goon-1": [5, 5, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
    },
}


def fixture(label: str) -> tuple[bytes, dict[str, Any]]:
    return (FIXTURES / f"{label}.json").read_bytes(), json.loads(
        (FIXTURES / f"{label}.meta.json").read_text()
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def loaded(make_client: AppFactory, store: str, label: str, request: Any) -> Any:
    """The app on `store` with the fixture's documents and events written in as stored."""
    if store == "redis":
        # A redis-server of this session's alone: emptied, as each fixture keeps its ids.
        url = request.getfixturevalue("own_redis_url")
        with redis.Redis.from_url(url) as server:
            server.flushdb()
        client = await make_client(redis_url=url)
    else:
        client = await make_client()
    text, _ = fixture(label)
    for stored in read_document(text, label).encounters:
        await import_encounter(client.app[STORE], stored)
    return client


async def answer(client: Any, method: str, path: str, token: str, body: Any = None) -> Any:
    async with client.request(method, path, json=body, headers=bearer(token)) as response:
        assert response.status in (200, 201), await response.text()
        return await response.json()


def head_of(stored: StoredEncounter) -> dict[str, Any]:
    head: dict[str, Any] = msgspec.msgpack.decode(stored.fields["head"])
    return head


@pytest.mark.parametrize("store", ["memory", "redis"])
@pytest.mark.parametrize("label", LABELS)
async def test_an_encounter_an_earlier_version_stored_plays_on_and_is_written_anew(
    make_client: AppFactory, request: pytest.FixtureRequest, store: str, label: str
) -> None:
    client = await loaded(make_client, store, label, request)
    text, meta = fixture(label)
    encounter, gm, player = meta["encounter"], meta["tokens"]["gm"], meta["tokens"]["player"]
    path = f"/v1/encounters/{encounter}"
    kept = await client.app[STORE].load(encounter)
    # What that version wrote: no schema version anywhere (stops 7 and 17: one field, `doc`).
    assert ("doc" in kept.fields) == (label in {"stop07", "stop17"})
    assert "head" not in kept.fields or "schema_version" not in head_of(kept)

    # Both tokens read it: the first shot's recoil (1 round), goon-1's one defense, and on the
    # versions with monitors its 9 boxes (-3).
    for token, role in ((gm, "gm"), (player, "player")):
        view = await answer(client, "GET", path, token)
        assert view["role"] == role
        assert view["combat"]["actors"]["sam"]["recoil_rounds"] == 1
        assert view["combat"]["actors"]["goon-1"]["defenses"] == 1
        if label in KEEPS_MONITORS:
            assert view["scene"]["goon-1"]["monitor"]["physical"] == 9
            assert view["damage"] == "service"
        else:
            # Stored before the service kept monitors: the VTT applies damage, as it did then.
            assert view["damage"] == "vtt"
    # Before the dice policy (stop 17) any token gave any dice: the player's token still does.
    assert view["dice_policy"] == "any"

    # The second shot, by the player's token giving every die, as the quickstart's first:
    # pool 14 (Agility 6 + Pistols 6 + 2 implanted smartlink), 13 at medium range (-1); the
    # stored recoil (1 round) + 1 = 2, within the compensation of 3 (1 + ceil(Strength 4 / 3)
    # + RC 0): no penalty. 3 hits within the limit 7 (Accuracy 5 + 2). goon-1 defends with
    # Reaction 3 + Intuition 3 - 1 for the stored earlier defense = 5 dice: 1 hit. 2 net hits:
    # DV 8 + 2 = 10 P against armour 9 - 1 AP = 8 (10 >= 8: physical); soak Body 4 + 8 = 12
    # dice, 2 hits: 8 boxes.
    shot = await answer(client, "POST", f"{path}/attacks", player, SECOND_SHOT)
    result = shot["result"]
    assert result["pool"] == 14
    assert result["recoil"]["rounds_before"] == 1
    assert result["recoil"]["rounds_total"] == 2
    assert result["recoil"]["compensation"] == 3
    assert result["recoil"]["penalty"] == 0
    [target] = result["targets"]
    assert target["attack"]["pool"] == 13
    assert target["attack_hits"] == 3
    assert target["defense"]["pool"] == 5
    assert target["defense_hits"] == 1
    assert target["net_hits"] == 2
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["track"]) == (10, 8, "physical")
    assert damage["soak"]["pool"] == 12
    assert damage["soak_hits"] == 2
    assert damage["boxes"] == 8
    after_shot = await answer(client, "GET", path, gm)
    assert after_shot["combat"]["actors"]["sam"]["recoil_rounds"] == 2
    assert after_shot["combat"]["actors"]["goon-1"]["defenses"] == 2
    if label in KEEPS_MONITORS:
        # 9 + 8 = 17 boxes: -5 (one per 3).
        monitor = after_shot["scene"]["goon-1"]["monitor"]
        assert (monitor["physical"], monitor["status"]["wound_modifier"]) == (17, -5)
    elif label != "stop07":
        # The VTT's to apply: the scene keeps no monitor for it.
        assert after_shot["scene"]["goon-1"]["monitor"] is None

    # The first write left the whole document in this version's shape: its head carries the
    # version, the one-field document is gone, every field is read back.
    written = await client.app[STORE].load(encounter)
    assert "doc" not in written.fields
    assert head_of(written)["schema_version"] == SCHEMA_VERSION
    # Stop 7 had no scene: the attack named its actors.
    scene = set() if label == "stop07" else {"s:sam", "s:goon-1"}
    assert set(written.fields) == {"head", "a:sam", "a:goon-1", *scene}

    # The undo takes the second shot back to the state that version left.
    undone = await answer(client, "POST", f"{path}/undo", gm, {"event": shot["event_id"]})
    assert undone["result"]["undone"] == shot["event_id"]
    back = await answer(client, "GET", path, player)
    assert back["combat"]["actors"]["sam"]["recoil_rounds"] == 1
    assert back["combat"]["actors"]["goon-1"]["defenses"] == 1
    if label in KEEPS_MONITORS:
        assert back["scene"]["goon-1"]["monitor"]["physical"] == 9
    assert head_of(await client.app[STORE].load(encounter))["schema_version"] == SCHEMA_VERSION

    # The events: those that version stored, served as stored (without a version), then this
    # version's attack and undo (with it), to the GM's token and the player's.
    [stored] = [e for e in read_document(text, label).encounters if e.id == encounter]
    old = [json.loads(event.body) for event in stored.events]
    for token in (gm, player):
        page = await answer(client, "GET", f"{path}/events", token)
        events = [{k: v for k, v in e.items() if k != "id"} for e in page["events"]]
        assert events[: len(old)] == old
        assert [e["type"] for e in events[len(old) :]] == ["attack", "undo"]
        assert all("schema_version" not in e for e in events[: len(old)])
        assert [e["schema_version"] for e in events[len(old) :]] == [SCHEMA_VERSION] * 2
    # The first shot of that version is still the one the attack event of then recorded.
    [first] = [e for e in old if e["type"] == "attack"]
    assert first["result"]["targets"][0]["damage"]["boxes"] == 9
    await client.close()


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_campaign_an_earlier_version_stored_opens_and_is_written_anew(
    make_client: AppFactory, request: pytest.FixtureRequest, store: str
) -> None:
    client = await loaded(make_client, store, "stop34", request)
    _, meta = fixture("stop34")
    campaign = meta["campaign"]
    path = f"/v1/campaigns/{campaign['id']}"
    before = await client.app[STORE].load(campaign["id"])
    assert "schema_version" not in head_of(before)

    view = await answer(client, "GET", path, campaign["gm"])
    assert set(view["actors"]) == {"sam", "goon"}
    assert [e["id"] for e in view["encounters"]] == [meta["encounter"]]
    # Anna's campaign token: her character, never the GM's template.
    anna = await answer(client, "GET", path, campaign["anna"])
    assert (set(anna["actors"]), anna["player"]) == ({"sam"}, "anna")
    # ... and it opens the encounter of the campaign as her.
    opened = await answer(client, "GET", f"/v1/encounters/{meta['encounter']}", campaign["anna"])
    assert (opened["role"], opened["player"]) == ("player", "anna")

    # A change to one actor writes the whole campaign in this version's shape.
    await answer(client, "PATCH", f"{path}/actors/sam", campaign["gm"], {"edge_spent": 1})
    after = await client.app[STORE].load(campaign["id"])
    assert head_of(after)["schema_version"] == SCHEMA_VERSION
    assert set(after.fields) == {"head", "c:sam", "c:goon"}
    assert after.fields["c:goon"] == before.fields["c:goon"]
    assert msgspec.msgpack.decode(after.fields["c:sam"])["edge_spent"] == 1
    view = await answer(client, "GET", path, campaign["gm"])
    assert view["actors"]["sam"]["edge_spent"] == 1
    await client.close()


async def stored_by_a_later_version(client: Any, document_id: str) -> StoredEncounter:
    """The document with its head's schema version one past this version's (a shape this
    version cannot know), as the store then holds it."""
    store = client.app[STORE]
    stored = await store.load(document_id)
    head = {**head_of(stored), "schema_version": SCHEMA_VERSION + 1}
    event = b'{"type":"state_edited","encounter":"' + document_id.encode() + b'","at":"x"}'
    written = await store.commit(
        document_id, stored.version, {"head": msgspec.msgpack.encode(head)}, (), event
    )
    assert isinstance(written, Committed)
    later: StoredEncounter = await store.load(document_id)
    return later


async def test_a_document_of_a_later_version_is_refused_naming_it_and_never_written(
    make_client: AppFactory, request: pytest.FixtureRequest
) -> None:
    client = await loaded(make_client, "memory", "stop34", request)
    _, meta = fixture("stop34")
    encounter, gm = meta["encounter"], meta["tokens"]["gm"]
    later = await stored_by_a_later_version(client, encounter)
    path = f"/v1/encounters/{encounter}"
    version = SCHEMA_VERSION + 1
    asked = [
        ("GET", path, None),
        ("POST", f"{path}/attacks", SECOND_SHOT),
        ("PUT", f"{path}/state", {"reason": "fix"}),
        ("PUT", f"{path}/actors/sam", {"name": "Sam"}),
        ("POST", f"{path}/undo", {}),
        ("DELETE", path, None),
    ]
    for method, where, body in asked:
        async with client.request(method, where, json=body, headers=bearer(gm)) as response:
            assert response.status == 409, (method, where, await response.text())
            assert response.content_type == "application/problem+json"
            problem = await response.json()
        assert problem["type"].endswith("/stored-state-invalid")
        assert f"schema version {version}" in problem["detail"]
        assert f"reads up to {SCHEMA_VERSION}" in problem["detail"]
    # A wrong token learns nothing of it.
    async with client.get(path, headers=bearer("not-a-token")) as response:
        assert response.status == 401
    # Nothing was written: the same fields, the same version.
    assert await client.app[STORE].load(encounter) == later

    campaign = meta["campaign"]
    later_campaign = await stored_by_a_later_version(client, campaign["id"])
    for method, body in (("GET", None), ("PATCH", {"edge_spent": 1})):
        where = f"/v1/campaigns/{campaign['id']}" + ("/actors/sam" if body else "")
        async with client.request(method, where, json=body, headers=bearer(campaign["gm"])) as r:
            assert r.status == 409, await r.text()
            assert f"schema version {version}" in (await r.json())["detail"]
    assert await client.app[STORE].load(campaign["id"]) == later_campaign
    await client.close()


def test_every_fixture_is_what_its_version_wrote() -> None:
    """Each fixture is a whole export, its bytes as that version stored them: no field or
    event carries a schema version (they came before it), and its meta names its commit."""
    for label in LABELS:
        text, meta = fixture(label)
        document = read_document(text, label)
        assert len(meta["commit"]) == 40
        for stored in document.encounters:
            assert stored.events, label
            for body in [*stored.fields.values(), *(e.body for e in stored.events)]:
                assert b"schema_version" not in body, label
            # base64 of the bytes stored, never re-encoded: the file's text holds them so.
            raw = json.loads(text)
            [kept] = [e for e in raw["encounters"] if e["id"] == stored.id]
            assert {k: base64.b64decode(v) for k, v in kept["fields"].items()} == stored.fields
