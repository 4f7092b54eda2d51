"""An SR4 grenade attack (001_2cfc288dfef1df08.txt, "GRENADES") once the attack test is made:
where it lands, and then a blast at once (airburst) or a grenade the state holds until the turn
reaches its moment (`went_off`). The rules themselves are in grenades.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from schemas.common import Modifier, Point, Zone
from schemas.encounter import AdvanceRequest, TurnState
from schemas.scene import SceneActor
from schemas.sr4 import (
    SR4AttackRequest,
    SR4AttackResult,
    SR4BlastActor,
    SR4BlastResult,
    SR4Grenade,
    SR4GrenadeNumbers,
    SR4Recoil,
    SR4State,
    SR4TargetResult,
    SR4Test,
)
from service.rules.dice import Dice
from service.rules.ruleset import Resolution, RuleViolation
from service.rules.sr4 import grenade_timing, grenades

RangeBand = Literal["short", "medium", "long", "extreme"]
NO_RECOIL = SR4Recoil(
    shot_in_phase=1,
    base=0,
    short_rounds=0,
    compensation=0,
    doubled=False,
    uncompensated=0,
    other_gun=0,
    penalty=0,
)


@dataclass(frozen=True, slots=True)
class GrenadeAttack:
    """The attack test of a grenade, as the attack core (service/rules/sr4) made it: the pool
    and its modifiers, the test, the target's defense (None when aimed at a point: a success
    test) and the net hits (the hits, for a point), with what the result shows of the attack."""

    pool: int
    modifiers: list[Modifier]
    test: SR4Test
    defense: SR4Test | None
    defense_modifiers: list[Modifier]
    net_hits: int
    range: RangeBand = "short"
    recoil: SR4Recoil = NO_RECOIL
    action: Literal["simple", "complex"] = "simple"
    edge_spent: int = 0
    notes: list[str] = field(default_factory=list)


def grenade_steps(request: SR4AttackRequest) -> dict[str, int]:
    """The steps a grenade attack may roll beyond its attack test and defense: the scatter, and
    for an airburst grenade its blast's barrier tests and soaks."""
    steps = grenades.scatter_steps()
    if request.grenade is not None and request.grenade.airburst:
        ids = [b.id for b in request.bystanders] + [t.id for t in request.targets]
        steps.update(grenades.blast_steps(request.barriers, ids))
    return steps


def origin_of(request: SR4AttackRequest) -> Point | None:
    """Where the thrower stands: `origin`, else the attacker among the bystanders."""
    if request.origin is not None:
        return request.origin
    return next((b.position for b in request.bystanders if b.id == request.attacker.id), None)


def _aimed_at(request: SR4AttackRequest) -> tuple[Point, str]:
    """The point the grenade was aimed at, and the path that says so: `aim_point` (a location,
    or where the target stands), else the target's position among the bystanders."""
    if len(request.targets) > 1:
        raise RuleViolation("a grenade is aimed at one target or at a point", path="$.targets[1]")
    if request.aim_point is not None:
        return request.aim_point, "$.aim_point"
    if request.targets:
        target = request.targets[0]
        there = next((b.position for b in request.bystanders if b.id == target.id), None)
        if there is not None:
            return there, "$.targets[0].distance_m"
        raise RuleViolation(
            f"where does {target.id} stand? give aim_point, or {target.id} among the "
            "bystanders with its position (the scene fills them in)",
            path="$.aim_point",
            kind="position-unknown",
        )
    raise RuleViolation(
        "a grenade is aimed at a target or at a point: give targets or aim_point",
        path="$.aim_point",
        kind="position-unknown",
    )


def _check_arming(request: SR4AttackRequest, aimed: Point, path: str) -> None:
    assert request.grenade is not None
    origin = origin_of(request)
    if origin is not None:
        grenades.check_arming(request.grenade, origin, aimed, path)
        return
    minimum = grenades.arming_m(request.grenade)
    if request.targets and request.targets[0].distance_m < minimum:
        distance = request.targets[0].distance_m
        raise RuleViolation(
            f"{distance:g} m is closer than the {minimum:g} m a launcher grenade travels "
            "before it arms (disarm the safety and give arming_m 0)",
            path="$.targets[0].distance_m",
            kind="below-minimum-range",
        )


def blast_actors(request: SR4AttackRequest, aimed: Point) -> list[SR4BlastActor]:
    """Who an airburst blast may reach: the bystanders, and the target (where it stands among
    them, else at the aimed point), with its defender's Body and impact armor where the
    bystander's entry lacks them."""
    defenders = {t.id: t.defender for t in request.targets}
    actors = []
    for bystander in request.bystanders:
        defender = defenders.pop(bystander.id, None)
        if defender is not None:
            bystander = msgspec.structs.replace(
                bystander,
                body=bystander.body if bystander.body is not None else defender.body,
                impact_armor=(
                    bystander.impact_armor
                    if bystander.impact_armor is not None
                    else defender.impact_armor
                ),
            )
        actors.append(bystander)
    for target_id, defender in defenders.items():
        actors.append(
            SR4BlastActor(
                id=target_id,
                position=aimed,
                body=defender.body,
                impact_armor=defender.impact_armor,
            )
        )
    return actors


def _target_results(
    request: SR4AttackRequest, attack: GrenadeAttack, on_target: bool
) -> list[SR4TargetResult]:
    """The opposed test against the target aimed at: "hit" when the grenade landed on it
    exactly (the blast's hits say what it did to everyone)."""
    return [
        SR4TargetResult(
            target=target.id,
            outcome="hit" if on_target else "miss",
            range=attack.range,
            fired_as="grenade",
            attack_modifiers=[],
            attack=attack.test,
            defense=attack.defense,
            defense_modifiers=attack.defense_modifiers,
            defense_hits=attack.defense.hits if attack.defense is not None else 0,
            net_hits=attack.net_hits,
            edge_spent=1 if target.edge and attack.defense is not None else 0,
        )
        for target in request.targets
    ]


def check_grenade(request: SR4AttackRequest) -> tuple[SR4Grenade, SR4GrenadeNumbers, Point]:
    """What a grenade attack checks once its test is built: the grenade and its numbers, a
    grenade left to throw, and the point it is aimed at (a launcher's never closer than it
    arms)."""
    grenade = request.grenade
    if grenade is None:
        raise RuleViolation("a grenade attack gives its grenade", path="$.grenade")
    if request.weapon.ammo < 1:
        raise RuleViolation(
            f"'{request.weapon.id}' has no grenade left", path="$.weapon.ammo", kind="out-of-ammo"
        )
    numbers = grenades.numbers(grenade, "$.grenade")
    aimed, path = _aimed_at(request)
    _check_arming(request, aimed, path)
    return grenade, numbers, aimed


def resolve_grenade(
    request: SR4AttackRequest,
    state: SR4State,
    turn: TurnState,
    dice: Dice,
    attack: GrenadeAttack,
) -> Resolution[SR4AttackResult]:
    """001, "Determine Scatter", "Blast Effects", "Timing Grenades": the grenade scatters from
    the point it was aimed at; a dud does nothing, an airburst grenade goes off at once, any
    other is held in the state (`pending`) until the next initiative pass."""
    grenade, numbers, aimed = check_grenade(request)
    landing = grenades.scatter(aimed, origin_of(request), grenade, attack.net_hits, dice)
    grenade_id = f"g{state.grenades_thrown + 1}"
    notes = list(attack.notes)
    blast: SR4BlastResult | None = None
    pending: str | None = None
    after = state
    if landing.dud:
        notes.append(f"{grenade_id} lands within its arming range and does not go off")
    elif grenade.airburst:
        blast = grenades.blast(
            grenade_id,
            request.attacker.id,
            landing.landed,
            numbers,
            blast_actors(request, aimed),
            request.barriers,
            request.confined,
            dice,
            extra_dv=landing.extra_dv,
            seed=dice.seed,
        )
        notes.append(grenades.described(blast))
        after = msgspec.structs.replace(state, grenades_thrown=state.grenades_thrown + 1)
    else:
        # The hits left over are the grenade's from now on.
        held = grenade_timing.pending_grenade(
            state.grenades_thrown,
            state.pending,
            request.attacker.id,
            landing.landed,
            msgspec.structs.replace(numbers, dv=numbers.dv + landing.extra_dv),
            turn,
            request.barriers,
            request.confined,
            dice.seed,
            "$.grenade",
        )
        pending = held.id
        notes.append(
            f"{held.id} lies at ({held.point.x:g}, {held.point.y:g}): it goes off "
            "in the next initiative pass, at the thrower's score"
        )
        after = msgspec.structs.replace(
            state, pending=[*state.pending, held], grenades_thrown=state.grenades_thrown + 1
        )
    result = SR4AttackResult(
        attacker=request.attacker.id,
        weapon=request.weapon.id,
        mode=request.mode,
        burst=None,
        action=attack.action,
        rounds_fired=1,
        ammo_left=request.weapon.ammo - 1,
        pool=attack.pool,
        modifiers=attack.modifiers,
        recoil=attack.recoil,
        edge_spent=attack.edge_spent,
        targets=_target_results(request, attack, landing.on_target),
        scatter=landing,
        blast=blast,
        pending_grenade=pending,
        dice=dice.rolls,
        seed=dice.seed,
    )
    return Resolution(result=result, state=after, actor=request.attacker.id, notes=notes)


def went_off(
    crossing: AdvanceRequest,
    state: SR4State,
    turn: TurnState,
    scene: Mapping[str, SceneActor],
) -> tuple[SR4State, list[SR4BlastResult], list[str]]:
    """The held grenades due at `crossing` go off (grenade_timing.due says when), each with its own
    seed's dice, on the scene as it is now; the state keeps the rest."""
    if not state.pending:
        return state, [], []
    waiting, blasts, notes = grenade_timing.went_off_blasts(crossing, state.pending, turn, scene)
    return msgspec.structs.replace(state, pending=waiting), blasts, notes


def grenade_zones(state: SR4State) -> list[Zone]:
    """The held grenades as the map draws them."""
    return [grenade_timing.pending_zone(grenade) for grenade in state.pending]
