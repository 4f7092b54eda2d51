"""The condition monitors the service keeps (issue 24), as the use cases write them: every scene
actor's monitor settled on its sheet, a result's damage written on its targets' monitors (or put
up for confirmation) in the same commit, and what the monitors say to what follows (the sheets
the rules read, who is out of the fight). Pure: the use cases commit what these return.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from schemas.encounter import ActionResult, EncounterState
from schemas.monitor import (
    INCAPACITATED,
    MAX_PENDING,
    Monitor,
    MonitorSet,
    PendingDamage,
    Track,
)
from schemas.scene import SceneActor
from service.engine import scene
from service.rules import Resolution, Ruleset, RuleViolation
from service.rules.monitor import Dealt, MonitorRules
from service.rules.ruleset import EarlierAttack

if TYPE_CHECKING:
    # aftermath asks this module who is out of the fight.
    from service.engine.aftermath import After

# The longest `source` a PendingDamage keeps (schemas/common.py, Name).
_SOURCE_LENGTH = 200


def rules_of(ruleset: Ruleset, state: EncounterState) -> MonitorRules | None:
    """The monitors the service keeps in this encounter: none where the VTT keeps them
    (`"damage": "vtt"`) or the ruleset keeps its own in its combat state (Hard Life)."""
    return ruleset.monitor if state.damage != "vtt" else None


def no_monitors(state: EncounterState, ruleset_id: str) -> RuleViolation:
    why = (
        "the VTT keeps them (its damage is 'vtt'; the GM may set it to 'service' or 'confirm' "
        "with PUT .../state)"
        if state.damage == "vtt"
        else f"{ruleset_id} keeps its own in the combat state"
    )
    return RuleViolation(
        f"this encounter keeps no condition monitors: {why}",
        path="damage",
        kind="no-monitors",
        status=409,
    )


def settled(rules: MonitorRules, actor: SceneActor, monitor: Monitor | None = None) -> SceneActor:
    """The actor with `monitor` (by default its own, or an empty one) within what its sheet
    allows and its status worked out."""
    kept = rules.settled(monitor or actor.monitor or Monitor(), actor.sheet)
    return msgspec.structs.replace(actor, monitor=kept)


def with_monitors(
    ruleset: Ruleset, state: EncounterState, actor_ids: Iterable[str] | None = None
) -> EncounterState:
    """The state with the monitors of `actor_ids` (every scene actor by default) settled on
    their sheets, or dropped where the encounter keeps none."""
    rules = rules_of(ruleset, state)
    ids = list(state.scene) if actor_ids is None else [i for i in actor_ids if i in state.scene]
    if not ids:
        return state
    actors = dict(state.scene)
    for actor_id in ids:
        actor = actors[actor_id]
        if rules is not None:
            actors[actor_id] = settled(rules, actor)
        elif actor.monitor is not None:
            actors[actor_id] = msgspec.structs.replace(actor, monitor=None)
    return msgspec.structs.replace(state, scene=actors)


def wounded(
    ruleset: Ruleset, state: EncounterState, actors: Mapping[str, SceneActor]
) -> Mapping[str, SceneActor]:
    """`actors` as the rules read them: each sheet's wound fields from its monitor's status
    (what a request types itself still wins: the rules fill in only what it leaves out). Each
    actor is read so when it is first looked up: an attack reads its shooter and targets, not
    every actor of a big scene."""
    rules = rules_of(ruleset, state)
    if rules is None:
        return dict(actors)
    return _Wounded(rules, actors)


class _Wounded(Mapping[str, SceneActor]):
    """The scene's actors with their wounds on their sheets, each worked out once, when asked."""

    __slots__ = ("_actors", "_read", "_rules")

    def __init__(self, rules: MonitorRules, actors: Mapping[str, SceneActor]) -> None:
        self._rules = rules
        self._actors = actors
        self._read: dict[str, SceneActor] = {}

    def __getitem__(self, actor_id: str) -> SceneActor:
        read = self._read.get(actor_id)
        if read is None:
            read = actor = self._actors[actor_id]
            status = actor.monitor.status if actor.monitor is not None else None
            if actor.sheet is not None and status is not None:
                read = msgspec.structs.replace(
                    actor, sheet=self._rules.wounded(actor.sheet, status)
                )
            self._read[actor_id] = read
        return read

    def __iter__(self) -> Iterator[str]:
        return iter(self._actors)

    def __len__(self) -> int:
        return len(self._actors)


def initiative_modifier(ruleset: Ruleset, state: EncounterState, actor_id: str) -> int | None:
    """What `actor_id`'s wounds do to its initiative, from its monitor (None: no monitor)."""
    if rules_of(ruleset, state) is None:
        return None
    actor = state.scene.get(actor_id)
    status = actor.monitor.status if actor is not None and actor.monitor is not None else None
    return status.initiative_modifier if status is not None else None


def out_of_fight(ruleset: Ruleset, state: EncounterState) -> dict[str, str]:
    """The scene's actors whose monitors say they cannot act, each with its condition."""
    if rules_of(ruleset, state) is None:
        return {}
    out: dict[str, str] = {}
    for actor_id, actor in state.scene.items():
        status = actor.monitor.status if actor.monitor is not None else None
        if status is not None and status.condition in INCAPACITATED:
            out[actor_id] = status.condition
    return out


def check_able(ruleset: Ruleset, state: EncounterState, actor_id: str, path: str) -> None:
    """An actor unconscious, dying or dead attacks, acts and tests no more (409)."""
    condition = out_of_fight(ruleset, state).get(actor_id)
    if condition is not None:
        raise RuleViolation(
            f"'{actor_id}' is {condition}: it cannot act",
            path=path,
            kind="actor-incapacitated",
            status=409,
        )


# --- damage ------------------------------------------------------------------------------------


def healed(monitor: Monitor, heal: Mapping[Track, int]) -> Monitor:
    """`monitor` with boxes taken off its tracks, never below 0; physical boxes come off the
    overflow first (the worst damage is the first tended), then the physical track."""
    physical, stun, overflow = monitor.physical, monitor.stun, monitor.overflow
    boxes = heal.get("physical", 0)
    from_overflow = min(overflow, boxes)
    overflow -= from_overflow
    physical = max(0, physical - (boxes - from_overflow))
    stun = max(0, stun - heal.get("stun", 0))
    return msgspec.structs.replace(
        monitor, physical=physical, stun=stun, overflow=overflow, status=None
    )


def set_to(monitor: Monitor, numbers: MonitorSet) -> Monitor:
    """`monitor` with the numbers a GM's edit gives; what it leaves out stays."""
    given = {
        name: getattr(numbers, name)
        for name in ("physical", "stun", "overflow", "wounds")
        if getattr(numbers, name) is not None
    }
    return msgspec.structs.replace(monitor, status=None, **given)


def _totals(dealt: Iterable[Dealt]) -> dict[tuple[str, Track, str | None], int]:
    totals: dict[tuple[str, Track, str | None], int] = {}
    for d in dealt:
        key = (d.target, d.track, d.location)
        totals[key] = totals.get(key, 0) + d.boxes
    return totals


def _written(
    rules: MonitorRules, actor: SceneActor, new: list[Dealt], old: list[Dealt]
) -> SceneActor:
    """`actor` once `new` is written on its monitor in place of `old` (what an attack that a
    re-resolution replaces dealt): per track (and location), the boxes `new` deals beyond
    `old` are dealt, and those it deals short of it healed (heals first)."""
    monitor = actor.monitor or rules.settled(Monitor(), actor.sheet)
    before, after = _totals(old), _totals(new)
    heal: dict[Track, int] = {}
    for key, boxes in before.items():
        short = boxes - after.get(key, 0)
        if short > 0:
            heal[key[1]] = heal.get(key[1], 0) + short
    if heal:
        monitor = rules.settled(healed(monitor, heal), actor.sheet)
    source = {(d.target, d.track, d.location): d.source for d in new}
    for key, boxes in after.items():
        extra = boxes - before.get(key, 0)
        if extra > 0:
            target, track, location = key
            dealt = Dealt(target, track, extra, location, source[key])
            monitor = rules.damaged(monitor, dealt, actor.sheet)
    return msgspec.structs.replace(actor, monitor=monitor)


def _pending(
    actor: SceneActor,
    rules: MonitorRules,
    new: list[Dealt],
    old: list[Dealt],
    last: int,
    effects: list[str],
) -> tuple[SceneActor, int]:
    """`actor` with `new` waiting for confirmation, numbered from `last` + 1; what `old`
    dealt that still waits is dropped (the re-resolution replaces it), and what of it was
    applied or declined already is said in `effects`."""
    monitor = actor.monitor or rules.settled(Monitor(), actor.sheet)
    pending = list(monitor.pending)
    for d in old:
        match = next(
            (
                p
                for p in reversed(pending)
                if (p.track, p.boxes, p.location, p.source)
                == (d.track, d.boxes, d.location, d.source[:_SOURCE_LENGTH])
            ),
            None,
        )
        if match is not None:
            pending.remove(match)
        else:
            effects.append(
                f"{d.target}: the {d.boxes} {d.track} boxes of the attack this replaces were "
                "applied or declined already; the GM heals them if the new damage replaces them"
            )
    for d in new:
        last += 1
        pending.append(
            PendingDamage(
                id=f"d{last}",
                track=d.track,
                boxes=d.boxes,
                location=d.location,
                source=d.source[:_SOURCE_LENGTH],
            )
        )
    # The oldest waiting damage gives way past MAX_PENDING.
    pending = pending[-MAX_PENDING:]
    return msgspec.structs.replace(
        actor, monitor=msgspec.structs.replace(monitor, pending=pending)
    ), last


def dealing(
    ruleset: Ruleset,
    masked: Collection[str] = frozenset(),
    earlier: EarlierAttack | None = None,
    then: After | None = None,
) -> After:
    """What a result's damage does to its targets' monitors, after `then`: written on them
    ("service") or put up for confirmation ("confirm"), in the same commit. A target the scene
    does not hold (typed), or a hidden actor a player's request named as one (`masked`), keeps
    nothing. An action that re-resolves `earlier` (SR5 Second Chance, SR4's Edge re-roll)
    replaces its damage (see `_written` and `_pending`)."""

    def after(
        resolution: Resolution[Any], state: EncounterState
    ) -> tuple[Resolution[Any], EncounterState]:
        if then is not None:
            resolution, state = then(resolution, state)
        rules = rules_of(ruleset, state)
        if rules is None:
            return resolution, state
        result = resolution.result
        new = rules.dealt(result)
        replaces = isinstance(result, ActionResult) and result.attack is not None
        old = rules.dealt(earlier.result) if earlier is not None and replaces else []
        targets = [
            t
            for t in dict.fromkeys(d.target for d in [*old, *new])
            if t in state.scene and t not in masked
        ]
        if not targets:
            return resolution, state
        effects: list[str] = []
        last = state.last_pending
        for target in targets:
            actor = state.scene[target]
            mine = [d for d in new if d.target == target]
            before = [d for d in old if d.target == target]
            if state.damage == "confirm":
                actor, last = _pending(actor, rules, mine, before, last, effects)
            else:
                actor = _written(rules, actor, mine, before)
            state = scene.with_actor(state, target, actor)
        state = msgspec.structs.replace(state, last_pending=last)
        if effects and isinstance(result, ActionResult):
            result = msgspec.structs.replace(result, effects=[*result.effects, *effects])
            resolution = msgspec.structs.replace(resolution, result=result)
        return resolution, state

    return after


def described(before: Monitor | None, after: Monitor) -> list[str]:
    """What a change did to a monitor, in words a player reads ("stun 6/10 -> 3/10")."""
    was = before or Monitor()
    status = after.status
    sizes = {
        "physical": status.physical_max if status else None,
        "stun": status.stun_max if status else None,
        "overflow": status.overflow_max if status else None,
    }
    said: list[str] = []
    for track in ("physical", "stun", "overflow"):
        old, new = getattr(was, track), getattr(after, track)
        if old != new:
            size = "" if sizes[track] is None else f"/{sizes[track]}"
            said.append(f"{track} {old}{size} -> {new}{size}")
    if was.wounds != after.wounds:
        wounds = ", ".join(f"{k} {v}" for k, v in sorted(after.wounds.items()))
        said.append(f"wounds: {wounds or 'none'}")
    if status is not None:
        condition = was.status.condition if was.status else "ok"
        if status.condition != condition:
            said.append(status.condition)
        modifier = was.status.wound_modifier if was.status else 0
        if status.wound_modifier != modifier:
            said.append(f"wound modifier {modifier:+d} -> {status.wound_modifier:+d}")
    return said
