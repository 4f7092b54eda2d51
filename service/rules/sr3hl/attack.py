"""Hard Life attacks: an aimed shot, a burst or full auto at one target (004, "Ranged Combat",
"Automatic fire and Scatter"), or suppression fire over an area (suppression.py). SR3's range
bands, base target numbers, situation modifiers and Combat Pool (service/rules/sr3) as they
are; Hard Life's wounds, called shots at a location, dodge, scatter, per-round recoil and what
the rounds do (hits.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

import msgspec

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.sr3 import SR3Test
from schemas.sr3hl import (
    Hex,
    HLActorState,
    HLAttackRequest,
    HLAttackResult,
    HLPoolSpent,
    HLRound,
    HLScatter,
    HLState,
    HLTarget,
    HLTargetResult,
    Location,
    ScatterDirection,
)
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3 import pool
from service.rules.sr3 import tables as sr3_tables
from service.rules.sr3.tables import RangeBand
from service.rules.sr3hl import (
    able,
    actions,
    armor,
    body,
    condition,
    dodge,
    hits,
    suppression,
    tables,
)

ATTACK_STEP = sr3_attack.ATTACK_STEP
AUTOFIRE_MODES = frozenset({"BF", "FA"})


def scatter_step(target_id: str) -> str:
    return f"scatter:{target_id}"


def dice_steps(request: HLAttackRequest) -> dict[str, int]:
    """Every step the attack may roll, all d6 (suppression fire rolls nothing when it is
    fired: its zone tests roll)."""
    if request.target is None:
        return {}
    t = request.target.id
    return {
        ATTACK_STEP: 6,
        dodge.step(t): 6,
        scatter_step(t): 6,
        hits.armor_step(t): 6,
        hits.lacing_step(t): 6,
        hits.damage_step(t): 6,
        hits.stun_step(t): 6,
        hits.recovery_step(t): 6,
    }


def _validate(request: HLAttackRequest) -> HLTarget:
    if request.target is not None and request.suppression is not None:
        raise RuleViolation(
            "an attack is aimed at a target or is suppression fire over an area, not both",
            path="$.suppression",
        )
    if request.target is None:
        raise RuleViolation(
            "an attack needs a target (or suppression for suppression fire)", path="$.target"
        )
    sr3_attack.validate_fire(request)
    if request.target.id == request.attacker.id:
        raise RuleViolation("an attacker does not shoot itself", path="$.target.id")
    return request.target


def _in_phase(actor: HLActorState, turn: TurnState) -> HLActorState:
    """Recoil and targets count within one action phase (as sr3's)."""
    if actor.phase == turn.phase:
        return actor
    return msgspec.structs.replace(actor, phase=turn.phase, rounds_in_phase=0, targets_in_phase=[])


def round_target_numbers(
    request: HLAttackRequest, base: int, rounds_before: int, rounds: int
) -> list[int]:
    """004, "Automatic fire": recoil is 1 a bullet after the first; the rounds the recoil
    compensation covers go at the base target number, each further round +1 (heavy weapons
    +2). Rounds fired earlier in the phase count as bullets before these (**choice**, as SR3's
    recoil carries over a phase)."""
    weapon = request.weapon
    heavy = weapon.category in sr3_tables.HEAVY_WEAPONS
    per = tables.HEAVY_ROUND_TARGET_NUMBER_STEP if heavy else tables.ROUND_TARGET_NUMBER_STEP
    return [
        base + per * max(0, rounds_before + i - weapon.recoil_compensation) for i in range(rounds)
    ]


def tier_successes(totals: Sequence[int], target_numbers: Sequence[int]) -> list[int]:
    """Each round's successes: the dice whose totals reach its target number but not the next
    higher round's; the last (highest) takes every die at or above its own (the Whisper
    example: 4,4,4,4,5,5,6 at 4,4,4,5,6 gives 4,4,4,2,1)."""
    found = []
    for tn in target_numbers:
        higher = [n for n in target_numbers if n > tn]
        ceiling = min(higher) if higher else None
        found.append(sum(1 for v in totals if v >= tn and (ceiling is None or v < ceiling)))
    return found


def scatter_hexes(successes: int, area: bool) -> int:
    """004, Table 1 (README: a tie scatters 4): the hexes a round with these successes
    scatters; area effects strike the whole body and do not scatter (**choice**)."""
    return 0 if area else body.scatter_hexes(successes)


def _scatter(dice: Dice, target_id: str, at: Hex, successes: int, area: bool) -> HLScatter:
    """The round scatters `scatter_hexes` from `at`, in the direction of a d6 (1 up, then
    clockwise)."""
    hexes = scatter_hexes(successes, area)
    direction: ScatterDirection | None = None
    path: list[Hex] = []
    landed = at
    if hexes:
        direction = cast(ScatterDirection, dice.roll(scatter_step(target_id), 1)[0])
        path = body.step(at, direction, hexes)
        landed = path[-1]
    return HLScatter(
        aim=at,
        successes=successes,
        hexes=hexes,
        direction=direction,
        path=path,
        landed=landed,
        location=body.location_at(landed),
    )


def _rounds(
    dice: Dice,
    target_id: str,
    aim: Hex,
    target_numbers: list[int],
    successes: list[int],
    before_dodge: list[int],
    area: bool,
) -> list[HLRound]:
    """Each round in order: a miss (no success), dodged (none left after the dodge), or it
    scatters from where the previous hitting round landed (the first from the aim point)."""
    rounds = []
    at = aim
    for i, (tn, got, had) in enumerate(zip(target_numbers, successes, before_dodge, strict=True)):
        if had <= 0 and got <= 0:
            rounds.append(HLRound(round=i + 1, target_number=tn, successes=0, outcome="miss"))
            continue
        if got == 0 and len(target_numbers) > 1:
            rounds.append(HLRound(round=i + 1, target_number=tn, successes=0, outcome="dodged"))
            continue
        scatter = _scatter(dice, target_id, at, got, area)
        at = scatter.landed
        location = scatter.location
        rounds.append(
            HLRound(
                round=i + 1,
                target_number=tn,
                successes=got,
                outcome="hit" if location is not None else "off_body",
                scatter=scatter,
                location=location,
            )
        )
    return rounds


def is_clean_miss(successes: int, dodged: int) -> bool:
    """004, "Resolve Dodge Test": a clean miss when the dodge's successes exceed the attack's
    (README: a tie is no clean miss; it scatters 4)."""
    return successes > 0 and dodged > successes


def _without_highest(totals: Sequence[int], taken: int) -> list[int]:
    """004, "Automatic fire": the dodge's successes take the attacker's highest dice first."""
    kept = sorted(totals, reverse=True)[taken:]
    return kept


@dataclass(frozen=True, slots=True)
class AttackBuild:
    """An aimed attack as it stands before any die is rolled: every refusal made, the state
    read (recoil, aims, targets this phase, the pools, the armour worn), every modifier and
    target number. resolve_attack rolls it; odds.py turns it into a distribution."""

    target: HLTarget
    band: RangeBand
    rounds: int
    autofire: bool
    # The shooter (in its phase, pools counted, nothing spent yet) and the target (counted and
    # checked for the dodge and the Body roll's dice, nothing spent yet).
    shooter: HLActorState
    victim: HLActorState
    targets_seen: list[str]
    modifiers: list[Modifier]
    base_target_number: int
    # Each round's target number (one for a single shot).
    target_numbers: list[int]
    # The attack test's dice: skill + committed Combat Pool.
    count: int
    aim_location: Location
    aim: Hex


def build_attack(request: HLAttackRequest, state: HLState, turn: TurnState) -> AttackBuild:
    """Everything of an aimed attack (not suppression fire) that needs no dice, with every
    refusal the attack makes before it rolls."""
    target = _validate(request)
    attacker = request.attacker
    actors = state.actors
    able.check_able(
        attacker.id, actors.get(attacker.id), turn, "attack", "$.attacker", attacker.limbs
    )
    band = sr3_attack.range_band(request, target.distance_m)
    rounds = sr3_attack.rounds_of(request)
    autofire = request.mode in AUTOFIRE_MODES

    # The Combat Pools: counted from the request (the overall armour's penalty, 004 Table 7).
    shooter = _in_phase(actors.get(attacker.id, HLActorState()), turn)
    attacker_worn = shooter.armor if shooter.armor is not None else attacker.armor
    shooter = pool.counted(
        shooter,
        pool.pool_size(
            attacker.combat_pool,
            attacker.quickness,
            attacker.intelligence,
            attacker.willpower,
            armor.for_pool(attacker_worn, attacker.quickness),
        ),
    )
    pool.check_commit(attacker.id, shooter, request.pool, "$.pool", "$.attacker.combat_pool")
    victim = dodge.check(
        target.id,
        target.defender,
        actors.get(target.id, HLActorState()),
        target.dodge,
        "$.target.dodge",
        "$.target.defender",
        target.resist,
    )

    # The attack test at the base target number (004: autofire's recoil is per round).
    targets_seen = list(shooter.targets_in_phase)
    if target.id not in targets_seen:
        targets_seen.append(target.id)
    recoil_now = None if autofire else sr3_attack.recoil(request, shooter.rounds_in_phase, rounds)
    injury = condition.injury_modifier(shooter.monitors, attacker.limbs)
    modifiers = [
        *sr3_attack.base_modifiers(request, band),
        *sr3_attack.situation_modifiers(
            request,
            target.cover,
            target.movement,
            Modifier("injury (worst wound)", injury) if injury else None,
            recoil_now.modifier if recoil_now is not None else 0,
            len(targets_seen),
            shooter.aims,
        ),
    ]
    base_tn = sr3_attack.target_number(modifiers)
    if autofire:
        target_numbers = round_target_numbers(request, base_tn, shooter.rounds_in_phase, rounds)
    else:
        target_numbers = [base_tn]
    aim_location: Location = request.called_shot or body.DEFAULT_AIM_LOCATION
    return AttackBuild(
        target=target,
        band=band,
        rounds=rounds,
        autofire=autofire,
        shooter=shooter,
        victim=victim,
        targets_seen=targets_seen,
        modifiers=modifiers,
        base_target_number=base_tn,
        target_numbers=target_numbers,
        count=attacker.skill + request.pool,
        aim_location=aim_location,
        aim=body.AIM_POINTS[aim_location],
    )


def resolve_attack(
    request: HLAttackRequest, state: HLState, turn: TurnState, dice: Dice
) -> Resolution[HLAttackResult]:
    if request.suppression is not None and request.target is None:
        return suppression.fire(request, state, turn, dice)
    return roll_attack(request, state, turn, build_attack(request, state, turn), dice)


def roll_attack(
    request: HLAttackRequest, state: HLState, turn: TurnState, built: AttackBuild, dice: Dice
) -> Resolution[HLAttackResult]:
    """The aimed attack `built` (build_attack of the same request, state and turn) rolled."""
    target, band, rounds, autofire = built.target, built.band, built.rounds, built.autofire
    attacker, weapon = request.attacker, request.weapon
    defender = target.defender
    actors = dict(state.actors)
    shooter, victim, targets_seen = built.shooter, built.victim, built.targets_seen
    modifiers, base_tn, target_numbers = (
        built.modifiers,
        built.base_target_number,
        built.target_numbers,
    )
    count = built.count
    # Rolled against the highest round's number, so the Rule of Six reaches it. Counts of
    # successes stand for the dice only where every round has the one target number: autofire's
    # tiers read each die's total.
    roll = dice.target_number_test(
        ATTACK_STEP, count, max(target_numbers), counts=set(target_numbers) == {base_tn}
    )
    totals = [] if roll.all_ones else list(roll.totals)
    attack = SR3Test(
        dice=max(count, 0),
        pool_dice=request.pool,
        target_number=base_tn,
        modifiers=modifiers,
        totals=list(roll.totals),
        successes=sum(1 for v in totals if v >= base_tn),
        rule_of_one=roll.all_ones,
    )
    shooter = pool.spend(shooter, request.pool)

    # The dodge (004, Table 8; +1 per 3 rounds).
    dodge_test = None
    if attack.successes > 0:
        dodge_test, victim = dodge.dodge(
            target.id,
            defender,
            victim,
            target.dodge,
            rounds,
            weapon.area_effect,
            dice,
            "$.target.dodge",
        )
    dodged = dodge_test.successes if dodge_test is not None else 0
    aim_location, aim = built.aim_location, built.aim
    clean_miss = is_clean_miss(attack.successes, dodged)
    if attack.successes == 0 or clean_miss:
        shots = [
            HLRound(
                round=i + 1,
                target_number=tn,
                successes=0,
                outcome="dodged" if clean_miss else "miss",
            )
            for i, tn in enumerate(target_numbers)
        ]
    elif autofire:
        before = tier_successes(totals, target_numbers)
        after = tier_successes(_without_highest(totals, dodged), target_numbers)
        shots = _rounds(dice, target.id, aim, target_numbers, after, before, weapon.area_effect)
    else:
        net = attack.successes - dodged
        shots = _rounds(
            dice, target.id, aim, target_numbers, [net], [attack.successes], weapon.area_effect
        )

    struck = hits.struck(
        target.id, defender, weapon, shots, victim, dice, target.resist, autofire=autofire
    )
    victim = struck.actor
    notes: list[str] = []
    turn_after: TurnState | None = None
    if struck.loses_action:
        victim, turn_after, note = able.lose_next_action(
            target.id, victim, turn, actions.INITIATIVE
        )
        notes.append(note)

    actors[attacker.id] = msgspec.structs.replace(
        shooter,
        phase=turn.phase,
        rounds_in_phase=min(shooter.rounds_in_phase + rounds, sr3_tables.MAX_ROUNDS_IN_PHASE),
        targets_in_phase=targets_seen[-sr3_tables.MAX_TARGETS_REMEMBERED :],
        aims=0,
    )
    if (
        struck.hits
        or victim.combat_pool is not None
        or victim.dodge_pool is not None
        or target.id in actors
    ):
        actors[target.id] = victim

    pools = []
    if shooter.combat_pool is not None:
        pools.append(HLPoolSpent(attacker.id, "combat", request.pool, shooter.pool_left))
    dodge_spent = target.dodge if dodge_test is not None else None
    if victim.combat_pool is not None:
        spent = (dodge_spent.combat_pool if dodge_spent else 0) + struck.resist_spent
        pools.append(HLPoolSpent(target.id, "combat", spent, victim.pool_left))
    if victim.dodge_pool is not None:
        spent = dodge_spent.dodge_pool if dodge_spent else 0
        pools.append(HLPoolSpent(target.id, "dodge", spent, victim.dodge_left))

    hit_any = any(r.outcome == "hit" for r in shots)
    outcome: Literal["hit", "miss", "dodged", "off_body", "stopped"]
    if hit_any:
        stopped = all(a.stopped for h in struck.hits for a in h.armor)
        outcome = "stopped" if stopped else "hit"
    elif any(r.outcome == "off_body" for r in shots):
        outcome = "off_body"
    elif any(r.outcome == "dodged" for r in shots):
        outcome = "dodged"
    else:
        outcome = "miss"
    result = HLAttackResult(
        attacker=attacker.id,
        weapon=weapon.id,
        mode=request.mode,
        action=sr3_tables.FIRING_MODES[request.mode].action,
        rounds_fired=rounds,
        ammo_left=weapon.ammo - rounds,
        attack=attack,
        target=HLTargetResult(
            target=target.id,
            outcome=outcome,
            range=band,
            aim=aim_location,
            attack_successes=attack.successes,
            dodge=dodge_test,
            dodge_successes=dodged,
            net_successes=max(0, attack.successes - dodged),
            rounds=shots,
            hits=struck.hits,
            recovery=struck.recovery,
            condition=victim.condition,
            knock_back=struck.knock_back,
            knock_back_m=struck.knock_back_m,
        ),
        combat_pool=pools,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(
        result=result,
        state=msgspec.structs.replace(state, actors=actors),
        actor=attacker.id,
        notes=notes,
        turn=turn_after,
    )
