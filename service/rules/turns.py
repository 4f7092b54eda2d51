"""Combat turns, initiative passes and action phases, shared by every ruleset."""

from __future__ import annotations

from schemas.encounter import AdvanceRequest, TurnState
from service.rules.ruleset import RuleViolation


def advance_turn(turn: TurnState, request: AdvanceRequest) -> TurnState:
    """Where the encounter stands after `request`: a new turn restarts the passes."""
    if request.to == "combat_turn":
        return TurnState(
            combat_turn=turn.combat_turn + 1, initiative_pass=1, action_phase=None, phase=turn.phase
        )
    if request.to == "initiative_pass":
        return TurnState(
            combat_turn=turn.combat_turn,
            initiative_pass=turn.initiative_pass + 1,
            action_phase=None,
            phase=turn.phase,
        )
    if request.actor is None:
        raise RuleViolation("an action phase belongs to an actor: give 'actor'", path="$.actor")
    return TurnState(
        combat_turn=turn.combat_turn,
        initiative_pass=turn.initiative_pass,
        action_phase=request.actor,
        phase=turn.phase + 1,
    )
