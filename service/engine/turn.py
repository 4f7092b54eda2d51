"""The turn: `advance` from the VTT's tracker, and the initiative the service runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import msgspec

from schemas.encounter import (
    AdvanceOutcome,
    AdvanceRequest,
    AdvanceResult,
    EncounterState,
    InitiativeOutcome,
)
from schemas.initiative import InitiativeJoin, InitiativeStart, InitiativeView
from service.engine import aftermath, damage
from service.engine.core import Admitted, Answer, EncounterCore, Loaded
from service.engine.errors import LimitExceeded
from service.engine.sight import Sight
from service.rules import Resolution, Ruleset, RuleViolation, initiative
from service.rules.dice import Dice
from service.rules.ruleset import InitiativeRules
from service.rules.turns import advance_turn


class TurnUses(EncounterCore):
    """The use cases of the turn and the initiative."""

    async def advance(self, admitted: Admitted, body: bytes, key: str | None = None) -> Answer:
        request: AdvanceRequest = self._decoders[AdvanceRequest].decode(body)
        loaded = self._loaded(admitted)
        # What it sets off (SR4's timed grenades) deals its damage in the same commit.
        dealt = damage.dealing(loaded.ruleset)

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            turn, rules = current.state.turn, current.ruleset.initiative
            if rules is not None and turn.initiative is not None:
                # The service runs the initiative: the next phase is the order's.
                out = damage.out_of_fight(current.ruleset, current.state)
                turn, crossings, effects = initiative.advance(turn, rules, request, out)
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
            return dealt(resolution, state)

        return await self._change(admitted, "advance", key, body, resolve, AdvanceOutcome, loaded)

    @staticmethod
    def _wounded(
        rules: InitiativeRules, ruleset: Ruleset, state: EncounterState
    ) -> InitiativeRules:
        """The initiative rules reading an actor's wounds off its monitor, where the service
        keeps one: a roll that gives no modifier takes it, and so does the roll of the next
        combat turn (the wounds may have changed since)."""
        if damage.rules_of(ruleset, state) is None:
            return rules
        of_state = rules.state_modifier

        def state_modifier(combat: Any, actor: str) -> int | None:
            wounds = damage.initiative_modifier(ruleset, state, actor)
            return wounds if wounds is not None else of_state(combat, actor)

        return dataclasses.replace(rules, state_modifier=state_modifier)

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

    def _dealing(self, admitted: Admitted) -> aftermath.After:
        """What an initiative change sets off as the turn moves on (SR4's timed grenades, the
        result's `went_off`) deals its damage in the same commit."""
        return damage.dealing(self._rulesets[admitted.envelope.ruleset])

    async def _initiative_change(
        self,
        admitted: Admitted,
        key: str | None,
        scope: bytes,
        resolve: Callable[[Loaded], tuple[Resolution[Any], EncounterState]],
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

        def roll(current: Loaded, dice: Dice) -> Resolution[Any]:
            turn, state = current.state.turn, current.state
            wounded = self._wounded(rules, current.ruleset, state)
            scene = damage.wounded(current.ruleset, state, state.scene)
            if request.actors:
                aftermath.check_initiative_dice(request.dice, [a.actor for a in request.actors])
                entries = initiative.roll_entries(
                    wounded, request.actors, scene, dice, combat=state.combat
                )
            else:
                before = [e.actor for e in (turn.initiative.entries if turn.initiative else [])]
                aftermath.check_initiative_dice(request.dice, before)
                entries = initiative.roll_again(turn, wounded, dice, state.combat)
            out = damage.out_of_fight(current.ruleset, state)
            turn, crossings, effects = initiative.start(turn, rules, entries, out)
            state, more, went_off = aftermath.crossed(
                current.ruleset, msgspec.structs.replace(current.state, turn=turn), crossings
            )
            return aftermath.initiative_resolution(
                "started", [e.actor for e in entries], state, effects + more, dice, went_off
            )

        resolve = self._rolling(
            request.dice,
            request.seed,
            roll,
            self._dealing(admitted),
            request.client_seed,
            admitted.role,
        )
        return await self._initiative_change(admitted, key, b"start\0" + body, resolve)

    async def join_initiative(
        self, admitted: Admitted, body: bytes, key: str | None = None
    ) -> Answer:
        """Actors join the combat turn under way, each in its place by its score."""
        rules = self._initiative_rules(admitted)
        request: InitiativeJoin = self._decoders[InitiativeJoin].decode(body)

        def roll(current: Loaded, dice: Dice) -> Resolution[Any]:
            aftermath.check_initiative_dice(request.dice, [a.actor for a in request.actors])
            state = current.state
            entries = initiative.roll_entries(
                self._wounded(rules, current.ruleset, state),
                request.actors,
                damage.wounded(current.ruleset, state, state.scene),
                dice,
                combat=state.combat,
            )
            turn, effects = initiative.join(current.state.turn, entries)
            if len(turn.initiative.entries if turn.initiative else []) > self._max_actors:
                raise LimitExceeded(f"a combat turn orders at most {self._max_actors} actors")
            state = msgspec.structs.replace(current.state, turn=turn)
            return aftermath.initiative_resolution(
                "joined", [e.actor for e in entries], state, effects, dice
            )

        resolve = self._rolling(
            request.dice,
            request.seed,
            roll,
            self._dealing(admitted),
            request.client_seed,
            admitted.role,
        )
        return await self._initiative_change(admitted, key, b"join\0" + body, resolve)

    async def leave_initiative(
        self, admitted: Admitted, actor_id: str, key: str | None = None
    ) -> Answer:
        """An actor leaves the combat turn (it may join again); if it was acting, the next
        phase begins."""
        rules = self._initiative_rules(admitted)
        dealt = self._dealing(admitted)

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
            out = damage.out_of_fight(current.ruleset, current.state)
            turn, crossings, effects = initiative.leave(current.state.turn, rules, actor_id, out)
            state, more, went_off = aftermath.crossed(
                current.ruleset, msgspec.structs.replace(current.state, turn=turn), crossings
            )
            resolution = aftermath.initiative_resolution(
                "left", [actor_id], state, effects + more, went_off=went_off
            )
            return dealt(resolution, state)

        return await self._initiative_change(admitted, key, b"leave\0" + actor_id.encode(), resolve)

    async def stop_initiative(self, admitted: Admitted, key: str | None = None) -> Answer:
        """The service stops running the initiative; the VTT's own tracker goes on with
        `advance` (the turn's counters stay as they are)."""
        self._initiative_rules(admitted)

        def resolve(current: Loaded) -> tuple[Resolution[Any], EncounterState]:
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
