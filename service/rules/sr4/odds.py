"""The odds of sr4's attacks and zone tests (service/rules/odds.py, docs/odds.md)."""

from __future__ import annotations

from typing import Any

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, ZoneTestOdds


def attack_odds(request: Any, state: Any, turn: TurnState, seed: int, samples: int) -> AttackOdds:
    raise NotImplementedError("issue 16: sr4 attack odds")


def zone_test_odds(
    zone_id: str, request: Any, state: Any, turn: TurnState, seed: int, samples: int
) -> ZoneTestOdds:
    raise NotImplementedError("issue 16: sr4 zone test odds")
