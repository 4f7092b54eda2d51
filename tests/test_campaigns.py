"""Issue 25: campaigns over HTTP, on the embedded store, Redis and the cluster. A campaign keeps
the group's characters and the GM's templates; an encounter started in it brings them into its
scene (a template as numbered copies), its players' campaign tokens open it, and its end gives
the characters back their monitors, rounds and Edge spent, as the GM chooses.

The numbers are worked by hand from tests/data/imports/kestrel.chum5 (tests/test_imports_chummer5.py
reads it field by field: Body 4, Willpower 3, Agility 6, Pistols 5, the Ares Predator V with 12
rounds) and SR5's condition monitor (physical 8 + ceil(Body / 2) = 10, stun 8 + ceil(Willpower /
2) = 10, -1 per 3 boxes of each track)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.api.app_keys import STORE
from tests.sr5_requests import README_GANGER_SHEET

KESTREL = (Path(__file__).parent / "data" / "imports" / "kestrel.chum5").read_bytes()
GANGER = {"kind": "template", "name": "Ganger", "sheet": README_GANGER_SHEET}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def campaign(client: Any, ruleset: str = "sr5") -> tuple[str, dict[str, str]]:
    """A new campaign's path and its GM's headers."""
    response = await client.post("/v1/campaigns", json={"ruleset": ruleset, "name": "Seattle"})
    assert response.status == 201, await response.text()
    made = await response.json()
    assert made["id"].startswith("campaign-") and len(made["id"]) == len("campaign-") + 32
    assert response.headers["Location"] == f"/v1/campaigns/{made['id']}"
    return f"/v1/campaigns/{made['id']}", bearer(made["token"])


async def table(client: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    """A campaign with Kestrel (anna's, imported, 3 physical and 2 stun boxes marked) and the
    ganger template; its path, the GM's headers and anna's."""
    base, gm = await campaign(client)
    response = await client.post(
        f"{base}/actors/kestrel/import", params={"format": "chummer5"}, data=KESTREL, headers=gm
    )
    assert response.status == 201, await response.text()
    assert (await response.json())["report"]["name"] == "Kestrel"
    response = await client.patch(
        f"{base}/actors/kestrel", json={"monitor": {"physical": 3, "stun": 2}}, headers=gm
    )
    assert response.status == 200, await response.text()
    assert (await client.put(f"{base}/actors/ganger", json=GANGER, headers=gm)).status == 201
    response = await client.post(
        f"{base}/players/anna", json={"characters": ["kestrel"]}, headers=gm
    )
    assert response.status == 201, await response.text()
    return base, gm, bearer((await response.json())["token"])


async def started(client: Any, base: str, gm: dict[str, str], **body: Any) -> dict[str, Any]:
    body.setdefault("bring", [{"actor": "kestrel"}, {"actor": "ganger", "count": 2}])
    response = await client.post(f"{base}/encounters", json=body, headers=gm)
    assert response.status == 201, await response.text()
    return dict(await response.json())


async def test_the_gm_keeps_characters_and_templates_and_a_player_sees_only_characters(
    client: Any,
) -> None:
    base, gm, anna = await table(client)
    seen = await (await client.get(base, headers=gm)).json()
    assert (seen["name"], seen["ruleset"], seen["players"], seen["player"]) == (
        "Seattle",
        "sr5",
        ["anna"],
        "",
    )
    kestrel = seen["actors"]["kestrel"]
    assert (kestrel["kind"], kestrel["name"], kestrel["controller"]) == (
        "character",
        "Kestrel",
        "anna",
    )
    # Its monitor's status worked out on its sheet: 10 and 10 boxes, 3 // 3 + 2 // 3 = -1.
    status = kestrel["monitor"]["status"]
    assert (status["physical_max"], status["stun_max"], status["wound_modifier"]) == (10, 10, -1)
    assert seen["actors"]["ganger"]["kind"] == "template"

    theirs = await client.get(base, headers=anna)
    assert theirs.status == 200
    theirs = await theirs.json()
    # Templates are the GM's: a player sees neither them nor who else holds a token.
    assert list(theirs["actors"]) == ["kestrel"]
    assert (theirs["players"], theirs["player"]) == ([], "anna")
    assert b"ganger" not in await (await client.get(base, headers=anna)).read()
    refused = await client.put(f"{base}/actors/kestrel", json={"name": "K"}, headers=anna)
    assert refused.status == 403


async def test_an_encounter_brings_the_characters_and_numbered_copies_of_a_template(
    client: Any,
) -> None:
    base, gm, anna = await table(client)
    made = await started(client, base, gm, name="Docks", dice_policy="any")
    assert made["campaign"] == base.rsplit("/", 1)[1]
    assert made["brought"] == {"kestrel": ["kestrel"], "ganger": ["ganger-1", "ganger-2"]}
    encounter = f"/v1/encounters/{made['id']}"
    # The campaign's GM token opens it as its GM, beside the encounter's own.
    view = await (await client.get(encounter, headers=gm)).json()
    assert view["campaign"] == made["campaign"]
    assert (view["damage"], view["sheet_policy"]) == ("service", "scene")
    scene = view["scene"]
    assert sorted(scene) == ["ganger-1", "ganger-2", "kestrel"]
    assert (scene["ganger-1"]["name"], scene["ganger-2"]["name"]) == ("Ganger 1", "Ganger 2")
    assert scene["ganger-1"]["controller"] == "gm"
    assert (scene["kestrel"]["controller"], scene["kestrel"]["monitor"]["physical"]) == ("anna", 3)
    # A ganger copy's monitor is sized on its sheet: physical 8 + ceil(Body 4 / 2) = 10.
    assert scene["ganger-2"]["monitor"]["status"]["physical_max"] == 10
    own = bearer(made["tokens"]["gm"])
    assert (await client.get(encounter, headers=own)).status == 200
    # The campaign lists it.
    listed = (await (await client.get(base, headers=anna)).json())["encounters"]
    assert [(e["id"], e["name"]) for e in listed] == [(made["id"], "Docks")]

    # Anna's campaign token is her player token here: she shoots with Kestrel.
    for actor, x in (("kestrel", 0.0), ("ganger-1", 12.0)):
        response = await client.patch(
            f"{encounter}/actors/{actor}", json={"position": {"x": x, "y": 0.0}}, headers=gm
        )
        assert response.status == 200, await response.text()
    attack = {
        "attacker": "kestrel",
        "weapon": "ares-predator-v",
        "mode": "SA",
        "targets": [{"id": "ganger-1"}],
        "dice": {
            "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2],
            "defense:ganger-1": [5, 2, 3, 1, 4, 2],
            "soak:ganger-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
        },
    }
    response = await client.post(f"{encounter}/attacks", json=attack, headers=anna)
    assert response.status == 201, await response.text()
    target = (await response.json())["result"]["targets"][0]
    # Agility 6 + Pistols 5 = 11, -1 for the wounds she brought = 10, -1 for 12 m (medium range
    # for a heavy pistol) = 9 dice, 4 hits (6 5 5 5); Reaction 3 + Intuition 3 = 6 dice, 1 hit:
    # 3 net hits. DV 8 + 3 = 11 against armour 9 - AP 1 = 8; soak 12 dice, 2 hits: 9 boxes.
    assert target["attack"]["pool"] == 9
    assert target["damage"]["boxes"] == 9
    # Anna's token acts and moves for Kestrel alone.
    move = {"position": {"x": 1.0, "y": 1.0}}
    assert (await client.post(f"{encounter}/actors/kestrel/move", json=move, headers=anna)).ok
    moved = await client.post(f"{encounter}/actors/ganger-2/move", json=move, headers=anna)
    assert moved.status == 403


async def test_the_end_gives_the_characters_back_what_the_fight_changed(client: Any) -> None:
    base, gm, _ = await table(client)
    template = (await (await client.get(base, headers=gm)).json())["actors"]["ganger"]
    made = await started(client, base, gm)
    encounter = f"/v1/encounters/{made['id']}"
    for actor, x in (("kestrel", 0.0), ("ganger-1", 12.0)):
        await client.patch(
            f"{encounter}/actors/{actor}", json={"position": {"x": x, "y": 0.0}}, headers=gm
        )
    attack = {
        "attacker": "kestrel",
        "weapon": "ares-predator-v",
        "mode": "SA",
        "targets": [{"id": "ganger-1"}],
        # Pushing the Limit: her 9 dice and her Edge 3, all missing; it spends 1 Edge point.
        "edge": "push_the_limit",
        "dice": {"attack": [1] * 12, "defense:ganger-1": [1] * 6},
    }
    shot = await client.post(f"{encounter}/attacks", json=attack)
    assert shot.status == 201, await shot.text()
    assert (await shot.json())["result"]["edge_spent"] == 1
    # Kestrel takes 2 more physical boxes in the fight.
    hurt = await client.post(f"{encounter}/actors/kestrel/monitor", json={"set": {"physical": 5}})
    assert hurt.status == 200, await hurt.text()
    # The template's copy is hurt too: the template never changes.
    await client.post(f"{encounter}/actors/ganger-2/monitor", json={"set": {"stun": 4}})

    ended = await client.delete(encounter, headers=gm)
    assert ended.status == 200, await ended.text()
    assert await ended.json() == {
        "campaign": made["campaign"],
        "carried": {"kestrel": ["monitor", "ammo", "edge"]},
        "skipped": {},
    }
    assert (await client.get(encounter)).status == 410
    kept = await (await client.get(base, headers=gm)).json()
    kestrel = kept["actors"]["kestrel"]
    # 5 physical, 2 stun: 5 // 3 + 2 // 3 = -1.
    assert (kestrel["monitor"]["physical"], kestrel["monitor"]["stun"]) == (5, 2)
    assert kestrel["monitor"]["status"]["wound_modifier"] == -1
    # One round fired from the Predator's 12; the other guns as imported (Alpha 30).
    guns = {w["id"]: w["ammo"] for w in kestrel["sheet"]["weapons"]}
    assert (guns["ares-predator-v"], guns["ares-alpha"]) == (11, 30)
    assert kestrel["edge_spent"] == 1
    assert kept["actors"]["ganger"] == template
    [listed] = kept["encounters"]
    assert (listed["ended"], listed["carried"]) == (True, {"kestrel": ["monitor", "ammo", "edge"]})

    # The next encounter brings Kestrel as the last one left her.
    again = await started(client, base, gm, bring=[{"actor": "kestrel"}])
    view = await (await client.get(f"/v1/encounters/{again['id']}", headers=gm)).json()
    brought = view["scene"]["kestrel"]
    assert (brought["monitor"]["physical"], brought["edge_spent"]) == (5, 1)
    assert brought["sheet"]["weapons"][0]["ammo"] == 11


async def test_the_gm_chooses_what_carries_over_and_for_whom(client: Any) -> None:
    base, gm, _ = await table(client)
    made = await started(client, base, gm)
    encounter = f"/v1/encounters/{made['id']}"
    await client.post(f"{encounter}/actors/kestrel/monitor", json={"set": {"physical": 6}})
    await client.patch(f"{encounter}/actors/kestrel", json={"edge_spent": 1})

    # A name the encounter did not bring from its campaign: refused, and nothing is ended.
    refused = await client.delete(encounter, params={"actors": "ganger-1"}, headers=gm)
    assert refused.status == 422, await refused.text()
    assert (await refused.json())["path"] == "actors"
    wrong = await client.delete(encounter, params={"carry": "monitor,karma"}, headers=gm)
    assert wrong.status == 400
    assert (await wrong.json())["path"] == "carry"
    assert (await client.get(encounter)).status == 200

    ended = await client.delete(encounter, params={"carry": "edge"}, headers=gm)
    assert ended.status == 200, await ended.text()
    assert (await ended.json())["carried"] == {"kestrel": ["edge"]}
    kestrel = (await (await client.get(base, headers=gm)).json())["actors"]["kestrel"]
    # The wounds stay as they were before the fight (3 physical), the Edge spent is the fight's.
    assert (kestrel["monitor"]["physical"], kestrel["edge_spent"]) == (3, 1)

    other = await started(client, base, gm)
    await client.post(f"/v1/encounters/{other['id']}/actors/kestrel/monitor", json={"clear": True})
    nothing = await client.delete(f"/v1/encounters/{other['id']}", params={"carry": "none"})
    assert nothing.status == 200
    assert (await nothing.json())["carried"] == {"kestrel": []}
    kestrel = (await (await client.get(base, headers=gm)).json())["actors"]["kestrel"]
    assert kestrel["monitor"]["physical"] == 3


async def test_what_a_bring_may_not_ask(client: Any) -> None:
    base, gm, _ = await table(client)
    cases = [
        ([{"actor": "nobody"}], 404, "$.bring[0].actor"),
        ([{"actor": "kestrel", "count": 2}], 422, "$.bring[0].count"),
        ([{"actor": "ganger"}, {"actor": "ganger"}], 422, "$.bring[1].actor"),
        ([{"actor": "ganger", "count": 21}], 400, "$.bring[0].count"),
    ]
    for bring, status, path in cases:
        response = await client.post(f"{base}/encounters", json={"bring": bring}, headers=gm)
        assert response.status == status, (bring, await response.text())
        assert (await response.json())["path"] == path, bring
    # A copy's id taken by another actor of the campaign.
    await client.put(f"{base}/actors/ganger-1", json={"name": "Boss"}, headers=gm)
    response = await client.post(
        f"{base}/encounters", json={"bring": [{"actor": "ganger"}]}, headers=gm
    )
    assert response.status == 422
    assert "ganger-1" in (await response.json())["detail"]
    # Nothing was started by any of them.
    assert (await (await client.get(base, headers=gm)).json())["encounters"] == []


async def test_a_sheet_of_another_ruleset_and_a_file_of_another_are_refused(client: Any) -> None:
    base, gm = await campaign(client, "sr4")
    response = await client.put(
        f"{base}/actors/ganger", json={"sheet": README_GANGER_SHEET}, headers=gm
    )
    assert response.status == 422
    assert (await response.json())["path"] == "$.sheet.ruleset"
    response = await client.post(
        f"{base}/actors/kestrel/import", params={"format": "chummer5"}, data=KESTREL, headers=gm
    )
    assert response.status == 422
    assert (await response.json())["type"].endswith("/wrong-ruleset")
    assert (await (await client.get(base, headers=gm)).json())["actors"] == {}


async def test_a_stranger_learns_nothing_of_which_campaigns_there_are(make_client: Any) -> None:
    client = await make_client()
    base, gm = await campaign(client)
    stranger = await make_client(admin=False)
    unknown = base[:-1] + ("0" if base[-1] != "0" else "1")
    answers = []
    for path in (base, unknown, "/v1/campaigns/not-a-campaign"):
        response = await stranger.get(path, headers=bearer("wrong"))
        answers.append((response.status, (await response.json())["detail"]))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] == 401
    # The admin key learns that one does not exist; a campaign is never an encounter.
    assert (await client.get(unknown)).status == 404
    assert (await client.get(f"/v1/encounters/{base.rsplit('/', 1)[1]}")).status == 404
    assert (await client.get(base, headers=gm)).status == 200


async def test_a_retried_start_is_one_encounter(client: Any) -> None:
    base, gm, _ = await table(client)
    headers = {**gm, "Idempotency-Key": "start-docks"}
    body = {"name": "Docks", "bring": [{"actor": "kestrel"}]}
    first = await client.post(f"{base}/encounters", json=body, headers=headers)
    second = await client.post(f"{base}/encounters", json=body, headers=headers)
    assert (first.status, second.status) == (201, 201)
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert await first.json() == await second.json()
    listed = (await (await client.get(base, headers=gm)).json())["encounters"]
    assert len(listed) == 1


async def test_a_players_campaign_token_reaches_the_encounters_already_open(client: Any) -> None:
    base, gm, _ = await table(client)
    made = await started(client, base, gm)
    encounter = f"/v1/encounters/{made['id']}"
    # bo joins after the fight started: her campaign token opens it at once, for her character.
    await client.put(f"{base}/actors/bo", json={"name": "Bo"}, headers=gm)
    given = await client.post(f"{base}/players/bo", json={"characters": ["bo"]}, headers=gm)
    assert given.status == 201, await given.text()
    bo = bearer((await given.json())["token"])
    assert (await client.get(encounter, headers=bo)).status == 200
    assert (await client.get(base, headers=bo)).status == 200
    # Bo is not in this scene: she acts for nobody here.
    move = {"position": {"x": 1.0, "y": 1.0}}
    assert (
        await client.post(f"{encounter}/actors/kestrel/move", json=move, headers=bo)
    ).status == 403

    revoked = await client.delete(f"{base}/players/bo", headers=gm)
    assert revoked.status == 200, await revoked.text()
    assert (await client.get(base, headers=bo)).status == 401
    assert (await client.get(encounter, headers=bo)).status == 401
    again = await client.delete(f"{base}/players/bo", headers=gm)
    assert (again.status, (await again.json())["path"]) == (404, "player")


async def test_hard_life_carries_its_damage_by_location_and_its_worn_armour(client: Any) -> None:
    base, gm = await campaign(client, "sr3-hardlife")
    ripley = {
        "name": "Ripley",
        "sheet": {"ruleset": "sr3-hardlife", "body": 4},
        # 3 boxes on the torso: M (004, "Taking Damage"), +2 to target numbers.
        "locations": {"torso": {"physical": 3}},
        "worn": [{"garment": "vest", "wear": {"torso": 1}}],
    }
    assert (await client.put(f"{base}/actors/ripley", json=ripley, headers=gm)).status == 201
    # Its damage is by location, not a monitor.
    wrong = await client.patch(
        f"{base}/actors/ripley", json={"monitor": {"physical": 1}}, headers=gm
    )
    assert (wrong.status, (await wrong.json())["path"]) == (422, "$.monitor")
    made = await started(client, base, gm, bring=[{"actor": "ripley"}])
    encounter = f"/v1/encounters/{made['id']}"
    state = (await (await client.get(encounter, headers=gm)).json())["combat"]["actors"]["ripley"]
    assert state["monitors"] == {"torso": {"physical": 3}}
    assert state["condition"]["target_number_modifier"] == 2
    assert [(a["garment"], a["wear"]) for a in state["armor"]] == [("vest", {"torso": 1})]

    # The fight: the torso at S (6 boxes), the vest worn down once more.
    fought = {
        "body": 4,
        "monitors": {"torso": {"physical": 6}},
        "armor": [{"garment": "vest", "wear": {"torso": 2}}],
    }
    edit = {"combat": {"ruleset": "sr3-hardlife", "actors": {"ripley": fought}}}
    assert (await client.put(f"{encounter}/state", json=edit, headers=gm)).status == 201
    ended = await client.delete(encounter, headers=gm)
    assert (await ended.json())["carried"] == {"ripley": ["monitor"]}
    kept = (await (await client.get(base, headers=gm)).json())["actors"]["ripley"]
    assert kept["locations"] == {"torso": {"physical": 6}}
    assert [(a["garment"], a["wear"]) for a in kept["worn"]] == [("vest", {"torso": 2})]


async def test_an_sr5_campaign_refuses_hard_lifes_locations(client: Any) -> None:
    base, gm = await campaign(client)
    body = {"locations": {"torso": {"physical": 3}}}
    response = await client.put(f"{base}/actors/sam", json=body, headers=gm)
    assert (response.status, (await response.json())["path"]) == (422, "$.locations")


async def test_a_hidden_character_is_the_gms_alone_in_the_campaign_too(client: Any) -> None:
    base, gm, anna = await table(client)
    # The GM's recurring villain is a character (her wounds carry over), hidden from players.
    villain = {"name": "Mirage", "hidden": True, "monitor": {"stun": 2}}
    assert (await client.put(f"{base}/actors/mirage", json=villain, headers=gm)).status == 201
    made = await started(client, base, gm, bring=[{"actor": "kestrel"}, {"actor": "mirage"}])
    ended = await client.delete(f"/v1/encounters/{made['id']}", headers=gm)
    assert set((await ended.json())["carried"]) == {"kestrel", "mirage"}
    theirs = await client.get(base, headers=anna)
    body = await theirs.read()
    assert b"mirage" not in body.lower()
    seen = await theirs.json()
    assert list(seen["actors"]) == ["kestrel"]
    assert list(seen["encounters"][0]["carried"]) == ["kestrel"]


async def test_an_encounter_whose_state_cannot_be_read_still_ends_with_nothing_carried(
    client: Any,
) -> None:
    base, gm, _ = await table(client)
    made = await started(client, base, gm)
    encounter = f"/v1/encounters/{made['id']}"
    # Kestrel on the scene written past this version's bounds, as an older or newer version
    # might have left it.
    store = client.server.app[STORE]
    stored = await store.load(made["id"])
    fields = {"s:kestrel": b"\x81\xa9not-a-key\x01"}
    done = await store.commit(made["id"], stored.version, fields, (), b'{"type":"x"}')
    assert done.__class__.__name__ == "Committed"
    refused = await client.delete(encounter, headers=gm)
    assert refused.status == 409, await refused.text()
    ended = await client.delete(encounter, params={"carry": "none"}, headers=gm)
    assert ended.status == 200, await ended.text()
    assert (await ended.json())["carried"] == {"kestrel": []}
    listed = (await (await client.get(base, headers=gm)).json())["encounters"]
    assert listed[0]["ended"] is True
