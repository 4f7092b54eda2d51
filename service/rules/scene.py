"""What every ruleset reads of the scene to fill a request in: an actor by id, its sheet, the
distance between two actors, a sheet's guns after they fired, and the Edge actors spent."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from schemas.common import Point
from schemas.scene import SceneActor
from service.rules.ruleset import RuleViolation

S = TypeVar("S")


def actor_of(scene: Mapping[str, SceneActor], actor_id: str, path: str) -> SceneActor:
    actor = scene.get(actor_id)
    if actor is None:
        raise RuleViolation(
            f"the scene has no actor '{actor_id}': put it there, or give its numbers",
            path=path,
            kind="actor-not-on-scene",
        )
    return actor


def sheet_of(
    actor_id: str, actor: SceneActor, sheet_type: type[S], needs: tuple[str, ...], path: str
) -> S:
    """The actor's sheet, which must hold `needs` (422 naming what it lacks)."""
    sheet = actor.sheet
    if not isinstance(sheet, sheet_type):
        missing = "sheet"
    else:
        missing = ", ".join(name for name in needs if getattr(sheet, name) is None)
    if missing:
        raise RuleViolation(
            f"{actor_id}'s {missing} is not on the scene: set it there, or give the numbers "
            "in the request",
            path=path,
            kind="sheet-incomplete",
        )
    assert isinstance(sheet, sheet_type)
    return sheet


def weapon_of(scene: Mapping[str, SceneActor], owner: str, name: str, path: str) -> Any:
    """The weapon `name` on `owner`'s sheet, with the rounds it holds now."""
    sheet = actor_of(scene, owner, path).sheet
    for weapon in getattr(sheet, "weapons", []):
        if weapon.id == name:
            return weapon
    raise RuleViolation(
        f"{owner} carries no weapon '{name}' on the scene: add it to its sheet, or give the "
        "weapon's numbers",
        path=path,
        kind="weapon-not-carried",
    )


def distance_m(scene: Mapping[str, SceneActor], from_id: str, to_id: str, path: str) -> float:
    """Straight-line metres between two actors' positions on the scene plane."""
    here, there = scene.get(from_id), scene.get(to_id)
    if here is None or there is None or here.position is None or there.position is None:
        raise RuleViolation(
            f"give distance_m, or put both {from_id} and {to_id} on the scene with a position",
            path=path,
            kind="position-unknown",
        )
    return math.hypot(there.position.x - here.position.x, there.position.y - here.position.y)


def bystanders_of(
    scene: Mapping[str, SceneActor], shooter: str
) -> list[tuple[str, SceneActor, Point]]:
    """Everyone on the scene with a position but the shooter (hidden actors too: the fire does
    not care who sees them), in id order, with where they stand."""
    return [
        (actor_id, actor, actor.position)
        for actor_id, actor in sorted(scene.items())
        if actor_id != shooter and actor.position is not None
    ]


def with_ammo(actor: SceneActor, left: Mapping[str, int]) -> SceneActor:
    """The actor with its guns holding what `left` says (the others as they were)."""
    sheet = actor.sheet
    if sheet is None or not any(w.id in left for w in sheet.weapons):
        return actor
    weapons = [
        msgspec.structs.replace(w, ammo=left[w.id]) if w.id in left else w for w in sheet.weapons
    ]
    return msgspec.structs.replace(actor, sheet=msgspec.structs.replace(sheet, weapons=weapons))


def edge_by_actor(*spent: tuple[str, int]) -> dict[str, int]:
    """Edge points by actor, added up; an actor that spent none is left out."""
    tally: dict[str, int] = {}
    for actor_id, points in spent:
        if points > 0:
            tally[actor_id] = tally.get(actor_id, 0) + points
    return tally
