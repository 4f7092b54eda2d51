"""The condition monitors' use cases: the GM heals, sets and clears an actor's monitor; the GM
or the actor's controller applies damage waiting for confirmation, and the GM declines it. Each
is an event of type "monitor" (the GM's alone for a hidden actor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from schemas.encounter import EncounterState, MonitorOutcome
from schemas.monitor import Monitor, MonitorChange, MonitorEdit, MonitorResult
from schemas.scene import SceneActor
from service.engine import damage, scene
from service.engine.core import Admitted, Answer, EncounterCore, Loaded
from service.engine.errors import StateChanged
from service.engine.scene import ActorNotFound
from service.engine.sight import Sight
from service.rules import Resolution, RuleViolation
from service.rules.monitor import Dealt, MonitorRules

_EDIT = msgspec.json.Decoder(MonitorEdit)
# What a change does to the actor's monitor: the change's name and the monitor after it.
Changed = Callable[[MonitorRules, SceneActor, Monitor], tuple[MonitorChange, Monitor]]


def _edited(edit: MonitorEdit) -> Changed:
    """What the GM's edit does: exactly one of heal, set and clear (422 naming `$`)."""
    given = [
        name
        for name, value in (("heal", edit.heal), ("set", edit.set), ("clear", edit.clear or None))
        if value is not None
    ]
    if len(given) != 1:
        raise RuleViolation(
            "give exactly one of `heal`, `set` and `clear`"
            + (f" (this gives {' and '.join(given)})" if given else ""),
            path="$",
            kind="one-monitor-edit",
        )

    def change(
        rules: MonitorRules, actor: SceneActor, monitor: Monitor
    ) -> tuple[MonitorChange, Monitor]:
        if edit.heal is not None:
            return "healed", rules.settled(damage.healed(monitor, edit.heal), actor.sheet)
        if edit.set is not None:
            return "set", rules.settled(damage.set_to(monitor, edit.set), actor.sheet)
        return "cleared", rules.settled(Monitor(), actor.sheet)

    return change


def _pending(actor_id: str, damage_id: str, apply: bool) -> Changed:
    """The damage `damage_id` waiting on the monitor, applied (written as the service would
    have written it) or declined; 404 when it waits no more (applied, declined, or dropped)."""

    def change(
        rules: MonitorRules, actor: SceneActor, monitor: Monitor
    ) -> tuple[MonitorChange, Monitor]:
        waiting = next((p for p in monitor.pending if p.id == damage_id), None)
        if waiting is None:
            raise RuleViolation(
                f"no damage '{damage_id}' waits on this monitor (applied or declined already, "
                "or never dealt)",
                path="damage",
                kind="pending-not-found",
                status=404,
            )
        rest = [p for p in monitor.pending if p.id != damage_id]
        monitor = msgspec.structs.replace(monitor, pending=rest)
        if not apply:
            return "declined", monitor
        dealt = Dealt(
            target=actor_id,
            track=waiting.track,
            boxes=waiting.boxes,
            location=waiting.location,
            source=waiting.source,
        )
        return "applied", rules.damaged(monitor, dealt, actor.sheet)

    return change


class MonitorUses(EncounterCore):
    """The use cases of the condition monitors."""

    async def edit_monitor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """The GM heals, sets or clears the monitor, on the version it read when it gives one."""
        edit = _EDIT.decode(body)
        change = _edited(edit)
        if edit.version is not None and admitted.version != edit.version:
            # This process's copy may be older than the one the GM read: only the store says
            # whether the encounter really moved on (as edit_state).
            document, _ = await self._document(admitted.encounter_id, fresh=True)
            admitted = self._admitted(
                admitted.encounter_id,
                document,
                admitted.credential,
                admitted.needed,
                ended_ok=False,
            )

        def check(current: Loaded) -> None:
            if edit.version is not None and current.version != edit.version:
                raise StateChanged(edit.version, current.version)

        scope = b"edit\0" + actor_id.encode() + b"\0" + body
        return await self._monitor_change(
            admitted, actor_id, scope, key, change, edit.reason, check
        )

    async def apply_pending(
        self, admitted: Admitted, actor_id: str, damage_id: str, key: str | None = None
    ) -> Answer:
        """The GM or the actor's controller applies damage waiting for confirmation, once."""
        scope = b"apply\0" + actor_id.encode() + b"\0" + damage_id.encode()
        return await self._monitor_change(
            admitted, actor_id, scope, key, _pending(actor_id, damage_id, apply=True)
        )

    async def decline_pending(
        self, admitted: Admitted, actor_id: str, damage_id: str, key: str | None = None
    ) -> Answer:
        """The GM declines damage waiting for confirmation: it is dropped."""
        scope = b"decline\0" + actor_id.encode() + b"\0" + damage_id.encode()
        return await self._monitor_change(
            admitted, actor_id, scope, key, _pending(actor_id, damage_id, apply=False)
        )

    async def _monitor_change(
        self,
        admitted: Admitted,
        actor_id: str,
        scope: bytes,
        key: str | None,
        change: Changed,
        reason: str = "",
        check: Callable[[Loaded], None] | None = None,
    ) -> Answer:
        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            if check is not None:
                check(current)
            state = current.state
            sight = Sight.of(state, admitted.role)
            # To a player a hidden actor and an unknown one are the same (404, the same text).
            actor = sight.scene(state.scene).get(actor_id)
            if actor is None:
                raise ActorNotFound(actor_id)
            sight.check_acts_for(state, actor_id, "actor")
            rules = damage.rules_of(current.ruleset, state)
            if rules is None:
                raise damage.no_monitors(state, state.ruleset)
            before = actor.monitor or rules.settled(Monitor(), actor.sheet)
            kind, monitor = change(rules, actor, before)
            after = scene.with_actor(
                state, actor_id, msgspec.structs.replace(actor, monitor=monitor)
            )
            result = MonitorResult(
                actor=actor_id,
                change=kind,
                monitor=monitor,
                effects=damage.described(before, monitor),
                reason=reason,
            )
            return Resolution(result=result, state=after.combat, actor=actor_id), after

        loaded = self._loaded(admitted)
        return await self._change(admitted, "monitor", key, scope, resolve, MonitorOutcome, loaded)
