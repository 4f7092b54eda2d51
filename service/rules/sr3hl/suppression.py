"""Hard Life suppression fire by square metre (004, "Suppression Fire", Tables 9 and 10). TO BE
WRITTEN (helper C)."""

from __future__ import annotations

import msgspec

from schemas.common import Zone
from schemas.encounter import TurnState
from schemas.sr3hl import (
    HLAttackRequest,
    HLAttackResult,
    HLState,
    HLZoneTestRequest,
    HLZoneTestResult,
)
from service.rules.dice import Dice
from service.rules.ruleset import Resolution


def fire(
    request: HLAttackRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLAttackResult]:
    """Suppression fire (request.suppression set, no target): the zone it makes. attack.py
    (helper A) calls this for every request with `suppression`."""
    raise NotImplementedError


def end_zones_of(state: HLState, shooter: str) -> HLState:
    """004: suppression fire lasts until the start of the shooter's next combat phase (called
    by actions.on_advance, helper B)."""
    kept = {zid: z for zid, z in state.zones.items() if z.zone.shooter != shooter}
    if len(kept) == len(state.zones):
        return state
    return msgspec.structs.replace(state, zones=kept)


def zones(state: HLState) -> list[Zone]:
    return [z.zone for z in state.zones.values()]


def dice_steps(request: HLZoneTestRequest) -> dict[str, int]:
    raise NotImplementedError


def resolve_zone_test(
    zone_id: str, request: HLZoneTestRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLZoneTestResult]:
    raise NotImplementedError
