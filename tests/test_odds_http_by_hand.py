"""Odds previews over HTTP against chances worked by hand (fractions written here), where the
other odds HTTP tests compare the answer with the rules core's odds of the same body (plumbing
only: a rule bug is on both sides). Each case is small enough to count on paper.

Sources: rules-sources/000 (sr5), 001 (sr4), 002 (sr3), 003 (d100) and README.md (glitches,
the Rule of One, the d100 core test); docs/odds.md for what each chance means.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import d100_requests as d100
from tests import sr3_requests as sr3
from tests import sr4_requests as sr4
from tests import sr5_requests as sr5
from tests.test_api import new_encounter


async def odds(client: Any, ruleset: str, body: dict[str, Any]) -> dict[str, Any]:
    encounter = await new_encounter(client, ruleset=ruleset)
    response = await client.post(f"/v1/encounters/{encounter}/attacks/odds", json=body)
    assert response.status == 200, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


def chances(target: dict[str, Any]) -> tuple[float, ...]:
    return tuple(target[k] for k in ("hit", "graze", "miss", "glitch", "critical_glitch"))


async def test_sr5_full_auto_that_leaves_no_defense(memory_client: Any) -> None:
    body = sr5.attack(
        weapon=sr5.weapon(category="assault_rifle", modes=["FA"], ammo=30, rc=2),
        mode="FA_complex",
        targets=[sr5.target(distance_m=20)],
    )
    answer = await odds(memory_client, "sr5", body)
    # 000, "Recoil": 10 rounds against 1 + ceil(4 / 3) + RC 2 = 5: -5; 5 + 5 - 5 = 5 dice.
    # "Full Auto (Complex)": -9 to the defense: 3 + 3 - 9, no dice. A hit is any hit:
    # 1 - (4/6)^5 = 1 - 32/243. README's glitch, more than half ones: 3, 4 or 5 ones of 5:
    # (10 * 5^2 + 5 * 5 + 1) / 6^5; with no hit either (the others 2-4):
    # (10 * 3^2 + 5 * 3 + 1) / 6^5.
    expected = (211 / 243, 0.0, 32 / 243, 276 / 7776, 106 / 7776)
    assert chances(answer["targets"][0]) == pytest.approx(expected, abs=1e-9)
    assert answer["any_hit"] == pytest.approx(211 / 243, abs=1e-9)


async def test_sr4_two_dice_against_one(memory_client: Any) -> None:
    body = sr4.attack(
        attacker=sr4.attacker(wound_modifier=-6),
        targets=[sr4.target(defender=sr4.defender(reaction=1))],
    )
    answer = await odds(memory_client, "sr4", body)
    # 001: Agility 4 + Pistols 4 - 6 for wounds = 2 dice at 4 m (short, 0); Reaction 1.
    # Attack hits 0, 1, 2 with 4/9, 4/9, 1/9; the defense's one die hits 1/3. The defender
    # wins ties (no grazing asked): a hit is 1 against 0, or 2 against 0 or 1:
    # 4/9 * 2/3 + 1/9 = 11/27. README's SR4 glitch, half or more ones: a 1 among 2 dice,
    # 1 - (5/6)^2 = 11/36; with no hit (both 1-4, one a 1): (4^2 - 3^2) / 36 = 7/36.
    expected = (11 / 27, 0.0, 16 / 27, 11 / 36, 7 / 36)
    assert chances(answer["targets"][0]) == pytest.approx(expected, abs=1e-9)


async def test_sr3_four_dice_at_target_number_four(memory_client: Any) -> None:
    answer = await odds(memory_client, "sr3", sr3.attack())
    # 002: a heavy pistol at 4 m, short range, standard vision: TN 4; skill 4, no pool, no
    # dodge. A success on 4-6 (1/2 a die): touched unless every die misses, 1 - 1/16. README's
    # Rule of One, all four dice 1, is both the glitch and the critical glitch: 1/6^4.
    expected = (15 / 16, 0.0, 1 / 16, 1 / 1296, 1 / 1296)
    assert chances(answer["targets"][0]) == pytest.approx(expected, abs=1e-9)


async def test_d100_fifty_against_an_active_defense_of_thirty(memory_client: Any) -> None:
    answer = await odds(memory_client, "d100", d100.attack())
    # README's core test: at Success Target 50 the attack has 0 hits 1/2 and 1-5 hits 1/10
    # each; the Active Defense at 30 has 0 hits 7/10 and 1-3 hits 1/10 each. Ties go to the
    # defender: a hit is a hits against fewer, sum over a = 1..5 of 1/10 * P(defense < a) =
    # (0.7 + 0.8 + 0.9 + 1 + 1) / 10 = 0.44. No glitch in d100 (docs/odds.md).
    expected = (0.44, 0.0, 0.56, 0.0, 0.0)
    assert chances(answer["targets"][0]) == pytest.approx(expected, abs=1e-9)
