"""Issue 11, the scene in the service: one shared table of actors (who controls them, whether
players see them, where they stand and how, their ruleset's sheet), every change an event."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests import sr5_requests as make
from tests.test_trust import bearer, open_table

SAM = {
    "name": "Sam",
    "controller": "player-1",
    "position": {"x": 0.0, "y": 0.0},
    "posture": {"cover": "partial"},
    "sheet": {
        "ruleset": "sr5",
        "agility": 6,
        "strength": 4,
        "skill": 6,
        "reaction": 4,
        "intuition": 4,
        "body": 4,
        "armor": 9,
        "weapons": [make.weapon(id="predator", category="heavy_pistol", modes=["SA"], ammo=15)],
    },
}
GANGER = {"name": "Ganger", "hidden": True, "position": {"x": 12.0, "y": 3.0}}


async def table(anonymous: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    encounter, tokens = await open_table(anonymous)
    return f"/v1/encounters/{encounter}", bearer(tokens["gm"]), bearer(tokens["player"])


async def events_of(client: Any, base: str, who: dict[str, str]) -> list[dict[str, Any]]:
    page = await (await client.get(f"{base}/events", headers=who)).json()
    return [event for event in page["events"] if event["type"] == "scene"]


async def test_the_gm_sets_an_actor_and_everyone_reads_the_same_scene(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    response = await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    assert response.status == 200, await response.text()
    outcome = await response.json()
    assert outcome["result"]["kind"] == "scene"
    assert (outcome["result"]["change"], outcome["result"]["actor"]) == ("set", "sam")
    stored = outcome["result"]["state"]
    assert stored["sheet"]["weapons"][0]["id"] == "predator"
    assert stored["posture"] == {
        "prone": False,
        "cover": "partial",
        "running": False,
        "aware": True,
    }
    assert outcome["changes"]["scene"] == {"sam": stored}
    for who in (gm, player):
        listed = await (await anonymous.get(f"{base}/actors", headers=who)).json()
        assert listed == {"actors": {"sam": stored}}
        one = await (await anonymous.get(f"{base}/actors/sam", headers=who)).json()
        assert one == stored
        view = await (await anonymous.get(base, headers=who)).json()
        assert view["scene"] == {"sam": stored}
    (event,) = await events_of(anonymous, base, player)
    assert event["actor"] == "sam"
    assert event["result"] == outcome["result"]
    assert event["id"] == outcome["event_id"]


async def test_a_patch_changes_only_what_it_gives(anonymous: Any) -> None:
    base, gm, _ = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    patched = await anonymous.patch(
        f"{base}/actors/sam",
        json={"name": "Sam the Sharp", "posture": {"prone": True}, "position": None},
        headers=gm,
    )
    assert patched.status == 200, await patched.text()
    actor = (await patched.json())["result"]["state"]
    assert actor["name"] == "Sam the Sharp"
    assert actor["posture"]["prone"] is True
    assert actor["posture"]["cover"] == "none"  # a posture given replaces the posture
    assert actor["position"] is None
    # The sheet was not given: it stays as it was.
    sheet = actor["sheet"]
    assert (sheet["agility"], sheet["armor"], sheet["weapons"][0]["ammo"]) == (6, 9, 15)
    assert actor["controller"] == "player-1"


async def test_a_player_moves_and_everyone_sees_the_move(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    async with anonymous.ws_connect(f"{base}/ws", headers=gm) as watcher:
        first = [await watcher.receive_json(timeout=5) for _ in range(2)]
        assert [e["type"] for e in first] == ["encounter_created", "scene"]
        moved = await anonymous.post(
            f"{base}/actors/sam/move", json={"position": {"x": 4.5, "y": -2.0}}, headers=player
        )
        assert moved.status == 201, await moved.text()
        live = await watcher.receive_json(timeout=5)
    assert live["result"]["change"] == "moved"
    assert live["result"]["state"]["position"] == {"x": 4.5, "y": -2.0}
    actor = await (await anonymous.get(f"{base}/actors/sam", headers=gm)).json()
    assert actor["position"] == {"x": 4.5, "y": -2.0}


async def test_the_gm_takes_an_actor_off_the_scene(anonymous: Any) -> None:
    base, gm, _ = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    removed = await anonymous.delete(f"{base}/actors/sam", headers=gm)
    assert removed.status == 200, await removed.text()
    outcome = await removed.json()
    assert outcome["result"] == {"kind": "scene", "change": "removed", "actor": "sam"}
    assert outcome["changes"]["removed"] == {"scene": ["sam"]}
    missing = await anonymous.get(f"{base}/actors/sam", headers=gm)
    assert missing.status == 404
    assert (await missing.json())["type"].endswith("/actor-not-found")
    again = await anonymous.delete(f"{base}/actors/sam", headers=gm)
    assert again.status == 404


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("put", "/actors/sam", SAM),
        ("patch", "/actors/sam", {"name": "x"}),
        ("delete", "/actors/sam", None),
    ],
)
async def test_only_the_gm_sets_patches_and_removes_actors(
    anonymous: Any, method: str, path: str, body: Any
) -> None:
    base, gm, player = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    refused = await getattr(anonymous, method)(f"{base}{path}", json=body, headers=player)
    assert refused.status == 403
    assert await events_of(anonymous, base, gm) != []
    assert len(await events_of(anonymous, base, gm)) == 1


@pytest.mark.parametrize(
    ("path", "body", "status", "where"),
    [
        ("/actors/sam", {**SAM, "sheet": {"ruleset": "d100"}}, 422, "$.sheet.ruleset"),
        (
            "/actors/sam",
            {**SAM, "sheet": {"ruleset": "sr5", "agility": 99}},
            400,
            "$.sheet.agility",
        ),
        ("/actors/sam", {**SAM, "speed": 3}, 400, "$.speed"),
        ("/actors/sam%0A", SAM, 400, "actor"),
        ("/actors/" + "x" * 65, SAM, 400, "actor"),
    ],
)
async def test_a_bad_actor_is_refused_naming_the_field(
    anonymous: Any, path: str, body: Any, status: int, where: str
) -> None:
    base, gm, _ = await table(anonymous)
    response = await anonymous.put(f"{base}{path}", json=body, headers=gm)
    assert response.status == status, await response.text()
    assert (await response.json())["path"] == where
    assert await events_of(anonymous, base, gm) == []


async def test_moving_or_patching_an_actor_not_on_the_scene_is_404(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    move = {"position": {"x": 1.0, "y": 1.0}}
    for who in (gm, player):
        response = await anonymous.post(f"{base}/actors/nobody/move", json=move, headers=who)
        assert response.status == 404
    patched = await anonymous.patch(f"{base}/actors/nobody", json={"name": "x"}, headers=gm)
    assert patched.status == 404


async def test_hidden_actors_stay_the_gms_until_revealed(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    hidden = await anonymous.put(f"{base}/actors/ganger", json=GANGER, headers=gm)
    assert hidden.status == 200
    # Players read no trace of it: not in the scene, not in the events, and they cannot move it.
    for path in ("/actors", ""):
        seen = await (await anonymous.get(f"{base}{path}", headers=player)).json()
        assert "ganger" not in (seen["actors"] if path else seen["scene"])
    assert (await anonymous.get(f"{base}/actors/ganger", headers=player)).status == 404
    move = {"position": {"x": 0.0, "y": 0.0}}
    assert (
        await anonymous.post(f"{base}/actors/ganger/move", json=move, headers=player)
    ).status == 404
    page = await (await anonymous.get(f"{base}/events", headers=player)).json()
    assert "ganger" not in str(page["events"])
    # Its next page starts past the GM's event: the cursor is the last id read.
    gm_page = await (await anonymous.get(f"{base}/events", headers=gm)).json()
    assert page["last_event_id"] == gm_page["last_event_id"]
    assert [e["actor"] for e in await events_of(anonymous, base, gm)] == ["sam", "ganger"]
    assert (await events_of(anonymous, base, gm))[-1]["gm_only"] is True
    # The GM moves it: still only the GM hears.
    await anonymous.post(f"{base}/actors/ganger/move", json=move, headers=gm)
    assert [e["actor"] for e in await events_of(anonymous, base, player)] == ["sam"]
    # Revealed: everyone sees it, whole.
    revealed = await anonymous.patch(f"{base}/actors/ganger", json={"hidden": False}, headers=gm)
    assert (await revealed.json())["result"]["change"] == "patched"
    told = (await events_of(anonymous, base, player))[-1]
    assert (told["actor"], told["result"]["state"]["name"]) == ("ganger", "Ganger")
    # Hidden again: players are told it is gone from their view, and nothing more.
    await anonymous.patch(f"{base}/actors/ganger", json={"hidden": True}, headers=gm)
    told = (await events_of(anonymous, base, player))[-1]
    assert told["result"] == {"kind": "scene", "change": "hidden", "actor": "ganger"}


async def test_a_players_socket_never_receives_what_is_hidden(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    async with anonymous.ws_connect(f"{base}/ws", headers=player) as socket:
        assert (await socket.receive_json(timeout=5))["type"] == "encounter_created"
        await anonymous.put(f"{base}/actors/ganger", json=GANGER, headers=gm)
        await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
        received = await socket.receive_json(timeout=5)
        assert received["actor"] == "sam"
        with pytest.raises(asyncio.TimeoutError):
            await socket.receive_json(timeout=0.3)


async def test_a_scene_holds_a_bounded_number_of_actors(make_client: Any) -> None:
    client = await make_client(max_actors_per_encounter=3)
    base = (await table(client))[0]
    for number in range(3):
        assert (await client.put(f"{base}/actors/a{number}", json={})).status == 200
    refused = await client.put(f"{base}/actors/a3", json={})
    assert refused.status == 422
    assert (await refused.json())["type"].endswith("/limit-exceeded")
    # Replacing one that is there is no new actor.
    assert (await client.put(f"{base}/actors/a0", json={"name": "again"})).status == 200


async def test_setting_an_actor_again_with_its_key_replays_the_answer(client: Any) -> None:
    base = (await table(client))[0]
    key = {"Idempotency-Key": "scene-1"}
    first = await client.put(f"{base}/actors/sam", json=SAM, headers=key)
    again = await client.put(f"{base}/actors/sam", json=SAM, headers=key)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert await again.json() == await first.json()
    other_actor = await client.put(f"{base}/actors/max", json=SAM, headers=key)
    assert other_actor.status == 422  # the same key for another actor is another request


async def test_a_hidden_shooter_is_someone_to_the_players_it_shoots_at(anonymous: Any) -> None:
    base, gm, player = await table(anonymous)
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    await anonymous.put(f"{base}/actors/ganger", json=GANGER, headers=gm)
    shot = make.attack(attacker=make.attacker(id="ganger"), targets=[make.target(id="sam")], seed=3)
    async with anonymous.ws_connect(f"{base}/ws", headers=player) as socket:
        assert [(await socket.receive_json(timeout=5))["type"] for _ in range(2)] == [
            "encounter_created",
            "scene",  # Sam; the hidden ganger's own event never comes
        ]
        fired = await anonymous.post(f"{base}/attacks", json=shot, headers=gm)
        assert fired.status == 201, await fired.text()
        live = await socket.receive_json(timeout=5)
    page = await (await anonymous.get(f"{base}/events", headers=player)).json()
    for seen in (live, page["events"][-1]):
        assert (seen["type"], seen["actor"], seen["result"]["attacker"]) == (
            "attack",
            "someone",
            "someone",
        )
        assert "request" not in seen
        assert "ganger" not in str(seen)
        # Sam learns what hit him.
        assert seen["result"]["targets"][0]["target"] == "sam"
    gm_page = await (await anonymous.get(f"{base}/events", headers=gm)).json()
    told = gm_page["events"][-1]
    assert (told["actor"], told["unseen_actor"], told["request"]["attacker"]["id"]) == (
        "ganger",
        True,
        "ganger",
    )
