"""The `d100` ruleset: the Shot Rate firearms chapter (rules-sources/003_e47222605a1f2969.txt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.common import Zone
from schemas.d100 import (
    D100ActionRequest,
    D100AttackAsk,
    D100AttackRequest,
    D100AttackResult,
    D100Sheet,
    D100State,
    D100ZoneTestAsk,
    D100ZoneTestRequest,
    D100ZoneTestResult,
)
from schemas.encounter import ActionResult, AdvanceRequest, CombatState, RulesetInfo, TurnState
from schemas.scene import SceneActor
from service.rules.d100 import actions, attack, odds, suppression
from service.rules.d100 import scene as scene_fill
from service.rules.d100.monitor import D100Monitor
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


class D100Ruleset(NothingTimed, OddsFromModule):
    monitor: MonitorRules | None = D100Monitor()
    odds_module = odds  # attack_odds, zone_test_odds
    info = RulesetInfo(
        id="d100",
        title="d100 cyberpunk firearms (Shot Rate)",
        source="003_e47222605a1f2969.txt",
        dice="d100",
        firing_modes=[
            "SR0",
            "SR1",
            "SR2",
            "SR3",
            "SR4",
            "SR5",
            "SR6",
            "both_barrels",
            "suppressive",
        ],
        actions=list(actions.ACTIONS),
        zone_shapes=["circle"],
        dice_steps=[
            "attack",
            "attack:<target id>",
            "defense:<target id>",
            "bonus:<target id>",
            "passive_defense:<target id>",
            "location:<target id>",
            "suppression",
            "zone_test:<actor id>",
            "bonus:<actor id>",
            "passive_defense:<actor id>",
            "location:<actor id>",
        ],
    )
    body_map = None
    attack_type = D100AttackRequest
    attack_ask_type = D100AttackAsk

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> D100AttackRequest:
        return scene_fill.fill_attack(asked, scene)

    zone_test_ask_type = D100ZoneTestAsk

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> D100ZoneTestRequest:
        del zone_id, combat
        return scene_fill.fill_zone_test(asked, scene)

    def ammo_left(self, request: Any, result: Any) -> dict[str, int]:
        return scene_fill.ammo_left(request, result)

    def knocked_back(self, result: Any) -> dict[str, int]:
        del result
        return {}  # no knock-back in these rules

    def edge_spent(self, request: Any, result: Any) -> dict[str, int]:
        del request, result
        return {}  # the d100 game (003) has no Edge

    action_type = D100ActionRequest
    # The shooter's rolls: its attack, its weapon's bonus dice, where the hit lands, suppression.
    attacker_steps = frozenset({"attack", "bonus", "location", "suppression"})
    sheet_type = D100Sheet
    zone_test_type = D100ZoneTestRequest

    def fill_action(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        del scene
        return asked

    def settled(self, state: Any) -> CombatState:
        return state  # type: ignore[no-any-return]

    def new_state(self) -> CombatState:
        return D100State()

    def dice_steps(self, request: D100AttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: D100AttackRequest, state: D100State, turn: TurnState, dice: Dice
    ) -> Resolution[D100AttackResult]:
        del turn
        return attack.resolve_attack(request, state, dice)

    def action_dice_steps(self, request: D100ActionRequest) -> dict[str, int]:
        del request
        return {}

    def follows_up(self, request: D100ActionRequest) -> str | None:
        del request
        return None

    def resolve_action(
        self,
        request: D100ActionRequest,
        state: D100State,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]:
        del turn, dice, earlier
        return actions.resolve_action(request, state)

    def zones(self, state: D100State) -> list[Zone]:
        return [live.zone for live in state.zones.values()]

    def zone_test_dice_steps(self, request: D100ZoneTestRequest) -> dict[str, int]:
        return suppression.zone_test_steps(request)

    def resolve_zone_test(
        self,
        zone_id: str,
        request: D100ZoneTestRequest,
        state: D100State,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[D100ZoneTestResult]:
        del turn
        result = suppression.zone_test(zone_id, request, state, dice)
        return Resolution(result=result, state=state, actor=request.actor)

    def on_advance(
        self, request: AdvanceRequest, state: D100State, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        return actions.on_advance(request, state, turn)

    # The chapter counts action points per turn (actions.py), not initiative passes: the
    # initiative engine has nothing to run for it.
    initiative = None

    def action_cost(self, request: Any, result: Any) -> ActionCost:
        del request, result
        return NO_COST
