"""The GM reveals the dice secret (`POST .../dice/reveal`, docs/dice.md): one event opens the
secret the dice rolled with so far and publishes the commitment of a new one, which rolls from
the next event on, so a long fight can be checked pass by pass.

The reveal and the new commitment are one event, written in the same atomic step as the new
secret: no die is ever rolled with a secret whose commitment is not yet published, nor with one
already revealed. A reveal is never undone, and no undo goes past it (its undo record is a
barrier, service/engine/undo_records.py): a revealed secret stays revealed and never rolls again.
"""

from __future__ import annotations

import msgspec

from schemas.encounter import DiceRevealOutcome, StateChanges
from schemas.fair import DiceReveal
from service.engine import dice_keeping, keys
from service.engine.core import MAX_ATTEMPTS, Admitted, Answer, EncounterCore
from service.engine.documents import Document
from service.engine.errors import EncounterNotFound, StoreContention
from service.engine.undo_records import barrier_record
from service.store import Committed, Idempotency, StoredEncounter

_request = msgspec.json.Decoder(DiceReveal)


class RevealUses(EncounterCore):
    """The use case of the GM's reveal."""

    async def reveal_dice(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        if body.strip():
            _request.decode(body)
        encounter_id = admitted.encounter_id
        idempotency = keys.attempt(f"{encounter_id}:dice_revealed", key, body)
        if idempotency is not None:
            first = await self._keys.claim(encounter_id, idempotency)
            if first is not None:
                return Answer(first, replayed=True)
        try:
            async with self._turns.turn(encounter_id):
                return await self._reveal(admitted, idempotency)
        except BaseException:
            if idempotency is not None:
                await self._keys.release(encounter_id, idempotency)
            raise

    async def _reveal(self, admitted: Admitted, idempotency: Idempotency | None) -> Answer:
        encounter_id = admitted.encounter_id
        newer = self._cache.get(encounter_id)
        if newer is not None and newer.version > admitted.version:
            admitted = self._as_before(admitted, newer)
        for _ in range(MAX_ATTEMPTS):
            document = admitted.document
            sequence = document.version + 1
            kept = dice_keeping.kept_secret(document.fields)
            revealed = None if kept is None else kept.revealed(last_sequence=sequence - 1)
            successor = dice_keeping.new_secret(first_sequence=sequence + 1)
            # No actor, and nothing of the scene: every token sees the reveal alike.
            event = self._event(
                "dice_revealed", encounter_id, result=revealed, commitment=successor.published()
            )
            answer = self._json.encode(
                DiceRevealOutcome(
                    event_id="",
                    result=revealed,
                    commitment=successor.published(),
                    changes=StateChanges(version=sequence),
                )
            )
            changed = {dice_keeping.DICE_FIELD: dice_keeping.encoded(successor)}
            committed = await self._store.commit(
                encounter_id,
                document.version,
                changed,
                (),
                event,
                answer if idempotency is not None else b"",
                idempotency,
                undo=barrier_record("dice_revealed"),
            )
            if isinstance(committed, Committed):
                self._read(encounter_id, StoredEncounter(sequence, {**document.fields, **changed}))
                return Answer(keys.with_event_id(answer, committed.event_id))
            # Another change came first: reveal what the encounter holds now (a reveal on
            # another replica may have replaced the secret), its caller checked again.
            if committed.current is None:
                self._cache.drop(encounter_id)
                raise EncounterNotFound(encounter_id)
            admitted = self._as_before(admitted, self._read(encounter_id, committed.current))
        raise StoreContention(f"encounter '{encounter_id}' changed too often while this reveal ran")

    def _as_before(self, admitted: Admitted, document: Document) -> Admitted:
        """The request admitted again on a newer document (its state is not read: a reveal
        works on any stored state)."""
        return self._admitted(
            admitted.encounter_id, document, admitted.credential, admitted.needed, ended_ok=False
        )
