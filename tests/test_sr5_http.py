"""Every SR5 rule through the HTTP API: the same case, sent as a VTT sends it (actions first,
then the attack with a seed), answers exactly what the rules core resolves for it."""

from __future__ import annotations

from typing import Any

import pytest

from tests import sr5_requests as make
from tests.parity import answers_as_resolved

RIFLE = make.weapon(category="assault_rifle", modes=["SA", "BF", "FA"], ammo=60, rc=2)
SHOTGUN = make.weapon(category="shotgun_flechette", modes=["SA", "FA"], ammo=40)

# (rule, actions taken first, the attack)
CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
    ("single shot", [], make.attack(mode="SS", weapon=make.weapon(modes=["SS"]))),
    (
        "burst at three targets",
        [],
        make.attack(
            mode="BF",
            weapon=RIFLE,
            attacker=make.attacker(skill=6),
            targets=[make.target(id=f"t{n}", distance_m=20) for n in range(3)],
            larger_shares=["t2", "t1"],
        ),
    ),
    ("full auto complex, recoil", [], make.attack(mode="FA_complex", weapon=RIFLE)),
    (
        "situations",
        [],
        make.attack(
            running=True,
            in_melee=True,
            off_hand=True,
            targets=[make.target(prone=True, called_shot=True)],
        ),
    ),
    (
        "environment and vision",
        [],
        make.attack(
            environment={"light": "dim", "wind": "strong", "visibility": "moderate"},
            vision=["low_light", "tracer_rounds"],
            smartlink="wireless_implant",
        ),
    ),
    (
        "aim",
        [{"action": "take_aim", "aim_for": "dice"}, {"action": "take_aim", "aim_for": "accuracy"}],
        make.attack(),
    ),
    (
        "image magnification",
        [{"action": "take_aim", "image_magnification": True}],
        make.attack(targets=[make.target(distance_m=35)]),
    ),
    (
        "full defense quality",
        [{"actor": "goon-1", "action": "full_defense", "full_defense": "agile_defender"}],
        make.attack(targets=[make.target(defender=make.defender(agility=5))]),
    ),
    ("ammunition", [], make.attack(ammo="ex_explosive")),
    ("push the limit", [], make.attack(attacker=make.attacker(edge=4), edge="push_the_limit")),
    (
        "two guns",
        [],
        make.attack(
            second_weapon=make.weapon(id="left", accuracy=3),
            second_ammo="apds",
            targets=[make.target(id="a"), make.target(id="b", gun="second")],
        ),
    ),
    (
        "flechette spread and contact",
        [],
        make.attack(
            weapon={**SHOTGUN, "contact_effect": "tracking tag"},
            choke="wide",
            targets=[make.target(id="a"), make.target(id="b", distance_m=6)],
        ),
    ),
    ("area effect", [], make.attack(area_effect=True)),
    (
        "suppressive fire",
        [],
        make.attack(
            mode="suppressive",
            weapon=RIFLE,
            targets=[],
            zone={"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 40},
            bystanders=[{"id": "x", "position": {"x": 0, "y": 20}}],
        ),
    ),
]


@pytest.mark.parametrize(("rule", "actions", "body"), CASES, ids=[c[0] for c in CASES])
async def test_each_rule_answers_over_http_as_the_rules_core_resolves_it(
    client: Any, rule: str, actions: list[dict[str, Any]], body: dict[str, Any]
) -> None:
    await answers_as_resolved(client, "sr5", "sam", actions, body)
