"""The GM's undo: the encounter put back as it was before its newest change, from the record
that change left on the store's undo stack (service/engine/undo_records.py), as a change of its
own (an "undo" event, the answer's `changes` for clients to redraw); nothing is rolled again.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.encounter import EncounterState, UndoOutcome, UndoRequest, UndoResult
from service.engine.core import MAX_ATTEMPTS, Admitted, Answer, EncounterCore, Loaded, Moved
from service.engine.documents import StoredStateInvalid
from service.engine.errors import NotNewest, StoreContention
from service.engine.undo_records import read_record, restored
from service.rules import Resolution, RuleViolation
from service.store import StoredEncounter, UndoTop

_request = msgspec.json.Decoder(UndoRequest)


class UndoUses(EncounterCore):
    """The use case of the GM's undo."""

    async def undo(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        """Take back the newest change (UndoRequest's `event`: only if it is that one).

        The record is read after the document it applies to: a change that lands between them
        makes the compare-and-set on that document's version fail, and the undo starts again on
        the new newest record, so a record is never put over a change it does not know."""
        request = _request.decode(body) if body.strip() else UndoRequest()
        loaded = self._loaded(admitted)
        for _ in range(MAX_ATTEMPTS):
            top = await self._store.undo_top(admitted.encounter_id)
            try:
                return await self._undo(admitted, loaded, request, top, body, key)
            except Moved as moved:
                loaded = moved.current
                admitted = self._admitted(
                    admitted.encounter_id,
                    loaded.document,
                    admitted.credential,
                    admitted.needed,
                    ended_ok=False,
                )
        raise StoreContention(
            f"encounter '{admitted.encounter_id}' changed too often while this undo read it"
        )

    async def _undo(
        self,
        admitted: Admitted,
        loaded: Loaded,
        request: UndoRequest,
        top: UndoTop | None,
        body: bytes,
        key: str | None,
    ) -> Answer:
        record = read_record(top.record) if top is not None else None

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            if current.version != loaded.version:
                raise Moved(current)
            if request.event is not None and (top is None or top.event_id != request.event):
                raise NotNewest(request.event, None if top is None else top.event_id)
            if top is None:
                raise RuleViolation(
                    "there is no change to undo: the encounter is as it was created, or the "
                    "changes before are past the undo bound (FIREFIGHT_UNDO_DEPTH)",
                    path="$",
                    kind="nothing-to-undo",
                    status=409,
                )
            if record is None:
                raise RuleViolation(
                    f"the newest change ('{top.event_id}') kept a record this version cannot "
                    "read: it cannot be undone",
                    path="$",
                    kind="cannot-undo",
                    status=409,
                )
            if record.barrier and record.type == "dice_revealed":
                raise RuleViolation(
                    f"the newest change ('{top.event_id}') revealed the dice secret: a revealed "
                    "secret stays revealed, so no undo goes past it",
                    path="$",
                    kind="cannot-undo",
                    status=409,
                )
            if record.barrier:
                raise RuleViolation(
                    f"the newest change ('{top.event_id}') gave or revoked a player's token: "
                    "a token is never given back, nor a revoked one opened again, so no undo "
                    "goes past it",
                    path="$",
                    kind="cannot-undo",
                    status=409,
                )
            fields = restored(current.document.fields, record)
            stored = StoredEncounter(current.version, fields)
            try:
                before = self._documents.state(self._documents.read(admitted.encounter_id, stored))
            except StoredStateInvalid as error:
                raise RuleViolation(
                    f"the state before '{top.event_id}' is one this version cannot use ({error})",
                    path="$",
                    kind="cannot-undo",
                    status=409,
                ) from None
            # The tokens stay as they are now: one revoked since stays revoked. Pending damage
            # ids are never given twice: one a client still shows names no other damage.
            state = msgspec.structs.replace(
                before,
                token_hashes=current.state.token_hashes,
                last_pending=max(before.last_pending, current.state.last_pending),
            )
            result = UndoResult(
                undone=top.event_id,
                undone_type=record.type,
                reason=request.reason,
                left=top.depth - 1,
            )
            return Resolution(result=result, state=state.combat, actor=record.actor), state

        # The undo's event is for whom the undone change's was: a hidden actor's change is
        # undone out of players' sight, and one by an unseen shooter names it to none of them.
        audience: dict[str, bool] = {}
        if record is not None and record.gm_only:
            audience["gm_only"] = True
        if record is not None and record.unseen_actor:
            audience["unseen_actor"] = True
        return await self._change(
            admitted, "undo", key, body, resolve, UndoOutcome, loaded, audience=audience
        )
