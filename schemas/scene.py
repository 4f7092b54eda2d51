"""The scene: the encounter's actors, one shared table that every client sees the same.

An actor is a name, who controls it, whether players see it, where it stands on the plane (in
metres) and how (its posture), and its ruleset's sheet: what attacks and defenses read of it.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import Id, Name, Point, Request
from schemas.d100 import D100Sheet
from schemas.monitor import Monitor
from schemas.sr3 import SR3Sheet
from schemas.sr3hl import HLSheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet

# The most actors a scene may hold (the service's own limit, FIREFIGHT_MAX_ACTORS, is lower).
MAX_SCENE_ACTORS = 1000
# Who controls an actor: the GM, or a player named by the VTT.
GM = "gm"
# The most Edge points the scene counts as spent by one actor (what more it spends stays there).
MAX_EDGE_SPENT = 1000
EdgeSpent = Annotated[int, msgspec.Meta(ge=0, le=MAX_EDGE_SPENT)]

# One member per ruleset, tagged by "ruleset"; an encounter's actors carry its ruleset's sheet.
ActorSheet = SR5Sheet | D100Sheet | SR3Sheet | SR4Sheet | HLSheet


class Posture(Request):
    prone: bool = False
    cover: Literal["none", "partial", "good", "full"] = "none"
    running: bool = False
    # Aware of the attack coming (a surprised actor is not).
    aware: bool = True


class SceneActor(Request):
    """An actor of the scene, as `PUT .../actors/{actor}` sets it and the state keeps it."""

    name: Name = ""
    # "gm", or the id of the player who acts and moves for it.
    controller: Id = GM
    # Hidden actors are the GM's alone until revealed.
    hidden: bool = False
    position: Point | None = None
    posture: Posture = msgspec.field(default_factory=Posture)
    sheet: ActorSheet | None = None
    # The damage it carries, kept by the service (unless the encounter's `damage` is "vtt").
    monitor: Monitor | None = None
    # Edge points spent since the GM last set it: each attack, action and zone test adds what it
    # spent (a campaign puts it back on the character). Left out: none (never shown as 0); a
    # PUT that leaves it out keeps what the actor had spent.
    edge_spent: EdgeSpent | msgspec.UnsetType = msgspec.UNSET


class ActorPatch(Request):
    """`PATCH .../actors/{actor}`: what it gives replaces that part; the rest stays."""

    name: Name | msgspec.UnsetType = msgspec.UNSET
    controller: Id | msgspec.UnsetType = msgspec.UNSET
    hidden: bool | msgspec.UnsetType = msgspec.UNSET
    position: Point | msgspec.UnsetType | None = msgspec.UNSET
    posture: Posture | msgspec.UnsetType = msgspec.UNSET
    sheet: ActorSheet | msgspec.UnsetType | None = msgspec.UNSET
    monitor: Monitor | msgspec.UnsetType | None = msgspec.UNSET
    edge_spent: EdgeSpent | msgspec.UnsetType = msgspec.UNSET


class ActorMove(Request):
    """`POST .../actors/{actor}/move`: a move is its own small request."""

    position: Point


SceneChange = Literal["set", "patched", "moved", "hidden", "removed"]


class SceneResult(msgspec.Struct, tag="scene", tag_field="kind", omit_defaults=True, gc=False):
    change: SceneChange
    actor: Id
    # The actor after the change (not for one removed, nor one the change hid from players).
    state: SceneActor | None = None
    # A move: the suppression zones the actor stands in now (entered or moved in), each a test
    # to make (POST .../zones/{zone}/tests).
    must_test: list[str] = []


class ActorList(msgspec.Struct, gc=False):
    actors: dict[str, SceneActor]


# Players an encounter may issue tokens to.
MAX_PLAYERS = 50


class PlayerBinding(Request):
    """`POST .../players/{player}`: a token for that player, who then controls these actors (and
    any other the GM gives it as `controller`)."""

    actors: Annotated[list[Id], msgspec.Meta(max_length=MAX_SCENE_ACTORS)] = []


class PlayerResult(msgspec.Struct, tag="player", tag_field="kind", gc=False):
    player: Id
    # The actors the player controls now.
    actors: list[str]
    # False when the GM revoked the player's token.
    has_token: bool = True
