"""The `sr4` ruleset: Shadowrun 4 ranged combat (rules-sources/001_2cfc288dfef1df08.txt), with
the published SR4 tables where the document is silent (docs/rulesets/sr4.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.common import Zone
from schemas.encounter import ActionResult, AdvanceRequest, CombatState, RulesetInfo, TurnState
from schemas.initiative import TimedResult
from schemas.scene import SceneActor
from schemas.sr4 import (
    SR4ActionRequest,
    SR4AttackAsk,
    SR4AttackRequest,
    SR4AttackResult,
    SR4Sheet,
    SR4State,
    SR4ZoneTestAsk,
    SR4ZoneTestRequest,
    SR4ZoneTestResult,
)
from service.rules.dice import Dice
from service.rules.monitor import MonitorRules
from service.rules.ruleset import NO_COST, ActionCost, EarlierAttack, OddsFromModule, Resolution
from service.rules.sr4 import actions, attack, grenade_attack, odds, suppression, tables
from service.rules.sr4 import scene as scene_fill
from service.rules.sr4.monitor import SR4Monitor


class SR4Ruleset(OddsFromModule):
    monitor: MonitorRules | None = SR4Monitor()
    odds_module = odds  # attack_odds, zone_test_odds
    info = RulesetInfo(
        id="sr4",
        title="Shadowrun 4th edition",
        source="001_2cfc288dfef1df08.txt",
        dice="d6_pool",
        firing_modes=list(tables.FIRING_MODES),
        actions=list(actions.ACTIONS),
        # Suppressive fire's triangle; a grenade waiting to go off is drawn as a circle.
        zone_shapes=["triangle", "circle"],
        dice_steps=[
            "attack",
            "attack:<target id>",
            "defense:<target id>",
            "soak:<target id>",
            "reroll:<target id>",
            "suppression",
            "zone_test:<actor id>",
            "soak:<actor id>",
            "scatter_direction",
            "scatter",
            "barrier:<barrier id>",
        ],
    )
    body_map = None
    attack_type = SR4AttackRequest
    attack_ask_type = SR4AttackAsk

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> SR4AttackRequest:
        return scene_fill.fill_attack(asked, scene)

    zone_test_ask_type = SR4ZoneTestAsk

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> SR4ZoneTestRequest:
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

    action_type = SR4ActionRequest
    # The shooter's rolls: its attack tests, their re-roll, suppression and the scatter.
    attacker_steps = frozenset({"attack", "reroll", "suppression", "scatter"})
    sheet_type = SR4Sheet
    zone_test_type = SR4ZoneTestRequest

    def fill_action(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        del scene
        return asked

    def settled(self, state: Any) -> CombatState:
        return state  # type: ignore[no-any-return]

    def new_state(self) -> CombatState:
        return SR4State()

    def dice_steps(self, request: SR4AttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: SR4AttackRequest, state: SR4State, turn: TurnState, dice: Dice
    ) -> Resolution[SR4AttackResult]:
        return attack.resolve_attack(request, state, turn, dice)

    def action_dice_steps(self, request: SR4ActionRequest) -> dict[str, int]:
        return actions.dice_steps(request)

    def follows_up(self, request: SR4ActionRequest) -> str | None:
        return request.actor if request.action == "edge_reroll" else None

    def resolve_action(
        self,
        request: SR4ActionRequest,
        state: SR4State,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]:
        del turn
        return actions.resolve_action(request, state, dice, earlier)

    def zones(self, state: SR4State) -> list[Zone]:
        return [live.zone for live in state.zones.values()] + grenade_attack.grenade_zones(state)

    def zone_test_dice_steps(self, request: SR4ZoneTestRequest) -> dict[str, int]:
        return suppression.zone_test_steps(request)

    def resolve_zone_test(
        self,
        zone_id: str,
        request: SR4ZoneTestRequest,
        state: SR4State,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[SR4ZoneTestResult]:
        result, after = suppression.zone_test(zone_id, request, state, turn, dice)
        return Resolution(result=result, state=after, actor=request.actor)

    def on_advance(
        self, request: AdvanceRequest, state: SR4State, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        del turn
        return actions.on_advance(request, state)

    def went_off(
        self,
        crossing: AdvanceRequest,
        state: SR4State,
        turn: TurnState,
        scene: Mapping[str, SceneActor],
    ) -> tuple[CombatState, list[TimedResult], list[str]]:
        after, blasts, notes = grenade_attack.went_off(crossing, state, turn, scene)
        return after, list(blasts), notes

    initiative = tables.INITIATIVE

    def action_cost(self, request: Any, result: Any) -> ActionCost:
        if isinstance(request, SR4AttackRequest):
            return ActionCost(kind=result.action)
        if isinstance(request, SR4ActionRequest):
            if request.action == "full_defense":
                return ActionCost(kind="complex", or_next_phase=True)
            if request.action == "change_choke" and request.smartlinked:
                return ActionCost(kind="free")
            return ActionCost(kind=tables.ACTION_KINDS[request.action])
        return NO_COST
