"""Hard Life over HTTP, numbers worked by hand: a single shot at a prone goon who dodges, its
armour, damage test, monitors, stun, knock-back and recovery; a burst in the same phase whose
rounds count the shot's round as a bullet before; and a dodge the Combat Pool no longer holds,
refused without a change. Every expected number is written here with its working; the parity
tests of test_sr3hl_http.py only check the plumbing.

"004" is rules-sources/004_afd6299c3d537f5c.txt; "README" is rules-sources/README.md, "Shadowrun
3 (`sr3`) and Hard Life"; "docs" is docs/rulesets/sr3-hardlife.md (its readings of 004). A
success is a die at or above the target number (README), but for the damage test (004, "Damage
Test": 4 or more, a one takes one off, a six adds one).
"""

from __future__ import annotations

from typing import Any

from tests import sr3hl_requests as make
from tests.by_hand import attack, state
from tests.parity import mismatches
from tests.test_api import new_encounter

PROBLEM_TYPE = "https://firefight.invalid/problems/"
RULESET = "sr3-hardlife"
# 7M, SA / BF / FA, 30 rounds, recoil compensation 1: the first 1 + 1 = 2 bullets of a phase
# fire at the base target number (004, "Automatic fire and Scatter").
SMG = make.smg(recoil_compensation=1)
# The goon (Body 4, Willpower 4, an armoured jacket: torso 6/4, Table 7) with a Combat Pool of 5.
GOON = make.defender(combat_pool=5)


def the_shot() -> dict[str, Any]:
    return make.attack(
        weapon=SMG,
        target=make.target(defender=GOON, dodge={"combat_pool": 2, "prone": True}),
        dice={
            "attack": [6, 6, 5, 4, 3, 1],
            "dodge:goon": [6, 1],
            "armor:goon": [3, 3, 2, 1, 1, 1],
            "damage:goon": [6, 6, 4, 4, 2, 1, 3],
            "stun:goon": [2, 2, 2, 1],
            "recovery:goon": [6, 6, 6, 2],
        },
    )


# The single shot, worked once for both tests that fire it.
SHOT = {
    # 002: an SMG at 4 m is short range, standard vision TN 4; the goon stands still (SR3: -1):
    # 3. Skill 6: 6, 6, 5, 4, 3 succeed.
    "attack.target_number": 3,
    "target.attack_successes": 5,
    # Table 8: dodge TN 4, prone +2 = 6; 2 Combat Pool dice: the 6. 5 - 1 = 4 net.
    "target.dodge.target_number": 6,
    "target.dodge_successes": 1,
    "target.net_successes": 4,
    # Table 1: 4+ net successes scatter 0 hexes: the default aim point, the torso.
    "target.aim": "torso",
    "target.rounds[0].location": "torso",
    "target.hits[0].location": "torso",
    # Table 2: the jacket's torso 6 dice against 7 - 6 = 1, at least 2 (README): 3, 3, 2;
    # 3 successes under M's soak number 4: it penetrates.
    "target.hits[0].armor[0].test.target_number": 2,
    "target.hits[0].armor[0].test.successes": 3,
    "target.hits[0].armor[0].soak": 4,
    "target.hits[0].armor[0].stopped": False,
    # Table 3, 4 net: +0, 7 dice: 6, 6, 4, 4 at 4+ (4), less the one 1, plus the two 6s = 5;
    # less the armour's 3 = 2: one stage, M to S.
    "target.hits[0].damage[0].dice": 7,
    "target.hits[0].damage[0].successes": 4,
    "target.hits[0].damage[0].ones": 1,
    "target.hits[0].damage[0].sixes": 2,
    "target.hits[0].damage[0].net": 2,
    "target.hits[0].damage[0].level": "S",
    # 004, "Resolve Stun and Knock-back": Body 4 against 7 // 2 = 3 less the torso's impact 4,
    # at least 2: 2, 2, 2: 3 successes. The weapon's base M (README), down one per two: L.
    # Table 4, row M, 3 successes: back 2 m.
    "target.hits[0].stun.resist.target_number": 2,
    "target.hits[0].stun.resist.successes": 3,
    "target.hits[0].stun.level": "L",
    "target.knock_back": "knocked_back",
    "target.knock_back_m": 2,
    # Table 5: the worse level taken is S: 3 successes needed; Willpower 4 against 2 + S (3)
    # + L stun (1) = 6: three 6s, passed.
    "target.recovery.test.target_number": 6,
    "target.recovery.needed": 3,
    "target.recovery.passed": True,
    # The injury modifier after it: S +3, L stun +1 (README's SR3 wounds).
    "target.condition.target_number_modifier": 4,
    # The goon's Combat Pool: 5 - 2.
    "combat_pool[actor=goon].left": 3,
    "rounds_fired": 1,
    "ammo_left": 29,
}


async def test_a_single_shot_at_a_prone_goon_who_dodges(store_client: Any) -> None:
    encounter = await new_encounter(store_client, ruleset=RULESET)
    result = await attack(store_client, encounter, the_shot())
    wrong = mismatches(result, SHOT)
    assert not wrong, wrong
    # 004, "Taking Damage", Table 6: the torso has no bonus and no shift: S (6 boxes) on the
    # torso and on the trauma monitor; the knock-back's L stun (1 box) on both too.
    wounds = {(w["monitor"], w["track"]): (w["level"], w["boxes"]) for w in _wounds(result)}
    assert wounds == {
        ("torso", "physical"): ("S", 6),
        ("trauma", "physical"): ("S", 6),
        ("torso", "stun"): ("L", 1),
        ("trauma", "stun"): ("L", 1),
    }
    # Table 7's degradation: S penetrating, 2 + 1 = 3 points off the jacket at the torso.
    armor = result["target"]["hits"][0]["armor"][0]
    assert (armor["degraded"], armor["rating_after"]) == (3, 3)


def _wounds(result: dict[str, Any]) -> list[dict[str, Any]]:
    wounds: list[dict[str, Any]] = result["target"]["hits"][0]["wounds"]
    return wounds


async def test_a_burst_after_a_shot_in_the_phase_counts_that_round_as_a_bullet_before(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset=RULESET)
    base = f"/v1/encounters/{encounter}"
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "carter"})
    assert phase.status == 201, await phase.text()
    shot = await attack(client, encounter, the_shot())
    wrong = mismatches(shot, SHOT)
    assert not wrong, wrong

    # docs, "The shot, the hits and the armour": the phase's earlier round is bullet 1. With
    # 2 compensated bullets, the burst's rounds are bullets 2, 3, 4: TN 3, 3 + 1, 3 + 2 (not
    # 3, 3, 4 as a burst alone). Six 2s reach none: every round a miss, nothing else rolled.
    burst = await attack(
        client,
        encounter,
        make.attack(
            weapon={**SMG, "ammo": 29},
            mode="BF",
            target=make.target(defender=GOON),
            dice={"attack": [2] * 6},
        ),
    )
    wrong = mismatches(
        burst,
        {
            "attack.target_number": 3,  # reported at the base number (docs)
            "target.rounds[0].target_number": 3,
            "target.rounds[1].target_number": 4,
            "target.rounds[2].target_number": 5,
            "target.attack_successes": 0,
            "target.outcome": "miss",
            "target.hits": [],
            "rounds_fired": 3,
            "ammo_left": 26,
        },
    )
    assert not wrong, wrong

    # The next phase: the goon would dodge with 4 Combat Pool dice, 3 are left this combat
    # turn (SR3 p. 103, as in sr3): a 409, and nothing changes.
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "carter"})
    assert phase.status == 201, await phase.text()
    before = await (await client.get(base)).json()
    refused = await client.post(
        f"{base}/attacks",
        json=make.attack(
            weapon={**SMG, "ammo": 26},
            target=make.target(defender=GOON, dodge={"combat_pool": 4}),
        ),
    )
    assert refused.status == 409, await refused.text()
    problem = await refused.json()
    assert (problem["type"], problem["path"]) == (
        PROBLEM_TYPE + "combat-pool-exhausted",
        "$.target.dodge.combat_pool",
    )
    assert await (await client.get(base)).json() == before


async def test_a_goon_knocked_back_stands_that_far_further_from_the_shooter(
    store_client: Any,
) -> None:
    """The shot's Table 4 "back 2 m" moves the goon on the scene, straight away from Carter:
    from (3, 4), 5 m away along (3/5, 4/5), to (3 + 1.2, 4 + 1.6) = (4.2, 5.6)."""
    encounter = await new_encounter(store_client, ruleset=RULESET, sheet_policy="typed")
    for actor, at in (("carter", {"x": 0, "y": 0}), ("goon", {"x": 3, "y": 4})):
        placed = await store_client.put(
            f"/v1/encounters/{encounter}/actors/{actor}", json={"position": at}
        )
        assert placed.status == 200, await placed.text()
    result = await attack(store_client, encounter, the_shot())
    assert (result["target"]["knock_back"], result["target"]["knock_back_m"]) == (
        "knocked_back",
        2,
    )
    scene = (await state(store_client, encounter))["scene"]
    assert scene["goon"]["position"] == {"x": 4.2, "y": 5.6}
    # The shooter stays where it stood.
    assert scene["carter"]["position"] == {"x": 0, "y": 0}
