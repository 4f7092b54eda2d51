"""sr5's odds previews through a real service on the embedded store: `POST .../attacks/odds`
and `.../zones/{zone}/tests/odds` answer the rules core's odds on the encounter's state as it
stands, change neither its version nor its events, and refuse what the attack would refuse
(docs/odds.md#sr5)."""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.sr5 import SR5AttackRequest, SR5State, SR5ZoneTestRequest
from service.rules import RULESETS
from tests import sr5_requests as make
from tests.test_api import new_encounter
from tests.test_players import bound_table

SR5 = RULESETS["sr5"]
SMG = make.weapon(category="submachine_gun", modes=["SA", "BF", "FA"], ammo=60, accuracy=4)
MG = make.weapon(category="light_machine_gun", modes=["FA"], ammo=200, accuracy=5, damage=9)
SPLIT = make.attack(
    mode="FA",
    weapon=SMG,
    attacker=make.attacker(agility=7, skill=8, strength=5, edge=4, willpower=4),
    edge="push_the_limit",
    targets=[make.target(id=f"goon-{n}", distance_m=5 + 10 * n) for n in range(1, 5)],
)
SUPPRESSIVE = make.attack(
    mode="suppressive",
    weapon=MG,
    targets=[],
    zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
    bystanders=[{"id": "runner", "position": {"x": 10, "y": 0}}],
    dice={"suppression": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2]},
)
RUNNER_TEST = {"actor": "runner", "defender": make.defender(), "edge": 2}


async def post(client: Any, path: str, body: Any) -> Any:
    response = await client.post(path, json=body)
    assert response.status in (200, 201), await response.text()
    return await response.json()


async def standing(client: Any, encounter: str) -> tuple[int, str | None, list[Any], Any]:
    """The encounter's version, last event and events, and the view itself."""
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    return view["version"], view["last_event_id"], events["events"], view


def core_state(view: dict[str, Any]) -> tuple[SR5State, TurnState]:
    return msgspec.convert(view["combat"], SR5State), msgspec.convert(view["turn"], TurnState)


async def a_table_in_play(client: Any) -> str:
    """Sam has aimed and fired a burst (recoil stands); goon-1 is in full defense and has
    defended once; goon-2 has defended once."""
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    await post(client, f"{base}/actions", {"actor": "sam", "action": "take_aim"})
    await post(client, f"{base}/actions", {"actor": "goon-1", "action": "full_defense"})
    burst = make.attack(
        mode="BF",
        weapon=SMG,
        attacker=make.attacker(skill=6),
        targets=[make.target(id="goon-1"), make.target(id="goon-2")],
        # 5 Agility + 6 skill + 1 aimed = 12 dice, 6 each: hits, so both defend.
        dice={"attack:goon-1": [5] * 3 + [2] * 3, "attack:goon-2": [5] * 3 + [2] * 3},
    )
    await post(client, f"{base}/attacks", burst)
    return encounter


async def test_the_odds_are_the_cores_on_the_state_and_change_nothing(make_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr5_odds.py and the hand-worked odds below."""
    client = await make_client()
    encounter = await a_table_in_play(client)
    version, last, events, view = await standing(client, encounter)
    state, turn = core_state(view)
    assert state.actors["sam"].recoil_rounds == 3 and state.actors["goon-1"].defenses == 1
    for body in (
        make.attack(
            mode="BF",
            weapon=SMG,
            attacker=make.attacker(skill=6),
            targets=[make.target(id="goon-1"), make.target(id="goon-2")],
        ),
        SPLIT,
    ):
        answer = await post(client, f"/v1/encounters/{encounter}/attacks/odds", body)
        core = SR5.attack_odds(msgspec.convert(body, SR5AttackRequest), state, turn, 1, 4000)
        assert answer == msgspec.to_builtins(core)
        assert answer["kind"] == "attack_odds" and answer["method"] == "exact"
    assert await standing(client, encounter) == (version, last, events, view)


async def test_the_zone_test_odds_are_the_cores_and_change_nothing(make_client: Any) -> None:
    """A plumbing check, not a rule check: it compares the HTTP answer with the rules core's
    own answer, so a rule bug is on both sides and passes. The rules' numbers are checked by
    tests/test_sr5_odds.py."""
    client = await make_client()
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    laid = await post(client, f"{base}/attacks", SUPPRESSIVE)
    assert laid["result"]["zone"]["zone"]["hits"] == 3
    # The preview of suppressive fire itself: no target, and a note on the zone it would lay.
    preview = await post(client, f"{base}/attacks/odds", {**SUPPRESSIVE, "dice": {}})
    assert (preview["targets"], preview["any_hit"]) == ([], 0.0)
    assert "zone test" in preview["notes"][0]
    version, last, events, view = await standing(client, encounter)
    answer = await post(client, f"{base}/zones/zone-1/tests/odds", RUNNER_TEST)
    state, turn = core_state(view)
    request = msgspec.convert(RUNNER_TEST, SR5ZoneTestRequest)
    core = SR5.zone_test_odds("zone-1", request, state, turn, 1, 4000)
    assert answer == msgspec.to_builtins(core)
    assert answer["kind"] == "zone_test_odds" and answer["target"]["hit"] > 0
    assert await standing(client, encounter) == (version, last, events, view)
    unknown = await client.post(f"{base}/zones/zone-9/tests/odds", json=RUNNER_TEST)
    assert unknown.status == 404
    assert (await unknown.json())["path"] == "zone"
    assert await standing(client, encounter) == (version, last, events, view)


async def test_given_dice_are_refused(make_client: Any) -> None:
    client = await make_client()
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    await post(client, f"{base}/attacks", SUPPRESSIVE)
    for path, body in (
        (f"{base}/attacks/odds", make.attack(dice={"attack": [5] * 10})),
        (f"{base}/zones/zone-1/tests/odds", {**RUNNER_TEST, "dice": {"zone_test:runner": [5]}}),
    ):
        refused = await client.post(path, json=body)
        assert refused.status == 422
        problem = await refused.json()
        assert problem["type"].endswith("/dice-given") and problem["path"] == "$.dice"


async def test_samples_out_of_bounds_are_a_400_naming_samples(make_client: Any) -> None:
    client = await make_client()
    encounter = await new_encounter(client)
    path = f"/v1/encounters/{encounter}/attacks/odds"
    for asked in ("99", "20001", "many", "-5"):
        refused = await client.post(f"{path}?samples={asked}", json=make.attack())
        assert refused.status == 400, asked
        assert (await refused.json())["path"] == "samples"
    # Within the bounds, the exact answer is the same whatever the sample size.
    fewest = await post(client, f"{path}?samples=100", make.attack())
    assert fewest == await post(client, path, make.attack())


async def test_the_odds_refuse_what_the_attack_refuses(make_client: Any) -> None:
    client = await make_client(admin=False)
    base, _, anna, _ = await bound_table(client)
    # A player's token acts only for its actors: anna does not act for the ganger.
    as_goon = make.attack(attacker=make.attacker(id="goon-1"))
    for path in (f"{base}/attacks/odds", f"{base}/attacks"):
        refused = await client.post(path, json=as_goon, headers=anna)
        assert refused.status == 403
        problem = await refused.json()
        assert problem["path"] == "$.attacker.id"
        assert "does not control 'goon-1'" in problem["detail"]
    # A rule the core refuses (beyond a heavy pistol's 60 m): the same problem as the attack.
    far = make.attack(targets=[make.target(distance_m=70)])
    problems = []
    for path in (f"{base}/attacks/odds", f"{base}/attacks"):
        refused = await client.post(path, json=far, headers=anna)
        problem = await refused.json()
        del problem["request_id"]
        problems.append((refused.status, problem))
    assert problems[0] == problems[1] and problems[0][0] == 422
    assert problems[0][1]["path"] == "$.targets[0].distance_m"
    assert problems[0][1]["type"].rsplit("/", 1)[-1] == "out-of-range"
    # Sam's own preview answers (his sheet filled in from the scene).
    allowed = await client.post(f"{base}/attacks/odds", json=make.attack(), headers=anna)
    assert allowed.status == 200, await allowed.text()
