"""A d100 attack as a client may ask it, filled from the scene: the attacker and its weapon by
name, a target's distance from the positions and its defender from its sheet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.d100 import (
    D100ActionRequest,
    D100Attacker,
    D100AttackRequest,
    D100Bystander,
    D100Defender,
    D100Sheet,
    D100Target,
    D100ZoneTestRequest,
)
from schemas.scene import SceneActor
from service.rules.scene import actor_of, bystanders_of, distance_m, sheet_of, weapon_of


def _defender(sheet: D100Sheet, actor: SceneActor) -> D100Defender:
    """How an actor defends, from its sheet, where it stands."""
    return D100Defender(
        defense=sheet.defense,
        passive_defense=sheet.passive_defense,
        armor=sheet.armor,
        armor_by_location=sheet.armor_by_location,
        wound_modifier=sheet.wound_modifier,
        position=actor.position,
    )


def _target(scene: Mapping[str, SceneActor], shooter: str, asked: Any, index: int) -> D100Target:
    path = f"$.targets[{index}]"
    given = msgspec.structs.asdict(asked)
    if asked.distance_m is None:
        given["distance_m"] = distance_m(scene, shooter, asked.id, f"{path}.distance_m")
    if asked.defender is None:
        actor = actor_of(scene, asked.id, f"{path}.defender")
        sheet = sheet_of(asked.id, actor, D100Sheet, (), f"{path}.defender")
        given["defender"] = _defender(sheet, actor)
    return D100Target(**given)


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> D100AttackRequest:
    """The attack the rules resolve: what the request gives wins; the scene fills the rest."""
    given = msgspec.structs.asdict(asked)
    if isinstance(asked.attacker, str):
        name = asked.attacker
        actor = actor_of(scene, name, "$.attacker")
        sheet = sheet_of(name, actor, D100Sheet, ("marksmanship",), "$.attacker")
        given["attacker"] = D100Attacker(
            id=name,
            marksmanship=sheet.marksmanship or 0,
            recoil_control=sheet.recoil_control,
            wound_modifier=sheet.wound_modifier,
            position=actor.position,
        )
    shooter = given["attacker"].id
    if isinstance(asked.weapon, str):
        given["weapon"] = weapon_of(scene, shooter, asked.weapon, "$.weapon")
    given["targets"] = [_target(scene, shooter, t, i) for i, t in enumerate(asked.targets)]
    if asked.suppressive is not None and not asked.bystanders:
        # Suppressive fire: everyone else on the scene, as they stand.
        given["bystanders"] = [
            D100Bystander(
                id=actor_id,
                position=position,
                in_cover=actor.posture.cover != "none",
                prone=actor.posture.prone,
            )
            for actor_id, actor, position in bystanders_of(scene, shooter)
        ]
    return D100AttackRequest(**given)


def ammo_left(request: D100AttackRequest | D100ActionRequest, result: Any) -> dict[str, int]:
    """The rounds the gun an attack fired, or a reload loaded, holds after it."""
    if isinstance(request, D100AttackRequest):
        return {request.weapon.id: result.ammo_left}
    if request.weapon is not None and result.ammo_left is not None:
        return {request.weapon.id: result.ammo_left}
    return {}


def fill_zone_test(asked: Any, scene: Mapping[str, SceneActor]) -> D100ZoneTestRequest:
    """The zone test the rules resolve: Athletics, the defender and where it stands from the
    testing actor on the scene, for what the request leaves out."""
    given = msgspec.structs.asdict(asked)
    if asked.athletics is None or asked.defender is None:
        actor = actor_of(scene, asked.actor, "$.actor")
        needs = ("athletics",) if asked.athletics is None else ()
        sheet = sheet_of(asked.actor, actor, D100Sheet, needs, "$.athletics")
        if asked.athletics is None:
            given["athletics"] = sheet.athletics
        if asked.defender is None:
            given["defender"] = _defender(sheet, actor)
    return D100ZoneTestRequest(**given)
