"""What a resolution does beyond the combat state, as the use cases in `encounters` commit it:
to the scene (the rounds a gun holds, the Edge each actor spent) and to the turn (the room an
action takes in a phase, what the moments the turn moved through set off)."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

import msgspec

from schemas.common import on_plane
from schemas.encounter import ActionResult, AdvanceRequest, EncounterState
from schemas.initiative import InitiativeChange, InitiativeResult, TimedResult
from service.engine import damage, players, scene
from service.rules import Resolution, Ruleset, initiative
from service.rules.dice import Dice, check_given
from service.rules.scene import with_ammo

# What a resolution does beyond the combat state: to the scene, to the turn.
After = Callable[[Resolution[Any], EncounterState], tuple[Resolution[Any], EncounterState]]


def fired(ruleset: Ruleset, request: Any) -> After:
    """What an attack or an action does to the scene: the actor's guns hold the rounds left
    (fired, or loaded), and a target knocked back stands that far further from the actor."""
    actor_id, _ = players.acting_actor(request)

    def after(
        resolution: Resolution[Any], state: EncounterState
    ) -> tuple[Resolution[Any], EncounterState]:
        actor = state.scene.get(actor_id)
        left = ruleset.ammo_left(request, resolution.result)
        if actor is not None and left:
            state = scene.with_actor(state, actor_id, with_ammo(actor, left))
        for target_id, metres in ruleset.knocked_back(resolution.result).items():
            state = knocked_back(state, actor_id, target_id, metres)
        return resolution, state

    return after


def knocked_back(
    state: EncounterState, actor_id: str, target_id: str, metres: int
) -> EncounterState:
    """The target moved `metres` straight away from the actor, when both stand on the scene's
    map (an actor typed in, or on the same spot, gives no direction: it stays)."""
    actor, target = state.scene.get(actor_id), state.scene.get(target_id)
    if actor is None or target is None or actor.position is None or target.position is None:
        return state
    dx, dy = target.position.x - actor.position.x, target.position.y - actor.position.y
    far = math.hypot(dx, dy)
    if far == 0:
        return state
    to = on_plane(
        round(target.position.x + dx / far * metres, 2),
        round(target.position.y + dy / far * metres, 2),
    )
    return scene.with_actor(state, target_id, msgspec.structs.replace(target, position=to))


def edged(ruleset: Ruleset, request: Any, masked: Collection[str], then: After | None) -> After:
    """What an attack, action or zone test does to the Edge its actors spent: each actor on the
    scene it names adds its points (one the scene does not hold, or a hidden one the request
    named as such, keeps nothing)."""

    def after(
        resolution: Resolution[Any], state: EncounterState
    ) -> tuple[Resolution[Any], EncounterState]:
        if then is not None:
            resolution, state = then(resolution, state)
        for actor_id, points in ruleset.edge_spent(request, resolution.result).items():
            actor = state.scene.get(actor_id)
            if actor is None or actor_id in masked:
                continue
            actor = scene.with_edge_spent(actor, scene.edge_spent(actor) + points)
            state = scene.with_actor(state, actor_id, actor)
        return resolution, state

    return after


def crossed(
    ruleset: Ruleset, state: EncounterState, crossings: list[AdvanceRequest]
) -> tuple[EncounterState, list[str], list[TimedResult]]:
    """What the moments the turn moved through (a new phase, pass or combat turn) do to the
    combat state, in order, as the ruleset says, and what they set off (SR4's timed grenades,
    with the scene as it stands now)."""
    combat, effects, went_off = state.combat, [], []
    for crossing in crossings:
        combat, more = ruleset.on_advance(crossing, combat, state.turn)
        effects.extend(more)
        combat, results, said = ruleset.went_off(crossing, combat, state.turn, state.scene)
        went_off.extend(results)
        effects.extend(said)
    return msgspec.structs.replace(state, combat=combat), effects, went_off


def with_effects(
    resolution: Resolution[Any], effects: list[str], went_off: list[TimedResult]
) -> Resolution[Any]:
    """An action's result tells what it did to the initiative too, and what that set off
    (attacks and zone tests show it in the turn their answer changes)."""
    result = resolution.result
    if not (effects or went_off) or not isinstance(result, ActionResult):
        return resolution
    result = msgspec.structs.replace(
        result, effects=[*result.effects, *effects], went_off=[*result.went_off, *went_off]
    )
    return msgspec.structs.replace(resolution, result=result)


def spent(ruleset: Ruleset, request: Any, what: str, then: After | None = None) -> After:
    """What an attack, action or zone test takes of the initiative the service runs: room in
    the actor's phase, an interrupt's points, or (the ruleset's hold action) the whole phase
    held for later in the pass. Nothing while the VTT runs its own initiative."""
    actor_id, path = players.acting_actor(request)
    rules = ruleset.initiative

    def after(
        resolution: Resolution[Any], state: EncounterState
    ) -> tuple[Resolution[Any], EncounterState]:
        if then is not None:
            resolution, state = then(resolution, state)
        if rules is None or state.turn.initiative is None:
            return resolution, state
        name = getattr(request, "action", None)
        crossings: list[AdvanceRequest] = []
        if name is not None and name == rules.hold_action:
            out = damage.out_of_fight(ruleset, state)
            turn, crossings, effects = initiative.hold(state.turn, rules, actor_id, path, out)
        else:
            cost = ruleset.action_cost(request, resolution.result)
            turn, effects = initiative.spend(state.turn, rules, actor_id, cost, what, path)
        state, more, went_off = crossed(
            ruleset, msgspec.structs.replace(state, turn=turn), crossings
        )
        return with_effects(resolution, effects + more, went_off), state

    return after


def check_initiative_dice(given: Mapping[str, Any], actors: list[str]) -> None:
    check_given(given, dict.fromkeys((initiative.step(a) for a in actors), 6))


def initiative_resolution(
    change: InitiativeChange,
    actors: list[str],
    state: EncounterState,
    effects: list[str],
    dice: Dice | None = None,
    went_off: list[TimedResult] | None = None,
) -> Resolution[InitiativeResult]:
    running = state.turn.initiative
    result = InitiativeResult(
        change=change,
        actors=actors,
        combat_turn=state.turn.combat_turn,
        initiative_pass=state.turn.initiative_pass,
        entries=running.entries if running is not None else [],
        current=running.current if running is not None else None,
        effects=effects,
        dice=dice.rolls if dice is not None else [],
        seed=dice.seed if dice is not None and dice.rolls else None,
        went_off=went_off or [],
    )
    return Resolution(result=result, state=state.combat, turn=state.turn)
