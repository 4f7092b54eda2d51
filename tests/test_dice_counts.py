"""Issue 27, physical dice first: a step may be given as the counts a player reads off the dice
(`{"hits": 4, "ones": 2}` for a d6 pool, `{"successes": 3, "ones": 0}` for a target-number
test) where the rules need no more; the result says so, and replays exactly. The numbers are
worked by hand from the sheets in the bodies.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from schemas.common import DiceCounts
from service.rules.dice import Dice, DiceError, counted_pool_faces, counted_test_faces
from tests import d100_requests, sr3_requests, sr3hl_requests
from tests import sr5_requests as make
from tests.test_api import new_encounter
from tests.test_players import bound_table
from tests.test_undo_followups import AT_GOON_1, SECOND_CHANCE

ATTACK_FACES = [6, 5, 5, 5, 3, 2, 2, 4, 1, 1]  # 4 hits, 2 ones
DEFENSE_FACES = [5, 2, 2, 3, 4, 3]  # 1 hit
SOAK_FACES = [5, 6, 5, 1, 2, 2, 3, 4, 4, 2, 3, 2]  # 3 hits


async def _attack(client: Any, ruleset: str, body: dict[str, Any]) -> dict[str, Any]:
    encounter = await new_encounter(client, ruleset=ruleset)
    answer = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert answer.status == 201, await answer.text()
    result: dict[str, Any] = (await answer.json())["result"]
    return result


async def test_sr5_counts_hit_as_the_same_faces_do(store_client: Any) -> None:
    counts = {
        "attack": {"hits": 4, "ones": 2},
        "defense:goon-1": {"hits": 1},
        "soak:goon-1": {"hits": 3, "ones": 1},
    }
    faces = {"attack": ATTACK_FACES, "defense:goon-1": DEFENSE_FACES, "soak:goon-1": SOAK_FACES}
    by_counts = await _attack(store_client, "sr5", make.attack(dice=counts))
    by_faces = await _attack(store_client, "sr5", make.attack(dice=faces))
    target = by_counts["targets"][0]
    # 4 hits (limit: accuracy 5) against 1: net 3; DV 8 + 3 = 11 against armor 9 - 1 AP = 8:
    # physical; 3 of the 12 soak dice hit: 8 boxes. Two ones of ten is no glitch.
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    damage = target["damage"]
    assert (damage["dv"], damage["track"], damage["soak_hits"], damage["boxes"]) == (
        11,
        "physical",
        3,
        8,
    )
    assert by_faces["targets"] == by_counts["targets"]
    # The result says how each step was given, and the faces the counts stand for.
    dice = {roll["step"]: roll for roll in by_counts["dice"]}
    assert dice["attack"] == {
        "step": "attack",
        "sides": 6,
        "values": [5, 5, 5, 5, 3, 3, 3, 3, 1, 1],
        "given": True,
        "counts": {"hits": 4, "ones": 2},
    }
    assert dice["defense:goon-1"]["counts"] == {"hits": 1, "ones": 0}
    assert all("counts" not in roll for roll in by_faces["dice"])
    # Replays exactly: the recorded faces, or the recorded counts, give the same result.
    for replay in (
        {roll["step"]: roll["values"] for roll in by_counts["dice"]},
        {roll["step"]: roll["counts"] for roll in by_counts["dice"]},
    ):
        again = await _attack(store_client, "sr5", make.attack(dice=replay))
        assert again["targets"] == by_counts["targets"]


async def test_sr5_second_chance_rerolls_the_misses_of_an_attack_given_as_counts(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client)
    base = f"/v1/encounters/{encounter}"
    first = {**AT_GOON_1, "dice": {"attack": {"hits": 1}, "defense:goon-1": {"hits": 1}}}
    assert (await memory_client.post(f"{base}/attacks", json=first)).status == 201
    chance = {**SECOND_CHANCE, "target": "goon-1"}
    # The nine dice of ten that scored no hit are rolled again (the needs say so), then the
    # soak (body 4 + armor 9 - 1 AP = 12) once they hit.
    needs = await (await memory_client.post(f"{base}/dice", json={"action": chance})).json()
    assert [(s["step"], s["count"], s["certain"]) for s in needs["steps"]] == [
        ("second_chance:goon-1", 9, True),
        ("soak:goon-1", 12, False),
    ]
    chance["dice"] = {"second_chance:goon-1": {"hits": 9}, "soak:goon-1": {"hits": 0}}
    answer = await memory_client.post(f"{base}/actions", json=chance)
    assert answer.status == 201, await answer.text()
    again = (await answer.json())["result"]["attack"]["targets"][0]
    # Ten hits, limited by accuracy 5 to 5; the defense's one hit stands: 4 net hits, DV 12,
    # no soak hit: 12 boxes (tests/test_undo_followups.py, by faces).
    assert (again["attack_hits"], again["net_hits"], again["damage"]["boxes"]) == (5, 4, 12)


async def test_sr3_counts_of_successes_stand_for_the_dice(memory_client: Any) -> None:
    counts = {"attack": {"successes": 2, "ones": 1}, "resist:goon-1": {"successes": 1}}
    faces = {"attack": [6, 4, 2, 1], "resist:goon-1": [5, 3, 2, 2]}
    by_counts = await _attack(memory_client, "sr3", sr3_requests.attack(dice=counts))
    by_faces = await _attack(memory_client, "sr3", sr3_requests.attack(dice=faces))
    # 4 dice at TN 4: 2 successes; the resistance, Body 4 at 9 - 5 = 4: 1 success; 2 - 1 = 1
    # net success stages nothing: the Predator's M, 3 boxes.
    target = by_counts["target"]
    assert (target["attack_successes"], target["damage"]["resist"]["successes"]) == (2, 1)
    assert (target["damage"]["level"], target["damage"]["boxes"]) == ("M", 3)
    assert by_counts["attack"]["totals"] == [4, 4, 3, 1]
    for key in ("outcome", "net_successes"):
        assert by_counts["target"][key] == by_faces["target"][key]
    assert by_counts["target"]["damage"]["boxes"] == by_faces["target"]["damage"]["boxes"]
    # All ones is the Rule of One: no success, whatever the target number.
    failed = await _attack(
        memory_client, "sr3", sr3_requests.attack(dice={"attack": {"successes": 0, "ones": 4}})
    )
    assert (failed["attack"]["rule_of_one"], failed["target"]["outcome"]) == (True, "miss")


async def test_hard_life_takes_counts_for_one_shot_and_faces_for_damage(
    memory_client: Any,
) -> None:
    single = sr3hl_requests.attack(dice={"attack": {"successes": 0, "ones": 1}})
    missed = await _attack(memory_client, "sr3-hardlife", single)
    assert missed["attack"]["successes"] == 0
    encounter = await new_encounter(memory_client, ruleset="sr3-hardlife")
    dice = {
        "attack": {"successes": 4, "ones": 0},
        "armor:goon": {"successes": 1},
        "damage:goon": {"successes": 3},
    }
    answer = await memory_client.post(
        f"/v1/encounters/{encounter}/attacks", json=sr3hl_requests.attack(dice=dice)
    )
    assert answer.status == 400, await answer.text()
    problem = await answer.json()
    assert problem["path"] == '$.dice["damage:goon"]'
    assert "takes faces only" in problem["detail"]


# What the schema refuses (msgspec names no key of a map in its paths: `[...]`), then what the
# step's pool and rules refuse.
@pytest.mark.parametrize(
    ("ruleset", "body", "path", "words"),
    [
        (
            "sr5",
            make.attack(dice={"attack": {"hits": 9, "ones": 2}}),
            '$.dice["attack"].hits',
            "10 dice",
        ),
        (
            "sr5",
            make.attack(dice={"attack": {"hits": 2, "ones": 11}}),
            '$.dice["attack"].ones',
            "11 ones",
        ),
        ("sr5", make.attack(dice={"attack": {"hits": -1}}), "$.dice[...].hits", ">= 0"),
        ("sr5", make.attack(dice={"attack": {"hits": 201}}), "$.dice[...].hits", "<= 200"),
        (
            "sr5",
            make.attack(dice={"attack": {"hits": 2, "sixes": 1}}),
            "$.dice[...].sixes",
            "unknown",
        ),
        ("sr5", make.attack(dice={"attack": {"ones": 2}}), '$.dice["attack"].hits', "either hits"),
        (
            "sr5",
            make.attack(dice={"attack": {"hits": 2, "successes": 2}}),
            '$.dice["attack"].successes',
            "not both",
        ),
        (
            "sr5",
            make.attack(dice={"attack": {"successes": 2}}),
            '$.dice["attack"].successes',
            "d6 pool",
        ),
        (
            "sr3",
            sr3_requests.attack(dice={"attack": {"hits": 2}}),
            '$.dice["attack"].hits',
            "target number 4",
        ),
        (
            "sr3",
            sr3_requests.attack(dice={"attack": {"successes": 3, "ones": 2}}),
            '$.dice["attack"].ones',
            "4 dice",
        ),
        (
            "d100",
            d100_requests.attack(dice={"attack": {"hits": 1}}),
            '$.dice["attack"].hits',
            "d100",
        ),
    ],
)
async def test_counts_that_do_not_fit_are_a_400_naming_them(
    memory_client: Any, ruleset: str, body: dict[str, Any], path: str, words: str
) -> None:
    encounter = await new_encounter(memory_client, ruleset=ruleset)
    answer = await memory_client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert answer.status == 400, await answer.text()
    problem = await answer.json()
    assert problem["path"] == path
    assert words in problem["detail"]


async def test_a_players_counts_follow_the_dice_policy_as_faces_do(anonymous: Any) -> None:
    base, _, anna, _ = await bound_table(anonymous)
    theirs = make.attack(dice={"defense:goon-1": {"hits": 0}})
    for path in ("attacks", "dice"):
        body = theirs if path == "attacks" else {"attack": theirs}
        refused = await anonymous.post(f"{base}/{path}", json=body, headers=anna)
        assert refused.status == 403, await refused.text()
        expected = (
            '$.dice["defense:goon-1"]' if path == "attacks" else '$.attack.dice["defense:goon-1"]'
        )
        assert (await refused.json())["path"] == expected
    own = make.attack(dice={"attack": {"hits": 0, "ones": 1}})
    assert (await anonymous.post(f"{base}/attacks", json=own, headers=anna)).status == 201


def test_an_exploding_pools_counts_stand_for_sixes_that_add_hits() -> None:
    # Pool 4, 7 hits and a one: the three dice that are not ones are sixes; their three extra
    # dice hold one more six and two fives; its extra die a five: 3 + 3 + 1 = 7 hits.
    faces = counted_pool_faces("attack", DiceCounts(hits=7, ones=1), 4, explode=True)
    assert faces == [6, 6, 6, 1, 6, 5, 5, 5]
    rolled = Dice(0, {"attack": faces}).pool("attack", 4, "sr4", explode=True)
    assert (rolled.hits, rolled.ones) == (7, 1)
    with pytest.raises(DiceError, match="do not explode"):
        counted_pool_faces("attack", DiceCounts(hits=7, ones=1), 4, explode=False)


def test_a_target_numbers_counts_stand_for_sixes_rolled_again_past_six() -> None:
    # TN 8: a success is a 6 and a 2 (8); a failure a 5; a one a 1; re-rolls after the pool.
    faces = counted_test_faces("attack", DiceCounts(successes=2, ones=1), 4, 8)
    assert faces == [6, 6, 5, 1, 2, 2]
    dice = Dice(0, {"attack": DiceCounts(successes=2, ones=1)})
    roll = dice.target_number_test("attack", 4, 8)
    assert (roll.totals, roll.successes) == ((8, 8, 5, 1), 2)
    assert msgspec.to_builtins(dice.rolls) == [
        {
            "step": "attack",
            "sides": 6,
            "values": [6, 6, 5, 1, 2, 2],
            "given": True,
            "counts": {"successes": 2, "ones": 1},
        }
    ]
    # At TN 2 every die but a one succeeds.
    with pytest.raises(DiceError, match="every die but a one"):
        counted_test_faces("stun", DiceCounts(successes=2, ones=1), 4, 2)


def test_a_step_of_two_tests_takes_faces_only() -> None:
    dice = Dice(0, {"armor": DiceCounts(successes=1)})
    dice.target_number_test("armor", 3, 4)
    with pytest.raises(DiceError, match="more than one test"):
        dice.target_number_test("armor", 3, 5)


async def test_the_contract_says_dice_are_faces_or_counts(memory_client: Any) -> None:
    document = await (await memory_client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    counts = schemas["DiceCounts"]
    assert set(counts["properties"]) == {"hits", "successes", "ones"}
    sr5 = next(v for k, v in schemas.items() if k.startswith("SR5AttackAsk"))
    given = sr5["properties"]["dice"]["additionalProperties"]
    assert {"$ref": "#/components/schemas/DiceCounts"} in given["anyOf"]
    assert "/v1/encounters/{encounter}/dice" in document["paths"]
