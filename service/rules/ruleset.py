"""The interface every ruleset implements, and the errors the rules core raises.

A ruleset is a set of pure functions over (request, combat state, turn, dice): no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

import msgspec

from schemas.common import Zone
from schemas.encounter import (
    ActionResult,
    AdvanceRequest,
    AttackResult,
    CombatState,
    RulesetInfo,
    TurnState,
    ZoneTestResult,
)
from schemas.fair import EventDice
from schemas.initiative import ActionKind, ActionsUsed, TimedResult
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.scene import SceneActor
from schemas.sr3hl import BodyMap
from service.rules.dice import Dice
from service.rules.monitor import MonitorRules

R = TypeVar("R", covariant=True)


class RuleViolation(ValueError):
    """A request that is well-formed but that the rules do not allow; `path` names the field."""

    def __init__(
        self,
        detail: str,
        path: str | None = None,
        kind: str = "rule-violation",
        status: int = 422,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.path = path
        self.kind = kind
        # 422: never allowed as asked; 409: not allowed now, in this state of the fight.
        self.status = status


class Resolution(msgspec.Struct, Generic[R], frozen=True, gc=False):
    """What a ruleset function returns: the result to publish and the combat state after it.

    A Struct, not a dataclass, because one is made per request: a frozen dataclass sets each
    field through object.__setattr__, ten times slower. Nothing it holds refers back to it
    (results and states are trees of Structs), so the garbage collector need not track it."""

    result: R
    state: CombatState
    actor: str | None = None
    notes: list[str] = []
    # The turn after it, when the resolution moved it (the initiative engine's changes).
    turn: TurnState | None = None
    # What the event keeps of the dice it rolled (the engine's, service/engine/dice_keeping.py).
    dice: EventDice | None = None


@dataclass(frozen=True, slots=True)
class ActionCost:
    """What an attack, action or zone test takes of the initiative the service runs: room in
    the acting actor's phase (`kind`; None for what takes none, such as spending Edge), and,
    for an interrupt, the initiative points it costs (taken at once, outside the actor's own
    phase too)."""

    kind: ActionKind | None = None
    interrupt: int = 0
    # Declared outside the actor's own phase, it takes the actor's next action phase instead
    # of room in the one under way (SR4 full defense).
    or_next_phase: bool = False


NO_COST = ActionCost()


@dataclass(frozen=True, slots=True)
class InitiativeRules:
    """A ruleset's numbers for the initiative engine (service/rules/initiative.py)."""

    # Where the numbers come from, for the docs and GET .../initiative.
    source: str
    # The roll's fields added up before the dice (SR3: Reaction; SR5: Reaction + Intuition).
    base: tuple[str, ...]
    # The roll's fields that break a tie, in order (the rest of a tie keeps the order given).
    ties: tuple[str, ...]
    # The ways an actor may fill its phase: the most of each kind, one line each.
    budgets: tuple[ActionsUsed, ...]
    # What the actor's sheet takes off (or adds to) a roll that gives no `modifier`: its wounds.
    sheet_modifier: Callable[[Any], int] = lambda sheet: 0
    # What the combat state takes off a roll that gives no `modifier`, for the actor of that
    # id (Hard Life: the wounds on its monitors); None: the state says nothing, the sheet's.
    state_modifier: Callable[[Any, str], int | None] = lambda combat, actor: None
    # The action that holds (delays) the acting actor's phase until later in the pass.
    hold_action: str = "delay_action"
    default_dice: int = 1
    # What the end of a pass takes off every score.
    pass_cost: int = 10
    # "sum": the initiative dice are added up (SR3, SR5); "hits": base + modifier dice are
    # rolled and their hits add to the score (SR4).
    dice: Literal["sum", "hits"] = "sum"
    # "score": an actor acts in every pass its score is above 0 (SR3, SR5); "count": in as many
    # passes as its Initiative Passes (SR4), the score only orders them.
    passes: Literal["score", "count"] = "score"


@dataclass(frozen=True, slots=True)
class EarlierAttack:
    """An attack as its event keeps it, for an action that follows it up (Second Chance): the
    request as asked (given dice left out) and its result (every die it rolled)."""

    request: Any
    result: AttackResult


class Ruleset(Protocol):
    """One ruleset of rules-sources/, registered under `info.id`.

    Requests and states are the ruleset's own members of the unions in schemas/encounter.py
    (`Any` here, each ruleset types its own): the engine decodes every request body with the
    type the ruleset names (`attack_type`, `action_type`, `zone_test_type`), and a state is
    always the one the ruleset made.
    """

    @property
    def info(self) -> RulesetInfo: ...

    @property
    def body_map(self) -> BodyMap | None:
        """The hit-location figure clients draw (sr3-hardlife), served by
        `GET /v1/rulesets/{ruleset}`; None for a ruleset without one."""
        ...

    @property
    def attack_type(self) -> type[Any]:
        """The msgspec Struct of this ruleset's attack body (a member of `AttackRequest`)."""
        ...

    @property
    def attack_ask_type(self) -> type[Any]:
        """The attack body as a client may send it when the scene fills parts in (a member of
        `AttackAsk`); `fill_attack` makes it an `attack_type`."""
        ...

    def fill_attack(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        """The attack the rules resolve: what the request gives wins; the scene's actors fill
        in the rest (RuleViolation naming what neither holds)."""
        ...

    @property
    def zone_test_ask_type(self) -> type[Any]:
        """The zone test body as a client may send it when the scene fills parts in."""
        ...

    def fill_zone_test(
        self,
        asked: Any,
        scene: Mapping[str, SceneActor],
        zone_id: str | None = None,
        combat: Any = None,
    ) -> Any:
        """The zone test the rules resolve, filled from the testing actor on the scene (and
        from the live zone `zone_id` of the `combat` state: where its shooter stood)."""
        ...

    def fill_action(self, asked: Any, scene: Mapping[str, SceneActor]) -> Any:
        """The action the rules resolve, what it leaves out filled from the acting actor on
        the scene (Hard Life: the Willpower of its rolls); most rulesets take it as asked."""
        ...

    def settled(self, state: Any) -> CombatState:
        """A combat state the GM wrote (PUT .../state, or an encounter created with one), with
        what the ruleset derives from the rest worked out again (Hard Life: each actor's
        condition from its monitors); most rulesets keep it as written."""
        ...

    def ammo_left(self, request: Any, result: Any) -> dict[str, int]:
        """The rounds each gun an attack fired, or an action loaded, holds after it, by weapon
        id (the scene's guns are set to it)."""
        ...

    def knocked_back(self, result: Any) -> dict[str, int]:
        """The metres an attack knocked each target back, by actor id (the scene moves it that
        far, away from the attacker). {} in a ruleset without knock-back."""
        ...

    def edge_spent(self, request: Any, result: Any) -> dict[str, int]:
        """The Edge points each actor spent in this attack, action or zone test, by actor id
        (the attacker, a defender that spent Edge on its defense, a zone test's or an action's
        actor): the scene's actors add them to their `edge_spent`. {} in a ruleset without
        Edge."""
        ...

    @property
    def action_type(self) -> type[Any]:
        """The msgspec Struct of this ruleset's action body (a member of `ActionRequest`)."""
        ...

    @property
    def attacker_steps(self) -> frozenset[str]:
        """The dice steps (before any ":<id>") the acting actor rolls whoever they name: its
        attack test and what follows from it. The others named after an actor are that actor's
        (its defense, its soak, its zone test)."""
        ...

    @property
    def sheet_type(self) -> type[Any]:
        """The msgspec Struct of this ruleset's character sheet in the scene (a member of
        `ActorSheet`)."""
        ...

    def new_state(self) -> CombatState: ...

    @property
    def monitor(self) -> MonitorRules | None:
        """The condition monitors the service keeps for this ruleset's scene actors
        (service/rules/monitor.py); None where the combat state keeps its own (Hard Life)."""
        ...

    def dice_steps(self, request: Any) -> dict[str, int]:
        """Every step `request` may roll, with its die's sides, to check given dice up front."""
        ...

    def resolve_attack(
        self, request: Any, state: Any, turn: TurnState, dice: Dice
    ) -> Resolution[AttackResult]: ...

    def attack_odds(
        self, request: Any, state: Any, turn: TurnState, seed: int, samples: int
    ) -> AttackOdds:
        """The attack as `resolve_attack` would resolve it on this state, as a distribution
        instead of a roll (service/rules/odds.py, docs/odds.md): it builds the same tests with
        the same modifiers and refuses what `resolve_attack` refuses, with nothing rolled and
        nothing changed. What is too large to enumerate is sampled: `samples` resolutions of a
        generator seeded with `seed`, said in the answer's `sampling`."""
        ...

    def action_dice_steps(self, request: Any) -> dict[str, int]:
        """Every step the action may roll (most roll none), with its die's sides."""
        ...

    def follows_up(self, request: Any) -> str | None:
        """The actor whose last attack the action acts on (Second Chance), or None: the engine
        finds that attack by its event and hands it to `resolve_action` as `earlier`."""
        ...

    def resolve_action(
        self,
        request: Any,
        state: Any,
        turn: TurnState,
        dice: Dice,
        earlier: EarlierAttack | None = None,
    ) -> Resolution[ActionResult]: ...

    def zones(self, state: Any) -> list[Zone]:
        """The live suppression zones of the combat state."""
        ...

    @property
    def zone_test_type(self) -> type[Any]:
        """The msgspec Struct of this ruleset's zone test body (a member of ZoneTestRequest)."""
        ...

    def zone_test_dice_steps(self, request: Any) -> dict[str, int]: ...

    def resolve_zone_test(
        self,
        zone_id: str,
        request: Any,
        state: Any,
        turn: TurnState,
        dice: Dice,
    ) -> Resolution[ZoneTestResult]:
        """The test of one actor in, entering or moving in a zone."""
        ...

    def zone_test_odds(
        self,
        zone_id: str,
        request: Any,
        state: Any,
        turn: TurnState,
        seed: int,
        samples: int,
    ) -> ZoneTestOdds:
        """The zone test as `resolve_zone_test` would resolve it, as a distribution (as
        `attack_odds`)."""
        ...

    def on_advance(
        self, request: AdvanceRequest, state: Any, turn: TurnState
    ) -> tuple[CombatState, list[str]]:
        """The combat state after the turn moved to `turn`, and what that changed."""
        ...

    def went_off(
        self,
        crossing: AdvanceRequest,
        state: Any,
        turn: TurnState,
        scene: Mapping[str, SceneActor],
    ) -> tuple[CombatState, list[TimedResult], list[str]]:
        """What the turn reaching the moment `crossing` sets off (SR4's timed grenades), with
        the scene as it stands now: the combat state after it, each result, and what to say.
        `turn` is the turn once every crossing of the change is made (service/engine/
        encounters.py `_crossed`)."""
        ...

    @property
    def initiative(self) -> InitiativeRules | None:
        """The ruleset's initiative numbers; None for a ruleset without initiative passes."""
        ...

    def action_cost(self, request: Any, result: Any) -> ActionCost:
        """What an attack, action or zone test (`request`, resolved as `result`) takes of the
        acting actor's phase, and what it costs of its initiative."""
        ...


class NothingTimed:
    """`Ruleset.went_off` of a ruleset whose state holds nothing that goes off on its own."""

    def went_off(
        self,
        crossing: AdvanceRequest,
        state: Any,
        turn: TurnState,
        scene: Mapping[str, SceneActor],
    ) -> tuple[CombatState, list[TimedResult], list[str]]:
        del crossing, turn, scene
        return state, [], []


class OddsModule(Protocol):
    """A ruleset's `odds` module (service/rules/<ruleset>/odds.py), beside its resolve."""

    def attack_odds(
        self, request: Any, state: Any, turn: TurnState, seed: int, samples: int
    ) -> AttackOdds: ...

    def zone_test_odds(
        self,
        zone_id: str,
        request: Any,
        state: Any,
        turn: TurnState,
        seed: int,
        samples: int,
    ) -> ZoneTestOdds: ...


class OddsFromModule:
    """`Ruleset.attack_odds` and `.zone_test_odds` of a ruleset whose `odds_module` computes
    them: every ruleset's, each from its own module."""

    odds_module: OddsModule

    def attack_odds(
        self, request: Any, state: Any, turn: TurnState, seed: int, samples: int
    ) -> AttackOdds:
        return self.odds_module.attack_odds(request, state, turn, seed, samples)

    def zone_test_odds(
        self,
        zone_id: str,
        request: Any,
        state: Any,
        turn: TurnState,
        seed: int,
        samples: int,
    ) -> ZoneTestOdds:
        return self.odds_module.zone_test_odds(zone_id, request, state, turn, seed, samples)
