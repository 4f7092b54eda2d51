"""Shadowrun 4 ranged attacks (001_2cfc288dfef1df08.txt, "The Combat Sequence"): the attack
built from its pool (modifiers.py: what is fired, recoil per action phase, every modifier) and
rolled against each target's defense (opposed.py: the defense test, ties to the defender, a
graze on the GM's rule, damage against armour and its resistance).

Shotgun spreads and full bursts at several targets, two guns, and the hand-over of grenades to
service/rules/sr4/grenades.py live here too; suppressive fire in suppression.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import msgspec

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.sr4 import (
    SR4ActorState,
    SR4AttackRequest,
    SR4AttackResult,
    SR4LastAttack,
    SR4Recoil,
    SR4State,
    SR4Target,
    SR4TargetResult,
    SR4Test,
)
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr4 import grenade_attack as grenades
from service.rules.sr4 import tables
from service.rules.sr4.modifiers import (
    Fired,
    attribute,
    choke_of,
    fired,
    gun_of,
    lessened,
    movement_and_recoil,
    range_band,
    recoil,
    skill,
    target_modifiers,
    total,
    validate,
    visibility,
    whole_modifiers,
)
from service.rules.sr4.opposed import (
    EDITION,
    NO_ROLL,
    Harm,
    defended,
    defense_modifiers,
    harm_of,
    outcome_of,
    resist,
    test_of,
)
from service.rules.sr4.tables import RangeBand

# --- the attack -------------------------------------------------------------------------------


def attack_step(request: SR4AttackRequest, target_id: str, one_test: bool) -> str:
    return "attack" if one_test or len(request.targets) == 1 else f"attack:{target_id}"


def dice_steps(request: SR4AttackRequest) -> dict[str, int]:
    if request.mode == "suppressive":
        return {"suppression": 6}
    steps = {"attack": 6}
    for target in request.targets:
        steps[f"attack:{target.id}"] = 6
        steps[f"defense:{target.id}"] = 6
        steps[f"soak:{target.id}"] = 6
    if request.grenade is not None:
        steps.update(grenades.grenade_steps(request))
    return steps


@dataclass(frozen=True, slots=True)
class Phase:
    """The attacker's place in its action phase: this attack's number, and what came before."""

    shot: int
    actor: SR4ActorState


def phase_of(request: SR4AttackRequest, actor: SR4ActorState, turn: TurnState) -> Phase:
    same = (turn.phase != 0 and actor.phase == turn.phase) or (
        turn.phase == 0 and request.same_phase and actor.attacks_in_phase > 0
    )
    if not same:
        actor = msgspec.structs.replace(
            actor,
            phase=turn.phase,
            attacks_in_phase=0,
            single_shot_in_phase=False,
            long_burst_in_phase=False,
            complex_in_phase=False,
            targets_in_phase=[],
        )
    row = tables.FIRING_MODES[request.mode]
    conflict = None
    if actor.complex_in_phase:
        conflict = "a complex attack already filled this action phase"
    elif actor.attacks_in_phase >= 2:
        conflict = "two simple actions already fired in this action phase"
    elif row.action == "complex" and actor.attacks_in_phase:
        conflict = f"{request.mode} is a complex action: the phase already had an attack"
    elif request.mode == "LB" and actor.long_burst_in_phase:
        conflict = "only one long burst can be fired in an action phase (001)"
    elif request.mode == "SS" and actor.single_shot_in_phase:
        conflict = "a single-shot weapon cannot be fired again in the same action phase (001)"
    if conflict:
        raise RuleViolation(
            f"{request.attacker.id}: {conflict}",
            path="$.mode",
            kind="phase-full",
            status=409,
        )
    return Phase(shot=actor.attacks_in_phase + 1, actor=actor)


@dataclass(slots=True)
class AttackPlan:
    """An attack as far as it is built before a die is rolled (resolve_attack rolls it, odds.py
    turns it into distributions): the shooter's phase, what is fired, the modifiers of the
    whole attack, recoil, the two guns' shares, and whom the phase engaged so far (grown by
    `plan_target` as each target is built, in order)."""

    request: SR4AttackRequest
    before: SR4ActorState
    phase: Phase
    firing: Fired
    whole: list[Modifier]
    first_recoil: SR4Recoil
    second_recoil: SR4Recoil | None
    second_firing: Fired | None
    locked_on: str | None
    engaged: list[str]
    base_pool: int
    shares: dict[str, int]
    choke: str | None
    spread: bool
    splits: tuple[str, ...] | None
    defenders: dict[str, SR4ActorState]

    @property
    def shooter(self) -> SR4ActorState:
        return self.phase.actor


def plan_attack(request: SR4AttackRequest, state: SR4State, turn: TurnState) -> AttackPlan:
    """Everything the attack checks and counts before its first die, in resolve's order."""
    attacker, weapon = request.attacker, request.weapon
    before = state.actors.get(attacker.id, SR4ActorState())
    choke = choke_of(request, before)
    validate(request, choke)
    phase = phase_of(request, before, turn)
    shooter = phase.actor
    firing = fired(request.mode, weapon.ammo)
    whole = [skill(request), *whole_modifiers(request, shooter.aims)]

    second = request.second_weapon
    first_recoil = recoil(firing.row, firing.name, phase.shot, firing.short, weapon)
    second_recoil = None
    second_firing = None
    if second is not None:
        second_firing = fired(request.mode, second.ammo)
        second_alone = recoil(
            second_firing.row, second_firing.name, phase.shot, second_firing.short, second
        )
        # 001: one gun's uncompensated recoil applies to the other too.
        second_recoil = msgspec.structs.replace(
            second_alone,
            other_gun=first_recoil.uncompensated,
            penalty=second_alone.uncompensated + first_recoil.uncompensated,
        )
        first_recoil = msgspec.structs.replace(
            first_recoil,
            other_gun=second_alone.uncompensated,
            penalty=first_recoil.uncompensated + second_alone.uncompensated,
        )

    # A running attacker or a moving target breaks the image magnification lock (001).
    locked_on = None if request.running else shooter.locked_on
    base_pool = attribute(request, None).value + whole[0].value
    shares: dict[str, int] = {}
    if second is not None:
        first_dice = (
            request.first_gun_dice
            if request.first_gun_dice is not None
            else math.ceil(base_pool / 2)
        )
        if first_dice > base_pool:
            raise RuleViolation(
                f"the pool is {base_pool} dice; the first gun cannot take {first_dice}",
                path="$.first_gun_dice",
                kind="uneven-split",
            )
        shares = {"first": first_dice, "second": base_pool - first_dice}
    if request.mode == "suppressive":
        # 001: its wide burst and recoil cancel out; running (and gyro-stabilisation) stand.
        first_recoil = recoil(firing.row, "suppressive", 1, 0, weapon)
    splits = (
        tables.FULL_BURST_SPLITS[len(request.targets)]
        if request.mode == "FB" and choke is None and second is None and request.targets
        else None
    )
    return AttackPlan(
        request=request,
        before=before,
        phase=phase,
        firing=firing,
        whole=whole,
        first_recoil=first_recoil,
        second_recoil=second_recoil,
        second_firing=second_firing,
        locked_on=locked_on,
        engaged=list(shooter.targets_in_phase),
        base_pool=base_pool,
        shares=shares,
        choke=choke,
        spread=choke is not None and len(request.targets) > 1,
        splits=splits,
        defenders=dict(state.actors),
    )


def suppressive_modifiers(plan: AttackPlan) -> list[Modifier]:
    """Suppressive fire's success test: Agility + skill, the whole attack's modifiers, and
    running (its recoil cancels with its wide burst, 001)."""
    request = plan.request
    return [
        attribute(request, None),
        *plan.whole,
        *movement_and_recoil(request, request.weapon, plan.first_recoil),
    ]


@dataclass(frozen=True, slots=True)
class TargetPlan:
    """One target's tests as built: its attack test (a spread's later targets share the
    first's), its defense, and what a hit does before the net hits."""

    target: SR4Target
    band: RangeBand
    as_mode: str
    modifiers: list[Modifier]
    pool: int
    step: str
    explode: bool
    defense_modifiers: list[Modifier]
    defense_pool: int
    harm: Harm

    @property
    def defense_explodes(self) -> bool:
        return self.target.edge


def plan_target(plan: AttackPlan, index: int, target: SR4Target) -> TargetPlan:
    """The target's tests, checked and counted without rolling; call in the targets' order
    (each engages its target in the phase: -2 for each earlier one, 001)."""
    request = plan.request
    attacker, weapon = request.attacker, request.weapon
    path = f"$.targets[{index}]"
    gun = gun_of(request, target)
    band = range_band(gun.category, target.distance_m, attacker.strength, f"{path}.distance_m")
    engaged = plan.engaged
    if target.id not in engaged:
        engaged.append(target.id)
    earlier_targets = engaged.index(target.id)
    splits = plan.splits
    if splits is not None and len(splits) > 1:
        as_mode = splits[index]
        row = tables.FIRING_MODES[as_mode]
        this_recoil = recoil(row, as_mode, 1 if index == 0 else 2, 0, weapon)
    else:
        as_mode, row = plan.firing.name, plan.firing.row
        this_recoil = (
            plan.second_recoil
            if (target.gun == "second" and plan.second_recoil)
            else plan.first_recoil
        )
        if target.gun == "second" and plan.second_firing is not None:
            as_mode, row = plan.second_firing.name, plan.second_firing.row
    short = plan.firing.short if splits is None or len(splits) == 1 else 0
    locked = plan.locked_on == target.id and not target.moved
    modifiers = []
    second = request.second_weapon
    if second is not None:
        modifiers.append(Modifier(f"{target.gun} gun's share of the pool", plan.shares[target.gun]))
    else:
        modifiers.append(attribute(request, target))
    modifiers.extend(
        target_modifiers(request, target, index, band, locked, earlier_targets, plan.spread)
    )
    modifiers.extend(movement_and_recoil(request, gun, this_recoil))
    pool = total(modifiers) + total(plan.whole[1:] if second is not None else plan.whole)
    step = attack_step(request, target.id, plan.spread or plan.choke is not None)
    choke = plan.choke
    defender_state = plan.defenders.get(target.id, SR4ActorState())
    wide = lessened(row.wide_defense, short) if row.burst and request.burst == "wide" else 0
    burst_dv = lessened(row.narrow_dv, short) if row.burst and request.burst == "narrow" else 0
    choke_defense = tables.CHOKES[choke].defense if choke is not None else 0
    defense_mods = defense_modifiers(
        target.defender, defender_state, wide, choke_defense, target.edge
    )
    if target.edge and target.defender.edge < 1:
        raise RuleViolation(f"{target.id} has no Edge to spend", path="$.targets", kind="no-edge")
    return TargetPlan(
        target=target,
        band=band,
        as_mode=as_mode,
        modifiers=modifiers,
        pool=pool,
        step=step,
        explode=request.edge == "extra_dice",
        defense_modifiers=defense_mods,
        defense_pool=max(0, total(defense_mods)),
        harm=harm_of(request, target, burst_dv, choke),
    )


def resolve_attack(
    request: SR4AttackRequest, state: SR4State, turn: TurnState, dice: Dice
) -> Resolution[SR4AttackResult]:
    from service.rules.sr4 import suppression

    attacker, weapon = request.attacker, request.weapon
    plan = plan_attack(request, state, turn)
    actors = dict(state.actors)
    # A new attack is the shooter's next action: its suppressive fire ends (001).
    state = suppression.end_zones_of(state, attacker.id)
    phase, shooter, firing = plan.phase, plan.shooter, plan.firing
    whole, locked_on, engaged = plan.whole, plan.locked_on, plan.engaged
    second, second_firing = request.second_weapon, plan.second_firing
    result_targets: list[SR4TargetResult] = []
    zone = None

    if request.mode == "suppressive":
        zone, state = suppression.suppressive_fire(
            request, state, suppressive_modifiers(plan), dice
        )
        rounds = firing.rounds
    elif request.grenade is not None:
        throw = plan_throw(request, whole, actors, locked_on, engaged, phase.shot)
        attack = roll_throw(throw, actors, dice)
        thrown = grenades.resolve_grenade(request, state, turn, dice, attack)
        actors[attacker.id] = msgspec.structs.replace(
            shooter,
            attacks_in_phase=phase.shot,
            targets_in_phase=engaged[:40],
            aims=0,
            locked_on=locked_on,
            last_attack=SR4LastAttack(),
        )
        after = msgspec.structs.replace(thrown.state, actors=actors)
        return Resolution(result=thrown.result, state=after, actor=attacker.id, notes=thrown.notes)
    else:
        one_test: SR4Test | None = None
        one_roll_modifiers: list[Modifier] | None = None
        for index, target in enumerate(request.targets):
            built = plan_target(plan, index, target)
            modifiers = built.modifiers
            if one_test is not None and one_roll_modifiers is not None:
                test, modifiers = one_test, one_roll_modifiers  # 001: one attack test against all
            elif built.pool <= 0:
                test = SR4Test(built.pool, 0, 0, False, False)  # 001: 0 or less fails outright
            else:
                test = test_of(dice.pool(built.step, built.pool, EDITION, explode=built.explode))
            if plan.spread:
                one_test, one_roll_modifiers = test, modifiers
            result_targets.append(_opposed(request, built, modifiers, test, dice))
            if result_targets[-1].defense is not None:
                actors[target.id] = defended(actors.get(target.id, SR4ActorState()))
        rounds = firing.rounds

    row = tables.FIRING_MODES[request.mode]
    actors[attacker.id] = msgspec.structs.replace(
        shooter,
        attacks_in_phase=phase.shot,
        single_shot_in_phase=shooter.single_shot_in_phase or request.mode == "SS",
        long_burst_in_phase=shooter.long_burst_in_phase or request.mode == "LB",
        complex_in_phase=row.action == "complex",
        targets_in_phase=engaged[:40],
        aims=0,
        locked_on=locked_on,
        last_attack=SR4LastAttack(),
    )
    edge_spent = 0
    if request.edge == "extra_dice":
        edge_spent = 1
    edge_spent += sum(t.edge_spent for t in result_targets)
    result = SR4AttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        burst=request.burst if tables.FIRING_MODES[firing.name].burst else None,
        action=row.action,
        rounds_fired=rounds,
        ammo_left=weapon.ammo - rounds,
        second_rounds_fired=second_firing.rounds if second_firing is not None else 0,
        second_ammo_left=(
            second.ammo - second_firing.rounds
            if second is not None and second_firing is not None
            else None
        ),
        pool=plan.base_pool,
        shares=plan.shares,
        modifiers=whole,
        recoil=plan.first_recoil,
        second_recoil=plan.second_recoil,
        edge_spent=edge_spent,
        targets=result_targets,
        zone=zone,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(
        result=result, state=msgspec.structs.replace(state, actors=actors), actor=attacker.id
    )


def _opposed(
    request: SR4AttackRequest,
    built: TargetPlan,
    modifiers: list[Modifier],
    test: SR4Test,
    dice: Dice,
) -> SR4TargetResult:
    target = built.target
    defense = None
    defense_hits = 0
    if test.hits > 0:
        roll = dice.pool(
            f"defense:{target.id}", built.defense_pool, EDITION, explode=built.defense_explodes
        )
        defense = test_of(roll)
        defense_hits = defense.hits
    outcome = outcome_of(test.hits, defense_hits, request.grazing)
    net = max(0, test.hits - defense_hits)
    harm = built.harm
    hurt = None
    if outcome == "hit":
        hurt = resist(
            harm.step,
            harm.with_net(net),
            harm.burst_dv,
            harm.ap,
            harm.damage_type,
            harm.kind,
            harm.defender,
            dice,
        )
    contact = outcome != "miss"
    effect = gun_of(request, target).contact_effect
    return SR4TargetResult(
        target=target.id,
        outcome=outcome,
        range=built.band,
        fired_as=built.as_mode,
        attack_modifiers=modifiers,
        attack=test,
        defense=defense,
        defense_modifiers=built.defense_modifiers,
        defense_hits=defense_hits,
        net_hits=net,
        contact=contact,
        contact_effect=effect if contact and effect else None,
        damage=hurt,
        edge_spent=1 if target.edge and defense is not None else 0,
    )


@dataclass(frozen=True, slots=True)
class Throw:
    """A grenade's attack test as built (001, "Determine Scatter"): a standard ranged attack
    test opposed by the target, or a success test at a point (`target` None)."""

    modifiers: list[Modifier]
    pool: int
    explode: bool
    band: RangeBand
    recoil: SR4Recoil
    target: SR4Target | None
    defense_modifiers: list[Modifier]
    defender: SR4ActorState

    @property
    def defense_pool(self) -> int:
        return max(0, total(self.defense_modifiers))


def plan_throw(
    request: SR4AttackRequest,
    whole: list[Modifier],
    actors: dict[str, SR4ActorState],
    locked_on: str | None,
    engaged: list[str],
    shot_in_phase: int,
) -> Throw:
    """001, "Determine Scatter": a standard ranged attack test with the standard modifiers,
    opposed by the target's defense; a success test when aimed at a point. The standard
    modifiers hold recoil: a launcher's second semi-automatic launch in an action phase
    (`shot_in_phase` 2) takes the mode's second-shot recoil, as a gun's would."""
    attacker, weapon = request.attacker, request.weapon
    firing = tables.FIRING_MODES[request.mode]
    still = recoil(firing, request.mode, shot_in_phase, 0, weapon)
    extra = movement_and_recoil(request, weapon, still)
    explode = request.edge == "extra_dice"
    if request.aim_point is not None:
        if request.origin is None:
            raise RuleViolation(
                "a grenade aimed at a point needs the thrower's origin (or its position on the "
                "scene)",
                path="$.origin",
                kind="position-unknown",
            )
        distance = math.hypot(
            request.aim_point.x - request.origin.x, request.aim_point.y - request.origin.y
        )
        band = range_band(
            weapon.category, distance, attacker.strength, "$.aim_point", _arming(request)
        )
        modifiers = [attribute(request, None), *whole, *extra, *visibility(request)]
        if tables.RANGE_MODIFIER[band]:
            modifiers.append(Modifier(f"range: {band}", tables.RANGE_MODIFIER[band]))
        return Throw(modifiers, total(modifiers), explode, band, still, None, [], SR4ActorState())
    target = request.targets[0]
    band = range_band(
        weapon.category,
        target.distance_m,
        attacker.strength,
        "$.targets[0].distance_m",
        _arming(request),
    )
    if target.id not in engaged:
        engaged.append(target.id)
    locked = locked_on == target.id and not target.moved
    modifiers = [
        attribute(request, target),
        *whole,
        *target_modifiers(request, target, 0, band, locked, engaged.index(target.id), False),
        *extra,
    ]
    defender = actors.get(target.id, SR4ActorState())
    defense_mods = defense_modifiers(target.defender, defender, 0, 0, target.edge)
    return Throw(modifiers, total(modifiers), explode, band, still, target, defense_mods, defender)


def roll_throw(
    throw: Throw, actors: dict[str, SR4ActorState], dice: Dice
) -> grenades.GrenadeAttack:
    """The throw's test and, against a target with hits to beat, its defense."""
    pool = throw.pool
    test = (
        test_of(dice.pool("attack", pool, EDITION, explode=throw.explode)) if pool > 0 else NO_ROLL
    )
    target = throw.target
    defense = None
    if target is not None and test.hits > 0:
        defense = test_of(
            dice.pool(f"defense:{target.id}", throw.defense_pool, EDITION, explode=target.edge)
        )
        actors[target.id] = defended(throw.defender)
    return grenades.GrenadeAttack(
        pool=max(0, pool),
        modifiers=throw.modifiers,
        test=test,
        defense=defense,
        defense_modifiers=throw.defense_modifiers,
        net_hits=max(0, test.hits - (defense.hits if defense is not None else 0)),
        range=throw.band,
        recoil=throw.recoil,
        edge_spent=(1 if throw.explode else 0)
        + (1 if target is not None and target.edge and defense is not None else 0),
    )


def _arming(request: SR4AttackRequest) -> float | None:
    """A grenade launcher's minimum range is its grenade's arming range (001, "Grenade
    Launcher Minimum Range"): the table's 5 m, or the grenade's `arming_m` once an Armorer has
    taken the safety off (0)."""
    grenade = request.grenade
    if grenade is None or request.weapon.category != "grenade_launcher":
        return None
    return grenade.arming_m
