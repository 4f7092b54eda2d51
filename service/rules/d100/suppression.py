"""d100 zone tests: avoiding the fire of a suppression circle.

rules-sources/003_e47222605a1f2969.txt, "Effects of Suppression": Hit the Dirt or Dive for Cover
where allowed, else an Athletics test with the penalty; a failure is a hit without active
defense, of the weapon's bonus dice as cold dice on its flat damage.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.common import Modifier
from schemas.d100 import D100State, D100ZoneState, D100ZoneTestRequest, D100ZoneTestResult
from service.rules.d100 import core
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation


def zone_test_steps(request: D100ZoneTestRequest) -> dict[str, int]:
    actor = request.actor
    return {
        f"zone_test:{actor}": 100,
        # The bonus die of the zone's weapon is known only once the zone is read: any size.
        **core.damage_steps(actor, 12, request.defender),
    }


@dataclass(frozen=True, slots=True)
class ZoneTestBuild:
    """A zone test before any die is rolled: the Athletics test and the hit a failure takes.
    `success_target` and `modifiers` are None when the actor avoids the fire by an interrupt."""

    live: D100ZoneState
    modifiers: list[Modifier] | None
    success_target: int | None
    damage: core.DamageBuild


def build_zone_test(zone_id: str, request: D100ZoneTestRequest, state: D100State) -> ZoneTestBuild:
    """Every refusal of the zone test and everything it rolls against, nothing rolled."""
    live = state.zones.get(zone_id)
    if live is None:
        raise RuleViolation(
            f"no live zone '{zone_id}' (it may have ended)",
            path="zone",
            kind="zone-not-found",
            status=404,
        )
    defender = request.defender
    here = core.zones_at(state, defender.position)
    if defender.position is not None and live not in here:
        raise RuleViolation(
            f"({defender.position.x:g}, {defender.position.y:g}) is outside {zone_id}",
            path="$.defender.position",
        )
    # The strongest zone where the actor stands; without a position, the zone tested.
    worst = core.strongest(here) or live
    penalty = Modifier(f"suppression ({worst.zone.id}, {worst.zone.hits} hits)", worst.zone.penalty)
    test_modifiers = [*core.defender_modifiers(defender), penalty]
    # Cold bonus dice: they count without a successful test. The zone's own hits add none.
    damage = core.build_damage(
        flat=live.damage,
        bonus_dice=live.bonus_dice,
        bonus_die=live.bonus_die,
        armor_penetration=live.armor_penetration,
        defender=defender,
        test_modifiers=test_modifiers,
        location=request.location,
    )
    if request.avoid != "none":
        return ZoneTestBuild(live, None, None, damage)
    modifiers = [
        Modifier("Athletics", request.athletics),
        *test_modifiers,
        *core.named(request.modifiers),
    ]
    return ZoneTestBuild(live, modifiers, core.total(modifiers), damage)


# A failed zone test's hit has no active defense: no net hits add to its damage.
ZONE_HIT_NET_HITS = 0


def zone_test(
    zone_id: str, request: D100ZoneTestRequest, state: D100State, dice: Dice
) -> D100ZoneTestResult:
    built = build_zone_test(zone_id, request, state)
    if built.modifiers is None or built.success_target is None:
        return D100ZoneTestResult(
            actor=request.actor,
            zone=zone_id,
            avoided=request.avoid,
            modifiers=[],
            test=None,
            hit=False,
            damage=None,
            dice=dice.rolls,
            seed=dice.seed,
        )
    test = core.test(dice, f"zone_test:{request.actor}", built.success_target)
    damage = None
    if not test.success:
        damage = core.damage(dice, request.actor, built.damage, ZONE_HIT_NET_HITS)
    return D100ZoneTestResult(
        actor=request.actor,
        zone=zone_id,
        avoided=None if damage is not None else "athletics",
        modifiers=built.modifiers,
        test=test,
        hit=damage is not None,
        damage=damage,
        dice=dice.rolls,
        seed=dice.seed,
    )
