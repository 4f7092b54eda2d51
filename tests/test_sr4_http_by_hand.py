"""SR4 over HTTP, numbers worked by hand: a single shot, two bursts in one action phase (the
second takes the second attack's recoil and the ganger its earlier defense), and the refusals
of a third attack and of a full burst without its rounds, which change nothing. Every expected
number is written here with its working; the parity tests of test_sr4_http.py only check the
plumbing.

"001" is rules-sources/001_2cfc288dfef1df08.txt; "002" its range table
(002_65e09aecd368bc68.txt, which SR4 kept: rules-sources/README.md); "docs" is
docs/rulesets/sr4.md. A die of 5 or 6 is a hit.
"""

from __future__ import annotations

from typing import Any

from tests import sr4_requests as make
from tests.by_hand import attack, state
from tests.test_api import new_encounter

PROBLEM_TYPE = "https://firefight.invalid/problems/"
# 6P, AP -1, SA / BF / FA, 30 rounds, recoil compensation 1.
RIFLE = {**make.RIFLE, "rc": 1}


async def test_a_single_shot_at_medium_range(store_client: Any) -> None:
    encounter = await new_encounter(store_client, ruleset="sr4")
    result = await attack(
        store_client,
        encounter,
        make.attack(
            targets=[make.target(distance_m=12)],
            dice={
                "attack": [6, 5, 3, 2, 1, 2, 4],
                "defense:goon-1": [5, 2, 2],
                "soak:goon-1": [5, 2, 2, 2, 2, 2, 2, 2],
            },
        ),
    )
    target = result["targets"][0]
    # 001, "Opposed Combat Test": Agility 4 + Pistols 4 = 8; a heavy pistol at 12 m is medium
    # range (002: 6-20 m), -1 (README): 7 dice, 2 hits (one 1 of 7 is no glitch).
    assert (target["attack"]["pool"], target["attack"]["hits"]) == (7, 2)
    assert target["attack"]["glitch"] is False
    # Reaction 3: 3 dice, 1 hit; 2 - 1 = 1 net hit.
    assert (target["defense"]["pool"], target["defense"]["hits"]) == (3, 1)
    assert (target["outcome"], target["net_hits"]) == ("hit", 1)
    # 001 steps 4-6: DV 5 + 1 = 6 against ballistic 6 - 1 AP = 5: 6 exceeds 5, physical;
    # Body 3 + 5 = 8 dice, 1 hit: 6 - 1 = 5 boxes. One round: 15 - 1 = 14 left.
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["track"]) == (6, 5, "physical")
    assert (damage["soak"]["pool"], damage["soak"]["hits"], damage["boxes"]) == (8, 1, 5)
    assert (result["rounds_fired"], result["ammo_left"]) == (1, 14)


async def test_the_second_burst_of_a_phase_takes_more_recoil_and_the_ganger_an_earlier_defense(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert phase.status == 201, await phase.text()
    ganger = make.defender(reaction=5)

    # 1. A narrow short burst, the phase's first attack, at 4 m (assault rifle short: 0-50 m).
    first = await attack(
        client,
        encounter,
        make.attack(
            weapon=RIFLE,
            mode="BF",
            burst="narrow",
            targets=[make.target(defender=ganger)],
            dice={
                "attack": [5, 5, 5, 2, 2, 2, 2],
                "defense:goon-1": [5, 2, 2, 2, 2],
                "soak:goon-1": [5, *[2] * 7],
            },
        ),
    )
    target = first["targets"][0]
    # 001, "Recoil": a first short burst -2, RC 1 takes 1 off: -1. 4 + 4 - 1 = 7 dice, 3 hits.
    assert (target["attack"]["pool"], target["attack"]["hits"]) == (7, 3)
    # Reaction 5, a narrow burst takes nothing off the defense: 5 dice, 1 hit; 2 net hits.
    assert (target["defense"]["pool"], target["net_hits"]) == (5, 2)
    # 001, "Narrow Bursts": 6 + 2 = 8 is compared with armor 6 - 1 = 5 (physical), then the
    # burst's +2: DV 10; Body 3 + 5 = 8 dice, 1 hit: 9 boxes.
    damage = target["damage"]
    assert (damage["compared_dv"], damage["dv"], damage["track"]) == (8, 10, "physical")
    assert (damage["soak"]["pool"], damage["boxes"]) == (8, 9)

    # 2. A wide short burst in the same phase at the ganger, now in partial cover.
    second = await attack(
        client,
        encounter,
        make.attack(
            weapon={**RIFLE, "ammo": 27},
            mode="BF",
            burst="wide",
            targets=[make.target(defender=ganger, cover="partial")],
            dice={
                "attack": [6, 5, 5, 2],
                "defense:goon-1": [5, 2],
                "soak:goon-1": [2] * 8,
            },
        ),
    )
    target = second["targets"][0]
    # 001, "Recoil": the phase's second burst -3, RC 1: -2; partial cover -2 (001's
    # modifiers): 8 - 2 - 2 = 4 dice, 3 hits.
    assert (target["attack"]["pool"], target["attack"]["hits"]) == (4, 3)
    # 001, "Wide Bursts": -2 to the defense; one earlier defense since its phase: -1 (docs,
    # "The test"): 5 - 2 - 1 = 2 dice, 1 hit; 2 net hits.
    assert sorted(m["value"] for m in target["defense_modifiers"] if m["value"] < 0) == [-2, -1]
    assert (target["defense"]["pool"], target["defense"]["hits"], target["net_hits"]) == (2, 1, 2)
    # No narrow DV: 6 + 2 = 8 against 5, physical; no soak hits: 8 boxes. 27 - 3 = 24 rounds.
    damage = second["targets"][0]["damage"]
    assert (damage["dv"], damage["track"], damage["boxes"]) == (8, "physical", 8)
    assert second["ammo_left"] == 24

    # 3. Two simple actions fill the phase: a third attack is refused and changes nothing
    # (001, "Firearms": two simple actions a phase; docs, "Firing modes").
    before = await state(client, encounter)
    third = await client.post(
        f"{base}/attacks", json=make.attack(weapon={**RIFLE, "ammo": 24}, mode="SA")
    )
    assert third.status == 409, await third.text()
    assert (await third.json())["type"] == PROBLEM_TYPE + "phase-full"
    assert await state(client, encounter) == before


async def test_a_full_burst_without_ten_rounds_is_refused_naming_the_ammo(
    memory_client: Any,
) -> None:
    encounter = await new_encounter(memory_client, ruleset="sr4")
    before = await state(memory_client, encounter)
    response = await memory_client.post(
        f"/v1/encounters/{encounter}/attacks",
        json=make.attack(weapon={**RIFLE, "ammo": 9}, mode="FB"),
    )
    # docs, "Firing modes": a full burst needs 10 rounds (001: 10 rounds), 9 is a 422.
    assert response.status == 422, await response.text()
    assert response.content_type == "application/problem+json"
    problem = await response.json()
    assert (problem["type"], problem["path"]) == (PROBLEM_TYPE + "out-of-ammo", "$.weapon.ammo")
    assert await state(memory_client, encounter) == before


async def test_a_full_defense_adds_dodge_until_the_combat_turn_ends(memory_client: Any) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr4")
    base = f"/v1/encounters/{encounter}"
    response = await client.post(
        f"{base}/actions", json={"actor": "goon-1", "action": "full_defense"}
    )
    assert response.status == 201, await response.text()
    shot = make.attack(dice={"attack": [5, 5, 2, 2, 2, 2, 2, 2], "defense:goon-1": [5, 5, 2, 2, 2]})
    result = await attack(client, encounter, shot)
    target = result["targets"][0]
    # 001, "Defending Against Ranged Combat": Reaction 3 + Dodge 2 on full defense = 5 dice,
    # 2 hits against the attack's 2 (Agility 4 + Pistols 4 = 8 dice, short range): the
    # defender wins ties, a miss (no grazing asked).
    assert (target["attack"]["pool"], target["attack"]["hits"]) == (8, 2)
    assert (target["defense"]["pool"], target["defense"]["hits"]) == (5, 2)
    assert (target["outcome"], target["net_hits"]) == ("miss", 0)
    # A new combat turn ends it (docs, "Actions"); the ganger's earlier defense is of the last
    # turn's phase too, so the advance to its phase clears it: Reaction 3 alone.
    for step in ({"to": "combat_turn"}, {"to": "action_phase", "actor": "goon-1"}):
        response = await client.post(f"{base}/advance", json=step)
        assert response.status == 201, await response.text()
    dice = {"attack": shot["dice"]["attack"], "defense:goon-1": [2] * 3, "soak:goon-1": [2] * 8}
    again = await attack(client, encounter, {**shot, "weapon": make.weapon(ammo=14), "dice": dice})
    # 2 hits against none: 2 net; DV 5 + 2 = 7 against 6 - 1 = 5: physical, Body 3 + 5 = 8
    # dice, no hits: 7 boxes.
    target = again["targets"][0]
    assert (target["defense"]["pool"], target["net_hits"]) == (3, 2)
    assert (target["damage"]["dv"], target["damage"]["boxes"]) == (7, 7)
