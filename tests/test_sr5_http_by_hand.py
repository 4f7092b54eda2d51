"""SR5 over HTTP, numbers worked by hand: a single shot, bursts whose recoil and whose defenses
carry from one attack to the next, a defense with cover, prone and an earlier defense, and a
refusal that changes nothing. Every expected number is written here with its working; none is
read from the rules core (the parity tests of test_sr5_http.py only check the plumbing).

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt; "README" is rules-sources/README.md,
"Shadowrun 5"; "docs" is docs/rulesets/sr5.md. A die of 5 or 6 is a hit (the guide).
"""

from __future__ import annotations

from typing import Any

from tests import sr5_requests as make
from tests.by_hand import attack
from tests.by_hand import state as combat
from tests.test_api import new_encounter

PROBLEM_TYPE = "https://firefight.invalid/problems/"

# DV 8P, AP -1, Accuracy 5, RC 2 (the request builders' pistol numbers on an assault rifle).
RIFLE = make.weapon(
    id="ak", category="assault_rifle", modes=["SA", "BF", "FA"], ammo=60, rc=2, accuracy=5
)


def values(modifiers: list[dict[str, Any]]) -> list[int]:
    return sorted(m["value"] for m in modifiers)


async def test_a_single_shot_at_medium_range_soaked_as_stun(store_client: Any) -> None:
    encounter = await new_encounter(store_client, ruleset="sr5")
    body = make.attack(
        attacker=make.attacker(agility=6, skill=5, strength=3),
        targets=[
            make.target(
                distance_m=12,
                defender=make.defender(reaction=4, intuition=3, body=5, armor=12),
            )
        ],
        dice={
            "attack": [6, 5, 5, 3, 2, 1, 4, 4, 2, 3],
            "defense:goon-1": [5, 2, 2, 3, 1, 4, 4],
            "soak:goon-1": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        },
    )
    result = await attack(store_client, encounter, body)
    target = result["targets"][0]
    # The guide, "Semi-Automatic (SA)": one round, a simple action; recoil 1 round against
    # 1 + ceil(3 / 3) + RC 0 = 2 (README): no penalty.
    assert (result["rounds_fired"], result["ammo_left"], result["action"]) == (1, 14, "simple")
    assert (result["recoil"]["compensation"], result["recoil"]["penalty"]) == (2, 0)
    # Pool 6 Agility + 5 Pistols = 11; a heavy pistol at 12 m is medium range (6-20 m), -1
    # (README, range row -1): 10 dice, three of them 5 or 6; limit Accuracy 5.
    assert (result["pool"], result["limit"], target["range"]) == (11, 5, "medium")
    assert (target["attack"]["pool"], target["attack_hits"]) == (10, 3)
    # The guide, "3a": Reaction 4 + Intuition 3 = 7 dice, one hit; 3 - 1 = 2 net hits.
    assert (target["defense"]["pool"], target["defense_hits"]) == (7, 1)
    assert (target["outcome"], target["net_hits"]) == ("hit", 2)
    # The guide, "3b": DV 8 + 2 = 10; armor 12 - 1 AP = 11 exceeds 10, so the damage is stun;
    # Body 5 + 11 = 16 soak dice, 3 hits: 10 - 3 = 7 boxes of stun.
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["track"]) == (10, 11, "stun")
    assert (damage["soak"]["pool"], damage["soak_hits"], damage["boxes"]) == (16, 3, 7)


async def test_recoil_and_earlier_defenses_carry_from_one_burst_to_the_next(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr5")
    base = f"/v1/encounters/{encounter}"
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert phase.status == 201, await phase.text()

    # 1. A burst at 20 m (assault rifle short range, 0-25 m: 0), no cover.
    first = await attack(
        client,
        encounter,
        make.attack(
            weapon=RIFLE,
            mode="BF",
            targets=[make.target(distance_m=20)],
            dice={
                "attack": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2],
                "defense:goon-1": [5, 2, 2, 2],
                "soak:goon-1": [5, *[2] * 11],
            },
        ),
    )
    target = first["targets"][0]
    # The guide, "Recoil": compensation 1 + ceil(4 Strength / 3) + RC 2 = 5; a burst fires 3
    # rounds: 3 - 5 leaves no penalty. Pool 5 Agility + 5 skill = 10, 3 hits.
    assert (first["recoil"]["compensation"], first["recoil"]["rounds_total"]) == (5, 3)
    assert (first["recoil"]["penalty"], first["pool"], target["attack_hits"]) == (0, 10, 3)
    # The guide, "Burst Fire (BF)": -2 to the defense: 3 + 3 - 2 = 4 dice, 1 hit; 2 net hits.
    assert (target["defense"]["pool"], target["defense_hits"], target["net_hits"]) == (4, 1, 2)
    # DV 8 + 2 = 10 against armor 9 - 1 = 8: physical; Body 4 + 8 = 12 dice, 1 hit: 9 boxes.
    assert [target["damage"][k] for k in ("dv", "armor", "track", "boxes")] == [
        10,
        8,
        "physical",
        9,
    ]

    # 2. Sam's next action phase: a full-auto burst at the ganger, now prone in good cover.
    # The ganger has had no action phase since its defense, so that defense still counts.
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert phase.status == 201, await phase.text()
    second = await attack(
        client,
        encounter,
        make.attack(
            weapon={**RIFLE, "ammo": 57},
            mode="FA",
            targets=[make.target(distance_m=20, cover="good", prone=True)],
            dice={
                "attack": [6, 5, 2, 2, 1, 3],
                "defense:goon-1": [5, 3],
                "soak:goon-1": [2] * 12,
            },
        ),
    )
    target = second["targets"][0]
    # The guide, "Recoil" (progressive; the README: it counts every round since the last
    # reset, and advancing a phase is no reset): 3 + 6 = 9 rounds against 5: -4.
    recoil = second["recoil"]
    assert [recoil[k] for k in ("rounds_before", "rounds_fired", "rounds_total")] == [3, 6, 9]
    assert (recoil["penalty"], second["pool"], target["attack_hits"]) == (-4, 6, 2)
    # Defense (the guide's modifiers; README: prone -2, -1 per earlier defense):
    # 3 + 3, FA -5, good cover +4, prone -2, one earlier defense -1 = 2 dice, 1 hit.
    assert values(target["defense_modifiers"]) == [-5, -2, -1, 3, 3, 4]
    assert (target["defense"]["pool"], target["defense_hits"], target["net_hits"]) == (2, 1, 1)
    # DV 8 + 1 = 9, armor 8: physical; no soak hits: 9 boxes. 57 - 6 = 51 rounds left.
    assert (target["damage"]["dv"], target["damage"]["boxes"], second["ammo_left"]) == (9, 9, 51)
    state = (await combat(client, encounter))["combat"]["actors"]
    assert (state["sam"]["recoil_rounds"], state["goon-1"]["defenses"]) == (9, 2)

    # 3. A second attack in the same phase is refused (the guide, DADA step 1) and changes
    # nothing: no round, no recoil.
    before = await combat(client, encounter)
    again = await client.post(
        f"{base}/attacks",
        json=make.attack(weapon={**RIFLE, "ammo": 51}, mode="SA", dice={"attack": [2] * 10}),
    )
    assert again.status == 409, await again.text()
    problem = await again.json()
    assert (problem["type"], problem["path"]) == (
        PROBLEM_TYPE + "already-attacked",
        "$.attacker.id",
    )
    assert await combat(client, encounter) == before


async def test_an_action_resets_recoil_and_the_defenders_phase_its_defenses(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr5")
    base = f"/v1/encounters/{encounter}"
    burst = make.attack(
        weapon=RIFLE,
        mode="FA",
        targets=[make.target(distance_m=20, cover="partial")],
        dice={"attack": [5, *[2] * 8], "defense:goon-1": [2] * 3, "soak:goon-1": [2] * 12},
    )
    first = await attack(client, encounter, burst)
    # 6 rounds against 5: -1 (the guide, "Recoil"): 10 - 1 = 9 dice (given exactly: one more
    # would be a 400, docs "Dice steps").
    assert (first["recoil"]["penalty"], first["pool"]) == (-1, 9)
    # 3 + 3 + partial cover 2 - FA 5 = 3 dice (the guide's defense modifiers).
    assert first["targets"][0]["defense"]["pool"] == 3
    # Taking aim is an action other than firing: recoil resets (docs, "Recoil"); the ganger's
    # own action phase begins: its earlier defense no longer counts (README; docs, "Defense").
    aim = {"actor": "sam", "action": "take_aim", "aim_for": "dice"}
    response = await client.post(f"{base}/actions", json=aim)
    assert response.status == 201, await response.text()
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "goon-1"})
    assert phase.status == 201, await phase.text()
    second = await attack(
        client,
        encounter,
        {
            **burst,
            "weapon": {**RIFLE, "ammo": 54},
            "dice": {**burst["dice"], "attack": [5, *[2] * 9]},
        },
    )
    # Back to 6 rounds from nothing: -1 again, not -7; the aim adds +1 die (the guide, "A
    # character may aim"): 10 + 1 - 1 = 10. Defense 3 again, not 2.
    assert (second["recoil"]["rounds_before"], second["recoil"]["penalty"]) == (0, -1)
    assert (second["pool"], second["targets"][0]["defense"]["pool"]) == (10, 3)


async def test_a_burst_from_a_gun_with_two_rounds_is_refused_naming_its_ammo(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr5")
    before = await combat(memory_client, encounter)
    response = await memory_client.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(weapon={**RIFLE, "ammo": 2}, mode="BF"),
    )
    # The guide, "Burst Fire (BF)": 3 rounds; 2 left cannot fire it (docs, "Firing modes").
    assert response.status == 422, await response.text()
    assert response.content_type == "application/problem+json"
    problem = await response.json()
    assert (problem["type"], problem["path"]) == (PROBLEM_TYPE + "out-of-ammo", "$.weapon.ammo")
    assert await combat(memory_client, encounter) == before
