"""Shadowrun 3 actions that are not attacks, and what a new phase, pass or turn changes.

Every action of 002's three tables is accepted, with its kind (tables.ACTION_KINDS). Those that
change ranged-combat state: take_aim builds the aim (-1 a simple action, at most half the skill,
counted when the shot is fired); any other action ends it. The rest say they change nothing.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from schemas.encounter import ActionResult, AdvanceRequest
from schemas.sr3 import SR3ActionRequest, SR3ActorState, SR3State
from schemas.sr3hl import HLActorState
from service.rules.sr3 import pool, tables

ACTIONS = ("other", *tables.ACTION_KINDS)


# The states whose aim and recoil these functions keep (SR3's, and those of the rulesets built
# on SR3; msgspec's replace keeps the type).
K = TypeVar("K", SR3ActorState, HLActorState)


def kind_of(action: str) -> str:
    kind = tables.ACTION_KINDS.get(action)
    return f"{kind} action" if kind is not None else "an action the tables do not name"


def aimed(actor: K, action: str) -> tuple[K, list[str]]:
    """What an action does to the aim: take_aim builds it (at most MAX_AIMS counted), any other
    action ends it."""
    if action == "take_aim":
        aims = min(actor.aims + 1, tables.MAX_AIMS)
        effect = (
            f"aiming: {aims} simple action{'' if aims == 1 else 's'} so far (-1 each to the "
            "next shot's target number, at most half the skill)"
        )
        return msgspec.structs.replace(actor, aims=aims), [effect]
    if actor.aims:
        effect = f"aim lost ({actor.aims} simple actions of aiming)"
        return msgspec.structs.replace(actor, aims=0), [effect]
    return actor, ["changes no ranged-combat state"]


def resolve_action(request: SR3ActionRequest, state: SR3State) -> tuple[ActionResult, SR3State]:
    actor = state.actors.get(request.actor, SR3ActorState())
    after, effects = aimed(actor, request.action)
    effects = [f"{request.action.replace('_', ' ')}: {kind_of(request.action)}", *effects]
    result = ActionResult(actor=request.actor, action=request.action, effects=effects)
    if after is actor:
        return result, state
    actors = dict(state.actors)
    actors[request.actor] = after
    return result, SR3State(actors=actors)


def phase_over(actor: K) -> K:
    """Recoil and targets count per action phase: a new one starts them again."""
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
            after = phase_over(after)
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
