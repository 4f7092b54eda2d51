"""What every use case shares: who asks, the encounter as loaded, and the change committed.

A change starts from the encounter as this process last saw it (service/engine/cache.py) and
commits it with compare-and-set on the version: one round trip to the store. On a conflict the
store answers the encounter as it is now, and the use case checks who asks again and resolves
again with the same seed and given dice, so a retry changes nothing but the state it starts from.
A request with an Idempotency-Key is answered once: its answer is stored with the state change and
its event in the same atomic write, and every retry gets that answer back.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec

from schemas.campaign import CAMPAIGN_PREFIX
from schemas.common import NAME_MAX_LENGTH
from schemas.encounter import (
    AdvanceRequest,
    CombatState,
    EncounterCreate,
    EncounterEnvelope,
    EncounterState,
    EventType,
    Outcome,
    StateEdit,
    StoredEvent,
    TurnState,
)
from schemas.imports import ImportFormat, ImportReport, LeftOut
from schemas.initiative import InitiativeJoin, InitiativeStart
from schemas.scene import ActorMove, ActorPatch, PlayerBinding, SceneActor
from service.engine import aftermath, dice_keeping, keys, scene
from service.engine.access import (
    REFUSED,
    Forbidden,
    Permission,
    Unauthorized,
    authorize,
    check_admin,
    is_admin,
    token_hash,
)
from service.engine.cache import DocumentCache, Turns
from service.engine.documents import (
    Document,
    Documents,
    StoredStateInvalid,
    changes,
    unreadable,
)
from service.engine.errors import EncounterEnded, EncounterNotFound, LimitExceeded, StoreContention
from service.engine.events import AttackEvents
from service.engine.keys import Keys
from service.engine.migrations import SCHEMA_VERSION
from service.engine.previews import Previews
from service.engine.sight import Sight
from service.engine.undo_records import record_of
from service.imports import import_character
from service.rules import RULESETS, Resolution, Ruleset, RuleViolation
from service.rules.dice import Dice
from service.store import (
    Committed,
    Conflict,
    EncounterStore,
    Idempotency,
    StoredEncounter,
    StoreLimits,
    Unchanged,
)

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
# Character files read at once in this process, each in a thread: a hostile 4 MiB file (a
# million empty elements) holds the interpreter about 1.4 s; two at once leave the loop its share.
IMPORT_THREADS = 2
# Documents this process keeps in memory, in bytes of their stored fields.
STATE_CACHE_BYTES = 64 * 1024 * 1024
# The store's TTLs when the caller names none: a store's own defaults.
DEFAULT_LIMITS = StoreLimits()


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


def _unheard() -> None:
    pass


class UtcMillis:
    """`datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")`
    (`2026-12-03T07:48:45.190+00:00`, an event's `at`), the date and time of day formatted once
    a second, not once an event: a seventh of its CPU (docs/performance.md, "Issue 28"). The
    milliseconds are the clock's nanoseconds cut down, as datetime cuts them."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self) -> str:
        return self.at(time.time_ns())

    def at(self, nanoseconds: int) -> str:
        second, milli = divmod(nanoseconds // 1_000_000, 1000)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._prefix}.{milli:03d}+00:00"


_utc_now = UtcMillis()


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


@dataclass(frozen=True)
class Loaded:
    document: Document
    state: EncounterState
    ruleset: Ruleset

    @property
    def version(self) -> int:
        return self.document.version


class Moved(Exception):
    """A change that read something beside the state (the undo's newest record, a follow-up's
    earlier attack in the stream) found the state moved on when it came to commit: what it read
    may no longer go with it, so it starts again from `current`."""

    def __init__(self, current: Loaded) -> None:
        super().__init__("the encounter changed under the request")
        self.current = current


class EncounterCore:
    """The state and the machinery every use case shares (service/engine/encounters.py
    puts the use cases together)."""

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
        ttl_seconds: int | None = DEFAULT_LIMITS.ttl_seconds,
        ended_ttl_seconds: int = DEFAULT_LIMITS.ended_ttl_seconds,
    ) -> None:
        """`ttl_seconds` and `ended_ttl_seconds`: the store's (its StoreLimits), which GET
        /v1/encounters/{id} shows (service/engine/expiry.py)."""
        if not admin_key:
            raise ValueError("an admin key is required")
        self._store = store
        self._max_actors = max_actors
        self._max_event_bytes = max_event_bytes
        self._events_page_bytes = events_page_bytes
        self._ttl_seconds = ttl_seconds
        self._ended_ttl_seconds = ended_ttl_seconds
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
        self._files_read = asyncio.Semaphore(IMPORT_THREADS)
        # Told of each compare-and-set lost, and each change resolved again after one (their
        # metrics: service/api/metrics.py).
        self.on_conflict: Callable[[], object] = _unheard
        self.on_retry: Callable[[], object] = _unheard

    @property
    def store(self) -> EncounterStore:
        return self._store

    async def close(self) -> None:
        await self._keys.close()

    def _event(self, event_type: EventType, encounter_id: str, **fields: Any) -> bytes:
        return self._json.encode(
            StoredEvent(
                type=event_type,
                encounter=encounter_id,
                at=self._clock(),
                schema_version=SCHEMA_VERSION,
                **fields,
            )
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

    async def _character(
        self, source_format: ImportFormat, data: bytes, ruleset_id: str, where: str
    ) -> tuple[Any, ImportReport, str]:
        """A character file's sheet, its report and the name a new actor takes from it, read in a
        thread (the event loop answers the table's attacks meanwhile); 422 `wrong-ruleset` when
        the file is not for `ruleset_id`, the ruleset of `where` ("encounter", "campaign")."""
        async with self._files_read:
            sheet, report = await asyncio.to_thread(import_character, source_format, data)
        if report.ruleset != ruleset_id:
            raise RuleViolation(
                f"the file is a {report.source_format} character, for {report.ruleset}; this "
                f"{where} plays {ruleset_id}",
                path="format",
                kind="wrong-ruleset",
            )
        name = report.name
        if len(name) > NAME_MAX_LENGTH:
            report.left_out.append(
                LeftOut("name", f"longer than {NAME_MAX_LENGTH} characters: a new actor gets none")
            )
            name = ""
        return sheet, report, name

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
        if encounter_id.startswith(CAMPAIGN_PREFIX):
            # A campaign is a document of the same store, never an encounter.
            return None, False
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
            raise StoredStateInvalid(unreadable(document))
        token_hashes = document.envelope.token_hashes
        role = authorize(credential, needed, token_hashes, self._admin_key_hash)
        if document.later is not None:
            # What a later version stored is neither read nor written by this one.
            raise StoredStateInvalid(unreadable(document))
        if document.ended and not ended_ok:
            raise EncounterEnded(encounter_id)
        return Admitted(encounter_id, role, document, needed, credential)

    def _loaded(
        self,
        admitted: Admitted,
        turn: TurnState | None = None,
        combat: CombatState | None = None,
    ) -> Loaded:
        document = admitted.document
        state = self._documents.state(document, turn, combat)
        return Loaded(document, state, self._rulesets[state.ruleset])

    def _after_conflict(self, admitted: Admitted, conflict: Conflict) -> tuple[Admitted, Loaded]:
        """The encounter as another writer left it, for a request admitted before."""
        if conflict.current is None:
            self._cache.drop(admitted.encounter_id)
            raise EncounterNotFound(admitted.encounter_id)
        return self._again(admitted, self._read(admitted.encounter_id, conflict.current))

    def _again(self, admitted: Admitted, document: Document) -> tuple[Admitted, Loaded]:
        """A request admitted on an older document, on a newer one: who asks is checked again
        on it (a token revoked since is refused now)."""
        again = self._admitted(
            admitted.encounter_id, document, admitted.credential, admitted.needed, ended_ok=False
        )
        return again, self._loaded(again)

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

    async def _change(
        self,
        admitted: Admitted,
        event_type: EventType,
        key: str | None,
        body: bytes,
        resolve: Callable[[Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
        loaded: Loaded,
        event_request: Any = None,
        shown: frozenset[str] = frozenset(),
        audience: Mapping[str, bool] | None = None,
    ) -> Answer:
        """Resolve and commit a change; with it goes the record that takes it back (an undo's
        own commit takes the newest record off instead). `audience`: whom the event is for, in
        place of what the scene says of the actor (an undo's, the undone change's)."""

        async def commit(idempotency: Idempotency | None) -> Answer:
            return await self._resolve_and_commit(
                admitted,
                event_type,
                loaded,
                idempotency,
                resolve,
                outcome_type,
                event_request,
                shown,
                audience,
            )

        return await self._once(admitted.encounter_id, event_type, key, body, commit)

    async def _once(
        self,
        encounter_id: str,
        event_type: EventType,
        key: str | None,
        body: bytes,
        commit: Callable[[Idempotency | None], Awaitable[Answer]],
    ) -> Answer:
        """`commit` in the encounter's turn, once per Idempotency-Key: a retry of a request
        already answered gets its first answer; a failure gives the key back."""
        idempotency = keys.attempt(f"{encounter_id}:{event_type}", key, body)
        if idempotency is not None:
            first = await self._keys.claim(encounter_id, idempotency)
            if first is not None:
                return Answer(first, replayed=True)
        try:
            async with self._turns.turn(encounter_id):
                return await commit(idempotency)
        except BaseException:
            if idempotency is not None:
                await self._keys.release(encounter_id, idempotency)
            raise

    async def _resolve_and_commit(
        self,
        admitted: Admitted,
        event_type: EventType,
        loaded: Loaded,
        idempotency: Idempotency | None,
        resolve: Callable[[Loaded], tuple[Resolution[Any], EncounterState]],
        outcome_type: Callable[..., Outcome],
        event_request: Any,
        shown: frozenset[str],
        audience: Mapping[str, bool] | None,
    ) -> Answer:
        encounter_id = admitted.encounter_id
        undoing = event_type == "undo"
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
            heard = audience
            if heard is None:
                heard = scene.audience(event_type, loaded.state, new_state, resolution.actor)
            fields: dict[str, Any] = dict(
                actor=resolution.actor,
                result=cast(Any, result),
                **heard,
                zones_started=[z for z in after if z.id not in before],
                zones_ended=sorted(before - {z.id for z in after}),
            )
            if resolution.dice is not None:
                fields["dice"] = resolution.dice
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
                undo=None if undoing else record_of(event_type, loaded.document, patch, fields),
                undo_pop=undoing,
            )
            if isinstance(committed, Committed):
                self._cache.put(patch.document)
                return Answer(keys.with_event_id(answer, committed.event_id))
            self.on_conflict()
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
            self.on_retry()
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
        roll: Callable[[Loaded, Dice], Resolution[Any]],
        after: aftermath.After | None = None,
        client_seed: str | None = None,
        role: str | None = None,
    ) -> Callable[[Loaded], tuple[Resolution[Any], EncounterState]]:
        """A resolution that rolls: the same given dice on every attempt, and the given dice all
        used; `after` carries what it did over to the scene and the turn.

        The server's dice come from the encounter's committed secret, keyed on the sequence the
        event gets (its version): an attempt after a lost compare-and-set resolves against the
        newer state, so it derives its dice anew for its own sequence (docs/dice.md). A request
        that gives a `seed` replays it (mt19937, the same on every attempt), as does every
        request of an encounter from before secrets, with a seed drawn here. `client_seed`: the
        request's own; without one, the seed the asking token (`role`) set, if any."""
        replay = seed is not None
        seed = seed if seed is not None else secrets.randbits(63)

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            key = None
            if not replay:
                document = current.document
                key = dice_keeping.fair_key(
                    document.fields, document.encounter_id, document.version + 1, client_seed, role
                )
            dice = Dice(seed, given, key)
            resolution = roll(current, dice)
            dice.check_given_used()
            state = msgspec.structs.replace(
                current.state,
                combat=resolution.state,
                turn=resolution.turn or current.state.turn,
            )
            if after is not None:
                resolution, state = after(resolution, state)
            return msgspec.structs.replace(resolution, dice=dice_keeping.event_dice(dice)), state

        return resolve
