"""Hard Life actions, the turn's moments, and the initiative (004 on SR3's engine). TO BE
WRITTEN (helper B)."""

from __future__ import annotations

from typing import Any

from schemas.encounter import ActionResult, AdvanceRequest, CombatState, TurnState
from schemas.sr3hl import HLActionRequest, HLState
from service.rules.dice import Dice
from service.rules.ruleset import ActionCost, Resolution
from service.rules.sr3 import tables as sr3_tables

ACTIONS: tuple[str, ...] = ("other", "take_aim", "recovery_roll", "consciousness_test")
INITIATIVE = sr3_tables.INITIATIVE


def dice_steps(request: HLActionRequest) -> dict[str, int]:
    raise NotImplementedError


def resolve_action(
    request: HLActionRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[ActionResult]:
    raise NotImplementedError


def on_advance(
    request: AdvanceRequest, state: HLState, turn: TurnState
) -> tuple[CombatState, list[str]]:
    raise NotImplementedError


def action_cost(request: Any, result: Any) -> ActionCost:
    raise NotImplementedError
