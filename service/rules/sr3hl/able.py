"""What a Hard Life actor's condition lets it do (004, "Resolve Recovery Roll", "Death and
Injury"), checked before any attack, action or zone test of its own; and the next action a
failed recovery roll takes away.

The checks (helper B fills them in; until then they let everything through):
- dead, or unconscious: no action at all (409 `actor-down`);
- a recovery roll due: only `recovery_roll` (409 `recovery-roll-due`);
- this action phase lost (actions_lost consumed by on_advance): nothing but `recovery_roll`
  (409 `action-lost`);
- a consciousness test due: only `consciousness_test` (409 `consciousness-test-due`);
- conscious with no phase left this combat turn: free actions only (409 `no-action-left`);
- a limb it uses at deadly: 409 `limb-not-working`.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from schemas.encounter import TurnState
from schemas.sr3hl import HLActorState, Location
from service.rules import initiative
from service.rules.ruleset import InitiativeRules


def check_able(
    actor_id: str,
    actor: HLActorState | None,
    turn: TurnState,
    what: str,
    path: str,
    limbs: Sequence[Location] = (),
) -> None:
    """Raise RuleViolation(status=409) when `actor` cannot do `what` now (see above)."""
    del actor_id, actor, turn, what, path, limbs


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
