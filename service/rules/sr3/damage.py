"""SR3 damage: the weapon's Power and level, raised by bursts and full auto, resisted with Body
against Power less armour, and staged by the net successes (tables.py names each source)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from schemas.common import Modifier
from schemas.sr3 import DamageLevel, SR3Armor, SR3Damage, SR3Test, SR3Weapon
from service.rules.sr3 import tables

ArmorKind = Literal["ballistic", "impact"]


def armor_kind(weapon: SR3Weapon) -> ArmorKind:
    """The armour the attack meets: as the weapon says, else impact for the impact
    projectiles and ballistic for every other row (002, "WEAPON RANGE TABLE")."""
    if weapon.armor is not None:
        return weapon.armor
    return "impact" if weapon.category in tables.IMPACT_PROJECTILES else "ballistic"


def autofire(mode: str, rounds: int) -> tuple[list[Modifier], list[Modifier]]:
    """What bursts and full auto add to the Power, and to the level (in levels)."""
    if mode == "BF":
        return (
            [Modifier("burst (3 rounds)", tables.BURST_POWER)],
            [Modifier("burst (3 rounds)", tables.BURST_LEVELS)],
        )
    if mode == "FA":
        levels = rounds // tables.FULL_AUTO_ROUNDS_PER_LEVEL
        power = [
            Modifier(f"full auto ({rounds} rounds)", rounds * tables.FULL_AUTO_POWER_PER_ROUND)
        ]
        return power, ([Modifier(f"full auto ({rounds} rounds)", levels)] if levels else [])
    return [], []


def resistance_modifiers(power: int, kind: ArmorKind, armor: SR3Armor) -> list[Modifier]:
    """The resistance test's target number: Power less the armour the attack meets."""
    rating = armor.ballistic if kind == "ballistic" else armor.impact
    modifiers = [Modifier("power", power)]
    if rating:
        modifiers.append(Modifier(f"{kind} armour", -rating))
    return modifiers


def stages(net_successes: int) -> int:
    """Every 2 net successes stage one level: up for the attacker, down for the defender."""
    if net_successes >= 0:
        return net_successes // tables.SUCCESSES_PER_STAGE
    return -((-net_successes) // tables.SUCCESSES_PER_STAGE)


@dataclass(frozen=True, slots=True)
class Staged:
    """Where the level ends: None below Light (no damage), the stages the net successes made,
    and the stages past Deadly (the level stays Deadly)."""

    level: DamageLevel | None
    stages: int
    overflow: int


def staged(base_level: str, level_modifiers: list[Modifier], net_successes: int) -> Staged:
    """The final level from the weapon's, the levels autofire adds and the staging of the net
    successes (attack successes the dodge left, less the resistance successes)."""
    stage = stages(net_successes)
    index = tables.LEVELS.index(base_level) + sum([m.value for m in level_modifiers]) + stage
    top = len(tables.LEVELS) - 1
    level: DamageLevel | None = (
        None if index < 0 else cast(DamageLevel, tables.LEVELS[min(index, top)])
    )
    return Staged(level=level, stages=stage, overflow=max(0, index - top))


def damage(
    weapon: SR3Weapon,
    power_modifiers: list[Modifier],
    level_modifiers: list[Modifier],
    kind: ArmorKind,
    armor: SR3Armor,
    resist: SR3Test,
    attack_net: int,
) -> SR3Damage:
    """The damage of a hit: the level staged (`staged`), its boxes and track."""
    power = sum([m.value for m in power_modifiers])
    net = attack_net - resist.successes
    ended = staged(weapon.damage_level, level_modifiers, net)
    return SR3Damage(
        power=power,
        base_level=weapon.damage_level,
        power_modifiers=power_modifiers,
        level_modifiers=level_modifiers,
        armor=kind,
        armor_rating=armor.ballistic if kind == "ballistic" else armor.impact,
        resist=resist,
        net_successes=net,
        stages=ended.stages,
        level=ended.level,
        boxes=tables.BOXES[ended.level] if ended.level is not None else 0,
        track=weapon.damage_type,
        overflow=ended.overflow,
    )
