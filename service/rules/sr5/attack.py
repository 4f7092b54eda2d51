"""Shadowrun 5 ranged attacks: pool, limit, recoil, defense, damage and soak (the guide's DADA)."""

from __future__ import annotations

import math
from typing import Literal

from schemas.common import Modifier
from schemas.sr5 import (
    SR5ActorState,
    SR5AttackRequest,
    SR5AttackResult,
    SR5Damage,
    SR5Recoil,
    SR5State,
    SR5Target,
    SR5TargetResult,
    SR5Test,
)
from service.rules.dice import Dice, Edition, PoolRoll
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr5 import tables
from service.rules.sr5.tables import RangeBand

EDITION: Edition = "sr5"


def attack_step(request: SR5AttackRequest, target_id: str) -> str:
    del request, target_id  # one target per attack for now: the step is plain "attack"
    return "attack"


def dice_steps(request: SR5AttackRequest) -> dict[str, int]:
    """Every step this request can roll, with its die: all d6."""
    steps = {attack_step(request, t.id): 6 for t in request.targets}
    for target in request.targets:
        steps[f"defense:{target.id}"] = 6
        steps[f"soak:{target.id}"] = 6
    return steps


def range_band(category: str, distance_m: float, path: str) -> RangeBand:
    bands = tables.RANGE_BANDS[category]
    if distance_m < bands.minimum:
        raise RuleViolation(
            f"{distance_m:g} m is closer than the {category} minimum range of {bands.minimum:g} m",
            path=path,
            kind="out-of-range",
        )
    for band, bound in (
        ("short", bands.short),
        ("medium", bands.medium),
        ("long", bands.long),
        ("extreme", bands.extreme),
    ):
        if distance_m <= bound:
            return band  # type: ignore[return-value]
    raise RuleViolation(
        f"{distance_m:g} m is beyond the {category} extreme range of {bands.extreme:g} m",
        path=path,
        kind="out-of-range",
    )


def recoil_compensation(strength: int, weapon_rc: int) -> int:
    """The guide, "Recoil": 1 + ceil(Strength / 3) + the weapon's RC."""
    return (
        tables.BASE_RECOIL_COMPENSATION
        + math.ceil(strength / tables.STRENGTH_PER_COMPENSATION)
        + weapon_rc
    )


def recoil_penalty(rounds_total: int, compensation: int, heavy_weapon: bool) -> int:
    """Negative dice for the rounds past the compensation; heavy weapons double what is left."""
    uncompensated = max(0, rounds_total - compensation)
    if heavy_weapon:
        uncompensated *= tables.HEAVY_WEAPON_RECOIL_FACTOR
    return -uncompensated


def _test(roll: PoolRoll) -> SR5Test:
    return SR5Test(
        pool=roll.pool,
        hits=roll.hits,
        ones=roll.ones,
        glitch=roll.glitch,
        critical_glitch=roll.critical_glitch,
    )


def _total(modifiers: list[Modifier]) -> int:
    return max(0, sum(m.value for m in modifiers))


def _validate(request: SR5AttackRequest) -> tables.FiringMode:
    mode = tables.FIRING_MODES[request.mode]
    weapon = request.weapon
    if mode.needs not in weapon.modes:
        raise RuleViolation(
            f"{request.mode} needs a weapon with {mode.needs}; "
            f"'{weapon.id}' has {', '.join(weapon.modes)}",
            path="$.mode",
            kind="mode-not-available",
        )
    if weapon.ammo < mode.rounds:
        raise RuleViolation(
            f"{request.mode} fires {mode.rounds} rounds but '{weapon.id}' has {weapon.ammo} left",
            path="$.weapon.ammo",
            kind="out-of-ammo",
        )
    if len(request.targets) > 1:
        raise RuleViolation(
            "one target per attack: multiple-target attacks are not supported yet",
            path="$.targets",
            kind="not-supported",
        )
    return mode


def _recoil(
    request: SR5AttackRequest, actor: SR5ActorState, mode: tables.FiringMode
) -> tuple[SR5Recoil, SR5ActorState]:
    weapon = request.weapon
    # Compensation is counted once, when a sequence of shots begins (the guide, "Recoil").
    if actor.recoil_rounds == 0:
        compensation = recoil_compensation(request.attacker.strength, weapon.rc)
    else:
        compensation = actor.recoil_compensation
    heavy = weapon.category in tables.HEAVY_WEAPONS
    total = actor.recoil_rounds + mode.recoil_rounds
    recoil = SR5Recoil(
        rounds_before=actor.recoil_rounds,
        rounds_fired=mode.recoil_rounds,
        rounds_total=total,
        compensation=compensation,
        heavy_weapon=heavy,
        penalty=recoil_penalty(total, compensation, heavy),
    )
    if mode.recoil_rounds == 0:
        return recoil, actor
    return recoil, SR5ActorState(recoil_rounds=total, recoil_compensation=compensation)


def _damage(request: SR5AttackRequest, target: SR5Target, net_hits: int, dice: Dice) -> SR5Damage:
    weapon = request.weapon
    modified_dv = weapon.damage + net_hits
    # A negative modified armor protects nothing: the defender resists with Body alone.
    modified_armor = max(0, target.defender.armor + weapon.ap)
    physical = weapon.damage_type == "P" and not modified_armor > modified_dv
    soak_modifiers = [
        Modifier("body", target.defender.body),
        Modifier("modified armor", modified_armor),
    ]
    soak = dice.pool(f"soak:{target.id}", _total(soak_modifiers), EDITION)
    return SR5Damage(
        dv=modified_dv,
        armor=modified_armor,
        track="physical" if physical else "stun",
        soak=_test(soak),
        soak_modifiers=soak_modifiers,
        soak_hits=soak.hits,
        boxes=max(0, modified_dv - soak.hits),
    )


def resolve_attack(
    request: SR5AttackRequest, state: SR5State, dice: Dice
) -> Resolution[SR5AttackResult]:
    mode = _validate(request)
    attacker, weapon = request.attacker, request.weapon
    target = request.targets[0]
    band = range_band(weapon.category, target.distance_m, "$.targets[0].distance_m")

    actor = state.actors.get(attacker.id, SR5ActorState())
    recoil, actor_after = _recoil(request, actor, mode)

    modifiers = [Modifier("agility", attacker.agility), Modifier("skill", attacker.skill)]
    if band != "short":
        modifiers.append(Modifier(f"range ({band})", tables.RANGE_MODIFIER[band]))
    if attacker.wound_modifier:
        modifiers.append(Modifier("wound modifier", attacker.wound_modifier))
    if tables.SMARTLINK_DICE[request.smartlink]:
        modifiers.append(
            Modifier(f"smartlink ({request.smartlink})", tables.SMARTLINK_DICE[request.smartlink])
        )
    if target.cover == "full":
        modifiers.append(
            Modifier("blind fire (target fully behind cover)", tables.BLIND_FIRE_MODIFIER)
        )
    if recoil.penalty:
        modifiers.append(Modifier("recoil", recoil.penalty))

    limit_modifiers = [Modifier("accuracy", weapon.accuracy)]
    if tables.SMARTLINK_ACCURACY[request.smartlink]:
        limit_modifiers.append(Modifier("smartlink", tables.SMARTLINK_ACCURACY[request.smartlink]))
    limit = _total(limit_modifiers)

    pool = _total(modifiers)
    attack = dice.pool(attack_step(request, target.id), pool, EDITION)
    attack_hits = min(attack.hits, limit)

    defense_modifiers = [
        Modifier("reaction", target.defender.reaction),
        Modifier("intuition", target.defender.intuition),
    ]
    if tables.COVER_DEFENSE_MODIFIER[target.cover]:
        defense_modifiers.append(
            Modifier(f"cover ({target.cover})", tables.COVER_DEFENSE_MODIFIER[target.cover])
        )
    if mode.defense_modifier:
        defense_modifiers.append(Modifier(f"firing mode {request.mode}", mode.defense_modifier))

    damage = None
    outcome: Literal["hit", "graze", "miss"]
    if attack_hits == 0:
        # No hits, no attack: the defender has nothing to roll against.
        defense = PoolRoll(_total(defense_modifiers), (), 0, 0, False, False)
        outcome = "miss"
    else:
        defense = dice.pool(f"defense:{target.id}", _total(defense_modifiers), EDITION)
        if attack_hits > defense.hits:
            outcome = "hit"
            damage = _damage(request, target, attack_hits - defense.hits, dice)
        elif attack_hits == defense.hits:
            outcome = "graze"  # contact, no damage: the defender wins ties
        else:
            outcome = "miss"

    result = SR5AttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        action=mode.action,
        rounds_fired=mode.rounds,
        ammo_left=weapon.ammo - mode.rounds,
        pool=pool,
        modifiers=modifiers,
        limit=limit,
        limit_modifiers=limit_modifiers,
        recoil=recoil,
        attack=_test(attack),
        attack_hits_before_limit=attack.hits,
        targets=[
            SR5TargetResult(
                target=target.id,
                outcome=outcome,
                range=band,
                attack_hits=attack_hits,
                defense_hits=defense.hits,
                net_hits=max(0, attack_hits - defense.hits),
                defense=_test(defense),
                defense_modifiers=defense_modifiers,
                damage=damage,
            )
        ],
        dice=dice.rolls,
        seed=dice.seed,
    )
    actors = dict(state.actors)
    actors[attacker.id] = actor_after
    return Resolution(result=result, state=SR5State(actors=actors), actor=attacker.id)
