"""Use cases: one per request. Load the encounter, check who asks, ask its ruleset, commit.

The commit is compare-and-set on the version; on a conflict the use case reads again and resolves
again with the same seed and given dice, so a retry changes nothing but the state it starts from.
A request with an Idempotency-Key is answered once: its answer is stored with the state change and
its event in the same atomic write, and every retry gets that answer back.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import random
import secrets
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from schemas.common import Zone
from schemas.encounter import (
    ActionOutcome,
    ActionResult,
    AdvanceOutcome,
    AdvanceRequest,
    AdvanceResult,
    AttackOutcome,
    AttackResult,
    EncounterCreate,
    EncounterCreated,
    EncounterState,
    EncounterView,
    EventType,
    Outcome,
    StateEdit,
    StateEditOutcome,
    StateEditResult,
    Tokens,
    TurnState,
    ZoneList,
    ZoneTestOutcome,
    ZoneTestResult,
)
from service.engine.access import (
    Forbidden,
    Permission,
    Unauthorized,
    authorize,
    check_admin,
    token_hash,
)
from service.rules import RULESETS, Resolution, Ruleset, RuleViolation
from service.rules.dice import Dice, check_given
from service.rules.turns import advance_turn
from service.store import (
    Answered,
    EncounterExists,
    EncounterStore,
    Idempotency,
    Pending,
    parse_event_id,
)
from service.store.base import START

MAX_ATTEMPTS = 32
# After a lost compare-and-set, wait a random moment up to this much per attempt so far, so that
# writers piling onto one encounter spread out instead of colliding again in step.
BACKOFF_SECONDS = 0.001
EVENTS_PAGE = 1000

__all__ = [
    "EVENTS_PAGE",
    "Answer",
    "EncounterEnded",
    "EncounterNotFound",
    "Encounters",
    "Forbidden",
    "IdempotencyConflict",
    "IdempotencyInProgress",
    "LimitExceeded",
    "StoreContention",
    "Unauthorized",
    "event_json",
]


class EncounterNotFound(LookupError):
    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"no encounter '{encounter_id}' (it may have expired)")
        self.encounter_id = encounter_id


class EncounterEnded(LookupError):
    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"encounter '{encounter_id}' has ended; its events stay readable a while")
        self.encounter_id = encounter_id


class LimitExceeded(ValueError):
    """The request would take the encounter past one of the service's limits (422)."""


class StoreContention(RuntimeError):
    """The state kept changing under the request; the client may retry."""


class IdempotencyConflict(ValueError):
    """The Idempotency-Key was used before for a different request (422)."""


class IdempotencyInProgress(RuntimeError):
    """A request with this Idempotency-Key is still running (409)."""


class StoredEvent(msgspec.Struct, omit_defaults=True):
    """An event as stored: the wire `Event` without its id, which the stream assigns."""

    type: EventType
    encounter: str
    at: str
    actor: str | None = None
    result: (
        AttackResult | ActionResult | AdvanceResult | StateEditResult | ZoneTestResult | None
    ) = None
    zones_started: list[Zone] = []
    zones_ended: list[str] = []


@dataclass(frozen=True)
class Answer:
    """The JSON body of a state-changing request's answer; `replayed` for a retry's."""

    body: bytes
    replayed: bool = False
    # Set when the request made an encounter.
    encounter_id: str | None = None


def event_json(event_id: str, stored: bytes) -> bytes:
    """The wire event: the stored JSON object with its stream id put first."""
    return b'{"id":"' + event_id.encode() + b'",' + stored[1:]


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def _digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big") + data)
    return hasher.hexdigest()


def _xor_pad(data: bytes, idempotency_key: str, role: str) -> bytes:
    # A one-time pad drawn from the client's key: the store never holds a token it could read.
    pad = hashlib.shake_256(f"firefight-token:{role}:{idempotency_key}".encode())
    return bytes(a ^ b for a, b in zip(data, pad.digest(len(data)), strict=True))


def _seal(tokens: Tokens, idempotency_key: str) -> Tokens:
    """Tokens as kept for the retries of a creation, unreadable without the client's key."""
    return Tokens(
        gm=_xor_pad(tokens.gm.encode(), idempotency_key, "gm").hex(),
        player=_xor_pad(tokens.player.encode(), idempotency_key, "player").hex(),
    )


def _unseal(sealed: Tokens, idempotency_key: str) -> Tokens:
    return Tokens(
        gm=_xor_pad(bytes.fromhex(sealed.gm), idempotency_key, "gm").decode(),
        player=_xor_pad(bytes.fromhex(sealed.player), idempotency_key, "player").decode(),
    )


@dataclass(frozen=True)
class _Loaded:
    version: int
    state: EncounterState
    ruleset: Ruleset
    ended: bool


class Encounters:
    def __init__(
        self,
        store: EncounterStore,
        admin_key: str,
        rulesets: Mapping[str, Ruleset] = RULESETS,
        clock: Callable[[], str] = _utc_now,
        max_actors: int = 200,
    ) -> None:
        if not admin_key:
            raise ValueError("an admin key is required")
        self._store = store
        self._max_actors = max_actors
        self._admin_key_hash = token_hash(admin_key)
        self._rulesets = rulesets
        self._clock = clock
        self._state_encoder = msgspec.msgpack.Encoder()
        self._state_decoder = msgspec.msgpack.Decoder(EncounterState)
        self._json = msgspec.json.Encoder()
        # Each ruleset's own bodies, by the Ruleset member that names their type.
        self._ruleset_decoders = {
            member: {
                ruleset_id: msgspec.json.Decoder(getattr(ruleset, member))
                for ruleset_id, ruleset in rulesets.items()
            }
            for member in ("attack_type", "action_type", "zone_test_type")
        }
        self._decoders: Mapping[Any, msgspec.json.Decoder[Any]] = {
            EncounterCreate: msgspec.json.Decoder(EncounterCreate),
            AdvanceRequest: msgspec.json.Decoder(AdvanceRequest),
            StateEdit: msgspec.json.Decoder(StateEdit),
        }

    @property
    def store(self) -> EncounterStore:
        return self._store

    def _event(self, event_type: EventType, encounter_id: str, **fields: Any) -> bytes:
        return self._json.encode(
            StoredEvent(type=event_type, encounter=encounter_id, at=self._clock(), **fields)
        )

    def _idempotency(self, scope: str, key: str | None, body: bytes) -> Idempotency | None:
        if key is None:
            return None
        return Idempotency(
            key=_digest("key", key),
            fingerprint=_digest(scope, body),
            owner=secrets.token_hex(16),
        )

    def _replay(self, answered: Answered, idempotency: Idempotency) -> Answer:
        if answered.fingerprint != idempotency.fingerprint:
            raise IdempotencyConflict(
                "this Idempotency-Key was used for a different request; use a new key"
            )
        return Answer(answered.answer, replayed=True)

    # --- creation ------------------------------------------------------------------------

    async def create(self, body: bytes, credential: str | None, key: str | None) -> Answer:
        check_admin(credential, self._admin_key_hash)
        request: EncounterCreate = self._decoders[EncounterCreate].decode(body)
        ruleset = self._rulesets[request.ruleset]
        if request.combat is not None and type(request.combat) is not type(ruleset.new_state()):
            raise RuleViolation(
                f"the combat state to start from must be a {request.ruleset} state",
                path="$.combat.ruleset",
                kind="wrong-ruleset",
            )
        idempotency = self._idempotency("create", key, body)
        # With a key, the id comes from it: a retry lands on the same encounter, atomically.
        encounter_id = _digest("encounter", key)[:32] if key is not None else uuid.uuid4().hex
        tokens = Tokens(gm=secrets.token_urlsafe(32), player=secrets.token_urlsafe(32))
        state = EncounterState(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=self._clock(),
            turn=TurnState(),
            combat=request.combat if request.combat is not None else ruleset.new_state(),
            token_hashes={"gm": token_hash(tokens.gm), "player": token_hash(tokens.player)},
        )
        placeholder = secrets.token_hex(16)
        created = EncounterCreated(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=state.created_at,
            tokens=tokens,
            event_id=placeholder,
        )
        # What is kept for retries holds the tokens sealed with the client's key.
        kept = created
        if key is not None:
            kept = msgspec.structs.replace(created, tokens=_seal(tokens, key))
        try:
            stored = await self._store.create(
                encounter_id,
                self._state_encoder.encode(state),
                self._event("encounter_created", encounter_id),
                self._json.encode(kept),
                placeholder,
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
            body = self._replay(stored, idempotency).body
            first = msgspec.json.decode(body, type=EncounterCreated)
            first = msgspec.structs.replace(first, tokens=_unseal(first.tokens, key))
            return Answer(self._json.encode(first), replayed=True, encounter_id=encounter_id)
        created = msgspec.structs.replace(created, event_id=stored.event_id)
        return Answer(self._json.encode(created), encounter_id=encounter_id)

    # --- reading ---------------------------------------------------------------------------

    async def _read(self, encounter_id: str) -> _Loaded:
        stored = await self._store.load(encounter_id)
        if stored is None:
            raise EncounterNotFound(encounter_id)
        state = self._state_decoder.decode(stored.document)
        return _Loaded(stored.version, state, self._rulesets[state.ruleset], stored.ended)

    async def _load(
        self, encounter_id: str, credential: str | None, needed: Permission, ended_ok: bool = False
    ) -> _Loaded:
        """The encounter, once `credential` is shown to have `needed` on it (404, 401, 403,
        then 410 for an ended one unless `ended_ok`)."""
        loaded = await self._read(encounter_id)
        authorize(credential, needed, loaded.state.token_hashes, self._admin_key_hash)
        if loaded.ended and not ended_ok:
            raise EncounterEnded(encounter_id)
        return loaded

    def _view(
        self, state: EncounterState, version: int, last_event_id: str | None
    ) -> EncounterView:
        return EncounterView(
            id=state.id,
            ruleset=state.ruleset,
            name=state.name,
            created_at=state.created_at,
            version=version,
            last_event_id=last_event_id,
            turn=state.turn,
            combat=state.combat,
        )

    async def zones(self, encounter_id: str, credential: str | None) -> ZoneList:
        loaded = await self._load(encounter_id, credential, "read")
        return ZoneList(zones=loaded.ruleset.zones(loaded.state.combat))

    async def view(self, encounter_id: str, credential: str | None) -> EncounterView:
        loaded = await self._load(encounter_id, credential, "read")
        last = await self._store.last_event_id(encounter_id)
        return self._view(loaded.state, loaded.version, last)

    async def events(
        self, encounter_id: str, after: str | None, limit: int, credential: str | None
    ) -> list[tuple[str, bytes]]:
        """(id, wire event) after `after` (ValueError if it is not an event id). An ended
        encounter's events stay readable until they expire."""
        cursor = after or START
        parse_event_id(cursor)
        await self._load(encounter_id, credential, "read", ended_ok=True)
        events = await self._store.events_after(encounter_id, cursor, min(limit, EVENTS_PAGE))
        return [(event_id, event_json(event_id, stored)) for event_id, stored in events]

    # --- changing ----------------------------------------------------------------------------

    async def _change(
        self,
        encounter_id: str,
        event_type: EventType,
        needed: Permission,
        credential: str | None,
        key: str | None,
        body: bytes,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
        loaded: _Loaded | None = None,
    ) -> Answer:
        if loaded is None:
            loaded = await self._load(encounter_id, credential, needed)
        idempotency = self._idempotency(f"{encounter_id}:{event_type}", key, body)
        if idempotency is not None:
            earlier = await self._store.begin(encounter_id, idempotency)
            if isinstance(earlier, Answered):
                return self._replay(earlier, idempotency)
            if isinstance(earlier, Pending):
                raise IdempotencyInProgress(
                    "a request with this Idempotency-Key is still running; retry in a moment"
                )
        try:
            return await self._resolve_and_commit(
                encounter_id, event_type, loaded, idempotency, resolve, outcome_type
            )
        except BaseException:
            if idempotency is not None:
                await self._store.abandon(encounter_id, idempotency)
            raise

    async def _resolve_and_commit(
        self,
        encounter_id: str,
        event_type: EventType,
        loaded: _Loaded | None,
        idempotency: Idempotency | None,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
    ) -> Answer:
        for attempt in range(MAX_ATTEMPTS):
            if loaded is None:
                await asyncio.sleep(random.uniform(0, BACKOFF_SECONDS * attempt))
                loaded = await self._read(encounter_id)
                if loaded.ended:
                    raise EncounterEnded(encounter_id)
            resolution, new_state = resolve(loaded)
            if len(new_state.combat.actors) > self._max_actors:
                raise LimitExceeded(
                    f"an encounter holds at most {self._max_actors} actors; end this one or "
                    "start another"
                )
            before = {z.id for z in loaded.ruleset.zones(loaded.state.combat)}
            after = loaded.ruleset.zones(new_state.combat)
            placeholder = secrets.token_hex(16)
            answer = self._json.encode(
                outcome_type(
                    event_id=placeholder,
                    result=resolution.result,
                    state=self._view(new_state, loaded.version + 1, placeholder),
                )
            )
            committed = await self._store.commit(
                encounter_id,
                loaded.version,
                self._state_encoder.encode(new_state),
                self._event(
                    event_type,
                    encounter_id,
                    actor=resolution.actor,
                    result=resolution.result,
                    zones_started=[z for z in after if z.id not in before],
                    zones_ended=sorted(before - {z.id for z in after}),
                ),
                answer,
                placeholder,
                idempotency,
            )
            if committed is not None:
                return Answer(committed.answer)
            loaded = None  # another writer came first: read again, resolve again
        raise StoreContention(
            f"encounter '{encounter_id}' changed {MAX_ATTEMPTS} times while this request resolved"
        )

    def _rolling(
        self,
        given: Mapping[str, Any],
        seed: int | None,
        roll: Callable[[_Loaded, Dice], Resolution[Any]],
    ) -> Callable[[_Loaded], tuple[Resolution[Any], EncounterState]]:
        """A resolution that rolls: the same seed and given dice on every attempt, and the given
        dice all used."""
        seed = seed if seed is not None else secrets.randbits(63)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            dice = Dice(seed, given)
            resolution = roll(current, dice)
            dice.check_given_used()
            return resolution, msgspec.structs.replace(current.state, combat=resolution.state)

        return resolve

    async def _play(
        self,
        encounter_id: str,
        event_type: EventType,
        body_type: str,
        body: bytes,
        credential: str | None,
        key: str | None,
        steps: Callable[[Ruleset, Any], Mapping[str, int]],
        play: Callable[[Ruleset, Any, EncounterState, Dice], Resolution[Any]],
        outcome_type: Callable[..., Outcome],
        scope: bytes = b"",
    ) -> Answer:
        """A player's request that may roll: decoded as the encounter's ruleset's `body_type`
        (msgspec.ValidationError if it is not one), its given dice checked, then resolved."""
        loaded = await self._load(encounter_id, credential, "play")
        request = self._ruleset_decoders[body_type][loaded.state.ruleset].decode(body)
        check_given(request.dice, steps(loaded.ruleset, request))
        resolve = self._rolling(
            request.dice,
            request.seed,
            lambda current, dice: play(current.ruleset, request, current.state, dice),
        )
        return await self._change(
            encounter_id,
            event_type,
            "play",
            credential,
            key,
            scope + body,
            resolve,
            outcome_type,
            loaded,
        )

    async def attack(
        self, encounter_id: str, body: bytes, credential: str | None, key: str | None = None
    ) -> Answer:
        return await self._play(
            encounter_id,
            "attack",
            "attack_type",
            body,
            credential,
            key,
            lambda ruleset, request: ruleset.dice_steps(request),
            lambda ruleset, request, state, dice: ruleset.resolve_attack(
                request, state.combat, state.turn, dice
            ),
            AttackOutcome,
        )

    async def action(
        self, encounter_id: str, body: bytes, credential: str | None, key: str | None = None
    ) -> Answer:
        return await self._play(
            encounter_id,
            "action",
            "action_type",
            body,
            credential,
            key,
            lambda ruleset, request: ruleset.action_dice_steps(request),
            lambda ruleset, request, state, dice: ruleset.resolve_action(
                request, state.combat, state.turn, dice
            ),
            ActionOutcome,
        )

    async def advance(
        self, encounter_id: str, body: bytes, credential: str | None, key: str | None = None
    ) -> Answer:
        request: AdvanceRequest = self._decoders[AdvanceRequest].decode(body)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            turn = advance_turn(current.state.turn, request)
            combat, effects = current.ruleset.on_advance(request, current.state.combat, turn)
            result = AdvanceResult(to=request.to, turn=turn, effects=effects)
            resolution = Resolution(result=result, state=combat, actor=request.actor)
            return resolution, msgspec.structs.replace(current.state, turn=turn, combat=combat)

        return await self._change(
            encounter_id, "advance", "gm", credential, key, body, resolve, AdvanceOutcome
        )

    async def edit_state(
        self, encounter_id: str, body: bytes, credential: str | None, key: str | None = None
    ) -> Answer:
        """The GM replaces the turn, the combat state or both, as they are on the table."""
        edit: StateEdit = self._decoders[StateEdit].decode(body)
        if edit.turn is None and edit.combat is None:
            raise RuleViolation("give `turn`, `combat` or both", path="$", kind="nothing-to-edit")
        # Everything kept must be storable: numbers past 64 bits are refused, not a 500.
        try:
            self._state_encoder.encode(edit)
        except (OverflowError, msgspec.EncodeError):
            raise RuleViolation(
                "a number in this state is too large to keep", path="$", kind="limit-exceeded"
            ) from None
        # A combat state says which ruleset it is: a whole state is never guessed.
        if edit.combat is not None and "ruleset" not in msgspec.json.decode(body)["combat"]:
            raise msgspec.ValidationError("Object missing required field `ruleset` - at `$.combat`")

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            combat = current.state.combat if edit.combat is None else edit.combat
            if type(combat) is not type(current.state.combat):
                raise RuleViolation(
                    f"this encounter plays {current.state.ruleset}",
                    path="$.combat.ruleset",
                    kind="wrong-ruleset",
                )
            changed = [name for name in ("turn", "combat") if getattr(edit, name) is not None]
            result = StateEditResult(changed=changed, reason=edit.reason)
            state = msgspec.structs.replace(
                current.state, turn=edit.turn or current.state.turn, combat=combat
            )
            return Resolution(result=result, state=combat), state

        return await self._change(
            encounter_id, "state_edited", "gm", credential, key, body, resolve, StateEditOutcome
        )

    async def zone_test(
        self,
        encounter_id: str,
        zone_id: str,
        body: bytes,
        credential: str | None,
        key: str | None = None,
    ) -> Answer:
        return await self._play(
            encounter_id,
            "zone_test",
            "zone_test_type",
            body,
            credential,
            key,
            lambda ruleset, request: ruleset.zone_test_dice_steps(request),
            lambda ruleset, request, state, dice: ruleset.resolve_zone_test(
                zone_id, request, state.combat, state.turn, dice
            ),
            ZoneTestOutcome,
            # The same body for another zone is another request.
            scope=zone_id.encode() + b"\0",
        )

    async def end(self, encounter_id: str, credential: str | None) -> str:
        await self._load(encounter_id, credential, "gm")
        event_id = await self._store.delete(
            encounter_id, self._event("encounter_ended", encounter_id)
        )
        if event_id is None:
            raise EncounterEnded(encounter_id)
        return event_id
