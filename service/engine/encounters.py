"""Use cases: one per request. Check who asks, load the encounter, ask its ruleset, commit.

A change starts from the encounter as this process last saw it (service/engine/cache.py) and
commits it with compare-and-set on the version: one round trip to the store. On a conflict the
store answers the encounter as it is now, and the use case checks who asks again and resolves
again with the same seed and given dice, so a retry changes nothing but the state it starts from.
A request with an Idempotency-Key is answered once: its answer is stored with the state change and
its event in the same atomic write, and every retry gets that answer back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import functools
import random
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import msgspec

from schemas.encounter import (
    ActionOutcome,
    AdvanceOutcome,
    AdvanceRequest,
    AdvanceResult,
    AttackOutcome,
    CombatState,
    EncounterCreate,
    EncounterCreated,
    EncounterEnvelope,
    EncounterState,
    EncounterView,
    EventType,
    InitiativeOutcome,
    Outcome,
    PlayerOutcome,
    SceneOutcome,
    StateEdit,
    StateEditOutcome,
    StateEditResult,
    StoredEvent,
    Tokens,
    TurnState,
    ZoneList,
    ZoneTestOutcome,
)
from schemas.initiative import (
    InitiativeJoin,
    InitiativeStart,
    InitiativeView,
)
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.scene import (
    ActorList,
    ActorMove,
    ActorPatch,
    PlayerBinding,
    SceneActor,
    SceneChange,
)
from service.engine import aftermath, keys, players, scene, sight
from service.engine.access import (
    REFUSED,
    Forbidden,
    Permission,
    Unauthorized,
    authorize,
    check_admin,
    digest,
    is_admin,
    player_of,
    seal_tokens,
    token_hash,
    unseal_tokens,
)
from service.engine.cache import DocumentCache, Turns
from service.engine.documents import Document, Documents, StoredStateInvalid, changes
from service.engine.errors import (
    EncounterEnded,
    EncounterNotFound,
    IdempotencyConflict,
    LimitExceeded,
    StateChanged,
    StoreContention,
)
from service.engine.events import AttackEvents, event_json, for_players
from service.engine.keys import Keys
from service.engine.previews import Previews, Samples
from service.engine.scene import ActorNotFound
from service.engine.sight import Sight
from service.rules import RULESETS, Resolution, Ruleset, RuleViolation, initiative, odds
from service.rules.dice import Dice, check_given
from service.rules.ruleset import InitiativeRules
from service.rules.turns import advance_turn
from service.store import (
    Answered,
    Committed,
    Conflict,
    EncounterExists,
    EncounterStore,
    Idempotency,
    StoredEncounter,
    Unchanged,
    parse_event_id,
)
from service.store.base import START

MAX_ATTEMPTS = 32
# After a lost compare-and-set, wait a random moment up to this much per attempt so far, so that
# writers piling onto one encounter spread out instead of colliding again in step.
BACKOFF_SECONDS = 0.001
# A request that keeps losing its compare-and-set for this long gives up (503 with Retry-After):
# under overload it is better told at once than kept retrying until the client times out.
CONTENTION_SECONDS = 0.5
EVENTS_PAGE = 1000
# The most a page of events carries, and one stored event (Config.events_page_bytes,
# Config.max_event_bytes).
EVENTS_PAGE_BYTES = 1024 * 1024
MAX_EVENT_BYTES = 256 * 1024
# Events a page reads from the store at first; then as many as the bytes left would hold at the
# size of those read so far, so a page of large events reads little past its bound.
EVENTS_FIRST_READ = 16
# Odds previews computed at once in this process, each in a thread: a sampled one (Hard Life's
# full auto) holds the interpreter a few tenths of a second, and more of them at once would
# leave the event loop, which answers the table's attacks, too small a share of it. One more
# than a token may have in flight (service/engine/previews.py), so one player at its budget
# leaves a thread to the others.
PREVIEW_THREADS = 3
# Documents this process keeps in memory, in bytes of their stored fields.
STATE_CACHE_BYTES = 64 * 1024 * 1024


@dataclass
class EventsPage:
    """A page of events as the wire has them, the id of the last event read, and whether it
    stopped at its bound (there may be more: go on from that id)."""

    events: list[bytes]
    last_event_id: str | None
    more: bool = False


@dataclass(frozen=True)
class Answer:
    """The JSON body of a state-changing request's answer; `replayed` for a retry's."""

    body: bytes
    replayed: bool = False
    # Set when the request made an encounter.
    encounter_id: str | None = None


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Admitted:
    """An encounter whose document was read and whose caller was shown to have the permission
    asked for: what the request goes on with (its body is read only now)."""

    encounter_id: str
    role: str
    document: Document
    needed: Permission
    # Checked again when the encounter changed under the request. Never shown.
    credential: str | None = field(default=None, repr=False)

    @property
    def version(self) -> int:
        return self.document.version

    @property
    def ended(self) -> bool:
        return self.document.ended

    @property
    def envelope(self) -> EncounterEnvelope:
        # Only a readable document is admitted.
        assert self.document.envelope is not None
        return self.document.envelope


# How a 409 of the initiative names what was asked, by the body's type.
_WHAT = {"attack_ask_type": "the attack", "zone_test_ask_type": "the zone test"}
Odds = TypeVar("Odds", AttackOdds, ZoneTestOdds)


def _told_reduced(answer: Odds, samples: Samples) -> Odds:
    """A sampled answer made with fewer samples than the default says so (its `sampling` has
    the number; the note says why)."""
    if samples.reduced_from is None or answer.method != "sampled":
        return answer
    note = (
        f"sampled {samples.count} times, not {samples.reduced_from}: a preview's work (samples x "
        "the size of what it samples) is bounded, and this one is large"
    )
    return msgspec.structs.replace(answer, notes=[*answer.notes, note])


@dataclass(frozen=True)
class _Loaded:
    document: Document
    state: EncounterState
    ruleset: Ruleset

    @property
    def version(self) -> int:
        return self.document.version


class Encounters:
    def __init__(
        self,
        store: EncounterStore,
        admin_key: str,
        rulesets: Mapping[str, Ruleset] = RULESETS,
        clock: Callable[[], str] = _utc_now,
        max_actors: int = 200,
        max_state_bytes: int = 512 * 1024,
        state_cache_bytes: int = STATE_CACHE_BYTES,
        previews: Previews | None = None,
        max_event_bytes: int = MAX_EVENT_BYTES,
        events_page_bytes: int = EVENTS_PAGE_BYTES,
    ) -> None:
        if not admin_key:
            raise ValueError("an admin key is required")
        self._store = store
        self._max_actors = max_actors
        self._max_event_bytes = max_event_bytes
        self._events_page_bytes = events_page_bytes
        self._admin_key_hash = token_hash(admin_key)
        self._rulesets = rulesets
        self._clock = clock
        self._documents = Documents(
            max_state_bytes, {i: type(r.new_state()) for i, r in rulesets.items()}
        )
        self._cache = DocumentCache(state_cache_bytes)
        self._turns = Turns()
        self.previews = previews if previews is not None else Previews(PREVIEW_THREADS)
        self._json = msgspec.json.Encoder()
        # Each ruleset's own bodies, by the Ruleset member that names their type.
        self._ruleset_decoders = {
            member: {
                ruleset_id: msgspec.json.Decoder(getattr(ruleset, member))
                for ruleset_id, ruleset in rulesets.items()
            }
            for member in ("attack_ask_type", "action_type", "zone_test_ask_type")
        }
        self._decoders: Mapping[Any, msgspec.json.Decoder[Any]] = {
            EncounterCreate: msgspec.json.Decoder(EncounterCreate),
            AdvanceRequest: msgspec.json.Decoder(AdvanceRequest),
            StateEdit: msgspec.json.Decoder(StateEdit),
            SceneActor: msgspec.json.Decoder(SceneActor),
            PlayerBinding: msgspec.json.Decoder(PlayerBinding),
            ActorPatch: msgspec.json.Decoder(ActorPatch),
            ActorMove: msgspec.json.Decoder(ActorMove),
            InitiativeStart: msgspec.json.Decoder(InitiativeStart),
            InitiativeJoin: msgspec.json.Decoder(InitiativeJoin),
        }
        self._attacks = AttackEvents({i: r.attack_type for i, r in rulesets.items()})
        self._keys = Keys(store)

    @property
    def store(self) -> EncounterStore:
        return self._store

    async def close(self) -> None:
        await self._keys.close()

    def _event(self, event_type: EventType, encounter_id: str, **fields: Any) -> bytes:
        return self._json.encode(
            StoredEvent(type=event_type, encounter=encounter_id, at=self._clock(), **fields)
        )

    def _bounded_event(
        self, event_type: EventType, encounter_id: str, request: Any, **fields: Any
    ) -> bytes:
        """The event to store, within the bound on a stored event's size: an attack's event
        larger than it leaves out the request it echoes (its dice and result stay: the result
        is what every client shows); one whose result alone is larger is refused before
        anything is written (LimitExceeded, 422)."""
        event = self._event(event_type, encounter_id, request=request, **fields)
        if len(event) <= self._max_event_bytes:
            return event
        if request is not None:
            event = self._event(event_type, encounter_id, trimmed=["request"], **fields)
            if len(event) <= self._max_event_bytes:
                return event
        raise LimitExceeded(
            f"this {event_type.replace('_', ' ')}'s result takes {len(event)} bytes, more than an "
            f"event may keep ({self._max_event_bytes}): ask for less at once (fewer targets, "
            "bystanders or barriers)"
        )

    # --- who asks --------------------------------------------------------------------------

    def check_admin(self, credential: str | None) -> None:
        """Only the server's admin key creates encounters: checked before the body is read."""
        check_admin(credential, self._admin_key_hash)

    async def admit(
        self,
        encounter_id: str,
        credential: str | None,
        needed: Permission,
        ended_ok: bool = False,
        fresh: bool = False,
    ) -> Admitted:
        """The encounter, once `credential` is shown to have `needed` on it: 401 for a wrong
        token whether or not the encounter exists (only the admin key learns that it does not:
        404), 403, then 410 for an ended one unless `ended_ok`. Only the head is decoded.

        A read (and a `fresh` request: an odds preview, which has no compare-and-set to catch a
        stale copy) asks the store for a newer version than the one this process holds; a
        change starts from the one it holds (its compare-and-set catches a stale one), and asks
        the store only when that copy refuses the token (one given since, on another replica)."""
        fresh = fresh or needed == "read"
        document, cached = await self._document(encounter_id, fresh)
        try:
            return self._admitted(encounter_id, document, credential, needed, ended_ok)
        except (Unauthorized, Forbidden):
            if not cached:
                raise
        document, _ = await self._document(encounter_id, fresh=True)
        return self._admitted(encounter_id, document, credential, needed, ended_ok)

    async def _document(self, encounter_id: str, fresh: bool) -> tuple[Document | None, bool]:
        """The encounter's document, and whether it came from memory without asking the store."""
        cached = self._cache.get(encounter_id)
        if cached is not None and not fresh:
            return cached, True
        stored = await self._store.load(encounter_id, None if cached is None else cached.version)
        if isinstance(stored, Unchanged):
            return cached, False
        if stored is None:
            self._cache.drop(encounter_id)
            return None, False
        return self._read(encounter_id, stored), False

    def _read(self, encounter_id: str, stored: Any) -> Document:
        document = self._documents.read(encounter_id, stored)
        if document.envelope is None:
            self._cache.drop(encounter_id)
        else:
            self._cache.put(document)
        return document

    def _admitted(
        self,
        encounter_id: str,
        document: Document | None,
        credential: str | None,
        needed: Permission,
        ended_ok: bool,
    ) -> Admitted:
        if document is None or document.envelope is None:
            if not is_admin(credential, self._admin_key_hash):
                raise Unauthorized(REFUSED)
            if document is None:
                raise EncounterNotFound(encounter_id)
            raise StoredStateInvalid(f"encounter '{encounter_id}' has a document this cannot read")
        token_hashes = document.envelope.token_hashes
        role = authorize(credential, needed, token_hashes, self._admin_key_hash)
        if document.ended and not ended_ok:
            raise EncounterEnded(encounter_id)
        return Admitted(encounter_id, role, document, needed, credential)

    def _loaded(
        self,
        admitted: Admitted,
        turn: TurnState | None = None,
        combat: CombatState | None = None,
    ) -> _Loaded:
        document = admitted.document
        state = self._documents.state(document, turn, combat)
        return _Loaded(document, state, self._rulesets[state.ruleset])

    def _after_conflict(self, admitted: Admitted, conflict: Conflict) -> tuple[Admitted, _Loaded]:
        """The encounter as another writer left it, for a request admitted before."""
        if conflict.current is None:
            self._cache.drop(admitted.encounter_id)
            raise EncounterNotFound(admitted.encounter_id)
        return self._again(admitted, self._read(admitted.encounter_id, conflict.current))

    def _again(self, admitted: Admitted, document: Document) -> tuple[Admitted, _Loaded]:
        """A request admitted on an older document, on a newer one: who asks is checked again
        on it (a token revoked since is refused now)."""
        again = self._admitted(
            admitted.encounter_id, document, admitted.credential, admitted.needed, ended_ok=False
        )
        return again, self._loaded(again)

    # --- creation ------------------------------------------------------------------------

    async def create(self, body: bytes, credential: str | None, key: str | None) -> Answer:
        self.check_admin(credential)
        request: EncounterCreate = self._decoders[EncounterCreate].decode(body)
        ruleset = self._rulesets[request.ruleset]
        if request.combat is not None and type(request.combat) is not type(ruleset.new_state()):
            raise RuleViolation(
                f"the combat state to start from must be a {request.ruleset} state",
                path="$.combat.ruleset",
                kind="wrong-ruleset",
            )
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
            combat=ruleset.settled(request.combat)
            if request.combat is not None
            else ruleset.new_state(),
            token_hashes={"gm": token_hash(tokens.gm), "player": token_hash(tokens.player)},
            dice_policy=request.dice_policy,
            sheet_policy=request.sheet_policy,
            damage=request.damage,
        )
        patch = self._documents.patch(None, state)
        # The event id goes in once the store has made it (keys.with_event_id).
        created = EncounterCreated(
            id=encounter_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=state.created_at,
            tokens=tokens,
            event_id="",
        )
        # What is kept for retries holds the tokens sealed with the client's key.
        kept = b""
        if key is not None:
            kept = self._json.encode(
                msgspec.structs.replace(created, tokens=seal_tokens(tokens, key))
            )
        try:
            stored = await self._store.create(
                encounter_id,
                patch.changed,
                self._event("encounter_created", encounter_id),
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
            first = msgspec.json.decode(body, type=EncounterCreated)
            first = msgspec.structs.replace(first, tokens=unseal_tokens(first.tokens, key))
            return Answer(self._json.encode(first), replayed=True, encounter_id=encounter_id)
        self._cache.put(patch.document)
        created = msgspec.structs.replace(created, event_id=stored.event_id)
        return Answer(self._json.encode(created), encounter_id=encounter_id)

    # --- reading ---------------------------------------------------------------------------

    def sight(self, admitted: Admitted) -> Sight:
        """What the token that was admitted sees (the GM's: everything, nothing decoded)."""
        if admitted.role == "gm":
            return Sight(admitted.role, frozenset())
        try:
            return Sight.of(self._loaded(admitted).state, admitted.role)
        except StoredStateInvalid:
            # A player is shown nothing of a state this version cannot read but its problem;
            # what that says, the scene's ids as stored tell.
            return Sight(admitted.role, frozenset(admitted.envelope.scene))

    async def zones(self, admitted: Admitted) -> ZoneList | Any:
        loaded = self._loaded(admitted)
        zones = ZoneList(zones=loaded.ruleset.zones(loaded.state.combat))
        sight = Sight.of(loaded.state, admitted.role)
        return zones if sight.everything else sight.redact(msgspec.to_builtins(zones))

    async def view(self, admitted: Admitted) -> EncounterView | dict[str, Any]:
        """The whole state. One this version cannot use is shown as stored, with the problem,
        so the GM can see what to correct (and replace it with PUT .../state)."""
        last = await self._store.last_event_id(admitted.encounter_id)
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
            for event_id, stored in events:
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

    # --- changing ----------------------------------------------------------------------------

    async def _change(
        self,
        admitted: Admitted,
        event_type: EventType,
        key: str | None,
        body: bytes,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
        loaded: _Loaded,
        event_request: Any = None,
        shown: frozenset[str] = frozenset(),
    ) -> Answer:
        encounter_id = admitted.encounter_id
        idempotency = keys.attempt(f"{encounter_id}:{event_type}", key, body)
        if idempotency is not None:
            first = await self._keys.claim(encounter_id, idempotency)
            if first is not None:
                return Answer(first, replayed=True)
        try:
            async with self._turns.turn(encounter_id):
                return await self._resolve_and_commit(
                    admitted,
                    event_type,
                    loaded,
                    idempotency,
                    resolve,
                    outcome_type,
                    event_request,
                    shown,
                )
        except BaseException:
            if idempotency is not None:
                await self._keys.release(encounter_id, idempotency)
            raise

    async def _resolve_and_commit(
        self,
        admitted: Admitted,
        event_type: EventType,
        loaded: _Loaded,
        idempotency: Idempotency | None,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
        event_request: Any,
        shown: frozenset[str],
    ) -> Answer:
        encounter_id = admitted.encounter_id
        give_up_at = time.monotonic() + CONTENTION_SECONDS
        newer = self._cache.get(encounter_id)
        if newer is not None and newer.version > loaded.version:
            # A change that took its turn before this one committed while this one waited.
            admitted, loaded = self._again(admitted, newer)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            resolution, new_state = resolve(loaded)
            new_state = self._with_room(loaded.state, new_state)
            patch = self._documents.patch(loaded.document, new_state)
            before = {z.id for z in loaded.ruleset.zones(loaded.state.combat)}
            after = loaded.ruleset.zones(new_state.combat)
            # The result is encoded once: the event keeps that encoding and the answer repeats it.
            result = msgspec.Raw(self._json.encode(resolution.result))
            answer = self._json.encode(
                outcome_type(
                    event_id="",
                    result=result,
                    changes=changes(loaded.state, new_state, loaded.version + 1),
                )
            )
            # What players may not see of the change: the hidden actors (but the one a scene
            # change is about, whose audience scene.audience decides, and the names a player's
            # request typed, which are not the hidden actors to it).
            unseen = Sight.of(loaded.state, "player").hidden | Sight.of(new_state, "player").hidden
            unseen -= shown | ({resolution.actor} if event_type == "scene" else set())
            if admitted.role != "gm" and unseen:
                answer = Sight(admitted.role, frozenset(unseen)).redact_json(answer)
            fields: dict[str, Any] = dict(
                actor=resolution.actor,
                result=cast(Any, result),
                **scene.audience(event_type, loaded.state, new_state, resolution.actor),
                zones_started=[z for z in after if z.id not in before],
                zones_ended=sorted(before - {z.id for z in after}),
            )
            event = self._bounded_event(event_type, encounter_id, event_request, **fields)
            named = sorted(i for i in unseen if i.encode() in event)
            if named:
                event = self._bounded_event(
                    event_type, encounter_id, event_request, hidden_actors=named, **fields
                )
            committed = await self._store.commit(
                encounter_id,
                loaded.version,
                patch.changed,
                patch.removed,
                event,
                answer if idempotency is not None else b"",
                idempotency,
            )
            if isinstance(committed, Committed):
                self._cache.put(patch.document)
                return Answer(keys.with_event_id(answer, committed.event_id))
            # Another writer came first: resolve again at once on what it left, which the lost
            # compare-and-set answered. Losing again means writers pile onto this encounter: wait
            # a random moment so they spread out, then read what they left by then.
            if time.monotonic() > give_up_at:
                break
            if attempt > 1:
                await asyncio.sleep(random.uniform(0, BACKOFF_SECONDS * attempt))
                stored = await self._store.load(encounter_id)
                committed = Conflict(stored if isinstance(stored, StoredEncounter) else None)
            admitted, loaded = self._after_conflict(admitted, committed)
        raise StoreContention(
            f"encounter '{encounter_id}' changed too often while this request resolved"
        )

    def _with_room(self, before: EncounterState, after: EncounterState) -> EncounterState:
        """The state within the room it has for actors' combat state. The scene's actors have
        theirs (the scene holds at most max_actors); actors a request named that the scene does
        not hold share another max_actors, the oldest of them forgotten first to make room, so
        made-up names never take the room of the GM's actors, nor stop anyone naming more."""
        actors = after.combat.actors
        off_scene = [i for i in actors if i not in after.scene]
        excess = len(off_scene) - self._max_actors
        if excess <= 0:
            return after
        older = [i for i in before.combat.actors if i in actors and i not in after.scene]
        if len(older) < excess:
            raise LimitExceeded(
                f"one request may name at most {self._max_actors} actors the scene does not hold"
            )
        forgotten = set(older[:excess])
        kept = {i: a for i, a in actors.items() if i not in forgotten}
        return msgspec.structs.replace(
            after, combat=msgspec.structs.replace(after.combat, actors=kept)
        )

    def _rolling(
        self,
        given: Mapping[str, Any],
        seed: int | None,
        roll: Callable[[_Loaded, Dice], Resolution[Any]],
        after: aftermath.After | None = None,
    ) -> Callable[[_Loaded], tuple[Resolution[Any], EncounterState]]:
        """A resolution that rolls: the same seed and given dice on every attempt, and the given
        dice all used; `after` carries what it did over to the scene and the turn."""
        seed = seed if seed is not None else secrets.randbits(63)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            dice = Dice(seed, given)
            resolution = roll(current, dice)
            dice.check_given_used()
            state = msgspec.structs.replace(
                current.state,
                combat=resolution.state,
                turn=resolution.turn or current.state.turn,
            )
            return (resolution, state) if after is None else after(resolution, state)

        return resolve

    def _asked(
        self, admitted: Admitted, body_type: str, body: bytes, zone_id: str | None
    ) -> tuple[_Loaded, Any, frozenset[str]]:
        """The encounter as loaded, the request decoded as its ruleset's `body_type` and filled
        in from the scene (and the live zone `zone_id`) as the rules resolve it, and the hidden
        actors it names that are to it actors the scene does not hold."""
        asked = self._ruleset_decoders[body_type][admitted.envelope.ruleset].decode(body)
        loaded = self._loaded(admitted)
        state = loaded.state
        sight = Sight.of(state, admitted.role)
        names = players.named(asked)
        # A player names only actors it sees (a hidden one is as unknown as one never put on
        # the scene), and takes the numbers of those the scene holds a sheet for.
        sight.check_named(names, state)
        typed: list[tuple[str, str]] = []
        if admitted.role != "gm" and state.sheet_policy == "scene":
            asked, typed = players.by_name(asked, sight.scene(state.scene))
        # A hidden actor a player's request names (where players type their numbers) is to it
        # an actor the scene does not hold: the scene fills nothing in from it.
        masked = sight.named_hidden([name for name, _ in names])
        scene_seen = {i: a for i, a in state.scene.items() if i not in masked}
        request = self._filled(loaded, body_type, asked, scene_seen, zone_id)
        players.check_typed(body, request, typed)
        return loaded, request, masked

    def _filled(
        self,
        loaded: _Loaded,
        body_type: str,
        request: Any,
        scene_seen: Mapping[str, SceneActor],
        zone_id: str | None,
    ) -> Any:
        """The request filled in from the scene (and the live zone `zone_id`)."""
        if body_type == "attack_ask_type":
            request = loaded.ruleset.fill_attack(request, scene_seen)
        if body_type == "zone_test_ask_type":
            # A ruleset without zones (sr3) refuses every zone test itself (422, saying so),
            # before any zone is looked up.
            if not loaded.ruleset.info.zone_shapes:
                loaded.ruleset.fill_zone_test(request, scene_seen)
            # No such zone is the first thing to say (404), before what the scene lacks.
            live = {zone.id: zone for zone in loaded.ruleset.zones(loaded.state.combat)}
            if zone_id not in live:
                raise RuleViolation(
                    f"no live zone '{zone_id}' (it may have ended)",
                    path="zone",
                    kind="zone-not-found",
                    status=404,
                )
            if not live[zone_id].tests:
                raise RuleViolation(
                    f"'{zone_id}' is a {live[zone_id].kind}: there is no test to make against it",
                    path="zone",
                    kind="zone-without-test",
                    status=409,
                )
            request = loaded.ruleset.fill_zone_test(
                request, scene_seen, zone_id, loaded.state.combat
            )
        if body_type == "action_type":
            request = loaded.ruleset.fill_action(request, scene_seen)
        return request

    @staticmethod
    def _check_acts_for(admitted: Admitted, current: _Loaded, request: Any) -> None:
        """A player's token acts only for the actors it is bound to (the shared one for no GM
        actor)."""
        acting, path = players.acting_actor(request)
        Sight.of(current.state, admitted.role).check_acts_for(current.state, acting, path)

    async def _play(
        self,
        admitted: Admitted,
        event_type: EventType,
        body_type: str,
        body: bytes,
        key: str | None,
        steps: Callable[[Ruleset, Any], Mapping[str, int]],
        play: Callable[[Ruleset, Any, EncounterState, Dice, Any], Resolution[Any]],
        outcome_type: Callable[..., Outcome],
        scope: bytes = b"",
        zone_id: str | None = None,
    ) -> Answer:
        """A player's request that may roll: decoded as the encounter's ruleset's `body_type`
        (msgspec.ValidationError if it is not one), its given dice checked, then resolved."""
        ruleset_id = admitted.envelope.ruleset
        loaded, request, masked = self._asked(admitted, body_type, body, zone_id)
        fired = (
            aftermath.fired(loaded.ruleset, request) if body_type != "zone_test_ask_type" else None
        )
        what = _WHAT.get(body_type) or str(getattr(request, "action", body_type))
        after = aftermath.spent(loaded.ruleset, request, what, fired)
        check_given(request.dice, steps(loaded.ruleset, request))

        def check_player(current: _Loaded) -> None:
            self._check_acts_for(admitted, current, request)
            if admitted.role != "gm" and current.state.dice_policy == "own":
                acting, _ = players.acting_actor(request)
                player = player_of(admitted.role)
                players.check_dice(current.state, current.ruleset, player, acting, request.dice)

        check_player(loaded)
        earlier = None
        if body_type == "action_type":
            follows = loaded.ruleset.follows_up(request)
            if follows is not None:
                earlier = await self._attacks.last_attack(
                    self._store, admitted.encounter_id, follows, ruleset_id
                )

        def roll(current: _Loaded, dice: Dice) -> Resolution[Any]:
            if current is not loaded:
                # The encounter changed under the request: the player may no longer act so.
                check_player(current)
            if not masked:
                return play(current.ruleset, request, current.state, dice, earlier)
            # The hidden actors the request named are to it actors the scene does not hold:
            # the rules read none of their state, and what they write of it is not kept.
            real = current.state.combat
            resolution = play(
                current.ruleset, request, sight.without_actors(current.state, masked), dice, earlier
            )
            return msgspec.structs.replace(
                resolution, state=sight.with_actors_of(resolution.state, real, masked)
            )

        resolve = self._rolling(request.dice, request.seed, roll, after)
        # The attack's event keeps it whole, as the scene filled it in, its given dice left out
        # (they are in the result).
        kept = msgspec.structs.replace(request, dice={}) if body_type == "attack_ask_type" else None
        return await self._change(
            admitted, event_type, key, scope + body, resolve, outcome_type, loaded, kept, masked
        )

    async def attack(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        return await self._play(
            admitted,
            "attack",
            "attack_ask_type",
            body,
            key,
            lambda ruleset, request: ruleset.dice_steps(request),
            lambda ruleset, request, state, dice, _: ruleset.resolve_attack(
                request, state.combat, state.turn, dice
            ),
            AttackOutcome,
        )

    def _preview(
        self, admitted: Admitted, body_type: str, body: bytes, zone_id: str | None = None
    ) -> tuple[_Loaded, Any, int]:
        """An odds preview's encounter and request, filled in as the request itself would be,
        and the seed of its sampling (the request's, so a sampled answer can be had again).
        Nothing is rolled: given dice would make the odds those of dice already thrown."""
        loaded, request, masked = self._asked(admitted, body_type, body, zone_id)
        if masked:
            loaded = dataclasses.replace(loaded, state=sight.without_actors(loaded.state, masked))
        if request.dice:
            raise RuleViolation(
                "odds are of dice not yet rolled: leave out the given dice",
                path="$.dice",
                kind="dice-given",
            )
        self._check_acts_for(admitted, loaded, request)
        return loaded, request, request.seed if request.seed is not None else odds.SEED

    async def attack_odds(
        self,
        admitted: Admitted,
        body: bytes,
        samples: int | None = None,
        stop: threading.Event | None = None,
    ) -> AttackOdds | Any:
        """The attack's odds on the encounter as it stands (nothing changes, no event).
        `samples`: those asked (None: the default, fewer when its work would pass the bound);
        `stop` set ends a sampled one before its next sample (odds.Stopped)."""

        def compute(ruleset: Ruleset, *arguments: Any) -> AttackOdds:
            return ruleset.attack_odds(*arguments)

        return await self._odds(admitted, "attack_ask_type", body, None, compute, samples, stop)

    async def zone_test_odds(
        self,
        admitted: Admitted,
        zone_id: str,
        body: bytes,
        samples: int | None = None,
        stop: threading.Event | None = None,
    ) -> ZoneTestOdds | Any:
        """The zone test's odds for the actor in (or entering) live zone `zone_id`."""

        def compute(ruleset: Ruleset, *arguments: Any) -> ZoneTestOdds:
            return ruleset.zone_test_odds(zone_id, *arguments)

        return await self._odds(
            admitted, "zone_test_ask_type", body, zone_id, compute, samples, stop
        )

    async def _odds(
        self,
        admitted: Admitted,
        body_type: str,
        body: bytes,
        zone_id: str | None,
        compute: Callable[..., Odds],
        samples: int | None,
        stop: threading.Event | None,
    ) -> Odds | Any:
        """A preview within its token's and encounter's budget, its sample count within the
        bound on its work, computed in a thread; as the token may see it (what a player's
        token is told of the actors the request did not name itself)."""
        async with self.previews.slot(admitted.encounter_id, admitted.credential):
            loaded, request, seed = self._preview(admitted, body_type, body, zone_id)
            sight = Sight.of(loaded.state, admitted.role).but_what_was_asked(
                body.decode(errors="replace")
            )
            count = self.previews.samples(samples, request)
            answer = await self.previews.run(
                compute,
                loaded.ruleset,
                request,
                loaded.state.combat,
                loaded.state.turn,
                seed,
                count.count,
                stop=stop,
            )
        answer = _told_reduced(answer, count)
        return answer if sight.everything else sight.redact(msgspec.to_builtins(answer))

    async def action(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        return await self._play(
            admitted,
            "action",
            "action_type",
            body,
            key,
            lambda ruleset, request: ruleset.action_dice_steps(request),
            lambda ruleset, request, state, dice, earlier: ruleset.resolve_action(
                request, state.combat, state.turn, dice, earlier
            ),
            ActionOutcome,
        )

    async def advance(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        request: AdvanceRequest = self._decoders[AdvanceRequest].decode(body)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            turn, rules = current.state.turn, current.ruleset.initiative
            if rules is not None and turn.initiative is not None:
                # The service runs the initiative: the next phase is the order's.
                turn, crossings, effects = initiative.advance(turn, rules, request)
            else:
                turn, crossings, effects = advance_turn(turn, request), [request], []
            state, more, went_off = aftermath.crossed(
                current.ruleset, msgspec.structs.replace(current.state, turn=turn), crossings
            )
            result = AdvanceResult(
                to=request.to, turn=turn, effects=effects + more, went_off=went_off
            )
            actor = request.actor or turn.action_phase
            resolution = Resolution(result=result, state=state.combat, actor=actor)
            return resolution, state

        loaded = self._loaded(admitted)
        return await self._change(admitted, "advance", key, body, resolve, AdvanceOutcome, loaded)

    # --- the initiative the service runs ----------------------------------------------------

    def _initiative_rules(self, admitted: Admitted) -> InitiativeRules:
        ruleset_id = admitted.envelope.ruleset
        rules = self._rulesets[ruleset_id].initiative
        if rules is None:
            raise RuleViolation(
                f"{ruleset_id} has no initiative passes for the service to run",
                path="ruleset",
                kind="no-initiative",
            )
        return rules

    async def _initiative_change(
        self,
        admitted: Admitted,
        key: str | None,
        scope: bytes,
        resolve: Callable[[_Loaded], tuple[Resolution[Any], EncounterState]],
    ) -> Answer:
        return await self._change(
            admitted, "initiative", key, scope, resolve, InitiativeOutcome, self._loaded(admitted)
        )

    async def start_initiative(
        self, admitted: Admitted, body: bytes, key: str | None = None
    ) -> Answer:
        """A combat turn begins with these actors' initiative (the next turn if one is under
        way): the service runs its passes and phases from now on."""
        rules = self._initiative_rules(admitted)
        request: InitiativeStart = self._decoders[InitiativeStart].decode(body)
        if len(request.actors) > self._max_actors:
            raise LimitExceeded(f"a combat turn orders at most {self._max_actors} actors")

        def roll(current: _Loaded, dice: Dice) -> Resolution[Any]:
            turn = current.state.turn
            if request.actors:
                aftermath.check_initiative_dice(request.dice, [a.actor for a in request.actors])
                entries = initiative.roll_entries(
                    rules, request.actors, current.state.scene, dice, combat=current.state.combat
                )
            else:
                before = [e.actor for e in (turn.initiative.entries if turn.initiative else [])]
                aftermath.check_initiative_dice(request.dice, before)
                entries = initiative.roll_again(turn, rules, dice, current.state.combat)
            turn, crossings, effects = initiative.start(turn, rules, entries)
            state, more, went_off = aftermath.crossed(
                current.ruleset, msgspec.structs.replace(current.state, turn=turn), crossings
            )
            return aftermath.initiative_resolution(
                "started", [e.actor for e in entries], state, effects + more, dice, went_off
            )

        resolve = self._rolling(request.dice, request.seed, roll)
        return await self._initiative_change(admitted, key, b"start\0" + body, resolve)

    async def join_initiative(
        self, admitted: Admitted, body: bytes, key: str | None = None
    ) -> Answer:
        """Actors join the combat turn under way, each in its place by its score."""
        rules = self._initiative_rules(admitted)
        request: InitiativeJoin = self._decoders[InitiativeJoin].decode(body)

        def roll(current: _Loaded, dice: Dice) -> Resolution[Any]:
            aftermath.check_initiative_dice(request.dice, [a.actor for a in request.actors])
            entries = initiative.roll_entries(
                rules, request.actors, current.state.scene, dice, combat=current.state.combat
            )
            turn, effects = initiative.join(current.state.turn, entries)
            if len(turn.initiative.entries if turn.initiative else []) > self._max_actors:
                raise LimitExceeded(f"a combat turn orders at most {self._max_actors} actors")
            state = msgspec.structs.replace(current.state, turn=turn)
            return aftermath.initiative_resolution(
                "joined", [e.actor for e in entries], state, effects, dice
            )

        resolve = self._rolling(request.dice, request.seed, roll)
        return await self._initiative_change(admitted, key, b"join\0" + body, resolve)

    async def leave_initiative(
        self, admitted: Admitted, actor_id: str, key: str | None = None
    ) -> Answer:
        """An actor leaves the combat turn (it may join again); if it was acting, the next
        phase begins."""
        rules = self._initiative_rules(admitted)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            turn, crossings, effects = initiative.leave(current.state.turn, rules, actor_id)
            state, more, went_off = aftermath.crossed(
                current.ruleset, msgspec.structs.replace(current.state, turn=turn), crossings
            )
            resolution = aftermath.initiative_resolution(
                "left", [actor_id], state, effects + more, went_off=went_off
            )
            return resolution, state

        return await self._initiative_change(admitted, key, b"leave\0" + actor_id.encode(), resolve)

    async def stop_initiative(self, admitted: Admitted, key: str | None = None) -> Answer:
        """The service stops running the initiative; the VTT's own tracker goes on with
        `advance` (the turn's counters stay as they are)."""
        self._initiative_rules(admitted)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            if current.state.turn.initiative is None:
                raise RuleViolation(
                    "the service runs no initiative in this encounter",
                    kind="no-initiative",
                    status=409,
                )
            turn = msgspec.structs.replace(current.state.turn, initiative=None)
            state = msgspec.structs.replace(current.state, turn=turn)
            effects = ["the service no longer runs the initiative"]
            return aftermath.initiative_resolution("stopped", [], state, effects), state

        return await self._initiative_change(admitted, key, b"stop\0", resolve)

    async def initiative_view(self, admitted: Admitted) -> InitiativeView:
        rules = self._initiative_rules(admitted)
        state = self._loaded(admitted).state
        turn = Sight.of(state, admitted.role).turn(state.turn)
        running = turn.initiative
        if running is None:
            raise RuleViolation(
                "the service runs no initiative in this encounter: start a combat turn with "
                "POST .../initiative",
                kind="no-initiative",
                status=404,
            )
        return InitiativeView(
            combat_turn=turn.combat_turn,
            initiative_pass=turn.initiative_pass,
            current=running.current,
            over=running.over,
            entries=running.entries,
            actions_left=[]
            if running.current is None
            else initiative.actions_left(running.used, rules.budgets),
            source=rules.source,
        )

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

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
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
            return Resolution(result=result, state=state.combat), state

        try:
            loaded = self._loaded(admitted)
        except StoredStateInvalid:
            # What the edit replaces need not be readable: that is how the GM corrects it.
            loaded = self._loaded(admitted, edit.turn, edit.combat)
        return await self._change(
            admitted, "state_edited", key, body, resolve, StateEditOutcome, loaded
        )

    async def zone_test(
        self, admitted: Admitted, zone_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        return await self._play(
            admitted,
            "zone_test",
            "zone_test_ask_type",
            body,
            key,
            lambda ruleset, request: ruleset.zone_test_dice_steps(request),
            lambda ruleset, request, state, dice, _: ruleset.resolve_zone_test(
                zone_id, request, state.combat, state.turn, dice
            ),
            ZoneTestOutcome,
            # The same body for another zone is another request.
            scope=zone_id.encode() + b"\0",
            zone_id=zone_id,
        )

    # --- the scene -----------------------------------------------------------------------------

    async def actors(self, admitted: Admitted) -> ActorList:
        """The scene's actors this token sees (players: none hidden)."""
        state = self._loaded(admitted).state
        return ActorList(actors=Sight.of(state, admitted.role).scene(state.scene))

    async def actor(self, admitted: Admitted, actor_id: str) -> SceneActor:
        state = self._loaded(admitted).state
        found = Sight.of(state, admitted.role).scene(state.scene).get(actor_id)
        if found is None:
            raise ActorNotFound(actor_id)
        return found

    async def put_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """The GM sets an actor whole: a new one, or one replaced."""
        actor: SceneActor = self._decoders[SceneActor].decode(body)
        ruleset_id = admitted.envelope.ruleset
        scene.check_sheet(actor, self._rulesets[ruleset_id].sheet_type, ruleset_id)

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            if actor_id not in state.scene and len(state.scene) >= self._max_actors:
                raise LimitExceeded(
                    f"a scene holds at most {self._max_actors} actors; take one off first"
                )
            return "set", actor

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def patch_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """The GM changes some parts of an actor (its name, controller, position, sheet...)."""
        patch: ActorPatch = self._decoders[ActorPatch].decode(body)
        ruleset_id = admitted.envelope.ruleset

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            if actor_id not in state.scene:
                raise ActorNotFound(actor_id)
            actor = scene.patched(state.scene[actor_id], patch)
            scene.check_sheet(actor, self._rulesets[ruleset_id].sheet_type, ruleset_id)
            return "patched", actor

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def move_actor(
        self, admitted: Admitted, actor_id: str, body: bytes, key: str | None = None
    ) -> Answer:
        """An actor moves: the GM's, or a player's for an actor the player can see."""
        move: ActorMove = self._decoders[ActorMove].decode(body)

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            sight = Sight.of(state, admitted.role)
            actor = sight.scene(state.scene).get(actor_id)
            if actor is None:
                raise ActorNotFound(actor_id)
            sight.check_acts_for(state, actor_id, "actor")
            return "moved", msgspec.structs.replace(actor, position=move.position)

        return await self._scene_change(admitted, actor_id, body, key, change)

    async def remove_actor(
        self, admitted: Admitted, actor_id: str, key: str | None = None
    ) -> Answer:
        """The GM takes an actor off the scene (its combat state, recoil and the like, stays)."""

        def change(state: EncounterState) -> tuple[SceneChange, SceneActor | None]:
            if actor_id not in state.scene:
                raise ActorNotFound(actor_id)
            return "removed", None

        return await self._scene_change(admitted, actor_id, b"", key, change)

    async def _scene_change(
        self,
        admitted: Admitted,
        actor_id: str,
        body: bytes,
        key: str | None,
        change: Callable[[EncounterState], tuple[SceneChange, SceneActor | None]],
    ) -> Answer:
        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            kind, actor = change(current.state)
            after = scene.with_actor(current.state, actor_id, actor)
            result = scene.result(kind, actor_id, current.state, after)
            if kind == "moved" and actor is not None and actor.position is not None:
                zones = current.ruleset.zones(after.combat)
                result = msgspec.structs.replace(
                    result, must_test=scene.zones_holding(zones, actor.position)
                )
            return Resolution(result=result, state=after.combat, actor=actor_id), after

        loaded = self._loaded(admitted)
        # The same body for another actor is another request.
        scope = actor_id.encode() + b"\0" + body
        return await self._change(admitted, "scene", key, scope, resolve, SceneOutcome, loaded)

    # --- players -----------------------------------------------------------------------------

    async def issue_player_token(self, admitted: Admitted, player_id: str, body: bytes) -> Answer:
        """The GM gives a player a token of its own (a new one replaces the old), and with it
        the actors the body names. The token is in this answer only."""
        binding: PlayerBinding = self._decoders[PlayerBinding].decode(body)
        token = secrets.token_urlsafe(32)

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
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

        def resolve(current: _Loaded) -> tuple[Resolution[Any], EncounterState]:
            after = players.without_token(current.state, player_id)
            return players.resolution(after, player_id), after

        return await self._change(
            admitted, "players", None, b"", resolve, PlayerOutcome, self._loaded(admitted)
        )

    async def end(self, admitted: Admitted) -> str:
        """Ends the encounter; its state is not read, so any stored state can be ended."""
        event_id = await self._store.delete(
            admitted.encounter_id, self._event("encounter_ended", admitted.encounter_id)
        )
        self._cache.drop(admitted.encounter_id)
        if event_id is None:
            raise EncounterEnded(admitted.encounter_id)
        return event_id
