"""Issue 24 over HTTP: the condition monitors the service keeps, on the memory store, Redis and
the cluster. SR5 carries the plumbing (damage modes, wounds into the next roll, actors out of the
fight, the GM's edits, what players see); tests/test_monitors_<ruleset>_http.py work each other
ruleset's numbers.

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt; the SR5 core numbers are those
rules-sources/README.md lets the product take where the guide is silent (service/rules/sr5/
monitor.py cites them): physical 8 + ceil(Body/2), stun 8 + ceil(Willpower/2), overflow up to
Body, -1 wound modifier per 3 boxes of each track, dying once physical overflows. A die of 5
or 6 is a hit.
"""

from __future__ import annotations

from typing import Any

from tests.by_hand import attack
from tests.by_hand import state as encounter_state

PROBLEM = "https://firefight.invalid/problems/"
PREDATOR = {
    "id": "predator",
    "category": "heavy_pistol",
    "damage": 8,
    "ap": -1,
    "accuracy": 5,
    "rc": 0,
    "modes": ["SA"],
    "ammo": 15,
}
# Sam: Agility 6 + Pistols 6 = 12 dice; Reaction 4 + Intuition 3 = 7 defense dice.
SAM = {
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {
        "ruleset": "sr5",
        "agility": 6,
        "strength": 4,
        "skill": 6,
        "reaction": 4,
        "intuition": 3,
        "body": 4,
        "willpower": 4,
        "armor": 9,
        "weapons": [PREDATOR],
    },
}
# The ganger, 4 m away (a heavy pistol's short range, 0-5 m: no modifier): Body 4 gives
# 8 + 2 = 10 physical boxes and 4 of overflow, Willpower 3 gives 8 + 2 = 10 stun boxes;
# Agility 4 + Pistols 4 = 8 dice; Reaction 3 + Intuition 3 = 6 defense dice; armour 9.
GANGER = {
    "position": {"x": 4.0, "y": 0.0},
    "sheet": {
        "ruleset": "sr5",
        "agility": 4,
        "strength": 3,
        "skill": 4,
        "reaction": 3,
        "intuition": 3,
        "body": 4,
        "willpower": 3,
        "armor": 9,
        "weapons": [PREDATOR],
    },
}
NO_HITS_6 = [1, 2, 2, 3, 3, 4]


def shot(attacker: str, target: str, dice: dict[str, list[int]], **fields: Any) -> dict[str, Any]:
    return {
        "attacker": attacker,
        "weapon": "predator",
        "mode": "SA",
        "targets": [{"id": target}],
        "dice": dice,
        **fields,
    }


# Sam's shot at the ganger: 12 dice, five 6s (limit Accuracy 5: 5 hits); the ganger's 6
# defense dice no hit: 5 net hits; DV 8 + 5 = 13 against armour 9 - 1 AP = 8: physical (the
# guide, "3b"); Body 4 + 8 = 12 soak dice, none a hit: 13 boxes.
KNOCKOUT = {
    "attack": [6, 6, 6, 6, 6, 1, 1, 2, 2, 2, 2, 2],
    "defense:ganger": NO_HITS_6,
    "soak:ganger": [2] * 12,
}
# Sam's shot at the ganger: one hit against none; DV 8 + 1 = 9 against 8: physical; five of
# the 12 soak dice hit: 9 - 5 = 4 boxes.
GRAZE = {
    "attack": [5, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3],
    "defense:ganger": NO_HITS_6,
    "soak:ganger": [5, 5, 5, 5, 5, 2, 2, 2, 2, 2, 2, 2],
}


async def on_scene(client: Any, damage: str | None = None, **actors: Any) -> str:
    body: dict[str, Any] = {"ruleset": "sr5"}
    if damage is not None:
        body["damage"] = damage
    created = await client.post("/v1/encounters", json=body)
    assert created.status == 201, await created.text()
    base = f"/v1/encounters/{(await created.json())['id']}"
    for actor_id, actor in actors.items():
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    return base


async def monitor_of(client: Any, base: str, actor: str) -> dict[str, Any]:
    response = await client.get(f"{base}/actors/{actor}")
    assert response.status == 200, await response.text()
    monitor: dict[str, Any] = (await response.json())["monitor"]
    return monitor


async def problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status == status, await response.text()
    body: dict[str, Any] = await response.json()
    assert body["type"] == PROBLEM + kind, body
    return body


async def test_a_new_actor_has_an_empty_monitor_sized_by_its_sheet(client: Any) -> None:
    base = await on_scene(client, ganger=GANGER)
    monitor = await monitor_of(client, base, "ganger")
    # Nothing marked (left out at their defaults); 10 physical, 10 stun, 4 overflow (above).
    assert {k: v for k, v in monitor.items() if k != "status"} == {}
    status = monitor["status"]
    assert (status["physical_max"], status["stun_max"], status["overflow_max"]) == (10, 10, 4)
    assert (status["wound_modifier"], status["condition"]) == (0, "ok")
    view = await (await client.get(base)).json()
    assert view["damage"] == "service"
    # A sheet patched to Body 6 sizes the physical track anew: 8 + 3 = 11, overflow 6.
    sheet = {**GANGER["sheet"], "body": 6}
    patched = await client.patch(f"{base}/actors/ganger", json={"sheet": sheet})
    assert patched.status == 200, await patched.text()
    status = (await monitor_of(client, base, "ganger"))["status"]
    assert (status["physical_max"], status["overflow_max"]) == (11, 6)


async def test_a_hit_that_fills_the_track_overflows_and_the_actor_is_out(client: Any) -> None:
    base = await on_scene(client, sam=SAM, ganger=GANGER)
    response = await client.post(f"{base}/attacks", json=shot("sam", "ganger", KNOCKOUT))
    assert response.status == 201, await response.text()
    answer = await response.json()
    assert answer["result"]["targets"][0]["damage"]["boxes"] == 13
    # 13 boxes on a 10-box physical track: 10 and 3 of overflow (at most Body 4); the ganger
    # is dying; -1 per 3 boxes: 10 // 3 = -3. The answer's changes carry the new monitor.
    monitor = answer["changes"]["scene"]["ganger"]["monitor"]
    assert (monitor["physical"], monitor["overflow"], monitor.get("stun", 0)) == (10, 3, 0)
    assert (monitor["status"]["condition"], monitor["status"]["wound_modifier"]) == ("dying", -3)
    assert await monitor_of(client, base, "ganger") == monitor

    # Out of the fight: it neither attacks (the GM asking too) nor acts.
    refused = await client.post(f"{base}/attacks", json=shot("ganger", "sam", {"attack": [2] * 8}))
    body = await problem(refused, 409, "actor-incapacitated")
    assert body["detail"] == "'ganger' is dying: it cannot act"
    # The path names the acting actor as the filled request holds it (as a 403 for an actor
    # the token does not act for does).
    assert body["path"] == "$.attacker.id"
    acted = await client.post(f"{base}/actions", json={"actor": "ganger", "action": "take_aim"})
    await problem(acted, 409, "actor-incapacitated")

    # The initiative passes it over: its 15 would act first, sam's 12 acts instead.
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger", "score": 15}, {"actor": "sam", "score": 12}]},
    )
    assert started.status == 201, await started.text()
    result = (await started.json())["result"]
    assert result["current"] == "sam"
    assert "ganger is dying: its phase is passed over" in result["effects"]


async def test_the_wound_modifier_lowers_the_next_attacks_pool(client: Any) -> None:
    base = await on_scene(client, sam=SAM, ganger=GANGER)
    await attack(client, base.rsplit("/", 1)[1], shot("sam", "ganger", GRAZE))
    monitor = await monitor_of(client, base, "ganger")
    # 4 physical boxes: -(4 // 3) = -1.
    assert (monitor["physical"], monitor["status"]["wound_modifier"]) == (4, -1)
    # The ganger's shot: Agility 4 + Pistols 4 = 8, -1 for its wounds = 7 dice (seven given:
    # an eighth would be asked for); Sam's 7 defense dice.
    dice = {
        "attack": [2] * 7,
        "defense:sam": [2] * 7,
    }
    result = await attack(client, base.rsplit("/", 1)[1], shot("ganger", "sam", dice))
    target = result["targets"][0]
    assert (result["pool"], target["attack"]["pool"]) == (7, 7)
    assert {"source": "wound modifier", "value": -1} in result["modifiers"]
    # A wound modifier typed in the request wins (a VTT that keeps its own): 8 dice.
    typed = {
        **shot("ganger", "sam", {"attack": [2] * 8, "defense:sam": [2] * 7}),
        "attacker": {"id": "ganger", "agility": 4, "strength": 3, "skill": 4, "wound_modifier": 0},
        "weapon": PREDATOR,
    }
    result = await attack(client, base.rsplit("/", 1)[1], typed)
    assert (result["pool"], result["targets"][0]["attack"]["pool"]) == (8, 8)
    # The initiative rolled for it: Reaction 3 + Intuition 3 + one die of 4, -1 for its
    # wounds = 9 (SR5 core p. 169: the wound modifier counts against initiative too).
    started = await client.post(
        f"{base}/initiative",
        json={"actors": [{"actor": "ganger"}], "dice": {"initiative:ganger": [4]}},
    )
    assert started.status == 201, await started.text()
    entry = (await started.json())["result"]["entries"][0]
    assert (entry["score"], entry["modifier"]) == (9, -1)


async def test_confirm_mode_waits_for_the_gm_or_the_controller(client: Any) -> None:
    base = await on_scene(client, damage="confirm", sam=SAM, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", GRAZE))
    monitor = await monitor_of(client, base, "ganger")
    # Nothing written yet: the 4 boxes wait as d1.
    assert monitor.get("physical", 0) == 0
    assert monitor["pending"] == [
        {
            "id": "d1",
            "track": "physical",
            "boxes": 4,
            "location": None,
            "source": "attack by sam (predator)",
        }
    ]
    applied = await client.post(f"{base}/actors/ganger/monitor/pending/d1")
    assert applied.status == 200, await applied.text()
    result = (await applied.json())["result"]
    assert (result["kind"], result["actor"], result["change"]) == ("monitor", "ganger", "applied")
    assert (result["monitor"]["physical"], result["monitor"].get("pending", [])) == (4, [])
    assert "physical 0/10 -> 4/10" in result["effects"]
    # Once: it waits no more.
    again = await client.post(f"{base}/actors/ganger/monitor/pending/d1")
    await problem(again, 404, "pending-not-found")
    # The next hit is d2; the GM declines it: nothing is written. The ganger defends with
    # 6 dice - 1 for its wounds - 1 for its earlier defense (README, "Shadowrun 5") = 4.
    await attack(client, encounter, shot("sam", "ganger", {**GRAZE, "defense:ganger": [2] * 4}))
    declined = await client.delete(f"{base}/actors/ganger/monitor/pending/d2")
    assert declined.status == 200, await declined.text()
    assert (await declined.json())["result"]["change"] == "declined"
    monitor = await monitor_of(client, base, "ganger")
    assert (monitor["physical"], monitor.get("pending", [])) == (4, [])

    # A player applies the damage dealt to the actor it controls, and only that.
    issued = await client.post(f"{base}/players/ann", json={"actors": ["sam"]})
    ann = {"Authorization": f"Bearer {(await issued.json())['token']}"}
    # The ganger's shot at Sam: 8 dice - 1 wound = 7, four 6s; Sam's 7 defense dice none:
    # 4 net hits, DV 12 against 8: physical; Body 4 + 8 = 12 soak dice, 2 hits: 10 boxes.
    dice = {"attack": [6, 6, 6, 6, 2, 2, 2], "defense:sam": [2] * 7, "soak:sam": [5, 5] + [2] * 10}
    await attack(client, encounter, shot("ganger", "sam", dice))
    sam = await monitor_of(client, base, "sam")
    assert [(p["id"], p["boxes"]) for p in sam["pending"]] == [("d3", 10)]
    declined = await client.delete(f"{base}/actors/sam/monitor/pending/d3", headers=ann)
    assert declined.status == 403, await declined.text()
    others = await client.post(f"{base}/actors/ganger/monitor/pending/d9", headers=ann)
    assert others.status == 403, await others.text()
    applied = await client.post(f"{base}/actors/sam/monitor/pending/d3", headers=ann)
    assert applied.status == 200, await applied.text()
    # 10 boxes fill Sam's 10-box physical track (Body 4): unconscious, not yet dying.
    monitor = (await applied.json())["result"]["monitor"]
    assert (monitor["physical"], monitor["status"]["condition"]) == (10, "unconscious")


async def test_the_gm_heals_sets_and_clears_on_the_version_it_read(client: Any) -> None:
    base = await on_scene(client, sam=SAM, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", KNOCKOUT))
    version = (await encounter_state(client, encounter))["version"]
    edit = f"{base}/actors/ganger/monitor"
    # First aid: 3 physical boxes back come off the overflow first (3 -> 0), then the track.
    healed = await client.post(
        edit, json={"heal": {"physical": 3}, "reason": "first aid", "version": version}
    )
    assert healed.status == 200, await healed.text()
    result = (await healed.json())["result"]
    assert (result["change"], result["reason"]) == ("healed", "first aid")
    monitor = result["monitor"]
    # Physical 10/10, overflow 0: unconscious (dying only past the track).
    assert (monitor["physical"], monitor.get("overflow", 0)) == (10, 0)
    assert monitor["status"]["condition"] == "unconscious"
    assert result["effects"] == ["overflow 3/4 -> 0/4", "unconscious"]
    # The same edit on the version read before it is refused: nothing is written.
    stale = await client.post(edit, json={"heal": {"physical": 3}, "version": version})
    await problem(stale, 409, "state-changed")
    assert (await monitor_of(client, base, "ganger"))["physical"] == 10
    # Set: 20 stun is cut to the 10-box track; physical 2: -(2 // 3) - (10 // 3) = -3.
    set_ = await client.post(edit, json={"set": {"physical": 2, "stun": 20}})
    monitor = (await set_.json())["result"]["monitor"]
    assert (monitor["physical"], monitor["stun"], monitor["status"]["wound_modifier"]) == (
        2,
        10,
        -3,
    )
    # Clear: the end of the fight.
    cleared = await client.post(edit, json={"clear": True})
    monitor = (await cleared.json())["result"]["monitor"]
    assert {k: v for k, v in monitor.items() if k != "status"} == {}
    assert monitor["status"]["condition"] == "ok"
    # Exactly one of heal, set and clear.
    for body in ({}, {"clear": True, "heal": {"stun": 1}}, {"clear": False}):
        refused = await client.post(edit, json=body)
        assert (await problem(refused, 422, "one-monitor-edit"))["path"] == "$"
    events = (await (await client.get(f"{base}/events")).json())["events"]
    assert [e["result"]["change"] for e in events if e["type"] == "monitor"] == [
        "healed",
        "set",
        "cleared",
    ]


async def test_a_player_never_sees_a_hidden_actors_monitor(client: Any) -> None:
    base = await on_scene(client, sam=SAM, ganger={**GANGER, "hidden": True})
    encounter = base.rsplit("/", 1)[1]
    issued = await client.post(f"{base}/players/ann", json={"actors": ["sam"]})
    ann = {"Authorization": f"Bearer {(await issued.json())['token']}"}
    # The GM's shot by Sam at the hidden ganger writes its monitor...
    response = await client.post(f"{base}/attacks", json=shot("sam", "ganger", GRAZE))
    assert response.status == 201, await response.text()
    assert (await response.json())["changes"]["scene"]["ganger"]["monitor"]["physical"] == 4
    healed = await client.post(f"{base}/actors/ganger/monitor", json={"heal": {"physical": 1}})
    assert healed.status == 200, await healed.text()
    # ...and the player sees none of it: not in the scene, the actor, the events...
    view = await (await client.get(base, headers=ann)).json()
    assert "ganger" not in view["scene"]
    unknown = await client.get(f"{base}/actors/nobody", headers=ann)
    hidden = await client.get(f"{base}/actors/ganger", headers=ann)
    assert hidden.status == unknown.status == 404
    assert (await hidden.json())["detail"] == (await unknown.json())["detail"].replace(
        "nobody", "ganger"
    )
    events = await (await client.get(f"{base}/events", headers=ann)).text()
    assert "ganger" not in events and '"type":"monitor"' not in events
    # ...nor in what it is told when it asks about it: the same as for an unknown actor.
    unknown = await client.post(f"{base}/actors/nobody/monitor/pending/d1", headers=ann)
    hidden = await client.post(f"{base}/actors/ganger/monitor/pending/d1", headers=ann)
    assert hidden.status == unknown.status == 404
    assert (await hidden.json())["detail"] == (await unknown.json())["detail"].replace(
        "nobody", "ganger"
    )
    # The GM sees it all: the monitor event is the GM's alone.
    gm_events = (await (await client.get(f"{base}/events")).json())["events"]
    edits = [e for e in gm_events if e["type"] == "monitor"]
    assert [(e["actor"], e.get("gm_only")) for e in edits] == [("ganger", True)]
    assert (await monitor_of(client, base, "ganger"))["physical"] == 3
    del encounter


async def test_players_are_not_told_that_a_hidden_actor_is_passed_over(client: Any) -> None:
    base = await on_scene(client, sam=SAM, ganger={**GANGER, "hidden": True})
    player = await client.post(f"{base}/players/ann", json={"actors": ["sam"]})
    ann = {"Authorization": f"Bearer {(await player.json())['token']}"}
    # The hidden ganger's stun track full (Willpower 3: 10 boxes): unconscious.
    knocked = await client.post(f"{base}/actors/ganger/monitor", json={"set": {"stun": 10}})
    assert knocked.status == 200, await knocked.text()
    scores = {"actors": [{"actor": "ganger", "score": 30}, {"actor": "sam", "score": 20}]}
    started = await client.post(f"{base}/initiative", json=scores)
    assert started.status == 201, await started.text()
    # The GM is told why the ganger's phase (30) goes by; Sam acts.
    effects = (await started.json())["result"]["effects"]
    assert "ganger is unconscious: its phase is passed over" in effects
    events = (await (await client.get(f"{base}/events", headers=ann)).json())["events"]
    told = [line for e in events for line in (e.get("result") or {}).get("effects", [])]
    assert "sam's combat phase (pass 1, score 20)" in told
    assert not [line for line in told if "unconscious" in line or "someone" in line]


async def test_the_vtt_keeps_the_monitors_when_damage_is_vtt(client: Any) -> None:
    base = await on_scene(client, damage="vtt", sam=SAM, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", KNOCKOUT))
    ganger = await (await client.get(f"{base}/actors/ganger")).json()
    assert ganger["monitor"] is None
    edit = await client.post(f"{base}/actors/ganger/monitor", json={"clear": True})
    body = await problem(edit, 409, "no-monitors")
    assert "the VTT keeps them" in body["detail"]
    given = await client.patch(f"{base}/actors/ganger", json={"monitor": {"physical": 2}})
    await problem(given, 409, "no-monitors")
    # Switched to the service's monitors: every actor gets one, empty (the VTT kept the 13
    # boxes); and back to the VTT's: they are dropped.
    switched = await client.put(f"{base}/state", json={"damage": "service"})
    assert switched.status == 201, await switched.text()
    assert (await monitor_of(client, base, "ganger"))["status"]["physical_max"] == 10
    back = await client.put(f"{base}/state", json={"damage": "vtt"})
    assert back.status == 201, await back.text()
    assert (await (await client.get(f"{base}/actors/ganger")).json())["monitor"] is None


async def test_second_chance_replaces_the_damage_of_the_attack_it_re_rolls(client: Any) -> None:
    sam = {**SAM, "sheet": {**SAM["sheet"], "edge": 2}}
    base = await on_scene(client, sam=sam, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", GRAZE))
    assert (await monitor_of(client, base, "ganger"))["physical"] == 4
    # Second Chance (the guide, "Edge"): the 11 dice that missed are rolled again, four 6s:
    # 1 + 4 = 5 hits (limit 5), 5 net hits; DV 8 + 5 = 13 against 8, physical; the soak
    # rolled stands (5 hits): 8 boxes. They replace the attack's 4: 8 physical, not 4 + 8.
    response = await client.post(
        f"{base}/actions",
        json={
            "actor": "sam",
            "action": "second_chance",
            "target": "ganger",
            "dice": {"second_chance:ganger": [6, 6, 6, 6, 2, 2, 2, 2, 2, 2, 2]},
        },
    )
    assert response.status == 201, await response.text()
    answer = await response.json()
    assert answer["result"]["attack"]["targets"][0]["damage"]["boxes"] == 8
    monitor = answer["changes"]["scene"]["ganger"]["monitor"]
    # -(8 // 3) = -2.
    assert (monitor["physical"], monitor["status"]["wound_modifier"]) == (8, -2)


async def test_second_chance_in_confirm_mode_replaces_the_damage_still_waiting(
    client: Any,
) -> None:
    sam = {**SAM, "sheet": {**SAM["sheet"], "edge": 2}}
    base = await on_scene(client, damage="confirm", sam=sam, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", GRAZE))
    second = {
        "actor": "sam",
        "action": "second_chance",
        "target": "ganger",
        "dice": {"second_chance:ganger": [6, 6, 6, 6, 2, 2, 2, 2, 2, 2, 2]},
    }
    response = await client.post(f"{base}/actions", json=second)
    assert response.status == 201, await response.text()
    # The 4 boxes waiting as d1 give way to the re-rolled attack's 8 (as above), as d2.
    pending = (await monitor_of(client, base, "ganger"))["pending"]
    assert [(p["id"], p["boxes"], p["source"]) for p in pending] == [
        ("d2", 8, "attack by sam (predator, second_chance)")
    ]


async def test_an_undone_attacks_pending_damage_id_is_never_given_again(client: Any) -> None:
    """A console still showing the undone d1 must not apply, by that id, damage of another hit."""
    base = await on_scene(client, damage="confirm", sam=SAM, ganger=GANGER)
    encounter = base.rsplit("/", 1)[1]
    await attack(client, encounter, shot("sam", "ganger", GRAZE))
    assert [p["id"] for p in (await monitor_of(client, base, "ganger"))["pending"]] == ["d1"]
    undone = await client.post(f"{base}/undo")
    assert undone.status == 200, await undone.text()
    assert (await monitor_of(client, base, "ganger")).get("pending", []) == []
    # The same shot again (the undo put the defenses taken back: 6 dice) waits as d2.
    await attack(client, encounter, shot("sam", "ganger", GRAZE))
    monitor = await monitor_of(client, base, "ganger")
    assert [(p["id"], p["boxes"]) for p in monitor["pending"]] == [("d2", 4)]
    stale = await client.post(f"{base}/actors/ganger/monitor/pending/d1")
    await problem(stale, 404, "pending-not-found")
