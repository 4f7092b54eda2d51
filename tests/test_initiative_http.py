"""The initiative engine through the HTTP API, on every store: a combat turn started with rolls,
run phase by phase with `advance`, actions and attacks counted against the acting actor's phase,
interrupts, holds, actors joining and leaving, every change an event.

SR5 numbers (service/rules/sr5/tables.py, INITIATIVE): Reaction + Intuition + 1d6; a phase of
one free and one complex or two simple actions; full defense -10 initiative.
"""

from __future__ import annotations

from typing import Any

from tests import sr3_requests as sr3
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_api import PROBLEM, new_encounter

SAM = {"actor": "sam", "reaction": 5, "intuition": 4}
GOON = {"actor": "goon-1", "reaction": 3, "intuition": 3}
RAT = {"actor": "rat", "score": 25}
# sam 5 + 4 + 6 + 5 = 20; goon-1 3 + 3 + 4 = 10; rat as given, 25.
DICE = {"initiative:sam": [6, 5], "initiative:goon-1": [4]}


async def started(client: Any, ruleset: str = "sr5") -> str:
    encounter = await new_encounter(client, ruleset=ruleset)
    body = {"actors": [{**SAM, "initiative_dice": 2}, GOON, RAT], "dice": DICE}
    response = await client.post(f"/v1/encounters/{encounter}/initiative", json=body)
    assert response.status == 201, await response.text()
    return encounter


async def post(client: Any, encounter: str, path: str, body: Any) -> tuple[int, Any]:
    response = await client.post(f"/v1/encounters/{encounter}/{path}", json=body)
    return response.status, await response.json()


async def turn_of(client: Any, encounter: str) -> Any:
    return (await (await client.get(f"/v1/encounters/{encounter}")).json())["turn"]


async def test_a_combat_turn_starts_with_the_order_and_the_first_phase(client: Any) -> None:
    encounter = await new_encounter(client)
    body = {"actors": [{**SAM, "initiative_dice": 2}, GOON, RAT], "dice": DICE, "seed": 7}
    status, answer = await post(client, encounter, "initiative", body)
    assert status == 201, answer
    result = answer["result"]
    assert result["kind"] == "initiative" and result["change"] == "started"
    assert [(e["actor"], e["score"]) for e in result["entries"]] == [
        ("rat", 25),
        ("sam", 20),
        ("goon-1", 10),
    ]
    assert result["current"] == "rat"
    assert (result["combat_turn"], result["initiative_pass"]) == (1, 1)
    assert [(d["step"], d["values"]) for d in result["dice"]] == [
        ("initiative:sam", [6, 5]),
        ("initiative:goon-1", [4]),
    ]
    turn = answer["changes"]["turn"]
    assert (turn["combat_turn"], turn["initiative_pass"], turn["action_phase"]) == (1, 1, "rat")
    view = await (await client.get(f"/v1/encounters/{encounter}/initiative")).json()
    assert view["current"] == "rat"
    assert view["actions_left"] == ["1 free, 1 complex", "1 free, 2 simple"]
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    assert [e["type"] for e in events["events"]] == ["encounter_created", "initiative"]


async def test_advance_runs_the_phases_passes_and_the_end_of_the_turn(client: Any) -> None:
    encounter = await started(client)
    seen = []
    for _ in range(6):
        status, answer = await post(client, encounter, "advance", {"to": "action_phase"})
        assert status == 201, answer
        turn = answer["result"]["turn"]
        seen.append((turn["initiative_pass"], turn["action_phase"]))
    # Pass 1: rat 25, sam 20, goon-1 10; pass 2: rat 15, sam 10; pass 3: rat 5; then over.
    assert seen == [(1, "sam"), (1, "goon-1"), (2, "rat"), (2, "sam"), (3, "rat"), (1, None)]
    assert answer["result"]["effects"][-1].startswith("combat turn 1 is over")
    assert (await turn_of(client, encounter))["combat_turn"] == 2
    status, problem = await post(client, encounter, "advance", {"to": "action_phase"})
    assert status == 409
    assert "combat turn 2 has no initiative yet" in problem["detail"]


async def test_the_next_turn_rolls_everyone_again_with_an_empty_start(client: Any) -> None:
    encounter = await new_encounter(client)
    body = {"actors": [SAM, GOON], "dice": DICE | {"initiative:sam": [6]}}
    assert (await post(client, encounter, "initiative", body))[0] == 201
    again = {"dice": {"initiative:sam": [1], "initiative:goon-1": [6]}}
    status, answer = await post(client, encounter, "initiative", again)
    assert status == 201, answer
    # A new combat turn: goon-1 3 + 3 + 6 = 12 before sam 5 + 4 + 1 = 10.
    assert answer["changes"]["turn"]["combat_turn"] == 2
    assert [(e["actor"], e["score"]) for e in answer["result"]["entries"]] == [
        ("goon-1", 12),
        ("sam", 10),
    ]


async def test_an_actor_acts_only_in_its_phase_and_within_what_it_has_left(client: Any) -> None:
    encounter = await started(client)
    status, problem = await post(client, encounter, "actions", {"actor": "sam", "action": "other"})
    assert status == 409
    assert problem["type"].endswith("/not-your-phase")
    assert problem["detail"] == "it is rat's combat phase, not sam's"
    assert problem["path"] == "$.actor"
    await post(client, encounter, "advance", {"to": "action_phase"})
    # sam: two simple actions (taking aim), then no room for an attack (SA is simple).
    for _ in range(2):
        status, answer = await post(
            client, encounter, "actions", {"actor": "sam", "action": "take_aim"}
        )
        assert status == 201, answer
    assert answer["changes"]["turn"]["initiative"]["used"] == {
        "free": 0,
        "simple": 2,
        "complex": 0,
    }
    status, problem = await post(client, encounter, "attacks", make.attack(mode="SA"))
    assert status == 409
    assert problem["type"].endswith("/no-action-left")
    assert (
        problem["detail"]
        == "the attack takes a simple action and sam has 1 free left in this phase"
    )
    # Nothing was written: the state is as it was.
    view = await (await client.get(f"/v1/encounters/{encounter}/initiative")).json()
    assert view["actions_left"] == ["1 free"]


async def test_an_attack_takes_its_firing_modes_action(client: Any) -> None:
    encounter = await started(client)
    await post(client, encounter, "advance", {"to": "action_phase"})
    status, answer = await post(client, encounter, "attacks", make.attack(mode="SA"))
    assert status == 201, answer
    assert answer["changes"]["turn"]["initiative"]["used"]["simple"] == 1


async def test_full_defense_costs_ten_initiative_at_once_and_moves_the_actor(client: Any) -> None:
    encounter = await started(client)
    # goon-1 (10) goes on full defense during rat's phase: 10 - 10 = 0, no phase this pass.
    status, answer = await post(
        client, encounter, "actions", {"actor": "goon-1", "action": "full_defense"}
    )
    assert status == 201, answer
    assert "goon-1: initiative 10 -> 0 (full_defense)" in answer["result"]["effects"]
    entries = answer["changes"]["turn"]["initiative"]["entries"]
    assert [(e["actor"], e["score"]) for e in entries] == [("rat", 25), ("sam", 20), ("goon-1", 0)]
    # A second one needs 10 more.
    status, problem = await post(
        client, encounter, "actions", {"actor": "goon-1", "action": "full_defense"}
    )
    assert status == 409
    assert problem["detail"] == "full_defense costs 10 initiative and goon-1's score is 0"
    phases = []
    for _ in range(2):
        phases.append((await post(client, encounter, "advance", {"to": "action_phase"}))[1])
    assert [p["result"]["turn"]["action_phase"] for p in phases] == ["sam", "rat"]


async def test_a_held_action_and_the_actor_stepping_in(client: Any) -> None:
    encounter = await started(client)
    status, answer = await post(
        client, encounter, "actions", {"actor": "rat", "action": "delay_action"}
    )
    assert status == 201, answer
    assert answer["result"]["effects"] == [
        "rat holds its action",
        "sam's combat phase (pass 1, score 20)",
    ]
    status, answer = await post(
        client, encounter, "advance", {"to": "action_phase", "actor": "rat"}
    )
    assert status == 201, answer
    assert answer["result"]["turn"]["action_phase"] == "rat"
    # sam had done nothing yet: its phase comes after rat's, then goon-1's.
    assert answer["result"]["effects"][0] == "rat steps in before sam acts"
    phases = []
    for _ in range(2):
        status, answer = await post(client, encounter, "advance", {"to": "action_phase"})
        phases.append(answer["result"]["turn"]["action_phase"])
    assert phases == ["sam", "goon-1"]
    status, problem = await post(
        client, encounter, "advance", {"to": "action_phase", "actor": "rat"}
    )
    assert status == 409
    assert problem["detail"] == "rat has had its phase in this pass"


async def test_actors_join_and_leave_mid_turn(client: Any) -> None:
    encounter = await started(client)
    join = {"actors": [{"actor": "kim", "score": 22}]}
    status, answer = await post(client, encounter, "initiative/actors", join)
    assert status == 201, answer
    assert answer["result"]["change"] == "joined"
    assert [e["actor"] for e in answer["result"]["entries"]] == ["rat", "kim", "sam", "goon-1"]
    status, answer = await post(client, encounter, "advance", {"to": "action_phase"})
    assert answer["result"]["turn"]["action_phase"] == "kim"
    response = await client.delete(f"/v1/encounters/{encounter}/initiative/actors/kim")
    assert response.status == 200, await response.text()
    answer = await response.json()
    assert answer["result"]["change"] == "left"
    # kim was acting: the next phase is sam's.
    assert answer["changes"]["turn"]["action_phase"] == "sam"
    response = await client.delete(f"/v1/encounters/{encounter}/initiative/actors/kim")
    assert response.status == 409
    assert "kim is not in this combat turn" in (await response.json())["detail"]


async def test_stopping_hands_the_turn_back_to_the_vtt(client: Any) -> None:
    encounter = await started(client)
    response = await client.delete(f"/v1/encounters/{encounter}/initiative")
    assert response.status == 200, await response.text()
    assert (await response.json())["result"]["change"] == "stopped"
    assert (await client.get(f"/v1/encounters/{encounter}/initiative")).status == 404
    # Any actor acts again, and advance needs its actor as before.
    status, _ = await post(client, encounter, "actions", {"actor": "sam", "action": "other"})
    assert status == 201
    status, problem = await post(client, encounter, "advance", {"to": "action_phase"})
    assert status == 422 and problem["path"] == "$.actor"


async def test_the_scene_fills_a_roll_from_the_actors_sheet(client: Any) -> None:
    encounter = await new_encounter(client)
    sheet = {"ruleset": "sr5", "reaction": 6, "intuition": 5, "edge": 2, "initiative_dice": 2}
    response = await client.put(f"/v1/encounters/{encounter}/actors/sam", json={"sheet": sheet})
    assert response.status == 200, await response.text()
    body = {"actors": [{"actor": "sam"}], "dice": {"initiative:sam": [3, 4]}}
    status, answer = await post(client, encounter, "initiative", body)
    assert status == 201, answer
    [sam] = answer["result"]["entries"]
    assert (sam["score"], sam["ties"]) == (6 + 5 + 3 + 4, [2, 6, 5])


async def test_bad_initiative_requests_are_clear_problems(client: Any) -> None:
    encounter = await new_encounter(client)
    cases = [
        ({"actors": [{"actor": "sam", "reaction": 5}]}, 422, "$.actors[0].intuition"),
        ({"actors": [{"actor": "sam", "score": 5000}]}, 400, "$.actors[0].score"),
        ({"actors": [{"actor": "sam", "score": 5, "luck": 1}]}, 400, "$.actors[0].luck"),
        ({"actors": [{"actor": "sam", "score": 5}], "dice": {"attack": [6]}}, 400, None),
        ({}, 422, "$.actors"),
    ]
    for body, status, path in cases:
        response = await client.post(f"/v1/encounters/{encounter}/initiative", json=body)
        assert response.status == status, (body, await response.text())
        assert response.content_type == PROBLEM
        problem = await response.json()
        if path is not None:
            assert problem["path"] == path, problem
    # None of them changed anything.
    assert (await turn_of(client, encounter))["initiative"] is None


async def test_d100_has_no_initiative_passes(client: Any) -> None:
    encounter = await new_encounter(client, ruleset="d100")
    status, problem = await post(
        client, encounter, "initiative", {"actors": [{"actor": "sam", "score": 9}]}
    )
    assert status == 422
    assert problem["detail"] == "d100 has no initiative passes for the service to run"


async def test_only_the_gm_runs_the_initiative(make_client: Any) -> None:
    client = await make_client(admin=False)
    created = await (
        await client.post(
            "/v1/encounters",
            json={"ruleset": "sr5"},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
        )
    ).json()
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    response = await client.post(
        f"/v1/encounters/{created['id']}/initiative",
        json={"actors": [RAT]},
        headers=player,
    )
    assert response.status == 403
    response = await client.get(f"/v1/encounters/{created['id']}/initiative", headers=player)
    assert response.status == 404


async def test_a_retry_with_the_same_key_rolls_nothing_new(client: Any) -> None:
    encounter = await new_encounter(client)
    body = {"actors": [SAM, GOON]}
    headers = {"Idempotency-Key": "5f0c1b8e-7d1c-4b0a-9e59-3d1f0c2b7a11"}
    first = await client.post(f"/v1/encounters/{encounter}/initiative", json=body, headers=headers)
    again = await client.post(f"/v1/encounters/{encounter}/initiative", json=body, headers=headers)
    assert (first.status, again.status) == (201, 201)
    assert (await first.json())["result"] == (await again.json())["result"]
    assert (await turn_of(client, encounter))["combat_turn"] == 1


async def test_players_see_no_hidden_actor_in_the_initiative(make_client: Any) -> None:
    client = await make_client(admin=False)
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    created = await (
        await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=admin)
    ).json()
    base = f"/v1/encounters/{created['id']}"
    gm = {"Authorization": f"Bearer {created['tokens']['gm']}"}
    player = {"Authorization": f"Bearer {created['tokens']['player']}"}
    response = await client.put(f"{base}/actors/ninja", json={"hidden": True}, headers=gm)
    assert response.status == 200, await response.text()
    body = {"actors": [{"actor": "ninja", "score": 30}, {"actor": "sam", "score": 20}, RAT]}
    assert (await client.post(f"{base}/initiative", json=body, headers=gm)).status == 201
    # ninja's phase (30), then rat's (25): players see neither ninja's name nor its score.
    assert (await client.post(f"{base}/advance", json={"to": "action_phase"}, headers=gm)).ok
    for token, sees_ninja in ((gm, True), (player, False)):
        turn = (await (await client.get(base, headers=token)).json())["turn"]
        view = await (await client.get(f"{base}/initiative", headers=token)).json()
        events = (await (await client.get(f"{base}/events", headers=token)).json())["events"]
        for entries in (
            turn["initiative"]["entries"],
            view["entries"],
            *(e["result"]["entries"] for e in events if e["type"] == "initiative"),
            *(
                e["result"]["turn"]["initiative"]["entries"]
                for e in events
                if e["type"] == "advance"
            ),
        ):
            assert ("ninja" in [e["actor"] for e in entries]) is sees_ninja
        shown = str(events)
        assert ("ninja" in shown) is sees_ninja
        assert ("'score': 30" in shown and "ninja 30" in shown) is sees_ninja
        # Nor in the events' words: a line about ninja ("someone 30", "someone's combat phase
        # (pass 1, score 30)") would tell its score, and that it is in the fight.
        effects = [line for e in events for line in (e.get("result") or {}).get("effects", [])]
        assert any("30" in line for line in effects) is sees_ninja
        assert any("someone" in line for line in effects) is False
    # The players' view is as their events say: rat acts, ninja's phase is not theirs to see.
    view = await (await client.get(f"{base}/initiative", headers=player)).json()
    assert [e["actor"] for e in view["entries"]] == ["rat", "sam"]
    assert view["current"] == "rat"


async def test_sr3_phases_count_its_actions_and_a_new_turn_refreshes_the_combat_pool(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset="sr3")
    body = {
        "actors": [{"actor": "sam", "reaction": 5}, {"actor": "goon-1", "reaction": 4}],
        "dice": {"initiative:sam": [6], "initiative:goon-1": [3]},
    }
    status, answer = await post(client, encounter, "initiative", body)
    assert status == 201, answer
    # Reaction + 1d6: sam 11, goon-1 7.
    assert [(e["actor"], e["score"]) for e in answer["result"]["entries"]] == [
        ("sam", 11),
        ("goon-1", 7),
    ]
    # A single shot is a complex action (002: Fire Weapon (SS/FA)); then only free ones fit.
    single = sr3.attack(mode="SS", weapon=sr3.weapon(modes=["SS", "SA"]), pool=4)
    status, answer = await post(client, encounter, "attacks", single)
    assert status == 201, answer
    status, problem = await post(client, encounter, "attacks", sr3.attack(mode="SA"))
    assert status == 409
    assert (
        problem["detail"]
        == "the attack takes a simple action and sam has 1 free left in this phase"
    )
    status, answer = await post(client, encounter, "actions", {"actor": "sam", "action": "gesture"})
    assert status == 201, answer
    # Pass 1: sam, goon-1; pass 2: sam at 1; then the combat turn is over, and every Combat
    # Pool refreshes (sam committed 4 of its 6).
    phases = [
        (await post(client, encounter, "advance", {"to": "action_phase"}))[1] for _ in range(3)
    ]
    assert [p["result"]["turn"]["action_phase"] for p in phases] == ["goon-1", "sam", None]
    assert "sam: Combat Pool refreshed to 6 (2 were left)" in phases[-1]["result"]["effects"]


async def test_the_rulesets_tell_what_their_initiative_reads(client: Any) -> None:
    listed = (await (await client.get("/v1/rulesets")).json())["rulesets"]
    by_id = {r["id"]: r["initiative"] for r in listed}
    assert by_id["sr5"]["base"] == ["reaction", "intuition"]
    assert by_id["sr5"]["ties"] == ["edge", "reaction", "intuition"]
    assert by_id["sr5"]["phase"] == ["1 free, 1 complex", "1 free, 2 simple"]
    assert by_id["sr3"]["base"] == ["reaction"]
    assert by_id["sr3"]["phase"] == ["1 free, 1 complex", "1 free, 2 simple", "3 free"]
    assert by_id["d100"] is None


async def test_an_initiative_result_says_where_the_turn_stands(client: Any) -> None:
    encounter = await started(client)
    status, _ = await post(client, encounter, "advance", {"to": "initiative_pass"})
    assert status == 201
    join = {"actors": [{"actor": "kim", "score": 22}]}
    status, answer = await post(client, encounter, "initiative/actors", join)
    assert status == 201, answer
    assert (answer["result"]["combat_turn"], answer["result"]["initiative_pass"]) == (1, 2)
