"""Issue 30 over HTTP: an encounter commits to its dice secret before any die, every server die
is the secret's (worked out here with hashlib and hmac alone, not service/rules/fair.py), no
answer or event holds the secret before the GM reveals it, the reveal opens it and commits to
the next, undo never goes past it, and the end reveals the last.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

import msgspec
import pytest

from service.api.app_keys import STORE
from service.engine import dice_keeping
from service.verify import verify
from tests import sr5_requests as sr5
from tests.parity import resolved

PROBLEM = "https://firefight.invalid/problems/"


@pytest.fixture(autouse=True)
def drawn_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every encounter draws its own secret, under tests/constant_dice.py too (which gives them
    all one): these tests are about the secrets and the derivation, and count on no face."""
    monkeypatch.setattr(dice_keeping, "secrets", secrets)


def faces(secret: bytes, encounter: str, sequence: int, step: str, seed: str, n: int) -> list[int]:
    """docs/dice.md's derivation for d6s, written out again with hashlib and hmac alone."""
    out: list[int] = []
    counter = 0
    while len(out) < n:
        message = f"hmac-sha256-1\n{encounter}\n{sequence}\n{step}\n{seed}\n{counter}".encode()
        for byte in hmac.new(secret, message, hashlib.sha256).digest():
            if byte < 252 and len(out) < n:
                out.append(byte % 6 + 1)
        counter += 1
    return out


async def secret_of(client: Any, encounter: str) -> bytes:
    """The secret as the store keeps it (what only the store's operator can read)."""
    stored = await client.app[STORE].load(encounter)
    secret, _ = msgspec.msgpack.decode(stored.fields["dice"])
    return bytes(secret)


async def new_encounter(client: Any) -> tuple[str, dict[str, str]]:
    created = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    assert created.status == 201, await created.text()
    body = await created.json()
    return body["id"], body["tokens"]


async def events_of(client: Any, encounter: str, token: str | None = None) -> list[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    page = await client.get(f"/v1/encounters/{encounter}/events", headers=headers)
    return list((await page.json())["events"])


async def test_the_commitment_comes_first_and_no_answer_holds_the_secret(
    store_client: Any,
) -> None:
    client = store_client
    encounter, tokens = await new_encounter(client)
    secret = await secret_of(client, encounter)
    commitment = hashlib.sha256(secret).hexdigest()
    player = {"Authorization": f"Bearer {tokens['player']}"}
    gm_view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    player_view = await (await client.get(f"/v1/encounters/{encounter}", headers=player)).json()
    published = {"version": "hmac-sha256-1", "commitment": commitment, "first_sequence": 2}
    assert gm_view["dice"] == player_view["dice"] == published
    first = (await events_of(client, encounter))[0]
    assert (first["type"], first["commitment"]) == ("encounter_created", published)
    attacked = await client.post(
        f"/v1/encounters/{encounter}/attacks", json=sr5.attack(client_seed="lucky")
    )
    assert attacked.status == 201
    seen = [
        json.dumps(gm_view),
        json.dumps(player_view),
        await attacked.text(),
        json.dumps(await events_of(client, encounter)),
        json.dumps(await events_of(client, encounter, tokens["player"])),
    ]
    for text in seen:
        assert secret.hex() not in text
        assert secret.hex().upper() not in text


async def test_every_server_die_is_the_secrets_and_the_reveal_proves_it(store_client: Any) -> None:
    client = store_client
    encounter, _ = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    secret = await secret_of(client, encounter)
    answer = await (
        await client.post(f"{base}/attacks", json=sr5.attack(client_seed="lucky"))
    ).json()
    event = (await events_of(client, encounter))[-1]
    proof = event["dice"]
    # The attack is the encounter's second change: sequence 2, its version.
    assert answer["changes"]["version"] == proof["sequence"] == 2
    assert (proof["version"], proof["client_seed"]) == ("hmac-sha256-1", "lucky")
    assert proof["commitment"] == hashlib.sha256(secret).hexdigest()
    assert proof["rolls"] == answer["result"]["dice"] == event["result"]["dice"]
    # sr5_requests' attack: agility 5 + skill 5 = 10 attack dice, from the "attack" stream.
    attack = next(roll for roll in proof["rolls"] if roll["step"] == "attack")
    assert attack["values"] == faces(secret, encounter, 2, "attack", "lucky", 10)
    for roll in proof["rolls"]:
        assert roll["values"] == faces(
            secret, encounter, 2, roll["step"], "lucky", len(roll["values"])
        )
    # Not without the player's seed: the seed is in every die.
    assert attack["values"] != faces(secret, encounter, 2, "attack", "", 10)

    revealed = await client.post(f"{base}/dice/reveal")
    assert revealed.status == 201, await revealed.text()
    opened = await revealed.json()
    assert opened["result"] == {
        "kind": "dice_revealed",
        "version": "hmac-sha256-1",
        "commitment": proof["commitment"],
        "secret": secret.hex(),
        "first_sequence": 2,
        "last_sequence": 2,
    }
    # The next secret rolls from the event after the reveal (sequence 3) on: 4.
    successor = await secret_of(client, encounter)
    assert successor != secret
    assert opened["commitment"] == {
        "version": "hmac-sha256-1",
        "commitment": hashlib.sha256(successor).hexdigest(),
        "first_sequence": 4,
    }
    assert (await (await client.get(base)).json())["dice"] == opened["commitment"]
    reveal_event = (await events_of(client, encounter))[-1]
    assert reveal_event["type"] == "dice_revealed" and "actor" not in reveal_event
    assert reveal_event["result"] == opened["result"]

    report = verify(await events_of(client, encounter))
    assert report.ok
    checked = next(e for e in report.events if e.type == "attack")
    assert (checked.status, checked.verified) == (
        "verified",
        sum(len(r["values"]) for r in proof["rolls"]),
    )


async def test_no_undo_goes_past_a_reveal_and_the_end_reveals_the_last_secret(
    store_client: Any,
) -> None:
    client = store_client
    encounter, tokens = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    assert (await client.post(f"{base}/attacks", json=sr5.attack())).status == 201
    player = {"Authorization": f"Bearer {tokens['player']}"}
    refused = await client.post(f"{base}/dice/reveal", headers=player)
    assert refused.status == 403
    assert (await client.post(f"{base}/dice/reveal", json={})).status == 201
    undone = await client.post(f"{base}/undo")
    assert undone.status == 409
    assert (await undone.json())["type"] == PROBLEM + "cannot-undo"
    # After the reveal, a change is undone as ever (its dice are not rolled again).
    second = await secret_of(client, encounter)
    attacked = await (await client.post(f"{base}/attacks", json=sr5.attack())).json()
    assert (await client.post(f"{base}/undo")).status == 200
    assert await secret_of(client, encounter) == second
    assert (await client.delete(base)).status == 204
    events = await events_of(client, encounter)
    ended = events[-1]
    assert ended["type"] == "encounter_ended"
    assert ended["result"]["secret"] == second.hex()
    assert ended["result"]["commitment"] == hashlib.sha256(second).hexdigest()
    rolled = [e for e in events if e["type"] == "attack"]
    assert rolled[1]["dice"]["commitment"] == ended["result"]["commitment"]
    assert rolled[1]["dice"]["sequence"] == attacked["changes"]["version"] == 4
    assert verify(events).ok


async def test_a_request_that_gives_a_seed_replays_it_as_before(memory_client: Any) -> None:
    encounter, _ = await new_encounter(memory_client)
    body = sr5.attack(seed=20261130)
    answer = await (
        await memory_client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    ).json()
    assert answer["result"] == resolved("sr5", "sam", [], body)
    event = (await events_of(memory_client, encounter))[-1]
    assert event["dice"] == {"version": "mt19937-1"}
    report = verify([event])
    assert (report.ok, report.events[0].status) == (True, "unverifiable")


async def test_a_players_seed_out_of_bounds_is_refused_naming_it(memory_client: Any) -> None:
    encounter, _ = await new_encounter(memory_client)
    base = f"/v1/encounters/{encounter}"
    # Past its length, a limit of the service (422, as every such limit); not text, a typo.
    for seed, status, kind in (
        ("x" * 65, 422, "limit-exceeded"),
        ("", 400, "validation"),
        ("two\nlines", 400, "validation"),
        ("café", 400, "validation"),
    ):
        refused = await memory_client.post(f"{base}/attacks", json=sr5.attack(client_seed=seed))
        assert refused.status == status, seed
        problem = await refused.json()
        assert (problem["type"], problem["path"]) == (PROBLEM + kind, "$.client_seed")
    assert (await (await memory_client.get(base)).json())["version"] == 1
    # At the bound it is taken.
    accepted = await memory_client.post(f"{base}/attacks", json=sr5.attack(client_seed="~" * 64))
    assert accepted.status == 201


async def test_an_encounter_from_before_secrets_rolls_seeded_until_its_gm_reveals(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter, _ = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    store = client.app[STORE]
    # The encounter as an earlier version stored it: no secret.
    edited = b'{"type":"state_edited","encounter":"' + encounter.encode() + b'","at":"x"}'
    await store.commit(encounter, 1, {}, ["dice"], edited)
    assert (await (await client.get(base)).json())["dice"] is None
    assert (await client.post(f"{base}/attacks", json=sr5.attack())).status == 201
    assert (await events_of(client, encounter))[-1]["dice"] == {"version": "mt19937-1"}
    revealed = await (await client.post(f"{base}/dice/reveal")).json()
    assert revealed["result"] is None
    assert revealed["commitment"]["first_sequence"] == 5
    assert (await client.post(f"{base}/attacks", json=sr5.attack())).status == 201
    events = await events_of(client, encounter)
    assert events[-1]["dice"]["version"] == "hmac-sha256-1"
    assert events[-1]["dice"]["sequence"] == 5
    report = verify(events)
    assert report.ok
    assert [e.status for e in report.events if e.type == "attack"] == [
        "unverifiable",
        "unverifiable",
    ]


async def test_a_tokens_own_seed_goes_into_its_requests_that_give_none(memory_client: Any) -> None:
    client = memory_client
    created = await client.post("/v1/encounters", json={"ruleset": "sr5", "sheet_policy": "typed"})
    body = await created.json()
    encounter, player = body["id"], {"Authorization": f"Bearer {body['tokens']['player']}"}
    base = f"/v1/encounters/{encounter}"
    secret = await secret_of(client, encounter)
    set_seed = await client.put(
        f"{base}/dice/client-seed", json={"client_seed": "my lucky phrase"}, headers=player
    )
    assert set_seed.status == 200, await set_seed.text()
    answer = await set_seed.json()
    assert answer["result"] == {
        "kind": "dice_seeded",
        "token": "player",
        "player": None,
        "has_seed": True,
    }
    # The seed itself is in no event until a roll records it.
    assert "my lucky phrase" not in json.dumps(await events_of(client, encounter))
    for headers, asked, used in (
        (player, {}, "my lucky phrase"),
        (player, {"client_seed": "this one"}, "this one"),
        (None, {}, None),
    ):
        attacked = await client.post(f"{base}/attacks", json=sr5.attack(**asked), headers=headers)
        assert attacked.status == 201, await attacked.text()
        proof = (await events_of(client, encounter))[-1]["dice"]
        assert proof.get("client_seed") == used
        attack = next(r for r in proof["rolls"] if r["step"] == "attack")
        assert attack["values"] == faces(
            secret, encounter, proof["sequence"], "attack", used or "", 10
        )
    cleared = await client.put(
        f"{base}/dice/client-seed", json={"client_seed": None}, headers=player
    )
    assert (await cleared.json())["result"]["has_seed"] is False
    assert (await client.post(f"{base}/attacks", json=sr5.attack(), headers=player)).status == 201
    assert "client_seed" not in (await events_of(client, encounter))[-1]["dice"]
    refused = await client.put(
        f"{base}/dice/client-seed", json={"client_seed": "a\tb"}, headers=player
    )
    problem = await refused.json()
    assert (refused.status, problem["path"]) == (400, "$.client_seed")
    assert verify(await events_of(client, encounter), [secret]).ok


async def test_an_attack_resolved_again_after_a_lost_write_rolls_for_its_new_sequence(
    memory_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another change lands between the attack's resolution and its write: the write is lost,
    the attack is resolved again on the newer state, and its dice are derived for the sequence
    its event gets (3), not the one it first tried (2)."""
    client = memory_client
    encounter, _ = await new_encounter(client)
    secret = await secret_of(client, encounter)
    store = client.app[STORE]
    real = store.commit
    other = b'{"type":"state_edited","encounter":"' + encounter.encode() + b'","at":"x"}'
    tried: list[int] = []

    async def commit(encounter_id: str, expected: int, *args: Any, **kwargs: Any) -> Any:
        if not tried:
            await real(encounter_id, expected, {}, [], other)
        tried.append(expected)
        return await real(encounter_id, expected, *args, **kwargs)

    monkeypatch.setattr(store, "commit", commit)
    body = sr5.attack(client_seed="x")
    answer = await (await client.post(f"/v1/encounters/{encounter}/attacks", json=body)).json()
    assert tried == [1, 2]
    proof = (await events_of(client, encounter))[-1]["dice"]
    assert answer["changes"]["version"] == proof["sequence"] == 3
    attack = next(r for r in proof["rolls"] if r["step"] == "attack")
    assert attack["values"] == faces(secret, encounter, 3, "attack", "x", 10)
    assert attack["values"] != faces(secret, encounter, 2, "attack", "x", 10)
