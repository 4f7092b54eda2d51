"""Campaigns: the group's characters and the GM's NPC templates, kept between encounters.

A campaign plays one ruleset. Its characters are brought into an encounter's scene as they are
and, when the GM ends that encounter, take back what the fight changed (their monitors, the
rounds in their guns, the Edge they spent). A template is brought in as many copies as the GM
asks (`ganger` -> `ganger-1`, `ganger-2`); what happens to a copy never changes the template.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import Id, Name, Request
from schemas.encounter import (
    CombatState,
    DicePolicy,
    EncounterCreated,
    RulesetId,
    SchemaVersion,
    SheetPolicy,
)
from schemas.imports import ImportReport
from schemas.monitor import DamageMode, Monitor
from schemas.scene import GM, ActorSheet, EdgeSpent
from schemas.sr3hl import ArmorPieces, HLMonitor, MonitorName

# Campaign ids: this prefix and 32 hex digits. The store keeps documents under such ids without
# expiry (service/store/base.py LASTING_PREFIX).
CAMPAIGN_PREFIX = "campaign-"
# Characters and templates one campaign keeps.
MAX_CAMPAIGN_ACTORS = 200
# Encounters a campaign lists, the newest first (older ones drop off the list, not the store).
MAX_CAMPAIGN_ENCOUNTERS = 50
# Actors one `bring` names, and copies of one template it makes.
MAX_BRING = 50
MAX_COPIES = 20

HLMonitors = Annotated[dict[MonitorName, HLMonitor], msgspec.Meta(max_length=15)]

ActorKind = Literal["character", "template"]
# What an encounter's end gives back to the campaign's characters.
CarryPart = Literal["monitor", "ammo", "edge"]
CARRY_PARTS: tuple[CarryPart, ...] = ("monitor", "ammo", "edge")


class CampaignCreate(Request):
    ruleset: RulesetId
    name: Name = ""


class CampaignActor(Request):
    """A character (a player's, or the GM's recurring one) or an NPC template."""

    kind: ActorKind = "character"
    name: Name = ""
    # "gm", or the player who plays the character (a template's copies are always the GM's).
    controller: Id = GM
    # Brought into a scene hidden from the players.
    hidden: bool = False
    sheet: ActorSheet | None = None
    # The damage it carries from one fight to the next (pending damage is never carried).
    monitor: Monitor | None = None
    edge_spent: EdgeSpent = 0
    # sr3-hardlife keeps its monitors in the combat state: the damage by location and the armour
    # as worn down, carried as the monitor is.
    locations: HLMonitors = {}
    worn: ArmorPieces | None = None


class CampaignActorPatch(Request):
    """`PATCH .../campaigns/{id}/actors/{actor}`: what it gives replaces that part."""

    kind: ActorKind | msgspec.UnsetType = msgspec.UNSET
    name: Name | msgspec.UnsetType = msgspec.UNSET
    controller: Id | msgspec.UnsetType = msgspec.UNSET
    hidden: bool | msgspec.UnsetType = msgspec.UNSET
    sheet: ActorSheet | msgspec.UnsetType | None = msgspec.UNSET
    monitor: Monitor | msgspec.UnsetType | None = msgspec.UNSET
    edge_spent: EdgeSpent | msgspec.UnsetType = msgspec.UNSET
    locations: HLMonitors | msgspec.UnsetType = msgspec.UNSET
    worn: ArmorPieces | msgspec.UnsetType | None = msgspec.UNSET


class CampaignEncounter(msgspec.Struct, omit_defaults=True, gc=False):
    """An encounter started in the campaign, as the campaign lists it."""

    id: str
    name: str
    created_at: str
    ended: bool = False
    # What its end gave back, by character.
    carried: dict[str, list[CarryPart]] = {}


class CampaignHead(msgspec.Struct, gc=False):
    """The stored campaign's `head` field; each actor is a field of its own."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    # SHA-256 of the GM's token and of each player's ("player:<id>").
    token_hashes: dict[str, str] = {}
    # The actors' ids, in the order they were first put.
    actors: list[Id] = []
    encounters: list[CampaignEncounter] = []
    # The shape it was stored in (service/engine/migrations.py): 0, before versions were kept.
    schema_version: SchemaVersion = 0


class CampaignCreated(msgspec.Struct, gc=False):
    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    # The campaign's GM token: given once, in this answer.
    token: str
    event_id: str


class CampaignView(msgspec.Struct, gc=False):
    """What a token sees of a campaign: the GM everything; a player the characters (never the
    templates) and the encounters."""

    id: str
    ruleset: RulesetId
    name: str
    created_at: str
    version: int
    actors: dict[str, CampaignActor]
    encounters: list[CampaignEncounter]
    # The players who hold a token (the GM's view only).
    players: list[str] = []
    # The player this token is ("" for the GM's).
    player: str = ""


CampaignChange = Literal["created", "set", "patched", "removed", "player", "encounter"]


class CampaignResult(msgspec.Struct, tag="campaign", tag_field="kind", gc=False):
    change: CampaignChange
    # The actor, player or encounter the change is about.
    subject: str = ""
    actor: CampaignActor | None = None


class CampaignOutcome(msgspec.Struct, gc=False):
    event_id: str
    version: int
    result: CampaignResult
    # A player's token: given once, in this answer.
    token: str | None = None
    # An import: what was read from where and left out.
    report: ImportReport | None = None


class CampaignEvent(msgspec.Struct, omit_defaults=True, gc=False):
    """A change to a campaign, as its stream keeps it."""

    type: Literal["campaign"]
    campaign: str
    at: str
    result: CampaignResult
    schema_version: SchemaVersion = 0


class CampaignPlayer(Request):
    """`POST .../campaigns/{id}/players/{player}`: a token for that player (a new one replaces
    the old), who then plays these characters too."""

    characters: Annotated[list[Id], msgspec.Meta(max_length=MAX_CAMPAIGN_ACTORS)] = []


class Bring(Request):
    """A campaign actor brought into a new encounter's scene: a character once, under its own
    id; a template `count` times, as `<id>-1`, `<id>-2`, ..."""

    actor: Id
    count: Annotated[int, msgspec.Meta(ge=1, le=MAX_COPIES)] = 1


class CampaignEncounterCreate(Request):
    """`POST .../campaigns/{id}/encounters`: an encounter of the campaign's ruleset whose
    scene holds the actors brought."""

    name: Name = ""
    bring: Annotated[list[Bring], msgspec.Meta(max_length=MAX_BRING)] = []
    dice_policy: DicePolicy = "own"
    sheet_policy: SheetPolicy = "scene"
    damage: DamageMode = "service"
    combat: CombatState | None = None


class CampaignEncounterCreated(EncounterCreated):
    campaign: str = ""
    # The scene id each campaign actor was brought in as.
    brought: dict[str, list[str]] = {}


class CarryBack(msgspec.Struct, gc=False):
    """What an encounter's end gave back to its campaign."""

    campaign: str
    carried: dict[str, list[CarryPart]]
    # Characters that could not take it back, and why.
    skipped: dict[str, str] = {}
