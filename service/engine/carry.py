"""Between a campaign and its encounters: the scene a new encounter starts with (the campaign's
actors brought in), and what an encounter's end gives back to the campaign's characters. Pure:
service/engine/campaigns.py commits what these return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from schemas.campaign import Bring, CampaignActor, CarryPart
from schemas.common import ID_MAX_LENGTH
from schemas.monitor import Monitor
from schemas.scene import GM, SceneActor
from schemas.sr3hl import HLActorState
from service.engine.scene import ActorNotFound
from service.rules import RuleViolation


class CampaignActorNotFound(ActorNotFound):
    """No such character or template in the campaign (or a template, to a player: 404)."""

    def __init__(self, actor_id: str, path: str = "actor") -> None:
        super().__init__(actor_id, path)
        self.args = (f"the campaign has no actor '{actor_id}'",)


@dataclass
class Brought:
    """A new encounter's scene, made of the campaign's actors."""

    scene: dict[str, SceneActor] = field(default_factory=dict)
    # The scene ids each campaign actor was brought in as.
    ids: dict[str, list[str]] = field(default_factory=dict)
    # The characters among them (their scene id is their campaign id).
    characters: list[str] = field(default_factory=list)
    # sr3-hardlife: the combat state's actors that carry damage or worn armour in.
    combat: dict[str, HLActorState] = field(default_factory=dict)


def _carried_monitor(monitor: Monitor | None) -> Monitor | None:
    """A monitor as it goes between a campaign and a scene: damage still waiting for its
    confirmation belongs to the encounter that dealt it (its id is that encounter's)."""
    if monitor is None or not monitor.pending:
        return monitor
    return msgspec.structs.replace(monitor, pending=[])


def scene_actor(actor: CampaignActor, name: str, controller: str) -> SceneActor:
    return SceneActor(
        name=name,
        controller=controller,
        hidden=actor.hidden,
        sheet=actor.sheet,
        monitor=_carried_monitor(actor.monitor),
        edge_spent=actor.edge_spent or msgspec.UNSET,
    )


def brought(actors: Mapping[str, CampaignActor], bring: Sequence[Bring]) -> Brought:
    """The scene `bring` asks for: each character once under its own id, each template `count`
    times as `<id>-1`, `<id>-2`, ... (named "<name> 1", ...), the GM's. A name the campaign
    does not hold, an actor named twice or a copy's id taken is refused, naming the entry."""
    made = Brought()
    for index, asked in enumerate(bring):
        at = f"$.bring[{index}]"
        actor = actors.get(asked.actor)
        if actor is None:
            raise CampaignActorNotFound(asked.actor, f"{at}.actor")
        if asked.actor in made.ids:
            raise RuleViolation(
                f"'{asked.actor}' is brought twice: ask for a template's copies with `count`",
                path=f"{at}.actor",
                kind="brought-twice",
            )
        if actor.kind == "character":
            if asked.count != 1:
                raise RuleViolation(
                    f"'{asked.actor}' is a character: it is brought once (templates are copied)",
                    path=f"{at}.count",
                    kind="character-copied",
                )
            made.characters.append(asked.actor)
            copies = {asked.actor: scene_actor(actor, actor.name, actor.controller)}
        else:
            if len(f"{asked.actor}-{asked.count}") > ID_MAX_LENGTH:
                raise RuleViolation(
                    f"the copies of '{asked.actor}' would have ids longer than {ID_MAX_LENGTH} "
                    "characters: give the template a shorter id",
                    path=f"{at}.actor",
                    kind="id-too-long",
                )
            copies = {
                f"{asked.actor}-{n}": scene_actor(
                    actor, f"{actor.name} {n}" if actor.name else "", GM
                )
                for n in range(1, asked.count + 1)
            }
        for scene_id in copies:
            if scene_id in made.scene or (scene_id in actors and scene_id != asked.actor):
                raise RuleViolation(
                    f"'{scene_id}' is taken by another actor of this campaign: give the template "
                    "another id",
                    path=f"{at}.actor",
                    kind="id-taken",
                )
        made.scene.update(copies)
        made.ids[asked.actor] = list(copies)
        if actor.locations or actor.worn is not None:
            body = getattr(actor.sheet, "body", None)
            made.combat.update(
                dict.fromkeys(
                    copies, HLActorState(monitors=actor.locations, armor=actor.worn, body=body)
                )
            )
    return made


def carried_back(
    character: CampaignActor,
    fought: SceneActor,
    in_combat: object,
    parts: Sequence[CarryPart],
    monitors: bool,
) -> tuple[CampaignActor, list[CarryPart]]:
    """The character with what `parts` takes from the actor as the fight left it (its scene
    actor, and its combat state's `in_combat`), and which parts changed it. `monitors`: whether
    the encounter kept monitors on the scene (one whose damage was the VTT's has none to give
    back, and the character keeps its own); sr3-hardlife's are in its combat state."""
    changes: dict[str, object] = {}
    if "monitor" in parts and monitors and fought.monitor is not None:
        changes["monitor"] = _carried_monitor(fought.monitor)
    if "monitor" in parts and isinstance(in_combat, HLActorState):
        changes["locations"] = in_combat.monitors
        changes["worn"] = in_combat.armor
    if "ammo" in parts:
        sheet = _with_ammo_of(character, fought)
        if sheet is not None:
            changes["sheet"] = sheet
    if "edge" in parts:
        changes["edge_spent"] = fought.edge_spent or 0
    after = msgspec.structs.replace(character, **changes)
    taken: list[CarryPart] = []
    if (after.monitor, after.locations, after.worn) != (
        character.monitor,
        character.locations,
        character.worn,
    ):
        taken.append("monitor")
    if after.sheet != character.sheet:
        taken.append("ammo")
    if after.edge_spent != character.edge_spent:
        taken.append("edge")
    return after, taken


def _with_ammo_of(character: CampaignActor, fought: SceneActor) -> object | None:
    """The character's sheet with the rounds each of its guns held at the fight's end (a gun
    matched by id on the scene's sheet of the same ruleset); None when nothing matches."""
    sheet, theirs = character.sheet, fought.sheet
    if sheet is None or theirs is None or type(sheet) is not type(theirs):
        return None
    rounds = {weapon.id: weapon.ammo for weapon in getattr(theirs, "weapons", [])}
    weapons = getattr(sheet, "weapons", None)
    if not weapons:
        return None
    guns = [msgspec.structs.replace(w, ammo=rounds[w.id]) if w.id in rounds else w for w in weapons]
    return msgspec.structs.replace(sheet, weapons=guns)
