"""Encounter-level wire types: creation, state, actions, turn advances, events, rulesets."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from schemas.common import DiceRoll, Id, Name, Request, Zone
from schemas.d100 import (
    D100ActionName,
    D100ActionRequest,
    D100AttackAsk,
    D100AttackRequest,
    D100AttackResult,
    D100State,
    D100ZoneTestAsk,
    D100ZoneTestRequest,
    D100ZoneTestResult,
)
from schemas.fair import ClientSeedResult, DiceCommitment, DiceRevealed, EventDice
from schemas.imports import ImportReport
from schemas.initiative import Initiative, InitiativeResult, TimedResult
from schemas.monitor import DamageMode, MonitorResult
from schemas.scene import MAX_SCENE_ACTORS, PlayerResult, SceneActor, SceneResult
from schemas.sr3 import (
    SR3ActionName,
    SR3ActionRequest,
    SR3AttackAsk,
    SR3AttackRequest,
    SR3AttackResult,
    SR3State,
    SR3ZoneTestAsk,
    SR3ZoneTestRequest,
)
from schemas.sr3hl import (
    BodyMap,
    HLActionName,
    HLActionRequest,
    HLAttackAsk,
    HLAttackRequest,
    HLAttackResult,
    HLConsciousness,
    HLRecovery,
    HLState,
    HLZoneTestAsk,
    HLZoneTestRequest,
    HLZoneTestResult,
)
from schemas.sr4 import (
    SR4ActionName,
    SR4ActionRequest,
    SR4AttackAsk,
    SR4AttackRequest,
    SR4AttackResult,
    SR4State,
    SR4ZoneTestAsk,
    SR4ZoneTestRequest,
    SR4ZoneTestResult,
)
from schemas.sr5 import (
    SR5ActionName,
    SR5ActionRequest,
    SR5AttackAsk,
    SR5AttackRequest,
    SR5AttackResult,
    SR5State,
    SR5ZoneTestAsk,
    SR5ZoneTestRequest,
    SR5ZoneTestResult,
)

RulesetId = Literal["sr5", "d100", "sr3", "sr4", "sr3-hardlife"]

# Unions with one member per ruleset, tagged by "ruleset" (results by "kind"). The service decodes
# a request with the member of the encounter's ruleset, so clients may leave the tag out.
AttackRequest = (
    SR5AttackRequest | D100AttackRequest | SR3AttackRequest | SR4AttackRequest | HLAttackRequest
)
# An attack as clients send it: the scene may fill in the attacker, weapons and targets by name.
AttackAsk = SR5AttackAsk | D100AttackAsk | SR3AttackAsk | SR4AttackAsk | HLAttackAsk
AttackResult = (
    SR5AttackResult | D100AttackResult | SR3AttackResult | SR4AttackResult | HLAttackResult
)
ActionRequest = (
    SR5ActionRequest | D100ActionRequest | SR3ActionRequest | SR4ActionRequest | HLActionRequest
)
CombatState = SR5State | D100State | SR3State | SR4State | HLState
ZoneTestRequest = (
    SR5ZoneTestRequest
    | D100ZoneTestRequest
    | SR3ZoneTestRequest
    | SR4ZoneTestRequest
    | HLZoneTestRequest
)
# A zone test as clients send it: the scene may fill in the testing actor's numbers.
ZoneTestAsk = SR5ZoneTestAsk | D100ZoneTestAsk | SR3ZoneTestAsk | SR4ZoneTestAsk | HLZoneTestAsk
ZoneTestResult = SR5ZoneTestResult | D100ZoneTestResult | SR4ZoneTestResult | HLZoneTestResult
ActionName = SR5ActionName | D100ActionName | SR3ActionName | SR4ActionName | HLActionName
AdvanceTo = Literal["action_phase", "initiative_pass", "combat_turn"]
EventType = Literal[
    "encounter_created",
    "attack",
    "action",
    "advance",
    "initiative",
    "state_edited",
    "zone_test",
    "scene",
    "players",
    "monitor",
    "undo",
    "dice_revealed",
    "dice_seeded",
    "encounter_ended",
]
# Whose dice a player's own token may give: only those of its actors' steps ("own"), or any.
DicePolicy = Literal["own", "any"]
# Whose numbers a player's request uses for an actor the scene holds a sheet for: the scene's
# ("scene": typed numbers that contradict it are refused, and a player names only actors it
# sees), or the player's own ("typed": a VTT that keeps its own sheets, such as Foundry).
SheetPolicy = Literal["scene", "typed"]
Scene = Annotated[dict[Id, SceneActor], msgspec.Meta(max_length=MAX_SCENE_ACTORS)]
Count = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
PendingCount = Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)]
# The shape a document or event was stored in: the service writes its own, reads earlier ones.
SchemaVersion = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class EncounterCreate(Request):
    ruleset: RulesetId
    name: Name = ""
    dice_policy: DicePolicy = "own"
    sheet_policy: SheetPolicy = "scene"
    # Who applies damage: the service keeps every actor's condition monitor.
    damage: DamageMode = "service"
    # The combat state to start from (of the same ruleset), e.g. a d100 action point budget.
    combat: CombatState | None = None


class Tokens(msgspec.Struct, gc=False):
    gm: str
    player: str


class TurnState(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    combat_turn: Count = 1
    initiative_pass: Count = 1
    # Whose action phase it is, when the VTT has said so through advance.
    action_phase: Id | None = None
    # How many action phases have begun through advance (0: the VTT does not track phases).
    phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    # The order, scores and phases, when the service runs the initiative (POST .../initiative);
    # None while the VTT runs its own tracker.
    initiative: Initiative | None = None


class CampaignLink(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The campaign an encounter was started in, and the characters it brought (by scene id):
    the encounter's end gives them back what the fight changed."""

    id: Id
    characters: Annotated[list[Id], msgspec.Meta(max_length=MAX_SCENE_ACTORS)] = []


class EncounterState(msgspec.Struct, gc=False):
    """The stored document of one encounter (the store keeps its version beside it)."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    turn: TurnState
    combat: CombatState
    # SHA-256 of the encounter's tokens; the tokens themselves are never stored.
    token_hashes: dict[str, str] = {}
    # The actors, by id.
    scene: Scene = {}
    dice_policy: DicePolicy = "own"
    # A new encounter's is its creation's ("scene" unless asked); a state stored before the
    # policy existed lets players type their numbers, as they did then.
    sheet_policy: SheetPolicy = "typed"
    # Who applies damage: a new encounter's is its creation's ("service" unless asked); one
    # stored before the service kept monitors leaves them to the VTT, as it did then.
    damage: DamageMode = "vtt"
    # The number of the last damage put up for confirmation: the next one's id is "d<n + 1>".
    last_pending: PendingCount = 0
    campaign: CampaignLink | None = None


class StoredHead(msgspec.Struct, gc=False):
    """The stored document's `head` field: the state but for each actor (kept each in a field of
    its own, service/engine/documents.py), with the order of the actors."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    turn: TurnState
    # The combat state without its actors.
    combat: CombatState
    token_hashes: dict[str, str] = {}
    dice_policy: DicePolicy = "own"
    # Encounters stored before the policy existed let players type their numbers, as then.
    sheet_policy: SheetPolicy = "typed"
    damage: DamageMode = "vtt"
    last_pending: PendingCount = 0
    campaign: CampaignLink | None = None
    # The ids of the combat state's actors and of the scene's, in order.
    actors: list[Id] = []
    scene: Annotated[list[Id], msgspec.Meta(max_length=MAX_SCENE_ACTORS)] = []
    # The shape it was stored in (service/engine/migrations.py): 0, before versions were kept.
    schema_version: SchemaVersion = 0


class EncounterEnvelope(msgspec.Struct, gc=False):
    """The `head` field with its turn and combat state left undecoded: enough to check who asks
    before anything that may not fit this version's bounds is decoded."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    turn: msgspec.Raw
    combat: msgspec.Raw
    token_hashes: dict[str, str] = {}
    dice_policy: DicePolicy = "own"
    sheet_policy: SheetPolicy = "typed"
    damage: DamageMode = "vtt"
    last_pending: int = 0
    campaign: CampaignLink | None = None
    actors: list[str] = []
    scene: list[str] = []
    schema_version: int = 0


class EncounterView(msgspec.Struct, gc=False):
    """What clients see of an encounter."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    version: int
    last_event_id: str | None
    turn: TurnState
    combat: CombatState
    # The actors a token may see (hidden ones only with the GM's).
    scene: dict[str, SceneActor] = {}
    dice_policy: DicePolicy = "own"
    sheet_policy: SheetPolicy = "scene"
    damage: DamageMode = "service"
    # The campaign it was started in.
    campaign: str | None = None
    # When the encounter expires unless something changes it (ISO 8601 UTC, as created_at), and
    # how long any change keeps it from then on; both null when nothing expires (the durable
    # store's default).
    expires_at: str | None = None
    ttl_seconds: int | None = None
    # Who asked: the token's role ("gm" for the GM's token or the admin key, else "player") and,
    # for a player's own token, its player id. A client joined with a token typed in knows from
    # the first answer which controls to show.
    role: Literal["gm", "player"] = "gm"
    player: str | None = None
    # The dice the encounter rolls now: the commitment of its secret (docs/dice.md); null for an
    # encounter from before secrets until its GM reveals (its dice are seeded, "mt19937-1").
    dice: DiceCommitment | None = None


class EncounterCreated(msgspec.Struct, gc=False):
    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    tokens: Tokens
    event_id: str


class ActionResult(msgspec.Struct, tag="action", tag_field="kind", gc=False):
    actor: str
    action: ActionName
    # What the action changed in the combat state, in words a player reads.
    effects: list[str]
    # Edge the action spends (the VTT owns the pool).
    edge_spent: int = 0
    # Rulesets with action points: what the action cost, and the actor's total this turn.
    action_points: int | None = None
    action_points_spent: int | None = None
    # A reload: the rounds it loaded and what the weapon holds after it.
    rounds_loaded: int | None = None
    ammo_left: int | None = None
    # An attack the action re-resolved (Second Chance), with the dice it rolled.
    attack: AttackResult | None = None
    # What the moments the action moved the turn through set off (a held action: SR4's timed
    # grenades).
    went_off: list[TimedResult] = []
    # Hard Life's recovery roll and consciousness test, and the dice an action rolled.
    recovery: HLRecovery | None = None
    consciousness: HLConsciousness | None = None
    dice: list[DiceRoll] = []
    seed: int | None = None


class AdvanceRequest(Request):
    to: AdvanceTo
    actor: Id | None = None


class AdvanceResult(msgspec.Struct, tag="advance", tag_field="kind", gc=False):
    to: AdvanceTo
    turn: TurnState
    effects: list[str]
    # What the moments it moved through set off (SR4's timed grenades).
    went_off: list[TimedResult] = []


class StateEdit(Request):
    """The GM sets the turn or the combat state by hand (a correction at the table)."""

    turn: TurnState | None = None
    combat: CombatState | None = None
    dice_policy: DicePolicy | None = None
    sheet_policy: SheetPolicy | None = None
    damage: DamageMode | None = None
    reason: Name = ""
    # The encounter's version the edit was made on (`GET`'s `version`): when given and the
    # encounter is at another, the edit is refused (409 `state-changed`) and nothing is written,
    # so a read-modify-write never overwrites a change that landed in between.
    version: Annotated[int, msgspec.Meta(ge=1)] | None = None


class UndoRequest(Request):
    """`POST .../undo`: the GM takes back the newest change."""

    # The id of the event the GM means to take back (the newest the client shows): when the
    # newest change is another (one landed in between, or a double click undid it already),
    # nothing is undone (409 `state-changed`).
    event: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    reason: Name = ""


class UndoResult(msgspec.Struct, tag="undo", tag_field="kind", gc=False):
    # The event taken back, and its type.
    undone: str
    undone_type: EventType
    reason: str = ""
    # How many more changes an undo could take back now.
    left: int = 0


class StateEditResult(msgspec.Struct, tag="state_edit", tag_field="kind", gc=False):
    # What was replaced: "turn", "combat" or both.
    changed: list[str]
    reason: str


# Left to the garbage collector (no gc=False, see schemas/__init__.py): `combat` holds Any.
class StateChanges(msgspec.Struct, omit_defaults=True):
    """What a change did to the encounter's state: the rest is as it was (`GET` has it all)."""

    # The state's version after the change.
    version: int
    # The turn, when the change moved it.
    turn: TurnState | None = None
    # The combat state's fields that changed: for a map (actors, zones) only the entries that
    # changed or appeared, with their new value; any other field, its new value.
    combat: dict[str, Any] = {}
    # The scene's actors that changed or appeared.
    scene: dict[str, SceneActor] = {}
    # Map entries the change removed, by field: {"zones": ["sam-1"]}; {"scene": [...]} for
    # actors taken off the scene.
    removed: dict[str, list[str]] = {}


class AttackOutcome(msgspec.Struct):
    """The answer to an attack: its event, its result and what it changed in the state."""

    event_id: str
    result: AttackResult
    changes: StateChanges


class ActionOutcome(msgspec.Struct):
    event_id: str
    result: ActionResult
    changes: StateChanges


class AdvanceOutcome(msgspec.Struct):
    event_id: str
    result: AdvanceResult
    changes: StateChanges


class InitiativeOutcome(msgspec.Struct):
    event_id: str
    result: InitiativeResult
    changes: StateChanges


class StateEditOutcome(msgspec.Struct):
    event_id: str
    result: StateEditResult
    changes: StateChanges


class MonitorOutcome(msgspec.Struct):
    event_id: str
    result: MonitorResult
    changes: StateChanges


class UndoOutcome(msgspec.Struct):
    event_id: str
    result: UndoResult
    changes: StateChanges


class ZoneTestOutcome(msgspec.Struct):
    event_id: str
    result: ZoneTestResult
    changes: StateChanges


class PlayerOutcome(msgspec.Struct):
    """A player's token: given once, in this answer (the events and the store never hold it)."""

    event_id: str
    result: PlayerResult
    changes: StateChanges
    token: str | None = None


class SceneOutcome(msgspec.Struct):
    event_id: str
    result: SceneResult
    changes: StateChanges


class ImportOutcome(msgspec.Struct):
    """A character file imported onto a scene actor: the scene's answer, and what the import
    read from where and left out."""

    event_id: str
    result: SceneResult
    changes: StateChanges
    report: ImportReport


class DiceRevealOutcome(msgspec.Struct):
    """The answer to `POST .../dice/reveal`: its event, the secret it opened (null for an
    encounter from before secrets: there was none), the commitment that takes over, and the
    version (nothing else of the state changes)."""

    event_id: str
    result: DiceRevealed | None
    commitment: DiceCommitment
    changes: StateChanges


class ClientSeedOutcome(msgspec.Struct):
    """The answer to `PUT .../dice/client-seed`: its event, what it set, the version."""

    event_id: str
    result: ClientSeedResult
    changes: StateChanges


Outcome = (
    SceneOutcome
    | ImportOutcome
    | AttackOutcome
    | ActionOutcome
    | AdvanceOutcome
    | InitiativeOutcome
    | StateEditOutcome
    | ZoneTestOutcome
    | PlayerOutcome
    | MonitorOutcome
    | UndoOutcome
)


class StoredEvent(msgspec.Struct, omit_defaults=True, gc=False):
    """An event as the stream keeps it: the wire `Event` without its id, which the stream
    assigns (and which the wire puts first)."""

    type: EventType
    encounter: str
    at: str
    actor: str | None = None
    result: (
        AttackResult
        | ActionResult
        | AdvanceResult
        | InitiativeResult
        | StateEditResult
        | ZoneTestResult
        | SceneResult
        | PlayerResult
        | MonitorResult
        | UndoResult
        | DiceRevealed
        | ClientSeedResult
        | None
    ) = None
    # Only the GM's tokens receive it (a change to a hidden actor).
    gm_only: bool = False
    # An attack by an actor hidden from players: theirs names it "someone".
    unseen_actor: bool = False
    # Hidden actors in the initiative this event shows: players' events leave them out.
    hidden_actors: list[str] = []
    # An attack as it was asked (its dice are in the result): what a follow-up such as Second
    # Chance acts on, and what a replay needs.
    request: AttackRequest | None = None
    # Suppression zones this change started and ended (to draw and to remove).
    zones_started: list[Zone] = []
    zones_ended: list[str] = []
    # What was left out for the event to fit the bound on a stored event's size
    # (FIREFIGHT_MAX_EVENT_BYTES): ["request"] for an attack stored without its request.
    trimmed: list[str] = []
    # The shape it was stored in (service/engine/migrations.py): absent (0) in events stored
    # before versions were kept.
    schema_version: SchemaVersion = 0
    # An event that rolled: its dice version and, under "hmac-sha256-1", its proof.
    dice: EventDice | None = None
    # A new secret takes over the dice (the encounter's creation, a reveal): its commitment.
    commitment: DiceCommitment | None = None


class Event(StoredEvent, kw_only=True):
    """One entry of an encounter's stream as clients receive it; the id is the stream id."""

    id: str


class ZoneList(msgspec.Struct, gc=False):
    zones: list[Zone]


class EventPage(msgspec.Struct, gc=False):
    events: list[Event]
    # The last event read (even one this token does not see): the next page starts after it.
    last_event_id: str | None
    # The page stopped at its bound (in events or in bytes): ask again with `after`.
    more: bool = False


class RulesetInitiative(msgspec.Struct, gc=False):
    """What the initiative the service runs reads of a roll, for a client that builds one."""

    # The roll's fields added up before the dice, and those that break a tie, in order.
    base: list[str]
    ties: list[str]
    # The ways to fill a phase, e.g. ["1 free, 1 complex", "1 free, 2 simple"].
    phase: list[str]
    source: str
    # "sum": the initiative dice are added up; "hits": their hits are (SR4).
    dice: Literal["sum", "hits"] = "sum"
    # "score": an actor acts in each pass while its score is above 0, `pass_cost` coming off
    # every score at the end of each; "count": in as many passes as its Initiative Passes (SR4).
    passes: Literal["score", "count"] = "score"
    pass_cost: int = 10


class RulesetInfo(msgspec.Struct, gc=False):
    id: RulesetId
    title: str
    source: str
    dice: Literal["d6_pool", "d6_target_number", "d100"]
    firing_modes: list[str]
    actions: list[str]
    zone_shapes: list[str]
    dice_steps: list[str]
    # The initiative engine's numbers (None: the ruleset has no initiative passes).
    initiative: RulesetInitiative | None = None


class RulesetList(msgspec.Struct, gc=False):
    rulesets: list[RulesetInfo]


class RulesetDetail(RulesetInfo, kw_only=True):
    """`GET /v1/rulesets/{ruleset}`: what the list says of it, and the data clients draw with
    (sr3-hardlife: the body map of hexes)."""

    body_map: BodyMap | None = None


class Health(msgspec.Struct, gc=False):
    status: Literal["ok", "unavailable"]
    store: str
