"""Hard Life's turn through the HTTP API, on every store: a failed recovery roll losing the
actor's next phase under the service's initiative (the order passes it by) and under the VTT's
(the advance to its phase says it is lost, and it may not act in it), the roll made again, the
consciousness test (0, 1 and k successes, due again at the next combat turn, Ripley's target
number 10), the Dodge Pool refreshed, the initiative's wound modifier read off the monitors,
the GM healing a monitor with PUT .../state, and the rolls taking Willpower from the sheet.

"004" is rules-sources/004_afd6299c3d537f5c.txt. Boxes: L 1, M 3, S 6, D 10 (README); the
injury modifier adds the worst physical and the worst stun level's (L 1, M 2, S 3, D 4).
Tests of Willpower against a target number re-roll a 6 only while it is out of reach.
"""

from __future__ import annotations

from typing import Any

from tests import test_sr3hl_rules as rules
from tests.test_api import new_encounter

RULESET = "sr3-hardlife"
# Torso at S: injury modifier 3 (recovery roll target number 2 + 3 = 5; initiative -3).
TORSO_S = {"torso": {"physical": 6}}
# Ripley (004, "Death and Injury"): trauma D physical (10 boxes) and S stun (6): target number
# 3 + 4 + 3 = 10.
RIPLEY = {
    "trauma": {"physical": 10, "stun": 6},
    "right_leg": {"physical": 3},
    "vitals": {"physical": 6},
    "torso": {"physical": 6},
}


def combat(**actors: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": RULESET, "actors": actors}


def recovering(level: str = "S") -> dict[str, Any]:
    return {"body": 4, "monitors": TORSO_S, "recovery": {"level": level}}


async def post(client: Any, encounter: str, path: str, body: Any) -> tuple[int, Any]:
    response = await client.post(f"/v1/encounters/{encounter}/{path}", json=body)
    return response.status, await response.json()


async def actor_state(client: Any, encounter: str, actor: str = "ripley") -> Any:
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    return view["combat"]["actors"][actor]


async def roll(
    client: Any, encounter: str, action: str, dice: list[int], willpower: int | None = 5
) -> tuple[int, Any]:
    step = "recovery" if action == "recovery_roll" else "consciousness"
    body: dict[str, Any] = {"actor": "ripley", "action": action, "dice": {f"{step}:ripley": dice}}
    if willpower is not None:
        body["willpower"] = willpower
    return await post(client, encounter, "actions", body)


async def test_a_failed_recovery_roll_loses_a_phase_the_services_initiative_passes_by(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=recovering()))
    body = {
        "actors": [{"actor": "goon", "score": 12}, {"actor": "ripley", "reaction": 5}],
        "dice": {"initiative:ripley": [6]},
    }
    status, answer = await post(client, encounter, "initiative", body)
    assert status == 201, answer
    # Reaction 5 + 6, less the torso's S off the monitors (3): 8.
    entries = answer["result"]["entries"]
    assert [(e["actor"], e["score"], e["modifier"]) for e in entries] == [
        ("goon", 12, 0),
        ("ripley", 8, -3),
    ]
    # In the goon's phase: Willpower 5 against 5 rolls 5, 6: 2 successes of S's 3.
    status, answer = await roll(client, encounter, "recovery_roll", [5, 6, 1, 2, 3])
    assert status == 201, answer
    result = answer["result"]
    assert result["recovery"]["passed"] is False
    assert result["recovery"]["needed"] == 3
    assert result["dice"][0]["values"] == [5, 6, 1, 2, 3]
    # The goon's phase ends: ripley's (score 8) is passed by, pass 2 has only the goon (2).
    status, answer = await post(client, encounter, "advance", {"to": "action_phase"})
    assert status == 201, answer
    assert "ripley has given this phase up (taken ahead)" in answer["result"]["effects"]
    turn = answer["result"]["turn"]
    assert (turn["initiative_pass"], turn["action_phase"]) == (2, "goon")
    # The roll is still due, and made again (5, 5, 6: passed) outside her phase.
    status, answer = await roll(client, encounter, "recovery_roll", [5, 5, 6, 1, 2])
    assert status == 201, answer
    assert answer["result"]["recovery"]["passed"] is True
    assert "recovery" not in await actor_state(client, encounter)


async def test_a_failed_recovery_roll_with_the_vtts_initiative_marks_its_next_phase_lost(
    client: Any,
) -> None:
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=recovering()))
    status, answer = await roll(client, encounter, "recovery_roll", [5, 6, 1, 2, 3])
    assert status == 201, answer
    assert (await actor_state(client, encounter))["actions_lost"] == 1
    # Made again and failed again (one 5: 1 success): a second phase is lost.
    status, answer = await roll(client, encounter, "recovery_roll", [5, 1, 2, 3, 4])
    assert status == 201, answer
    assert answer["result"]["recovery"]["passed"] is False
    assert (await actor_state(client, encounter))["actions_lost"] == 2
    # Her next phase: lost. Until the roll passes, she may make nothing but the roll.
    advance = {"to": "action_phase", "actor": "ripley"}
    status, answer = await post(client, encounter, "advance", advance)
    assert status == 201, answer
    assert "ripley loses this action phase (recovery roll failed)" in answer["result"]["effects"]
    status, problem = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "take_aim"}
    )
    assert (status, problem["type"].rsplit("/", 1)[-1], problem["path"]) == (
        409,
        "recovery-roll-due",
        "$.actor",
    )
    status, answer = await roll(client, encounter, "recovery_roll", [5, 5, 6, 1, 2])
    assert answer["result"]["recovery"]["passed"] is True
    status, problem = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "take_aim"}
    )
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "action-lost")
    # The next phase is lost too (the second failure); the one after is hers.
    for phase_is_lost in (True, False):
        status, answer = await post(client, encounter, "advance", advance)
        lost = (
            "ripley loses this action phase (recovery roll failed)" in answer["result"]["effects"]
        )
        assert lost is phase_is_lost
    status, answer = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "take_aim"}
    )
    assert status == 201, answer


async def test_ripley_with_two_successes_at_ten_acts_once_more_then_tests_again(
    client: Any,
) -> None:
    ripley = {"body": 4, "monitors": RIPLEY}
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=ripley))
    # The state as created is settled: at deadly, the test is due, and she may not act.
    state = await actor_state(client, encounter)
    assert state["consciousness_due"] is True
    assert state["condition"]["deadly"] is True
    status, problem = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "take_aim"}
    )
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "consciousness-test-due")
    # Willpower 5 against 10: 6 + 4 and 6 + 5 reach it: 2 successes, one phase (004).
    status, answer = await roll(client, encounter, "consciousness_test", [6, 5, 6, 3, 1, 4, 5])
    assert status == 201, answer
    test = answer["result"]["consciousness"]
    assert (test["test"]["target_number"], test["test"]["successes"], test["phases"]) == (10, 2, 1)
    advance = {"to": "action_phase", "actor": "ripley"}
    status, answer = await post(client, encounter, "advance", advance)
    assert (
        "ripley acts normally in this phase (consciousness test; 0 more after it)"
        in (answer["result"]["effects"])
    )
    action = {"actor": "ripley", "action": "take_aim"}
    assert (await post(client, encounter, "actions", action))[0] == 201
    status, answer = await post(client, encounter, "advance", advance)
    status, problem = await post(client, encounter, "actions", action)
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "no-action-left")
    observe = {"actor": "ripley", "action": "observe"}
    assert (await post(client, encounter, "actions", observe))[0] == 201
    # A new combat turn: the test is due again.
    status, answer = await post(client, encounter, "advance", {"to": "combat_turn"})
    assert "ripley is at deadly: the consciousness test is due again" in answer["result"]["effects"]
    assert (await actor_state(client, encounter))["consciousness_due"] is True


async def test_one_success_gives_free_actions_only_and_none_unconsciousness(client: Any) -> None:
    ripley = {"body": 4, "monitors": RIPLEY}
    for dice, expected in (([6, 2, 3, 1, 1, 4], "no-action-left"), ([5, 2, 3, 1, 4], "actor-down")):
        encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=ripley))
        status, answer = await roll(client, encounter, "consciousness_test", dice)
        assert status == 201, answer
        successes = answer["result"]["consciousness"]["test"]["successes"]
        assert successes == (1 if expected == "no-action-left" else 0)
        status, problem = await post(
            client, encounter, "actions", {"actor": "ripley", "action": "take_aim"}
        )
        assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, expected)
    assert (await actor_state(client, encounter))["unconscious"] is True


async def test_a_new_combat_turn_refreshes_the_dodge_pool(client: Any) -> None:
    ripley = {"combat_pool": 6, "pool_left": 2, "dodge_pool": 3, "dodge_left": 1}
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=ripley))
    status, answer = await post(client, encounter, "advance", {"to": "combat_turn"})
    assert status == 201, answer
    effects = answer["result"]["effects"]
    assert "ripley: Dodge Pool refreshed to 3 (1 were left)" in effects
    assert "ripley: Combat Pool refreshed to 6 (2 were left)" in effects
    state = await actor_state(client, encounter)
    assert (state["pool_left"], state["dodge_left"]) == (6, 3)


async def test_the_gm_heals_a_monitor_and_the_condition_follows(client: Any) -> None:
    # Body 4: 14 boxes on the torso is death.
    dead = {"body": 4, "monitors": {"torso": {"physical": 14}}}
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=dead))
    assert (await actor_state(client, encounter))["condition"]["dead"] is True
    status, problem = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "observe"}
    )
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "actor-down")
    # The GM heals the torso to M (3 boxes), leaving the old condition in what it writes.
    healed = {**dead, "monitors": {"torso": {"physical": 3}}, "condition": {"dead": True}}
    response = await client.put(
        f"/v1/encounters/{encounter}/state", json={"combat": combat(ripley=healed)}
    )
    assert response.status == 201, await response.text()
    condition = (await actor_state(client, encounter))["condition"]
    # M: +2 to target numbers, -2 initiative; neither deadly nor dead.
    assert condition == {"target_number_modifier": 2, "initiative_modifier": -2}
    status, answer = await post(
        client, encounter, "actions", {"actor": "ripley", "action": "observe"}
    )
    assert status == 201, answer


async def test_the_rolls_take_willpower_from_the_sheet(client: Any) -> None:
    encounter = await new_encounter(client, ruleset=RULESET, combat=combat(ripley=recovering("M")))
    # No Willpower anywhere: the field is named.
    status, problem = await roll(client, encounter, "recovery_roll", [5, 5], willpower=None)
    assert (status, problem["path"]) == (422, "$.willpower")
    sheet = {"sheet": {"ruleset": RULESET, "body": 4, "willpower": 2}}
    response = await client.put(f"/v1/encounters/{encounter}/actors/ripley", json=sheet)
    assert response.status in (200, 201), await response.text()
    # The sheet's Willpower 2 against 5: 5 and 6, the 2 successes M needs.
    status, answer = await roll(client, encounter, "recovery_roll", [5, 6], willpower=None)
    assert status == 201, answer
    assert answer["result"]["recovery"]["test"]["dice"] == 2
    assert answer["result"]["recovery"]["passed"] is True


# --- attacks by names from the scene ---------------------------------------------------------

HK45 = {
    "id": "hk45",
    "category": "heavy_pistol",
    "power": 9,
    "damage_level": "M",
    "modes": ["SA"],
    "ammo": 10,
}


async def scene_of_two(client: Any, **fields: Any) -> str:
    """Carter (skill 6, the HK .45 with 10 rounds) at (0, 0); the goon (Body 4, Willpower 4, a
    jacket) at (3, 4), in partial cover."""
    encounter = await new_encounter(client, ruleset=RULESET, **fields)
    base = f"/v1/encounters/{encounter}/actors"
    carter = {
        "position": {"x": 0, "y": 0},
        "sheet": {"ruleset": RULESET, "skill": 6, "willpower": 5, "weapons": [HK45]},
    }
    goon = {
        "position": {"x": 3, "y": 4},
        "posture": {"cover": "partial"},
        "sheet": {"ruleset": RULESET, "body": 4, "willpower": 4, "armor": [{"garment": "jacket"}]},
    }
    for actor_id, actor in (("carter", carter), ("goon", goon)):
        response = await client.put(f"{base}/{actor_id}", json=actor)
        assert response.status in (200, 201), await response.text()
    return encounter


NAMED = {"attacker": "carter", "weapon": "hk45", "mode": "SA", "target": {"id": "goon"}, "seed": 3}


async def test_an_attack_by_names_is_filled_from_the_scene(client: Any) -> None:
    encounter = await scene_of_two(client)
    status, answer = await post(client, encounter, "attacks", NAMED)
    assert status == 201, answer
    result = answer["result"]
    # 3-4-5: 5 m, short range for a heavy pistol (002): base target number 4; the goon's
    # partial cover from its posture (SR3 +4); walking, as the scene knows no standing still
    # (SR3: no modifier, where stationary would be -1): 4 + 4 = 8.
    assert result["target"]["range"] == "short"
    assert {m["source"]: m["value"] for m in result["attack"]["modifiers"]} == {
        "range (short), standard vision": 4,
        "cover (partial)": 4,
    }
    assert result["attack"]["target_number"] == 8
    assert result["attack"]["dice"] == 6  # Carter's skill from the sheet, no pool
    # The scene's gun holds what the attack left: 10 - 1.
    carter = await (await client.get(f"/v1/encounters/{encounter}/actors/carter")).json()
    assert carter["sheet"]["weapons"][0]["ammo"] == 9


async def test_an_attack_in_a_lost_phase_is_refused(client: Any) -> None:
    encounter = await scene_of_two(client, combat=combat(carter={"actions_lost": 1}))
    status, answer = await post(
        client, encounter, "advance", {"to": "action_phase", "actor": "carter"}
    )
    assert "carter loses this action phase (recovery roll failed)" in answer["result"]["effects"]
    status, problem = await post(client, encounter, "attacks", NAMED)
    assert (status, problem["type"].rsplit("/", 1)[-1], problem["path"]) == (
        409,
        "action-lost",
        "$.attacker",
    )
    # Its next phase is its own again.
    await post(client, encounter, "advance", {"to": "action_phase", "actor": "carter"})
    status, answer = await post(client, encounter, "attacks", NAMED)
    assert status == 201, answer


# 004, "Damage Test" and "Resolve Recovery Roll": Carter's HK .45 at the goon, by names (skill 7
# on Carter's sheet; the goon's sheet: Body 4, Willpower 4, Combat Pool 5, a jacket; 4 m away,
# stationary: 4 - 1 = 3). The document's numbers with the dice the rules tests choose: 7
# successes, 2 dodged, 5 net: the torso; the jacket's 3 successes do not stop it (soak 4);
# 5 damage successes less 3: S. Body 2, 2, 1, 1 at 2: the stun L; Willpower 6, 2, 2, 2
# against 2 + 3 (S) + 1 (L) = 6: 1 success of S's 3, failed.
GOON_DICE = {
    "attack": [6] * 7,
    "dodge:goon": [5, 5, 1],
    "armor:goon": [3, 3, 3, 1, 1, 1],
    "damage:goon": [1, 1, 2, 3, 4, 4, 4, 5, 5, 6],
    "stun:goon": [2, 2, 1, 1],
    "recovery:goon": [6, 2, 2, 2],
}
AT_THE_GOON = {
    "attacker": "carter",
    "weapon": "hk45",
    "mode": "SA",
    "target": {"id": "goon", "movement": "stationary", "dodge": {"combat_pool": 3}},
    "dice": GOON_DICE,
}


async def goon_scene(client: Any) -> str:
    encounter = await new_encounter(client, ruleset=RULESET)
    base = f"/v1/encounters/{encounter}/actors"
    carter = {
        "position": {"x": 0, "y": 0},
        "sheet": {"ruleset": RULESET, "body": 5, "skill": 7, "weapons": [HK45]},
    }
    goon = {
        "position": {"x": 0, "y": 4},
        "sheet": {
            "ruleset": RULESET,
            "body": 4,
            "willpower": 4,
            "combat_pool": 5,
            "skill": 4,
            "armor": [{"garment": "jacket"}],
            "weapons": [HK45],
        },
    }
    for actor_id, actor in (("carter", carter), ("goon", goon)):
        response = await client.put(f"{base}/{actor_id}", json=actor)
        assert response.status in (200, 201), await response.text()
    return encounter


async def test_the_goons_failed_recovery_roll_the_services_initiative_passes_him_by(
    client: Any,
) -> None:
    encounter = await goon_scene(client)
    body = {"actors": [{"actor": "carter", "score": 20}, {"actor": "goon", "score": 12}]}
    assert (await post(client, encounter, "initiative", body))[0] == 201
    status, answer = await post(client, encounter, "attacks", AT_THE_GOON)
    assert status == 201, answer
    recovery = answer["result"]["target"]["recovery"]
    assert (recovery["test"]["target_number"], recovery["needed"], recovery["passed"]) == (
        6,
        3,
        False,
    )
    # Carter's phase ends: the goon's (12) is passed by; pass 2 (10 off): Carter at 10.
    status, answer = await post(client, encounter, "advance", {"to": "action_phase"})
    assert status == 201, answer
    assert "goon has given this phase up (taken ahead)" in answer["result"]["effects"]
    turn = answer["result"]["turn"]
    assert (turn["initiative_pass"], turn["action_phase"]) == (2, "carter")


async def test_the_goons_failed_recovery_roll_with_the_vtts_initiative(client: Any) -> None:
    encounter = await goon_scene(client)
    status, answer = await post(client, encounter, "attacks", AT_THE_GOON)
    assert status == 201, answer
    assert (await actor_state(client, encounter, "goon"))["actions_lost"] == 1
    status, answer = await post(
        client, encounter, "advance", {"to": "action_phase", "actor": "goon"}
    )
    assert "goon loses this action phase (recovery roll failed)" in answer["result"]["effects"]
    back = {"attacker": "goon", "weapon": "hk45", "mode": "SA", "target": {"id": "carter"}}
    status, problem = await post(client, encounter, "attacks", back)
    assert (status, problem["type"].rsplit("/", 1)[-1], problem["path"]) == (
        409,
        "recovery-roll-due",
        "$.attacker",
    )
    # The roll again, with the sheet's Willpower 4 against 6: 6, 6, 6 (each reaching 6 at
    # once): 3 successes, passed; the phase stays lost.
    again = {"actor": "goon", "action": "recovery_roll", "dice": {"recovery:goon": [6, 6, 6, 1]}}
    status, answer = await post(client, encounter, "actions", again)
    assert status == 201, answer
    assert answer["result"]["recovery"]["passed"] is True
    status, problem = await post(client, encounter, "attacks", back)
    assert (status, problem["type"].rsplit("/", 1)[-1]) == (409, "action-lost")


async def test_ripleys_three_wounds_then_her_consciousness_test(client: Any) -> None:
    """004, "Taking Damage" and "Death and Injury" end to end: the three shots of the rules
    tests (tests/test_sr3hl_rules.py, each in a phase of its own), her recovery rolls passed
    with Willpower 5 (all sixes; the third at 2 + 4 + 3 = 9 re-rolls each 6, 6 + 3 = 9), then
    the test the deadly trauma monitor asks for: 2 successes at 10, one more phase."""
    encounter = await new_encounter(client, ruleset=RULESET)
    shots = [
        (rules.ripley_shot("right_leg", "M", [6, 6, 6, 6]), [6] * 5),
        (rules.ripley_shot("vitals", "M", [6, 6, 6, 6]), [6] * 5),
        (rules.ripley_shot(None, "S", [1, 1, 1, 1]), [6] * 5 + [3] * 5),
    ]
    for shot, recovery in shots:
        await post(client, encounter, "advance", {"to": "action_phase", "actor": "carter"})
        shot["dice"]["recovery:ripley"] = recovery
        status, answer = await post(client, encounter, "attacks", shot)
        assert status == 201, answer
        assert answer["result"]["target"]["recovery"]["passed"] is True
    ripley = await actor_state(client, encounter)
    assert ripley["monitors"]["trauma"] == {"physical": 10, "stun": 6}
    assert ripley["consciousness_due"] is True
    status, answer = await roll(client, encounter, "consciousness_test", [6, 5, 6, 3, 1, 4, 5])
    assert status == 201, answer
    test = answer["result"]["consciousness"]
    assert (test["test"]["target_number"], test["test"]["successes"], test["phases"]) == (10, 2, 1)


# --- suppression fire and its zone test by names -------------------------------------------

SMG = {
    "id": "smg",
    "category": "smg",
    "power": 7,
    "damage_level": "M",
    "modes": ["SA", "BF", "FA"],
    "ammo": 30,
}
SQUARE = [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}, {"x": 0, "y": 1}]


async def test_suppression_fire_and_its_zone_test_are_filled_from_the_scene(client: Any) -> None:
    encounter = await new_encounter(client, ruleset=RULESET)
    base = f"/v1/encounters/{encounter}/actors"
    pete = {
        "position": {"x": 0, "y": 0},
        "sheet": {"ruleset": RULESET, "skill": 5, "weapons": [SMG]},
    }
    whisper = {
        "position": {"x": 18, "y": 24},
        "posture": {"cover": "partial"},
        "sheet": {"ruleset": RULESET, "body": 4, "willpower": 4},
    }
    for actor_id, actor in (("pete", pete), ("whisper", whisper)):
        response = await client.put(f"{base}/{actor_id}", json=actor)
        assert response.status in (200, 201), await response.text()
    fire = {
        "attacker": "pete",
        "weapon": "smg",
        "mode": "FA",
        "suppression": {"area": SQUARE, "bullets_per_m2": 6},
    }
    status, answer = await post(client, encounter, "attacks", fire)
    assert status == 201, answer
    zone = answer["result"]["suppression"]["zone"]["id"]
    # 1 m² at 6 bullets: the scene's gun holds 30 - 6.
    sheet = (await (await client.get(f"{base}/pete")).json())["sheet"]
    assert sheet["weapons"][0]["ammo"] == 24
    # Whisper 18-24-30 m from Pete: an SMG's medium range (002: 11-40 m), Table 9 +1; partial
    # cover from his posture +2: 4 + 2 + 1 = 7. No die reaches it: no round hits.
    test = {"actor": "whisper", "dice": {"suppression:whisper": [1, 2, 2, 3, 4, 5]}}
    status, answer = await post(client, encounter, f"zones/{zone}/tests", test)
    assert status == 201, answer
    attack = answer["result"]["attack"]
    assert attack["target_number"] == 7
    assert {m["source"]: m["value"] for m in attack["modifiers"]} == {
        "suppression fire": 4,
        "cover (partial)": 2,
        "range (medium)": 1,
    }
    assert attack["successes"] == 0
