"""Stored shapes across versions: every stored document (an encounter's head, a campaign's head)
and every event carries the schema version that wrote it, and what an earlier version stored is
brought to this version's shape when it is read, one step per version, here.

A document or event without the field was stored before versions were kept (UNVERSIONED, 0):
every landed state of main up to this one (tests/fixtures/stored holds what each kind wrote). The
next change of a stored shape adds one step (a function from version n to n + 1, registered under
n), raises SCHEMA_VERSION, and adds a fixture of what the version before it stored
(tests/make_stored_fixture.py). Reading a document of the current version costs one comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

# The shape this version writes, of every document and event.
SCHEMA_VERSION: Final = 1
# What a document or event without the field is: stored before versions were kept.
UNVERSIONED: Final = 0

# The document's fields (service/engine/documents.py; a campaign's, campaign_core.py).
HEAD = "head"
ACTOR = "a:"
SCENE = "s:"
# The whole encounter in one field, as stops 7 to 17 kept it.
LEGACY = "doc"

Fields = dict[str, bytes]
Step = Callable[[Fields], Fields]
EventStep = Callable[[dict[str, Any]], dict[str, Any]]


class _Versioned(msgspec.Struct):
    schema_version: int = UNVERSIONED


_version = msgspec.msgpack.Decoder(_Versioned)
_event_version = msgspec.json.Decoder(_Versioned)


def version_of(fields: Mapping[str, bytes]) -> int:
    """The schema version of a document's fields (its head's), read without its bounds: 0 for
    one stored before versions (or whose head cannot be read: the reader then says so)."""
    head = fields.get(HEAD)
    if head is None:
        return UNVERSIONED
    try:
        return _version.decode(head).schema_version
    except msgspec.DecodeError:
        return UNVERSIONED


def token_hashes(fields: Mapping[str, bytes]) -> dict[str, str]:
    """The token hashes a document's head keeps, read without its bounds (of any version: who
    asks is checked before anything else is said of it)."""
    head = _loose(fields.get(HEAD))
    hashes = head.get("token_hashes") if isinstance(head, dict) else None
    if not isinstance(hashes, dict):
        return {}
    return {k: v for k, v in hashes.items() if isinstance(k, str) and isinstance(v, str)}


def _loose(field: bytes | None) -> Any:
    if field is None:
        return None
    try:
        return msgspec.msgpack.decode(field)
    except msgspec.DecodeError:
        return None


def split_legacy(document: bytes) -> Fields:
    """A document kept in one field as fields (head, one per actor), its values as they were
    (checked when read): empty when it cannot be decoded at all."""
    whole = _loose(document)
    if not isinstance(whole, dict):
        return {}
    combat = whole.get("combat")
    actors = combat.pop("actors", {}) if isinstance(combat, dict) else {}
    scene = whole.pop("scene", {})
    actors = actors if isinstance(actors, dict) else {}
    scene = scene if isinstance(scene, dict) else {}
    head = {**whole, "actors": list(actors), "scene": list(scene)}
    fields = {HEAD: msgspec.msgpack.encode(head)}
    fields.update({ACTOR + key: msgspec.msgpack.encode(value) for key, value in actors.items()})
    fields.update({SCENE + key: msgspec.msgpack.encode(value) for key, value in scene.items()})
    return fields


# What an encounter stored before each of its policies existed did then: any token gave any
# dice (the dice policy came in stop 17), players typed their numbers (the sheet policy, stop
# 31) and the VTT applied the damage (the service's monitors, stop 32). Every version since
# writes all three, so a head without one is from before it.
_BEFORE_POLICIES = {"dice_policy": "any", "sheet_policy": "typed", "damage": "vtt"}


def _encounter_unversioned(fields: Fields) -> Fields:
    """Version 0 (stops 7 to 34) to 1: the one-field document in fields, and the policies it
    played by written out."""
    if HEAD not in fields and LEGACY in fields:
        fields = {k: v for k, v in fields.items() if k != LEGACY} | split_legacy(fields[LEGACY])
    head = _loose(fields.get(HEAD))
    if not isinstance(head, dict):
        # Nothing to bring forward: the reader says what it cannot read.
        return fields
    head = {**_BEFORE_POLICIES, **head, "schema_version": 1}
    return {**fields, HEAD: msgspec.msgpack.encode(head)}


def _campaign_unversioned(fields: Fields) -> Fields:
    """Version 0 (stops 33 and 34) to 1: the same shape, with its version."""
    head = _loose(fields.get(HEAD))
    if not isinstance(head, dict):
        return fields
    return {**fields, HEAD: msgspec.msgpack.encode({**head, "schema_version": 1})}


# The steps, by the version each starts from.
ENCOUNTER_STEPS: Final[Mapping[int, Step]] = {0: _encounter_unversioned}
CAMPAIGN_STEPS: Final[Mapping[int, Step]] = {0: _campaign_unversioned}
# None yet: every event stored before versions (stops 7 to 34) reads as version 1 does, its
# fields since added having defaults (tests/test_upgrades.py reads each fixture's).
EVENT_STEPS: Final[Mapping[int, EventStep]] = {}


def migrated(steps: Mapping[int, Step], fields: Mapping[str, bytes], version: int) -> Fields:
    """`fields` of `version` (below SCHEMA_VERSION) brought to SCHEMA_VERSION, step by step."""
    current = dict(fields)
    for step_from in range(version, SCHEMA_VERSION):
        current = steps[step_from](current)
    return current


def event(stored: bytes) -> bytes:
    """A stored event in this version's shape: as stored when it has it (or is of a later
    version, which adds only what this one does not read)."""
    if not EVENT_STEPS:
        return stored
    try:
        version = _event_version.decode(stored).schema_version
    except msgspec.DecodeError:
        return stored
    if version >= SCHEMA_VERSION:
        return stored
    body = msgspec.json.decode(stored)
    for step_from in range(version, SCHEMA_VERSION):
        if step_from in EVENT_STEPS:
            body = EVENT_STEPS[step_from](body)
    body["schema_version"] = SCHEMA_VERSION
    return msgspec.json.encode(body)


def later_version(kind: str, document_id: str, version: int) -> str:
    """What a document stored by a later version is told as (409): this version never writes
    it, since it cannot know what that version's shape means."""
    return (
        f"{kind} '{document_id}' was stored by a later version of firefight (schema version "
        f"{version}; this version reads up to {SCHEMA_VERSION}): run that version or a later one; "
        "nothing was changed"
    )
