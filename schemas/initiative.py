"""The initiative engine's wire types: the rolls that start a combat turn, the order the service
keeps in the turn (scores, passes, who acts, what the acting actor has used of its phase), and
the result of every change to it."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import ID_MAX_LENGTH, DiceRoll, GivenFaces, Id, Request
from schemas.fair import ClientSeed
from schemas.sr4 import SR4BlastResult

# The most actors one combat turn orders (the service's FIREFIGHT_MAX_ACTORS is lower).
MAX_INITIATIVE_ACTORS = 1000
# Scores stay in this range whatever the passes and interrupts take off (a score of -1000 is
# long out of every pass).
Score = Annotated[int, msgspec.Meta(ge=-1000, le=1000)]
Attribute = Annotated[int, msgspec.Meta(ge=0, le=50)]
# Initiative dice: SR3 and SR5 both stop at 5d6 (1 + at most 4 from augmentations).
InitiativeDice = Annotated[int, msgspec.Meta(ge=1, le=5)]
# SR4's Initiative Passes: how many passes of a combat turn an actor acts in (1, up to 4 with
# augmentations).
Passes = Annotated[int, msgspec.Meta(ge=1, le=4)]
# Action phases an actor may give up ahead at once (SR4 has at most 4 passes a turn).
MAX_LOST_PHASES = 4
# An actor's id in the order the turn keeps: every one came in as an `Id` (a roll's, checked
# against the id pattern); the stored order is read back on every change while the service runs
# the initiative, and the pattern is most of what reading 50 entries costs, so it is bounded by
# its length alone.
ActorId = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX_LENGTH)]
# What an action takes of an actor's phase.
ActionKind = Literal["free", "simple", "complex"]


class InitiativeRoll(Request):
    """One actor's initiative for a combat turn: a score rolled at the table (Foundry's own roll),
    or what the service rolls it from. What the roll leaves out comes from the actor's sheet on
    the scene."""

    actor: Id
    # The score as rolled elsewhere, used as given.
    score: Score | None = None
    # What the ruleset adds up before the dice (SR3: Reaction; SR5: Reaction + Intuition).
    reaction: Attribute | None = None
    intuition: Attribute | None = None
    # SR5 breaks ties by Edge first.
    edge: Attribute | None = None
    initiative_dice: InitiativeDice | None = None
    # Rulesets that count passes (SR4): the actor's Initiative Passes (its sheet's
    # `initiative_passes`, else 1).
    passes: Passes | None = None
    # Added to the score: wound modifiers as a negative number, or a bonus of the table's.
    # Left out: the wounds on the actor's sheet, as its ruleset counts them (else 0).
    modifier: Annotated[int, msgspec.Meta(ge=-50, le=50)] | None = None


class InitiativeStart(Request):
    """`POST .../initiative`: start a combat turn. No `actors`: everyone of the last combat turn
    again, rolled anew from what their last roll was made of."""

    actors: Annotated[list[InitiativeRoll], msgspec.Meta(max_length=MAX_INITIATIVE_ACTORS)] = []
    dice: GivenFaces = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class InitiativeJoin(Request):
    """`POST .../initiative/actors`: actors join the combat turn under way."""

    actors: Annotated[
        list[InitiativeRoll], msgspec.Meta(min_length=1, max_length=MAX_INITIATIVE_ACTORS)
    ]
    dice: GivenFaces = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


Used = Annotated[int, msgspec.Meta(ge=0, le=3)]


class ActionsUsed(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False):
    """What the acting actor has used of its phase so far."""

    free: Used = 0
    simple: Used = 0
    complex: Used = 0


class InitiativeEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False):
    """One actor in the combat turn."""

    actor: ActorId
    # Now: as rolled, less 10 each pass and what interrupts took.
    score: Score
    # The ruleset's tie-breakers, highest first (SR3: Reaction; SR5: Edge, Reaction, Intuition).
    ties: Annotated[list[Score], msgspec.Meta(max_length=4)] = []
    # What the roll was made of, to roll the next combat turn again; None for a score given.
    base: Score | None = None
    initiative_dice: InitiativeDice | None = None
    modifier: Annotated[int, msgspec.Meta(ge=-50, le=50)] = 0
    # Rulesets that count passes (SR4): the passes it acts in; None where the score says it.
    passes: Passes | None = None
    # Has had its phase in this pass.
    acted: bool = False
    # Holds (delays) its action until a later phase of this pass.
    holding: bool = False
    # Action phases it has given up ahead (SR4 full defense declared outside its own phase):
    # the next ones that come to it pass it by.
    lost: Annotated[int, msgspec.Meta(ge=0, le=MAX_LOST_PHASES)] = 0
    # The modifier came from the wounds the combat state keeps (Hard Life's monitors), not
    # from the roll or the sheet: rolled again, it is read off the state again.
    modifier_from_state: bool = False


class Initiative(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False):
    """The order the service runs: everyone of the combat turn, highest score first."""

    entries: Annotated[list[InitiativeEntry], msgspec.Meta(max_length=MAX_INITIATIVE_ACTORS)]
    # Whose phase it is (None once the combat turn is over).
    current: ActorId | None = None
    # What `current` has used of its phase.
    used: ActionsUsed = ActionsUsed()
    # The combat turn is over: the next starts with `POST .../initiative`.
    over: bool = False


InitiativeChange = Literal["started", "joined", "left", "stopped"]
# What a moment of the turn sets off when a change reaches it (SR4's timed grenades going off):
# each in the result of the change that reached it (an advance, an initiative change, a held
# action), seen by everyone as that change's event.
TimedResult = SR4BlastResult


class InitiativeResult(
    msgspec.Struct, tag="initiative", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    change: InitiativeChange
    # Who the change was about (every actor rolled, the one who left).
    actors: list[str]
    # Where the turn stands after it.
    combat_turn: int = 1
    initiative_pass: int = 1
    # The order after it.
    entries: list[InitiativeEntry]
    current: str | None
    # What happened, in words a player reads (the order, the ruleset's combat-turn effects).
    effects: list[str]
    dice: list[DiceRoll] = []
    seed: int | None = None
    went_off: list[TimedResult] = []


class InitiativeView(msgspec.Struct, gc=False):
    """`GET .../initiative`: the order as the service runs it, and what the acting actor has
    left of its phase."""

    combat_turn: int
    initiative_pass: int
    current: str | None
    over: bool
    entries: list[InitiativeEntry]
    # The ways the acting actor may still fill its phase, e.g. ["1 free, 1 complex",
    # "1 free, 2 simple", "3 free"].
    actions_left: list[str]
    source: str
