"""sr3's odds previews through a real service (the embedded store): `POST .../attacks/odds`
answers what the rules core's `attack_odds` answers on the encounter's state as it stands,
filled from the scene as the attack would be, and changes nothing (no version, no event);
its refusals are the attack's (and a zone test's, the zone test's).

The builders (tests/sr3_requests.py) and the scene's Sam and ganger are those of
tests/test_sr3_http.py.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.sr3 import SR3AttackRequest, SR3State
from service.rules import RULESETS
from tests import sr3_requests as make
from tests.test_api import PROBLEM, new_encounter
from tests.test_sr3_http import GANGER, SAM

SR3 = RULESETS["sr3"]


async def _standing(client: Any, encounter: str) -> tuple[int, str, int, SR3State, TurnState]:
    """The encounter's version, last event, event count, combat state and turn."""
    base = f"/v1/encounters/{encounter}"
    read = await (await client.get(base)).json()
    events = (await (await client.get(f"{base}/events")).json())["events"]
    return (
        read["version"],
        read["last_event_id"],
        len(events),
        msgspec.convert(read["combat"], SR3State),
        msgspec.convert(read["turn"], TurnState),
    )


def _core(body: dict[str, Any], state: SR3State, turn: TurnState) -> Any:
    request = msgspec.convert(body, SR3AttackRequest)
    answer = SR3.attack_odds(request, state, turn, 1, 4000)
    return msgspec.json.decode(msgspec.json.encode(answer))


async def test_the_odds_are_the_cores_on_the_state_and_change_nothing(memory_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3_odds.py and the hand-worked odds below."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3")
    base = f"/v1/encounters/{encounter}"
    # A first shot: recoil +1, 2 of Sam's 6 Combat Pool dice and 1 of the ganger's 5 spent.
    first = make.attack(pool=2, target=make.target(dodge=1), seed=11)
    assert (await client.post(f"{base}/attacks", json=first)).status == 201
    before = await _standing(client, encounter)
    *_, state, turn = before
    assert state.actors["sam"].rounds_in_phase == 1
    body = make.attack(pool=2, target=make.target(dodge=2, resist=1))
    response = await client.post(f"{base}/attacks/odds", json=body)
    assert response.status == 200, await response.text()
    answer = await response.json()
    assert answer["kind"] == "attack_odds" and answer["method"] == "exact"
    assert answer == _core(body, state, turn)
    # The second shot's recoil is in it: TN 4 + 1.
    assert "against target number 5 (" in answer["notes"][0]
    assert await _standing(client, encounter) == before


async def test_a_named_attack_is_filled_from_the_scene(memory_client: Any) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3")
    base = f"/v1/encounters/{encounter}"
    for actor_id, actor in (("sam", SAM), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    before = await _standing(client, encounter)
    named = {
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "pool": 2,
        "target": {"id": "goon-1", "dodge": 1, "resist": 1},
    }
    response = await client.post(f"{base}/attacks/odds", json=named)
    assert response.status == 200, await response.text()
    # The scene: 12 m (medium, 5), the ganger running (+2); its sheet for the defender.
    explicit = make.attack(
        pool=2,
        target=make.target(distance_m=12, movement="running", cover="none", dodge=1, resist=1),
    )
    explicit["attacker"] = {
        "id": "sam",
        "skill": 4,
        "quickness": 5,
        "intelligence": 4,
        "willpower": 3,
    }
    *_, state, turn = before
    assert await response.json() == _core(explicit, state, turn)
    assert await _standing(client, encounter) == before
    # The gun on the scene still holds its 15 rounds.
    sam = await (await client.get(f"{base}/actors/sam")).json()
    assert sam["sheet"]["weapons"][0]["ammo"] == 15


async def test_refusals_are_the_attacks(memory_client: Any) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3")
    base = f"/v1/encounters/{encounter}"
    spend = make.attack(pool=4, seed=3)
    assert (await client.post(f"{base}/attacks", json=spend)).status == 201
    before = await _standing(client, encounter)
    # 2 dice left of 6: 4 more is a 409, the odds' problem the attack's.
    attack = await client.post(f"{base}/attacks", json=spend)
    odds = await client.post(f"{base}/attacks/odds", json=spend)
    assert attack.status == odds.status == 409
    assert odds.content_type == PROBLEM
    problem, expected = await odds.json(), await attack.json()
    for field in ("type", "detail", "path"):
        assert problem[field] == expected[field], field
    # And what docs/rulesets/sr3.md says it is, not only the attack's (both could be wrong).
    assert (problem["type"].rsplit("/", 1)[-1], problem["path"]) == (
        "combat-pool-exhausted",
        "$.pool",
    )
    out_of_range = make.attack(target=make.target(distance_m=61))
    odds = await client.post(f"{base}/attacks/odds", json=out_of_range)
    attack = await client.post(f"{base}/attacks", json=out_of_range)
    assert (odds.status, (await odds.json())["path"]) == (422, "$.target.distance_m")
    assert (await odds.json())["detail"] == (await attack.json())["detail"]
    # Odds of dice already thrown are no odds.
    given = await client.post(f"{base}/attacks/odds", json=make.attack(dice={"attack": [6] * 4}))
    assert (given.status, (await given.json())["path"]) == (422, "$.dice")
    # sr3 has no zones: the zone test's odds are refused as the zone test is.
    zone_odds = await client.post(f"{base}/zones/zone-1/tests/odds", json={"actor": "sam"})
    zone_test = await client.post(f"{base}/zones/zone-1/tests", json={"actor": "sam"})
    assert zone_odds.status == zone_test.status == 422
    problem, expected = await zone_odds.json(), await zone_test.json()
    assert problem["type"].endswith("no-zones")
    assert (problem["detail"], problem["path"]) == (expected["detail"], expected["path"])
    assert await _standing(client, encounter) == before
