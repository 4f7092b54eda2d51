"""Shadowrun 4's defense and damage (001_2cfc288dfef1df08.txt, "Defending Against Ranged
Combat", "Damage Resistance"): the defense test's modifiers, the opposed test's outcome (ties to
the defender, a graze on the GM's rule), damage against armour, its track and its resistance.
The attack (attack.py), suppressive fire and the odds build on these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

from schemas.common import Modifier
from schemas.sr4 import (
    SR4ActorState,
    SR4AttackRequest,
    SR4Damage,
    SR4Defender,
    SR4Target,
    SR4Test,
    SR4Weapon,
)
from service.rules.dice import Dice, Edition, PoolRoll
from service.rules.sr4 import tables
from service.rules.sr4.modifiers import gun_of, total

EDITION: Edition = "sr4"


def test_of(roll: PoolRoll) -> SR4Test:
    return SR4Test(roll.pool, roll.hits, roll.ones, roll.glitch, roll.critical_glitch)


NO_ROLL = SR4Test(0, 0, 0, False, False)


# --- defense and damage -----------------------------------------------------------------------


def defense_modifiers(
    defender: SR4Defender,
    state: SR4ActorState,
    wide: int,
    choke_defense: int,
    edge: bool,
) -> list[Modifier]:
    """001, "Defending Against Ranged Combat": Reaction, + Dodge on full defense, less the
    defender's wounds."""
    modifiers = [Modifier("reaction", defender.reaction)]
    if state.full_defense and defender.dodge:
        modifiers.append(Modifier("dodge (full defense)", defender.dodge))
    modifiers.extend(wounds(defender))
    if wide:
        modifiers.append(Modifier("wide burst", wide))
    if choke_defense:
        modifiers.append(Modifier("shotgun spread", choke_defense))
    if state.defenses:
        modifiers.append(
            Modifier(
                f"{state.defenses} earlier defense(s) since its last action phase",
                tables.EARLIER_DEFENSE * state.defenses,
            )
        )
    if edge:
        modifiers.append(Modifier("Edge", defender.edge))
    return modifiers


def wounds(defender: SR4Defender) -> list[Modifier]:
    """SR4 core, "Wound Modifiers": the wound modifier goes on every test but those that resist
    the boxes about to be taken; so on a defender's defense test and its zone tests, never on
    its damage resistance (001 names wounds only for the attacker, "Attacker Wounded")."""
    if defender.wound_modifier == 0:
        return []
    return [Modifier("wound modifier", defender.wound_modifier)]


def ammunition(request: SR4AttackRequest) -> tuple[str, tables.Ammunition]:
    load = request.ammo
    if isinstance(load, str):
        return load, tables.AMMUNITION[load]
    return "custom", tables.Ammunition(load.dv, load.ap, load.damage_type, load.armor)


def armor_type(
    request: SR4AttackRequest, weapon: SR4Weapon, choke: str | None = None
) -> Literal["ballistic", "impact"]:
    """The armour the attack meets: its load's, else the weapon's word, else a choke's shot
    meets flechette's (001, "Shotguns": shot takes "the flechette ammunition rules"; the
    flechette row meets impact armour), else by the weapon's category."""
    _, load = ammunition(request)
    chosen = load.armor or weapon.armor
    if chosen is None and choke is not None:
        chosen = tables.AMMUNITION["flechette"].armor
    if chosen == "impact" or (chosen is None and weapon.category in tables.IMPACT_CATEGORIES):
        return "impact"
    return "ballistic"


@dataclass(frozen=True, slots=True)
class Resisting:
    """001 steps 4-6 before the soak is rolled: the modified DV (and the one compared with the
    armour), the modified armour, the track, and the Body + armour pool that resists."""

    modifiers: list[Modifier]
    compared: int
    dv: int
    armor: int
    physical: bool
    soak_modifiers: list[Modifier]

    @property
    def soak_pool(self) -> int:
        return total(self.soak_modifiers)


def resisting(
    dv_modifiers: list[Modifier],
    burst_dv: int,
    ap: int,
    damage_type: str,
    kind: Literal["ballistic", "impact"],
    defender: SR4Defender,
) -> Resisting:
    """The modified DV against the modified armour: stun unless the DV (without a narrow
    burst's, 001) exceeds it; the pool of Body + modified armour."""
    compared = max(0, total(dv_modifiers))
    modifiers = list(dv_modifiers)
    if burst_dv:
        modifiers.append(Modifier("narrow burst (not compared with armour)", burst_dv))
    dv = max(0, total(modifiers))
    armor = defender.impact_armor if kind == "impact" else defender.ballistic_armor
    modified_armor = max(0, armor + ap)
    physical = damage_type == "P" and compared > modified_armor
    soak_modifiers = [
        Modifier("body", defender.body),
        Modifier(f"modified {kind} armor", modified_armor),
    ]
    return Resisting(modifiers, compared, dv, modified_armor, physical, soak_modifiers)


def resist(
    step: str,
    dv_modifiers: list[Modifier],
    burst_dv: int,
    ap: int,
    damage_type: str,
    kind: Literal["ballistic", "impact"],
    defender: SR4Defender,
    dice: Dice,
    soak_rolled: SR4Test | None = None,
) -> SR4Damage:
    """001 steps 4-6: the modified DV against the modified armour (stun unless the DV exceeds
    it), Body + modified armour to resist, a box a point of DV left."""
    built = resisting(dv_modifiers, burst_dv, ap, damage_type, kind, defender)
    soak = soak_rolled or test_of(dice.pool(step, built.soak_pool, EDITION))
    return SR4Damage(
        dv=built.dv,
        dv_modifiers=built.modifiers,
        compared_dv=built.compared,
        armor_type=kind,
        armor=built.armor,
        ap=ap,
        track="physical" if built.physical else "stun",
        soak=soak,
        soak_modifiers=built.soak_modifiers,
        soak_hits=soak.hits,
        boxes=max(0, built.dv - soak.hits),
    )


@dataclass(frozen=True, slots=True)
class Harm:
    """What a hit on a target does before its net hits are known: the DV's modifiers but the
    net hits, the narrow burst's DV, the AP, the damage type and the armour it meets."""

    step: str
    dv_modifiers: list[Modifier]
    burst_dv: int
    ap: int
    damage_type: str
    kind: Literal["ballistic", "impact"]
    defender: SR4Defender

    def with_net(self, net_hits: int) -> list[Modifier]:
        return [*self.dv_modifiers, Modifier("net hits", net_hits)]

    def resisting(self, net_hits: int) -> Resisting:
        return resisting(
            self.with_net(net_hits),
            self.burst_dv,
            self.ap,
            self.damage_type,
            self.kind,
            self.defender,
        )


def harm_of(request: SR4AttackRequest, target: SR4Target, burst_dv: int, choke: str | None) -> Harm:
    weapon = gun_of(request, target)
    name, load = ammunition(request)
    dv_modifiers = [Modifier("weapon", weapon.damage)]
    if load.dv:
        dv_modifiers.append(Modifier(f"ammunition ({name})", load.dv))
    ap = weapon.ap + load.ap
    if choke is not None:
        row = tables.CHOKES[choke]
        if row.dv:
            dv_modifiers.append(Modifier(f"shot, {choke} choke", row.dv))
        ap += row.ap
    damage_type = load.damage_type or weapon.damage_type
    return Harm(
        f"soak:{target.id}",
        dv_modifiers,
        burst_dv,
        ap,
        damage_type,
        armor_type(request, weapon, choke),
        target.defender,
    )


def damage(
    request: SR4AttackRequest,
    target: SR4Target,
    net_hits: int,
    burst_dv: int,
    choke: str | None,
    dice: Dice,
    soak_rolled: SR4Test | None = None,
) -> SR4Damage:
    harm = harm_of(request, target, burst_dv, choke)
    return resist(
        harm.step,
        harm.with_net(net_hits),
        harm.burst_dv,
        harm.ap,
        harm.damage_type,
        harm.kind,
        harm.defender,
        dice,
        soak_rolled,
    )


def outcome_of(
    attack_hits: int, defense_hits: int, grazing: bool
) -> Literal["hit", "graze", "miss"]:
    """001 step 3: more hits than the defender hit; the defender wins ties, which the GM may
    rule a grazing hit."""
    if attack_hits > defense_hits:
        return "hit"
    if attack_hits > 0 and attack_hits == defense_hits and grazing:
        return "graze"
    return "miss"


def defended(defender: SR4ActorState) -> SR4ActorState:
    return msgspec.structs.replace(
        defender, defenses=min(defender.defenses + 1, tables.MAX_DEFENSES_COUNTED)
    )
