"""An SR4 attack as a client may ask it, filled from the scene: the attacker and its guns by
name, a target's distance, defender and posture, where the shooter stands, and everyone else
with a position (for a blast, and for who a suppressed area reaches)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import ActionResult
from schemas.scene import SceneActor
from schemas.sr4 import (
    SR4Attacker,
    SR4AttackRequest,
    SR4AttackResult,
    SR4BlastActor,
    SR4Defender,
    SR4Sheet,
    SR4Target,
    SR4ZoneTestRequest,
)
from service.rules.scene import (
    actor_of,
    bystanders_of,
    distance_m,
    edge_by_actor,
    sheet_of,
    weapon_of,
)

_ATTACKER_NEEDS = ("agility",)
_DEFENDER_NEEDS = ("reaction", "body")


def _attacker(scene: Mapping[str, SceneActor], name: str, weapon: str) -> SR4Attacker:
    actor = actor_of(scene, name, "$.attacker")
    skills = actor.sheet.weapon_skills if isinstance(actor.sheet, SR4Sheet) else {}
    needs = _ATTACKER_NEEDS if weapon in skills else (*_ATTACKER_NEEDS, "skill")
    sheet = sheet_of(name, actor, SR4Sheet, needs, "$.attacker")
    return SR4Attacker(
        id=name,
        agility=sheet.agility or 1,
        strength=sheet.strength or 1,
        intuition=sheet.intuition or 1,
        skill=sheet.weapon_skills.get(weapon, sheet.skill or 0),
        edge=sheet.edge or 0,
        wound_modifier=sheet.wound_modifier,
    )


def defender_of(actor_id: str, actor: SceneActor, path: str) -> SR4Defender:
    sheet = sheet_of(actor_id, actor, SR4Sheet, _DEFENDER_NEEDS, path)
    return SR4Defender(
        reaction=sheet.reaction or 1,
        body=sheet.body or 1,
        dodge=sheet.dodge,
        edge=sheet.edge or 0,
        ballistic_armor=sheet.ballistic_armor,
        impact_armor=sheet.impact_armor,
        wound_modifier=sheet.wound_modifier,
    )


def _target(scene: Mapping[str, SceneActor], attacker: str, asked: Any, index: int) -> SR4Target:
    path = f"$.targets[{index}]"
    given = msgspec.structs.asdict(asked)
    if asked.distance_m is None:
        given["distance_m"] = distance_m(scene, attacker, asked.id, f"{path}.distance_m")
    if asked.defender is None:
        actor = actor_of(scene, asked.id, f"{path}.defender")
        given["defender"] = defender_of(asked.id, actor, f"{path}.defender")
    named = scene.get(asked.id)
    posture = named.posture if named is not None else None
    cover = posture.cover if posture is not None else "none"
    if given["cover"] is None:
        # SR4 has partial and good cover; full cover is good cover the attacker sees past.
        given["cover"] = "good" if cover == "full" else cover
    if given["prone"] is None:
        given["prone"] = posture.prone if posture is not None else False
    return SR4Target(**given)


def _apart_m(scene: Mapping[str, SceneActor], ids: list[str]) -> float:
    points = [scene[i].position for i in ids if i in scene and scene[i].position is not None]
    return max(
        (math.hypot(a.x - b.x, a.y - b.y) for a, b in itertools.combinations(points, 2) if a and b),
        default=0.0,
    )


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> SR4AttackRequest:
    given = msgspec.structs.asdict(asked)
    if isinstance(asked.attacker, str):
        weapon = asked.weapon if isinstance(asked.weapon, str) else asked.weapon.id
        given["attacker"] = _attacker(scene, asked.attacker, weapon)
    shooter = given["attacker"].id
    if isinstance(asked.weapon, str):
        given["weapon"] = weapon_of(scene, shooter, asked.weapon, "$.weapon")
    if isinstance(asked.second_weapon, str):
        given["second_weapon"] = weapon_of(scene, shooter, asked.second_weapon, "$.second_weapon")
    given["targets"] = [_target(scene, shooter, t, i) for i, t in enumerate(asked.targets)]
    if asked.targets_apart_m is None:
        given["targets_apart_m"] = _apart_m(scene, [t.id for t in asked.targets])
    here = scene.get(shooter)
    if asked.origin is None and here is not None and here.position is not None:
        given["origin"] = here.position
    if not asked.bystanders and (asked.grenade is not None or asked.zone is not None):
        others = bystanders_of(scene, shooter)
        given["bystanders"] = [
            SR4BlastActor(
                id=actor_id,
                position=position,
                body=actor.sheet.body if isinstance(actor.sheet, SR4Sheet) else None,
                impact_armor=(
                    actor.sheet.impact_armor if isinstance(actor.sheet, SR4Sheet) else None
                ),
            )
            for actor_id, actor, position in others
        ]
        if not asked.sheltered:
            given["sheltered"] = [
                actor_id
                for actor_id, actor, _ in others
                if actor.posture.prone or actor.posture.cover != "none"
            ]
    return SR4AttackRequest(**given)


def ammo_left(request: Any, result: Any) -> dict[str, int]:
    """The rounds each gun holds after the attack, or after a reload."""
    if isinstance(request, SR4AttackRequest):
        left = {request.weapon.id: result.ammo_left}
        if request.second_weapon is not None and result.second_ammo_left is not None:
            left[request.second_weapon.id] = result.second_ammo_left
        return left
    weapon = getattr(request, "weapon", None)
    if getattr(request, "action", None) == "reload" and isinstance(weapon, str):
        return {weapon: result.ammo_left}
    return {}


def edge_spent(result: Any) -> dict[str, int]:
    """SR4 core, Edge: the attacker's extra dice, each defender's Edge on its defense (one point
    each) and the re-roll (an action). A zone test rolls Edge as an attribute: nothing spent."""
    if isinstance(result, SR4AttackResult):
        defenses = [(target.target, target.edge_spent) for target in result.targets]
        own = result.edge_spent - sum(points for _, points in defenses)
        return edge_by_actor((result.attacker, own), *defenses)
    if isinstance(result, ActionResult):
        return edge_by_actor((result.actor, result.edge_spent))
    return {}


def fill_zone_test(asked: Any, scene: Mapping[str, SceneActor]) -> SR4ZoneTestRequest:
    given = msgspec.structs.asdict(asked)
    if asked.defender is None:
        actor = actor_of(scene, asked.actor, "$.defender")
        given["defender"] = defender_of(asked.actor, actor, "$.defender")
    return SR4ZoneTestRequest(**given)
