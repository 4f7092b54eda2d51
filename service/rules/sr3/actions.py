"""Shadowrun 3 actions that are not attacks, and what a new phase, pass or turn changes.

Every action of 002's three tables is accepted, with its kind (tables.ACTION_KINDS). Those that
change ranged-combat state: take_aim builds the aim (-1 a simple action, at most half the skill,
counted when the shot is fired); any other action ends it. The rest say they change nothing.
"""

from __future__ import annotations

import msgspec

from schemas.encounter import ActionResult, AdvanceRequest
from schemas.sr3 import SR3ActionRequest, SR3ActorState, SR3State
from service.rules.sr3 import pool, tables

ACTIONS = ("other", *tables.ACTION_KINDS)


def _kind(action: str) -> str:
    kind = tables.ACTION_KINDS.get(action)
    return f"{kind} action" if kind is not None else "an action the tables do not name"


def resolve_action(request: SR3ActionRequest, state: SR3State) -> tuple[ActionResult, SR3State]:
    actor = state.actors.get(request.actor, SR3ActorState())
    effects = [f"{request.action.replace('_', ' ')}: {_kind(request.action)}"]
    if request.action == "take_aim":
        aims = min(actor.aims + 1, tables.MAX_AIMS)
        effects.append(
            f"aiming: {aims} simple action{'' if aims == 1 else 's'} so far (-1 each to the "
            "next shot's target number, at most half the skill)"
        )
        after = msgspec.structs.replace(actor, aims=aims)
    elif actor.aims:
        effects.append(f"aim lost ({actor.aims} simple actions of aiming)")
        after = msgspec.structs.replace(actor, aims=0)
    else:
        effects.append("changes no ranged-combat state")
        after = actor
    if after is actor:
        return ActionResult(actor=request.actor, action=request.action, effects=effects), state
    actors = dict(state.actors)
    actors[request.actor] = after
    result = ActionResult(actor=request.actor, action=request.action, effects=effects)
    return result, SR3State(actors=actors)


def _phase_over(actor: SR3ActorState) -> SR3ActorState:
    if not actor.rounds_in_phase and not actor.targets_in_phase:
        return actor
    return msgspec.structs.replace(actor, rounds_in_phase=0, targets_in_phase=[])


def on_advance(request: AdvanceRequest, state: SR3State) -> tuple[SR3State, list[str]]:
    """A new action phase of an actor starts its recoil and targets again (they count per
    phase); a new pass or turn does so for everyone; a new combat turn refreshes every Combat
    Pool (SR3 crib sheet, SR3 p. 103: "All Dice Pools refresh")."""
    actors = dict(state.actors)
    effects: list[str] = []
    for actor_id, actor in state.actors.items():
        after = actor
        if request.to != "action_phase" or request.actor == actor_id:
            after = _phase_over(after)
            if after is not actor:
                effects.append(f"{actor_id}: recoil and targets count afresh in a new phase")
        if request.to == "combat_turn":
            refreshed = pool.refreshed(after)
            if refreshed is not after:
                effects.append(
                    f"{actor_id}: Combat Pool refreshed to {refreshed.pool_left} "
                    f"({after.pool_left} were left)"
                )
            after = refreshed
        actors[actor_id] = after
    if not effects:
        return state, []
    return SR3State(actors=actors), effects
