"""Attacks, actions and zone tests: a request decoded as its ruleset's, filled in from the
scene, checked for who may act, rolled and committed; and the odds previews of the same requests.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec

from schemas.encounter import (
    ActionOutcome,
    AttackOutcome,
    EncounterState,
    EventType,
    Outcome,
    ZoneTestOutcome,
)
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.scene import SceneActor
from service.engine import aftermath, damage, players, sight
from service.engine.access import player_of
from service.engine.core import MAX_ATTEMPTS, Admitted, Answer, EncounterCore, Loaded, Moved
from service.engine.errors import StoreContention
from service.engine.previews import Samples
from service.engine.sight import Sight
from service.rules import Resolution, Ruleset, RuleViolation, odds
from service.rules.dice import Dice, check_given

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


class PlayUses(EncounterCore):
    """The use cases of attacks, actions, zone tests and their odds."""

    def _asked(
        self,
        admitted: Admitted,
        body_type: str,
        body: bytes,
        zone_id: str | None,
        all_unseen: bool = False,
    ) -> tuple[Loaded, Any, frozenset[str]]:
        """The encounter as loaded, the request decoded as its ruleset's `body_type` and filled
        in from the scene (and the live zone `zone_id`) as the rules resolve it, and the hidden
        actors it names that are to it actors the scene does not hold (`all_unseen`: every
        hidden actor, named or not, for an answer that must not depend on them at all)."""
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
        masked = sight.hidden if all_unseen else sight.named_hidden([name for name, _ in names])
        # The rules read each sheet with the wounds its monitor holds (what the request types
        # itself still wins: the scene fills in only what it leaves out).
        scene_seen = damage.wounded(
            loaded.ruleset, state, {i: a for i, a in state.scene.items() if i not in masked}
        )
        request = self._filled(loaded, body_type, asked, scene_seen, zone_id)
        players.check_typed(body, request, typed)
        return loaded, request, masked

    def _filled(
        self,
        loaded: Loaded,
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
    def _check_acts_for(admitted: Admitted, current: Loaded, request: Any) -> None:
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
        attempts: int = MAX_ATTEMPTS,
    ) -> Answer:
        """A player's request that may roll: decoded as the encounter's ruleset's `body_type`
        (msgspec.ValidationError if it is not one), its given dice checked, then resolved."""
        ruleset_id = admitted.envelope.ruleset
        loaded, request, masked = self._asked(admitted, body_type, body, zone_id)
        fired = (
            aftermath.fired(loaded.ruleset, request) if body_type != "zone_test_ask_type" else None
        )
        edged = aftermath.edged(loaded.ruleset, request, masked, fired)
        what = _WHAT.get(body_type) or str(getattr(request, "action", body_type))
        check_given(request.dice, steps(loaded.ruleset, request))

        def check_player(current: Loaded) -> None:
            self._check_acts_for(admitted, current, request)
            acting, path = players.acting_actor(request)
            # An actor out of the fight does nothing, whoever asks (the GM too); a hidden actor
            # a player's request named is to it one the scene does not hold.
            if acting not in masked:
                damage.check_able(current.ruleset, current.state, acting, path)
            if admitted.role != "gm" and current.state.dice_policy == "own":
                player = player_of(admitted.role)
                players.check_dice(current.state, current.ruleset, player, acting, request.dice)

        check_player(loaded)
        earlier = None
        follows = loaded.ruleset.follows_up(request) if body_type == "action_type" else None
        if follows is not None:
            # Read after the state: an attack or an undo since moves the version on.
            earlier = await self._attacks.last_attack(
                self._store, admitted.encounter_id, follows, ruleset_id
            )
        # What it does to the initiative, then the damage it deals (a re-resolved attack's in
        # place of the one it replaces), in the same commit.
        after = damage.dealing(
            loaded.ruleset,
            masked,
            earlier,
            then=aftermath.spent(loaded.ruleset, request, what, edged),
        )

        def roll(current: Loaded, dice: Dice) -> Resolution[Any]:
            if current is not loaded:
                # The encounter changed under the request: the player may no longer act so.
                check_player(current)
                if follows is not None and current.version != loaded.version:
                    # An attack, or an undo of one, may have changed which is the actor's
                    # last: find it again on this state, never follow up the one read before.
                    raise Moved(current)
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

        resolve = self._rolling(
            request.dice, request.seed, roll, after, request.client_seed, admitted.role
        )
        # The attack's event keeps it whole, as the scene filled it in, its given dice left out
        # (they are in the result).
        kept = msgspec.structs.replace(request, dice={}) if body_type == "attack_ask_type" else None
        try:
            return await self._change(
                admitted, event_type, key, scope + body, resolve, outcome_type, loaded, kept, masked
            )
        except Moved as moved:
            if attempts <= 1:
                raise StoreContention(
                    f"encounter '{admitted.encounter_id}' changed too often while this "
                    f"{what} read its earlier attack"
                ) from None
            again, _ = self._again(admitted, moved.current.document)
            return await self._play(
                again,
                event_type,
                body_type,
                body,
                key,
                steps,
                play,
                outcome_type,
                scope,
                zone_id,
                attempts - 1,
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
    ) -> tuple[Loaded, Any, int]:
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
