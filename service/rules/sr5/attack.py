"""Shadowrun 5 ranged attacks: pool, limit, recoil, defense, damage and soak (the guide's DADA)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import msgspec

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.sr5 import (
    SR5ActorState,
    SR5AttackRequest,
    SR5AttackResult,
    SR5Damage,
    SR5LastAttack,
    SR5Recoil,
    SR5State,
    SR5Target,
    SR5TargetResult,
    SR5Test,
    SR5Weapon,
    SR5ZoneOrder,
)
from service.rules.dice import Dice, Edition, PoolRoll
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr5 import suppression, tables
from service.rules.sr5.defense import (
    SoakTest,
    full_defense,
    resist,
    soak_test,
    test_of,
    wounds,
)
from service.rules.sr5.environment import environment
from service.rules.sr5.tables import RangeBand

EDITION: Edition = "sr5"


def attack_step(request: SR5AttackRequest, target_id: str) -> str:
    """ "attack" for one target; "attack:<target id>" for each of several."""
    return "attack" if len(request.targets) == 1 else f"attack:{target_id}"


def dice_steps(request: SR5AttackRequest) -> dict[str, int]:
    """Every step this request can roll, with its die: all d6."""
    if request.mode == "suppressive":
        return {suppression.STEP: 6}
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
    if distance_m <= bands.short:
        return "short"
    if distance_m <= bands.medium:
        return "medium"
    if distance_m <= bands.long:
        return "long"
    if distance_m <= bands.extreme:
        return "extreme"
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


def _total(modifiers: list[Modifier]) -> int:
    return max(0, sum([m.value for m in modifiers]))


def _check_gun(
    request: SR5AttackRequest,
    weapon: SR5Weapon,
    mode: tables.FiringMode,
    modes_path: str,
    ammo_path: str,
) -> None:
    """The gun has the mode, and the rounds it fires."""
    if mode.needs not in weapon.modes:
        raise RuleViolation(
            f"{request.mode} needs a weapon with {mode.needs}; "
            f"'{weapon.id}' has {', '.join(weapon.modes)}",
            path=modes_path,
            kind="mode-not-available",
        )
    if weapon.ammo < mode.rounds:
        raise RuleViolation(
            f"{request.mode} fires {mode.rounds} rounds but '{weapon.id}' has {weapon.ammo} left",
            path=ammo_path,
            kind="out-of-ammo",
        )


def _validate(request: SR5AttackRequest) -> tables.FiringMode:
    mode = tables.FIRING_MODES[request.mode]
    weapon = request.weapon
    _check_gun(request, weapon, mode, "$.mode", "$.weapon.ammo")
    second = request.second_weapon
    if second is not None:
        _check_gun(request, second, mode, "$.second_weapon.modes", "$.second_weapon.ammo")
    for index, target in enumerate(request.targets):
        if target.gun == "second" and second is None:
            raise RuleViolation(
                "a target for the second gun needs a second_weapon",
                path=f"$.targets[{index}].gun",
                kind="rule-violation",
            )
    ids = [t.id for t in request.targets]
    if not ids and request.mode != "suppressive":
        raise RuleViolation("an attack needs a target", path="$.targets", kind="rule-violation")
    if request.zone is not None and request.mode != "suppressive":
        raise RuleViolation(
            "a zone goes with suppressive fire", path="$.zone", kind="rule-violation"
        )
    if len(set(ids)) != len(ids):
        raise RuleViolation(
            "each target may be named once", path="$.targets", kind="rule-violation"
        )
    if request.choke is not None and weapon.category not in tables.FLECHETTE_SHOTGUNS:
        raise RuleViolation(
            "a choke belongs to a shotgun firing flechettes (category shotgun_flechette)",
            path="$.choke",
            kind="rule-violation",
        )
    spreading = request.choke in tables.SPREADING_CHOKES
    if spreading and any(t.called_shot for t in request.targets):
        raise RuleViolation(
            "medium and wide spreads cannot be used with called shots",
            path="$.choke",
            kind="rule-violation",
        )
    if len(ids) > 1:
        if request.mode not in tables.MULTIPLE_TARGET_MODES and not spreading and second is None:
            raise RuleViolation(
                f"{request.mode} attacks one target; bursts, automatic fire and a medium or "
                "wide flechette spread attack several",
                path="$.targets",
                kind="rule-violation",
            )
        most = request.attacker.skill // 2
        if len(ids) > most:
            raise RuleViolation(
                f"skill {request.attacker.skill} attacks at most {most} targets at once "
                "(half the skill, rounded down)",
                path="$.targets",
                kind="too-many-targets",
            )
    unknown = [t for t in request.larger_shares if t not in ids]
    if unknown:
        raise RuleViolation(
            f"larger_shares names {', '.join(unknown)}, not a target of this attack",
            path="$.larger_shares",
            kind="rule-violation",
        )
    return mode


def _recoil(
    request: SR5AttackRequest, actor: SR5ActorState, mode: tables.FiringMode
) -> tuple[SR5Recoil, SR5ActorState]:
    weapon, second = request.weapon, request.second_weapon
    # Compensation is counted once, when a sequence of shots begins (the guide, "Recoil"). With
    # two guns their rounds add up (the guide: "the recoil of each weapon is cumulative");
    # choice: the steadier hand does not lend its RC to the other, so the lower RC counts.
    if actor.recoil_rounds == 0:
        rc = weapon.rc if second is None else min(weapon.rc, second.rc)
        compensation = recoil_compensation(request.attacker.strength, rc)
    else:
        compensation = actor.recoil_compensation
    heavy = weapon.category in tables.HEAVY_WEAPONS or (
        second is not None and second.category in tables.HEAVY_WEAPONS
    )
    guns = 1 if second is None else 2
    fired = mode.recoil_rounds * guns
    total = actor.recoil_rounds + fired
    recoil = SR5Recoil(
        rounds_before=actor.recoil_rounds,
        rounds_fired=fired,
        rounds_total=total,
        compensation=compensation,
        heavy_weapon=heavy,
        penalty=recoil_penalty(total, compensation, heavy),
    )
    if fired == 0:
        return recoil, actor
    return recoil, msgspec.structs.replace(
        actor, recoil_rounds=min(total, tables.MAX_RECOIL_ROUNDS), recoil_compensation=compensation
    )


def split_pool(pool: int, target_ids: list[str], larger_shares: list[str]) -> dict[str, int]:
    """The guide: divide the pool as evenly as possible; the remainder goes one die each to
    `larger_shares` (or to the first targets), never more to anyone."""
    if len(target_ids) == 1 and not larger_shares:
        return {target_ids[0]: pool}  # one target has the whole pool
    base, remainder = divmod(pool, len(target_ids))
    if larger_shares and len(larger_shares) != remainder:
        raise RuleViolation(
            f"{pool} dice over {len(target_ids)} targets leave {remainder} larger share(s); "
            f"larger_shares names {len(larger_shares)}",
            path="$.larger_shares",
            kind="uneven-split",
        )
    favoured = set(larger_shares) if larger_shares else set(target_ids[:remainder])
    return {t: base + (1 if t in favoured else 0) for t in target_ids}


def aim_bonuses(request: SR5AttackRequest, actor: SR5ActorState) -> tuple[int, int]:
    """(+accuracy, +dice) from the aims taken: each capped at half Willpower rounded up; with a
    wireless smartlink every aim gives both."""
    cap = math.ceil(request.attacker.willpower / tables.AIM_CAP_DIVISOR)
    if request.smartlink in tables.WIRELESS_SMARTLINKS:
        both = min(actor.aims_for_accuracy + actor.aims_for_dice, cap)
        return both, both
    return min(actor.aims_for_accuracy, cap), min(actor.aims_for_dice, cap)


def _whole_attack_modifiers(
    request: SR5AttackRequest, recoil: SR5Recoil, aim_dice: int
) -> list[Modifier]:
    """Everything that applies to the whole pool, before it is split among targets."""
    attacker = request.attacker
    skill = Modifier("skill", attacker.skill)
    if request.second_weapon is not None and request.second_skill is not None:
        # The guide: with guns of two skills, presumably the lower one.
        if request.second_skill < attacker.skill:
            skill = Modifier("skill (the lower of the two guns')", request.second_skill)
    modifiers = [Modifier("agility", attacker.agility), skill]
    # Each situation that applies, in the order the result lists them; a description is only
    # written for a modifier that is there.
    if attacker.wound_modifier != 0:
        modifiers.append(Modifier("wound modifier", attacker.wound_modifier))
    smartlink_dice = tables.SMARTLINK_DICE[request.smartlink]
    if smartlink_dice != 0:
        modifiers.append(Modifier(f"smartlink ({request.smartlink})", smartlink_dice))
    if request.running:
        modifiers.append(Modifier("attacker running", tables.RUNNING_ATTACK))
    if request.from_moving_vehicle:
        modifiers.append(Modifier("firing from a moving vehicle", tables.MOVING_VEHICLE_ATTACK))
    if request.in_melee:
        modifiers.append(Modifier("attacker in melee", tables.IN_MELEE_ATTACK))
    if (request.off_hand or request.second_weapon is not None) and not request.ambidextrous:
        modifiers.append(Modifier("off-hand weapon", tables.OFF_HAND_ATTACK))
    if request.through_camera:
        modifiers.append(Modifier("firing from cover through a camera", tables.CAMERA_ATTACK))
    if aim_dice != 0:
        modifiers.append(Modifier("aimed", aim_dice))
    if recoil.penalty != 0:
        modifiers.append(Modifier("recoil", recoil.penalty))
    if request.edge == "push_the_limit":
        modifiers.append(Modifier("Edge: Push the Limit", attacker.edge))
    return modifiers


def _target_attack_modifiers(
    request: SR5AttackRequest,
    share: int,
    band: RangeBand,
    target: SR5Target,
    range_shift: bool,
) -> list[Modifier]:
    several = len(request.targets) > 1
    modifiers = [Modifier("share of the pool" if several else "pool", share)]
    conditions = environment(request, band, target.distance_m, range_shift)
    if conditions.modifier is not None:
        modifiers.append(conditions.modifier)
    # The guide: blind fire is the total darkness modifier; the two do not add up.
    if target.cover == "full" and not conditions.total_darkness:
        modifiers.append(
            Modifier("blind fire (target fully behind cover)", tables.BLIND_FIRE_MODIFIER)
        )
    if target.called_shot:
        modifiers.append(Modifier("called shot", tables.CALLED_SHOT_ATTACK))
    return modifiers


def _defense_modifiers(
    request: SR5AttackRequest,
    target: SR5Target,
    mode: tables.FiringMode,
    earlier_defenses: int,
    full_defense_bonus: Modifier | None,
) -> list[Modifier]:
    defender = target.defender
    modifiers = [Modifier("reaction", defender.reaction), Modifier("intuition", defender.intuition)]
    if full_defense_bonus is not None:
        modifiers.append(full_defense_bonus)
    modifiers.extend(wounds(defender))
    # Each situation that applies, in the order the result lists them.
    cover = tables.COVER_DEFENSE_MODIFIER[target.cover]
    if cover != 0:
        modifiers.append(Modifier(f"cover ({target.cover})", cover))
    if mode.defense_modifier != 0:
        modifiers.append(Modifier(f"firing mode {request.mode}", mode.defense_modifier))
    if request.choke is not None:
        modifiers.append(
            Modifier(f"flechette {request.choke} spread", tables.CHOKE_DEFENSE[request.choke])
        )
    if target.prone:
        modifiers.append(Modifier("defender prone", tables.PRONE_DEFENSE))
    if request.area_effect:
        modifiers.append(Modifier("area effect attack", tables.AREA_EFFECT_DEFENSE))
    if target.running:
        modifiers.append(Modifier("defender running", tables.RUNNING_DEFENSE))
    if target.in_moving_vehicle:
        modifiers.append(Modifier("defender in a moving vehicle", tables.MOVING_VEHICLE_DEFENSE))
    if target.in_melee:
        modifiers.append(Modifier("defender in melee", tables.IN_MELEE_DEFENSE))
    if earlier_defenses > 0:
        modifiers.append(
            Modifier(
                f"{earlier_defenses} earlier defense(s) since its last action",
                tables.EARLIER_DEFENSE * earlier_defenses,
            )
        )
    return modifiers


def gun(request: SR5AttackRequest, target: SR5Target) -> SR5Weapon:
    """The weapon that shoots at `target`: the second gun where the target says so."""
    if target.gun == "second" and request.second_weapon is not None:
        return request.second_weapon
    return request.weapon


def ammunition(
    request: SR5AttackRequest, target: SR5Target | None = None
) -> tuple[str, tables.Ammunition]:
    """The load's name and numbers: a standard ammunition, or the request's own."""
    load = request.second_ammo if target is not None and target.gun == "second" else request.ammo
    if isinstance(load, str):
        return load, tables.AMMUNITION[load]
    return "custom", tables.Ammunition(dv=load.dv, ap=load.ap, damage_type=load.damage_type)


def _damage_parts(
    request: SR5AttackRequest, target: SR5Target, net_hits: int
) -> tuple[list[Modifier], int, str]:
    """The guide, 3b: the gun's DV with its ammunition and the net hits, its AP and damage."""
    weapon = gun(request, target)
    name, load = ammunition(request, target)
    dv_modifiers = [Modifier("weapon", weapon.damage)]
    if load.dv:
        dv_modifiers.append(Modifier(f"ammunition ({name})", load.dv))
    dv_modifiers.append(Modifier("net hits", net_hits))
    ap = load.ap if load.replaces_ap else weapon.ap + load.ap
    return dv_modifiers, ap, load.damage_type or weapon.damage_type


def damage_test(request: SR5AttackRequest, target: SR5Target, net_hits: int) -> SoakTest:
    """The damage of a hit with `net_hits`, and the soak test it makes of the target."""
    return soak_test(*_damage_parts(request, target, net_hits), target)


def damage_of(
    request: SR5AttackRequest,
    target: SR5Target,
    net_hits: int,
    dice: Dice,
    soak_rolled: SR5Test | None = None,
) -> SR5Damage:
    return resist(*_damage_parts(request, target, net_hits), target, dice, soak_rolled)


def outcome_of(attack_hits: int, defense_hits: int) -> Literal["hit", "graze", "miss"]:
    """The guide, 3a: no hits is no attack; more hits than the defense hit, a tie grazes (the
    defender wins ties: contact, no damage), fewer miss."""
    if attack_hits == 0 or attack_hits < defense_hits:
        return "miss"
    return "hit" if attack_hits > defense_hits else "graze"


def contact_of(
    request: SR5AttackRequest, target: SR5Target, outcome: str
) -> tuple[bool, str | None]:
    """The guide: a graze touches the target; what needs contact only still happens. Whether
    it touched, and the weapon's contact effect if that happened."""
    touched = outcome == "hit" or outcome == "graze"
    contact_effect = gun(request, target).contact_effect
    return touched, (contact_effect if touched and contact_effect else None)


@dataclass(frozen=True, slots=True)
class TargetTests:
    """One target's tests as the attack builds them, before a die is rolled: what
    `resolve_attack` rolls and `odds.attack_odds` turns into distributions."""

    target: SR5Target
    share: int
    band: RangeBand
    step: str
    attack_modifiers: list[Modifier]
    attack_pool: int
    # The hits that count: up to the limit of the gun that shoots at this target, all of them
    # with Push the Limit (the guide: "unless you spend edge"), whose sixes explode.
    limit: int
    pushed: bool
    defender: SR5ActorState
    defense_modifiers: list[Modifier]
    defense_pool: int
    defense_limit: int | None

    def attack_hits(self, rolled: int) -> int:
        return rolled if self.pushed else min(rolled, self.limit)

    def defense_hits(self, rolled: int) -> int:
        return rolled if self.defense_limit is None else min(rolled, self.defense_limit)


@dataclass(frozen=True, slots=True)
class AttackTests:
    """The whole attack, built and checked, before a die is rolled."""

    mode: tables.FiringMode
    # The encounter after the shooter fired (its zones ended, its recoil, aims and phase).
    state: SR5State
    recoil: SR5Recoil
    modifiers: list[Modifier]
    pool: int
    limit_modifiers: list[Modifier]
    limit: int
    targets: list[TargetTests]
    # Suppressive fire: the zone's order, its DV, AP and damage type.
    zone_order: SR5ZoneOrder | None = None
    zone_damage: tuple[int, int, str] | None = None


def _target_tests(
    request: SR5AttackRequest,
    target: SR5Target,
    index: int,
    share: int,
    limit: int,
    mode: tables.FiringMode,
    defender: SR5ActorState,
    range_shift: bool,
) -> TargetTests:
    band = range_band(
        gun(request, target).category, target.distance_m, f"$.targets[{index}].distance_m"
    )
    attack_modifiers = _target_attack_modifiers(request, share, band, target, range_shift)
    bonus, defense_limit = full_defense(
        target, f"$.targets[{index}].defender", defender.full_defense
    )
    defense_modifiers = _defense_modifiers(request, target, mode, defender.defenses, bonus)
    return TargetTests(
        target=target,
        share=share,
        band=band,
        step=attack_step(request, target.id),
        attack_modifiers=attack_modifiers,
        attack_pool=_total(attack_modifiers),
        limit=limit,
        pushed=request.edge == "push_the_limit",
        defender=defender,
        defense_modifiers=defense_modifiers,
        defense_pool=_total(defense_modifiers),
        defense_limit=defense_limit,
    )


def _resolve_target(request: SR5AttackRequest, tests: TargetTests, dice: Dice) -> SR5TargetResult:
    target = tests.target
    attack = dice.pool(tests.step, tests.attack_pool, EDITION, explode=tests.pushed)
    attack_hits = tests.attack_hits(attack.hits)
    damage = None
    if attack_hits == 0:
        # No hits, no attack: the defender has nothing to roll against.
        defense = PoolRoll(tests.defense_pool, (), 0, 0, False, False)
    else:
        defense = dice.pool(f"defense:{target.id}", tests.defense_pool, EDITION)
        if tests.defense_hits(defense.hits) != defense.hits:
            defense = msgspec.structs.replace(defense, hits=tests.defense_hits(defense.hits))
    outcome = outcome_of(attack_hits, defense.hits)
    if outcome == "hit":
        damage = damage_of(request, target, attack_hits - defense.hits, dice)
    contact, contact_effect = contact_of(request, target, outcome)
    return SR5TargetResult(
        target=target.id,
        outcome=outcome,
        range=tests.band,
        share=tests.share,
        attack_modifiers=tests.attack_modifiers,
        attack=test_of(attack),
        attack_hits_before_limit=attack.hits,
        attack_hits=attack_hits,
        defense_hits=defense.hits,
        net_hits=max(0, attack_hits - defense.hits),
        defense=test_of(defense),
        defense_modifiers=tests.defense_modifiers,
        defense_limit=tests.defense_limit,
        contact=contact,
        contact_effect=contact_effect,
        damage=damage,
    )


def build_attack(request: SR5AttackRequest, state: SR5State, turn: TurnState) -> AttackTests:
    """Every check and every test of the attack, from the request and the encounter's state
    (recoil, aims, earlier defenses, full defense, zones), with no die rolled."""
    mode = _validate(request)
    attacker, weapon = request.attacker, request.weapon
    if request.edge != "none" and attacker.edge < 1:
        raise RuleViolation(
            f"{attacker.id} has no Edge to spend", path="$.attacker.edge", kind="no-edge"
        )
    # Firing again is doing something else: the shooter's zones end.
    state = suppression.end_zones_of(state, attacker.id)
    actors = dict(state.actors)
    shooter = actors.get(attacker.id, SR5ActorState())
    # The guide: one attack action per action phase (enforced once the VTT tracks phases).
    if turn.phase and shooter.attacked_in_phase == turn.phase:
        raise RuleViolation(
            f"{attacker.id} already attacked in this action phase; one attack action per phase",
            path="$.attacker.id",
            kind="already-attacked",
            status=409,
        )
    aim_accuracy, aim_dice = aim_bonuses(request, shooter)
    range_shift = shooter.range_shift
    recoil, shooter = _recoil(request, shooter, mode)
    # Firing uses up the aim and the locked range shift. The follow-ups (Second Chance) find
    # the attack by its event; a new attack starts afresh.
    actors[attacker.id] = msgspec.structs.replace(
        shooter,
        aims_for_accuracy=0,
        aims_for_dice=0,
        range_shift=False,
        attacked_in_phase=turn.phase,
        last_attack=SR5LastAttack(),
    )
    state = SR5State(actors=actors, zones=state.zones, zones_made=state.zones_made)

    suppressive = request.mode == "suppressive"
    if suppressive:
        recoil = msgspec.structs.replace(recoil, penalty=0)  # see tables: no recoil for it
    modifiers = _whole_attack_modifiers(request, recoil, aim_dice)
    pool = _total(modifiers)
    limit_modifiers = [Modifier("accuracy", weapon.accuracy)]
    if tables.SMARTLINK_ACCURACY[request.smartlink]:
        limit_modifiers.append(Modifier("smartlink", tables.SMARTLINK_ACCURACY[request.smartlink]))
    if aim_accuracy:
        limit_modifiers.append(Modifier("aimed", aim_accuracy))
    limit = _total(limit_modifiers)
    second = request.second_weapon
    # Each gun's own accuracy caps the hits on the targets it shoots at.
    second_limit = limit - weapon.accuracy + second.accuracy if second is not None else None

    zone_order = None
    zone_damage = None
    if suppressive:
        zone_order = suppression.check_suppressive(request, state)
        _, load = ammunition(request)
        zone_damage = (
            weapon.damage + load.dv,
            load.ap if load.replaces_ap else weapon.ap + load.ap,
            load.damage_type or weapon.damage_type,
        )
    shares = (
        split_pool(pool, [t.id for t in request.targets], request.larger_shares)
        if request.targets
        else {}
    )
    targets = [
        _target_tests(
            request,
            target,
            index,
            shares[target.id],
            second_limit if target.gun == "second" and second_limit is not None else limit,
            mode,
            actors.get(target.id, SR5ActorState()),
            range_shift,
        )
        for index, target in enumerate(request.targets)
    ]
    return AttackTests(
        mode=mode,
        state=state,
        recoil=recoil,
        modifiers=modifiers,
        pool=pool,
        limit_modifiers=limit_modifiers,
        limit=limit,
        targets=targets,
        zone_order=zone_order,
        zone_damage=zone_damage,
    )


def resolve_attack(
    request: SR5AttackRequest, state: SR5State, turn: TurnState, dice: Dice
) -> Resolution[SR5AttackResult]:
    """The attack of `build_attack`, rolled: the zone's test, or each target's attack, defense
    and soak tests in turn."""
    tests = build_attack(request, state, turn)
    state = tests.state
    zone = None
    if tests.zone_order is not None and tests.zone_damage is not None:
        zone, state = suppression.suppressive_fire(
            request, state, tests.zone_order, tests.modifiers, tests.limit, tests.zone_damage, dice
        )
    actors = dict(state.actors)
    targets = []
    for target_tests in tests.targets:
        targets.append(_resolve_target(request, target_tests, dice))
        if targets[-1].attack_hits > 0:  # the defender rolled a defense test
            actors[target_tests.target.id] = defended(target_tests.defender)

    attacker, weapon, mode = request.attacker, request.weapon, tests.mode
    second = request.second_weapon
    result = SR5AttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        action=mode.action,
        rounds_fired=mode.rounds,
        ammo_left=weapon.ammo - mode.rounds,
        second_rounds_fired=mode.rounds if second is not None else 0,
        second_ammo_left=second.ammo - mode.rounds if second is not None else None,
        pool=tests.pool,
        modifiers=tests.modifiers,
        limit=tests.limit,
        limit_modifiers=tests.limit_modifiers,
        recoil=tests.recoil,
        edge_spent=1 if request.edge != "none" else 0,
        targets=targets,
        zone=zone,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(
        result=result,
        state=SR5State(actors=actors, zones=state.zones, zones_made=state.zones_made),
        actor=attacker.id,
    )


def defended(defender: SR5ActorState) -> SR5ActorState:
    """One more defense since the defender's last action (-1 die each), counted up to where no
    defense pool is left to take it from."""
    return msgspec.structs.replace(
        defender, defenses=min(defender.defenses + 1, tables.MAX_DEFENSES_COUNTED)
    )
