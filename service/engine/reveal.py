"""The dice's own changes (docs/dice.md): the GM reveals the secret (`POST .../dice/reveal`), and
a token sets the seed mixed into its requests' dice (`PUT .../dice/client-seed`).

A reveal is one event that opens the secret the dice rolled with so far and publishes the
commitment of a new one, which rolls from the next event on, so a long fight can be checked pass
by pass. Both are written in the same atomic step as the new secret: no die is ever rolled with a
secret whose commitment is not yet published, nor with one already revealed. A reveal is never
undone, and no undo goes past it (its undo record is a barrier, service/engine/undo_records.py):
a revealed secret stays revealed and never rolls again.

Neither reads the state (they work on any stored state) nor names an actor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from schemas.encounter import ClientSeedOutcome, DiceRevealOutcome, EventType, StateChanges
from schemas.fair import ClientSeedResult, ClientSeedSet, DiceReveal
from service.engine import dice_keeping, keys
from service.engine.access import player_of
from service.engine.core import MAX_ATTEMPTS, Admitted, Answer, EncounterCore
from service.engine.documents import Document
from service.engine.errors import EncounterNotFound, StoreContention
from service.engine.undo_records import barrier_record
from service.store import Committed, Idempotency, StoredEncounter

_reveal = msgspec.json.Decoder(DiceReveal)
_seed = msgspec.json.Decoder(ClientSeedSet)


class DiceWrite(msgspec.Struct, frozen=True, gc=False):
    """One attempt's write: the fields it sets and removes, its event, the answer, its undo
    record (None: none, an undo passes it by)."""

    changed: dict[str, bytes]
    removed: list[str]
    event: bytes
    answer: bytes
    undo: bytes | None


class RevealUses(EncounterCore):
    """The use cases of the dice's own changes."""

    async def reveal_dice(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        if body.strip():
            _reveal.decode(body)
        return await self._dice_change(admitted, "dice_revealed", body, key, self._revealing)

    async def set_client_seed(
        self, admitted: Admitted, body: bytes, key: str | None = None
    ) -> Answer:
        """The asking token's seed, mixed into the dice of its requests that give none: set
        once when it joins, say. Its events record it, as a request's own."""
        asked: ClientSeedSet = _seed.decode(body)
        role = admitted.role

        def seeding(document: Document) -> DiceWrite:
            seeds = dice_keeping.token_seeds(document.fields)
            # Only the tokens the encounter gives now keep a seed: at most one per token.
            seeds = {r: s for r, s in seeds.items() if r == "gm" or r in _roles(document)}
            if asked.client_seed is None:
                seeds.pop(role, None)
            else:
                seeds[role] = asked.client_seed
            field = dice_keeping.SEEDS_FIELD
            result = ClientSeedResult(
                token="gm" if role == "gm" else "player",
                player=player_of(role),
                has_seed=asked.client_seed is not None,
            )
            return self._dice_write(
                document,
                "dice_seeded",
                {field: dice_keeping.encoded_seeds(seeds)} if seeds else {},
                [] if seeds or field not in document.fields else [field],
                ClientSeedOutcome(event_id="", result=result, changes=_version(document)),
                None,
                result=result,
            )

        return await self._dice_change(admitted, "dice_seeded", body, key, seeding)

    def _revealing(self, document: Document) -> DiceWrite:
        sequence = document.version + 1
        kept = dice_keeping.kept_secret(document.fields)
        revealed = None if kept is None else kept.revealed(last_sequence=sequence - 1)
        successor = dice_keeping.new_secret(first_sequence=sequence + 1)
        return self._dice_write(
            document,
            "dice_revealed",
            {dice_keeping.DICE_FIELD: dice_keeping.encoded(successor)},
            [],
            DiceRevealOutcome(
                event_id="",
                result=revealed,
                commitment=successor.published(),
                changes=_version(document),
            ),
            barrier_record("dice_revealed"),
            result=revealed,
            commitment=successor.published(),
        )

    def _dice_write(
        self,
        document: Document,
        event_type: EventType,
        changed: dict[str, bytes],
        removed: list[str],
        outcome: object,
        undo: bytes | None,
        **event_fields: Any,
    ) -> DiceWrite:
        # No actor, and nothing of the scene: every token sees these events alike.
        event = self._event(event_type, document.encounter_id, **event_fields)
        return DiceWrite(changed, removed, event, self._json.encode(outcome), undo)

    async def _dice_change(
        self,
        admitted: Admitted,
        event_type: EventType,
        body: bytes,
        key: str | None,
        write: Callable[[Document], DiceWrite],
    ) -> Answer:
        return await self._once(
            admitted.encounter_id,
            event_type,
            key,
            body,
            lambda idempotency: self._commit_dice(admitted, idempotency, write),
        )

    async def _commit_dice(
        self,
        admitted: Admitted,
        idempotency: Idempotency | None,
        write: Callable[[Document], DiceWrite],
    ) -> Answer:
        encounter_id = admitted.encounter_id
        newer = self._cache.get(encounter_id)
        if newer is not None and newer.version > admitted.version:
            admitted = self._as_before(admitted, newer)
        for _ in range(MAX_ATTEMPTS):
            document = admitted.document
            made = write(document)
            committed = await self._store.commit(
                encounter_id,
                document.version,
                made.changed,
                made.removed,
                made.event,
                made.answer if idempotency is not None else b"",
                idempotency,
                undo=made.undo,
            )
            if isinstance(committed, Committed):
                fields = {**document.fields, **made.changed}
                for name in made.removed:
                    fields.pop(name, None)
                self._read(encounter_id, StoredEncounter(document.version + 1, fields))
                return Answer(keys.with_event_id(made.answer, committed.event_id))
            # Another change came first: start again from what the encounter holds now (a
            # reveal on another replica may have replaced the secret), the caller checked again.
            if committed.current is None:
                self._cache.drop(encounter_id)
                raise EncounterNotFound(encounter_id)
            admitted = self._as_before(admitted, self._read(encounter_id, committed.current))
        raise StoreContention(f"encounter '{encounter_id}' changed too often while this ran")

    def _as_before(self, admitted: Admitted, document: Document) -> Admitted:
        """The request admitted again on a newer document (its state is not read)."""
        return self._admitted(
            admitted.encounter_id, document, admitted.credential, admitted.needed, ended_ok=False
        )


def _version(document: Document) -> StateChanges:
    return StateChanges(version=document.version + 1)


def _roles(document: Document) -> frozenset[str]:
    envelope = document.envelope
    return frozenset() if envelope is None else frozenset(envelope.token_hashes)
