"""An SR3 attack as a client may ask it, filled from the scene: the attacker and its weapon by
name, the target's distance from the positions, its defender from its sheet and its posture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.scene import Posture, SceneActor
from schemas.sr3 import SR3Attacker, SR3AttackRequest, SR3Defender, SR3Sheet, SR3Target
from service.rules.ruleset import RuleViolation
from service.rules.scene import actor_of, distance_m, sheet_of, weapon_of


def _attacker(scene: Mapping[str, SceneActor], name: str, weapon: str) -> SR3Attacker:
    actor = actor_of(scene, name, "$.attacker")
    sheet = actor.sheet
    needs = () if isinstance(sheet, SR3Sheet) and weapon in sheet.weapon_skills else ("skill",)
    sheet = sheet_of(name, actor, SR3Sheet, needs, "$.attacker")
    return SR3Attacker(
        id=name,
        skill=sheet.weapon_skills.get(weapon, sheet.skill or 0),
        quickness=sheet.quickness,
        intelligence=sheet.intelligence,
        willpower=sheet.willpower,
        strength=sheet.strength,
        combat_pool=sheet.combat_pool,
        armor=sheet.armor,
        wounds=sheet.wounds,
        wound_modifier=sheet.wound_modifier,
    )


def _defender(actor_id: str, actor: SceneActor, path: str) -> SR3Defender:
    sheet = sheet_of(actor_id, actor, SR3Sheet, ("body",), path)
    assert sheet.body is not None
    return SR3Defender(
        body=sheet.body,
        quickness=sheet.quickness,
        intelligence=sheet.intelligence,
        willpower=sheet.willpower,
        combat_pool=sheet.combat_pool,
        armor=sheet.armor,
        wounds=sheet.wounds,
        wound_modifier=sheet.wound_modifier,
    )


def _target(scene: Mapping[str, SceneActor], attacker: str, asked: Any) -> SR3Target:
    path = "$.target"
    given = msgspec.structs.asdict(asked)
    if asked.distance_m is None:
        given["distance_m"] = distance_m(scene, attacker, asked.id, f"{path}.distance_m")
    if asked.defender is None:
        actor = actor_of(scene, asked.id, f"{path}.defender")
        given["defender"] = _defender(asked.id, actor, f"{path}.defender")
    posture_filled(scene, asked.id, given)
    return SR3Target(**given)


def posture_filled(
    scene: Mapping[str, SceneActor], target_id: str, given: dict[str, Any]
) -> Posture | None:
    """The target's cover and movement from its posture on the scene, where the request leaves
    them out (`given` is the target's fields, filled in place); the posture, if any."""
    named = scene.get(target_id)
    posture = named.posture if named is not None else None
    if given["cover"] is None:
        given["cover"] = posture.cover if posture is not None else "none"
    if given["movement"] is None:
        # The scene knows running, not walking from standing: a target not running walks.
        running = posture is not None and posture.running
        given["movement"] = "running" if running else "walking"
    return posture


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> SR3AttackRequest:
    """The attack the rules resolve: what the request gives wins; the scene fills the rest."""
    given = msgspec.structs.asdict(asked)
    weapon_id = asked.weapon if isinstance(asked.weapon, str) else asked.weapon.id
    if isinstance(asked.attacker, str):
        given["attacker"] = _attacker(scene, asked.attacker, weapon_id)
    shooter = given["attacker"].id
    if isinstance(asked.weapon, str):
        given["weapon"] = weapon_of(scene, shooter, asked.weapon, "$.weapon")
    given["target"] = _target(scene, shooter, asked.target)
    return SR3AttackRequest(**given)


def ammo_left(request: Any, result: Any) -> dict[str, int]:
    """The rounds the gun the attack fired holds after it (an SR3 action loads none)."""
    if not isinstance(request, SR3AttackRequest):
        return {}
    return {request.weapon.id: result.ammo_left}


def no_zones(path: str = "$") -> RuleViolation:
    return RuleViolation(
        "sr3 has no suppression zones (002 describes none): there is no zone test to make",
        path=path,
        kind="no-zones",
    )
