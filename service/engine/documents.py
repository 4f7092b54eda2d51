"""The stored encounter document: one field per actor beside a head, read only as far as a
request needs, checked before it is committed, and told to a client as what a change moved.

The head (ids, token hashes, turn, the combat state without its actors, the order of the actors)
and each actor of the combat state and of the scene are fields of their own, so a change writes
only what it changed: an attack moves its shooter's and its targets' fields, whatever the size of
the table. Who may act is checked on the head (ids and token hashes) before the turn and the
combat state are decoded, so a stored state that no longer fits this version's bounds fails only
the requests that need it, with a problem that says where, and never the GM's read, edit or end.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from schemas.encounter import (
    CombatState,
    EncounterEnvelope,
    EncounterState,
    StateChanges,
    StoredHead,
    TurnState,
)
from schemas.scene import SceneActor
from service.engine.migrations import (
    ACTOR,
    ENCOUNTER_STEPS,
    HEAD,
    SCENE,
    SCHEMA_VERSION,
    later_version,
    migrated,
    version_of,
)
from service.rules import RuleViolation
from service.store import StoredEncounter

_AT_PATH = re.compile(r" - at `\$([^`]*)`$")

# The fields of a document (HEAD, ACTOR, SCENE), and LEGACY, the whole document in one field as
# earlier versions kept it, are named in service/engine/migrations.py, which reads those.

ACTOR_PATH = "$.combat.actors[...]"
SCENE_PATH = "$.scene[...]"


class StoredStateInvalid(Exception):
    """The stored state does not fit this version's bounds (409: the GM can replace it)."""

    def __init__(self, detail: str, path: str | None = None) -> None:
        super().__init__(detail)
        self.path = path

    @classmethod
    def of(
        cls, encounter_id: str, part: str, error: msgspec.DecodeError, prefix: str = ""
    ) -> StoredStateInvalid:
        detail, path = _split(error, prefix or f"$.{part}")
        return cls(
            f"encounter '{encounter_id}' keeps a {part} state this version cannot use ({detail}); "
            "the GM can read it with GET and replace it with PUT .../state",
            path,
        )


def unreadable(document: Document) -> str:
    """Why this version opens no request on a document: stored by a later version, or with a
    head it cannot read."""
    if document.later is not None:
        return later_version("encounter", document.encounter_id, document.later)
    return f"encounter '{document.encounter_id}' has a document this cannot read"


class StoredByLaterVersion(StoredStateInvalid):
    """A document a later version stored (409 naming its version): who asks is still checked
    first, on the token hashes its head keeps, so a wrong token learns nothing of it."""

    def __init__(self, detail: str, token_hashes: Mapping[str, str]) -> None:
        super().__init__(detail)
        self.token_hashes = token_hashes


class StateLimitExceeded(ValueError):
    """The change would make the stored state larger than the service keeps (422)."""


def _split(error: msgspec.DecodeError, prefix: str) -> tuple[str, str]:
    """msgspec's message without its path, and the path under `prefix`."""
    message = str(error)
    match = _AT_PATH.search(message)
    suffix = match.group(1) if match else ""
    return _AT_PATH.sub("", message), prefix + suffix


@dataclass
class Document:
    """One encounter as stored: its fields and version, what is decoded of them, and its size.

    A document is shared by the requests that read it (the engine keeps the newest in memory):
    nothing changes it but `decoded`, set once when the state is first decoded."""

    encounter_id: str
    version: int
    ended: bool
    fields: Mapping[str, bytes]
    # None when even the head cannot be read (only the admin key opens such an encounter).
    envelope: EncounterEnvelope | None
    size: int
    # Stored by an earlier version (service/engine/migrations.py): `fields` are in this
    # version's shape, and its first change writes every one of them anew in place of the
    # fields stored (`stored`, their names).
    migrated: bool = False
    decoded: EncounterState | None = None
    stored: frozenset[str] = frozenset()
    # Stored by a later version (its schema version): never used nor written by this one.
    later: int | None = None


@dataclass(frozen=True)
class Patch:
    """A new state as a change to the stored fields, and the document it makes."""

    changed: dict[str, bytes]
    removed: list[str]
    document: Document


def _actor_type(combat_type: type[Any]) -> type[Any]:
    """The type of a combat state's actors: every ruleset's state keeps them in `actors`, a map
    of actor id to the ruleset's actor state."""
    actors = typing.get_type_hints(combat_type)["actors"]
    return typing.get_args(actors)[1]  # type: ignore[no-any-return]


class Documents:
    """Encodes and decodes the stored document (msgpack fields), with the bounds of the schemas."""

    def __init__(self, max_state_bytes: int, combat_types: Mapping[str, type[Any]]) -> None:
        self._max_state_bytes = max_state_bytes
        self.max_state_bytes = max_state_bytes
        self._encoder = msgspec.msgpack.Encoder()
        self._envelope = msgspec.msgpack.Decoder(EncounterEnvelope)
        self._head = msgspec.msgpack.Decoder(StoredHead)
        self._turn = msgspec.msgpack.Decoder(TurnState)
        self._combat = msgspec.msgpack.Decoder(CombatState)
        self._scene_actor = msgspec.msgpack.Decoder(SceneActor)
        self._actors = {
            ruleset_id: msgspec.msgpack.Decoder(_actor_type(combat_type))
            for ruleset_id, combat_type in combat_types.items()
        }

    # --- reading -------------------------------------------------------------------------

    def read(self, encounter_id: str, stored: StoredEncounter) -> Document:
        """The document of a stored encounter (its head decoded, the rest when asked for)."""
        fields: Mapping[str, bytes] = stored.fields
        envelope = self._envelope_of(fields)
        version = envelope.schema_version if envelope else version_of(fields)
        earlier, later = False, None
        if version > SCHEMA_VERSION:
            later = version
        elif version < SCHEMA_VERSION:
            fields = migrated(ENCOUNTER_STEPS, fields, version)
            envelope, earlier = self._envelope_of(fields), True
        size = sum(len(value) for value in fields.values())
        return Document(
            encounter_id,
            stored.version,
            stored.ended,
            fields,
            envelope,
            size,
            earlier,
            stored=frozenset(stored.fields) if earlier else frozenset(),
            later=later,
        )

    def _envelope_of(self, fields: Mapping[str, bytes]) -> EncounterEnvelope | None:
        if HEAD not in fields:
            return None
        try:
            return self._envelope.decode(fields[HEAD])
        except msgspec.DecodeError:
            return None

    def state(
        self,
        document: Document,
        turn: TurnState | None = None,
        combat: CombatState | None = None,
    ) -> EncounterState:
        """The whole state, with `turn` or `combat` in place of the stored ones when given (a
        GM's edit does not need what it replaces). StoredStateInvalid names the part that does
        not fit."""
        replaced = turn is not None or combat is not None
        if document.decoded is not None and not replaced:
            return document.decoded
        envelope = document.envelope
        encounter_id = document.encounter_id
        if envelope is None or document.later is not None:
            raise StoredStateInvalid(unreadable(document))
        try:
            turn = turn if turn is not None else self._turn.decode(envelope.turn)
        except msgspec.DecodeError as error:
            raise StoredStateInvalid.of(encounter_id, "turn", error) from None
        if combat is None:
            try:
                without_actors = self._combat.decode(envelope.combat)
            except msgspec.DecodeError as error:
                raise StoredStateInvalid.of(encounter_id, "combat", error) from None
            actors = self._members(
                document, envelope.actors, ACTOR, self._actors[envelope.ruleset], "combat"
            )
            combat = msgspec.structs.replace(without_actors, actors=actors)
        scene = self._members(document, envelope.scene, SCENE, self._scene_actor, "scene")
        state = _state(envelope, turn, combat, scene)
        if not replaced:
            document.decoded = state
        return state

    def _members(
        self,
        document: Document,
        ids: list[str],
        prefix: str,
        decoder: msgspec.msgpack.Decoder[Any],
        part: str,
    ) -> dict[str, Any]:
        """The actors kept in fields of their own, in the head's order."""
        path = ACTOR_PATH if prefix == ACTOR else SCENE_PATH
        members: dict[str, Any] = {}
        for member_id in ids:
            field = document.fields.get(prefix + member_id)
            if field is None:
                raise StoredStateInvalid(
                    f"encounter '{document.encounter_id}' keeps no {part} state for actor "
                    f"'{member_id}'; the GM can replace the state with PUT .../state",
                    path,
                )
            try:
                members[member_id] = decoder.decode(field)
            except msgspec.DecodeError as error:
                raise StoredStateInvalid.of(document.encounter_id, part, error, path) from None
        return members

    def as_stored(self, document: Document, players: bool) -> dict[str, Any]:
        """The turn, combat state and scene as stored, without their bounds: what a client is
        shown of a state this version cannot use, so the GM can see what to correct (players
        see no actor marked hidden)."""
        envelope = document.envelope
        assert envelope is not None
        combat = _loose(envelope.combat)
        if isinstance(combat, dict):
            combat["actors"] = {
                actor_id: _loose(document.fields.get(ACTOR + actor_id))
                for actor_id in envelope.actors
            }
        scene = {}
        for actor_id in envelope.scene:
            actor = _loose(document.fields.get(SCENE + actor_id))
            hidden = isinstance(actor, dict) and actor.get("hidden", False) is not False
            if not (players and hidden):
                scene[actor_id] = actor
        return {"turn": _loose(envelope.turn), "combat": combat, "scene": scene}

    # --- writing -------------------------------------------------------------------------

    def patch(self, before: Document | None, after: EncounterState) -> Patch:
        """The fields `after` changes from `before` (every field for a new encounter), each shown
        to be readable back within every bound, and the whole within the size the service keeps:
        a change that would leave a state no request could read is refused (422 naming the
        field), and nothing is written. The document it makes holds the state as read back, as
        a later read from the store gives it."""
        try:
            return self._patch(before, after)
        except (OverflowError, msgspec.EncodeError):
            raise RuleViolation(
                "a number in this state is too large to keep", path="$", kind="limit-exceeded"
            ) from None

    def _patch(self, before: Document | None, after: EncounterState) -> Patch:
        # A document of an earlier version is written whole, in this version's shape.
        anew = before is None or before.migrated
        old: Mapping[str, bytes] = {} if anew or before is None else before.fields
        # What the fields hold, decoded: the objects a change did not touch need no writing.
        decoded = None if anew or before is None else before.decoded
        fields = dict(old)
        changed: dict[str, bytes] = {}
        actors = self._changed_members(
            old,
            None if decoded is None else decoded.combat.actors,
            after.combat.actors,
            ACTOR,
            self._actors[after.ruleset],
            fields,
            changed,
        )
        scene = self._changed_members(
            old,
            None if decoded is None else decoded.scene,
            after.scene,
            SCENE,
            self._scene_actor,
            fields,
            changed,
        )
        head = self._encoder.encode(
            StoredHead(
                schema_version=SCHEMA_VERSION,
                id=after.id,
                ruleset=after.ruleset,
                name=after.name,
                created_at=after.created_at,
                turn=after.turn,
                combat=msgspec.structs.replace(after.combat, actors={}),
                token_hashes=after.token_hashes,
                dice_policy=after.dice_policy,
                sheet_policy=after.sheet_policy,
                damage=after.damage,
                last_pending=after.last_pending,
                campaign=after.campaign,
                actors=list(after.combat.actors),
                scene=list(after.scene),
            )
        )
        if decoded is not None and before is not None and before.envelope and old.get(HEAD) == head:
            envelope = before.envelope
            turn, without_actors = decoded.turn, decoded.combat
        else:
            stored_head = self._checked(self._head, head, "$")
            envelope = self._envelope.decode(head)
            turn, without_actors = stored_head.turn, stored_head.combat
            changed[HEAD] = fields[HEAD] = head
        removed = [name for name in old.keys() - fields.keys()]
        if before is not None and before.migrated:
            removed += sorted(before.stored - fields.keys())
        size = 0 if anew or before is None else before.size
        size += sum(len(value) - len(old.get(name, b"")) for name, value in changed.items())
        size -= sum(len(old[name]) for name in removed if name in old)
        if size > self._max_state_bytes:
            raise StateLimitExceeded(
                f"the encounter's state would take {size} bytes, past the "
                f"{self._max_state_bytes} it may; end suppression zones or actors it no longer "
                "needs, or start another encounter"
            )
        combat = msgspec.structs.replace(without_actors, actors=actors)
        state = _state(envelope, turn, combat, scene)
        document = Document(
            after.id,
            1 if before is None else before.version + 1,
            False,
            fields,
            envelope,
            size,
            decoded=state,
        )
        return Patch(changed, removed, document)

    def _changed_members(
        self,
        old: Mapping[str, bytes],
        decoded: Mapping[str, Any] | None,
        members: Mapping[str, Any],
        prefix: str,
        decoder: msgspec.msgpack.Decoder[Any],
        fields: dict[str, bytes],
        changed: dict[str, bytes],
    ) -> dict[str, Any]:
        """Each actor of `members` as read back: one the change did not touch (the very object
        decoded before) costs nothing; the others are encoded, and those whose bytes differ are
        checked and changed. Fields of actors no longer there leave `fields`."""
        path = ACTOR_PATH if prefix == ACTOR else SCENE_PATH
        if decoded is None:
            touched = list(members)
            gone = [n[len(prefix) :] for n in old if n.startswith(prefix)]
        else:
            # A change replaces the actors it touches and keeps the very objects of the others.
            touched = [k for k, v in members.items() if decoded.get(k) is not v]
            gone = list(decoded.keys() - members.keys())
        read_back = dict(members)
        for member_id in touched:
            name = prefix + member_id
            encoded = self._encoder.encode(members[member_id])
            read_back[member_id] = self._checked(decoder, encoded, path)
            if old.get(name) != encoded:
                changed[name] = fields[name] = encoded
        for member_id in gone:
            if member_id not in members:
                fields.pop(prefix + member_id, None)
        return read_back

    def _checked(self, decoder: msgspec.msgpack.Decoder[Any], encoded: bytes, path: str) -> Any:
        try:
            return decoder.decode(encoded)
        except msgspec.ValidationError as error:
            detail, at = _split(error, path)
            raise RuleViolation(
                f"this change would leave the encounter's state out of bounds: {detail}",
                path=at,
                kind="state-out-of-bounds",
            ) from None


def _state(
    envelope: EncounterEnvelope, turn: TurnState, combat: CombatState, scene: dict[str, SceneActor]
) -> EncounterState:
    """The state from its head and its decoded parts."""
    return EncounterState(
        id=envelope.id,
        ruleset=envelope.ruleset,
        name=envelope.name,
        created_at=envelope.created_at,
        turn=turn,
        combat=combat,
        token_hashes=envelope.token_hashes,
        scene=scene,
        dice_policy=envelope.dice_policy,
        sheet_policy=envelope.sheet_policy,
        damage=envelope.damage,
        last_pending=envelope.last_pending,
        campaign=envelope.campaign,
    )


def _loose(field: bytes | None) -> Any:
    """A field decoded without its bounds (None when it cannot be decoded at all)."""
    if field is None:
        return None
    try:
        return msgspec.msgpack.decode(field)
    except msgspec.DecodeError:
        return None


def changes(before: EncounterState, after: EncounterState, version: int) -> StateChanges:
    """What moved from `before` to `after`: the turn if it changed, per combat field the map
    entries that changed, appeared or went away (or the new value of any other field), and the
    scene's actors likewise."""
    combat: dict[str, Any] = {}
    removed: dict[str, list[str]] = {}
    old_combat, new_combat = before.combat, after.combat
    for name in new_combat.__struct_fields__:
        old = getattr(old_combat, name, None)
        new = getattr(new_combat, name)
        if old == new:
            continue
        if isinstance(new, dict) and isinstance(old, dict):
            combat[name] = _changed(old, new, name, removed)
        else:
            combat[name] = new
    scene = (
        {} if before.scene == after.scene else _changed(before.scene, after.scene, "scene", removed)
    )
    return StateChanges(
        version=version,
        turn=after.turn if after.turn != before.turn else None,
        combat=combat,
        scene=scene,
        removed=removed,
    )


def _changed(
    old: dict[str, Any], new: dict[str, Any], name: str, removed: dict[str, list[str]]
) -> dict[str, Any]:
    """The entries of `new` that differ from `old`; those gone are added to `removed[name]`."""
    gone = [key for key in old if key not in new]
    if gone:
        removed[name] = gone
    return {
        key: value
        for key, value in new.items()
        if (kept := old.get(key)) is not value and kept != value
    }
