"""Campaigns' use cases: the admin makes one; its GM keeps the group's characters and NPC
templates in it, gives players their tokens, starts encounters with its actors on the scene and,
ending one, gives its characters back what the fight changed (service/engine/carry.py; the
campaign as stored: service/engine/campaign_core.py). An
encounter started in a campaign keeps the campaign's GM token hash and its players' (so one
link opens each player's character in every encounter of the campaign) and the ids of the
characters it brought.
"""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from typing import Any

import msgspec
import structlog

from schemas.campaign import (
    CAMPAIGN_PREFIX,
    CARRY_PARTS,
    MAX_CAMPAIGN_ENCOUNTERS,
    CampaignActor,
    CampaignActorPatch,
    CampaignCreate,
    CampaignCreated,
    CampaignEncounter,
    CampaignEncounterCreate,
    CampaignEncounterCreated,
    CampaignHead,
    CampaignPlayer,
    CampaignResult,
    CarryBack,
    CarryPart,
)
from schemas.encounter import CampaignLink, EncounterState, PlayerOutcome, Tokens, TurnState
from schemas.imports import ImportFormat
from schemas.scene import GM, MAX_PLAYERS, PlayerBinding
from service.engine import carry, damage, keys, players
from service.engine.access import (
    CAMPAIGN_GM,
    PLAYER_PREFIX,
    digest,
    seal,
    token_hash,
    unseal,
)
from service.engine.campaign_core import (
    HEAD,
    Campaign,
    CampaignCore,
    CampaignNotFound,
    Changed,
    campaign_head,
    is_campaign,
)
from service.engine.carry import CampaignActorNotFound
from service.engine.core import Admitted, Answer, Loaded
from service.engine.documents import StoredStateInvalid
from service.engine.errors import (
    EncounterEnded,
    EncounterNotFound,
    IdempotencyConflict,
    LimitExceeded,
)
from service.rules import Resolution, RuleViolation
from service.store import Answered, EncounterExists

log = structlog.get_logger("firefight.engine")


class CampaignUses(CampaignCore):
    """The use cases of campaigns (and of the encounters started in one)."""

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
                campaign_id, {HEAD: self._packed(campaign_head(head))}, event, kept, idempotency
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
        self._check_campaign_actor(campaign, actor)

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
            self._check_campaign_actor(current, actor)
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
        sheet, report, name = await self._character(
            source_format, data, campaign.head.ruleset, "campaign"
        )

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
        each of the campaign's encounters as that player, who plays the characters named here
        (and any whose controller it is). The encounters open now take it at once."""
        binding: CampaignPlayer = self._campaign_decoders[CampaignPlayer].decode(body)
        if player_id == GM:
            raise RuleViolation(
                f"'{GM}' names the GM as a character's controller: a player may not be called so",
                path="player",
                kind="reserved-name",
            )
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        after: list[Campaign] = []

        def change(current: Campaign) -> Changed:
            hashes = dict(current.head.token_hashes)
            if PLAYER_PREFIX + player_id not in hashes and len(hashes) > MAX_PLAYERS:
                raise LimitExceeded(f"a campaign gives tokens to at most {MAX_PLAYERS} players")
            hashes[PLAYER_PREFIX + player_id] = hashed
            actors = dict(current.actors)
            for index, actor_id in enumerate(binding.characters):
                actor = actors.get(actor_id)
                if actor is None or actor.kind != "character":
                    raise CampaignActorNotFound(actor_id, f"$.characters[{index}]")
                actors[actor_id] = msgspec.structs.replace(actor, controller=player_id)
            head = msgspec.structs.replace(current.head, token_hashes=hashes)
            after[:] = [dataclasses.replace(current, head=head, actors=actors)]
            result = CampaignResult(change="player", subject=player_id)
            return Changed(result, head, actors, token=token)

        answer = await self._campaign_change(campaign, change)
        await self._player_in_encounters(after[0], player_id, hashed)
        return answer

    async def revoke_campaign_player(self, campaign: Campaign, player_id: str) -> Answer:
        """The player's campaign token opens nothing any more: neither the campaign nor any of
        its open encounters (its characters keep their controller)."""

        def change(current: Campaign) -> Changed:
            if PLAYER_PREFIX + player_id not in current.head.token_hashes:
                raise RuleViolation(
                    f"player '{player_id}' holds no token of this campaign",
                    path="player",
                    kind="no-token",
                    status=404,
                )
            hashes = dict(current.head.token_hashes)
            del hashes[PLAYER_PREFIX + player_id]
            head = msgspec.structs.replace(current.head, token_hashes=hashes)
            result = CampaignResult(change="player", subject=player_id)
            return Changed(result, head, current.actors)

        answer = await self._campaign_change(campaign, change)
        await self._player_in_encounters(campaign, player_id, None)
        return answer

    async def _player_in_encounters(
        self, campaign: Campaign, player_id: str, hashed: str | None
    ) -> None:
        """The player's campaign token (`hashed`; None: revoked) in each open encounter the
        campaign lists, acting for its characters there. An encounter that ended, is gone, or
        whose state this version cannot use is left as it is."""
        characters = [
            i
            for i, a in campaign.actors.items()
            if a.kind == "character" and a.controller == player_id
        ]
        for listed in campaign.head.encounters:
            if listed.ended:
                continue
            document, _ = await self._document(listed.id, fresh=True)
            envelope = None if document is None else document.envelope
            if (
                document is None
                or document.ended
                or envelope is None
                or envelope.campaign is None
                or envelope.campaign.id != campaign.id
            ):
                continue
            admitted = self._admitted(listed.id, document, campaign.credential, "gm", False)

            def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
                if hashed is None:
                    after = players.without_token(current.state, player_id)
                else:
                    mine = [i for i in characters if i in current.state.scene]
                    binding = PlayerBinding(actors=mine)
                    after = players.with_token(current.state, player_id, hashed, binding)
                return players.resolution(after, player_id), after

            try:
                loaded = self._loaded(admitted)
                await self._change(admitted, "players", None, b"", resolve, PlayerOutcome, loaded)
            except (StoredStateInvalid, LimitExceeded, EncounterEnded, EncounterNotFound) as error:
                log.warning("campaign_player_not_in_encounter", encounter=listed.id, why=str(error))

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
        if made.combat:
            # sr3-hardlife's damage and worn armour, in its combat state, settled as an edit's.
            actors = {**combat.actors, **made.combat}
            combat = ruleset.settled(msgspec.structs.replace(combat, actors=actors))
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
        link = admitted.envelope.campaign
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
        # The state is read only for what is given back: with nothing to give, an encounter
        # whose state this version cannot use still ends (`?carry=none`).
        state = self._loaded(admitted).state if parts else None
        monitors = state is not None and damage.rules_of(self._rulesets[state.ruleset], state)
        outcome = CarryBack(campaign=link.id, carried={})

        def change(current: Campaign) -> Changed:
            actors = dict(current.actors)
            outcome.carried.clear()
            outcome.skipped.clear()
            for actor_id in link.characters:
                if only is not None and actor_id not in only:
                    continue
                kept = actors.get(actor_id)
                if kept is None or kept.kind != "character":
                    outcome.skipped[actor_id] = "no longer in the campaign"
                    continue
                if state is None:
                    outcome.carried[actor_id] = []
                    continue
                fought = state.scene.get(actor_id)
                if fought is None:
                    outcome.skipped[actor_id] = "no longer in the scene"
                    continue
                in_combat = state.combat.actors.get(actor_id)
                actors[actor_id], taken = carry.carried_back(
                    kept, fought, in_combat, parts, bool(monitors)
                )
                outcome.carried[actor_id] = taken
            encounters = [
                msgspec.structs.replace(e, ended=True, carried=dict(outcome.carried))
                if e.id == admitted.encounter_id
                else e
                for e in current.head.encounters
            ]
            head = msgspec.structs.replace(current.head, encounters=encounters)
            result = CampaignResult(change="encounter", subject=admitted.encounter_id)
            return Changed(result, head, actors)

        try:
            campaign = await self._campaign_as_encounter_gm(link.id)
        except CampaignNotFound:
            outcome.skipped = dict.fromkeys(link.characters, "the campaign is gone")
            return outcome
        await self._campaign_change(campaign, change)
        return outcome


__all__ = ["CampaignNotFound", "CampaignUses", "is_campaign"]
