"""The scene's use cases: the GM sets, patches and takes off actors; actors move."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec

from schemas.encounter import EncounterState, ImportOutcome, Outcome, SceneOutcome
from schemas.imports import ImportFormat
from schemas.scene import ActorList, ActorMove, ActorPatch, SceneActor, SceneChange
from service.engine import damage, scene
from service.engine.core import Admitted, Answer, EncounterCore, Loaded
from service.engine.errors import LimitExceeded
from service.engine.scene import ActorNotFound
from service.engine.sight import Sight
from service.rules import Resolution


class SceneUses(EncounterCore):
    """The use cases of the scene."""

    async def actors(self, admitted: Admitted) -> ActorList:
        """The scene's actors this token sees (players: none hidden)."""
        state = self._loaded(admitted).state
        return ActorList(actors=Sight.of(state, admitted.role).scene(state.scene))

    async def actor(self, admitted: Admitted, actor_id: str) -> SceneActor:
        state = self._loaded(admitted).state
        found = Sight.of(state, admitted.role).scene(state.scene).get(actor_id)
        if found is None:
            raise ActorNotFound(actor_id)
        return found

    async def put_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """The GM sets an actor whole: a new one, or one replaced."""
        actor: SceneActor = self._decoders[SceneActor].decode(body)
        ruleset_id = admitted.envelope.ruleset
        scene.check_sheet(actor, self._rulesets[ruleset_id].sheet_type, ruleset_id)

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            self._check_room(state, actor_id)
            kept = state.scene.get(actor_id)
            put = actor
            if kept is not None and actor.edge_spent is msgspec.UNSET:
                # Like the monitor: a PUT that leaves out the Edge spent keeps it.
                put = scene.with_edge_spent(put, scene.edge_spent(kept))
            else:
                put = scene.with_edge_spent(put, scene.edge_spent(put))
            if actor.monitor is None and kept is not None and kept.monitor is not None:
                # The damage an actor carries is the service's: a PUT that leaves the monitor
                # out (a VTT sending a changed sheet) keeps it; one that gives it sets it.
                return "set", msgspec.structs.replace(put, monitor=kept.monitor)
            return "set", put

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def patch_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """The GM changes some parts of an actor (its name, controller, position, sheet...)."""
        patch: ActorPatch = self._decoders[ActorPatch].decode(body)
        ruleset_id = admitted.envelope.ruleset

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            if actor_id not in state.scene:
                raise ActorNotFound(actor_id)
            actor = scene.patched(state.scene[actor_id], patch)
            scene.check_sheet(actor, self._rulesets[ruleset_id].sheet_type, ruleset_id)
            return "patched", actor

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def import_actor(
        self,
        admitted: Admitted,
        actor_id: str,
        source_format: ImportFormat,
        data: bytes,
        key: str | None = None,
    ) -> Answer:
        """The GM puts a character file's sheet on an actor. A new actor takes the file's name
        too; one on the scene keeps everything but its sheet, and its monitor is settled on the
        new sheet as a PATCH of the sheet settles it. The file is read once, before the commit:
        a retry after a conflict changes only the state it starts from."""
        ruleset_id = admitted.envelope.ruleset
        sheet, report, name = await self._character(source_format, data, ruleset_id, "encounter")
        as_patch = ActorPatch(sheet=sheet)

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            kept = state.scene.get(actor_id)
            if kept is None:
                self._check_room(state, actor_id)
                return "set", SceneActor(name=name, sheet=sheet)
            actor = scene.patched(kept, as_patch)
            scene.check_sheet(actor, self._rulesets[ruleset_id].sheet_type, ruleset_id)
            return "patched", actor

        scope = source_format.encode() + b"\0" + data
        outcome = functools.partial(ImportOutcome, report=report)
        return await self._scene_change(admitted, actor_id, scope, key, change, outcome)

    def _check_room(self, state: EncounterState, actor_id: str) -> None:
        if actor_id not in state.scene and len(state.scene) >= self._max_actors:
            raise LimitExceeded(
                f"a scene holds at most {self._max_actors} actors; take one off first"
            )

    async def move_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """An actor moves: the GM's, or a player's for an actor the player can see."""
        move: ActorMove = self._decoders[ActorMove].decode(body)

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            sight = Sight.of(state, admitted.role)
            actor = sight.scene(state.scene).get(actor_id)
            if actor is None:
                raise ActorNotFound(actor_id)
            sight.check_acts_for(state, actor_id, "actor")
            return "moved", msgspec.structs.replace(actor, position=move.position)

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def remove_actor(
        self, admitted: Admitted, actor_id: str, key: str | None = None
    ) -> Answer:
        """The GM takes an actor off the scene (its combat state, recoil and the like, stays)."""

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            if actor_id not in state.scene:
                raise ActorNotFound(actor_id)
            return "removed", None

        return await self._scene_change(admitted, actor_id, b"", key, change)

    async def _scene_change(
        self,
        admitted: Admitted,
        actor_id: str,
        body: bytes,
        key: str | None,
        change: Callable[[EncounterState], tuple[SceneChange, SceneActor | None]],
        outcome_type: Callable[..., Outcome] = SceneOutcome,
    ) -> Answer:
        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            kind, actor = change(current.state)
            after = scene.with_actor(current.state, actor_id, actor)
            if kind in ("set", "patched"):
                if actor is not None and actor.monitor is not None:
                    if damage.rules_of(current.ruleset, current.state) is None:
                        raise damage.no_monitors(current.state, current.state.ruleset)
                # A sheet changed sizes the tracks anew; a monitor given is the GM's, within
                # them.
                after = damage.with_monitors(current.ruleset, after, [actor_id])
            result = scene.result(kind, actor_id, current.state, after)
            if kind == "moved" and actor is not None and actor.position is not None:
                zones = current.ruleset.zones(after.combat)
                result = msgspec.structs.replace(
                    result, must_test=scene.zones_holding(zones, actor.position)
                )
            return Resolution(result=result, state=after.combat, actor=actor_id), after

        loaded = self._loaded(admitted)
        # The same body for another actor is another request.
        scope = actor_id.encode() + b"\0" + body
        return await self._change(admitted, "scene", key, scope, resolve, outcome_type, loaded)
