"""The `sr3-hardlife` ruleset: the "Hard Life" house rules (rules-sources/004_afd6299c3d537f5c.txt)
on top of Shadowrun 3 (service/rules/sr3): hit locations on the body map, armour per location,
the damage test, stun and knock-back, the recovery roll, a monitor per location, per-bullet
automatic fire and suppression fire by square metre (docs/rulesets/sr3-hardlife.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.common import Zone
from schemas.encounter import ActionResult, AdvanceRequest, CombatState, RulesetInfo, TurnState
from schemas.scene import SceneActor
from schemas.sr3hl import (
    HLActionRequest,
    HLAttackAsk,
    HLAttackRequest,
    HLAttackResult,
    HLSheet,
    HLState,
    HLZoneTestAsk,
    HLZoneTestRequest,
    HLZoneTestResult,
)
from service.rules.dice import Dice
from service.rules.monitor import MonitorRules
from service.rules.ruleset import EarlierAttack, NothingTimed, OddsFromModule, Resolution
from service.rules.sr3 import tables as sr3_tables
from service.rules.sr3hl import able, actions, attack, body, odds, suppression
from service.rules.sr3hl import scene as scene_fill

# Every dice step (all d6); ":<id>" is the target's (an attack) or the testing actor's (a zone
# test, an action). docs/rulesets/sr3-hardlife.md says what each rolls, in order.
DICE_STEPS = [
    "attack",
    "dodge:<target id>",
    "scatter:<target id>",
    "armor:<target id>",
    "lacing:<target id>",
    "damage:<target id>",
    "stun:<target id>",
    "recovery:<target id>",
    "suppression:<actor id>",
    "location:<actor id>",
    "accuracy:<actor id>",
    "consciousness:<actor id>",
]


class HardLifeRuleset(NothingTimed, OddsFromModule):
    monitor: MonitorRules | None = None
    odds_module = odds  # attack_odds, zone_test_odds
    info = RulesetInfo(
        id="sr3-hardlife",
        title="Shadowrun 3rd edition, Hard Life house rules",
        source="004_afd6299c3d537f5c.txt",
        dice="d6_target_number",
        firing_modes=list(sr3_tables.FIRING_MODES),
        actions=list(actions.ACTIONS),
        # Suppression fire's area: a polygon on the scene plane.
        zone_shapes=["polygon"],
        dice_steps=DICE_STEPS,
    )
    body_map = body.body_map()
    attack_type = HLAttackRequest
    attack_ask_type = HLAttackAsk

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> HLAttackRequest:
        return scene_fill.fill_attack(asked, scene)

    zone_test_ask_type = HLZoneTestAsk

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> HLZoneTestRequest:
        zone = combat.zones.get(zone_id) if isinstance(combat, HLState) and zone_id else None
        return scene_fill.fill_zone_test(asked, scene, zone)

    def fill_action(self, asked: HLActionRequest, scene: Mapping[str, SceneActor]) -> Any:
        return scene_fill.fill_action(asked, scene)

    def settled(self, state: HLState) -> CombatState:
        return able.settled(state)

    def ammo_left(self, request: Any, result: Any) -> dict[str, int]:
        return scene_fill.ammo_left(request, result)

    def knocked_back(self, result: Any) -> dict[str, int]:
        # 004, "Resolve Stun and Knock-back", Table 4: "back N m" (knocked down stays put).
        target = getattr(result, "target", None)
        if target is None or target.knock_back != "knocked_back" or target.knock_back_m <= 0:
            return {}
        return {target.target: target.knock_back_m}

    def edge_spent(self, request: Any, result: Any) -> dict[str, int]:
        del request, result
        return {}  # Hard Life plays SR3 (004): SR3 has no Edge (its Karma Pool is the VTT's)

    action_type = HLActionRequest
    # The shooter's rolls: its attack test and where its rounds scatter. The rest named after
    # an actor are that actor's (dodge, armour, damage taken, stun, recovery, zone tests).
    attacker_steps = frozenset({"attack", "scatter"})
    sheet_type = HLSheet
    zone_test_type = HLZoneTestRequest

    def new_state(self) -> CombatState:
        return HLState()

    def dice_steps(self, request: HLAttackRequest) -> dict[str, int]:
        return attack.dice_steps(request)

    def resolve_attack(
        self, request: HLAttackRequest, state: HLState, turn: TurnState, dice: Dice
    ) -> Resolution[HLAttackResult]:
        return attack.resolve_attack(request, state, turn, dice)

    def action_dice_steps(self, request: HLActionRequest) -> dict[str, int]:
        return actions.dice_steps(request)

    def follows_up(self, request: HLActionRequest) -> str | None:
        del request
        return None

    def resolve_action(
        self,
        request: HLActionRequest,
        state: HLState,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]:
        del earlier
        return actions.resolve_action(request, state, turn, dice)

    def zones(self, state: HLState) -> list[Zone]:
        return suppression.zones(state)

    def zone_test_dice_steps(self, request: HLZoneTestRequest) -> dict[str, int]:
        return suppression.dice_steps(request)

    def resolve_zone_test(
        self,
        zone_id: str,
        request: HLZoneTestRequest,
        state: HLState,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[HLZoneTestResult]:
        return suppression.resolve_zone_test(zone_id, request, state, turn, dice)

    def on_advance(
        self, request: AdvanceRequest, state: HLState, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        return actions.on_advance(request, state, turn)

    initiative = actions.INITIATIVE

    def action_cost(self, request: Any, result: Any) -> Any:
        return actions.action_cost(request, result)
