"""SR3 over HTTP, numbers worked by hand: a single shot, a semi-automatic shot and a burst in one
action phase (the burst takes the earlier round's recoil, the ganger's Combat Pool runs down
from one dodge to the next), cover, staging down, and the refusal of a dodge the pool no longer
holds, which changes nothing. Every expected number is written here with its working; the parity
tests of test_sr3_http.py only check the plumbing.

"002" is rules-sources/002_65e09aecd368bc68.txt; "README" is rules-sources/README.md, "Shadowrun
3"; "docs" is docs/rulesets/sr3.md (its SR3 choices: the crib sheet's dodge and staging, the
recoil count). A success is a die at or above the target number (README).
"""

from __future__ import annotations

from typing import Any

from tests import sr3_requests as make
from tests.by_hand import attack, state
from tests.parity import mismatches
from tests.test_api import new_encounter

PROBLEM_TYPE = "https://firefight.invalid/problems/"
# An SMG of 6M, semi-automatic and burst, recoil compensation 2, 30 rounds (short to 10 m, 002).
SMG = make.weapon(
    id="uzi", category="smg", power=6, damage_level="M", modes=["SA", "BF"], ammo=30,
    recoil_compensation=2,
)  # fmt: skip


async def test_a_single_shot_at_medium_range(store_client: Any) -> None:
    encounter = await new_encounter(store_client, ruleset="sr3")
    result = await attack(
        store_client,
        encounter,
        make.attack(
            pool=2,
            target=make.target(distance_m=12, dodge=1),
            dice={
                "attack": [6, 5, 2, 3, 1, 4],
                "dodge:goon-1": [2],
                "resist:goon-1": [4, 2, 1, 3],
            },
        ),
    )
    wrong = mismatches(
        result,
        {
            # 002: a heavy pistol at 12 m is medium range (6-20 m), standard vision TN 5;
            # skill 4 + 2 Combat Pool dice; 6 and 5 succeed.
            "target.range": "medium",
            "attack.target_number": 5,
            "attack.dice": 6,
            "attack.successes": 2,
            # The crib sheet's dodge (docs): 1 pool die at TN 4, a 2: none taken away.
            "target.dodge.target_number": 4,
            "target.dodge_successes": 0,
            "target.net_successes": 2,
            # Body 4 against Power 9 - ballistic 5 = 4: the 4 succeeds. 2 - 1 = 1 net: no
            # stage (docs, "Staging": every 2), the weapon's M stands, 3 boxes (SR3 p. 125).
            "target.damage.resist.target_number": 4,
            "target.damage.resist.dice": 4,
            "target.damage.resist.successes": 1,
            "target.damage.net_successes": 1,
            "target.damage.stages": 0,
            "target.damage.level": "M",
            "target.damage.boxes": 3,
            # Combat Pools: Sam (5 + 4 + 3) / 2 = 6, 2 spent; the ganger (4 + 3 + 3) / 2 = 5,
            # 1 spent.
            "combat_pool[actor=sam].left": 4,
            "combat_pool[actor=goon-1].left": 4,
            "ammo_left": 14,
        },
    )
    assert not wrong, wrong


async def test_a_burst_after_a_shot_in_the_same_phase_takes_its_recoil(
    memory_client: Any,
) -> None:
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3")
    base = f"/v1/encounters/{encounter}"
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert phase.status == 201, await phase.text()

    # 1. A semi-automatic shot with a smartlink at the ganger in partial cover, 4 m away.
    shot = await attack(
        client,
        encounter,
        make.attack(
            weapon=SMG,
            sight="smartlink",
            target=make.target(cover="partial", dodge=2),
            dice={"attack": [6, 6, 2, 1], "dodge:goon-1": [5, 2], "resist:goon-1": [2, 2, 3, 1]},
        ),
    )
    wrong = mismatches(
        shot,
        {
            # 002: smartlink at short range TN 2; cover +4 (docs' SR3 table); the phase's first
            # round: no recoil. TN 6: the two sixes of skill 4's dice succeed.
            "recoil.rounds_before": 0,
            "recoil.modifier": 0,
            "attack.target_number": 6,
            "attack.successes": 2,
            # Dodge 2 dice at 4: the 5; 2 - 1 = 1 left.
            "target.dodge_successes": 1,
            "target.net_successes": 1,
            # Power 6 - 5 = 1, raised to the minimum TN 2 (README); Body 4: 2, 2, 3 succeed.
            # 1 - 3 = -2: one stage down (docs, "Staging"), M to L, 1 box.
            "target.damage.resist.target_number": 2,
            "target.damage.resist.successes": 3,
            "target.damage.net_successes": -2,
            "target.damage.stages": -1,
            "target.damage.level": "L",
            "target.damage.boxes": 1,
            "combat_pool[actor=goon-1].left": 3,  # 5 - 2
        },
    )
    assert not wrong, wrong

    # 2. A burst in the same phase at the ganger (no cover now), Sam's 2 pool dice added.
    burst = await attack(
        client,
        encounter,
        make.attack(
            weapon={**SMG, "ammo": 29},
            mode="BF",
            pool=2,
            sight="smartlink",
            target=make.target(dodge=2),
            dice={
                "attack": [6, 6, 5, 2, 1, 3],
                "dodge:goon-1": [5, 2],
                "resist:goon-1": [4, 1, 2, 3],
            },
        ),
    )
    wrong = mismatches(
        burst,
        {
            # docs, "Recoil": the round fired earlier in the phase +1 and the burst's own 3
            # rounds: 4, less compensation 2 = +2. TN 2 + 2 = 4; 6 dice: 6, 6, 5 succeed.
            "recoil.rounds_before": 1,
            "recoil.rounds_fired": 3,
            "recoil.modifier": 2,
            "attack.target_number": 4,
            "attack.dice": 6,
            "attack.successes": 3,
            # The dodge against a burst: 4 + 1 per three rounds = 5; the 5 succeeds: 3 - 1 = 2.
            "target.dodge.target_number": 5,
            "target.net_successes": 2,
            # The burst (docs, "Firing modes"): Power 6 + 3 = 9, M one level up = S. Resist
            # TN 9 - 5 = 4: the 4 succeeds; 2 - 1 = 1: no stage; S is 6 boxes.
            "target.damage.power": 9,
            "target.damage.resist.target_number": 4,
            "target.damage.resist.successes": 1,
            "target.damage.stages": 0,
            "target.damage.level": "S",
            "target.damage.boxes": 6,
            "combat_pool[actor=sam].left": 4,  # 6 - 2
            "combat_pool[actor=goon-1].left": 1,  # 5 - 2 - 2
            "ammo_left": 26,  # 29 - 3
        },
    )
    assert not wrong, wrong

    # 3. Sam's next phase: the ganger would dodge with 2 dice, but 1 is left this combat turn
    # (SR3 p. 103: the pool refreshes only with the turn): a 409 that changes nothing.
    phase = await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})
    assert phase.status == 201, await phase.text()
    before = await state(client, encounter)
    refused = await client.post(
        f"{base}/attacks",
        json=make.attack(weapon={**SMG, "ammo": 26}, target=make.target(dodge=2)),
    )
    assert refused.status == 409, await refused.text()
    problem = await refused.json()
    assert (problem["type"], problem["path"]) == (
        PROBLEM_TYPE + "combat-pool-exhausted",
        "$.target.dodge",
    )
    assert await state(client, encounter) == before


async def test_the_docs_worked_recoil_two_bursts_and_a_machine_guns(memory_client: Any) -> None:
    """docs/rulesets/sr3.md, "Recoil", "Worked": BF, BF: +3 then +6; a light machine gun's
    burst with compensation 1: (3 - 1) x 2 = +4. Every die misses: only the target numbers."""
    client = memory_client
    encounter = await new_encounter(client, ruleset="sr3")
    rifle = make.weapon(id="ak", category="assault_rifle", modes=["BF"], ammo=30)
    tns = []
    for ammo in (30, 27):
        result = await attack(
            client,
            encounter,
            make.attack(weapon={**rifle, "ammo": ammo}, mode="BF", dice={"attack": [2] * 4}),
        )
        tns.append((result["recoil"]["modifier"], result["attack"]["target_number"]))
    # 002: an assault rifle at 4 m is short range, TN 4: 4 + 3 = 7, then 4 + 6 = 10.
    assert tns == [(3, 7), (6, 10)]
    other = await new_encounter(client, ruleset="sr3")
    lmg = make.weapon(
        id="lmg", category="light_machine_gun", modes=["BF"], ammo=50, recoil_compensation=1
    )
    result = await attack(
        client, other, make.attack(weapon=lmg, mode="BF", dice={"attack": [2] * 4})
    )
    # The machine gun is heavy: twice what compensation leaves; TN 4 + 4 = 8.
    assert (result["recoil"]["modifier"], result["attack"]["target_number"]) == (4, 8)
