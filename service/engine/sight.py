"""What a token sees, and whom it acts for: the one place every answer, event, problem text and
preview a player's token gets goes through.

The GM's token sees everything. A player's token (the shared one, or a player's own) sees the
scene without its hidden actors, and to it a hidden actor and an unknown one are the same: a
request may not name one (under the "scene" sheet policy) or names it as an actor the scene does
not hold (under "typed"), and whatever it reads has the hidden actors taken out: entries about
them dropped, a line of text about one (an effect) left out, their names in other entries and
in a problem's text said as "someone".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from schemas.encounter import CombatState, EncounterState, TurnState
from schemas.scene import GM, SceneActor
from service.engine.access import Forbidden, player_of
from service.engine.scene import ActorNotFound

# How players' answers and events name an actor they cannot see.
SOMEONE = "someone"
# The fields that name one actor: in an entry of a list, the entry is about that actor (an
# initiative entry, a blast's hit, a bystander, a target's result) and is dropped; anywhere
# else the name is said as "someone".
_ENTRY_FIELDS = ("id", "actor", "target")
_NAME_FIELDS = frozenset(
    {"id", "actor", "target", "attacker", "shooter", "thrower", "current", "action_phase"}
)


@dataclass(frozen=True)
class Sight:
    """What a token of `role` sees of an encounter whose hidden actors are `hidden`."""

    role: str
    hidden: frozenset[str]

    @classmethod
    def of(cls, state: EncounterState, role: str) -> Sight:
        if role == GM:
            return cls(role, frozenset())
        return cls(role, frozenset(i for i, actor in state.scene.items() if actor.hidden))

    @property
    def everything(self) -> bool:
        return self.role == GM or not self.hidden

    @property
    def player(self) -> str | None:
        """The player whose own token this is (None: the GM's, or the shared player token)."""
        return player_of(self.role)

    def without(self, shown: Iterable[str]) -> Sight:
        """This sight with the `shown` actors no longer hidden from it."""
        return Sight(self.role, self.hidden.difference(shown))

    def but_what_was_asked(self, asked: str) -> Sight:
        """This sight for the answer to a request (its path and body as text): a name the
        request gave itself is said back as given, as an unknown one is; it tells the player
        nothing it did not say. A name only inside another word ("a" in "attack") is no name."""
        if self.everything:
            return self
        return self.without(match.group(1) for match in _names(self.hidden).finditer(asked))

    def scene(self, scene: Mapping[str, SceneActor]) -> dict[str, SceneActor]:
        return {i: actor for i, actor in scene.items() if i not in self.hidden}

    def redact(self, value: Any) -> Any:
        """A JSON value (as msgspec.to_builtins gives it) as this token may see it."""
        if self.everything:
            return value
        return redact(value, self.hidden, _names(self.hidden))

    def redact_json(self, encoded: bytes) -> bytes:
        if self.everything:
            return encoded
        return msgspec.json.encode(self.redact(msgspec.json.decode(encoded)))

    def turn(self, turn: TurnState) -> TurnState:
        """The turn without the hidden actors in the initiative (their names, their scores)."""
        if self.everything:
            return turn
        return msgspec.convert(self.redact(msgspec.to_builtins(turn)), TurnState)

    def check_named(self, names: Iterable[tuple[str, str]], state: EncounterState) -> None:
        """Under the "scene" sheet policy a player's request names only actors it sees on the
        scene: a hidden actor and an unknown one are refused alike (404, the same text)."""
        if self.role == GM or state.sheet_policy != "scene":
            return
        for actor_id, path in names:
            if actor_id not in state.scene or actor_id in self.hidden:
                raise ActorNotFound(actor_id, path)

    def check_acts_for(self, state: EncounterState, actor_id: str, path: str) -> None:
        """A player's own token acts for the actors its player controls; the shared player
        token for those any player controls, never a GM's actor (and, where players may type
        their numbers, for an actor the scene does not hold). A hidden actor is one the scene
        does not hold."""
        if self.role == GM:
            return
        actor = None if actor_id in self.hidden else state.scene.get(actor_id)
        player = self.player
        if player is not None:
            if actor is None or actor.controller != player or player == GM:
                raise Forbidden(f"player '{player}' does not control '{actor_id}'", path)
            return
        if actor is None:
            if state.sheet_policy == "typed":
                return
            raise ActorNotFound(actor_id, path)
        if actor.controller == GM:
            raise Forbidden(
                f"the player token does not act for '{actor_id}', the GM's actor: the GM's "
                "token does",
                path,
            )

    def named_hidden(self, names: Collection[str]) -> frozenset[str]:
        """The names a player's request gave that are hidden actors: to that request they are
        actors the scene does not hold (only possible where players type their numbers)."""
        return frozenset(names) & self.hidden


def _names(hidden: Collection[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.:-])(" + "|".join(map(re.escape, sorted(hidden))) + r")(?![\w.:-])")


_DROP = object()


def redact(value: Any, hidden: Collection[str], names: re.Pattern[str]) -> Any:
    """`value` without what it says of the `hidden` actors (see the module's docstring)."""
    shown = _redacted(value, hidden, names, in_list=False)
    return None if shown is _DROP else shown


def _names_one(value: Any, hidden: Collection[str]) -> bool:
    return isinstance(value, str) and value in hidden


def _redacted(value: Any, hidden: Collection[str], names: re.Pattern[str], in_list: bool) -> Any:
    if isinstance(value, str):
        if in_list and (value in hidden or names.search(value)):
            # An id in a list, or a line of text about a hidden actor (an effect: "ninja's
            # combat phase (pass 1, score 30)" would tell that it is in the fight, and more).
            return _DROP
        return names.sub(SOMEONE, value) if value else value
    if isinstance(value, list):
        kept = (_redacted(item, hidden, names, in_list=True) for item in value)
        return [item for item in kept if item is not _DROP]
    if not isinstance(value, dict):
        return value
    if in_list and any(_names_one(value.get(name), hidden) for name in _ENTRY_FIELDS):
        return _DROP
    step = value.get("step")
    if isinstance(step, str) and step.partition(":")[2] in hidden:
        # A die rolled for a hidden actor's step (its defense, its initiative).
        return _DROP
    shown: dict[str, Any] = {}
    for key, item in value.items():
        if key in hidden:
            # An entry of a map by actor (the combat state's actors, a split's shares).
            continue
        if key in _NAME_FIELDS and isinstance(item, str) and item in hidden:
            shown[key] = SOMEONE
            continue
        shown[key] = _redacted(item, hidden, names, in_list=False)
    return shown


def without_actors(state: EncounterState, masked: frozenset[str]) -> EncounterState:
    """The state without the combat state of the `masked` actors."""
    actors = {i: a for i, a in state.combat.actors.items() if i not in masked}
    combat = msgspec.structs.replace(state.combat, actors=actors)
    return msgspec.structs.replace(state, combat=combat)


def with_actors_of(combat: CombatState, real: CombatState, masked: frozenset[str]) -> CombatState:
    """`combat` with the `masked` actors' combat state as it is in `real`."""
    actors = {i: a for i, a in combat.actors.items() if i not in masked}
    actors.update({i: a for i, a in real.actors.items() if i in masked})
    return msgspec.structs.replace(combat, actors=actors)
