"""What an undo needs of a change: the record the store keeps beside it (service/store's undo
stack), made with every committed change and read back by the undo (service/engine/undo.py).

A record holds the bytes every document field had before the change, so an undo puts back
exactly the state before it, whatever the ruleset or the part of the state (recoil, ammunition,
zones, monitors) the change moved, without knowing any of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import EventType
from service.engine.documents import Document, Patch

# A players' token issued or revoked is never taken back (a token is never given back, nor one
# revoked opened again), nor a dice secret revealed (it stays revealed and never rolls again):
# its record stops every undo below it.
BARRIER_EVENTS = frozenset({"players", "dice_revealed"})


class UndoRecord(msgspec.Struct, array_like=True, gc=False):
    """One change as an undo takes it back (msgpack, as an array: a record per change is kept)."""

    # The change's event type and actor, and who its event was for (an undo's event is for the
    # same audience: a hidden actor's change is undone out of players' sight).
    type: EventType
    actor: str | None = None
    gm_only: bool = False
    unseen_actor: bool = False
    # The bytes of each field the change wrote or removed, as they were before it: None for a
    # field the change added.
    fields: dict[str, bytes | None] = {}
    # A change that cannot be taken back (BARRIER_EVENTS).
    barrier: bool = False


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(UndoRecord)


def record_of(
    event_type: EventType, before: Document, patch: Patch, audience: Mapping[str, Any]
) -> bytes:
    """The record of a change from `before` by `patch`, whose event went to `audience`."""
    actor = audience.get("actor")
    gm_only = bool(audience.get("gm_only", False))
    unseen_actor = bool(audience.get("unseen_actor", False))
    if event_type in BARRIER_EVENTS:
        record = UndoRecord(event_type, actor, gm_only, unseen_actor, barrier=True)
        return _encoder.encode(record)
    previous: dict[str, bytes | None] = {name: before.fields.get(name) for name in patch.changed}
    # A field that was not there before has nothing to put back (a document of an earlier
    # version's one field, read as fields: the fields it was read as are put back instead).
    previous.update({n: before.fields[n] for n in patch.removed if n in before.fields})
    return _encoder.encode(UndoRecord(event_type, actor, gm_only, unseen_actor, previous))


def barrier_record(event_type: EventType) -> bytes:
    """The record of a change no undo takes back nor goes past (BARRIER_EVENTS)."""
    return _encoder.encode(UndoRecord(event_type, barrier=True))


def read_record(record: bytes) -> UndoRecord | None:
    """The record as kept; None for one this version cannot read (it cannot be undone)."""
    try:
        return _decoder.decode(record)
    except msgspec.DecodeError:
        return None


def restored(fields: Mapping[str, bytes], record: UndoRecord) -> dict[str, bytes]:
    """The document's `fields` with what the record's change wrote put back as it was."""
    restored = dict(fields)
    for name, value in record.fields.items():
        if value is None:
            restored.pop(name, None)
        else:
            restored[name] = value
    return restored
