"""The odds the README quotes for its quickstart shot are the ones the service computes."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from schemas.encounter import TurnState
from service.rules import RULESETS
from tests.sr5_requests import README_PREDATOR

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_quotes_the_odds_of_its_shot() -> None:
    text = README.read_text()
    quoted = re.search(
        r"hits\s+([\d.]+) % of the time, grazes ([\d.]+) % and misses ([\d.]+) %, for "
        r"([\d.]+) boxes",
        text,
    )
    assert quoted, "the README no longer quotes the odds of its shot"
    ruleset = RULESETS["sr5"]
    body = {
        "ruleset": "sr5",
        "attacker": {"id": "sam", "agility": 6, "strength": 4, "skill": 6},
        "weapon": README_PREDATOR,
        "mode": "SA",
        "smartlink": "wireless_implant",
        "targets": [
            {
                "id": "goon-1",
                "distance_m": 12,
                "defender": {"reaction": 3, "intuition": 3, "body": 4, "armor": 9},
            }
        ],
    }
    request = msgspec.convert(body, ruleset.attack_type)
    target = ruleset.attack_odds(request, ruleset.new_state(), TurnState(), 1, 100).targets[0]
    hit, graze, miss, boxes = (float(g) for g in quoted.groups())
    assert (round(target.hit * 100, 1), round(target.graze * 100, 1)) == (hit, graze)
    assert round(target.miss * 100, 1) == miss
    assert round(target.damage_mean, 2) == boxes
