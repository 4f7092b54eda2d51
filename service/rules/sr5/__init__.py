"""The `sr5` ruleset: Shadowrun 5 ranged combat (rules-sources/000_43afc0edeb7f6e19.txt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.common import Zone
from schemas.encounter import ActionResult, AdvanceRequest, CombatState, RulesetInfo, TurnState
from schemas.scene import SceneActor
from schemas.sr5 import (
    SR5ActionRequest,
    SR5AttackAsk,
    SR5AttackRequest,
    SR5AttackResult,
    SR5Sheet,
    SR5State,
    SR5ZoneTestAsk,
    SR5ZoneTestRequest,
    SR5ZoneTestResult,
)
from service.rules.dice import Dice
from service.rules.monitor import MonitorRules
from service.rules.ruleset import (
    NO_COST,
    ActionCost,
    EarlierAttack,
    NothingTimed,
    OddsFromModule,
    Resolution,
)
from service.rules.sr5 import actions, attack, odds, suppression, tables
from service.rules.sr5 import scene as scene_fill
from service.rules.sr5.monitor import SR5Monitor


class SR5Ruleset(NothingTimed, OddsFromModule):
    monitor: MonitorRules | None = SR5Monitor()
    odds_module = odds  # attack_odds, zone_test_odds
    info = RulesetInfo(
        id="sr5",
        title="Shadowrun 5th edition",
        source="000_43afc0edeb7f6e19.txt",
        dice="d6_pool",
        firing_modes=list(tables.FIRING_MODES),
        actions=list(actions.ACTIONS),
        zone_shapes=["triangle"],
        dice_steps=[
            "attack",
            "attack:<target id>",
            "defense:<target id>",
            "soak:<target id>",
            "second_chance:<target id>",
            "suppression",
            "zone_test:<actor id>",
            "soak:<actor id>",
        ],
    )
    body_map = None
    attack_type = SR5AttackRequest
    attack_ask_type = SR5AttackAsk

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> SR5AttackRequest:
        return scene_fill.fill_attack(asked, scene)

    zone_test_ask_type = SR5ZoneTestAsk

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> SR5ZoneTestRequest:
        del zone_id, combat
        return scene_fill.fill_zone_test(asked, scene)

    def ammo_left(self, request: Any, result: Any) -> dict[str, int]:
        return scene_fill.ammo_left(request, result)

    def knocked_back(self, result: Any) -> dict[str, int]:
        del result
        return {}  # no knock-back in these rules

    def edge_spent(self, request: Any, result: Any) -> dict[str, int]:
        del request
        return scene_fill.edge_spent(result)

    action_type = SR5ActionRequest
    # The shooter's rolls: its attack tests (one per target of a split pool), their Second Chance
    # and the suppression test.
    attacker_steps = frozenset({"attack", "second_chance", "suppression"})
    sheet_type = SR5Sheet

    def fill_action(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        del scene
        return asked

    def settled(self, state: Any) -> CombatState:
        return state  # type: ignore[no-any-return]

    def new_state(self) -> CombatState:
        return SR5State()

    def dice_steps(self, request: SR5AttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: SR5AttackRequest, state: SR5State, turn: TurnState, dice: Dice
    ) -> Resolution[SR5AttackResult]:
        return attack.resolve_attack(request, state, turn, dice)

    def zones(self, state: SR5State) -> list[Zone]:
        return [live.zone for live in state.zones.values()]

    zone_test_type = SR5ZoneTestRequest

    def zone_test_dice_steps(self, request: SR5ZoneTestRequest) -> dict[str, int]:
        return suppression.zone_test_steps(request)

    def resolve_zone_test(
        self,
        zone_id: str,
        request: SR5ZoneTestRequest,
        state: SR5State,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[SR5ZoneTestResult]:
        result, after = suppression.zone_test(zone_id, request, state, turn, dice)
        return Resolution(result=result, state=after, actor=request.actor)

    def action_dice_steps(self, request: SR5ActionRequest) -> dict[str, int]:
        return actions.dice_steps(request)

    def follows_up(self, request: SR5ActionRequest) -> str | None:
        return request.actor if request.action == "second_chance" else None

    def resolve_action(
        self,
        request: SR5ActionRequest,
        state: SR5State,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]:
        del turn
        return actions.resolve_action(request, state, dice, earlier)

    def on_advance(
        self, request: AdvanceRequest, state: SR5State, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        del turn
        return actions.on_advance(request, state)

    initiative = tables.INITIATIVE

    def action_cost(self, request: Any, result: Any) -> ActionCost:
        if isinstance(request, SR5AttackRequest):
            return ActionCost(kind=result.action)
        if isinstance(request, SR5ActionRequest):
            if request.action == "full_defense":
                return ActionCost(interrupt=-tables.FULL_DEFENSE_INITIATIVE)
            return ActionCost(kind=tables.ACTION_KINDS[request.action])
        if isinstance(request, SR5ZoneTestRequest) and request.avoid == "hit_the_dirt":
            return ActionCost(interrupt=-tables.HIT_THE_DIRT_INITIATIVE)
        return NO_COST
