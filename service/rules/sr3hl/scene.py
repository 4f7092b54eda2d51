"""A Hard Life attack, zone test or action as a client may ask it, filled from the scene: the
attacker and its weapon by name, the target's distance from the positions, its defender from
its sheet and its posture (cover, running, prone into the dodge), the Willpower of the rolls.
What the request gives wins (service/rules/sr3/scene.py is the pattern)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.common import Point
from schemas.scene import SceneActor
from schemas.sr3hl import (
    HLActionRequest,
    HLAttacker,
    HLAttackRequest,
    HLDefender,
    HLSheet,
    HLTarget,
    HLZoneState,
    HLZoneTestRequest,
)
from service.rules.ruleset import RuleViolation
from service.rules.scene import actor_of, distance_m, sheet_of, weapon_of
from service.rules.sr3 import scene as sr3_scene
from service.rules.sr3hl import able

# Table 9 knows partial (+2) and good (+8) cover; an actor in full cover on the scene takes
# good cover's modifier there (**choice**: the zone still fills the square metre it is in).
_ZONE_COVER = {"none": "none", "partial": "partial", "good": "good", "full": "good"}


def _attacker(scene: Mapping[str, SceneActor], name: str, weapon: str) -> HLAttacker:
    actor = actor_of(scene, name, "$.attacker")
    sheet = actor.sheet
    needs = () if isinstance(sheet, HLSheet) and weapon in sheet.weapon_skills else ("skill",)
    sheet = sheet_of(name, actor, HLSheet, needs, "$.attacker")
    return HLAttacker(
        id=name,
        skill=sheet.weapon_skills.get(weapon, sheet.skill or 0),
        quickness=sheet.quickness,
        intelligence=sheet.intelligence,
        willpower=sheet.willpower,
        strength=sheet.strength,
        combat_pool=sheet.combat_pool,
        armor=sheet.armor,
    )


def defender_of(actor_id: str, actor: SceneActor, path: str) -> HLDefender:
    """The actor's sheet as a defender (it must hold Body)."""
    sheet = sheet_of(actor_id, actor, HLSheet, ("body",), path)
    assert sheet.body is not None
    return HLDefender(
        body=sheet.body,
        willpower=sheet.willpower,
        quickness=sheet.quickness,
        intelligence=sheet.intelligence,
        combat_pool=sheet.combat_pool,
        dodge_skill=sheet.dodge_skill,
        armor=sheet.armor,
        dermal_armor=sheet.dermal_armor,
        bone_lacing=sheet.bone_lacing,
    )


def _target(scene: Mapping[str, SceneActor], attacker: str, asked: Any) -> HLTarget:
    path = "$.target"
    given = msgspec.structs.asdict(asked)
    if asked.distance_m is None:
        given["distance_m"] = distance_m(scene, attacker, asked.id, f"{path}.distance_m")
    if asked.defender is None:
        actor = actor_of(scene, asked.id, f"{path}.defender")
        given["defender"] = defender_of(asked.id, actor, f"{path}.defender")
    posture = sr3_scene.posture_filled(scene, asked.id, given)
    if posture is not None and posture.prone and not asked.dodge.prone:
        # 004, Table 8: a prone target dodges at +2.
        given["dodge"] = msgspec.structs.replace(asked.dodge, prone=True)
    return HLTarget(**given)


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> HLAttackRequest:
    """The attack the rules resolve: what the request gives wins; the scene fills the rest.
    Suppression fire has no target to fill."""
    given = msgspec.structs.asdict(asked)
    weapon_id = asked.weapon if isinstance(asked.weapon, str) else asked.weapon.id
    if isinstance(asked.attacker, str):
        given["attacker"] = _attacker(scene, asked.attacker, weapon_id)
    shooter = given["attacker"].id
    if isinstance(asked.weapon, str):
        given["weapon"] = weapon_of(scene, shooter, asked.weapon, "$.weapon")
    if asked.target is not None:
        given["target"] = _target(scene, shooter, asked.target)
    return HLAttackRequest(**given)


def _position(scene: Mapping[str, SceneActor], actor_id: str) -> Point | None:
    actor = scene.get(actor_id)
    return actor.position if actor is not None else None


def fill_zone_test(
    asked: Any, scene: Mapping[str, SceneActor], zone: HLZoneState | None = None
) -> HLZoneTestRequest:
    """The zone test: the tester's defender from its sheet, its cover from its posture, and
    the distance (Table 9's range) from where the zone's shooter stood when it fired (else
    where it stands now) to where the tester stands."""
    given = msgspec.structs.asdict(asked)
    if asked.defender is None:
        actor = actor_of(scene, asked.actor, "$.defender")
        given["defender"] = defender_of(asked.actor, actor, "$.defender")
    if asked.distance_m is None:
        origin = None
        if zone is not None:
            origin = zone.origin or _position(scene, zone.zone.shooter)
        here = _position(scene, asked.actor)
        if origin is None or here is None:
            raise RuleViolation(
                f"give distance_m, or put {asked.actor} on the scene with a position (and the "
                "zone's shooter, when the zone does not keep where it fired from)",
                path="$.distance_m",
                kind="position-unknown",
            )
        given["distance_m"] = math.hypot(here.x - origin.x, here.y - origin.y)
    if asked.cover is None:
        named = scene.get(asked.actor)
        given["cover"] = _ZONE_COVER[named.posture.cover] if named is not None else "none"
    return HLZoneTestRequest(**given)


def fill_action(asked: HLActionRequest, scene: Mapping[str, SceneActor]) -> HLActionRequest:
    """The recovery roll and the consciousness test roll Willpower: the request's, else the
    actor's sheet's (an action that rolls nothing takes nothing from the scene)."""
    if asked.action not in able.ROLLS or asked.willpower is not None:
        return asked
    actor = scene.get(asked.actor)
    sheet = actor.sheet if actor is not None else None
    if isinstance(sheet, HLSheet) and sheet.willpower is not None:
        return msgspec.structs.replace(asked, willpower=sheet.willpower)
    return asked


def ammo_left(request: Any, result: Any) -> dict[str, int]:
    """The rounds the gun the attack fired holds after it (an action loads none)."""
    if not isinstance(request, HLAttackRequest):
        return {}
    return {request.weapon.id: result.ammo_left}
