"""SR4 actions that are not attacks (Take Aim, full defense, reload, prone and cover, the
choke, Edge's re-roll), and what a new action phase or combat turn changes."""

from __future__ import annotations

import msgspec

from schemas.encounter import ActionResult, AdvanceRequest
from schemas.sr4 import (
    MAX_WEAPONS,
    SR4ActionRequest,
    SR4ActorState,
    SR4AttackRequest,
    SR4AttackResult,
    SR4State,
)
from service.rules.dice import HIT_MINIMUM, Dice, count_pool
from service.rules.ruleset import EarlierAttack, Resolution, RuleViolation
from service.rules.sr4 import modifiers, opposed, suppression, tables

ACTIONS = tuple(tables.ACTION_KINDS)

# Which request fields each action reads; any other given is refused, never ignored.
_FIELDS = {
    "take_aim": {"image_magnification", "target"},
    "reload": {"weapon", "rounds"},
    "change_choke": {"weapon", "choke", "smartlinked"},
    "edge_reroll": {"target", "dice", "seed"},
}
_OPTIONAL = (
    "image_magnification",
    "target",
    "weapon",
    "rounds",
    "choke",
    "smartlinked",
    "dice",
    "seed",
)


def dice_steps(request: SR4ActionRequest) -> dict[str, int]:
    if request.action != "edge_reroll" or request.target is None:
        return {}
    target = request.target
    return dict.fromkeys((f"reroll:{target}", f"defense:{target}", f"soak:{target}"), 6)


def _check_fields(request: SR4ActionRequest) -> None:
    given = {name for name in _OPTIONAL if getattr(request, name) not in (None, False, {})}
    extra = given - _FIELDS.get(request.action, set())
    if extra:
        name = sorted(extra)[0]
        raise RuleViolation(
            f"'{name}' does not go with the action '{request.action}'", path=f"$.{name}"
        )


def _needs(request: SR4ActionRequest, *names: str) -> None:
    for name in names:
        if getattr(request, name) is None:
            raise RuleViolation(f"{request.action} needs '{name}'", path=f"$.{name}")


def resolve_action(
    request: SR4ActionRequest, state: SR4State, dice: Dice, earlier: EarlierAttack | None
) -> Resolution[ActionResult]:
    _check_fields(request)
    if request.action == "edge_reroll":
        return reroll(request, state, dice, earlier)
    if request.action == "delay_action":
        return Resolution(
            result=ActionResult(actor=request.actor, action=request.action, effects=[]),
            state=state,
            actor=request.actor,
        )
    # Another action is the shooter's next: its suppressive fire ends (001).
    state = suppression.end_zones_of(state, request.actor)
    actor = state.actors.get(request.actor, SR4ActorState())
    effects: list[str] = []
    rounds_loaded = None
    ammo_left = None
    if request.action == "take_aim":
        if request.image_magnification:
            _needs(request, "target")
            if actor.locked_on != request.target:
                # 001: the first Take Aim through image magnification locks on, no +1.
                effects.append(f"image magnification locked onto {request.target}: range short")
                actor = msgspec.structs.replace(actor, locked_on=request.target)
            else:
                actor = msgspec.structs.replace(actor, aims=min(actor.aims + 1, tables.MAX_AIMS))
                effects.append(f"aimed: +{actor.aims} (image magnification stays locked)")
        else:
            actor = msgspec.structs.replace(actor, aims=min(actor.aims + 1, tables.MAX_AIMS))
            effects.append(f"aimed: +{actor.aims}")
    elif request.action == "full_defense":
        effects.append("full defense: + Dodge to every defense until the combat turn ends")
        actor = msgspec.structs.replace(actor, full_defense=True, aims=0)
    elif request.action == "change_choke":
        _needs(request, "weapon", "choke")
        assert request.weapon is not None and request.choke is not None
        kind = "free" if request.smartlinked else "simple"
        effects.append(f"{request.weapon}: choke set to {request.choke} ({kind} action)")
        # The newest setting last; the state keeps the chokes of a sheet's worth of guns, the
        # oldest setting let go past that.
        chokes = {w: c for w, c in actor.chokes.items() if w != request.weapon}
        chokes[request.weapon] = request.choke
        kept = dict(list(chokes.items())[-MAX_WEAPONS:])
        actor = msgspec.structs.replace(actor, chokes=kept, aims=0)
    elif request.action == "reload":
        _needs(request, "weapon", "rounds")
        rounds_loaded, ammo_left = request.rounds, request.rounds
        effects.append(f"{request.weapon} reloaded: {request.rounds} rounds")
        actor = msgspec.structs.replace(actor, aims=0)
    else:
        if actor.aims:
            effects.append("aim lost")
        if request.action == "move" and actor.locked_on is not None:
            effects.append("image magnification lock lost (the attacker moved)")
            actor = msgspec.structs.replace(actor, locked_on=None)
        if request.action in ("drop_prone", "take_cover"):
            effects.append(f"{request.action.replace('_', ' ')}: not at risk from suppressive fire")
        actor = msgspec.structs.replace(actor, aims=0)
    actors = {**state.actors, request.actor: actor}
    return Resolution(
        result=ActionResult(
            actor=request.actor,
            action=request.action,
            effects=effects,
            rounds_loaded=rounds_loaded,
            ammo_left=ammo_left,
        ),
        state=msgspec.structs.replace(state, actors=actors),
        actor=request.actor,
    )


def reroll(
    request: SR4ActionRequest, state: SR4State, dice: Dice, earlier: EarlierAttack | None
) -> Resolution[ActionResult]:
    """SR4 core, Edge, "Re-roll failures": Edge spent after a test re-rolls its dice that
    scored no hit (not a test already rolled with Edge)."""
    actors = dict(state.actors)
    shooter = actors.get(request.actor, SR4ActorState())
    last = shooter.last_attack
    if last is None or earlier is None:
        raise RuleViolation(
            f"{request.actor} has no attack to re-roll", path="$.actor", kind="no-attack"
        )
    asked: SR4AttackRequest = earlier.request
    first = earlier.result
    assert isinstance(first, SR4AttackResult)
    if asked.grenade is not None or asked.mode == "suppressive":
        raise RuleViolation(
            "Edge's re-roll follows up an attack on targets; a grenade's scatter and a zone's "
            "hits are not rolled again",
            path="$.action",
            kind="no-attack",
        )
    if asked.edge != "none":
        raise RuleViolation(
            "Edge was already spent on this test (extra dice)",
            path="$.action",
            kind="edge-already-used",
        )
    if asked.attacker.edge < 1:
        raise RuleViolation(f"{request.actor} has no Edge to spend", path="$.actor", kind="no-edge")
    names = [t.target for t in first.targets]
    target_id = (
        request.target if request.target is not None else (names[0] if len(names) == 1 else None)
    )
    if target_id not in names:
        raise RuleViolation(
            f"name the target whose attack test to re-roll: one of {', '.join(names)}",
            path="$.target",
        )
    assert target_id is not None
    if target_id in last.rerolled:
        raise RuleViolation(
            f"the attack on {target_id} has been re-rolled",
            path="$.target",
            kind="edge-already-used",
        )
    index = names.index(target_id)
    before, target = first.targets[index], asked.targets[index]
    step = next((r for r in first.dice if r.step in (f"attack:{target_id}", "attack")), None)
    rolled = step.values if step is not None else []
    kept = [v for v in rolled if v >= HIT_MINIMUM]
    again = dice.pool(f"reroll:{target_id}", len(rolled) - len(kept), opposed.EDITION)
    final = opposed.test_of(count_pool([*kept, *again.values], len(rolled), opposed.EDITION))
    defense, defense_hits = before.defense, before.defense_hits
    if defense is None and final.hits > 0:
        roll = dice.pool(
            f"defense:{target_id}",
            max(0, modifiers.total(before.defense_modifiers)),
            opposed.EDITION,
        )
        defense = opposed.test_of(roll)
        defense_hits = defense.hits
        actors[target_id] = opposed.defended(actors.get(target_id, SR4ActorState()))
    outcome = opposed.outcome_of(final.hits, defense_hits, asked.grazing)
    net = max(0, final.hits - defense_hits)
    row = tables.FIRING_MODES[before.fired_as]
    burst_dv = row.narrow_dv if row.burst and asked.burst == "narrow" else 0
    if first.recoil.short_rounds and row.burst:
        burst_dv = modifiers.lessened(burst_dv, first.recoil.short_rounds)
    soak = before.damage.soak if before.damage is not None else None
    hurt = (
        opposed.damage(asked, target, net, burst_dv, _choke_used(first, asked, shooter), dice, soak)
        if outcome == "hit"
        else None
    )
    contact = outcome != "miss"
    effect = modifiers.gun_of(asked, target).contact_effect
    after = msgspec.structs.replace(
        before,
        outcome=outcome,
        attack=final,
        defense=defense,
        defense_hits=defense_hits,
        net_hits=net,
        contact=contact,
        contact_effect=effect if contact and effect else None,
        damage=hurt,
    )
    result = msgspec.structs.replace(
        first, targets=[after], dice=dice.rolls, seed=dice.seed, edge_spent=1
    )
    actors[request.actor] = msgspec.structs.replace(
        actors.get(request.actor, shooter),
        last_attack=msgspec.structs.replace(last, rerolled=[*last.rerolled, target_id]),
    )
    summary = (
        f"Edge re-roll on {target_id}: {before.attack.hits} -> {final.hits} hits, "
        f"{before.outcome} -> {outcome}"
    )
    return Resolution(
        result=ActionResult(
            actor=request.actor,
            action=request.action,
            effects=[summary, "Edge spent: 1"],
            edge_spent=1,
            attack=result,
        ),
        state=msgspec.structs.replace(state, actors=actors),
        actor=request.actor,
    )


def _choke_used(
    first: SR4AttackResult, asked: SR4AttackRequest, shooter: SR4ActorState
) -> str | None:
    """The choke the attack fired with: the one its damage shows."""
    del first
    return modifiers.choke_of(asked, shooter)


def on_advance(request: AdvanceRequest, state: SR4State) -> tuple[SR4State, list[str]]:
    """An actor's own action phase: its earlier defenses stop counting, and its suppressive
    fire ends (001); a new combat turn ends full defense."""
    actors = dict(state.actors)
    effects: list[str] = []
    if request.to == "action_phase" and request.actor is not None:
        ended = [z for z in state.zones.values() if z.zone.shooter == request.actor]
        if ended:
            effects.append(
                f"suppression ends at {request.actor}'s action phase: "
                + ", ".join(z.zone.id for z in ended)
            )
            state = suppression.end_zones_of(state, request.actor)
        actor = actors.get(request.actor)
        if actor is not None and actor.defenses:
            effects.append(f"{request.actor}: earlier defenses no longer count ({actor.defenses})")
            actors[request.actor] = msgspec.structs.replace(actor, defenses=0)
    if request.to == "combat_turn":
        for actor_id, actor in actors.items():
            if actor.full_defense:
                effects.append(f"{actor_id}: full defense ends with the combat turn")
                actors[actor_id] = msgspec.structs.replace(actor, full_defense=False)
    if not effects:
        return state, []
    return msgspec.structs.replace(state, actors=actors), effects
