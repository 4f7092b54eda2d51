"""The `sr5` ruleset: Shadowrun 5 ranged combat (rules-sources/000_43afc0edeb7f6e19.txt)."""

from __future__ import annotations

import msgspec

from schemas.encounter import (
    ActionRequest,
    ActionResult,
    AdvanceRequest,
    CombatState,
    RulesetInfo,
    TurnState,
)
from schemas.sr5 import SR5ActorState, SR5AttackRequest, SR5AttackResult, SR5State
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr5 import attack, tables

# Actions this ruleset resolves; the guide: any action other than firing resets recoil.
ACTIONS = ("other",)


class SR5Ruleset:
    info = RulesetInfo(
        id="sr5",
        title="Shadowrun 5th edition",
        source="000_43afc0edeb7f6e19.txt",
        dice="d6_pool",
        firing_modes=list(tables.FIRING_MODES),
        actions=list(ACTIONS),
        zone_shapes=[],
        dice_steps=[
            "attack",
            "attack:<target id>",
            "defense:<target id>",
            "soak:<target id>",
        ],
    )
    attack_type = SR5AttackRequest

    def new_state(self) -> CombatState:
        return SR5State()

    def dice_steps(self, request: SR5AttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: SR5AttackRequest, state: CombatState, turn: TurnState, dice: Dice
    ) -> Resolution[SR5AttackResult]:
        del turn  # one-attack-per-phase enforcement reads it (issue: the whole guide)
        return attack.resolve_attack(request, state, dice)

    def resolve_action(
        self, request: ActionRequest, state: CombatState, turn: TurnState
    ) -> Resolution[ActionResult]:
        del turn
        if request.action not in ACTIONS:
            raise RuleViolation(
                f"sr5 does not resolve '{request.action}' yet; it resolves: {', '.join(ACTIONS)}",
                path="$.action",
                kind="action-not-supported",
            )
        actor = state.actors.get(request.actor, SR5ActorState())
        effects = []
        if actor.recoil_rounds:
            rounds = actor.recoil_rounds
            effects.append(
                f"recoil reset ({rounds} round{'' if rounds == 1 else 's'} since the last reset)"
            )
        actors = dict(state.actors)
        actors[request.actor] = msgspec.structs.replace(
            actor, recoil_rounds=0, recoil_compensation=0
        )
        return Resolution(
            result=ActionResult(actor=request.actor, action=request.action, effects=effects),
            state=SR5State(actors=actors),
            actor=request.actor,
        )

    def on_advance(
        self, request: AdvanceRequest, state: CombatState, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        # Recoil persists across phases and turns (the guide, "Recoil is progressive"); the
        # defenses an actor made count against it until its own action phase begins.
        del turn
        actor = state.actors.get(request.actor or "")
        if request.to != "action_phase" or actor is None or actor.defenses == 0:
            return state, []
        actors = dict(state.actors)
        actors[request.actor or ""] = msgspec.structs.replace(actor, defenses=0)
        effects = [f"{request.actor}: earlier defenses no longer count ({actor.defenses})"]
        return SR5State(actors=actors), effects
