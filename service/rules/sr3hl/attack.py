"""Hard Life attacks: an aimed shot, a burst or full auto at one target, or suppression fire
over an area (004). TO BE WRITTEN (helper A; suppression's zone by helper C)."""

from __future__ import annotations

from schemas.encounter import TurnState
from schemas.sr3hl import HLAttackRequest, HLAttackResult, HLState
from service.rules.dice import Dice
from service.rules.ruleset import Resolution


def dice_steps(request: HLAttackRequest) -> dict[str, int]:
    raise NotImplementedError


def resolve_attack(
    request: HLAttackRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLAttackResult]:
    raise NotImplementedError
