"""The stored encounter document: read only as far as a request needs, checked before it is
committed, and told to a client as what a change moved.

Who may act is checked on the envelope (ids and token hashes) before the turn and the combat
state are decoded, so a stored state that no longer fits this version's bounds fails only the
requests that need it, with a problem that says where, and never the GM's read, edit or end.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from schemas.encounter import (
    CombatState,
    EncounterEnvelope,
    EncounterState,
    Scene,
    StateChanges,
    TurnState,
)
from service.rules import RuleViolation

_AT_PATH = re.compile(r" - at `\$([^`]*)`$")


class StoredStateInvalid(Exception):
    """The stored state does not fit this version's bounds (409: the GM can replace it)."""

    def __init__(self, detail: str, path: str | None = None) -> None:
        super().__init__(detail)
        self.path = path

    @classmethod
    def of(cls, encounter_id: str, part: str, error: msgspec.ValidationError) -> StoredStateInvalid:
        detail, path = _split(error, f"$.{part}")
        return cls(
            f"encounter '{encounter_id}' keeps a {part} state this version cannot use ({detail}); "
            "the GM can read it with GET and replace it with PUT .../state",
            path,
        )


class StateLimitExceeded(ValueError):
    """The change would make the stored state larger than the service keeps (422)."""


def _split(error: msgspec.ValidationError, prefix: str) -> tuple[str, str]:
    """msgspec's message without its path, and the path under `prefix`."""
    message = str(error)
    match = _AT_PATH.search(message)
    suffix = match.group(1) if match else ""
    return _AT_PATH.sub("", message), prefix + suffix


class Documents:
    """Encodes and decodes the stored document (msgpack), with the bounds of the schemas."""

    def __init__(self, max_state_bytes: int) -> None:
        self._max_state_bytes = max_state_bytes
        self._encoder = msgspec.msgpack.Encoder()
        self._envelope = msgspec.msgpack.Decoder(EncounterEnvelope)
        self._turn = msgspec.msgpack.Decoder(TurnState)
        self._combat = msgspec.msgpack.Decoder(CombatState)
        self._scene = msgspec.msgpack.Decoder(Scene)
        self._state = msgspec.msgpack.Decoder(EncounterState)

    def envelope(self, document: bytes) -> EncounterEnvelope | None:
        """The ids and token hashes; None when even they cannot be read (only the admin key
        opens such an encounter)."""
        try:
            return self._envelope.decode(document)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None

    def state(
        self,
        envelope: EncounterEnvelope,
        turn: TurnState | None = None,
        combat: CombatState | None = None,
    ) -> EncounterState:
        """The whole state, with `turn` or `combat` in place of the stored ones when given (a
        GM's edit does not need what it replaces). StoredStateInvalid names the part that does
        not fit."""
        try:
            turn = turn if turn is not None else self._turn.decode(envelope.turn)
        except msgspec.ValidationError as error:
            raise StoredStateInvalid.of(envelope.id, "turn", error) from None
        try:
            combat = combat if combat is not None else self._combat.decode(envelope.combat)
        except msgspec.ValidationError as error:
            raise StoredStateInvalid.of(envelope.id, "combat", error) from None
        try:
            scene = self._scene.decode(envelope.scene) if envelope.scene else {}
        except msgspec.ValidationError as error:
            raise StoredStateInvalid.of(envelope.id, "scene", error) from None
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
        )

    def as_stored(self, envelope: EncounterEnvelope, players: bool) -> dict[str, Any]:
        """The turn, combat state and scene as stored, without their bounds: what a client is
        shown of a state this version cannot use, so the GM can see what to correct (players
        see no actor marked hidden)."""
        scene = msgspec.msgpack.decode(envelope.scene) if envelope.scene else {}
        if players and isinstance(scene, dict):
            scene = {
                actor_id: actor
                for actor_id, actor in scene.items()
                if not (
                    isinstance(actor, dict)
                    and actor.get("hidden") is not False
                    and "hidden" in actor
                )
            }
        return {
            "turn": msgspec.msgpack.decode(envelope.turn),
            "combat": msgspec.msgpack.decode(envelope.combat),
            "scene": scene,
        }

    def encode(self, state: EncounterState) -> bytes:
        """The document to commit, once it is shown to be readable back within every bound and
        within the size the service keeps: a change that would leave a state no request could
        read is refused (422 naming the field), and nothing is written."""
        try:
            document = self._encoder.encode(state)
        except (OverflowError, msgspec.EncodeError):
            raise RuleViolation(
                "a number in this state is too large to keep", path="$", kind="limit-exceeded"
            ) from None
        if len(document) > self._max_state_bytes:
            raise StateLimitExceeded(
                f"the encounter's state would take {len(document)} bytes, past the "
                f"{self._max_state_bytes} it may; end suppression zones or actors it no longer "
                "needs, or start another encounter"
            )
        try:
            self._state.decode(document)
        except msgspec.ValidationError as error:
            detail, path = _split(error, "$")
            raise RuleViolation(
                f"this change would leave the encounter's state out of bounds: {detail}",
                path=path,
                kind="state-out-of-bounds",
            ) from None
        return document


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
    return {key: value for key, value in new.items() if old.get(key) != value}
