"""Shadowrun 5 actions that are not attacks, and what a new phase or turn changes.

The guide: any action other than firing resets progressive recoil and loses the aim; aiming
builds up the aim; full defense is an interrupt that lasts until the combat turn ends.
"""

from __future__ import annotations

import msgspec

from schemas.encounter import ActionResult, AdvanceRequest
from schemas.sr5 import SR5ActionRequest, SR5ActorState, SR5State
from service.rules.dice import Dice
from service.rules.ruleset import EarlierAttack, Resolution, RuleViolation
from service.rules.sr5 import suppression, tables
from service.rules.sr5.second_chance import second_chance

# Actions that are "anything other than firing": they reset recoil and lose the aim.
OTHER_ACTIONS = ("other", "move", "drop_prone", "reload")
# Holding the action until later in the pass: the initiative engine moves the phase on; for
# the rules it is no action at all (recoil and aim stand).
ACTIONS = ("take_aim", "full_defense", "second_chance", "delay_action", *OTHER_ACTIONS)

# Which request fields each action reads; any other given is refused, never ignored.
_FIELDS = {
    "take_aim": {"aim_for", "image_magnification"},
    "full_defense": {"full_defense", "surprised"},
    "second_chance": {"target", "dice", "seed"},
}
_OPTIONAL = (
    "aim_for",
    "image_magnification",
    "full_defense",
    "surprised",
    "target",
    "dice",
    "seed",
)


def dice_steps(request: SR5ActionRequest) -> dict[str, int]:
    """Second Chance re-rolls a target's misses, and may need that target's defense and soak."""
    if request.action != "second_chance" or request.target is None:
        return {}
    target = request.target
    return dict.fromkeys((f"second_chance:{target}", f"defense:{target}", f"soak:{target}"), 6)


def _check_fields(request: SR5ActionRequest) -> None:
    given = {name for name in _OPTIONAL if getattr(request, name) not in (None, False, {})}
    extra = given - _FIELDS.get(request.action, set())
    if extra:
        name = sorted(extra)[0]
        raise RuleViolation(
            f"'{name}' does not go with the action '{request.action}'",
            path=f"$.{name}",
            kind="rule-violation",
        )


def _reset_recoil_and_aim(actor: SR5ActorState, effects: list[str]) -> SR5ActorState:
    if actor.recoil_rounds:
        rounds = actor.recoil_rounds
        effects.append(
            f"recoil reset ({rounds} round{'' if rounds == 1 else 's'} since the last reset)"
        )
    if actor.aims_for_accuracy or actor.aims_for_dice or actor.range_shift:
        effects.append("aim lost")
    return msgspec.structs.replace(
        actor,
        recoil_rounds=0,
        recoil_compensation=0,
        aims_for_accuracy=0,
        aims_for_dice=0,
        range_shift=False,
    )


def _take_aim(request: SR5ActionRequest, actor: SR5ActorState, effects: list[str]) -> SR5ActorState:
    if request.image_magnification and not actor.range_shift:
        # The guide: the first aim through image magnification locks the range shift and
        # gives none of the usual bonus; later aims do.
        effects.append("image magnification: range one step closer for the next shot")
        actor = msgspec.structs.replace(actor, range_shift=True)
    elif request.aim_for == "accuracy":
        aims = min(actor.aims_for_accuracy + 1, tables.MAX_AIMS)
        actor = msgspec.structs.replace(actor, aims_for_accuracy=aims)
        effects.append(f"aimed for accuracy ({aims} so far{_past_any_cap(aims)})")
    else:
        aims = min(actor.aims_for_dice + 1, tables.MAX_AIMS)
        actor = msgspec.structs.replace(actor, aims_for_dice=aims)
        effects.append(f"aimed for dice ({aims} so far{_past_any_cap(aims)})")
    # Aiming is an action other than firing: it resets recoil (but keeps the aim it builds).
    if actor.recoil_rounds:
        effects.append(f"recoil reset ({actor.recoil_rounds} rounds since the last reset)")
    return msgspec.structs.replace(actor, recoil_rounds=0, recoil_compensation=0)


def _past_any_cap(aims: int) -> str:
    return "; no Willpower takes more" if aims == tables.MAX_AIMS else ""


def _full_defense(
    request: SR5ActionRequest, actor: SR5ActorState, effects: list[str]
) -> SR5ActorState:
    if request.surprised:
        raise RuleViolation(
            "a surprised character cannot take an interrupt action such as full defense",
            path="$.surprised",
            kind="surprised",
            status=409,
        )
    quality = request.full_defense or "willpower"
    adds = tables.FULL_DEFENSE[quality].adds
    effects.append(f"full defense: +{adds} to every defense until the combat turn ends")
    effects.append(f"initiative {tables.FULL_DEFENSE_INITIATIVE}")
    actor = _reset_recoil_and_aim(actor, effects)
    return msgspec.structs.replace(actor, full_defense=quality)


def _second_chance(
    request: SR5ActionRequest, state: SR5State, dice: Dice, earlier: EarlierAttack | None
) -> Resolution[ActionResult]:
    attack, after, summary = second_chance(request.actor, request.target, state, dice, earlier)
    result = ActionResult(
        actor=request.actor,
        action=request.action,
        effects=[summary, "Edge spent: 1"],
        edge_spent=1,
        attack=attack,
    )
    return Resolution(result=result, state=after, actor=request.actor)


def resolve_action(
    request: SR5ActionRequest, state: SR5State, dice: Dice, earlier: EarlierAttack | None = None
) -> Resolution[ActionResult]:
    if request.action not in ACTIONS:
        raise RuleViolation(
            f"sr5 does not resolve '{request.action}' yet; it resolves: {', '.join(ACTIONS)}",
            path="$.action",
            kind="action-not-supported",
        )
    _check_fields(request)
    if request.action == "second_chance":
        # Spending Edge is no action at the table: recoil, aim and zones stand.
        return _second_chance(request, state, dice, earlier)
    if request.action == "delay_action":
        return Resolution(
            result=ActionResult(actor=request.actor, action=request.action, effects=[]),
            state=state,
            actor=request.actor,
        )
    # Any other action ends the actor's suppressive fire.
    state = suppression.end_zones_of(state, request.actor)
    actor = state.actors.get(request.actor, SR5ActorState())
    effects: list[str] = []
    if request.action == "take_aim":
        actor = _take_aim(request, actor, effects)
    elif request.action == "full_defense":
        actor = _full_defense(request, actor, effects)
    else:
        actor = _reset_recoil_and_aim(actor, effects)
    actors = dict(state.actors)
    actors[request.actor] = actor
    return Resolution(
        result=ActionResult(actor=request.actor, action=request.action, effects=effects),
        state=msgspec.structs.replace(state, actors=actors),
        actor=request.actor,
    )


def on_advance(request: AdvanceRequest, state: SR5State) -> tuple[SR5State, list[str]]:
    """Recoil and aim persist across phases and turns; the defenses an actor made count until its
    own action phase begins; full defense lasts until the combat turn ends."""
    actors = dict(state.actors)
    effects: list[str] = []
    if request.to == "action_phase" and request.actor in actors:
        actor = actors[request.actor]
        if actor.defenses:
            effects.append(f"{request.actor}: earlier defenses no longer count ({actor.defenses})")
            actors[request.actor] = msgspec.structs.replace(actor, defenses=0)
    if request.to == "combat_turn":
        if state.zones:
            effects.append(f"suppression ends with the combat turn: {', '.join(state.zones)}")
            state = suppression.end_all_zones(state)
        for actor_id, actor in actors.items():
            if actor.full_defense is not None:
                effects.append(f"{actor_id}: full defense ends with the combat turn")
                actors[actor_id] = msgspec.structs.replace(actor, full_defense=None)
    if not effects:
        return state, []
    return msgspec.structs.replace(state, actors=actors), effects
