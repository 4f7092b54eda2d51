"""Campaigns' use cases: the admin makes one; its GM keeps the group's characters and NPC
templates in it, gives players their tokens, starts encounters with its actors on the scene and,
ending one, gives its characters back what the fight changed (service/engine/carry.py).

A campaign is a document of the same store as encounters, under an id that starts with
`campaign-` (which the store keeps without expiry): a `head` field and one field per actor, so a
change writes what it changed, with compare-and-set on the version and an event per change. An
encounter started in a campaign keeps the campaign's GM token hash and its players' (so one
link opens each player's character in every encounter of the campaign) and the ids of the
characters it brought.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from schemas.campaign import (
    CAMPAIGN_PREFIX,
    CARRY_PARTS,
    MAX_CAMPAIGN_ACTORS,
    MAX_CAMPAIGN_ENCOUNTERS,
    CampaignActor,
    CampaignActorPatch,
    CampaignCreate,
    CampaignCreated,
    CampaignEncounter,
    CampaignEncounterCreate,
    CampaignEncounterCreated,
    CampaignEvent,
    CampaignHead,
    CampaignOutcome,
    CampaignPlayer,
    CampaignResult,
    CampaignView,
    CarryBack,
    CarryPart,
)
from schemas.common import NAME_MAX_LENGTH
from schemas.encounter import CampaignLink, EncounterState, Tokens, TurnState
from schemas.imports import ImportFormat, ImportReport, LeftOut
from schemas.scene import GM, MAX_PLAYERS, SceneActor
from service.engine import carry, damage, keys
from service.engine.access import (
    CAMPAIGN_GM,
    PLAYER_PREFIX,
    Forbidden,
    Unauthorized,
    authorize,
    digest,
    is_admin,
    player_of,
    seal,
    token_hash,
    unseal,
)
from service.engine.carry import CampaignActorNotFound
from service.engine.core import Admitted, Answer
from service.engine.documents import StoredStateInvalid
from service.engine.errors import (
    IdempotencyConflict,
    LimitExceeded,
    StoreContention,
)
from service.engine.lifecycle import EncounterUses
from service.imports import import_character
from service.rules import RuleViolation
from service.store import Answered, Committed, EncounterExists, StoredEncounter

HEAD = "head"
ACTOR = "c:"
# Compare-and-set attempts of one campaign change (campaigns change at the GM's pace).
MAX_ATTEMPTS = 16

REFUSED = "that token opens no campaign with this id (a wrong token, or a campaign that ended)"


class CampaignNotFound(LookupError):
    def __init__(self, campaign_id: str) -> None:
        super().__init__(f"no campaign '{campaign_id}'")
        self.campaign_id = campaign_id


def is_campaign(document_id: str) -> bool:
    return document_id.startswith(CAMPAIGN_PREFIX)


@dataclass(frozen=True)
class Campaign:
    """A campaign as read, and the role of the token that opened it."""

    id: str
    version: int
    head: CampaignHead
    actors: dict[str, CampaignActor]
    role: str
    credential: str | None = None

    @property
    def player(self) -> str | None:
        return player_of(self.role)


@dataclass(frozen=True)
class Changed:
    """What a campaign change makes: its result, and the head and actors after it."""

    result: CampaignResult
    head: CampaignHead
    actors: dict[str, CampaignActor]
    token: str | None = None
    report: ImportReport | None = None


class CampaignUses(EncounterUses):
    """The use cases of campaigns (and of the encounters started in one)."""

    _campaign_head = msgspec.msgpack.Decoder(CampaignHead)
    _campaign_actor = msgspec.msgpack.Decoder(CampaignActor)
    _campaign_decoders: Mapping[Any, msgspec.json.Decoder[Any]] = {
        t: msgspec.json.Decoder(t)
        for t in (
            CampaignCreate,
            CampaignActor,
            CampaignActorPatch,
            CampaignPlayer,
            CampaignEncounterCreate,
        )
    }

    # --- reading -------------------------------------------------------------------------

    async def campaign(
        self, campaign_id: str, credential: str | None, gm: bool = False
    ) -> Campaign:
        """The campaign, once `credential` is shown to open it (the GM's, a player's, or the
        admin key); `gm`: only the GM's. A wrong token and a campaign that does not exist get
        the same 401 (only the admin key learns which: 404)."""
        if credential is None:
            raise Unauthorized("a campaign needs its GM or player token as a Bearer token")
        stored = await self._stored_campaign(campaign_id)
        if stored is None:
            if is_admin(credential, self._admin_key_hash):
                raise CampaignNotFound(campaign_id)
            raise Unauthorized(REFUSED)
        try:
            head, actors = self._campaign_read(campaign_id, stored)
        except StoredStateInvalid:
            if not is_admin(credential, self._admin_key_hash):
                raise Unauthorized(REFUSED) from None
            raise
        try:
            role = authorize(
                credential, "gm" if gm else "read", head.token_hashes, self._admin_key_hash
            )
        except Unauthorized:
            raise Unauthorized(REFUSED) from None
        except Forbidden:
            raise Forbidden(
                "a player's campaign token may not do this; it needs the GM's"
            ) from None
        return Campaign(campaign_id, stored.version, head, actors, role, credential)

    async def _stored_campaign(self, campaign_id: str) -> StoredEncounter | None:
        stored = await self._store.load(campaign_id) if is_campaign(campaign_id) else None
        if not isinstance(stored, StoredEncounter) or stored.ended:
            return None
        return stored

    def _campaign_read(
        self, campaign_id: str, stored: StoredEncounter
    ) -> tuple[CampaignHead, dict[str, CampaignActor]]:
        try:
            head = self._campaign_head.decode(stored.fields[HEAD])
            actors = {i: self._campaign_actor.decode(stored.fields[ACTOR + i]) for i in head.actors}
        except (KeyError, msgspec.DecodeError) as error:
            raise StoredStateInvalid(
                f"campaign '{campaign_id}' keeps a document this version cannot read ({error})"
            ) from None
        return head, actors

    def campaign_view(self, campaign: Campaign) -> CampaignView:
        """The GM sees everything; a player the characters and the encounters, never a
        template (nor that there are any)."""
        gm = campaign.player is None
        return CampaignView(
            id=campaign.id,
            ruleset=campaign.head.ruleset,
            name=campaign.head.name,
            created_at=campaign.head.created_at,
            version=campaign.version,
            actors={i: a for i, a in campaign.actors.items() if gm or a.kind == "character"},
            encounters=campaign.head.encounters,
            players=sorted(
                r[len(PLAYER_PREFIX) :] for r in campaign.head.token_hashes if player_of(r)
            )
            if gm
            else [],
            player=campaign.player or "",
        )

    # --- writing -------------------------------------------------------------------------

    async def create_campaign(self, body: bytes, credential: str | None, key: str | None) -> Answer:
        self.check_admin(credential)
        request: CampaignCreate = self._campaign_decoders[CampaignCreate].decode(body)
        idempotency = keys.attempt("campaign", key, body)
        campaign_id = CAMPAIGN_PREFIX + (
            digest("campaign", key)[:32] if key is not None else uuid.uuid4().hex
        )
        token = secrets.token_urlsafe(32)
        head = CampaignHead(
            id=campaign_id,
            ruleset=request.ruleset,
            name=request.name,
            created_at=self._clock(),
            token_hashes={"gm": token_hash(token)},
        )
        created = CampaignCreated(
            id=campaign_id,
            ruleset=head.ruleset,
            name=head.name,
            created_at=head.created_at,
            token=token,
            event_id="",
        )
        kept = b""
        if key is not None:
            sealed = seal(token, key, "gm")
            kept = self._json.encode(msgspec.structs.replace(created, token=sealed))
        event = self._campaign_event(campaign_id, CampaignResult(change="created"))
        try:
            stored = await self._store.create(
                campaign_id, {HEAD: self._packed(head)}, event, kept, idempotency
            )
        except EncounterExists:
            raise IdempotencyConflict(
                "this Idempotency-Key created a campaign whose answer is no longer kept; "
                "use a new key"
            ) from None
        if isinstance(stored, Answered):
            assert idempotency is not None and key is not None
            first = msgspec.json.decode(keys.replayed(stored, idempotency), type=CampaignCreated)
            first = msgspec.structs.replace(first, token=unseal(first.token, key, "gm"))
            return Answer(self._json.encode(first), replayed=True, encounter_id=campaign_id)
        created = msgspec.structs.replace(created, event_id=stored.event_id)
        return Answer(self._json.encode(created), encounter_id=campaign_id)

    async def put_campaign_actor(self, campaign: Campaign, actor_id: str, body: bytes) -> Answer:
        actor: CampaignActor = self._campaign_decoders[CampaignActor].decode(body)
        self._check_campaign_sheet(campaign, actor)

        def change(current: Campaign) -> Changed:
            return self._with_actor(current, actor_id, actor, "set")

        return await self._campaign_change(campaign, change)

    async def patch_campaign_actor(self, campaign: Campaign, actor_id: str, body: bytes) -> Answer:
        patch: CampaignActorPatch = self._campaign_decoders[CampaignActorPatch].decode(body)

        def change(current: Campaign) -> Changed:
            kept = current.actors.get(actor_id)
            if kept is None:
                raise CampaignActorNotFound(actor_id)
            given = {
                name: getattr(patch, name)
                for name in patch.__struct_fields__
                if getattr(patch, name) is not msgspec.UNSET
            }
            actor = msgspec.structs.replace(kept, **given)
            self._check_campaign_sheet(current, actor)
            return self._with_actor(current, actor_id, actor, "patched")

        return await self._campaign_change(campaign, change)

    async def delete_campaign_actor(self, campaign: Campaign, actor_id: str) -> Answer:
        def change(current: Campaign) -> Changed:
            if actor_id not in current.actors:
                raise CampaignActorNotFound(actor_id)
            actors = {i: a for i, a in current.actors.items() if i != actor_id}
            head = msgspec.structs.replace(current.head, actors=list(actors))
            return Changed(CampaignResult(change="removed", subject=actor_id), head, actors)

        return await self._campaign_change(campaign, change)

    async def import_campaign_actor(
        self, campaign: Campaign, actor_id: str, source_format: ImportFormat, data: bytes
    ) -> Answer:
        """A character file's sheet on a campaign actor: a new one is a character with the
        file's name; one kept keeps everything but its sheet."""
        async with self._files_read:
            sheet, report = await asyncio.to_thread(import_character, source_format, data)
        if report.ruleset != campaign.head.ruleset:
            raise RuleViolation(
                f"the file is a {report.source_format} character, for {report.ruleset}; this "
                f"campaign plays {campaign.head.ruleset}",
                path="format",
                kind="wrong-ruleset",
            )
        name = report.name
        if len(name) > NAME_MAX_LENGTH:
            report.left_out.append(
                LeftOut("name", f"longer than {NAME_MAX_LENGTH} characters: a new actor gets none")
            )
            name = ""

        def change(current: Campaign) -> Changed:
            kept = current.actors.get(actor_id)
            actor = (
                CampaignActor(name=name, sheet=sheet)
                if kept is None
                else msgspec.structs.replace(kept, sheet=sheet)
            )
            made = self._with_actor(current, actor_id, actor, "set" if kept is None else "patched")
            return dataclasses.replace(made, report=report)

        return await self._campaign_change(campaign, change)

    async def campaign_player(self, campaign: Campaign, player_id: str, body: bytes) -> Answer:
        """A token for a player (a new one replaces the old): it reads the campaign and opens
        each encounter started in it from now on as that player, who plays the characters
        named here (and any whose controller it is)."""
        binding: CampaignPlayer = self._campaign_decoders[CampaignPlayer].decode(body)
        if player_id == GM:
            raise RuleViolation(
                f"'{GM}' names the GM as a character's controller: a player may not be called so",
                path="player",
                kind="reserved-name",
            )
        token = secrets.token_urlsafe(32)

        def change(current: Campaign) -> Changed:
            hashes = dict(current.head.token_hashes)
            if PLAYER_PREFIX + player_id not in hashes and len(hashes) > MAX_PLAYERS:
                raise LimitExceeded(f"a campaign gives tokens to at most {MAX_PLAYERS} players")
            hashes[PLAYER_PREFIX + player_id] = token_hash(token)
            actors = dict(current.actors)
            for index, actor_id in enumerate(binding.characters):
                actor = actors.get(actor_id)
                if actor is None or actor.kind != "character":
                    raise CampaignActorNotFound(actor_id, f"$.characters[{index}]")
                actors[actor_id] = msgspec.structs.replace(actor, controller=player_id)
            head = msgspec.structs.replace(current.head, token_hashes=hashes)
            result = CampaignResult(change="player", subject=player_id)
            return Changed(result, head, actors, token=token)

        return await self._campaign_change(campaign, change)

    # --- encounters ----------------------------------------------------------------------

    async def create_in_campaign(self, campaign: Campaign, body: bytes, key: str | None) -> Answer:
        """An encounter of the campaign's ruleset, its scene holding the actors brought (their
        monitors settled as the encounter keeps them), opened by the campaign's GM token and
        its players' beside its own tokens; the campaign lists it."""
        request: CampaignEncounterCreate = self._campaign_decoders[CampaignEncounterCreate].decode(
            body
        )
        ruleset = self._rulesets[campaign.head.ruleset]
        combat = self._starting_combat(campaign.head.ruleset, request.combat)
        made = carry.brought(campaign.actors, request.bring)
        if len(made.scene) > self._max_actors:
            raise LimitExceeded(f"a scene holds at most {self._max_actors} actors")
        idempotency = keys.attempt(f"{campaign.id}:encounter", key, body)
        encounter_id = (
            digest("encounter", campaign.id, key)[:32] if key is not None else uuid.uuid4().hex
        )
        tokens = Tokens(gm=secrets.token_urlsafe(32), player=secrets.token_urlsafe(32))
        hashes = {"gm": token_hash(tokens.gm), "player": token_hash(tokens.player)}
        for role, hashed in campaign.head.token_hashes.items():
            hashes[CAMPAIGN_GM if role == "gm" else role] = hashed
        state = EncounterState(
            id=encounter_id,
            ruleset=campaign.head.ruleset,
            name=request.name,
            created_at=self._clock(),
            turn=TurnState(),
            combat=combat,
            token_hashes=hashes,
            scene=made.scene,
            dice_policy=request.dice_policy,
            sheet_policy=request.sheet_policy,
            damage=request.damage,
            campaign=CampaignLink(id=campaign.id, characters=made.characters),
        )
        state = damage.with_monitors(ruleset, state)
        created = CampaignEncounterCreated(
            id=encounter_id,
            ruleset=state.ruleset,
            name=state.name,
            created_at=state.created_at,
            tokens=tokens,
            event_id="",
            campaign=campaign.id,
            brought=made.ids,
        )
        answer = await self._create_encounter(state, created, idempotency, key)
        if not any(e.id == encounter_id for e in campaign.head.encounters):
            listed = CampaignEncounter(
                id=encounter_id, name=state.name, created_at=state.created_at
            )

            def change(current: Campaign) -> Changed:
                others = [e for e in current.head.encounters if e.id != encounter_id]
                encounters = [listed, *others][:MAX_CAMPAIGN_ENCOUNTERS]
                head = msgspec.structs.replace(current.head, encounters=encounters)
                result = CampaignResult(change="encounter", subject=encounter_id)
                return Changed(result, head, current.actors)

            await self._campaign_change(campaign, change)
        return answer

    async def carry_back(
        self,
        admitted: Admitted,
        parts: tuple[CarryPart, ...] = CARRY_PARTS,
        only: frozenset[str] | None = None,
    ) -> CarryBack | None:
        """What the end of a campaign's encounter gives back to the campaign's characters that
        it brought (all, or those in `only`): the `parts` asked for, from the scene as the fight
        left it. Written to the campaign before the encounter ends, so an end that fails after
        it is ended again with nothing lost (what is given back is the fight's end state, never
        a difference: giving it twice changes nothing). None for an encounter of no campaign."""
        # The encounter as the store has it now (another replica may have written since).
        document, _ = await self._document(admitted.encounter_id, fresh=True)
        admitted = self._admitted(
            admitted.encounter_id, document, admitted.credential, "gm", ended_ok=False
        )
        state = self._loaded(admitted).state
        link = state.campaign
        if link is None:
            if only:
                raise RuleViolation(
                    "this encounter was not started in a campaign: nothing is carried back",
                    path="actors",
                    kind="no-campaign",
                )
            return None
        unknown = sorted((only or frozenset()) - set(link.characters))
        if unknown:
            raise RuleViolation(
                f"'{unknown[0]}' is not a character this encounter brought from its campaign",
                path="actors",
                kind="not-brought",
            )
        monitors = damage.rules_of(self._rulesets[state.ruleset], state) is not None
        outcome = CarryBack(campaign=link.id, carried={})

        def change(current: Campaign) -> Changed:
            actors = dict(current.actors)
            outcome.carried.clear()
            outcome.skipped.clear()
            for actor_id in link.characters:
                if only is not None and actor_id not in only:
                    continue
                fought = state.scene.get(actor_id)
                kept = actors.get(actor_id)
                if fought is None or kept is None or kept.kind != "character":
                    where = "the scene" if fought is None else "the campaign"
                    outcome.skipped[actor_id] = f"no longer in {where}"
                    continue
                actors[actor_id], taken = carry.carried_back(kept, fought, parts, monitors)
                outcome.carried[actor_id] = taken
            encounters = [
                msgspec.structs.replace(e, ended=True, carried=dict(outcome.carried))
                if e.id == state.id
                else e
                for e in current.head.encounters
            ]
            head = msgspec.structs.replace(current.head, encounters=encounters)
            result = CampaignResult(change="encounter", subject=state.id)
            return Changed(result, head, actors)

        try:
            campaign = await self._campaign_as_encounter_gm(link.id)
        except CampaignNotFound:
            outcome.skipped = dict.fromkeys(link.characters, "the campaign is gone")
            return outcome
        await self._campaign_change(campaign, change)
        return outcome

    async def _campaign_as_encounter_gm(self, campaign_id: str) -> Campaign:
        """The campaign as the GM of one of its encounters reaches it (the encounter's own GM
        token is not the campaign's: having ended the encounter is what entitles the write)."""
        stored = await self._stored_campaign(campaign_id)
        if stored is None:
            raise CampaignNotFound(campaign_id)
        head, actors = self._campaign_read(campaign_id, stored)
        return Campaign(campaign_id, stored.version, head, actors, "gm")

    # --- the machinery -------------------------------------------------------------------

    def _check_campaign_sheet(self, campaign: Campaign, actor: CampaignActor) -> None:
        ruleset_id = campaign.head.ruleset
        if (
            actor.sheet is not None
            and type(actor.sheet) is not self._rulesets[ruleset_id].sheet_type
        ):
            raise RuleViolation(
                f"this campaign plays {ruleset_id}: the sheet must be a {ruleset_id} sheet",
                path="$.sheet.ruleset",
                kind="wrong-ruleset",
            )

    def _with_actor(
        self,
        current: Campaign,
        actor_id: str,
        actor: CampaignActor,
        how: Literal["set", "patched"],
    ) -> Changed:
        if actor_id not in current.actors and len(current.actors) >= MAX_CAMPAIGN_ACTORS:
            raise LimitExceeded(f"a campaign keeps at most {MAX_CAMPAIGN_ACTORS} actors")
        rules = self._rulesets[current.head.ruleset].monitor
        if rules is not None and actor.monitor is not None:
            # Its status worked out on its sheet, as a scene's monitor is.
            settled = damage.settled(rules, SceneActor(sheet=actor.sheet), actor.monitor)
            actor = msgspec.structs.replace(actor, monitor=settled.monitor)
        actors = {**current.actors, actor_id: actor}
        head = msgspec.structs.replace(current.head, actors=list(actors))
        result = CampaignResult(change=how, subject=actor_id, actor=actor)
        return Changed(result, head, actors)

    @staticmethod
    def _packed(value: Any) -> bytes:
        return msgspec.msgpack.encode(value)

    def _campaign_event(self, campaign_id: str, result: CampaignResult) -> bytes:
        return self._json.encode(
            CampaignEvent(type="campaign", campaign=campaign_id, at=self._clock(), result=result)
        )

    def _campaign_fields(
        self, before: Campaign, after: Changed
    ) -> tuple[dict[str, bytes], list[str]]:
        """The fields the change writes and removes, each read back within its bounds first,
        and the whole within the size a state may take."""
        changed: dict[str, bytes] = {}
        head = self._packed(after.head)
        self._readable(self._campaign_head, head, "$")
        changed[HEAD] = head
        for actor_id, actor in after.actors.items():
            if before.actors.get(actor_id) != actor:
                packed = self._packed(actor)
                self._readable(self._campaign_actor, packed, f"$.actors['{actor_id}']")
                changed[ACTOR + actor_id] = packed
        removed = [ACTOR + i for i in before.actors if i not in after.actors]
        return changed, removed

    @staticmethod
    def _readable(decoder: msgspec.msgpack.Decoder[Any], packed: bytes, path: str) -> None:
        try:
            decoder.decode(packed)
        except msgspec.ValidationError as error:
            raise RuleViolation(
                f"this change would leave the campaign out of bounds: {error}",
                path=path,
                kind="state-out-of-bounds",
            ) from None

    async def _campaign_change(
        self, campaign: Campaign, change: Callable[[Campaign], Changed]
    ) -> Answer:
        """The change committed with compare-and-set; on a conflict, who asks is checked again
        on the campaign as it is now and the change made again on it."""
        current = campaign
        for _ in range(MAX_ATTEMPTS):
            after = change(current)
            changed, removed = self._campaign_fields(current, after)
            size = sum(map(len, changed.values()))
            if size > self._documents.max_state_bytes:
                raise LimitExceeded(
                    f"the campaign would take more than {self._documents.max_state_bytes} bytes"
                )
            event = self._campaign_event(current.id, after.result)
            committed = await self._store.commit(
                current.id, current.version, changed, removed, event
            )
            if isinstance(committed, Committed):
                outcome = CampaignOutcome(
                    event_id=committed.event_id,
                    version=current.version + 1,
                    result=after.result,
                    token=after.token,
                    report=after.report,
                )
                return Answer(self._json.encode(outcome))
            if committed.current is None or committed.current.ended:
                raise CampaignNotFound(current.id)
            head, actors = self._campaign_read(current.id, committed.current)
            if current.credential is not None:
                # Who asks, checked again on the campaign as it is now.
                authorize(current.credential, "gm", head.token_hashes, self._admin_key_hash)
            current = Campaign(
                current.id, committed.current.version, head, actors, "gm", current.credential
            )
        raise StoreContention(f"campaign '{campaign.id}' changed too often during this request")


__all__ = ["CampaignNotFound", "CampaignUses", "is_campaign"]
