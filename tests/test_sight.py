"""Issue 23, hidden means hidden: a player's token (the shared one and a player's own) sees and
names only what it may, a hidden actor and an unknown one are alike to it in every answer,
event, problem and preview, and it acts only for actors its controller owns, with the scene's
numbers where the scene holds the sheet."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_trust import bearer

SHEET = {
    "ruleset": "sr5",
    "agility": 3,
    "strength": 3,
    "skill": 2,
    "reaction": 3,
    "intuition": 3,
    "body": 4,
    "willpower": 3,
    "armor": 9,
    "weapons": [make.weapon(id="predator")],
}
# Sam is Anna's; the goon is the GM's, in sight; the ghost is the GM's, hidden, 10 m from Sam.
ACTORS = {
    "sam": {"controller": "anna", "position": {"x": 0.0, "y": 0.0}, "sheet": SHEET},
    "goon-1": {"position": {"x": 12.0, "y": 0.0}, "sheet": SHEET},
    "ghost": {"hidden": True, "position": {"x": 0.0, "y": 10.0}, "sheet": SHEET},
}
# Every die rolled is a 5 where a test needs hits (the tests never count on luck).
FIVES = [5] * 30


async def table(client: Any, **settings: Any) -> tuple[str, dict[str, dict[str, str]]]:
    """An SR5 encounter with the three actors, and a token of each kind: the GM's, the shared
    player token, and Anna's own."""
    body = {"ruleset": "sr5", **settings}
    created = await client.post("/v1/encounters", json=body, headers=bearer(ADMIN_KEY))
    assert created.status == 201, await created.text()
    made = await created.json()
    base, gm = f"/v1/encounters/{made['id']}", bearer(made["tokens"]["gm"])
    for actor_id, actor in ACTORS.items():
        put = await client.put(f"{base}/actors/{actor_id}", json=actor, headers=gm)
        assert put.status == 200, await put.text()
    issued = await client.post(f"{base}/players/anna", json={"actors": ["sam"]}, headers=gm)
    anna = bearer((await issued.json())["token"])
    return base, {"gm": gm, "shared": bearer(made["tokens"]["player"]), "anna": anna}


PLAYERS = ("shared", "anna")


def _attack_at(target: str) -> dict[str, Any]:
    return {"attacker": "sam", "weapon": "predator", "mode": "SA", "targets": [{"id": target}]}


def _as_asked(response_body: dict[str, Any], name: str) -> dict[str, Any]:
    """A problem with the name it was about replaced, and its request id left out."""
    shown = {k: v for k, v in response_body.items() if k != "request_id"}
    return {
        k: re.sub(rf"\b{name}\b", "X", v) if isinstance(v, str) else v for k, v in shown.items()
    }


# Every route a player may call that names an actor, with the actor it names as X.
NAMING_ROUTES = [
    ("POST", "/attacks", lambda x: {**_attack_at(x), "dice": {"attack": FIVES[:4]}}),
    ("POST", "/attacks/odds", _attack_at),
    ("POST", "/attacks", lambda x: {**_attack_at("goon-1"), "attacker": x}),
    ("POST", "/attacks/odds", lambda x: {**_attack_at("goon-1"), "attacker": x}),
    ("POST", "/actions", lambda x: {"actor": x, "action": "full_defense"}),
    ("POST", "/actions", lambda x: {"actor": "sam", "action": "take_aim", "target": x}),
    ("GET", "/actors/{x}", None),
    ("POST", "/actors/{x}/move", lambda x: {"position": {"x": 1.0, "y": 1.0}}),
]


@pytest.mark.parametrize("who", PLAYERS)
@pytest.mark.parametrize(("method", "path", "body"), NAMING_ROUTES)
async def test_a_hidden_actor_and_an_unknown_one_answer_a_player_alike(
    anonymous: Any, who: str, method: str, path: str, body: Any
) -> None:
    """Issue 23: a player's preview against a hidden actor answered 200 where an unknown id
    answered 422; an attack on it 201; the shared token acted as it. Now the same answer,
    word for word but for the name, and nothing written."""
    base, tokens = await table(anonymous)
    answers = []
    for name in ("ghost", "nobody"):
        url = base + path.replace("{x}", name)
        before = (await (await anonymous.get(base, headers=tokens["gm"])).json())["version"]
        json = body(name) if body is not None else None
        response = await anonymous.request(method, url, json=json, headers=tokens[who])
        answers.append((response.status, _as_asked(await response.json(), name)))
        after = (await (await anonymous.get(base, headers=tokens["gm"])).json())["version"]
        assert after == before
    assert answers[0] == answers[1]
    assert answers[0][0] in (403, 404)


async def test_the_shared_token_acts_for_no_gm_actor(anonymous: Any) -> None:
    """Issue 23: the shared player token made an NPC shoot (and so gave the NPC's defense and
    soak dice, which the `own` dice policy forbids)."""
    base, tokens = await table(anonymous)
    for body in (
        {**_attack_at("sam"), "attacker": "goon-1", "weapon": "predator"},
        {"actor": "goon-1", "action": "full_defense"},
    ):
        path = "/attacks" if "attacker" in body else "/actions"
        refused = await anonymous.post(base + path, json=body, headers=tokens["shared"])
        assert refused.status == 403
        problem = await refused.json()
        assert problem["type"].endswith("/forbidden")
        assert problem["path"] in ("$.attacker.id", "$.actor")
    # It still acts for a player's actor; the GM's token acts for the goon (first, and a miss:
    # Agility 3 + skill 2, -1 at 12 m, 4 dice without a hit; the service keeps the damage
    # dealt, and an actor put out of the fight acts for nobody).
    gms = {**_attack_at("sam"), "attacker": "goon-1", "dice": {"attack": [2] * 4}}
    assert (await anonymous.post(f"{base}/attacks", json=gms, headers=tokens["gm"])).ok
    mine = {**_attack_at("goon-1"), "dice": {"attack": FIVES[:4]}}
    assert (await anonymous.post(f"{base}/attacks", json=mine, headers=tokens["shared"])).ok


@pytest.mark.parametrize("who", PLAYERS)
async def test_a_players_request_takes_the_scenes_numbers(anonymous: Any, who: str) -> None:
    """Issue 23: Anna's token sent Sam with Agility 12 and skill 12 (the sheet says 3 and 2),
    at a defender typed with armour 0, and was accepted."""
    base, tokens = await table(anonymous)
    cheat = make.attack(
        attacker=make.attacker(id="sam", agility=12, skill=12, strength=3),
        targets=[make.target(id="goon-1", defender=make.defender(armor=0))],
    )
    refused = await anonymous.post(f"{base}/attacks", json=cheat, headers=tokens[who])
    assert refused.status == 403
    assert (await refused.json())["path"] == "$.attacker.agility"
    honest_attacker = {"id": "sam", "agility": 3, "skill": 2, "strength": 3}
    cheat = {**_attack_at("goon-1"), "attacker": honest_attacker}
    cheat["targets"] = [{"id": "goon-1", "defender": make.defender(armor=0)}]
    refused = await anonymous.post(f"{base}/attacks", json=cheat, headers=tokens[who])
    assert refused.status == 403
    assert (await refused.json())["path"] == "$.targets[0].defender.armor"
    # The sheet's own numbers typed in are the scene's: the attack stands, on the sheet.
    # Pool (000, "Ranged attack"): Agility 3 + skill 2 = 5, -1 at medium range (12 m from Sam
    # to the goon, a heavy pistol's 6-20 m) = 4 dice, all fives: 4 hits.
    honest = {**_attack_at("goon-1"), "attacker": honest_attacker}
    # The goon's dice are the GM's to give: the seed rolls them.
    honest.update(dice={"attack": FIVES[:4]}, seed=7)
    shot = await anonymous.post(f"{base}/attacks", json=honest, headers=tokens[who])
    assert shot.status == 201, await shot.text()
    result = (await shot.json())["result"]["targets"][0]
    assert result["attack_hits"] == 4
    # The GM lets players type their own numbers (a VTT that keeps its sheets): they stand.
    edit = await anonymous.put(
        f"{base}/state", json={"sheet_policy": "typed"}, headers=tokens["gm"]
    )
    assert edit.status == 201, await edit.text()
    typed = make.attack(
        attacker=make.attacker(id="sam", agility=12, skill=12, strength=3),
        dice={"attack": [5] * 24},
    )
    shot = await anonymous.post(f"{base}/attacks", json=typed, headers=tokens[who])
    assert shot.status == 201, await shot.text()
    # 12 + 12 = 24 dice, all fives: 24 hits before the Predator's accuracy 5.
    assert (await shot.json())["result"]["targets"][0]["attack_hits_before_limit"] == 24


async def test_no_player_is_called_gm(anonymous: Any) -> None:
    """Issue 23: a player named `gm` was the GM's controller and got every NPC, hidden ones
    included."""
    base, tokens = await table(anonymous)
    refused = await anonymous.post(f"{base}/players/gm", json={"actors": []}, headers=tokens["gm"])
    assert refused.status == 422
    assert (await refused.json())["path"] == "player"


async def _everything_a_player_reads(client: Any, base: str, who: dict[str, str]) -> str:
    bodies = []
    for path in ("", "/zones", "/actors", "/events", "/initiative"):
        response = await client.get(base + path, headers=who)
        assert response.status == 200, (path, await response.text())
        bodies.append(await response.text())
    return "\n".join(bodies)


async def test_what_a_player_reads_never_names_the_hidden_actor(anonymous: Any) -> None:
    """Issue 23: the hidden actor was in `combat.actors` with its counters, in GET .../zones and
    a zone's `shooter`, in the bystanders suppressive fire takes from the scene, and in a 409's
    text. Every read, every event of every type (on a page and on a live socket) and every
    problem a player gets leaves it out."""
    base, tokens = await table(anonymous)
    gm = tokens["gm"]
    sockets = {
        who: await anonymous.ws_connect(f"{base}/ws", headers=tokens[who]) for who in PLAYERS
    }
    # The initiative with the ghost first; the ghost takes full defense and fires at Sam.
    start = {
        "actors": [{"actor": a, "score": s} for a, s in (("ghost", 20), ("sam", 10), ("goon-1", 5))]
    }
    started = await anonymous.post(f"{base}/initiative", json=start, headers=gm)
    assert started.status == 201, await started.text()
    acted = await anonymous.post(
        f"{base}/attacks",
        # Sam defends with all six dice hitting: a miss (a random defense could leave Sam
        # unconscious, and the refusal below would then be about Sam).
        json={
            **_attack_at("sam"),
            "attacker": "ghost",
            "dice": {"attack": FIVES[:4], "defense:sam": FIVES[:6]},
        },
        headers=gm,
    )
    assert acted.status == 201, await acted.text()
    # It is the ghost's phase still: a player's shot is refused, and the refusal is told.
    early = await anonymous.post(
        f"{base}/attacks", json={**_attack_at("goon-1")}, headers=tokens["anna"]
    )
    assert early.status == 409, await early.text()
    assert "ghost" not in await early.text()
    assert "someone" in (await early.json())["detail"]
    # The ghost's phase ends; Sam lays suppressive fire over the ghost and the goon.
    advanced = await anonymous.post(f"{base}/advance", json={"to": "action_phase"}, headers=gm)
    assert advanced.status == 201, await advanced.text()
    weapon = make.weapon(id="ak", category="assault_rifle", modes=["SA", "BF", "FA"], ammo=30)
    sheet = {**SHEET, "weapons": [weapon]}
    await anonymous.patch(f"{base}/actors/sam", json={"sheet": sheet}, headers=gm)
    zone = {
        "attacker": "sam",
        "weapon": "ak",
        "mode": "suppressive",
        "targets": [],
        # North from Sam, 30 m: the ghost (10 m north) is inside.
        "zone": {"origin": {"x": 0.0, "y": 0.0}, "direction_deg": 90, "length_m": 30},
        "seed": 11,
    }
    fired = await anonymous.post(f"{base}/attacks", json=zone, headers=tokens["anna"])
    assert fired.status == 201, await fired.text()
    assert "ghost" not in await fired.text()
    page = await (await anonymous.get(f"{base}/events", headers=gm)).json()
    affected = page["events"][-1]["result"]["zone"]["affected"]
    # The fire took the ghost in as it stood (hidden or not).
    assert [a["actor"] for a in affected if a["inside"]] == ["ghost"]
    zone = page["events"][-1]["result"]["zone"]["zone"]["id"]
    # The ghost tests against the zone, takes full defense, and the GM corrects its state.
    tested = await anonymous.post(
        f"{base}/zones/{zone}/tests", json={"actor": "ghost", "seed": 3}, headers=gm
    )
    assert tested.status == 201, await tested.text()
    body = {"actor": "ghost", "action": "full_defense"}
    acted = await anonymous.post(f"{base}/actions", json=body, headers=gm)
    assert acted.status == 201, await acted.text()
    edit = {"combat": {"ruleset": "sr5", "actors": {"ghost": {"defenses": 1}}}}
    assert (await anonymous.put(f"{base}/state", json=edit, headers=gm)).status == 201
    revoked = await anonymous.post(f"{base}/players/kim", json={"actors": []}, headers=gm)
    assert revoked.status == 201
    # Every event type but the end has happened, about the ghost or beside it.
    page = await (await anonymous.get(f"{base}/events", headers=gm)).json()
    types = {e["type"] for e in page["events"]}
    assert types == {
        "encounter_created",
        "scene",
        "players",
        "initiative",
        "attack",
        "advance",
        "zone_test",
        "action",
        "state_edited",
    }
    last = page["last_event_id"]
    for who in PLAYERS:
        seen = await _everything_a_player_reads(anonymous, base, tokens[who])
        assert "ghost" not in seen, who
        # The live socket: every frame up to the last event, none naming the ghost.
        frames = []
        while True:
            frame = await sockets[who].receive_json(timeout=5)
            frames.append(frame)
            if frame["id"] >= last:
                break
        assert "ghost" not in str(frames), who
        await sockets[who].close()
    # The GM reads it all.
    assert "ghost" in await _everything_a_player_reads(anonymous, base, gm)


@pytest.mark.parametrize("who", PLAYERS)
async def test_where_players_type_their_numbers_a_hidden_name_is_an_unknown_one(
    anonymous: Any, who: str
) -> None:
    """Under the "typed" sheet policy a player may name actors the scene does not hold: a
    hidden actor's name is one of them, filled in from nothing of the hidden actor, its combat
    state neither read nor written, and the answer the same as for a name never used."""
    base, tokens = await table(anonymous, sheet_policy="typed")
    gm = tokens["gm"]
    # The ghost has defended twice already (-2 to its next defense, were it read).
    edit = {"combat": {"ruleset": "sr5", "actors": {"ghost": {"defenses": 2}}}}
    assert (await anonymous.put(f"{base}/state", json=edit, headers=gm)).status == 201
    answers = []
    for name in ("ghost", "nobody"):
        shot = make.attack(
            attacker=make.attacker(id="sam", agility=3, skill=2, strength=3),
            targets=[make.target(id=name, distance_m=4)],
            dice={"attack": FIVES[:5]},
            seed=5,
        )
        fired = await anonymous.post(f"{base}/attacks", json=shot, headers=tokens[who])
        assert fired.status == 201, await fired.text()
        result = (await fired.json())["result"]["targets"][0]
        answers.append({k: v for k, v in result.items() if k != "target"})
        assert result["target"] == name
    assert answers[0] == answers[1]
    # Pool 3 + 2 = 5 at 4 m (short): 5 dice, all fives, 5 hits; the defense takes no -2.
    assert answers[0]["attack_hits"] == 5
    assert not any(m["value"] < 0 for m in answers[0]["defense_modifiers"])
    combat = (await (await anonymous.get(base, headers=gm)).json())["combat"]["actors"]
    assert combat["ghost"] == {"defenses": 2}


def test_the_redaction_leaves_what_is_not_a_name_alone() -> None:
    """An entry whose `target` is an object (Hard Life's zone test result) or a number is no
    actor's name: it stays, and only the hidden actor's entries and names go."""
    from service.engine.sight import Sight

    sight = Sight("player", frozenset({"ghost"}))
    shown = sight.redact(
        {
            "tests": [{"target": {"target": "sam"}}, {"id": 3}, {"actor": "ghost"}],
            "actors": {"ghost": {"defenses": 1}, "sam": {}},
            "shooter": "ghost",
            "effects": ["ghost's phase begins", "ghostly"],
            "dice": [{"step": "defense:ghost"}, {"step": "attack"}],
            "names": ["sam", "ghost"],
        }
    )
    assert shown == {
        "tests": [{"target": {"target": "sam"}}, {"id": 3}],
        "actors": {"sam": {}},
        "shooter": "someone",
        # A line about the hidden actor goes whole: "someone's phase begins" would tell that
        # it is there.
        "effects": ["ghostly"],
        "dice": [{"step": "attack"}],
        "names": ["sam"],
    }


async def test_a_hidden_name_inside_a_name_the_request_gave_stays_hidden(anonymous: Any) -> None:
    """A name the request gave is said back as given; a hidden actor whose id is only part of
    one ("goon" in "goon-1") is not: the 409 about its phase still says "someone"."""
    base, tokens = await table(anonymous)
    gm = tokens["gm"]
    lurker = {"hidden": True, "position": {"x": 5.0, "y": 5.0}, "sheet": SHEET}
    assert (await anonymous.put(f"{base}/actors/goon", json=lurker, headers=gm)).status == 200
    start = {"actors": [{"actor": "goon", "score": 20}, {"actor": "sam", "score": 10}]}
    assert (await anonymous.post(f"{base}/initiative", json=start, headers=gm)).status == 201
    early = await anonymous.post(
        f"{base}/attacks", json=_attack_at("goon-1"), headers=tokens["anna"]
    )
    assert early.status == 409, await early.text()
    detail = (await early.json())["detail"]
    assert "someone" in detail and "goon'" not in detail and "goon " not in detail


def test_the_names_a_request_gave_are_whole_names() -> None:
    from service.engine.sight import Sight

    sight = Sight("player", frozenset({"goon", "ghost"}))
    assert sight.but_what_was_asked('{"targets": [{"id": "goon-1"}]}').hidden == {"goon", "ghost"}
    assert sight.but_what_was_asked('{"targets": [{"id": "ghost"}]}').hidden == {"goon"}
