"""Hard Life actions, the turn's moments, and the initiative (004 on SR3's engine).

Every action of SR3's tables that Hard Life names (kinds from service/rules/sr3/tables.py);
take_aim builds the aim as SR3's does, any other action ends it. Two are the rolls 004 calls
for, made when they are due and taking no room in the phase: the recovery roll (004, "Resolve
Recovery Roll", Table 5) and the consciousness test at deadly (004, "Death and Injury").
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

import msgspec

from schemas.common import Modifier
from schemas.encounter import ActionResult, AdvanceRequest, CombatState, TurnState
from schemas.sr3hl import (
    HLActionName,
    HLActionRequest,
    HLActorState,
    HLAttackRequest,
    HLConsciousness,
    HLRecovery,
    HLState,
)
from service.rules import initiative
from service.rules.dice import Dice
from service.rules.ruleset import NO_COST, ActionCost, InitiativeRules, Resolution, RuleViolation
from service.rules.sr3 import actions as sr3_actions
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3 import pool
from service.rules.sr3 import tables as sr3_tables
from service.rules.sr3hl import able, condition, suppression, tables

ACTIONS: tuple[str, ...] = get_args(HLActionName)
# The rolls the rules call for take no room in the phase (they are not the actor's choice).
_ROLLS = able.ROLLS
_MAX_CONSCIOUS_PHASES = 10
# The state's bound on the combat turn a test stands for (schemas/sr3hl.py, tested_turn).
_MAX_COMBAT_TURN = 1_000_000


def recovery_step(actor_id: str) -> str:
    return f"recovery:{actor_id}"


def consciousness_step(actor_id: str) -> str:
    return f"consciousness:{actor_id}"


def _state_modifier(combat: Any, actor_id: str) -> int | None:
    """004, "Taking Damage": the initiative loses what the worst primary location or trauma
    monitor adds to target numbers, read off the monitors the combat state keeps."""
    if not isinstance(combat, HLState):
        return None
    actor = combat.actors.get(actor_id)
    if actor is None:
        return None
    return -condition.injury_modifier(actor.monitors)


# SR3's initiative (002), with the wounds from the monitors (Hard Life's sheet has no `wounds`:
# the combat state keeps them).
INITIATIVE: InitiativeRules = dataclasses.replace(
    sr3_tables.INITIATIVE,
    source=sr3_tables.INITIATIVE.source
    + "; 004, Taking Damage (the wound modifier from the monitors)",
    sheet_modifier=lambda sheet: 0,
    state_modifier=_state_modifier,
)


def dice_steps(request: HLActionRequest) -> dict[str, int]:
    if request.action == "recovery_roll":
        return {recovery_step(request.actor): 6}
    if request.action == "consciousness_test":
        return {consciousness_step(request.actor): 6}
    return {}


def _kind(action: str) -> str:
    if action in _ROLLS:
        return "a roll the rules call for (no room in the phase)"
    return sr3_actions.kind_of(action)


def _willpower(request: HLActionRequest) -> int:
    if request.willpower is None:
        raise RuleViolation(
            f"the {request.action.replace('_', ' ')} rolls Willpower: give willpower",
            path="$.willpower",
            kind="willpower-unknown",
        )
    return request.willpower


def _injury(actor: HLActorState) -> Modifier:
    return Modifier(source="injury", value=condition.injury_modifier(actor.monitors))


def _recovery(
    request: HLActionRequest, actor: HLActorState, turn: TurnState, dice: Dice
) -> tuple[HLActorState, TurnState | None, ActionResult]:
    """004, "Resolve Recovery Roll": Willpower against 2 + injury modifiers, Table 5's
    successes for the level; failed again, the next action is lost again."""
    due = actor.recovery
    if due is None:
        raise RuleViolation(
            f"{request.actor} has no recovery roll to make (none failed)",
            path="$.action",
            kind="no-recovery-due",
            status=409,
        )
    willpower = _willpower(request)
    modifiers = [Modifier(source="recovery roll", value=tables.RECOVERY_TARGET_NUMBER)]
    injury = _injury(actor)
    if injury.value:
        modifiers.append(injury)
    test = sr3_attack.test(dice, recovery_step(request.actor), willpower, 0, modifiers)
    needed = tables.RECOVERY_NEEDED[due.level]
    passed = test.successes >= needed
    effects = [
        f"recovery roll against {due.level}: {test.successes} of {needed} successes needed "
        f"(target number {test.target_number})"
    ]
    turn_after = None
    if passed:
        effects.append(f"{request.actor} recovers: it acts again")
        actor = msgspec.structs.replace(actor, recovery=None)
    else:
        actor, turn_after, said = able.lose_next_action(request.actor, actor, turn, INITIATIVE)
        effects.append(said + "; it rolls again")
    recovery = HLRecovery(level=due.level, needed=needed, test=test, passed=passed)
    result = ActionResult(
        actor=request.actor, action=request.action, effects=effects, recovery=recovery
    )
    return actor, turn_after, result


def _consciousness(
    request: HLActionRequest, actor: HLActorState, turn: TurnState, dice: Dice
) -> tuple[HLActorState, ActionResult]:
    """004, "Death and Injury": Willpower against 3 + injury modifiers; 0 successes:
    unconscious; 1: conscious, free actions only; k: acts normally in k - 1 phases of this
    combat turn (at most those it has left), or of the next when it has none left."""
    if not actor.consciousness_due:
        raise RuleViolation(
            f"{request.actor} has no consciousness test to make (not at deadly, or its test "
            "for this combat turn stands)",
            path="$.action",
            kind="no-consciousness-test-due",
            status=409,
        )
    willpower = _willpower(request)
    modifiers = [Modifier(source="consciousness test", value=tables.CONSCIOUSNESS_TARGET_NUMBER)]
    injury = _injury(actor)
    if injury.value:
        modifiers.append(injury)
    test = sr3_attack.test(dice, consciousness_step(request.actor), willpower, 0, modifiers)
    for_turn = turn.combat_turn
    effects = [
        f"consciousness test: {test.successes} successes (target number {test.target_number})"
    ]
    if test.successes == 0:
        effects.append(f"{request.actor} falls unconscious")
        after = msgspec.structs.replace(
            actor,
            consciousness_due=False,
            unconscious=True,
            conscious_phases=None,
            phase_granted=None,
            tested_turn=None,
        )
        result = HLConsciousness(test=test, conscious=False, phases=0, for_turn=for_turn)
        return after, ActionResult(
            actor=request.actor, action=request.action, effects=effects, consciousness=result
        )
    phases = min(test.successes - 1, _MAX_CONSCIOUS_PHASES)
    left = initiative.phases_left(turn, INITIATIVE, request.actor)
    granted: int | None = None
    if left == 0:
        # 004: "If the character has taken their last action that round already then treat
        # this roll as the roll for the next round."
        for_turn = min(turn.combat_turn + 1, _MAX_COMBAT_TURN)
        effects.append(
            f"{request.actor} has no phase left this combat turn: the test stands "
            f"for combat turn {for_turn}"
        )
    else:
        if left is not None:
            phases = min(phases, left)
        own = turn.action_phase == request.actor and not able.phase_lost(request.actor, actor, turn)
        if own and phases:
            # Made in its own phase: that phase is the first it acts in.
            granted = turn.phase
            phases -= 1
    if test.successes == 1:
        effects.append(f"{request.actor} stays conscious: free actions only")
    else:
        acts = phases + (1 if granted is not None else 0)
        effects.append(
            f"{request.actor} stays conscious: acts normally in {acts} more action "
            f"phase{'' if acts == 1 else 's'}"
        )
    after = msgspec.structs.replace(
        actor,
        consciousness_due=False,
        conscious_phases=phases,
        phase_granted=granted,
        tested_turn=for_turn,
    )
    result = HLConsciousness(
        test=test,
        conscious=True,
        phases=phases + (1 if granted is not None else 0),
        for_turn=for_turn,
    )
    return after, ActionResult(
        actor=request.actor, action=request.action, effects=effects, consciousness=result
    )


def resolve_action(
    request: HLActionRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[ActionResult]:
    actor = state.actors.get(request.actor, HLActorState())
    able.check_able(request.actor, actor, turn, request.action, "$.actor")
    if request.willpower is not None and request.action not in _ROLLS:
        raise RuleViolation(
            f"'willpower' does not go with the action '{request.action}'", path="$.willpower"
        )
    turn_after: TurnState | None = None
    if request.action == "recovery_roll":
        after, turn_after, result = _recovery(request, actor, turn, dice)
    elif request.action == "consciousness_test":
        after, result = _consciousness(request, actor, turn, dice)
    else:
        after, effects = sr3_actions.aimed(actor, request.action)
        effects = [f"{request.action.replace('_', ' ')}: {_kind(request.action)}", *effects]
        result = ActionResult(actor=request.actor, action=request.action, effects=effects)
    if dice.rolls:
        result = msgspec.structs.replace(result, dice=dice.rolls, seed=dice.seed)
    if after is not actor:
        state = msgspec.structs.replace(state, actors={**state.actors, request.actor: after})
    return Resolution(result=result, state=state, actor=request.actor, turn=turn_after)


def _phase_begins(
    actor_id: str, actor: HLActorState, turn: TurnState, effects: list[str]
) -> HLActorState:
    """The actor's own action phase begins: a lost one is marked (check_able refuses actions in
    it); else a standing consciousness test counts it down."""
    if actor.actions_lost:
        effects.append(f"{actor_id} loses this action phase (recovery roll failed)")
        return msgspec.structs.replace(
            actor, actions_lost=actor.actions_lost - 1, phase_lost=turn.phase
        )
    if actor.conscious_phases is None or actor.consciousness_due or actor.unconscious:
        return actor
    if actor.conscious_phases == 0:
        effects.append(f"{actor_id}: free actions only in this phase (consciousness test)")
        return actor
    left = actor.conscious_phases - 1
    effects.append(
        f"{actor_id} acts normally in this phase (consciousness test; {left} more after it)"
    )
    return msgspec.structs.replace(actor, conscious_phases=left, phase_granted=turn.phase)


def _combat_turn(
    actor_id: str, actor: HLActorState, turn: TurnState, effects: list[str]
) -> HLActorState:
    """A new combat turn: every pool refreshes (SR3 p. 103; the Dodge Pool "acts like other
    pools", 004); at deadly the consciousness test is due again (004: "At the end of each turn
    this test is repeated"), unless the last one was made for this turn."""
    refreshed = pool.refreshed(actor)
    if refreshed is not actor:
        effects.append(
            f"{actor_id}: Combat Pool refreshed to {refreshed.pool_left} ({actor.pool_left} "
            "were left)"
        )
        actor = refreshed
    changes: dict[str, Any] = {}
    if actor.dodge_pool is not None and actor.dodge_left != actor.dodge_pool:
        effects.append(
            f"{actor_id}: Dodge Pool refreshed to {actor.dodge_pool} ({actor.dodge_left} were left)"
        )
        changes["dodge_left"] = actor.dodge_pool
    down = actor.condition.dead or actor.unconscious
    if actor.condition.deadly and not down:
        if actor.tested_turn != turn.combat_turn and not actor.consciousness_due:
            effects.append(f"{actor_id} is at deadly: the consciousness test is due again")
            changes.update(
                consciousness_due=True, conscious_phases=None, phase_granted=None, tested_turn=None
            )
    elif actor.conscious_phases is not None or actor.tested_turn is not None:
        changes.update(conscious_phases=None, phase_granted=None, tested_turn=None)
    return msgspec.structs.replace(actor, **changes) if changes else actor


def on_advance(
    request: AdvanceRequest, state: HLState, turn: TurnState
) -> tuple[CombatState, list[str]]:
    """SR3's moments (recoil and targets count per phase; pools refresh each combat turn) and
    Hard Life's: the shooter's suppression fire ends when its next phase begins (004), a lost
    phase is taken when it comes, a standing consciousness test counts the actor's phases down
    and is due again at each new combat turn."""
    effects: list[str] = []
    if request.to == "action_phase" and request.actor is not None:
        ended = suppression.end_zones_of(state, request.actor)
        if ended is not state:
            effects.append(
                f"{request.actor}'s suppression fire ends (its next combat phase begins)"
            )
            state = ended
    actors = dict(state.actors)
    changed = False
    for actor_id, actor in state.actors.items():
        after = actor
        if request.to != "action_phase" or request.actor == actor_id:
            after = sr3_actions.phase_over(after)
            if after is not actor:
                effects.append(f"{actor_id}: recoil and targets count afresh in a new phase")
        if request.to == "action_phase" and request.actor == actor_id:
            after = _phase_begins(actor_id, after, turn, effects)
        if request.to == "combat_turn":
            after = _combat_turn(actor_id, after, turn, effects)
        if after is not actor:
            actors[actor_id] = after
            changed = True
    if changed:
        state = msgspec.structs.replace(state, actors=actors)
    return state, effects


def action_cost(request: Any, result: Any) -> ActionCost:
    """An attack takes its firing mode's action (the result's); an action its kind in SR3's
    tables ("other": a simple one); the two rolls and zone tests take no room in the phase."""
    if isinstance(request, HLAttackRequest):
        return ActionCost(kind=result.action)
    if isinstance(request, HLActionRequest):
        if request.action in _ROLLS:
            return NO_COST
        return ActionCost(
            kind=sr3_tables.ACTION_KINDS.get(request.action, sr3_tables.OTHER_ACTION_KIND)
        )
    return NO_COST
