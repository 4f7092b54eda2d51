"""Issue 10, "An encounter can be bricked": what a change writes is checked before it is
committed, counters stop where the rules stop caring, the state keeps only what the rules need
next, and a stored state this version cannot use fails only the requests that need it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from schemas.encounter import EncounterState, TurnState
from schemas.sr5 import SR5ActorState, SR5State
from service.api.app import STORE
from service.rules.sr5 import tables
from service.store import Committed
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_trust import bearer, open_table

RIFLE = make.weapon(category="assault_rifle", modes=["FA"], ammo=1000, rc=0)


async def version_of(client: Any, encounter: str) -> int:
    view = await client.get(f"/v1/encounters/{encounter}", headers=bearer(ADMIN_KEY))
    return int((await view.json())["version"])


async def test_a_player_aiming_again_and_again_cannot_brick_the_encounter(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    player = bearer(tokens["player"])
    aim = {"actor": "sam", "action": "take_aim", "aim_for": "accuracy"}
    # One past the schema's bound for aims: the state used to break there.
    for _ in range(101):
        response = await anonymous.post(
            f"/v1/encounters/{encounter}/actions", json=aim, headers=player
        )
        assert response.status == 201, await response.text()
    last = await response.json()
    assert last["result"]["effects"] == [
        f"aimed for accuracy ({tables.MAX_AIMS} so far; no Willpower takes more)"
    ]
    for path in ("", "/events", "/zones"):
        read = await anonymous.get(f"/v1/encounters/{encounter}{path}", headers=player)
        assert read.status == 200, await read.text()
    view = await (await anonymous.get(f"/v1/encounters/{encounter}", headers=player)).json()
    assert view["combat"]["actors"]["sam"]["aims_for_accuracy"] == tables.MAX_AIMS
    # The aim still counts as the rules say: half of Willpower 6 is 3.
    shot = await anonymous.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(attacker=make.attacker(willpower=6)),
        headers=player,
    )
    assert shot.status == 201, await shot.text()
    limits = {m["source"]: m["value"] for m in (await shot.json())["result"]["limit_modifiers"]}
    assert limits["aimed"] == 3


async def test_recoil_past_any_pool_stops_counting_and_the_encounter_stays_readable(
    client: Any,
) -> None:
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    edit = {"combat": {"ruleset": "sr5", "actors": {"sam": {"recoil_rounds": 99_995}}}}
    assert (await client.put(f"{base}/state", json=edit)).status == 201
    body = make.attack(mode="FA", weapon=RIFLE)
    shot = await client.post(f"{base}/attacks", json=body)
    assert shot.status == 201, await shot.text()
    # The shot itself counts every round; what is kept stops where no pool is left.
    assert (await shot.json())["result"]["recoil"]["rounds_total"] == 100_001
    view = await client.get(base)
    assert view.status == 200, await view.text()
    assert (await view.json())["combat"]["actors"]["sam"]["recoil_rounds"] == (
        tables.MAX_RECOIL_ROUNDS
    )


async def test_a_change_that_would_leave_the_state_out_of_bounds_is_refused_and_writes_nothing(
    client: Any,
) -> None:
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    last_turn = {"combat_turn": 1_000_000}  # the bound of TurnState.combat_turn
    assert (await client.put(f"{base}/state", json={"turn": last_turn})).status == 201
    before = await version_of(client, encounter)
    refused = await client.post(f"{base}/advance", json={"to": "combat_turn"})
    assert refused.status == 422, await refused.text()
    problem = await refused.json()
    assert problem["type"].endswith("/state-out-of-bounds")
    assert problem["path"] == "$.turn.combat_turn"
    assert await version_of(client, encounter) == before
    events = await (await client.get(f"{base}/events")).json()
    assert [e["type"] for e in events["events"]][-1] == "state_edited"


async def test_an_attack_keeps_its_request_in_its_event_not_in_the_state(client: Any) -> None:
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    body = make.attack(dice={"attack": [5] * 10, "defense:goon-1": [1] * 6})
    outcome = await (await client.post(f"{base}/attacks", json=body)).json()
    view = await (await client.get(base)).json()
    assert view["combat"]["actors"]["sam"]["last_attack"] == {"second_chances": []}
    events = await (await client.get(f"{base}/events")).json()
    event = events["events"][-1]
    assert event["id"] == outcome["event_id"]
    kept = event["request"]
    # As asked, but for the given dice: they are in the result, with the step they were for.
    assert kept["dice"] == {}
    for part in ("attacker", "weapon"):  # with the defaults of what was left out
        assert kept[part] == {**kept[part], **body[part]}
    assert kept["mode"] == body["mode"]
    assert kept["targets"][0]["id"] == "goon-1"
    assert [roll["values"] for roll in event["result"]["dice"]][:2] == [[5] * 10, [1] * 6]


async def test_many_attackers_keep_the_state_and_every_answer_small(client: Any) -> None:
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    sizes = []
    for number in range(60):
        # The same attack by a new shooter on a new target each time: only the state grows.
        body = make.attack(
            attacker=make.attacker(id=f"shooter-{number:02d}"),
            targets=[make.target(id=f"goon-{number:02d}")],
            seed=1,
        )
        response = await client.post(f"{base}/attacks", json=body)
        assert response.status == 201, await response.text()
        sizes.append(len(await response.read()))
    # The answer holds the result and what it changed, so the 60th is as small as the first.
    assert max(sizes) < 1.2 * min(sizes)
    state = await (await client.get(base)).read()
    # About a hundred bytes an actor: what the rules need next, no history.
    assert len(state) < 60 * 250


async def test_a_state_past_its_size_limit_is_refused_with_limit_exceeded(
    make_client: Any,
) -> None:
    client = await make_client(max_state_bytes=16 * 1024)
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    refused = None
    for number in range(400):
        body = make.attack(attacker=make.attacker(id=f"shooter-{number:03d}-{'x' * 40}"))
        response = await client.post(f"{base}/attacks", json=body)
        if response.status != 201:
            refused = response
            break
    assert refused is not None, "16 KiB held 400 actors"
    assert refused.status == 422, await refused.text()
    assert (await refused.json())["type"].endswith("/limit-exceeded")
    before = await version_of(client, encounter)
    again = await client.post(f"{base}/attacks", json=body)
    assert again.status == 422
    assert await version_of(client, encounter) == before


async def stored_out_of_bounds(client: Any, encounter: str) -> None:
    """A state as an older or newer version may have left it: an aim count past the bound."""
    store = client.app[STORE]
    stored = await store.load(encounter)
    head = msgspec.msgpack.decode(stored.fields["head"])
    head["actors"] = ["sam"]
    written = await store.commit(
        encounter,
        stored.version,
        {
            "head": msgspec.msgpack.encode(head),
            "a:sam": msgspec.msgpack.encode(SR5ActorState(aims_for_accuracy=500)),
        },
        (),
        b'{"type":"state_edited","encounter":"' + encounter.encode() + b'","at":"x"}',
    )
    assert isinstance(written, Committed)


async def stored_by_an_earlier_version(client: Any, encounter: str) -> None:
    """The whole state in one field, as earlier versions kept it, with the same aim count."""
    store = client.app[STORE]
    stored = await store.load(encounter)
    head = msgspec.msgpack.decode(stored.fields["head"])
    state = EncounterState(
        id=encounter,
        ruleset="sr5",
        name="docks",
        created_at="2026-01-01T00:00:00.000+00:00",
        turn=TurnState(),
        combat=SR5State(actors={"sam": SR5ActorState(aims_for_accuracy=500)}),
        token_hashes=head["token_hashes"],
    )
    written = await store.commit(
        encounter,
        stored.version,
        {"doc": msgspec.msgpack.encode(state)},
        list(stored.fields),
        b'{"type":"state_edited","encounter":"' + encounter.encode() + b'","at":"x"}',
    )
    assert isinstance(written, Committed)


@pytest.mark.parametrize("stored_by", [stored_out_of_bounds, stored_by_an_earlier_version])
async def test_a_stored_state_out_of_bounds_fails_only_what_needs_it(
    anonymous: Any, stored_by: Callable[[Any, str], Awaitable[None]]
) -> None:
    encounter, tokens = await open_table(anonymous)
    gm, player = bearer(tokens["gm"]), bearer(tokens["player"])
    base = f"/v1/encounters/{encounter}"
    await stored_by(anonymous, encounter)
    # A stranger is refused as for any encounter: the state is never decoded for it.
    stranger = await anonymous.get(base, headers=bearer("not-a-token-of-this-table"))
    assert stranger.status == 401
    # Reading: the state as stored, with what does not fit and where.
    for who in (gm, player):
        view = await anonymous.get(base, headers=who)
        assert view.status == 200, await view.text()
        shown = await view.json()
        assert shown["combat"]["actors"]["sam"]["aims_for_accuracy"] == 500
        assert shown["problem"]["path"] == "$.combat.actors[...].aims_for_accuracy"
    events = await anonymous.get(f"{base}/events", headers=player)
    assert events.status == 200
    # What needs the state says so, and names the field (no 400 blaming the request).
    shot = await anonymous.post(f"{base}/attacks", json=make.attack(), headers=player)
    assert shot.status == 409, await shot.text()
    problem = await shot.json()
    assert problem["type"].endswith("/stored-state-invalid")
    assert problem["path"] == "$.combat.actors[...].aims_for_accuracy"
    # A turn-only edit needs the combat state too; the GM replaces the combat state instead.
    edit = {"combat": {"ruleset": "sr5", "actors": {"sam": {"aims_for_accuracy": 2}}}}
    fixed = await anonymous.put(f"{base}/state", json=edit, headers=gm)
    assert fixed.status == 201, await fixed.text()
    shot = await anonymous.post(f"{base}/attacks", json=make.attack(), headers=player)
    assert shot.status == 201, await shot.text()


async def test_the_gm_can_end_an_encounter_whose_state_is_out_of_bounds(anonymous: Any) -> None:
    encounter, tokens = await open_table(anonymous)
    await stored_out_of_bounds(anonymous, encounter)
    ended = await anonymous.delete(f"/v1/encounters/{encounter}", headers=bearer(tokens["gm"]))
    assert ended.status == 204, await ended.text()


@pytest.mark.parametrize("encounter_exists", [True, False])
async def test_a_wrong_token_gets_the_same_answer_whether_or_not_the_encounter_exists(
    anonymous: Any, encounter_exists: bool
) -> None:
    encounter, _ = await open_table(anonymous)
    target = encounter if encounter_exists else "0" * 32
    response = await anonymous.get(f"/v1/encounters/{target}", headers=bearer("guess-" + "x" * 20))
    assert response.status == 401
    problem = await response.json()
    assert problem["detail"] == (
        "that token opens no encounter with this id (a wrong token, or an encounter that expired)"
    )
    # Only the admin key learns that an encounter does not exist.
    if not encounter_exists:
        missing = await anonymous.get(f"/v1/encounters/{target}", headers=bearer(ADMIN_KEY))
        assert missing.status == 404
