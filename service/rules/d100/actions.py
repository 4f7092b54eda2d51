"""d100 actions other than attacks: reloading, moving, others; and what a new turn resets.

rules-sources/003_e47222605a1f2969.txt, "Reloading" and "Suppressive Fire" (what ends a zone);
action points per turn are the product's bookkeeping (docs/rulesets/d100.md).
"""

from __future__ import annotations

import msgspec

from schemas.d100 import D100ActionRequest, D100ActorState, D100State
from schemas.encounter import ActionResult, AdvanceRequest, TurnState
from service.rules.d100 import core, tables
from service.rules.ruleset import Resolution, RuleViolation

ACTIONS = ("reload", "move", "other", "free_action")

# Which request fields each action reads; any other given is refused, never ignored.
_FIELDS = {
    "reload": {"weapon", "agility"},
    "move": {"action_points", "position", "in_cover", "prone"},
    "other": {"action_points"},
    "free_action": set(),
}
_OPTIONAL = ("action_points", "weapon", "agility", "position", "in_cover", "prone")


def _check_fields(request: D100ActionRequest) -> None:
    given = {name for name in _OPTIONAL if getattr(request, name) not in (None, False)}
    extra = given - _FIELDS[request.action]
    if extra:
        name = sorted(extra)[0]
        raise RuleViolation(
            f"'{name}' does not go with the action '{request.action}'", path=f"$.{name}"
        )


def _reload(request: D100ActionRequest, effects: list[str]) -> tuple[int, int, int]:
    """ "Reloading": the action points, the rounds loaded and the rounds held after."""
    weapon = request.weapon
    if weapon is None:
        raise RuleViolation("a reload needs the weapon: give 'weapon'", path="$.weapon")
    if weapon.loaded > weapon.capacity:
        raise RuleViolation(
            f"'{weapon.id}' holds {weapon.capacity} at most", path="$.weapon.loaded"
        )
    method = tables.RELOADS[weapon.method]
    # A new magazine, belt or cell replaces the old; loose rounds and speedloaders fill up.
    room = weapon.capacity if method.replaces else weapon.capacity - weapon.loaded
    rounds = weapon.rounds if weapon.rounds is not None else room
    if rounds > room or rounds == 0:
        raise RuleViolation(
            f"'{weapon.id}' holds {weapon.capacity} and has {weapon.loaded}: "
            + (f"it takes at most {room}" if room else "it is full"),
            path="$.weapon.rounds",
            kind="over-capacity",
        )
    action_points = method.action_points
    if method.per_batch:
        if request.agility is None:
            raise RuleViolation(
                "loose rounds load in batches of Agility / 5: give 'agility'", path="$.agility"
            )
        batch = -(-request.agility // tables.AGILITY_PER_BATCH_ROUND)
        batches = -(-rounds // batch)
        action_points = batches * method.action_points
        effects.append(
            f"{rounds} rounds in {batches} batch{'' if batches == 1 else 'es'} of {batch}"
        )
    elif request.agility is not None:
        raise RuleViolation(
            f"'{weapon.method}' does not load in batches: leave 'agility' out", path="$.agility"
        )
    held = rounds if method.replaces else weapon.loaded + rounds
    effects.append(f"{weapon.id} reloaded ({weapon.method}): {held} of {weapon.capacity}")
    return action_points, rounds, held


def _zones_at_new_position(
    request: D100ActionRequest, state: D100State, effects: list[str]
) -> None:
    here = core.zones_at(state, request.position)
    worst = core.strongest(here)
    if worst is None:
        return
    effects.append(
        f"in {worst.zone.id}: {worst.zone.penalty} to all tests"
        + ("" if request.in_cover or request.prone else "; must avoid the fire (zone test)")
    )


def resolve_action(request: D100ActionRequest, state: D100State) -> Resolution[ActionResult]:
    _check_fields(request)
    effects: list[str] = []
    rounds_loaded = ammo_left = None
    if request.action == "reload":
        action_points, rounds_loaded, ammo_left = _reload(request, effects)
    elif request.action == "free_action":
        action_points = 0
    elif request.action_points is None:
        raise RuleViolation(
            f"say what the {request.action} costs: give 'action_points'", path="$.action_points"
        )
    else:
        action_points = request.action_points
    path = "$.weapon" if request.action == "reload" else "$.action_points"
    state = core.spend(state, request.actor, action_points, path)
    # "Suppressive Fire": moving or anything beyond a free action ends the actor's zones.
    if request.action == "move" or action_points > 0:
        ended = sorted(z for z, live in state.zones.items() if live.zone.shooter == request.actor)
        state = core.end_zones_of(state, request.actor)
        if ended:
            effects.append(f"suppression ends: {', '.join(ended)}")
    if request.action == "move":
        _zones_at_new_position(request, state, effects)
    spent = state.actors[request.actor].action_points_spent
    effects.append(f"{action_points} action points ({spent} this turn)")
    return Resolution(
        result=ActionResult(
            actor=request.actor,
            action=request.action,
            effects=effects,
            action_points=action_points,
            action_points_spent=spent,
            rounds_loaded=rounds_loaded,
            ammo_left=ammo_left,
        ),
        state=state,
        actor=request.actor,
    )


def _reset(state: D100State, actor_ids: list[str], effects: list[str]) -> D100State:
    actors = dict(state.actors)
    for actor_id in actor_ids:
        actor = actors.get(actor_id)
        if actor is not None and actor.action_points_spent:
            actors[actor_id] = D100ActorState()
    ended = sorted(z for z, live in state.zones.items() if live.zone.shooter in actor_ids)
    for actor_id in actor_ids:
        state = core.end_zones_of(state, actor_id)
    if ended:
        effects.append(f"suppression ends: {', '.join(ended)}")
    return msgspec.structs.replace(state, actors=actors)


def on_advance(
    request: AdvanceRequest, state: D100State, turn: TurnState
) -> tuple[D100State, list[str]]:
    """An actor's turn starts afresh: its action points, and its suppression ends. A VTT that
    does not advance turns actor by actor (phase 0) starts everyone's afresh each combat turn."""
    effects: list[str] = []
    if request.to == "action_phase" and request.actor is not None:
        who = [request.actor]
    elif request.to == "combat_turn" and turn.phase == 0:
        who = sorted({*state.actors, *(z.zone.shooter for z in state.zones.values())})
    else:
        return state, []
    spent = [a for a in who if a in state.actors and state.actors[a].action_points_spent]
    if spent:
        effects.append(f"action points start afresh: {', '.join(spent)}")
    return _reset(state, who, effects), effects
