"""What the rounds that reached one target do to it (004: armour resistance per location in
groups of three, the damage test per penetrating round, the stun and knock-back, the monitors,
armour degradation, the recovery roll). Shared by attacks (attack.py) and suppression fire's
zone tests (suppression.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from schemas.common import Modifier
from schemas.sr3 import SR3Test
from schemas.sr3hl import (
    HLActorState,
    HLArmorPiece,
    HLArmorTest,
    HLDamageTest,
    HLDefender,
    HLLocationHit,
    HLMonitor,
    HLRecovery,
    HLRecoveryDue,
    HLRound,
    HLStun,
    HLWeapon,
    HLWound,
    Location,
    MonitorName,
)
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3 import damage as sr3_damage
from service.rules.sr3hl import able, armor, condition, tables
from service.rules.sr3hl.tables import DamageLevel, KnockBack


@dataclass(frozen=True, slots=True)
class Struck:
    """Everything the rounds did to one target: each location's armour tests, damage tests,
    stun and wounds; the target's state after (monitors, armour worn down, condition, a
    recovery roll failed); the recovery roll; the worst knock-back."""

    hits: list[HLLocationHit]
    actor: HLActorState
    recovery: HLRecovery | None
    knock_back: KnockBack
    knock_back_m: int
    # The target failed its recovery roll: it loses its next action phase.
    loses_action: bool
    # Combat Pool dice the target's first Body roll took (`resist`; 0 when none was rolled).
    resist_spent: int = 0


def armor_step(target_id: str) -> str:
    return f"armor:{target_id}"


def lacing_step(target_id: str) -> str:
    return f"lacing:{target_id}"


def damage_step(target_id: str) -> str:
    return f"damage:{target_id}"


def stun_step(target_id: str) -> str:
    return f"stun:{target_id}"


def recovery_step(target_id: str) -> str:
    return f"recovery:{target_id}"


def accuracy(successes: int) -> Modifier:
    """004, Table 3 (README: 0 net, a tie, takes -4): the damage dice the round's net successes
    add or take away."""
    if successes > max(tables.DAMAGE_DICE):
        value = tables.DAMAGE_DICE_FROM_SIX
    else:
        value = tables.DAMAGE_DICE[max(successes, 0)]
    return Modifier(f"accuracy ({max(successes, 0)} net successes)", value)


def level_down(level: DamageLevel, successes: int) -> DamageLevel | None:
    """004: Body takes the level down one per two successes (None: below Light)."""
    index = tables.LEVELS.index(level) - successes // tables.SUCCESSES_PER_STAGE
    return tables.LEVELS[index] if index >= 0 else None


def _level_up(level: DamageLevel, levels: int) -> DamageLevel:
    return tables.LEVELS[min(tables.LEVELS.index(level) + levels, len(tables.LEVELS) - 1)]


def _worse(a: tuple[KnockBack, int], b: tuple[KnockBack, int]) -> tuple[KnockBack, int]:
    """Knocked down is worse than knocked back, more metres worse than fewer."""

    def rank(k: tuple[KnockBack, int]) -> int:
        return 1000 if k[0] == "knocked_down" else k[1]

    return b if rank(b) > rank(a) else a


def body_modifiers(power: int, impact: int, source: str) -> list[Modifier]:
    """A Body roll's target number: the power resisted less the impact armour (004)."""
    modifiers = [Modifier(source, power)]
    if impact:
        modifiers.append(Modifier("impact armour", -impact))
    return modifiers


def check_willpower(defender: HLDefender, path: str) -> int:
    """A hit target makes a recovery roll with Willpower: without it the attack is refused."""
    if defender.willpower is None:
        raise RuleViolation(
            "a hit target makes a recovery roll with Willpower (004): give the defender's "
            "willpower",
            path=f"{path}.willpower",
            kind="willpower-needed",
        )
    return defender.willpower


@dataclass(frozen=True, slots=True)
class ArmorBuild:
    """An armour resistance test at one location before it is rolled (004, "Determine Armour
    Resistance"): its dice and modifiers, bone lacing's apart, the soak number that stops."""

    kind: armor.ArmorKind
    rating: int
    count: int
    modifiers: list[Modifier]
    lacing_count: int
    lacing_modifiers: list[Modifier]
    soak: int


def armor_build(
    weapon: HLWeapon,
    defender: HLDefender,
    worn: Sequence[HLArmorPiece],
    location: Location,
    area: bool,
) -> ArmorBuild:
    """The location's rating (area effects: the overall value) in dice, with dermal armour's;
    against Power - rating (armour-piercing: - half the rating, rounded down); bone lacing's
    own dice at Power - its rating."""
    kind = sr3_damage.armor_kind(weapon)
    if area:
        value = armor.overall(worn)
        rating = value.ballistic if kind == "ballistic" else value.impact
    else:
        rating = armor.rating_at(worn, location, kind)
    piercing = weapon.ammo_kind == "armor_piercing"
    counted = rating // tables.ARMOR_PIERCING_DIVISOR if piercing else rating
    modifiers = [Modifier("power", weapon.power)]
    if counted:
        modifiers.append(
            Modifier(
                f"{kind} armour" + (" (halved, armour-piercing)" if piercing else ""), -counted
            )
        )
    lacing_rating = getattr(defender.bone_lacing, kind) if defender.bone_lacing is not None else 0
    return ArmorBuild(
        kind=kind,
        rating=rating,
        count=rating + defender.dermal_armor,
        modifiers=modifiers,
        lacing_count=lacing_rating,
        lacing_modifiers=[
            Modifier("power", weapon.power),
            Modifier(f"bone lacing ({kind})", -lacing_rating),
        ],
        soak=tables.SOAK[weapon.damage_level],
    )


def damage_dice(weapon: HLWeapon, successes: int) -> tuple[Modifier, int]:
    """004, "Damage Test": the round's Power + Table 3's dice for its net successes."""
    bonus = accuracy(successes)
    return bonus, max(0, weapon.power + bonus.value)


def damage_count(totals: Sequence[int]) -> tuple[int, int, int, int]:
    """004, "Damage Test" (no Rule of Six): the successes (4 or more), the ones, the sixes, and
    the count they make: successes - ones + sixes (each die adds its own part)."""
    successes = sum(1 for v in totals if v >= tables.DAMAGE_TARGET_NUMBER)
    ones = sum(1 for v in totals if v == 1)
    sixes = sum(1 for v in totals if v == 6)
    return successes, ones, sixes, successes - ones + sixes


def impact_at(worn: Sequence[HLArmorPiece], location: Location, area: bool) -> int:
    """The impact rating a Body roll at `location` meets (area effects: the overall value)."""
    if area:
        return armor.overall(worn).impact
    return armor.rating_at(worn, location, "impact")


def worn_by(victim: HLActorState, defender: HLDefender) -> list[HLArmorPiece]:
    """The armour the target wears: the state's (worn down) from its first hit on, else the
    request's."""
    return list(victim.armor if victim.armor is not None else defender.armor)


@dataclass(slots=True)
class _Target:
    """The target while its rounds are resolved (the state it ends in is built from it)."""

    target_id: str
    defender: HLDefender
    weapon: HLWeapon
    dice: Dice
    worn: list[HLArmorPiece]
    monitors: dict[MonitorName, HLMonitor]
    resist: int
    resist_spent: int = 0

    def body_roll(self, power: int, impact: int, source: str) -> SR3Test:
        """Body (+ the committed Combat Pool dice, on the first Body roll of the attack only:
        **choice**) against power - impact, never below 2 (step stun:<target>)."""
        extra = self.resist if self.resist_spent == 0 else 0
        self.resist_spent = max(self.resist_spent, extra)
        return sr3_attack.test(
            self.dice,
            stun_step(self.target_id),
            self.defender.body + extra,
            extra,
            body_modifiers(power, impact, source),
        )

    def wound(
        self, location: Location | None, track: condition.Track, level: DamageLevel, successes: int
    ) -> list[HLWound]:
        self.monitors, wounds = condition.wounded(self.monitors, location, track, level, successes)
        return wounds

    def impact_at(self, location: Location, area: bool) -> int:
        return impact_at(self.worn, location, area)


def _armor_test(
    t: _Target, location: Location, area: bool
) -> tuple[SR3Test, SR3Test | None, int, bool]:
    """004, "Determine Armour Resistance": the location's rating (area effects: the overall
    value) in dice, with dermal armour's; against Power - rating (armour-piercing: - half the
    rating, rounded down); bone lacing's own dice kept apart."""
    built = armor_build(t.weapon, t.defender, t.worn, location, area)
    test = sr3_attack.test(t.dice, armor_step(t.target_id), built.count, 0, built.modifiers)
    lacing = None
    if built.lacing_count:
        lacing = sr3_attack.test(
            t.dice, lacing_step(t.target_id), built.lacing_count, 0, built.lacing_modifiers
        )
    stopped = test.successes >= built.soak
    return test, lacing, built.rating, stopped


def _damage_test(t: _Target, round_: HLRound, armor_successes: int) -> HLDamageTest:
    """004, "Damage Test": Power dice + Table 3's against 4 (no Rule of Six), ones take one off
    and sixes add one, less the armour successes; every two net stage the base level."""
    weapon = t.weapon
    bonus, count = damage_dice(weapon, round_.successes)
    totals = t.dice.roll(damage_step(t.target_id), count)
    successes, ones, sixes, counted = damage_count(totals)
    net = counted - armor_successes
    level, overflow = condition.staged(weapon.damage_level, net)
    return HLDamageTest(
        round=round_.round,
        dice=count,
        accuracy=bonus,
        totals=totals,
        successes=successes,
        ones=ones,
        sixes=sixes,
        armor_successes=armor_successes,
        net=net,
        stages=condition.stages(net),
        level=level,
        overflow=overflow,
    )


def _stun_and_knock_back(
    t: _Target, location: Location, area: bool, impact: int
) -> tuple[HLStun, list[HLWound]]:
    """004, "Resolve Stun and Knock-back": half the Power (rounded down) less the impact
    armour there, the weapon's base level (README) taken down one per two Body successes;
    Table 4's row by the base level, its column by the successes before staging."""
    base = t.weapon.damage_level
    power = stun_power(t.weapon)
    resist = t.body_roll(power, impact, "stun power (half the weapon's)")
    return _stun_result(t, location, area, power, base, resist)


def stun_power(weapon: HLWeapon) -> int:
    """004, "Resolve Stun and Knock-back": the stun has half the weapon's Power, rounded down."""
    return weapon.power // tables.STUN_POWER_DIVISOR


def knock_back(row: DamageLevel, successes: int) -> tuple[KnockBack, int]:
    """004, Table 4: the effect and metres of a Body roll's successes on the row of `row`."""
    effects = tables.KNOCK_BACK[row]
    return effects[min(successes, len(effects) - 1)]


def stopped_hit(weapon: HLWeapon, stopped_rounds: int) -> tuple[int, DamageLevel]:
    """README: autofire rounds the armour stopped at one location are one stun hit, Power + 1
    and half a level per extra round (3 rounds of 7M: 9S): its Power and level."""
    extra = stopped_rounds - 1
    return weapon.power + extra, _level_up(weapon.damage_level, extra // 2)


def degradation(level: DamageLevel | None, penetrated: bool, area: bool) -> int:
    """004, "Armour Degradation": the points a round takes off the armour at its location: 1
    moderate, 2 serious, 3 deadly (light: 0, **choice**), +1 when it penetrated; area effects
    wear no one location (**choice**)."""
    if area:
        return 0
    return (tables.DEGRADATION[level] if level is not None else 0) + (
        tables.DEGRADATION_PENETRATED if penetrated else 0
    )


def _stun_result(
    t: _Target, location: Location, area: bool, power: int, base: DamageLevel, resist: SR3Test
) -> tuple[HLStun, list[HLWound]]:
    level = level_down(base, resist.successes)
    effect, metres = knock_back(base, resist.successes)
    wounds = t.wound(None if area else location, "stun", level, 0) if level else []
    stun = HLStun(
        location=location,
        power=power,
        base_level=base,
        resist=resist,
        level=level,
        knock_back=effect,
        metres=metres,
    )
    return stun, wounds


def _degrade(
    t: _Target, location: Location, level: DamageLevel | None, penetrated: bool, area: bool
) -> int:
    """004, "Armour Degradation" (`degradation`) taken off the pieces covering `location`."""
    points = degradation(level, penetrated, area)
    if not points:
        return 0
    t.worn, taken = armor.degraded(t.worn, location, points)
    return taken


def _by_location(rounds: Sequence[HLRound]) -> list[tuple[Location, list[HLRound]]]:
    found: dict[Location, list[HLRound]] = {}
    for r in rounds:
        if r.outcome == "hit" and r.location is not None:
            found.setdefault(r.location, []).append(r)
    return list(found.items())


def _location(
    t: _Target, location: Location, rounds: list[HLRound], autofire: bool
) -> HLLocationHit:
    weapon = t.weapon
    area = weapon.area_effect
    stun_weapon = weapon.damage_type == "stun"
    skips_stun = stun_weapon or weapon.ammo_kind == "gel"
    armor_tests: list[HLArmorTest] = []
    damage_tests: list[HLDamageTest] = []
    wounds: list[HLWound] = []
    stopped_rounds: list[HLRound] = []
    penetrated_any = False
    # The stun rolls meet the impact armour as it was when the rounds struck (**choice**).
    impact = t.impact_at(location, area)
    for start in range(0, len(rounds), tables.ARMOR_GROUP):
        group = rounds[start : start + tables.ARMOR_GROUP]
        test, lacing, rating, stopped = _armor_test(t, location, area)
        taken = 0
        if stopped:
            stopped_rounds.extend(group)
            for _ in group:
                taken += _degrade(t, location, weapon.damage_level, False, area)
        else:
            penetrated_any = True
            armor_successes = test.successes + (lacing.successes if lacing else 0)
            for r in group:
                hurt = _damage_test(t, r, armor_successes)
                damage_tests.append(hurt)
                written: list[HLWound] = []
                if hurt.level is not None:
                    if stun_weapon:
                        # 004, "Damage Test": Body resists stun damage at Power - impact,
                        # one level down per two successes.
                        resist = t.body_roll(weapon.power, impact, "stun weapon power")
                        level = level_down(hurt.level, resist.successes)
                        if level is not None:
                            written = t.wound(None if area else location, "stun", level, 0)
                    else:
                        written = t.wound(
                            None if area else location, "physical", weapon.damage_level, hurt.net
                        )
                wounds.extend(written)
                # The wound's level on the location's own monitor wears the armour there.
                at_location = next((w.level for w in written if w.monitor == location), None)
                taken += _degrade(t, location, at_location, True, area)
        kind = sr3_damage.armor_kind(weapon)
        after = rating if area else armor.rating_at(t.worn, location, kind)
        armor_tests.append(
            HLArmorTest(
                location=location,
                rounds=[r.round for r in group],
                armor=kind,
                rating=rating,
                dermal_dice=t.defender.dermal_armor,
                armor_piercing=weapon.ammo_kind == "armor_piercing",
                test=test,
                lacing=lacing,
                soak=tables.SOAK[weapon.damage_level],
                stopped=stopped,
                degraded=taken,
                rating_after=after,
            )
        )
    stun: HLStun | None = None
    stopped_stun: HLStun | None = None
    if not skips_stun:
        if not autofire or penetrated_any:
            stun, written = _stun_and_knock_back(t, location, area, impact)
            wounds.extend(written)
        if autofire and stopped_rounds:
            # README: a stopped burst is one stun hit, Power + 1 and half a level per extra
            # round (3 rounds of 7M: 9S), resisted with one Body roll at that Power - impact.
            power, level = stopped_hit(weapon, len(stopped_rounds))
            resist = t.body_roll(power, impact, "stopped rounds' power")
            stopped_stun, written = _stun_result(t, location, area, power, level, resist)
            wounds.extend(written)
    return HLLocationHit(
        location=location,
        rounds=[r.round for r in rounds],
        armor=armor_tests,
        damage=damage_tests,
        stun=stun,
        wounds=wounds,
        stopped_stun=stopped_stun,
        area_effect=area,
    )


def _recovery(
    t: _Target,
    hits: list[HLLocationHit],
    path: str,
) -> HLRecovery:
    """004, "Resolve Recovery Roll": Willpower against 2 + the injury modifier after the hit;
    Table 5's successes for the highest level the attack wrote on any monitor (stun or
    physical); the weapon's base level when no damage got through (stopped, staged below
    Light, or a stun weapon's damage all resisted)."""
    levels = [w.level for h in hits for w in h.wounds if w.level is not None]
    if not levels or not any(d.level is not None for h in hits for d in h.damage):
        levels.append(t.weapon.damage_level)
    level = max(levels, key=tables.LEVELS.index)
    willpower = check_willpower(t.defender, path)
    modifiers = [Modifier("recovery", tables.RECOVERY_TARGET_NUMBER)]
    injury = condition.injury_modifier(t.monitors)
    if injury:
        modifiers.append(Modifier("injury", injury))
    test = sr3_attack.test(t.dice, recovery_step(t.target_id), willpower, 0, modifiers)
    needed = tables.RECOVERY_NEEDED[level]
    return HLRecovery(level=level, needed=needed, test=test, passed=test.successes >= needed)


def struck(
    target_id: str,
    defender: HLDefender,
    weapon: HLWeapon,
    rounds: Sequence[HLRound],
    victim: HLActorState,
    dice: Dice,
    resist: int = 0,
    autofire: bool | None = None,
    path: str = "$.target.defender",
) -> Struck:
    """The rounds of `rounds` whose outcome is "hit" (each with its location and successes
    after the dodge) resolved against `target_id` wearing `victim`'s armour (or `defender`'s,
    the first time); steps armor:, lacing:, damage:, stun:, recovery:<target_id>.

    `autofire` (default: more than one round in `rounds`): the stopped rounds of a location
    become README's one stun hit, and only a location that penetrating rounds reached rolls
    the stun and knock-back; a single shot rolls it, stopped or not. `resist`: Combat Pool
    dice added to the first Body roll (the caller has checked they are left). `path`: the
    defender in the request (a missing Willpower is a 422 naming it)."""
    t = _Target(
        target_id=target_id,
        defender=defender,
        weapon=weapon,
        dice=dice,
        worn=worn_by(victim, defender),
        monitors=dict(victim.monitors),
        resist=resist,
    )
    by_location = _by_location(rounds)
    if autofire is None:
        autofire = len(rounds) > 1
    hits = [_location(t, loc, rs, autofire) for loc, rs in by_location]
    knock: tuple[KnockBack, int] = ("none", 0)
    for hit in hits:
        for stun in (hit.stun, hit.stopped_stun):
            if stun is not None:
                knock = _worse(knock, (stun.knock_back, stun.metres))
    recovery = _recovery(t, hits, path) if hits else None
    after = condition.condition(t.monitors, defender.body)
    due = victim.recovery
    if recovery is not None and not recovery.passed:
        if due is None or tables.LEVELS.index(recovery.level) > tables.LEVELS.index(due.level):
            due = HLRecoveryDue(level=recovery.level)
    actor = msgspec.structs.replace(
        victim,
        body=defender.body,
        monitors=t.monitors,
        armor=t.worn if hits else victim.armor,
        condition=after,
        recovery=due,
    )
    actor = able.after_hit(actor)
    if t.resist_spent:
        actor = msgspec.structs.replace(actor, pool_left=max(0, actor.pool_left - t.resist_spent))
    return Struck(
        hits=hits,
        actor=actor,
        recovery=recovery,
        knock_back=knock[0],
        knock_back_m=knock[1],
        loses_action=recovery is not None and not recovery.passed,
        resist_spent=t.resist_spent,
    )
