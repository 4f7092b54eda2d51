"""What the rounds that reached one target do to it (004: armour resistance per location in
groups of three, the damage test per penetrating round, the stun and knock-back, the monitors,
armour degradation, the recovery roll). Shared by attacks (attack.py) and suppression fire's
zone tests (suppression.py). TO BE WRITTEN (helper A)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from schemas.sr3hl import (
    HLActorState,
    HLDefender,
    HLLocationHit,
    HLRecovery,
    HLRound,
    HLWeapon,
)
from service.rules.dice import Dice
from service.rules.sr3hl.tables import KnockBack


@dataclass(frozen=True, slots=True)
class Struck:
    """Everything the rounds did to one target: each location's armour tests, damage tests,
    stun and wounds; the target's state after (monitors, armour worn down, condition, a
    recovery roll failed); the recovery roll; the worst knock-back."""

    hits: list[HLLocationHit]
    actor: HLActorState
    recovery: HLRecovery | None
    knock_back: KnockBack
    knock_back_m: int
    # The target failed its recovery roll: it loses its next action phase.
    loses_action: bool


def struck(
    target_id: str,
    defender: HLDefender,
    weapon: HLWeapon,
    rounds: Sequence[HLRound],
    victim: HLActorState,
    dice: Dice,
    resist: int = 0,
) -> Struck:
    """The rounds of `rounds` whose outcome is "hit" (each with its location and successes
    after the dodge) resolved against `target_id` wearing `victim`'s armour (or `defender`'s,
    the first time); steps armor:, lacing:, damage:, stun:, recovery:<target_id>."""
    raise NotImplementedError
