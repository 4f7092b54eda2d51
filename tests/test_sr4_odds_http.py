"""SR4 odds previews through a real service (docs/odds.md#sr4): the answer is the rules core's
odds on the encounter's state, the state's recoil and defenses read as the attack reads them,
and nothing changes: the encounter's version and its events stay as they were."""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.sr4 import SR4AttackRequest, SR4State, SR4ZoneTestRequest
from service.rules import RULESETS
from service.rules.dice import Dice
from tests import sr4_requests as make
from tests.sr4_cases import MISS8, miss
from tests.test_api import new_encounter

SR4 = RULESETS["sr4"]


async def post(client: Any, path: str, body: Any) -> tuple[int, Any]:
    response = await client.post(path, json=body)
    return response.status, await response.json()


async def standing(client: Any, base: str) -> tuple[int, list[str]]:
    view = await (await client.get(base)).json()
    events = await (await client.get(f"{base}/events")).json()
    return view["version"], [event["id"] for event in events["events"]]


def core_attack_odds(body: dict[str, Any], state: SR4State) -> Any:
    request = msgspec.convert(body, SR4AttackRequest)
    return msgspec.to_builtins(SR4.attack_odds(request, state, TurnState(), 1, 4000))


async def test_the_second_burst_previews_as_the_core_reads_the_phase(memory_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr4_odds.py and the hand-worked odds below."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    burst = make.attack(weapon=make.RIFLE, mode="BF", same_phase=True)
    first = {
        **burst,
        "dice": {"attack": [5, 5, *miss(4)], "defense:goon-1": miss(3), "soak:goon-1": MISS8},
    }
    status, fired = await post(client, f"{base}/attacks", first)
    assert status == 201, fired
    before = await standing(client, base)
    status, answer = await post(client, f"{base}/attacks/odds", burst)
    assert status == 200, answer
    assert answer["kind"] == "attack_odds"
    # The core on the state the first burst left: its recoil and goon-1's earlier defense.
    request = msgspec.convert(first, SR4AttackRequest)
    state = SR4.resolve_attack(request, SR4State(), TurnState(), Dice(1, request.dice)).state
    assert answer == core_attack_odds(burst, state)
    assert answer != core_attack_odds(burst, SR4State())
    assert await standing(client, base) == before


async def test_an_airburst_grenade_previews_its_blast(memory_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr4_odds.py."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    body = {
        "attacker": {"id": "sam", "agility": 4, "skill": 3, "strength": 5},
        "weapon": {
            "id": "frags",
            "category": "standard_grenade",
            "damage": 0,
            "modes": ["SS"],
            "ammo": 3,
        },
        "mode": "SS",
        "grenade": {"type": "fragmentation", "airburst": True},
        "origin": {"x": 0, "y": 0},
        "targets": [{"id": "goon", "distance_m": 8, "defender": make.defender()}],
        "bystanders": [
            {"id": "goon", "position": {"x": 0, "y": 8}, "body": 3, "impact_armor": 2},
            {"id": "pal", "position": {"x": 3, "y": 9}, "body": 4},
        ],
    }
    before = await standing(client, base)
    status, answer = await post(client, f"{base}/attacks/odds", body)
    assert status == 200, answer
    assert answer == core_attack_odds(body, SR4State())
    assert [t["target"] for t in answer["targets"]] == ["goon", "pal"]
    assert await standing(client, base) == before


async def test_a_zone_test_previews_as_the_core_and_a_refusal_is_resolves(
    memory_client: Any,
) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr4_odds.py."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    fire = make.attack(
        weapon=make.RIFLE,
        mode="suppressive",
        targets=[],
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 20},
        dice={"suppression": [5, 5, 6, *MISS8[:5]]},
    )
    status, made = await post(client, f"{base}/attacks", fire)
    assert status == 201, made
    before = await standing(client, base)
    test = {"actor": "goon-1", "defender": make.defender()}
    status, answer = await post(client, f"{base}/zones/zone-1/tests/odds", test)
    assert status == 200, answer
    shot = msgspec.convert(fire, SR4AttackRequest)
    state = SR4.resolve_attack(shot, SR4State(), TurnState(), Dice(1, shot.dice)).state
    request = msgspec.convert(test, SR4ZoneTestRequest)
    core = SR4.zone_test_odds("zone-1", request, state, TurnState(), 1, 4000)
    assert answer == msgspec.to_builtins(core)
    # A preview of the suppressive fire itself: no target, a note.
    status, again = await post(client, f"{base}/attacks/odds", {**fire, "dice": {}})
    assert status == 200 and again["targets"] == [], again
    # An unknown zone is the core's 404, as the test itself would be.
    status, problem = await post(client, f"{base}/zones/zone-9/tests/odds", test)
    status_real, real = await post(client, f"{base}/zones/zone-9/tests", test)
    assert (status, problem["type"]) == (status_real, real["type"])
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (404, "zone-not-found")
    assert await standing(client, base) == before
