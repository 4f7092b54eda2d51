"""The encounter's life and its players: creation, what a token reads (the state, the zones,
the events), the GM's edits, players' tokens and the end.
"""

from __future__ import annotations

import functools
import secrets
import uuid
from typing import Any

import msgspec

from schemas.encounter import (
    CombatState,
    EncounterCreate,
    EncounterCreated,
    EncounterState,
    EncounterView,
    PlayerOutcome,
    StateEdit,
    StateEditOutcome,
    StateEditResult,
    Tokens,
    TurnState,
    ZoneList,
)
from schemas.fair import DiceCommitment
from schemas.scene import PlayerBinding
from service.engine import damage, dice_keeping, keys, players
from service.engine.access import digest, player_of, seal_tokens, token_hash, unseal_tokens
from service.engine.core import (
    EVENTS_FIRST_READ,
    EVENTS_PAGE,
    Admitted,
    Answer,
    EncounterCore,
    EventsPage,
    Loaded,
)
from service.engine.documents import StoredStateInvalid
from service.engine.errors import EncounterEnded, IdempotencyConflict, StateChanged
from service.engine.events import event_json, for_players
from service.engine.expiry import expiry
from service.engine.migrations import event as upgraded_event
from service.engine.sight import Sight
from service.rules import Resolution, RuleViolation
from service.store import (
    Answered,
    EncounterExists,
    Idempotency,
    StoredEncounter,
    parse_event_id,
)
from service.store.base import START


class EncounterUses(EncounterCore):
    """The use cases of the encounter and its players."""

    async def create(self, body: bytes, credential: str | None, key: str | None) -> Answer:
        self.check_admin(credential)
        request: EncounterCreate = self._decoders[EncounterCreate].decode(body)
        combat = self._starting_combat(request.ruleset, request.combat)
        idempotency = keys.attempt("create", key, body)
        # With a key, the id comes from it: a retry lands on the same encounter, atomically.
        encounter_id = digest("encounter", key)[:32] if key is not None else uuid.uuid4().hex
        tokens = Tokens(gm=secrets.token_urlsafe(32), player=secrets.token_urlsafe(32))
        state = EncounterState(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=self._clock(),
            turn=TurnState(),
            combat=combat,
            token_hashes={"gm": token_hash(tokens.gm), "player": token_hash(tokens.player)},
            dice_policy=request.dice_policy,
            sheet_policy=request.sheet_policy,
            damage=request.damage,
        )
        # The event id goes in once the store has made it (keys.with_event_id).
        created = EncounterCreated(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=state.created_at,
            tokens=tokens,
            event_id="",
        )
        return await self._create_encounter(state, created, idempotency, key)

    def _starting_combat(self, ruleset_id: str, combat: CombatState | None) -> CombatState:
        """The combat state a new encounter starts from: the ruleset's own, or the one asked
        for (of the same ruleset), settled."""
        ruleset = self._rulesets[ruleset_id]
        if combat is None:
            return ruleset.new_state()
        if type(combat) is not type(ruleset.new_state()):
            raise RuleViolation(
                f"the combat state to start from must be a {ruleset_id} state",
                path="$.combat.ruleset",
                kind="wrong-ruleset",
            )
        return ruleset.settled(combat)

    async def _create_encounter(
        self,
        state: EncounterState,
        created: EncounterCreated,
        idempotency: Idempotency | None,
        key: str | None,
    ) -> Answer:
        """Stores a new encounter (checked first) and answers `created` with its event id; a
        retry with the same key gets the first answer (its tokens kept sealed with the key)."""
        patch = self._documents.patch(None, state)
        # The dice secret, committed to in the first event: its dice roll from the second on.
        kept_dice = dice_keeping.new_secret(first_sequence=2)
        fields = {**patch.changed, dice_keeping.DICE_FIELD: dice_keeping.encoded(kept_dice)}
        # What is kept for retries holds the tokens sealed with the client's key.
        kept = b""
        if key is not None:
            kept = self._json.encode(
                msgspec.structs.replace(created, tokens=seal_tokens(created.tokens, key))
            )
        try:
            stored = await self._store.create(
                state.id,
                fields,
                self._event("encounter_created", state.id, commitment=kept_dice.published()),
                kept,
                idempotency,
            )
        except EncounterExists:
            # Only a key can name an existing encounter: one whose answer is no longer kept.
            raise IdempotencyConflict(
                "this Idempotency-Key created an encounter whose answer is no longer kept; "
                "use a new key"
            ) from None
        if isinstance(stored, Answered):
            assert idempotency is not None and key is not None
            body = keys.replayed(stored, idempotency)
            first = msgspec.json.decode(body, type=type(created))
            first = msgspec.structs.replace(first, tokens=unseal_tokens(first.tokens, key))
            return Answer(self._json.encode(first), replayed=True, encounter_id=state.id)
        self._cache.put(self._documents.read(state.id, StoredEncounter(1, fields)))
        created = msgspec.structs.replace(created, event_id=stored.event_id)
        return Answer(self._json.encode(created), encounter_id=state.id)

    async def zones(self, admitted: Admitted) -> ZoneList | Any:
        loaded = self._loaded(admitted)
        zones = ZoneList(zones=loaded.ruleset.zones(loaded.state.combat))
        sight = Sight.of(loaded.state, admitted.role)
        return zones if sight.everything else sight.redact(msgspec.to_builtins(zones))

    async def view(self, admitted: Admitted) -> EncounterView | dict[str, Any]:
        """The whole state. One this version cannot use is shown as stored, with the problem,
        so the GM can see what to correct (and replace it with PUT .../state)."""
        last = await self._store.last_event_id(admitted.encounter_id)
        expires_at, ttl_seconds = expiry(
            admitted.encounter_id,
            last,
            admitted.ended,
            self._ttl_seconds,
            self._ended_ttl_seconds,
        )
        envelope = admitted.envelope
        try:
            state = self._loaded(admitted).state
        except StoredStateInvalid as error:
            return {
                "id": envelope.id,
                "ruleset": envelope.ruleset,
                "name": envelope.name,
                "created_at": envelope.created_at,
                "version": admitted.version,
                "last_event_id": last,
                "expires_at": expires_at,
                "ttl_seconds": ttl_seconds,
                **_asker(admitted.role),
                "dice": _dice(admitted),
                **self._documents.as_stored(admitted.document, players=admitted.role != "gm"),
                "problem": {"detail": str(error), "path": error.path},
            }
        view = EncounterView(
            id=state.id,
            ruleset=state.ruleset,
            name=state.name,
            created_at=state.created_at,
            version=admitted.version,
            last_event_id=last,
            turn=state.turn,
            combat=state.combat,
            scene=state.scene,
            dice_policy=state.dice_policy,
            sheet_policy=state.sheet_policy,
            damage=state.damage,
            campaign=state.campaign.id if state.campaign is not None else None,
            expires_at=expires_at,
            ttl_seconds=ttl_seconds,
            **_asker(admitted.role),
            dice=_dice(admitted),
        )
        sight = Sight.of(state, admitted.role)
        return view if sight.everything else sight.redact(msgspec.to_builtins(view))

    async def events(self, admitted: Admitted, after: str | None, limit: int) -> EventsPage:
        """The wire events after `after` (ValueError if it is not an event id), without those a
        player's token may not see: at most `limit` (and EVENTS_PAGE) read, and at most the
        page's bytes (but always one, whatever its size). An ended encounter's events stay
        readable until they expire: admit it with `ended_ok`."""
        cursor = after or START
        parse_event_id(cursor)
        limit = min(limit, EVENTS_PAGE)
        gm = admitted.role == "gm"
        page = EventsPage([], None)
        size = read = 0
        ask = min(EVENTS_FIRST_READ, limit)
        while True:
            events = await self._store.events_after(admitted.encounter_id, cursor, ask)
            for event_id, kept in events:
                stored = upgraded_event(kept)
                shown = stored if gm else for_players(stored)
                if shown is not None:
                    wire = event_json(event_id, shown)
                    if page.events and size + len(wire) + 1 > self._events_page_bytes:
                        page.more = True
                        return page
                    page.events.append(wire)
                    size += len(wire) + 1  # and its comma
                # The last id read, even of an event this token does not see: the next page
                # starts there.
                page.last_event_id = event_id
                read += 1
            if len(events) < ask:
                return page
            if read >= limit:
                page.more = True
                return page
            cursor = events[-1][0]
            each = size // len(page.events) if page.events else 0
            room = (self._events_page_bytes - size) // each + 1 if each else EVENTS_FIRST_READ
            ask = max(1, min(limit - read, room))

    async def edit_state(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        """The GM replaces the turn, the combat state or both, as they are on the table. What it
        replaces is not read, so a stored state this version cannot use can be corrected."""
        edit: StateEdit = self._decoders[StateEdit].decode(body)
        edited = ("turn", "combat", "dice_policy", "sheet_policy", "damage")
        if all(getattr(edit, name) is None for name in edited):
            raise RuleViolation(
                "give `turn`, `combat`, `dice_policy`, `sheet_policy`, `damage` or more of them",
                path="$",
                kind="nothing-to-edit",
            )
        # A combat state says which ruleset it is: a whole state is never guessed.
        if edit.combat is not None and "ruleset" not in msgspec.json.decode(body)["combat"]:
            raise msgspec.ValidationError("Object missing required field `ruleset` - at `$.combat`")
        ruleset = self._rulesets[admitted.envelope.ruleset]
        if edit.combat is not None and type(edit.combat) is not type(ruleset.new_state()):
            raise RuleViolation(
                f"this encounter plays {admitted.envelope.ruleset}",
                path="$.combat.ruleset",
                kind="wrong-ruleset",
            )

        if edit.version is not None and admitted.version != edit.version:
            # This process's copy may be older than the one the GM read (another replica wrote
            # since): only the store says whether the encounter really moved on.
            document, _ = await self._document(admitted.encounter_id, fresh=True)
            admitted = self._admitted(
                admitted.encounter_id,
                document,
                admitted.credential,
                admitted.needed,
                ended_ok=False,
            )

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            # Checked on every attempt: after a lost compare-and-set the state starts from a
            # newer version, so an edit made on the old one is refused, never written over it.
            if edit.version is not None and current.version != edit.version:
                raise StateChanged(edit.version, current.version)
            changed = [name for name in edited if getattr(edit, name) is not None]
            result = StateEditResult(changed=changed, reason=edit.reason)
            # What the ruleset derives from the state the GM wrote is worked out again (Hard
            # Life: a healed actor is no longer "dead").
            combat = ruleset.settled(edit.combat) if edit.combat is not None else None
            state = msgspec.structs.replace(
                current.state,
                turn=edit.turn or current.state.turn,
                combat=combat or current.state.combat,
                dice_policy=edit.dice_policy or current.state.dice_policy,
                sheet_policy=edit.sheet_policy or current.state.sheet_policy,
                damage=edit.damage or current.state.damage,
            )
            if edit.damage is not None and edit.damage != current.state.damage:
                # Every actor's monitor settled on its sheet (kept from the first "service" or
                # "confirm"), or dropped when the VTT takes them over.
                state = damage.with_monitors(ruleset, state)
            return Resolution(result=result, state=state.combat), state

        try:
            loaded = self._loaded(admitted)
        except StoredStateInvalid:
            # What the edit replaces need not be readable: that is how the GM corrects it.
            loaded = self._loaded(admitted, edit.turn, edit.combat)
        return await self._change(
            admitted, "state_edited", key, body, resolve, StateEditOutcome, loaded
        )

    async def issue_player_token(self, admitted: Admitted, player_id: str, body: bytes) -> Answer:
        """The GM gives a player a token of its own (a new one replaces the old), and with it
        the actors the body names. The token is in this answer only."""
        binding: PlayerBinding = self._decoders[PlayerBinding].decode(body)
        token = secrets.token_urlsafe(32)

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            after = players.with_token(current.state, player_id, token_hash(token), binding)
            return players.resolution(after, player_id), after

        return await self._change(
            admitted,
            "players",
            None,
            body,
            resolve,
            functools.partial(PlayerOutcome, token=token),
            self._loaded(admitted),
        )

    async def revoke_player_token(self, admitted: Admitted, player_id: str) -> Answer:
        """The player's token opens nothing any more; its actors keep their controller."""

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            after = players.without_token(current.state, player_id)
            return players.resolution(after, player_id), after

        return await self._change(
            admitted, "players", None, b"", resolve, PlayerOutcome, self._loaded(admitted)
        )

    async def end(self, admitted: Admitted) -> str:
        """Ends the encounter; its state is not read, so any stored state can be ended. The end
        reveals the dice secret (its event, as a reveal's, holds it): read from the store, not
        this process's copy, which may hold one another replica has revealed since."""
        document, _ = await self._document(admitted.encounter_id, fresh=True)
        kept = None if document is None else dice_keeping.kept_secret(document.fields)
        revealed = None if kept is None or document is None else kept.revealed(document.version)
        event_id = await self._store.delete(
            admitted.encounter_id,
            self._event("encounter_ended", admitted.encounter_id, result=revealed),
        )
        self._cache.drop(admitted.encounter_id)
        if event_id is None:
            raise EncounterEnded(admitted.encounter_id)
        return event_id


def _dice(admitted: Admitted) -> DiceCommitment | None:
    """What every token is shown of the encounter's dice: the commitment, never the secret."""
    kept = dice_keeping.kept_secret(admitted.document.fields)
    return None if kept is None else kept.published()


def _asker(role: str) -> dict[str, Any]:
    """The view's `role` and `player`: what the asking token is (its own, nothing of others')."""
    return {"role": "gm" if role == "gm" else "player", "player": player_of(role)}
