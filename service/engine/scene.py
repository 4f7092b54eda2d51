"""The scene's changes: an actor set, patched, moved or taken off, what the change's result says,
and who may see it. Pure: the use cases in `encounters` commit what these return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from schemas.common import Point, Zone
from schemas.encounter import EncounterState
from schemas.scene import MAX_EDGE_SPENT, ActorPatch, SceneActor, SceneChange, SceneResult
from service.rules import RuleViolation
from service.rules.geometry import in_zone


class ActorNotFound(LookupError):
    """No such actor in the scene, or one hidden from the player asking (404)."""

    def __init__(self, actor_id: str, path: str = "actor") -> None:
        super().__init__(f"the scene has no actor '{actor_id}'")
        self.path = path


def hidden(scene: Mapping[str, SceneActor], actor_id: str | None) -> bool:
    actor = scene.get(actor_id) if actor_id is not None else None
    return actor is not None and actor.hidden


def gm_only(before: EncounterState, after: EncounterState, actor_id: str | None) -> bool:
    """Whether an event about `actor_id` is for the GM alone: the actor is hidden from players
    before and after it (or appears hidden, or leaves while hidden). Hiding a visible actor and
    revealing a hidden one are news for everyone."""
    if actor_id is None:
        return False
    was, now = before.scene.get(actor_id), after.scene.get(actor_id)
    return (was is None or was.hidden) and (now is None or now.hidden) and (was or now) is not None


def audience(
    event_type: str, before: EncounterState, after: EncounterState, actor_id: str | None
) -> dict[str, bool]:
    """Who an event is for: an attack by a hidden actor reaches players with its shooter
    unnamed (its targets must learn they were shot); any other event about a hidden actor is
    the GM's alone."""
    if not gm_only(before, after, actor_id):
        return {}
    if event_type == "attack" and actor_id in after.scene:
        return {"unseen_actor": True}
    return {"gm_only": True}


def result(
    change: SceneChange, actor_id: str, before: EncounterState, after: EncounterState
) -> SceneResult:
    """The change's result; an actor the change hid is told as `hidden`, without its state."""
    actor = after.scene.get(actor_id)
    if actor is not None and actor.hidden and not hidden(before.scene, actor_id):
        if actor_id in before.scene:
            return SceneResult(change="hidden", actor=actor_id)
    return SceneResult(change=change, actor=actor_id, state=actor)


def check_sheet(actor: SceneActor, sheet_type: type[object], ruleset_id: str) -> None:
    if actor.sheet is not None and type(actor.sheet) is not sheet_type:
        raise RuleViolation(
            f"this encounter plays {ruleset_id}: the sheet must be a {ruleset_id} sheet",
            path="$.sheet.ruleset",
            kind="wrong-ruleset",
        )


def patched(actor: SceneActor, patch: ActorPatch) -> SceneActor:
    """The actor with what the patch gives in place of those parts."""
    given = {
        name: getattr(patch, name)
        for name in patch.__struct_fields__
        if getattr(patch, name) is not msgspec.UNSET
    }
    changed = msgspec.structs.replace(actor, **given)
    return with_edge_spent(changed, edge_spent(changed))


def edge_spent(actor: SceneActor) -> int:
    return actor.edge_spent or 0


def with_edge_spent(actor: SceneActor, points: int) -> SceneActor:
    """The actor with `points` of Edge spent, up to the bound; none is left out (a state that
    never spent Edge reads, and compares, as before the field existed)."""
    points = min(points, MAX_EDGE_SPENT)
    return msgspec.structs.replace(actor, edge_spent=points if points else msgspec.UNSET)


def with_actor(state: EncounterState, actor_id: str, actor: SceneActor | None) -> EncounterState:
    """The state with `actor` at `actor_id` (None: taken off the scene)."""
    scene = dict(state.scene)
    if actor is None:
        scene.pop(actor_id, None)
    else:
        scene[actor_id] = actor
    return msgspec.structs.replace(state, scene=scene)


def zones_holding(zones: Sequence[Zone], position: Point) -> list[str]:
    """The zones a position is inside that those in them test against."""
    where = (position.x, position.y)
    return [
        zone.id
        for zone in zones
        if zone.tests
        and in_zone(
            [(p.x, p.y) for p in zone.points],
            (zone.center.x, zone.center.y) if zone.center is not None else None,
            zone.radius_m,
            where,
        )
    ]
