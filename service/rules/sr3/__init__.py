"""The `sr3` ruleset: Shadowrun 3 ranged combat (rules-sources/002_65e09aecd368bc68.txt), with
the published SR3 tables where the document is silent (docs/rulesets/sr3.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.common import Zone
from schemas.encounter import (
    ActionResult,
    AdvanceRequest,
    CombatState,
    RulesetInfo,
    TurnState,
    ZoneTestResult,
)
from schemas.scene import SceneActor
from schemas.sr3 import (
    SR3ActionRequest,
    SR3AttackAsk,
    SR3AttackRequest,
    SR3AttackResult,
    SR3Sheet,
    SR3State,
    SR3ZoneTestRequest,
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
from service.rules.sr3 import actions, attack, odds, tables
from service.rules.sr3 import scene as scene_fill
from service.rules.sr3.monitor import SR3Monitor


class SR3Ruleset(NothingTimed, OddsFromModule):
    monitor: MonitorRules | None = SR3Monitor()
    odds_module = odds  # attack_odds, zone_test_odds
    info = RulesetInfo(
        id="sr3",
        title="Shadowrun 3rd edition",
        source="002_65e09aecd368bc68.txt",
        dice="d6_target_number",
        firing_modes=list(tables.FIRING_MODES),
        actions=list(actions.ACTIONS),
        zone_shapes=[],
        dice_steps=["attack", "dodge:<target id>", "resist:<target id>"],
    )
    body_map = None
    attack_type = SR3AttackRequest
    attack_ask_type = SR3AttackAsk

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> SR3AttackRequest:
        return scene_fill.fill_attack(asked, scene)

    zone_test_ask_type = SR3ZoneTestRequest

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> SR3ZoneTestRequest:
        del zone_id, combat
        raise scene_fill.no_zones()

    def ammo_left(self, request: Any, result: Any) -> dict[str, int]:
        return scene_fill.ammo_left(request, result)

    def knocked_back(self, result: Any) -> dict[str, int]:
        del result
        return {}  # no knock-back in these rules

    def edge_spent(self, request: Any, result: Any) -> dict[str, int]:
        del request, result
        return {}  # SR3 (002) has no Edge (its Karma Pool is the VTT's)

    action_type = SR3ActionRequest
    # The shooter's roll: its attack test. Dodge and resistance are the target's.
    attacker_steps = frozenset({"attack"})
    sheet_type = SR3Sheet
    zone_test_type = SR3ZoneTestRequest

    def fill_action(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        del scene
        return asked

    def settled(self, state: Any) -> CombatState:
        return state  # type: ignore[no-any-return]

    def new_state(self) -> CombatState:
        return SR3State()

    def dice_steps(self, request: SR3AttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: SR3AttackRequest, state: SR3State, turn: TurnState, dice: Dice
    ) -> Resolution[SR3AttackResult]:
        return attack.resolve_attack(request, state, turn, dice)

    def action_dice_steps(self, request: SR3ActionRequest) -> dict[str, int]:
        del request
        return {}

    def follows_up(self, request: SR3ActionRequest) -> str | None:
        del request
        return None

    def resolve_action(
        self,
        request: SR3ActionRequest,
        state: SR3State,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]:
        del turn, dice, earlier
        result, after = actions.resolve_action(request, state)
        return Resolution(result=result, state=after, actor=request.actor)

    def zones(self, state: SR3State) -> list[Zone]:
        del state
        return []

    def zone_test_dice_steps(self, request: SR3ZoneTestRequest) -> dict[str, int]:
        del request
        return {}

    def resolve_zone_test(
        self,
        zone_id: str,
        request: SR3ZoneTestRequest,
        state: SR3State,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[ZoneTestResult]:
        del zone_id, request, state, turn, dice
        raise scene_fill.no_zones()

    def on_advance(
        self, request: AdvanceRequest, state: SR3State, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        del turn
        return actions.on_advance(request, state)

    initiative = tables.INITIATIVE

    def action_cost(self, request: Any, result: Any) -> ActionCost:
        if isinstance(request, SR3AttackRequest):
            return ActionCost(kind=result.action)
        if isinstance(request, SR3ActionRequest):
            return ActionCost(
                kind=tables.ACTION_KINDS.get(request.action, tables.OTHER_ACTION_KIND)
            )
        return NO_COST
