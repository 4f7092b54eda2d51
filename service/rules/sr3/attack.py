"""Shadowrun 3 ranged attacks: skill + Combat Pool dice against the range band's target number
for the attacker's sight, the situation modifiers, the dodge, and the damage resistance test.

002 is rules-sources/002_65e09aecd368bc68.txt; tables.py cites every number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import msgspec

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.sr3 import (
    AttackerMovement,
    FiringMode,
    Sight,
    SR3ActorState,
    SR3Armor,
    SR3AttackRequest,
    SR3AttackResult,
    SR3Recoil,
    SR3State,
    SR3TargetResult,
    SR3Test,
    SR3Visibility,
    SR3Weapon,
)
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr3 import damage, pool, tables
from service.rules.sr3.tables import RangeBand

ATTACK_STEP = "attack"


class Shooter(Protocol):
    """What the shot's rules read of the attacker (SR3's and the rulesets built on it)."""

    @property
    def id(self) -> str: ...
    @property
    def skill(self) -> int: ...
    @property
    def strength(self) -> int | None: ...


class FireOrder(Protocol):
    """What the shot's rules read of an attack request: SR3AttackRequest, and the requests of
    the rulesets built on SR3 (Hard Life's, whose target may be absent and whose called shot
    names a location: any true value is a called shot)."""

    @property
    def attacker(self) -> Shooter: ...
    @property
    def weapon(self) -> SR3Weapon: ...
    @property
    def mode(self) -> FiringMode: ...
    @property
    def rounds(self) -> int | None: ...
    @property
    def pool(self) -> int: ...
    @property
    def sight(self) -> Sight: ...
    @property
    def indirect(self) -> bool: ...
    @property
    def movement(self) -> AttackerMovement: ...
    @property
    def melee_opponents(self) -> int: ...
    @property
    def blind_fire(self) -> bool: ...
    @property
    def called_shot(self) -> object: ...
    @property
    def second_firearm(self) -> bool: ...
    @property
    def visibility(self) -> SR3Visibility: ...


def dodge_step(target_id: str) -> str:
    return f"dodge:{target_id}"


def resist_step(target_id: str) -> str:
    return f"resist:{target_id}"


def dice_steps(request: SR3AttackRequest) -> dict[str, int]:
    """Every step the attack may roll, all d6."""
    target = request.target.id
    return {ATTACK_STEP: 6, dodge_step(target): 6, resist_step(target): 6}


def target_number(modifiers: list[Modifier]) -> int:
    """README: the modifiers' sum, never below 2."""
    return max(tables.MINIMUM_TARGET_NUMBER, sum([m.value for m in modifiers]))


def test(dice: Dice, step: str, count: int, pool_dice: int, modifiers: list[Modifier]) -> SR3Test:
    """One target-number test (Rule of Six and Rule of One: Dice.target_number_test)."""
    tn = target_number(modifiers)
    roll = dice.target_number_test(step, count, tn)
    return SR3Test(
        dice=max(count, 0),
        pool_dice=pool_dice,
        target_number=tn,
        modifiers=modifiers,
        totals=list(roll.totals),
        successes=roll.successes,
        rule_of_one=roll.all_ones,
    )


def range_band(request: FireOrder, distance: float) -> RangeBand:
    """002, "WEAPON RANGE TABLE": the band the target's distance falls in (an impact
    projectile's bands are multiples of Strength)."""
    weapon = request.weapon
    bands = tables.RANGE_BANDS[weapon.category]
    strength = 1
    if bands.per_strength:
        given = weapon.strength_rating or request.attacker.strength
        if given is None:
            raise RuleViolation(
                f"a {weapon.category}'s range bands are counted from Strength: give the "
                "attacker's strength (or the weapon's strength_rating)",
                path="$.attacker.strength",
                kind="strength-needed",
            )
        strength = given
    path = "$.target.distance_m"
    if distance < bands.minimum:
        raise RuleViolation(
            f"{distance:g} m is closer than the {weapon.category} minimum range of "
            f"{bands.minimum:g} m",
            path=path,
            kind="out-of-range",
        )
    for band, bound in zip(tables.BANDS, bands.bounds(strength), strict=True):
        if distance <= bound:
            return band
    raise RuleViolation(
        f"{distance:g} m is beyond the {weapon.category} extreme range of "
        f"{bands.bounds(strength)[-1]:g} m",
        path=path,
        kind="out-of-range",
    )


def base_modifiers(request: FireOrder, band: RangeBand) -> list[Modifier]:
    """002, "RANGED ATTACK TARGET NUMBERS": the band's number in the row of the attacker's
    sight (the parentheses for launch weapons); indirect fire: standard vision's launch
    numbers, with a smartlink-2's -1 its only modifier."""
    launch = request.weapon.category in tables.LAUNCH_WEAPONS
    weapon_kind = ", launch weapon" if launch else ""
    if request.indirect:
        row = tables.SIGHT_TARGET_NUMBERS[tables.INDIRECT_FIRE_SIGHT]
        modifiers = [
            Modifier(f"range ({band}{weapon_kind}, indirect fire)", row.target_number(band, launch))
        ]
        if request.sight == "smartlink_2":
            modifiers.append(
                Modifier("smartlink-2 (indirect fire)", tables.INDIRECT_FIRE_SMARTLINK_2)
            )
        return modifiers
    row = tables.SIGHT_TARGET_NUMBERS[request.sight]
    sight = "standard vision" if request.sight == "standard" else request.sight.replace("_", " ")
    return [Modifier(f"range ({band}{weapon_kind}), {sight}", row.target_number(band, launch))]


def visibility(seen: SR3Visibility) -> Modifier | None:
    """SR3 visibility: the light's and the obscurant's rows in the vision's column, added;
    half in melee (rounded down)."""
    value = (
        tables.VISIBILITY[seen.light][seen.vision] + tables.VISIBILITY[seen.obscurant][seen.vision]
    )
    if seen.melee:
        value //= tables.MELEE_VISIBILITY_DIVISOR
    if value == 0:
        return None
    conditions = [c for c in (seen.light, seen.obscurant) if c not in ("full", "none")]
    melee = ", halved in melee" if seen.melee else ""
    return Modifier(f"visibility ({', '.join(conditions)}; {seen.vision} vision{melee})", value)


def rounds_of(request: FireOrder) -> int:
    mode = tables.FIRING_MODES[request.mode]
    if request.mode == "FA":
        return request.rounds if request.rounds is not None else mode.rounds
    return mode.rounds


def recoil(request: FireOrder, rounds_before: int, rounds: int) -> SR3Recoil:
    """SR3 modifiers, "Recoil": +1 a round fired earlier in the phase, and bursts and full auto
    their own rounds too; compensation takes that away; heavy weapons double what is left."""
    mode = tables.FIRING_MODES[request.mode]
    weapon = request.weapon
    counted = rounds_before + (rounds if mode.own_rounds_recoil else 0)
    raw = counted * tables.RECOIL_PER_ROUND
    heavy = weapon.category in tables.HEAVY_WEAPONS
    left = max(0, raw - weapon.recoil_compensation)
    return SR3Recoil(
        rounds_before=rounds_before,
        rounds_fired=rounds,
        recoil=raw,
        compensation=weapon.recoil_compensation,
        heavy_weapon=heavy,
        modifier=left * tables.HEAVY_WEAPON_RECOIL_FACTOR if heavy else left,
    )


def situation_modifiers(
    request: FireOrder,
    cover: str,
    target_movement: str,
    wounds: Modifier | None,
    recoil_modifier: int,
    targets_in_phase: int,
    aims: int,
) -> list[Modifier]:
    """Every SR3 situation modifier that applies, in the order the result lists them (the
    attacker's wounds as the ruleset counts them)."""
    attacker = request.attacker
    modifiers = []
    if recoil_modifier:
        modifiers.append(Modifier("recoil", recoil_modifier))
    # The scene's full cover is blind fire; blind fire is the worse and they do not add.
    if request.blind_fire or cover == "full":
        modifiers.append(Modifier("blind fire", tables.BLIND_FIRE))
    elif tables.COVER[cover]:
        modifiers.append(Modifier(f"cover ({cover})", tables.COVER[cover]))
    shown = visibility(request.visibility)
    if shown is not None:
        modifiers.append(shown)
    if targets_in_phase > 1:
        modifiers.append(
            Modifier(
                f"multiple targets ({targets_in_phase} this phase)",
                tables.MULTIPLE_TARGETS * (targets_in_phase - 1),
            )
        )
    if tables.TARGET_MOVEMENT[target_movement]:
        modifiers.append(
            Modifier(f"target {target_movement}", tables.TARGET_MOVEMENT[target_movement])
        )
    if tables.ATTACKER_MOVEMENT[request.movement]:
        modifiers.append(
            Modifier(
                f"attacker {request.movement.replace('_', ' ')}",
                tables.ATTACKER_MOVEMENT[request.movement],
            )
        )
    if request.melee_opponents:
        modifiers.append(
            Modifier(
                f"attacker in melee ({request.melee_opponents} opponents)",
                tables.MELEE_PER_OPPONENT * request.melee_opponents,
            )
        )
    if wounds is not None:
        modifiers.append(wounds)
    if request.second_firearm:
        modifiers.append(Modifier("second firearm", tables.SECOND_FIREARM))
    aimed = min(aims, attacker.skill // tables.AIM_SKILL_DIVISOR)
    if aimed:
        modifiers.append(Modifier(f"aimed ({aimed} simple actions)", tables.AIM_PER_ACTION * aimed))
    if request.called_shot:
        modifiers.append(Modifier("called shot", tables.CALLED_SHOT))
    return modifiers


def wounds(level: str, modifier: int | None = None) -> Modifier | None:
    """README (SR3 modifiers, "Attacker Wounded"; SR3 p. 125: injuries modify target numbers):
    a character's wound level, or its wounds as a number when it gives one (both condition
    monitors' levels added up, monitor.py). The attack test takes the attacker's, the dodge
    the defender's."""
    value = tables.wounds_modifier(level, modifier)
    if not value:
        return None
    return Modifier("wounds" if modifier is not None else f"wounds ({level})", value)


def validate_fire(request: FireOrder) -> None:
    """The weapon can fire as asked: its mode, its rounds, its ammunition, indirect fire, the
    Combat Pool dice the attack adds."""
    weapon = request.weapon
    if request.mode not in weapon.modes:
        raise RuleViolation(
            f"'{weapon.id}' fires {', '.join(weapon.modes)}, not {request.mode}",
            path="$.mode",
            kind="mode-not-available",
        )
    if request.rounds is not None and request.mode != "FA":
        raise RuleViolation(
            "rounds is for full auto; the other modes fire their own", path="$.rounds"
        )
    rounds = rounds_of(request)
    if weapon.ammo < rounds:
        raise RuleViolation(
            f"{request.mode} fires {rounds} rounds but '{weapon.id}' has {weapon.ammo} left",
            path="$.weapon.ammo",
            kind="out-of-ammo",
        )
    if request.indirect and weapon.category not in tables.LAUNCH_WEAPONS:
        raise RuleViolation(
            "indirect fire is for launch weapons (grenade and missile launchers)",
            path="$.indirect",
        )
    if tables.ATTACK_POOL_AT_MOST_SKILL and request.pool > request.attacker.skill:
        raise RuleViolation(
            f"an attack adds at most as many Combat Pool dice as the skill "
            f"({request.attacker.skill}), not {request.pool}",
            path="$.pool",
            kind="too-many-pool-dice",
        )


def _validate(request: SR3AttackRequest) -> None:
    validate_fire(request)
    if request.target.id == request.attacker.id:
        raise RuleViolation("an attacker does not shoot itself", path="$.target.id")


def _in_phase(actor: SR3ActorState, turn: TurnState) -> SR3ActorState:
    """The actor's recoil and targets count within one action phase: a new phase starts them
    again."""
    if actor.phase == turn.phase:
        return actor
    return msgspec.structs.replace(actor, phase=turn.phase, rounds_in_phase=0, targets_in_phase=[])


@dataclass(frozen=True, slots=True)
class BuiltAttack:
    """An attack's tests as built before a die is rolled: every refusal made, the state read
    (recoil, aim, targets this phase, the Combat Pools), every modifier list and dice count.
    `resolve_attack` rolls them; the odds (odds.py) compute their distributions."""

    band: RangeBand
    rounds: int
    # The attacker's and the target's states with their pools counted (the attacker's in
    # this phase), before the attack spends anything.
    shooter: SR3ActorState
    victim: SR3ActorState
    # The target's layered armour.
    armor: SR3Armor
    # The targets of the phase, this one included.
    targets_seen: list[str]
    recoil: SR3Recoil
    attack_dice: int
    attack_modifiers: list[Modifier]
    # The dodge (rolled only against an attack with successes, and with dice committed).
    dodge_dice: int
    dodge_modifiers: list[Modifier]
    # The damage resistance test (rolled only when successes are left after the dodge).
    resist_dice: int
    resist_modifiers: list[Modifier]
    power_modifiers: list[Modifier]
    level_modifiers: list[Modifier]
    armor_kind: damage.ArmorKind


def build_attack(request: SR3AttackRequest, state: SR3State, turn: TurnState) -> BuiltAttack:
    """Everything of the attack that rolls no die (docs/odds.md: the odds build the same)."""
    _validate(request)
    attacker, weapon, target = request.attacker, request.weapon, request.target
    band = range_band(request, target.distance_m)
    rounds = rounds_of(request)
    actors = state.actors

    # The Combat Pools: counted from the request, and no test asks for more than is left.
    attacker_armor = pool.armor_of(attacker.armor, attacker.quickness)
    shooter = pool.counted(
        _in_phase(actors.get(attacker.id, SR3ActorState()), turn),
        pool.pool_size(
            attacker.combat_pool,
            attacker.quickness,
            attacker.intelligence,
            attacker.willpower,
            attacker_armor,
        ),
    )
    defender = target.defender
    armor = pool.armor_of(defender.armor, defender.quickness)
    victim = pool.counted(
        actors.get(target.id, SR3ActorState()),
        pool.pool_size(
            defender.combat_pool,
            defender.quickness,
            defender.intelligence,
            defender.willpower,
            armor,
        ),
    )
    pool.check_commit(attacker.id, shooter, request.pool, "$.pool", "$.attacker.combat_pool")
    pool.check_commit(
        target.id, victim, target.dodge, "$.target.dodge", "$.target.defender.combat_pool"
    )
    pool.check_commit(
        target.id,
        victim,
        target.dodge + target.resist,
        "$.target.resist",
        "$.target.defender.combat_pool",
    )

    # The attack test.
    targets_seen = list(shooter.targets_in_phase)
    if target.id not in targets_seen:
        targets_seen.append(target.id)
    recoil_now = recoil(request, shooter.rounds_in_phase, rounds)
    modifiers = [
        *base_modifiers(request, band),
        *situation_modifiers(
            request,
            target.cover,
            target.movement,
            wounds(attacker.wounds, attacker.wound_modifier),
            recoil_now.modifier,
            len(targets_seen),
            shooter.aims,
        ),
    ]

    # The dodge: TN 4, + 1 per three rounds of a burst or full auto, + the defender's wounds.
    dodge_modifiers = [Modifier("dodge", tables.DODGE_TARGET_NUMBER)]
    autofire_points = rounds // tables.DODGE_ROUNDS_PER_POINT if request.mode in ("BF", "FA") else 0
    if autofire_points:
        dodge_modifiers.append(Modifier(f"{rounds} rounds of autofire", autofire_points))
    dodge_wounds = wounds(defender.wounds, defender.wound_modifier)
    if dodge_wounds is not None:
        dodge_modifiers.append(dodge_wounds)

    # The damage resistance test: Body + pool dice against Power less armour, and no wounds
    # (**choice**, docs/rulesets/sr3.md: the crib sheet's TN is Power less armour alone).
    power_bonus, level_modifiers = damage.autofire(request.mode, rounds)
    power_modifiers = [Modifier("weapon", weapon.power), *power_bonus]
    kind = damage.armor_kind(weapon)
    power = sum([m.value for m in power_modifiers])
    return BuiltAttack(
        band=band,
        rounds=rounds,
        shooter=shooter,
        victim=victim,
        armor=armor,
        targets_seen=targets_seen,
        recoil=recoil_now,
        attack_dice=attacker.skill + request.pool,
        attack_modifiers=modifiers,
        dodge_dice=target.dodge,
        dodge_modifiers=dodge_modifiers,
        resist_dice=defender.body + target.resist,
        resist_modifiers=damage.resistance_modifiers(power, kind, armor),
        power_modifiers=power_modifiers,
        level_modifiers=level_modifiers,
        armor_kind=kind,
    )


def resolve_attack(
    request: SR3AttackRequest, state: SR3State, turn: TurnState, dice: Dice
) -> Resolution[SR3AttackResult]:
    built = build_attack(request, state, turn)
    attacker, weapon, target = request.attacker, request.weapon, request.target
    rounds = built.rounds
    shooter, victim, armor = built.shooter, built.victim, built.armor
    actors = dict(state.actors)

    attack = test(dice, ATTACK_STEP, built.attack_dice, request.pool, built.attack_modifiers)
    shooter = pool.spend(shooter, request.pool)

    # The dodge: its successes take away the attack's.
    dodge = None
    dodge_successes = 0
    if attack.successes > 0 and built.dodge_dice > 0:
        dodge = test(
            dice, dodge_step(target.id), built.dodge_dice, target.dodge, built.dodge_modifiers
        )
        dodge_successes = dodge.successes
        victim = pool.spend(victim, target.dodge)
    net = max(0, attack.successes - dodge_successes)

    # The damage resistance test, and the staging.
    hurt = None
    outcome: Literal["hit", "miss", "dodged", "resisted"]
    if attack.successes == 0:
        outcome = "miss"
    elif net == 0:
        outcome = "dodged"
    else:
        resist = test(
            dice, resist_step(target.id), built.resist_dice, target.resist, built.resist_modifiers
        )
        victim = pool.spend(victim, target.resist)
        hurt = damage.damage(
            weapon,
            built.power_modifiers,
            built.level_modifiers,
            built.armor_kind,
            armor,
            resist,
            net,
        )
        outcome = "hit" if hurt.level is not None else "resisted"

    actors[attacker.id] = msgspec.structs.replace(
        shooter,
        phase=turn.phase,
        rounds_in_phase=min(shooter.rounds_in_phase + rounds, tables.MAX_ROUNDS_IN_PHASE),
        targets_in_phase=built.targets_seen[-tables.MAX_TARGETS_REMEMBERED :],
        aims=0,
    )
    if victim.combat_pool is not None or target.id in actors:
        actors[target.id] = victim
    # The dice each test made spent (a test not made, after a miss, spends none).
    victim_spent = (target.dodge if dodge is not None else 0) + (
        target.resist if hurt is not None else 0
    )
    pools = [
        spent
        for spent in (
            pool.spent(attacker.id, shooter, request.pool),
            pool.spent(target.id, victim, victim_spent),
        )
        if spent is not None
    ]
    result = SR3AttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        action=tables.FIRING_MODES[request.mode].action,
        rounds_fired=rounds,
        ammo_left=weapon.ammo - rounds,
        attack=attack,
        recoil=built.recoil,
        target=SR3TargetResult(
            target=target.id,
            outcome=outcome,
            range=built.band,
            attack_successes=attack.successes,
            dodge=dodge,
            dodge_successes=dodge_successes,
            net_successes=net,
            armor=armor,
            damage=hurt,
        ),
        combat_pool=pools,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(result=result, state=SR3State(actors=actors), actor=attacker.id)
