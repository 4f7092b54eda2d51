"""What a Hard Life actor's condition lets it do (004, "Resolve Recovery Roll", "Death and
Injury"), checked before any attack, action or zone test of its own; the next action a failed
recovery roll takes away; and what a hit that reaches deadly asks for.

The checks, in order:
- dead, or unconscious: no action at all (409 `actor-down`);
- a recovery roll due: only `recovery_roll` (and a consciousness test due) (409
  `recovery-roll-due`);
- this action phase lost (actions_lost consumed by on_advance): nothing but the two rolls
  (409 `action-lost`);
- a consciousness test due: only `consciousness_test` (and a recovery roll due) (409
  `consciousness-test-due`);
- conscious with no phase left this combat turn: free actions only (409 `no-action-left`);
- a limb it uses at deadly: 409 `limb-not-working`.
The two rolls are not actions the actor chooses: they are made when the rules call for them,
whatever else holds it back, so neither check refuses the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import msgspec

from schemas.encounter import TurnState
from schemas.sr3hl import HLActorState, HLState, Location
from service.rules import initiative
from service.rules.ruleset import InitiativeRules, RuleViolation
from service.rules.sr3 import tables as sr3_tables
from service.rules.sr3hl import condition

RECOVERY_ROLL = "recovery_roll"
CONSCIOUSNESS_TEST = "consciousness_test"
ROLLS = frozenset({RECOVERY_ROLL, CONSCIOUSNESS_TEST})


def _refuse(detail: str, kind: str, path: str) -> NoReturn:
    raise RuleViolation(detail, path=path, kind=kind, status=409)


def is_free(what: str) -> bool:
    """A free action of SR3's tables (002, "COMBAT"); attacks and zone tests are not."""
    return sr3_tables.ACTION_KINDS.get(what) == "free"


def phase_lost(actor_id: str, actor: HLActorState, turn: TurnState) -> bool:
    """The action phase under way is the actor's, and it is lost."""
    return (
        turn.action_phase == actor_id
        and actor.phase_lost is not None
        and actor.phase_lost == turn.phase
    )


def may_act_now(actor_id: str, actor: HLActorState, turn: TurnState) -> bool:
    """A consciousness test stands: the actor may act normally in the phase under way only
    when it is its own and the test granted it (004: "act normally in one combat phase")."""
    return (
        turn.action_phase == actor_id
        and actor.phase_granted is not None
        and actor.phase_granted == turn.phase
    )


def check_able(
    actor_id: str,
    actor: HLActorState | None,
    turn: TurnState,
    what: str,
    path: str,
    limbs: Sequence[Location] = (),
) -> None:
    """Raise RuleViolation(status=409) naming `path` when `actor` cannot do `what` (an action's
    name, "attack" or "zone_test") now (see above)."""
    if actor is None:
        return
    if actor.condition.dead:
        _refuse(f"{actor_id} is dead (004, Death and Injury)", "actor-down", path)
    if actor.unconscious:
        _refuse(
            f"{actor_id} is unconscious (failed its consciousness test; 004: no further rolls)",
            "actor-down",
            path,
        )
    if actor.recovery is not None and what not in ROLLS:
        _refuse(
            f"{actor_id} failed its recovery roll and must make it again (against "
            f"{actor.recovery.level}) before it acts: action 'recovery_roll'",
            "recovery-roll-due",
            path,
        )
    if phase_lost(actor_id, actor, turn) and what not in ROLLS:
        _refuse(
            f"{actor_id} loses this action phase (a failed recovery roll, 004)",
            "action-lost",
            path,
        )
    if actor.consciousness_due and what not in ROLLS:
        _refuse(
            f"{actor_id} is at deadly and must test to stay conscious first: action "
            "'consciousness_test' (004, Death and Injury)",
            "consciousness-test-due",
            path,
        )
    if (
        actor.conscious_phases is not None
        and what not in ROLLS
        and not is_free(what)
        and not may_act_now(actor_id, actor, turn)
        and actor.conscious_phases == 0
    ):
        _refuse(
            f"{actor_id} is conscious but has no action phase left this combat turn: free "
            "actions only (004, Death and Injury)",
            "no-action-left",
            path,
        )
    disabled = [limb for limb in limbs if limb in actor.condition.disabled]
    if disabled:
        _refuse(
            f"{actor_id}'s {', '.join(disabled)} {'is' if len(disabled) == 1 else 'are'} at "
            "deadly and stop working (004, Death and Injury)",
            "limb-not-working",
            path,
        )


def after_hit(actor: HLActorState) -> HLActorState:
    """The actor once a hit has written its monitors (and `condition`): deadly on a primary
    location or the trauma monitor asks for the consciousness test (004, "Death and Injury"),
    unless a test already stands for this combat turn or the actor is down."""
    condition = actor.condition
    if (
        not condition.deadly
        or condition.dead
        or actor.unconscious
        or actor.consciousness_due
        or actor.conscious_phases is not None
    ):
        return actor
    return msgspec.structs.replace(actor, consciousness_due=True)


def settled_actor(actor: HLActorState) -> HLActorState:
    """An actor state the GM wrote: its condition worked out again from its monitors (never a
    stale "dead"); at deadly a consciousness test is asked for as after a hit; below deadly
    no test stands or is due."""
    now = condition.condition(actor.monitors, actor.body)
    after = actor if now == actor.condition else msgspec.structs.replace(actor, condition=now)
    if now.deadly:
        return after_hit(after)
    if after.consciousness_due or after.conscious_phases is not None or after.tested_turn:
        after = msgspec.structs.replace(
            after,
            consciousness_due=False,
            conscious_phases=None,
            phase_granted=None,
            tested_turn=None,
        )
    return after


def settled(state: HLState) -> HLState:
    """The combat state the GM wrote (PUT .../state), every actor settled."""
    actors = {actor_id: settled_actor(actor) for actor_id, actor in state.actors.items()}
    if all(actors[i] is a for i, a in state.actors.items()):
        return state
    return msgspec.structs.replace(state, actors=actors)


def lose_next_action(
    actor_id: str, actor: HLActorState, turn: TurnState, rules: InitiativeRules
) -> tuple[HLActorState, TurnState | None, str]:
    """A failed recovery roll: the actor's next action phase is lost. With the service's
    initiative and a phase left in this combat turn, the order passes it by (the turn returned
    is the one to put in the Resolution); otherwise the actor state counts it
    (`actions_lost`, consumed when its next phase begins)."""
    turn_after = initiative.lose_next_phase(turn, rules, actor_id)
    if turn_after is not None:
        return actor, turn_after, f"{actor_id} loses its next action phase (recovery roll failed)"
    lost = min(actor.actions_lost + 1, 4)
    return (
        msgspec.structs.replace(actor, actions_lost=lost),
        None,
        f"{actor_id} loses its next action phase (recovery roll failed)",
    )
