"""SR4 condition monitors: the physical and stun tracks, their overflow and the wound modifier
(001, "Apply Damage": a point of DV is a box, wound modifiers apply; the track sizes, the
overflow and the modifiers from the SR4 core rules, as rules-sources/README.md directs)."""

from __future__ import annotations

from typing import Any

from schemas.encounter import ActionResult, AdvanceResult
from schemas.initiative import InitiativeResult
from schemas.sr4 import (
    SR4AttackResult,
    SR4BlastResult,
    SR4Sheet,
    SR4ZoneTestResult,
)
from service.rules.monitor import Dealt
from service.rules.tracks import DicePoolTracks, Edition, dealt_to

# SR4 core, "Condition Monitor" (p. 153; SR4A p. 163): each track holds 8 + half the
# attribute, rounded up (Body for physical, Willpower for stun).
TRACK_BASE = 8
# SR4 core, "Wound Modifiers": -1 for every 3 boxes on each track, the two tracks added up; they
# apply to Initiative too.
BOXES_PER_WOUND = 3
# SR4 core, "Damage Overflow": stun past a full stun track carries over into the physical track
# box for box; a full physical track is near death (unconscious and dying unless stabilised,
# "Unconsciousness"), and death comes when the overflow passes Body.
EDITION = Edition(stun_per_physical=1, dying_from="full")
# The wound modifier a sheet may hold (schemas/sr4.py, `WoundModifier`).
WORST_WOUND_MODIFIER = -30

SOURCE = (
    "001_2cfc288dfef1df08.txt, Apply Damage (1 box per point of DV, wound modifiers); SR4 core "
    "p. 153, Condition Monitor, Wound Modifiers, Damage Overflow and Unconsciousness "
    "(8 + ceil(Body/2) physical, 8 + ceil(Willpower/2) stun, -1 per 3 boxes of each, stun "
    "past the track = physical box for box, overflow up to Body)"
)


def _blast(blast: SR4BlastResult) -> list[Dealt]:
    source = f"grenade {blast.grenade} by {blast.thrower}"
    return [d for hit in blast.hits for d in dealt_to(hit.actor, hit, source)]


def _attack(attack: SR4AttackResult, how: str = "") -> list[Dealt]:
    source = f"attack by {attack.attacker} ({attack.weapon}{how})"
    dealt = [d for t in attack.targets for d in dealt_to(t.target, t.damage, source)]
    return dealt + (_blast(attack.blast) if attack.blast is not None else [])


class SR4Monitor(DicePoolTracks):
    edition = EDITION
    source = SOURCE
    sheet_type = SR4Sheet
    track_base = TRACK_BASE
    boxes_per_wound = BOXES_PER_WOUND
    worst_wound_modifier = WORST_WOUND_MODIFIER

    def dealt(self, result: Any) -> list[Dealt]:
        """An attack's targets and its airburst blast; a zone test's hit; a held grenade going
        off (a blast on its own, or in the result of the change that set it off); an Edge
        re-roll's re-resolved attack."""
        if isinstance(result, SR4AttackResult):
            return _attack(result)
        if isinstance(result, SR4ZoneTestResult):
            return dealt_to(result.actor, result.damage, f"suppressive fire ({result.zone})")
        if isinstance(result, SR4BlastResult):
            return _blast(result)
        dealt: list[Dealt] = []
        if isinstance(result, ActionResult) and isinstance(result.attack, SR4AttackResult):
            dealt += _attack(result.attack, f", {result.action}")
        if isinstance(result, (ActionResult, AdvanceResult, InitiativeResult)):
            dealt += [d for blast in result.went_off for d in _blast(blast)]
        return dealt
