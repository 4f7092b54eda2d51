"""Backups: encounters written out as one JSON document of their state and events, and read back
into any store (`python -m service export` / `import`; the commands are in service/backup_cli.py).

The document keeps what the store keeps, as bytes (base64 in the JSON): the document's fields
and the events in order. It leaves out the undo stack and the Idempotency-Keys' answers, which
belong to the requests of the store it came from. An import writes through the store contract
alone: the encounter is created with its state and first event, and each later event is appended
by a commit that changes nothing else, so the store gives the events ids of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Final, Literal

import msgspec

from service.store import Committed, EncounterExists, EncounterStore, Unchanged
from service.store.base import RESERVED_FIELDS, START

FORMAT: Final = 1
# Events read from the store per call.
EVENTS_PAGE = 1000
# How many times an export reads an encounter again when a change landed while it read it (a
# store a running service writes: Redis).
READ_ATTEMPTS = 5

# Ids as the service makes them (32 hex digits), and room for others: nothing that would change
# a key's meaning in Redis (its hash tag's braces) or a URL's.
EncounterId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,128}$")]
FieldName = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class ExportedEvent(msgspec.Struct, forbid_unknown_fields=True):
    # The id the event had in the store it came from (the new store gives its own).
    id: str
    body: bytes


class ExportedEncounter(msgspec.Struct, forbid_unknown_fields=True):
    id: EncounterId
    # The version it had; the new store counts its own (one per event appended).
    version: Annotated[int, msgspec.Meta(ge=1)]
    ended: bool
    fields: dict[FieldName, bytes]
    events: list[ExportedEvent]


class Export(msgspec.Struct, forbid_unknown_fields=True):
    firefight_export: Literal[1]
    encounters: list[ExportedEncounter]


class BackupError(Exception):
    """What the command cannot do, said to the user (exit code 2)."""


_DECODER = msgspec.json.Decoder(Export)
_ENCODER = msgspec.json.Encoder()


def read_document(text: bytes, where: str) -> Export:
    """The document, checked whole before anything is written; BackupError naming `where` and
    the place in it."""
    try:
        document = _DECODER.decode(text)
    except msgspec.DecodeError as error:
        raise BackupError(f"{where} is not a firefight export: {error}") from None
    seen: set[str] = set()
    for index, encounter in enumerate(document.encounters):
        at = f"{where}: $.encounters[{index}]"
        reserved = sorted(RESERVED_FIELDS & encounter.fields.keys())
        if reserved:
            raise BackupError(f"{at}.fields names '{reserved[0]}', which the store keeps itself")
        # An encounter is created with its first event; an ended one is ended with its last.
        needed = 2 if encounter.ended else 1
        if len(encounter.events) < needed:
            raise BackupError(
                f"{at}.events holds {len(encounter.events)} event(s); "
                f"{'an ended' if encounter.ended else 'an'} encounter needs at least {needed}"
            )
        if encounter.id in seen:
            raise BackupError(f"{at}.id: encounter {encounter.id} is in the file twice")
        seen.add(encounter.id)
    return document


def write_document(encounters: Iterable[ExportedEncounter]) -> bytes:
    return _ENCODER.encode(Export(firefight_export=FORMAT, encounters=list(encounters))) + b"\n"


async def _events(store: EncounterStore, encounter_id: str) -> list[ExportedEvent]:
    events: list[ExportedEvent] = []
    after = START
    while True:
        page = await store.events_after(encounter_id, after, EVENTS_PAGE)
        events += [ExportedEvent(event_id, body) for event_id, body in page]
        if len(page) < EVENTS_PAGE:
            return events
        after = page[-1][0]


async def export_encounter(store: EncounterStore, encounter_id: str) -> ExportedEncounter:
    """The encounter's state and events as of one version: read again when a change landed
    between reading the state and the events (a running service on Redis)."""
    for _ in range(READ_ATTEMPTS):
        stored = await store.load(encounter_id)
        if stored is None or isinstance(stored, Unchanged):
            raise BackupError(f"encounter {encounter_id} is not in the store")
        events = await _events(store, encounter_id)
        if isinstance(await store.load(encounter_id, stored.version), Unchanged):
            return ExportedEncounter(
                encounter_id, stored.version, stored.ended, dict(stored.fields), events
            )
    raise BackupError(
        f"encounter {encounter_id} changed at each of {READ_ATTEMPTS} reads: export it "
        "between two turns"
    )


async def missing_or_refused(store: EncounterStore, document: Export) -> None:
    """BackupError naming the encounters the store holds already (nothing is overwritten)."""
    held = [e.id for e in document.encounters if await store.load(e.id) is not None]
    if held:
        raise BackupError(
            "".join(f"encounter {encounter_id} is already in the store; " for encounter_id in held)
            + "nothing was imported (an encounter is never overwritten)"
        )


async def import_encounter(store: EncounterStore, encounter: ExportedEncounter) -> int:
    """The encounter written to `store`; its version there (one per event appended)."""
    first, *rest = encounter.events
    # Created with its final state: the later commits append the events and change no field.
    try:
        await store.create(encounter.id, encounter.fields, first.body)
    except EncounterExists:
        raise BackupError(f"encounter {encounter.id} is already in the store") from None
    version = 1
    last = rest.pop() if encounter.ended else None
    for event in rest:
        outcome = await store.commit(encounter.id, version, {}, (), event.body)
        if not isinstance(outcome, Committed):
            raise BackupError(
                f"encounter {encounter.id} was changed by someone else while it was imported "
                f"(at its event {event.id}): its import is incomplete"
            )
        version += 1
    if last is not None:
        if await store.delete(encounter.id, last.body) is None:
            raise BackupError(f"encounter {encounter.id} could not be ended as it was")
        version += 1
    return version


_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def checked_id(encounter_id: str) -> str:
    if not _ID.match(encounter_id):
        raise BackupError(f"--encounter {encounter_id!r} is not an encounter id")
    return encounter_id
