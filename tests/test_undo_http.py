"""Issue 24: the GM's undo over HTTP, on the memory store, Redis and the cluster. The state after
an undo is compared whole (GET, but its version and last event) with the one before the change
it took back; the numbers the change moved are worked by hand beside it.

"000" is rules-sources/000_43afc0edeb7f6e19.txt; "README" is rules-sources/README.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.api.app_keys import STORE
from service.store import UndoTop
from tests import d100_requests as d100
from tests import sr3_requests as sr3
from tests import sr3hl_requests as hl
from tests import sr4_requests as sr4
from tests import sr5_requests as sr5
from tests.conftest import AppFactory

PROBLEM = "https://firefight.invalid/problems/"

# DV 8P, AP -1, Accuracy 5, RC 2, 30 rounds (tests/test_sr5_http_by_hand.py's rifle).
SR5_RIFLE = sr5.weapon(
    id="ak", category="assault_rifle", modes=["SA", "BF", "FA"], ammo=30, rc=2, accuracy=5
)
# tests/test_sr5_http_by_hand.py's first burst, worked there: 10 dice, 3 hits; 4 defense dice,
# 1 hit; 12 soak dice, 1 hit: 9 boxes.
SR5_BURST = sr5.attack(
    weapon=SR5_RIFLE,
    mode="BF",
    targets=[sr5.target(distance_m=20)],
    dice={
        "attack": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2],
        "defense:goon-1": [5, 2, 2, 2],
        "soak:goon-1": [5, *[2] * 11],
    },
)
# Hard Life's SMG with recoil compensation 1, and tests/test_sr3hl_http_by_hand.py's shot (the
# goon's torso takes an S wound and L stun).
HL_SMG = hl.smg(recoil_compensation=1)
HL_SHOT = hl.attack(
    weapon=HL_SMG,
    target=hl.target(defender=hl.defender(combat_pool=5), dodge={"combat_pool": 2, "prone": True}),
    dice={
        "attack": [6, 6, 5, 4, 3, 1],
        "dodge:goon": [6, 1],
        "armor:goon": [3, 3, 2, 1, 1, 1],
        "damage:goon": [6, 6, 4, 4, 2, 1, 3],
        "stun:goon": [2, 2, 2, 1],
        "recovery:goon": [6, 6, 6, 2],
    },
)

# Each ruleset: its shooter and gun (kept on the scene, whose rounds the attack spends), the
# target, an attack with every die given (the hand-worked attacks of the rulesets' by-hand
# suites), and the rounds the gun holds before and after it.
CASES: dict[str, tuple[str, dict[str, Any], str, dict[str, Any], int, int]] = {
    # 000, "Burst Fire (BF)": three rounds; 30 - 3 = 27.
    "sr5": ("sam", SR5_RIFLE, "goon-1", SR5_BURST, 30, 27),
    # tests/test_sr4_http_by_hand.py, a single shot: one round of 15; 14.
    "sr4": (
        "sam",
        sr4.weapon(),
        "goon-1",
        sr4.attack(
            targets=[sr4.target(distance_m=12)],
            dice={
                "attack": [6, 5, 3, 2, 1, 2, 4],
                "defense:goon-1": [5, 2, 2],
                "soak:goon-1": [5, 2, 2, 2, 2, 2, 2, 2],
            },
        ),
        15,
        14,
    ),
    # tests/test_sr3_http_by_hand.py, a single shot (Combat Pools 6 and 5 spend 2 and 1): one
    # round of 15; 14.
    "sr3": (
        "sam",
        sr3.weapon(),
        "goon-1",
        sr3.attack(
            pool=2,
            target=sr3.target(distance_m=12, dodge=1),
            dice={
                "attack": [6, 5, 2, 3, 1, 4],
                "dodge:goon-1": [2],
                "resist:goon-1": [4, 2, 1, 3],
            },
        ),
        15,
        14,
    ),
    # tests/test_d100_http_by_hand.py, a called shot at Shot Rate 0 (one round): 30 - 1 = 29.
    "d100": (
        "vex",
        d100.weapon(),
        "goon-1",
        d100.attack(
            attacker=d100.attacker(marksmanship=60, wound_modifier=-10),
            targets=[
                d100.target(
                    distance_m=5,
                    location="right_leg",
                    defender=d100.defender(defense=40, armor_by_location={"right_leg": 6}),
                )
            ],
            dice={
                "attack": [31],
                "defense:goon-1": [40],
                "bonus:goon-1": [6, 1],
                "passive_defense:goon-1": [21],
            },
        ),
        30,
        29,
    ),
    # A single shot (SA, one round) of the 30-round SMG: 29.
    "sr3-hardlife": ("carter", HL_SMG, "goon", HL_SHOT, 30, 29),
}


async def scene_of(client: Any, ruleset: str, **actors: dict[str, Any]) -> str:
    created = await (await client.post("/v1/encounters", json={"ruleset": ruleset})).json()
    base = f"/v1/encounters/{created['id']}"
    for actor_id, actor in actors.items():
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


async def view(client: Any, base: str) -> dict[str, Any]:
    """The whole state as GET shows it, but what every change moves on (version, last event,
    when it expires)."""
    response = await client.get(base)
    assert response.status == 200, await response.text()
    whole: dict[str, Any] = await response.json()
    whole.pop("version")
    whole.pop("last_event_id")
    whole.pop("expires_at")
    return whole


async def changed(client: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    response = await client.request(method, path, json=body)
    assert response.status in (200, 201), await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


async def undo(client: Any, base: str, body: Any = None, **headers: str) -> Any:
    data = None if body is None else json.dumps(body)
    return await client.post(f"{base}/undo", data=data, headers=headers)


async def undone(client: Any, base: str, body: Any = None) -> dict[str, Any]:
    response = await undo(client, base, body)
    assert response.status == 200, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


async def refused(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status == status, await response.text()
    problem: dict[str, Any] = await response.json()
    assert problem["type"] == PROBLEM + kind, problem
    return problem


def ammo(whole: dict[str, Any], actor: str) -> int:
    left: int = whole["scene"][actor]["sheet"]["weapons"][0]["ammo"]
    return left


@pytest.mark.parametrize("ruleset", list(CASES))
async def test_an_attack_undone_leaves_every_rulesets_state_as_before(
    client: Any, ruleset: str
) -> None:
    shooter, gun, target, body, full, after = CASES[ruleset]
    armed = {"sheet": {"ruleset": ruleset, "weapons": [gun]}}
    base = await scene_of(client, ruleset, **{shooter: armed, target: {"name": "Goon"}})
    before = await view(client, base)
    shot = await changed(client, "POST", f"{base}/attacks", body)
    fired = await view(client, base)
    assert (ammo(before, shooter), ammo(fired, shooter)) == (full, after)
    assert fired["combat"] != before["combat"]

    answer = await undone(client, base)
    # Two scene changes and the attack were kept: the attack taken back leaves the two.
    assert answer["result"] == {
        "kind": "undo",
        "undone": shot["event_id"],
        "undone_type": "attack",
        "reason": "",
        "left": 2,
    }
    assert await view(client, base) == before
    # The answer tells clients what moved back: the shooter's gun holds what it held.
    assert answer["changes"]["scene"][shooter]["sheet"]["weapons"][0]["ammo"] == full


async def test_sr5_recoil_defenses_and_rounds_walk_back_burst_by_burst(client: Any) -> None:
    sam = {"position": {"x": 0, "y": 0}, "sheet": {"ruleset": "sr5", "weapons": [SR5_RIFLE]}}
    base = await scene_of(client, "sr5", sam=sam, **{"goon-1": {"position": {"x": 0, "y": 20}}})
    before = await view(client, base)
    await changed(client, "POST", f"{base}/attacks", SR5_BURST)
    first = await view(client, base)
    # 000, "Recoil": compensation 1 + ceil(Strength 4 / 3) + RC 2 = 5; a burst is 3 rounds
    # (000, "Burst Fire (BF)"). The ganger has made one defense test. 30 - 3 = 27 rounds.
    sam_state = first["combat"]["actors"]["sam"]
    assert (sam_state["recoil_rounds"], sam_state["recoil_compensation"]) == (3, 5)
    assert first["combat"]["actors"]["goon-1"]["defenses"] == 1
    assert ammo(first, "sam") == 27
    # The encounter keeps the monitors ("damage": "service"): the 9 boxes are on goon-1's.
    assert before["scene"]["goon-1"]["monitor"].get("physical", 0) == 0
    assert first["scene"]["goon-1"]["monitor"]["physical"] == 9

    # The second burst: 3 + 3 = 6 rounds against 5 (README: progressive, no reset between):
    # -1; pool 5 Agility + 5 skill - 1 = 9 dice, one hit. Defense 3 + 3 - 2 (burst) - 1 (one
    # earlier defense, README) = 3 dice, none; DV 8 + 1 = 9 against armor 9 - 1 = 8: physical;
    # 4 + 8 = 12 soak dice, none: 9 boxes.
    second_shot = sr5.attack(
        weapon={**SR5_RIFLE, "ammo": 27},
        mode="BF",
        targets=[sr5.target(distance_m=20)],
        dice={"attack": [5, *[2] * 8], "defense:goon-1": [2] * 3, "soak:goon-1": [2] * 12},
    )
    second = await changed(client, "POST", f"{base}/attacks", second_shot)
    recoil = second["result"]["recoil"]
    assert (recoil["rounds_total"], recoil["penalty"], second["result"]["pool"]) == (6, -1, 9)
    hit = second["result"]["targets"][0]
    assert (hit["defense"]["pool"], hit["damage"]["boxes"]) == (3, 9)
    both = await view(client, base)
    assert both["combat"]["actors"]["sam"]["recoil_rounds"] == 6
    assert both["combat"]["actors"]["goon-1"]["defenses"] == 2
    assert ammo(both, "sam") == 24  # 27 - 3
    # goon-1's sheet does not size its track: the boxes add up, 9 + 9 = 18.
    assert both["scene"]["goon-1"]["monitor"]["physical"] == 18

    back = await undone(client, base)
    assert back["changes"]["combat"]["actors"]["sam"]["recoil_rounds"] == 3
    assert back["changes"]["scene"]["goon-1"]["monitor"]["physical"] == 9
    assert await view(client, base) == first
    await undone(client, base)
    assert await view(client, base) == before
    assert ammo(before, "sam") == 30


# A suppression zone 40 m north of Sam (tests/test_scene_attacks.py's), fired from 60 rounds.
ZONE = {"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 40}
MACHINE_GUN = {**SR5_RIFLE, "ammo": 60}


async def test_a_suppression_zone_undone_ends_for_every_client(client: Any) -> None:
    gunner = {
        "position": {"x": 0, "y": 0},
        "sheet": {
            "ruleset": "sr5",
            "agility": 5,
            "strength": 4,
            "skill": 5,
            "weapons": [MACHINE_GUN],
        },
    }
    base = await scene_of(client, "sr5", sam=gunner)
    before = await view(client, base)
    fire = {"attacker": "sam", "weapon": "ak", "mode": "suppressive", "zone": ZONE}
    # 000, "Suppressive Fire": Weapon Skill 5 + Agility 5 = 10 dice, two hits.
    fire["dice"] = {"suppression": [5, 5, 2, 2, 2, 2, 2, 2, 2, 2]}
    fired = await changed(client, "POST", f"{base}/attacks", fire)
    zone = fired["result"]["zone"]["zone"]["id"]
    # 000, "Suppressive Fire": 20 rounds; 60 - 20 = 40. The zone is live.
    assert ammo(await view(client, base), "sam") == 40
    assert [z["id"] for z in (await changed(client, "GET", f"{base}/zones"))["zones"]] == [zone]

    answer = await undone(client, base)
    assert answer["changes"]["removed"]["zones"] == [zone]
    assert (await changed(client, "GET", f"{base}/zones"))["zones"] == []
    assert await view(client, base) == before
    events = (await changed(client, "GET", f"{base}/events"))["events"]
    assert (events[-1]["type"], events[-1]["zones_ended"]) == ("undo", [zone])


async def test_a_chain_of_undos_walks_back_to_the_encounters_creation(client: Any) -> None:
    sam = {"position": {"x": 0, "y": 0}, "sheet": {"ruleset": "sr5", "weapons": [SR5_RIFLE]}}
    base = await scene_of(client, "sr5")
    created = await view(client, base)
    await changed(client, "PUT", f"{base}/actors/sam", sam)
    await changed(client, "PUT", f"{base}/actors/goon-1", {"position": {"x": 0, "y": 30}})
    on_scene = await view(client, base)
    await changed(client, "PUT", f"{base}/state", {"dice_policy": "any", "reason": "house"})
    edited = await view(client, base)
    await changed(client, "POST", f"{base}/actors/goon-1/move", {"position": {"x": 0, "y": 20}})
    moved = await view(client, base)
    await changed(client, "POST", f"{base}/attacks", SR5_BURST)

    kinds = []
    for expected in (moved, edited, on_scene):
        answer = await undone(client, base)
        kinds.append(answer["result"]["undone_type"])
        assert await view(client, base) == expected
    assert kinds == ["attack", "scene", "state_edited"]
    assert (await view(client, base))["dice_policy"] == "own"
    # The two actors put on the scene, then nothing: creation is not a change to take back.
    lefts = [(await undone(client, base))["result"]["left"] for _ in range(2)]
    assert lefts == [1, 0]
    assert await view(client, base) == created
    problem = await refused(await undo(client, base), 409, "nothing-to-undo")
    assert problem["path"] == "$"


async def test_a_fresh_encounter_has_nothing_to_undo(client: Any) -> None:
    base = await scene_of(client, "sr4")
    await refused(await undo(client, base), 409, "nothing-to-undo")


async def test_the_undo_bound_stops_a_chain(make_client: AppFactory) -> None:
    client = await make_client(undo_depth=2)
    base = await scene_of(client, "sr5")
    for y in (10, 20, 30):
        await changed(client, "PUT", f"{base}/actors/goon-1", {"position": {"x": 0, "y": y}})
    # Three changes, two kept (FIREFIGHT_UNDO_DEPTH=2): back to y 10, then no further.
    assert (await undone(client, base))["result"]["left"] == 1
    assert (await undone(client, base))["result"]["left"] == 0
    assert (await view(client, base))["scene"]["goon-1"]["position"] == {"x": 0.0, "y": 10.0}
    await refused(await undo(client, base), 409, "nothing-to-undo")

    none_kept = await make_client(undo_depth=0)
    base = await scene_of(none_kept, "sr5", **{"goon-1": {"name": "Goon"}})
    await refused(await undo(none_kept, base), 409, "nothing-to-undo")


async def test_a_players_token_change_is_never_undone(client: Any) -> None:
    base = await scene_of(client, "sr5", **{"goon-1": {"name": "Goon"}})
    issued = await changed(client, "POST", f"{base}/players/alice", {})
    token = issued["token"]
    await refused(await undo(client, base), 409, "cannot-undo")
    await changed(client, "DELETE", f"{base}/players/alice")
    await refused(await undo(client, base), 409, "cannot-undo")
    # The revoked token stays revoked.
    shut = await client.get(base, headers={"Authorization": f"Bearer {token}"})
    assert shut.status == 401
    # A change after it is undone as any other; the token change below it stops the chain.
    await changed(client, "PUT", f"{base}/actors/goon-1", {"name": "Goon", "hidden": True})
    assert (await undone(client, base))["result"]["undone_type"] == "scene"
    await refused(await undo(client, base), 409, "cannot-undo")


async def test_a_record_this_version_cannot_read_is_not_undone(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = await scene_of(client, "sr5", **{"goon-1": {"name": "Goon"}})
    before = await view(client, base)
    store = client.app[STORE]
    top = await store.undo_top(base.rsplit("/", 1)[1])

    async def unreadable(encounter_id: str) -> Any:
        # 0xc1 is no msgpack value at all: a record of some other version.
        return UndoTop(top.event_id, b"\xc1", top.depth)

    monkeypatch.setattr(store, "undo_top", unreadable)
    problem = await refused(await undo(client, base), 409, "cannot-undo")
    assert top.event_id in problem["detail"]
    assert await view(client, base) == before


async def test_the_event_guard_refuses_a_double_click(client: Any) -> None:
    base = await scene_of(client, "sr5")
    put = await changed(client, "PUT", f"{base}/actors/goon-1", {"name": "Goon"})
    moved = await changed(
        client, "POST", f"{base}/actors/goon-1/move", {"position": {"x": 1, "y": 1}}
    )
    answer = await undone(client, base, {"event": moved["event_id"], "reason": "misclick"})
    assert (answer["result"]["undone"], answer["result"]["reason"]) == (
        moved["event_id"],
        "misclick",
    )
    # The second click names the move again: it is undone already, nothing more is.
    again = await undo(client, base, {"event": moved["event_id"]})
    problem = await refused(again, 409, "state-changed")
    assert problem["path"] == "$.event"
    assert put["event_id"] in problem["detail"]
    assert "goon-1" in (await view(client, base))["scene"]


async def test_an_undo_racing_an_attack_takes_back_the_newest_or_refuses(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sam = {"position": {"x": 0, "y": 0}, "sheet": {"ruleset": "sr5", "weapons": [SR5_RIFLE]}}
    base = await scene_of(client, "sr5", sam=sam, **{"goon-1": {"position": {"x": 0, "y": 20}}})
    scened = await view(client, base)
    store = client.app[STORE]
    real_top = store.undo_top
    shots: list[dict[str, Any]] = []

    async def attack_lands_meanwhile(encounter_id: str) -> Any:
        # The undo has read the state and now its newest record; the attack lands before the
        # undo commits (once).
        top = await real_top(encounter_id)
        if not shots:
            shots.append(await changed(client, "POST", f"{base}/attacks", SR5_BURST))
        return top

    monkeypatch.setattr(store, "undo_top", attack_lands_meanwhile)
    answer = await undone(client, base)
    # Not the scene change read first: the attack that landed, the newest.
    assert (answer["result"]["undone"], answer["result"]["undone_type"]) == (
        shots[0]["event_id"],
        "attack",
    )
    assert await view(client, base) == scened

    # Named, the scene change the GM saw as newest is not undone over the attack.
    put = await changed(client, "PUT", f"{base}/actors/goon-1", {"position": {"x": 0, "y": 20}})
    shots.clear()
    refusal = await undo(client, base, {"event": put["event_id"]})
    await refused(refusal, 409, "state-changed")
    after_attack = await view(client, base)
    assert ammo(after_attack, "sam") == 27  # the attack stands: 30 - 3


async def test_an_undo_with_an_idempotency_key_is_made_once(client: Any) -> None:
    base = await scene_of(client, "sr5")
    for y in (10, 20):
        await changed(client, "PUT", f"{base}/actors/goon-1", {"position": {"x": 0, "y": y}})
    first = await undo(client, base, {"reason": "oops"}, **{"Idempotency-Key": "undo-1"})
    assert first.status == 200, await first.text()
    retry = await undo(client, base, {"reason": "oops"}, **{"Idempotency-Key": "undo-1"})
    assert retry.status == 200
    assert retry.headers.get("Idempotent-Replayed") == "true"
    assert await retry.json() == await first.json()
    # One undo: the actor is back at y 10, not off the scene.
    assert (await view(client, base))["scene"]["goon-1"]["position"] == {"x": 0.0, "y": 10.0}


async def test_only_the_gms_token_undoes(anonymous: Any) -> None:
    created = await anonymous.post(
        "/v1/encounters",
        json={"ruleset": "sr5"},
        headers={"Authorization": "Bearer test-admin-key-0123456789"},
    )
    encounter = await created.json()
    base = f"/v1/encounters/{encounter['id']}"
    gm = {"Authorization": f"Bearer {encounter['tokens']['gm']}"}
    player = {"Authorization": f"Bearer {encounter['tokens']['player']}"}
    put = await anonymous.put(f"{base}/actors/goon-1", json={"name": "Goon"}, headers=gm)
    assert put.status == 200
    await refused(await anonymous.post(f"{base}/undo", headers=player), 403, "forbidden")
    assert (await anonymous.post(f"{base}/undo", headers=gm)).status == 200


async def test_a_bad_undo_body_names_its_field(client: Any) -> None:
    base = await scene_of(client, "sr5", **{"goon-1": {"name": "Goon"}})
    problem = await refused(await undo(client, base, {"event": 5}), 400, "validation")
    assert problem["path"] == "$.event"
    problem = await refused(await undo(client, base, {"reason": "x", "what": 1}), 400, "validation")
    assert problem["path"] == "$.what"


async def test_players_never_see_a_hidden_actors_change_undone(client: Any) -> None:
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    ninja = {"name": "Ninja", "hidden": True, "position": {"x": 5, "y": 5}}
    await changed(client, "PUT", f"{base}/actors/ninja", ninja)
    await changed(client, "POST", f"{base}/actors/ninja/move", {"position": {"x": 6, "y": 6}})
    answer = await undone(client, base)
    assert (answer["result"]["undone_type"], answer["changes"]["scene"]["ninja"]["position"]) == (
        "scene",
        {"x": 5.0, "y": 5.0},
    )
    gm_feed = (await changed(client, "GET", f"{base}/events"))["events"]
    assert [e["type"] for e in gm_feed][-1] == "undo"
    assert gm_feed[-1]["gm_only"] is True
    players_feed = await (await client.get(f"{base}/events", headers=player)).json()
    assert [e["type"] for e in players_feed["events"]] == ["encounter_created"]
    assert b"ninja" not in json.dumps(players_feed).encode()


async def test_players_see_an_unseen_shooters_attack_undone_without_its_name(client: Any) -> None:
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    await changed(client, "PUT", f"{base}/actors/sam", {"name": "Sniper", "hidden": True})
    await changed(client, "PUT", f"{base}/actors/goon-1", {"name": "Goon"})
    await changed(client, "POST", f"{base}/attacks", SR5_BURST)
    await undone(client, base)
    feed = await (await client.get(f"{base}/events", headers=player)).json()
    last = feed["events"][-1]
    assert (last["type"], last["actor"], last["result"]["undone_type"]) == (
        "undo",
        "someone",
        "attack",
    )
    assert "sam" not in json.dumps(feed)


async def test_players_cannot_count_a_hidden_actors_changes_from_an_undo(client: Any) -> None:
    """`left` counts every change an undo could take back, a hidden actor's too: a player who
    read it before and after the GM moved a hidden actor would know that it moved."""
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    await changed(client, "PUT", f"{base}/actors/ninja", {"name": "Ninja", "hidden": True})
    await changed(client, "PUT", f"{base}/actors/goon-1", {"name": "Goon"})
    await changed(client, "PUT", f"{base}/actors/goon-2", {"name": "Goon"})
    answer = await undone(client, base)
    # The GM's answer and feed count the two changes left: the ninja and goon-1 put on.
    assert answer["result"]["left"] == 2
    gm_feed = (await changed(client, "GET", f"{base}/events"))["events"]
    assert gm_feed[-1]["result"]["left"] == 2
    feed = await (await client.get(f"{base}/events", headers=player)).json()
    last = feed["events"][-1]
    assert (last["type"], last["result"]["undone_type"]) == ("undo", "scene")
    assert "left" not in last["result"]


async def test_the_undo_reaches_the_websocket(client: Any) -> None:
    base = await scene_of(client, "sr5", **{"goon-1": {"name": "Goon"}})
    last = (await changed(client, "GET", f"{base}/events"))["last_event_id"]
    socket = await client.ws_connect(f"{base}/ws?after={last}")
    answer = await undone(client, base)
    event = json.loads((await socket.receive(timeout=10)).data)
    await socket.close()
    assert (event["id"], event["type"]) == (answer["event_id"], "undo")
    assert event["result"]["undone_type"] == "scene"
    assert event["actor"] == "goon-1"


async def test_the_openapi_document_describes_the_undo(client: Any) -> None:
    document = await (await client.get("/openapi.json")).json()
    undo_op = document["paths"]["/v1/encounters/{encounter}/undo"]["post"]
    # The body may be left out: an undo of whatever is newest.
    assert undo_op["requestBody"]["required"] is False
    assert "409" in undo_op["responses"] and "200" in undo_op["responses"]
    schemas = document["components"]["schemas"]
    assert {"UndoRequest", "UndoOutcome", "UndoResult"} <= set(schemas)
