"""What the campaigns' use cases share: a campaign as read and who opened it, and a change
to it committed. A campaign is a document of the same store as encounters, under an id that
starts with `campaign-` (which the store keeps without expiry): a `head` field and one field
per actor, so a change writes what it changed, with compare-and-set on the version and an event
per change (service/engine/campaigns.py has the use cases).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from schemas.campaign import (
    CAMPAIGN_PREFIX,
    MAX_CAMPAIGN_ACTORS,
    CampaignActor,
    CampaignActorPatch,
    CampaignCreate,
    CampaignEncounterCreate,
    CampaignEvent,
    CampaignHead,
    CampaignOutcome,
    CampaignPlayer,
    CampaignResult,
    CampaignView,
)
from schemas.imports import ImportReport
from schemas.scene import SceneActor
from service.engine import damage
from service.engine.access import (
    PLAYER_PREFIX,
    Forbidden,
    Unauthorized,
    authorize,
    is_admin,
    player_of,
)
from service.engine.core import Answer
from service.engine.documents import StoredByLaterVersion, StoredStateInvalid
from service.engine.errors import (
    LimitExceeded,
    StoreContention,
)
from service.engine.lifecycle import EncounterUses
from service.engine.migrations import (
    CAMPAIGN_STEPS,
    SCHEMA_VERSION,
    later_version,
    migrated,
    version_of,
)
from service.engine.migrations import token_hashes as head_token_hashes
from service.rules import RuleViolation
from service.store import Committed, StoredEncounter

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


def campaign_head(head: CampaignHead) -> CampaignHead:
    """The head as this version stores it: in its shape (SCHEMA_VERSION)."""
    return msgspec.structs.replace(head, schema_version=SCHEMA_VERSION)


class CampaignCore(EncounterUses):
    """Campaigns as read and written."""

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
        except StoredByLaterVersion as later:
            try:
                authorize(credential, "read", later.token_hashes, self._admin_key_hash)
            except (Unauthorized, Forbidden):
                raise Unauthorized(REFUSED) from None
            raise
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
        fields = stored.fields
        version = version_of(fields)
        if version > SCHEMA_VERSION:
            raise StoredByLaterVersion(
                later_version("campaign", campaign_id, version),
                head_token_hashes(fields),
            )
        if version < SCHEMA_VERSION:
            fields = migrated(CAMPAIGN_STEPS, fields, version)
        try:
            head = self._campaign_head.decode(fields[HEAD])
            actors = {i: self._campaign_actor.decode(fields[ACTOR + i]) for i in head.actors}
        except (KeyError, msgspec.DecodeError) as error:
            raise StoredStateInvalid(
                f"campaign '{campaign_id}' keeps a document this version cannot read ({error})"
            ) from None
        return head, actors

    def campaign_view(self, campaign: Campaign) -> CampaignView:
        """The GM sees everything; a player the characters it may see (none hidden but its
        own) and the encounters, never a template nor a hidden character (nor that there are
        any: what each encounter gave back is told for those it sees alone)."""
        player = campaign.player
        seen = {
            i: a
            for i, a in campaign.actors.items()
            if player is None
            or (a.kind == "character" and (not a.hidden or a.controller == player))
        }
        encounters = campaign.head.encounters
        if player is not None:
            encounters = [
                msgspec.structs.replace(
                    e, carried={i: p for i, p in e.carried.items() if i in seen}
                )
                for e in encounters
            ]
        return CampaignView(
            id=campaign.id,
            ruleset=campaign.head.ruleset,
            name=campaign.head.name,
            created_at=campaign.head.created_at,
            version=campaign.version,
            actors=seen,
            encounters=encounters,
            players=sorted(
                r[len(PLAYER_PREFIX) :] for r in campaign.head.token_hashes if player_of(r)
            )
            if player is None
            else [],
            player=player or "",
        )

    async def _campaign_as_encounter_gm(self, campaign_id: str) -> Campaign:
        """The campaign as the GM of one of its encounters reaches it (the encounter's own GM
        token is not the campaign's: having ended the encounter is what entitles the write)."""
        stored = await self._stored_campaign(campaign_id)
        if stored is None:
            raise CampaignNotFound(campaign_id)
        head, actors = self._campaign_read(campaign_id, stored)
        return Campaign(campaign_id, stored.version, head, actors, "gm")

    # --- the machinery -------------------------------------------------------------------

    def _check_campaign_actor(self, campaign: Campaign, actor: CampaignActor) -> None:
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
        holds_own = self._rulesets[ruleset_id].monitor is None
        for name in ("locations", "worn"):
            if not holds_own and getattr(actor, name) not in ({}, None):
                raise RuleViolation(
                    f"`{name}` is sr3-hardlife's (its monitors by location); this campaign plays "
                    f"{ruleset_id}: its damage is the actor's `monitor`",
                    path=f"$.{name}",
                    kind="wrong-ruleset",
                )
            if holds_own and name == "locations" and actor.monitor is not None:
                raise RuleViolation(
                    f"{ruleset_id} keeps its damage by location: give `locations`, not `monitor`",
                    path="$.monitor",
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
            CampaignEvent(
                type="campaign",
                campaign=campaign_id,
                at=self._clock(),
                result=result,
                schema_version=SCHEMA_VERSION,
            )
        )

    def _campaign_fields(
        self, before: Campaign, after: Changed
    ) -> tuple[dict[str, bytes], list[str]]:
        """The fields the change writes and removes, each read back within its bounds first,
        and the whole within the size a state may take."""
        changed: dict[str, bytes] = {}
        head = self._packed(campaign_head(after.head))
        self._readable(self._campaign_head, head, "$")
        changed[HEAD] = head
        # A campaign an earlier version stored is written whole, in this version's shape.
        anew = before.head.schema_version < SCHEMA_VERSION
        for actor_id, actor in after.actors.items():
            if anew or before.actors.get(actor_id) != actor:
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
