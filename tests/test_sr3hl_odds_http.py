"""Hard Life's odds through a real service: POST .../attacks/odds and .../zones/{zone}/tests/odds
answer what the rules core's attack_odds / zone_test_odds answer on the encounter's state, and
leave the encounter as it was (its version, its events); `?samples=` sets a sampled preview's
sample size.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.sr3hl import HLAttackRequest, HLState, HLZoneTestRequest
from service.rules import RULESETS, odds
from tests import sr3hl_requests as r
from tests import test_sr3hl_suppression as zone_tests
from tests.test_api import new_encounter

HL = RULESETS["sr3-hardlife"]


async def _stands(client: Any, encounter: str) -> tuple[int, Any, HLState, TurnState]:
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    return (
        view["version"],
        events,
        msgspec.convert(view["combat"], HLState),
        msgspec.convert(view["turn"], TurnState),
    )


def _core(body: dict[str, Any], state: HLState, turn: TurnState, samples: int) -> Any:
    request = msgspec.convert(body, HLAttackRequest)
    seed = request.seed if request.seed is not None else odds.SEED
    return msgspec.to_builtins(HL.attack_odds(request, state, turn, seed, samples))


async def test_a_shot_after_a_shot_answers_as_the_core_and_changes_nothing(
    memory_client: Any,
) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_odds.py."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3-hardlife")
    # A first shot leaves recoil on Carter and (on a hit) wear on the goon's jacket.
    fired = await client.post(f"/v1/encounters/{encounter}/attacks", json=r.attack(seed=4))
    assert fired.status == 201, await fired.text()
    version, events, state, turn = await _stands(client, encounter)
    assert state.actors["carter"].rounds_in_phase == 1
    response = await client.post(f"/v1/encounters/{encounter}/attacks/odds", json=r.attack())
    assert response.status == 200, await response.text()
    answer = await response.json()
    assert answer["kind"] == "attack_odds" and answer["method"] == "exact"
    assert answer == _core(r.attack(), state, turn, odds.DEFAULT_SAMPLES)
    assert await _stands(client, encounter) == (version, events, state, turn)


async def test_full_auto_is_sampled_with_the_samples_asked(memory_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_odds.py."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3-hardlife")
    body = r.attack(weapon=r.smg(recoil_compensation=2), mode="FA", rounds=6, seed=77)
    version, events, state, turn = await _stands(client, encounter)
    url = f"/v1/encounters/{encounter}/attacks/odds"
    small = await (await client.post(url + "?samples=300", json=body)).json()
    assert small["method"] == "sampled"
    assert (small["sampling"]["samples"], small["sampling"]["seed"]) == (300, 77)
    assert small == _core(body, state, turn, 300)
    larger = await (await client.post(url + "?samples=600", json=body)).json()
    assert larger["sampling"]["samples"] == 600
    assert larger["sampling"]["margin"] < small["sampling"]["margin"]
    assert await _stands(client, encounter) == (version, events, state, turn)


async def test_a_zone_test_answers_as_the_core(memory_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr3hl_odds.py."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3-hardlife")
    fired = {
        "attacker": zone_tests.PETE,
        "weapon": zone_tests.SMG,
        "mode": "FA",
        "suppression": {"area": zone_tests.SQUARE, "bullets_per_m2": 6},
    }
    preview = await client.post(f"/v1/encounters/{encounter}/attacks/odds", json=fired)
    assert preview.status == 200, await preview.text()
    assert (await preview.json())["targets"] == []
    made = await client.post(f"/v1/encounters/{encounter}/attacks", json=fired)
    assert made.status == 201, await made.text()
    version, events, state, turn = await _stands(client, encounter)
    body = {
        "actor": "whisper",
        "defender": zone_tests.WHISPER,
        "distance_m": 8,
        "dodge": {"combat_pool": 4},
    }
    response = await client.post(
        f"/v1/encounters/{encounter}/zones/zone-1/tests/odds?samples=400", json=body
    )
    assert response.status == 200, await response.text()
    answer = await response.json()
    request = msgspec.convert(body, HLZoneTestRequest)
    core = HL.zone_test_odds("zone-1", request, state, turn, odds.SEED, 400)
    assert answer == msgspec.to_builtins(core)
    assert answer["kind"] == "zone_test_odds" and answer["sampling"]["samples"] == 400
    assert await _stands(client, encounter) == (version, events, state, turn)
