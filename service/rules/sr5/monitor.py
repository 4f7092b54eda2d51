"""SR5 condition monitors: the physical and stun tracks, their overflow and the wound modifier
(000, "Character wounded", "Apply damage"; the track sizes and overflow from the SR5 core
rules, as rules-sources/README.md directs where the guide is silent)."""

from __future__ import annotations

from typing import Any

from schemas.encounter import ActionResult
from schemas.sr5 import SR5AttackResult, SR5Sheet, SR5ZoneTestResult
from service.rules.monitor import Dealt
from service.rules.tracks import DicePoolTracks, Edition, dealt_to

# SR5 core, "Condition Monitor" (p. 169): each track holds 8 + half the attribute, rounded up
# (Body for physical, Willpower for stun).
TRACK_BASE = 8
# SR5 core, "Wound Modifiers" (p. 169): -1 for every 3 boxes filled on each track; 000
# ("Character wounded"): the two tracks' modifiers add up; the same comes off the Initiative
# Score (p. 169).
BOXES_PER_WOUND = 3
# SR5 core, "Damage Overflow" (p. 170): every two full boxes of stun past a full stun track make one
# box of physical; overflowing the physical track is near death (dying), and death comes when the
# overflow passes Body. SR5-FoundryVTT counts the stun the same way, per hit (floor of half).
EDITION = Edition(stun_per_physical=2, dying_from="overflow")
# The wound modifier a sheet may hold (schemas/sr5.py, `wound_modifier`).
WORST_WOUND_MODIFIER = -30

SOURCE = (
    "000_43afc0edeb7f6e19.txt, Character wounded (wound modifiers of both tracks add up); SR5 "
    "core pp. 169-170, Condition Monitor and Damage Overflow (8 + ceil(Body/2) physical, "
    "8 + ceil(Willpower/2) stun, -1 per 3 boxes, 2 stun past the track = 1 physical, overflow "
    "up to Body)"
)


class SR5Monitor(DicePoolTracks):
    edition = EDITION
    source = SOURCE
    sheet_type = SR5Sheet
    track_base = TRACK_BASE
    boxes_per_wound = BOXES_PER_WOUND
    worst_wound_modifier = WORST_WOUND_MODIFIER

    def dealt(self, result: Any) -> list[Dealt]:
        if isinstance(result, SR5AttackResult):
            source = f"attack by {result.attacker} ({result.weapon})"
            return [d for t in result.targets for d in dealt_to(t.target, t.damage, source)]
        if isinstance(result, SR5ZoneTestResult):
            return dealt_to(result.actor, result.damage, f"suppressive fire ({result.zone})")
        if isinstance(result, ActionResult) and isinstance(result.attack, SR5AttackResult):
            # Second Chance: the re-resolved attack's damage (the engine takes back what the
            # attack it replaces dealt).
            attack = result.attack
            source = f"attack by {attack.attacker} ({attack.weapon}, {result.action})"
            return [d for t in attack.targets for d in dealt_to(t.target, t.damage, source)]
        return []
