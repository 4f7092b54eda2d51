"""The Hard Life dodge (004, "Resolve Dodge Test", "Dodging", Table 8): Combat Pool and Dodge
Pool dice against 4 with Table 8's modifiers and +1 per 3 rounds of autofire; both pools are
spent from the dodger's state. Shared by attacks and suppression zone tests. TO BE WRITTEN
(helper A)."""

from __future__ import annotations

from schemas.sr3 import SR3Test
from schemas.sr3hl import HLActorState, HLDefender, HLDodge
from service.rules.dice import Dice


def dodge(
    target_id: str,
    defender: HLDefender,
    dodger: HLActorState,
    asked: HLDodge,
    rounds: int,
    area_effect: bool,
    dice: Dice,
    path: str,
) -> tuple[SR3Test | None, HLActorState]:
    """The dodge test (None when no dice are committed) on step dodge:<target_id>, and the
    dodger's state with the dice spent (409 naming `path`.combat_pool / .dodge_pool when more
    are asked than are left)."""
    raise NotImplementedError
