"""Hard Life suppression fire by square metre (004, "Suppression Fire", Tables 9 and 10). TO BE
WRITTEN (helper C)."""

from __future__ import annotations

from schemas.common import Zone
from schemas.encounter import TurnState
from schemas.sr3hl import HLState, HLZoneTestRequest, HLZoneTestResult
from service.rules.dice import Dice
from service.rules.ruleset import Resolution


def zones(state: HLState) -> list[Zone]:
    return [z.zone for z in state.zones.values()]


def dice_steps(request: HLZoneTestRequest) -> dict[str, int]:
    raise NotImplementedError


def resolve_zone_test(
    zone_id: str, request: HLZoneTestRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLZoneTestResult]:
    raise NotImplementedError
