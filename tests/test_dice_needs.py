"""Issue 27, physical dice first: POST .../dice says what a request will roll before anything is
rolled, step by step, for every ruleset; a step whose count depends on dice not yet given
appears once they are given. The pools below are worked by hand from the sheets in the bodies.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from service.api.app_keys import ENCOUNTERS
from service.rules import dice_needs
from tests import d100_requests, sr3_requests, sr3hl_requests, sr4_requests
from tests import sr5_requests as make
from tests.sr5_requests import README_GANGER_SHEET, README_SAM
from tests.test_api import new_encounter
from tests.test_bounds_previews import _until
from tests.test_trust import bearer, open_table


def _needs_path(encounter: str) -> str:
    return f"/v1/encounters/{encounter}/dice"


async def _needs(client: Any, encounter: str, body: dict[str, Any], **kw: Any) -> dict[str, Any]:
    answer = await client.post(_needs_path(encounter), json=body, **kw)
    assert answer.status == 200, await answer.text()
    found: dict[str, Any] = await answer.json()
    assert found["kind"] == "dice_needs"
    return found


def _steps(found: dict[str, Any]) -> list[tuple[str, str | None, int, int, bool]]:
    """Each step as (step, actor, count, dice given, certain)."""
    return [
        (s["step"], s["actor"], s["count"], s["given_dice"], s["certain"]) for s in found["steps"]
    ]


async def test_sr5_an_attack_says_its_pool_then_the_soak_once_the_dice_before_it_are_given(
    store_client: Any,
) -> None:
    encounter = await new_encounter(store_client)
    # Attack: agility 5 + skill 5 = 10 dice (SA, 4 m: short range, no modifier). Defense:
    # reaction 3 + intuition 3 = 6, rolled only once the attack has a hit. Soak: body 4 +
    # armor 9 + AP -1 = 12, only on a hit.
    found = await _needs(store_client, encounter, {"attack": make.attack()})
    assert _steps(found) == [
        ("attack", "sam", 10, 0, True),
        ("defense:goon-1", "goon-1", 6, 0, False),
        ("soak:goon-1", "goon-1", 12, 0, False),
    ]
    attack = found["steps"][0]
    assert (attack["sides"], attack["given"], attack["forms"], attack["counts"]) == (
        6,
        False,
        ["faces", "counts"],
        ["hits", "ones"],
    )
    assert attack["label"] == "sam: roll 10d6"
    assert (found["more"], found["ready"]) == (True, False)
    assert found["label"] == "sam: roll 10d6; then more, once these are known"

    # 4 hits against 1: a hit, net 3, so the soak is rolled: it is now certain.
    dice = {"attack": [6, 5, 5, 5, 3, 2, 2, 4, 1, 1], "defense:goon-1": [5, 2, 2, 3, 4, 3]}
    found = await _needs(store_client, encounter, {"attack": make.attack(dice=dice)})
    assert _steps(found) == [
        ("attack", "sam", 10, 10, True),
        ("defense:goon-1", "goon-1", 6, 6, True),
        ("soak:goon-1", "goon-1", 12, 0, True),
    ]
    assert [s["given_as"] for s in found["steps"]] == ["faces", "faces", None]
    assert (found["more"], found["ready"], found["label"]) == (False, False, "goon-1: roll 12d6")

    # All given: ready, nothing more; the same as counts.
    dice["soak:goon-1"] = {"hits": 3, "ones": 0}
    found = await _needs(store_client, encounter, {"attack": make.attack(dice=dice)})
    assert (found["more"], found["ready"], found["label"]) == (False, True, "")
    assert found["steps"][2]["given_as"] == "counts"
    # A miss (no hit at all): no defense, no soak: ready with the attack alone.
    missed = make.attack(dice={"attack": [1, 2, 2, 3, 4, 4, 3, 2, 2, 3]})
    found = await _needs(store_client, encounter, {"attack": missed})
    assert (_steps(found), found["ready"]) == ([("attack", "sam", 10, 10, True)], True)
    # Nothing was stored or published.
    events = await (await store_client.get(f"/v1/encounters/{encounter}/events")).json()
    assert [e["type"] for e in events["events"]] == ["encounter_created"]


async def test_sr5_scene_actors_are_named_in_the_labels(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client)
    base = f"/v1/encounters/{encounter}"
    sam = {"name": "Sam", "sheet": make.attacker() | {"ruleset": "sr5"}}
    sam["sheet"].pop("id")
    sam["sheet"]["weapons"] = [make.weapon()]
    goon = {"name": "Ganger", "sheet": {"ruleset": "sr5", **make.defender()}}
    for actor_id, actor in (("sam", sam), ("goon-1", goon)):
        assert (await memory_client.put(f"{base}/actors/{actor_id}", json=actor)).ok
    body = {"attacker": "sam", "weapon": "ares-predator", "mode": "SA"}
    body["targets"] = [{"id": "goon-1", "distance_m": 4}]
    hit = {"attack": {"hits": 4, "ones": 0}, "defense:goon-1": {"hits": 1, "ones": 0}}
    found = await _needs(memory_client, encounter, {"attack": {**body, "dice": hit}})
    assert [s["label"] for s in found["steps"]] == [
        "Sam: roll 10d6: given",
        "Ganger: roll 6d6: given",
        "Ganger: roll 12d6",
    ]


async def test_the_api_guides_example_the_readmes_scene_without_the_smartlink(
    memory_client: Any,
) -> None:
    """docs/api.md, "What to roll, before rolling": Sam (Agility 6 + skill 6, medium range at
    12 m: -1) = 11 dice; the ganger's defense 3 + 3 = 6, its soak 4 + 9 - 1 AP = 12."""
    encounter = await new_encounter(memory_client)
    base = f"/v1/encounters/{encounter}"
    ganger = {"name": "Ganger", "position": {"x": 12.0, "y": 0.0}, "sheet": README_GANGER_SHEET}
    for actor_id, actor in (("sam", README_SAM), ("goon-1", ganger)):
        assert (await memory_client.put(f"{base}/actors/{actor_id}", json=actor)).ok
    attack: dict[str, Any] = {
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "targets": [{"id": "goon-1"}],
    }
    found = await _needs(memory_client, encounter, {"attack": attack})
    assert _steps(found) == [
        ("attack", "sam", 11, 0, True),
        ("defense:goon-1", "goon-1", 6, 0, False),
        ("soak:goon-1", "goon-1", 12, 0, False),
    ]
    assert [s["label"] for s in found["steps"]] == [
        "Sam: roll 11d6",
        "Ganger: roll 6d6 (if it comes to it)",
        "Ganger: roll 12d6 (if it comes to it)",
    ]
    assert found["label"] == "Sam: roll 11d6; then more, once these are known"
    attack["dice"] = {"attack": {"hits": 4, "ones": 1}, "defense:goon-1": {"hits": 1}}
    found = await _needs(memory_client, encounter, {"attack": attack})
    assert (found["steps"][2]["certain"], found["more"], found["label"]) == (
        True,
        False,
        "Ganger: roll 12d6",
    )
    attack["dice"]["soak:goon-1"] = [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3]
    found = await _needs(memory_client, encounter, {"attack": attack})
    assert (found["ready"], found["label"]) == (True, "")


async def test_sr4_an_exploding_pool_counts_its_base_and_asks_for_its_sixes_dice(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr4")
    # Agility 4 + skill 4 + Edge 2 (extra dice: sixes explode) = 10; defense reaction 3; soak
    # body 3 + ballistic 6 + AP -1 = 8.
    body = sr4_requests.attack(edge="extra_dice")
    found = await _needs(memory_client, encounter, {"attack": body})
    assert _steps(found)[0] == ("attack", "sam", 10, 0, True)
    assert found["steps"][0]["explodes"] is True
    assert found["steps"][0]["label"] == "sam: roll 10d6 (each six adds a die)"
    # Two sixes among the ten: two more dice; one of them a six: one more.
    body["dice"] = {"attack": [6, 6, 5, 3, 3, 3, 3, 3, 1, 2]}
    found = await _needs(memory_client, encounter, {"attack": body})
    assert _steps(found)[:2] == [
        ("attack", "sam", 12, 10, True),
        ("defense:goon-1", "goon-1", 3, 0, True),
    ]
    assert found["steps"][0]["given"] is False
    assert found["steps"][0]["label"] == "sam: roll 12d6 (each six adds a die), 10 given: 2 more"
    body["dice"] = {"attack": [6, 6, 5, 3, 3, 3, 3, 3, 1, 2, 6, 4]}
    found = await _needs(memory_client, encounter, {"attack": body})
    assert _steps(found)[0] == ("attack", "sam", 13, 12, True)
    body["dice"]["attack"].append(2)
    body["dice"]["defense:goon-1"] = [5, 5, 1]
    # 4 hits against 2: a hit; the soak follows, 8 dice.
    found = await _needs(memory_client, encounter, {"attack": body})
    assert _steps(found)[2] == ("soak:goon-1", "goon-1", 8, 0, True)
    assert (found["more"], found["ready"]) == (False, False)


async def test_sr3_target_number_tests_say_their_target_number(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr3")
    # Skill 4 + no Combat Pool = 4 dice at TN 4 (heavy pistol, short range); no dodge dice
    # committed; the resistance: Body 4 dice at Power 9 - ballistic 5 = 4, once it hits.
    found = await _needs(memory_client, encounter, {"attack": sr3_requests.attack()})
    assert _steps(found) == [
        ("attack", "sam", 4, 0, True),
        ("resist:goon-1", "goon-1", 4, 0, False),
    ]
    assert [s["target_number"] for s in found["steps"]] == [4, 4]
    assert found["steps"][0]["counts"] == ["successes", "ones"]
    assert found["steps"][0]["label"] == "sam: roll 4d6 against 4"
    given = sr3_requests.attack(dice={"attack": {"successes": 2, "ones": 1}})
    found = await _needs(memory_client, encounter, {"attack": given})
    assert _steps(found)[1] == ("resist:goon-1", "goon-1", 4, 0, True)
    assert (found["more"], found["ready"]) == (False, False)


async def test_hard_life_steps_follow_the_shot_and_damage_takes_faces_only(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr3-hardlife")
    # Skill 6 dice at TN 4 (short range) - 1 (a still target) = 3.
    found = await _needs(memory_client, encounter, {"attack": sr3hl_requests.attack()})
    assert _steps(found)[0] == ("attack", "carter", 6, 0, True)
    assert found["steps"][0]["target_number"] == 3
    assert found["more"] is True
    # 4 successes, no dodge: the shot lands on the torso (net 4: no scatter); the jacket's
    # armour test: 6 dice (torso ballistic 6) at TN Power 9 - 6 = 3.
    shot = sr3hl_requests.attack(dice={"attack": {"successes": 4, "ones": 0}})
    found = await _needs(memory_client, encounter, {"attack": shot})
    armor = next(s for s in found["steps"] if s["step"] == "armor:goon")
    assert (armor["count"], armor["target_number"], armor["certain"]) == (6, 3, True)
    assert armor["actor"] == "goon"
    # Then, once the armour's successes are known, the damage test: Power 9 + Table 3 for 4
    # net successes (+0) = 9 dice, read die by die (a 6 adds a success there): faces only.
    damage = next(s for s in found["steps"] if s["step"] == "damage:goon")
    assert (damage["count"], damage["forms"], damage["counts"], damage["certain"]) == (
        9,
        ["faces"],
        [],
        False,
    )
    shot["dice"]["armor:goon"] = {"successes": 1, "ones": 0}
    found = await _needs(memory_client, encounter, {"attack": shot})
    steps = {s["step"]: s for s in found["steps"]}
    assert (steps["damage:goon"]["count"], steps["damage:goon"]["certain"]) == (9, True)
    # The stun test: Body 4 dice at (Power 9 // 2) - impact 4, at least 2.
    assert (steps["stun:goon"]["count"], steps["stun:goon"]["target_number"]) == (4, 2)


async def test_d100_steps_take_faces_and_the_bonus_dice_follow_a_hit(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client, ruleset="d100")
    found = await _needs(memory_client, encounter, {"attack": d100_requests.attack()})
    attack = found["steps"][0]
    assert (attack["step"], attack["sides"], attack["count"], attack["forms"]) == (
        "attack",
        100,
        1,
        ["faces"],
    )
    assert attack["label"] == "vex: roll 1d100"
    assert found["more"] is True
    # 05 succeeds (Marksmanship 50), the defense's 99 fails: a hit, so the weapon's 2 bonus
    # d6 are rolled, and the hit location on a d10.
    hit = d100_requests.attack(dice={"attack": [5], "defense:goon-1": [99]})
    found = await _needs(memory_client, encounter, {"attack": hit})
    steps = {s["step"]: s for s in found["steps"]}
    assert (steps["bonus:goon-1"]["count"], steps["bonus:goon-1"]["sides"]) == (2, 6)
    assert steps["bonus:goon-1"]["actor"] == "vex" and steps["bonus:goon-1"]["certain"]
    assert steps["location:goon-1"]["sides"] == 10
    assert all(s["forms"] == ["faces"] for s in found["steps"])


async def test_an_action_that_rolls_nothing_is_ready(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client)
    action = {"actor": "sam", "action": "take_aim"}
    found = await _needs(memory_client, encounter, {"action": action})
    assert (found["request"], found["steps"], found["more"], found["ready"]) == (
        "action",
        [],
        False,
        True,
    )


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, "$.attack"),
        ({"attack": make.attack(), "action": {"actor": "sam", "action": "take_aim"}}, "$.action"),
        ({"attack": make.attack(), "zone": "z-1"}, "$.zone"),
        ({"zone_test": {"actor": "goon-1"}}, "$.zone"),
        ({"attack": make.attack(mode=3)}, "$.attack.mode"),
        ({"attack": make.attack(dice={"defence:goon-1": [1]})}, '$.attack.dice["defence:goon-1"]'),
        ({"attack": make.attack(dice={"attack": [7]})}, '$.attack.dice["attack"][0]'),
        (
            {"attack": make.attack(dice={"attack": {"hits": 9, "ones": 2}})},
            '$.attack.dice["attack"].hits',
        ),
        ({"attack": make.attack(dice={"attack": [5] * 11})}, '$.attack.dice["attack"][10]'),
    ],
)
async def test_a_body_that_does_not_fit_is_a_400_naming_its_field(
    memory_client: Any, body: dict[str, Any], path: str
) -> None:
    encounter = await new_encounter(memory_client)
    answer = await memory_client.post(_needs_path(encounter), json=body)
    assert answer.status == 400, await answer.text()
    assert (await answer.json())["path"] == path


async def test_a_zone_test_names_a_live_zone(memory_client: Any) -> None:
    encounter = await new_encounter(memory_client)
    body = {"zone_test": {"actor": "goon-1"}, "zone": "nowhere"}
    answer = await memory_client.post(_needs_path(encounter), json=body)
    assert answer.status == 404, await answer.text()
    assert (await answer.json())["path"] == "$.zone"


async def test_a_players_view_of_a_hidden_target_is_that_of_an_unknown_one(
    anonymous: Any,
) -> None:
    """Two tables where players type their numbers: on one the ganger is on the scene, hidden,
    with a sheet of its own; on the other nobody is. The player's answers are the same, whether
    its request types the ganger's numbers or leaves them out; the GM's, on the first, reads the
    hidden sheet (which shows the test can tell them apart)."""
    typed = {"attack": make.attack()}
    untyped = {"attack": make.attack(targets=[{"id": "goon-1", "distance_m": 4}])}
    seen = []
    for hidden in (True, False):
        encounter, tokens = await open_table(anonymous)
        gm, player = bearer(tokens["gm"]), bearer(tokens["player"])
        if hidden:
            ninja = {
                "name": "Ninja",
                "hidden": True,
                "sheet": {"ruleset": "sr5", "reaction": 6, "intuition": 6, "body": 8, "armor": 13},
            }
            put = await anonymous.put(
                f"/v1/encounters/{encounter}/actors/goon-1", json=ninja, headers=gm
            )
            assert put.ok, await put.text()
            # The GM's: defense 6 + 6 = 12, soak 8 + 13 - 1 = 20, named as the scene names it.
            found = await _needs(anonymous, encounter, untyped, headers=gm)
            assert _steps(found)[1:] == [
                ("defense:goon-1", "goon-1", 12, 0, False),
                ("soak:goon-1", "goon-1", 20, 0, False),
            ]
            assert found["steps"][1]["label"] == "Ninja: roll 12d6 (if it comes to it)"
        answers = []
        for body in (typed, untyped):
            answer = await anonymous.post(_needs_path(encounter), json=body, headers=player)
            shown = await answer.json()
            shown.pop("request_id", None)
            answers.append((answer.status, shown))
        seen.append(answers)
    assert seen[0] == seen[1]
    (typed_status, typed_answer), (untyped_status, untyped_answer) = seen[0]
    assert typed_status == 200
    assert _steps(typed_answer)[2] == ("soak:goon-1", "goon-1", 12, 0, False)
    assert typed_answer["steps"][2]["label"] == "goon-1: roll 12d6 (if it comes to it)"
    assert untyped_status == 422, untyped_answer
    assert "Ninja" not in str(seen)


async def test_previews_in_flight_are_bounded_per_token(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The needs are previews: the player's token holding two in flight gets a 429 for a third,
    while the GM's is answered."""
    client = await make_client()
    previews = client.app[ENCOUNTERS].previews
    release = threading.Event()
    real = dice_needs.needs

    def held(resolve: Any, given: Any, acting: Any) -> Any:
        if acting("attack") and not given:
            release.wait(30)
        return real(resolve, given, acting)

    monkeypatch.setattr(dice_needs, "needs", held)
    encounter, tokens = await open_table(client)
    path = _needs_path(encounter)
    player, gm = bearer(tokens["player"]), bearer(tokens["gm"])
    body = {"attack": make.attack()}
    held_ones = [
        asyncio.create_task(client.post(path, json=body, headers=player)) for _ in range(2)
    ]
    await _until(previews, lambda: previews.started == 2)
    third = await client.post(path, json=body, headers=player)
    assert third.status == 429, await third.text()
    assert (await third.json())["type"].endswith("/too-many-previews")
    given = {"attack": make.attack(dice={"attack": [1] * 10})}
    assert (await client.post(path, json=given, headers=gm)).status == 200
    release.set()
    assert [(await answer).status for answer in held_ones] == [200, 200]
