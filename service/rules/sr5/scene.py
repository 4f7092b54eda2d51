"""An SR5 attack as a client may ask it, filled from the scene: the attacker and its weapons by
name, a target's distance from the positions, its defender from its sheet and its posture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import ActionResult
from schemas.scene import SceneActor
from schemas.sr5 import (
    SR5Attacker,
    SR5AttackRequest,
    SR5AttackResult,
    SR5Bystander,
    SR5Defender,
    SR5Sheet,
    SR5Target,
    SR5ZoneTestRequest,
    SR5ZoneTestResult,
)
from service.rules.scene import (
    actor_of,
    bystanders_of,
    distance_m,
    edge_by_actor,
    sheet_of,
    weapon_of,
)

# What a sheet must hold to attack, and to defend (the rest has the request's defaults).
_ATTACKER_NEEDS = ("agility", "strength")
_DEFENDER_NEEDS = ("reaction", "intuition", "body")


def _weapon_skills(actor: SceneActor) -> Mapping[str, int]:
    return actor.sheet.weapon_skills if isinstance(actor.sheet, SR5Sheet) else {}


def _attacker(scene: Mapping[str, SceneActor], name: str, weapon: str) -> SR5Attacker:
    actor = actor_of(scene, name, "$.attacker")
    needs = _ATTACKER_NEEDS if weapon in _weapon_skills(actor) else (*_ATTACKER_NEEDS, "skill")
    sheet = sheet_of(name, actor, SR5Sheet, needs, "$.attacker")
    return SR5Attacker(
        id=name,
        agility=sheet.agility or 1,
        strength=sheet.strength or 1,
        # The skill of the gun it fires, where the sheet names one.
        skill=sheet.weapon_skills.get(weapon, sheet.skill or 0),
        willpower=sheet.willpower or 1,
        intuition=sheet.intuition or 1,
        edge=sheet.edge or 0,
        wound_modifier=sheet.wound_modifier,
    )


def _defender(actor_id: str, actor: SceneActor, path: str) -> SR5Defender:
    sheet = sheet_of(actor_id, actor, SR5Sheet, _DEFENDER_NEEDS, path)
    optional = ("charisma", "gymnastics", "perception", "physical_limit", "mental_limit")
    return SR5Defender(
        reaction=sheet.reaction or 1,
        intuition=sheet.intuition or 1,
        body=sheet.body or 1,
        willpower=sheet.willpower or 1,
        armor=sheet.armor or 0,
        wound_modifier=sheet.wound_modifier,
        agility=sheet.agility,
        **{name: getattr(sheet, name) for name in optional},
    )


def _target(scene: Mapping[str, SceneActor], attacker: str, asked: Any, index: int) -> SR5Target:
    path = f"$.targets[{index}]"
    named = scene.get(asked.id)
    given = msgspec.structs.asdict(asked)
    if asked.distance_m is None:
        given["distance_m"] = distance_m(scene, attacker, asked.id, f"{path}.distance_m")
    if asked.defender is None:
        actor = actor_of(scene, asked.id, f"{path}.defender")
        given["defender"] = _defender(asked.id, actor, f"{path}.defender")
    # What the request leaves out of the target's situation, its posture on the scene says.
    posture = named.posture if named is not None else None
    for name in ("cover", "prone", "running"):
        if given[name] is None:
            given[name] = getattr(posture, name) if posture is not None else _UNSET[name]
    return SR5Target(**given)


_UNSET: dict[str, Any] = {"cover": "none", "prone": False, "running": False}


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> SR5AttackRequest:
    """The attack the rules resolve: what the request gives wins; the scene fills the rest."""
    given = msgspec.structs.asdict(asked)
    attacker = asked.attacker
    if isinstance(attacker, str):
        weapon = asked.weapon if isinstance(asked.weapon, str) else asked.weapon.id
        given["attacker"] = _attacker(scene, attacker, weapon)
    shooter = given["attacker"].id
    if isinstance(asked.weapon, str):
        given["weapon"] = weapon_of(scene, shooter, asked.weapon, "$.weapon")
    if isinstance(asked.second_weapon, str):
        given["second_weapon"] = weapon_of(scene, shooter, asked.second_weapon, "$.second_weapon")
    given["targets"] = [_target(scene, shooter, t, i) for i, t in enumerate(asked.targets)]
    if asked.zone is not None and not asked.bystanders:
        # Suppressive fire: everyone else on the scene, as they stand.
        given["bystanders"] = [
            SR5Bystander(
                id=actor_id,
                position=position,
                aware=actor.posture.aware,
                in_cover=actor.posture.cover != "none",
                prone=actor.posture.prone,
            )
            for actor_id, actor, position in bystanders_of(scene, shooter)
        ]
    return SR5AttackRequest(**given)


def ammo_left(request: Any, result: Any) -> dict[str, int]:
    """The rounds each gun the attack fired holds after it (an SR5 action counts none)."""
    if not isinstance(request, SR5AttackRequest):
        return {}
    left = {request.weapon.id: result.ammo_left}
    if request.second_weapon is not None and result.second_ammo_left is not None:
        left[request.second_weapon.id] = result.second_ammo_left
    return left


def edge_spent(result: Any) -> dict[str, int]:
    """SR5 Edge is the acting actor's: Push the Limit on an attack, Second Chance (an action),
    Lucky Cover on a zone test; each one point. Defenders spend none here."""
    if isinstance(result, SR5AttackResult):
        return edge_by_actor((result.attacker, result.edge_spent))
    if isinstance(result, SR5ZoneTestResult | ActionResult):
        return edge_by_actor((result.actor, result.edge_spent))
    return {}


def fill_zone_test(asked: Any, scene: Mapping[str, SceneActor]) -> SR5ZoneTestRequest:
    """The zone test the rules resolve: the defender from the testing actor's sheet when the
    request leaves it out."""
    given = msgspec.structs.asdict(asked)
    if asked.defender is None:
        actor = actor_of(scene, asked.actor, "$.defender")
        given["defender"] = _defender(asked.actor, actor, "$.defender")
    return SR5ZoneTestRequest(**given)
