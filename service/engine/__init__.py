"""Use cases: one per request. Load the encounter, ask its ruleset, commit the state and its event.

The commit is compare-and-set on the version; on a conflict the use case reads again and resolves
again with the same seed and given dice, so a retry changes nothing but the state it starts from.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from schemas.encounter import (
    ActionOutcome,
    ActionRequest,
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
    Tokens,
    TurnState,
)
from service.rules import RULESETS, Resolution, Ruleset
from service.rules.dice import Dice, check_given
from service.rules.turns import advance_turn
from service.store import EncounterStore, parse_event_id
from service.store.base import START

OutcomeT = TypeVar("OutcomeT", bound=Outcome)

MAX_ATTEMPTS = 16
EVENTS_PAGE = 1000


class EncounterNotFound(LookupError):
    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"no encounter '{encounter_id}' (it may have ended or expired)")
        self.encounter_id = encounter_id


class StoreContention(RuntimeError):
    """The state kept changing under the request; the client may retry."""


class StoredEvent(msgspec.Struct, omit_defaults=True):
    """An event as stored: the wire `Event` without its id, which the stream assigns."""

    type: EventType
    encounter: str
    at: str
    actor: str | None = None
    result: AttackResult | ActionResult | AdvanceResult | None = None


def event_json(event_id: str, stored: bytes) -> bytes:
    """The wire event: the stored JSON object with its stream id put first."""
    return b'{"id":"' + event_id.encode() + b'",' + stored[1:]


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class _Loaded:
    version: int
    state: EncounterState
    ruleset: Ruleset


class Encounters:
    def __init__(
        self,
        store: EncounterStore,
        rulesets: Mapping[str, Ruleset] = RULESETS,
        clock: Callable[[], str] = _utc_now,
    ) -> None:
        self._store = store
        self._rulesets = rulesets
        self._clock = clock
        self._state_encoder = msgspec.msgpack.Encoder()
        self._state_decoder = msgspec.msgpack.Decoder(EncounterState)
        self._json = msgspec.json.Encoder()
        self._attack_decoders = {
            ruleset_id: msgspec.json.Decoder(ruleset.attack_type)
            for ruleset_id, ruleset in rulesets.items()
        }

    @property
    def store(self) -> EncounterStore:
        return self._store

    def _event(self, event_type: EventType, encounter_id: str, **fields: Any) -> bytes:
        return self._json.encode(
            StoredEvent(type=event_type, encounter=encounter_id, at=self._clock(), **fields)
        )

    async def create(self, request: EncounterCreate) -> EncounterCreated:
        ruleset = self._rulesets[request.ruleset]
        encounter_id = uuid.uuid4().hex
        tokens = Tokens(gm=secrets.token_urlsafe(32), player=secrets.token_urlsafe(32))
        state = EncounterState(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=self._clock(),
            turn=TurnState(),
            combat=ruleset.new_state(),
            token_hashes={"gm": _token_hash(tokens.gm), "player": _token_hash(tokens.player)},
        )
        event_id = await self._store.create(
            encounter_id,
            self._state_encoder.encode(state),
            self._event("encounter_created", encounter_id),
        )
        return EncounterCreated(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=state.created_at,
            tokens=tokens,
            event_id=event_id,
        )

    async def _load(self, encounter_id: str) -> _Loaded:
        stored = await self._store.load(encounter_id)
        if stored is None:
            raise EncounterNotFound(encounter_id)
        state = self._state_decoder.decode(stored.document)
        return _Loaded(stored.version, state, self._rulesets[state.ruleset])

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

    async def view(self, encounter_id: str) -> EncounterView:
        loaded = await self._load(encounter_id)
        last = await self._store.last_event_id(encounter_id)
        return self._view(loaded.state, loaded.version, last)

    async def _change(
        self,
        encounter_id: str,
        event_type: EventType,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: type[OutcomeT],
        loaded: _Loaded | None = None,
    ) -> OutcomeT:
        for _ in range(MAX_ATTEMPTS):
            if loaded is None:
                loaded = await self._load(encounter_id)
            resolution, new_state = resolve(loaded)
            event = self._event(
                event_type, encounter_id, actor=resolution.actor, result=resolution.result
            )
            event_id = await self._store.commit(
                encounter_id, loaded.version, self._state_encoder.encode(new_state), event
            )
            if event_id is not None:
                return outcome_type(
                    event_id=event_id,
                    result=resolution.result,
                    state=self._view(new_state, loaded.version + 1, event_id),
                )
            loaded = None  # another writer came first: read again, resolve again
        raise StoreContention(
            f"encounter '{encounter_id}' changed {MAX_ATTEMPTS} times while this request resolved"
        )

    async def attack(self, encounter_id: str, body: bytes) -> AttackOutcome:
        loaded = await self._load(encounter_id)
        # The body is decoded as the encounter's ruleset's attack (msgspec.ValidationError if not).
        request = self._attack_decoders[loaded.state.ruleset].decode(body)
        check_given(request.dice, loaded.ruleset.dice_steps(request))
        seed = request.seed if request.seed is not None else secrets.randbits(63)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            dice = Dice(seed, request.dice)
            resolution = current.ruleset.resolve_attack(
                request, current.state.combat, current.state.turn, dice
            )
            dice.check_given_used()
            return resolution, msgspec.structs.replace(current.state, combat=resolution.state)

        return await self._change(encounter_id, "attack", resolve, AttackOutcome, loaded)

    async def action(self, encounter_id: str, request: ActionRequest) -> ActionOutcome:
        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            resolution = current.ruleset.resolve_action(
                request, current.state.combat, current.state.turn
            )
            return resolution, msgspec.structs.replace(current.state, combat=resolution.state)

        return await self._change(encounter_id, "action", resolve, ActionOutcome)

    async def advance(self, encounter_id: str, request: AdvanceRequest) -> AdvanceOutcome:
        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            turn = advance_turn(current.state.turn, request)
            combat, effects = current.ruleset.on_advance(request, current.state.combat, turn)
            result = AdvanceResult(to=request.to, turn=turn, effects=effects)
            resolution = Resolution(result=result, state=combat, actor=request.actor)
            return resolution, msgspec.structs.replace(current.state, turn=turn, combat=combat)

        return await self._change(encounter_id, "advance", resolve, AdvanceOutcome)

    async def end(self, encounter_id: str) -> str:
        event_id = await self._store.delete(
            encounter_id, self._event("encounter_ended", encounter_id)
        )
        if event_id is None:
            raise EncounterNotFound(encounter_id)
        return event_id

    async def events(
        self, encounter_id: str, after: str | None, limit: int
    ) -> list[tuple[str, bytes]]:
        """(id, wire event) after `after` (ValueError if it is not an event id)."""
        cursor = after or START
        parse_event_id(cursor)
        events = await self._store.events_after(encounter_id, cursor, min(limit, EVENTS_PAGE))
        # Every encounter's stream starts with its creation: an empty one never existed.
        if not events and await self._store.last_event_id(encounter_id) is None:
            raise EncounterNotFound(encounter_id)
        return [(event_id, event_json(event_id, stored)) for event_id, stored in events]
