"""Who may do what, and exactly-once state changes with Idempotency-Key."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_events_live import receive

PROBLEM = "application/problem+json"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def open_table(client: Any) -> tuple[str, dict[str, str]]:
    """An SR5 encounter whose players type their own numbers, as at a VTT that keeps its own
    sheets (tests/test_sight.py has the scene's sheets and what players may name there)."""
    body = {"ruleset": "sr5", "name": "docks", "sheet_policy": "typed"}
    response = await client.post("/v1/encounters", json=body, headers=bearer(ADMIN_KEY))
    assert response.status == 201
    created = await response.json()
    return created["id"], created["tokens"]


# --- who may do what -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        bearer("wrong-key-0123456789"),
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer "},
    ],
    ids=["none", "wrong", "basic", "empty"],
)
async def test_creating_needs_the_admin_key(anonymous: Any, headers: dict[str, str]) -> None:
    response = await anonymous.post("/v1/encounters", json={"ruleset": "sr5"}, headers=headers)
    assert response.status == 401
    assert response.content_type == PROBLEM
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


async def test_an_encounters_tokens_cannot_create_encounters(anonymous: Any) -> None:
    _, tokens = await open_table(anonymous)
    for token in tokens.values():
        response = await anonymous.post(
            "/v1/encounters", json={"ruleset": "sr5"}, headers=bearer(token)
        )
        assert response.status == 401


async def test_the_player_token_plays_and_reads_but_does_not_run_the_table(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    player = bearer(tokens["player"])
    base = f"/v1/encounters/{encounter}"
    assert (
        await anonymous.post(f"{base}/attacks", json=make.attack(), headers=player)
    ).status == 201
    action = {"actor": "sam", "action": "other"}
    assert (await anonymous.post(f"{base}/actions", json=action, headers=player)).status == 201
    assert (await anonymous.get(base, headers=player)).status == 200
    assert (await anonymous.get(f"{base}/events", headers=player)).status == 200
    advance = await anonymous.post(f"{base}/advance", json={"to": "combat_turn"}, headers=player)
    assert advance.status == 403
    assert (await advance.json())["type"].endswith("/forbidden")
    assert (await anonymous.delete(base, headers=player)).status == 403
    # Refused requests changed nothing.
    assert (await (await anonymous.get(base, headers=player)).json())["turn"]["combat_turn"] == 1


async def test_the_gm_token_does_everything_on_its_encounter(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    gm = bearer(tokens["gm"])
    base = f"/v1/encounters/{encounter}"
    assert (await anonymous.post(f"{base}/attacks", json=make.attack(), headers=gm)).status == 201
    advance = await anonymous.post(f"{base}/advance", json={"to": "combat_turn"}, headers=gm)
    assert advance.status == 201
    assert (await anonymous.delete(base, headers=gm)).status == 204


async def test_no_wrong_or_another_encounters_token_is_refused(anonymous: Any) -> None:
    encounter, _ = await open_table(anonymous)
    _, other_tokens = await open_table(anonymous)
    base = f"/v1/encounters/{encounter}"
    for headers in ({}, bearer("nope-nope-nope-nope"), bearer(other_tokens["gm"])):
        for method, path, body in (
            ("GET", base, None),
            ("GET", f"{base}/events", None),
            ("POST", f"{base}/attacks", make.attack()),
            ("POST", f"{base}/actions", {"actor": "sam", "action": "other"}),
            ("POST", f"{base}/advance", {"to": "combat_turn"}),
            ("DELETE", base, None),
            ("GET", f"{base}/ws", None),
        ):
            response = await anonymous.request(method, path, json=body, headers=headers)
            assert response.status == 401, (method, path, headers)
            assert response.content_type == PROBLEM


async def test_the_websocket_takes_the_token_as_a_header_or_a_query(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    base = f"/v1/encounters/{encounter}/ws"
    by_query = await anonymous.ws_connect(f"{base}?token={tokens['player']}")
    assert (await receive(by_query))["type"] == "encounter_created"
    await by_query.close()
    by_header = await anonymous.ws_connect(base, headers=bearer(tokens["gm"]))
    assert (await receive(by_header))["type"] == "encounter_created"
    await by_header.close()
    refused = await anonymous.get(f"{base}?token=guess")
    assert refused.status == 401


async def test_a_bad_validation_still_needs_a_token_first(anonymous: Any) -> None:
    encounter, _ = await open_table(anonymous)
    response = await anonymous.post(f"/v1/encounters/{encounter}/attacks", json={"junk": 1})
    assert response.status == 401


# --- exactly once ----------------------------------------------------------------------------


async def test_a_retry_with_the_same_key_returns_the_first_answer_and_changes_nothing(
    client: Any,
) -> None:
    encounter, tokens = await open_table(client)
    headers = {**bearer(tokens["player"]), "Idempotency-Key": str(uuid.uuid4())}
    path = f"/v1/encounters/{encounter}/attacks"
    first = await client.post(path, json=make.attack(), headers=headers)
    assert first.status == 201
    assert "Idempotent-Replayed" not in first.headers
    retry = await client.post(path, json=make.attack(), headers=headers)
    assert retry.status == 201
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert await retry.read() == await first.read()
    state = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert state["combat"]["actors"]["sam"]["recoil_rounds"] == 1
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    assert [e["type"] for e in events["events"]] == ["encounter_created", "attack"]


async def test_the_same_key_with_another_body_is_422(client: Any) -> None:
    encounter, _ = await open_table(client)
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    path = f"/v1/encounters/{encounter}/attacks"
    assert (await client.post(path, json=make.attack(), headers=headers)).status == 201
    other = await client.post(
        path, json=make.attack(mode="SS", weapon=make.weapon(modes=["SS"])), headers=headers
    )
    assert other.status == 422
    problem = await other.json()
    assert problem["type"].endswith("/idempotency-key-reused")
    assert problem["path"] == "Idempotency-Key"
    # Used on another endpoint, it is another request too.
    action = await client.post(
        f"/v1/encounters/{encounter}/actions",
        json={"actor": "sam", "action": "other"},
        headers=headers,
    )
    assert action.status == 422


async def test_a_refused_request_does_not_hold_its_key(client: Any) -> None:
    encounter, _ = await open_table(client)
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    path = f"/v1/encounters/{encounter}/attacks"
    bad = make.attack(mode="FA")  # the weapon has no FA
    assert (await client.post(path, json=bad, headers=headers)).status == 422
    assert (await client.post(path, json=bad, headers=headers)).status == 422  # not 409
    assert (await client.post(path, json=make.attack(), headers=headers)).status == 201


async def test_concurrent_duplicates_resolve_once_and_others_wait_or_replay(client: Any) -> None:
    encounter, _ = await open_table(client)
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    path = f"/v1/encounters/{encounter}/attacks"
    answers = await asyncio.gather(
        *(client.post(path, json=make.attack(), headers=headers) for _ in range(12))
    )
    statuses = sorted(a.status for a in answers)
    assert set(statuses) <= {201, 409}
    bodies = {await a.read() for a in answers if a.status == 201}
    assert len(bodies) == 1
    for conflict in (a for a in answers if a.status == 409):
        assert (await conflict.json())["type"].endswith("/idempotency-key-in-use")
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    assert [e["type"] for e in events["events"]] == ["encounter_created", "attack"]


async def test_creating_with_a_key_twice_gives_the_same_encounter_and_tokens(client: Any) -> None:
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    first = await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=headers)
    retry = await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=headers)
    assert (first.status, retry.status) == (201, 201)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert await first.json() == await retry.json()
    created = await first.json()
    # The replayed tokens work.
    gm = bearer(created["tokens"]["gm"])
    assert (await client.get(f"/v1/encounters/{created['id']}", headers=gm)).status == 200
    other = await client.post(
        "/v1/encounters", json={"ruleset": "sr5", "name": "x"}, headers=headers
    )
    assert other.status == 422


@pytest.mark.parametrize("key", ["", "x" * 256, "naïve-key"])
async def test_a_malformed_key_is_400(client: Any, key: str) -> None:
    encounter, _ = await open_table(client)
    response = await client.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(),
        headers={"Idempotency-Key": key} if key else {"Idempotency-Key": ""},
    )
    assert response.status == 400
    assert (await response.json())["path"] == "Idempotency-Key"


async def test_a_creation_key_whose_answer_expired_is_refused_not_reused(
    make_client: Any,
) -> None:
    from service.api.app import STORE
    from service.store.memory import MemoryStore

    client = await make_client()
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    assert (await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=headers)).ok
    store = client.server.app[STORE]
    assert isinstance(store, MemoryStore)
    for encounter in store._encounters.values():  # the kept answers expire after 24 h
        encounter.keys.clear()
    again = await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=headers)
    assert again.status == 422
    assert (await again.json())["type"].endswith("/idempotency-key-reused")


# --- the GM corrects the table ----------------------------------------------------------------


async def test_the_gm_sets_turn_and_recoil_by_hand_and_it_is_an_event(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    gm, player = bearer(tokens["gm"]), bearer(tokens["player"])
    base = f"/v1/encounters/{encounter}"
    # Two hits, so the goon rolls a defense and the state keeps it (a miss leaves no defense:
    # with dice left to chance, 1 attack in 60 missed and this test failed).
    hits = make.attack(dice={"attack": [5, 6, 2, 2, 2, 2, 2, 2, 2, 2]})
    assert (await anonymous.post(f"{base}/attacks", json=hits, headers=player)).ok
    edit = {
        "turn": {"combat_turn": 3, "initiative_pass": 2, "action_phase": "sam", "phase": 5},
        "combat": {"ruleset": "sr5", "actors": {"sam": {"recoil_rounds": 0}}},
        "reason": "forgot Sam took cover",
    }
    refused = await anonymous.put(f"{base}/state", json=edit, headers=player)
    assert refused.status == 403
    response = await anonymous.put(f"{base}/state", json=edit, headers=gm)
    assert response.status == 201
    outcome = await response.json()
    assert outcome["result"] == {
        "kind": "state_edit",
        "changed": ["turn", "combat"],
        "reason": "forgot Sam took cover",
    }
    # The turn as set, and the service runs no initiative (none was given).
    assert outcome["changes"]["turn"] == {**edit["turn"], "initiative": None}
    # Sam's recoil and last-attack mark are gone; the defender the attack touched is removed.
    assert outcome["changes"]["combat"]["actors"] == {"sam": {}}
    assert outcome["changes"]["removed"] == {"actors": ["goon-1"]}
    page = await (await anonymous.get(f"{base}/events", headers=player)).json()
    assert page["events"][-1]["type"] == "state_edited"
    # Only the turn: the combat state stays as it was.
    turn_only = await anonymous.put(f"{base}/state", json={"turn": {"combat_turn": 4}}, headers=gm)
    # A whole TurnState replaces the turn (its fields not given take their defaults).
    assert (await turn_only.json())["changes"] == {
        "version": 4,
        "turn": {
            "combat_turn": 4,
            "initiative_pass": 1,
            "action_phase": None,
            "phase": 0,
            "initiative": None,
        },
    }
    view = await (await anonymous.get(base, headers=gm)).json()
    assert view["combat"]["actors"] == {"sam": {}}


@pytest.mark.parametrize(
    ("body", "status", "path"),
    [
        ({}, 422, "$"),
        ({"turn": {"combat_turn": 0}}, 400, "$.turn.combat_turn"),
        (
            {"combat": {"ruleset": "sr5", "actors": {"sam": {"recoil_rounds": -1}}}},
            400,
            "$.combat.actors[...].recoil_rounds",
        ),
        # Another ruleset's state, and one the service does not know.
        ({"combat": {"ruleset": "d100"}}, 422, "$.combat.ruleset"),
        ({"combat": {"ruleset": "sr3"}}, 422, "$.combat.ruleset"),
        ({"combat": {"ruleset": "sr4"}}, 422, "$.combat.ruleset"),
        ({"combat": {"ruleset": "sr6"}}, 400, "$.combat.ruleset"),
        ({"combat": {"actors": {}}}, 400, "$.combat.ruleset"),
        ({"turn": {"combat_turn": 2, "round": 1}}, 400, "$.turn.round"),
    ],
)
async def test_bad_state_edits_are_refused_and_change_nothing(
    client: Any, body: Any, status: int, path: str
) -> None:
    encounter, _ = await open_table(client)
    response = await client.put(f"/v1/encounters/{encounter}/state", json=body)
    assert response.status == status, await response.text()
    assert (await response.json())["path"] == path
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["version"] == 1


async def test_a_state_edit_with_a_number_too_large_to_keep_is_refused(client: Any) -> None:
    encounter, _ = await open_table(client)
    huge = 10**30
    body = (
        b'{"combat": {"ruleset": "sr5", "actors": {"sam": {"recoil_rounds": '
        + str(huge).encode()
        + b"}}}}"
    )
    response = await client.put(
        f"/v1/encounters/{encounter}/state",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 400, await response.text()
    problem = await response.json()
    assert problem["path"] == "$.combat.actors[...].recoil_rounds"
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["version"] == 1
