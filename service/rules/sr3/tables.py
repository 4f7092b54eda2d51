"""Shadowrun 3 numbers, each row citing where it comes from.

"002" is rules-sources/002_65e09aecd368bc68.txt; "README" is rules-sources/README.md, "Shadowrun
3". Where 002 is silent the published SR3 core rules (FASA, 1998) are used, cited by page as
public tables give them:
- "SR3 modifiers": the Ranged Combat Modifiers table (SR3 p. 112), as tabulated at
  denver.wikidot.com/info:ranged-combat-modifiers;
- "SR3 visibility": the Visibility Table (SR3 p. 112), denver.wikidot.com/info:visibility;
- "SR3 crib sheet": the SR3 combat crib sheet (pdfcoke.com, "Sr3 - Combat Crib Sheet", and
  denver.wikidot.com/info:ranged-combat), citing SR3 pp. 103, 113, 125;
- "SR3 pools": the Dice Pool table (SR3 p. 63), as "Shadowrun: The Missing Tables" gives it;
- "SR3 armor": Armor and Combat Pool, Layering Armor (SR3 p. 285), as Dumpshock forum threads
  t1851 and t7405 quote it.
Every number below taken from those is a **choice** in docs/rulesets/sr3.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from schemas.initiative import ActionsUsed
from service.rules.ruleset import InitiativeRules

RangeBand = Literal["short", "medium", "long", "extreme"]
ActionKind = Literal["free", "simple", "complex"]
BANDS: tuple[RangeBand, ...] = ("short", "medium", "long", "extreme")

# --- the test (README; 002 "Ranged Combat") ---------------------------------------------------
# README: no target number is below 2.
MINIMUM_TARGET_NUMBER = 2

# --- the weapon range table (002, "WEAPON RANGE TABLE") ---------------------------------------
# 002: the base target number of each range band.
BASE_TARGET_NUMBER: Mapping[RangeBand, int] = MappingProxyType(
    {"short": 4, "medium": 5, "long": 6, "extreme": 9}
)


@dataclass(frozen=True, slots=True)
class RangeBands:
    """The upper bound of each band, in metres (or, `per_strength`, in multiples of Strength);
    closer than `minimum` metres is out of range (launcher minimum ranges, 002's "*")."""

    short: float
    medium: float
    long: float
    extreme: float
    minimum: float = 0.0
    per_strength: bool = False

    def bounds(self, strength: int) -> tuple[float, float, float, float]:
        factor = strength if self.per_strength else 1
        return (
            self.short * factor,
            self.medium * factor,
            self.long * factor,
            self.extreme * factor,
        )


# 002, "WEAPON RANGE TABLE": every row. A band's metres are whole numbers ("0-5", "6-15"); a
# distance between two of them (5.5 m) is past the lower band's end, so in the next (choice).
RANGE_BANDS: Mapping[str, RangeBands] = MappingProxyType(
    {
        # Firearms
        "hold_out_pistol": RangeBands(5, 15, 30, 50),
        "light_pistol": RangeBands(5, 15, 30, 50),
        "heavy_pistol": RangeBands(5, 20, 40, 60),
        "smg": RangeBands(10, 40, 80, 150),
        "taser": RangeBands(5, 10, 12, 15),
        "shotgun": RangeBands(10, 20, 50, 100),
        "sporting_rifle": RangeBands(100, 250, 500, 750),
        "sniper_rifle": RangeBands(150, 300, 700, 1000),
        "assault_rifle": RangeBands(50, 150, 350, 550),
        # Heavy weapons; "*": the launchers' short band starts at their minimum range.
        "light_machine_gun": RangeBands(75, 200, 400, 800),
        "medium_machine_gun": RangeBands(80, 250, 750, 1200),
        "heavy_machine_gun": RangeBands(80, 250, 800, 1500),
        "assault_cannon": RangeBands(100, 300, 900, 2400),
        "grenade_launcher": RangeBands(50, 100, 150, 300, minimum=5),
        "missile_launcher": RangeBands(150, 450, 1200, 3000, minimum=20),
        # Impact projectiles: "0-STR", "To STR x 10", ... in multiples of Strength.
        "bow": RangeBands(1, 10, 30, 60, per_strength=True),
        "light_crossbow": RangeBands(2, 8, 20, 40, per_strength=True),
        "medium_crossbow": RangeBands(3, 12, 30, 50, per_strength=True),
        "heavy_crossbow": RangeBands(5, 15, 40, 60, per_strength=True),
        "thrown_knife": RangeBands(1, 2, 3, 5, per_strength=True),
        "shuriken": RangeBands(1, 2, 5, 7, per_strength=True),
    }
)
# 002: the rows under "Impact Projectiles", which meet impact armour (ballistic for the rest).
IMPACT_PROJECTILES = frozenset(
    {
        "bow",
        "light_crossbow",
        "medium_crossbow",
        "heavy_crossbow",
        "thrown_knife",
        "shuriken",
    }
)
# 002, "RANGED ATTACK TARGET NUMBERS", "*": the numbers in parentheses are for launch weapons.
LAUNCH_WEAPONS = frozenset({"grenade_launcher", "missile_launcher"})
# SR3 modifiers, "Recoil, Heavy Weapon" (and 002's "Heavy Weapons" rows): uncompensated
# recoil is doubled for them.
HEAVY_WEAPONS = frozenset(
    {
        "light_machine_gun",
        "medium_machine_gun",
        "heavy_machine_gun",
        "assault_cannon",
        "grenade_launcher",
        "missile_launcher",
    }
)


@dataclass(frozen=True, slots=True)
class SightRow:
    """One row of the ranged attack target numbers: short, medium, long, extreme, and the
    launch weapons' long and extreme (the numbers in parentheses; where a cell has none, the
    same number)."""

    short: int
    medium: int
    long: int
    extreme: int
    launch_long: int
    launch_extreme: int

    def target_number(self, band: RangeBand, launch: bool) -> int:
        if band == "short":
            return self.short
        if band == "medium":
            return self.medium
        if band == "long":
            return self.launch_long if launch else self.long
        return self.launch_extreme if launch else self.extreme


# 002, "RANGED ATTACK TARGET NUMBERS": every row, parentheses included (image magnification
# level 1 is the only row with one in the extreme column: 6(8)).
SIGHT_TARGET_NUMBERS: Mapping[str, SightRow] = MappingProxyType(
    {
        "standard": SightRow(4, 5, 6, 9, launch_long=8, launch_extreme=9),
        "laser_sight": SightRow(3, 4, 5, 8, launch_long=7, launch_extreme=8),
        "smart_goggles": SightRow(3, 4, 5, 8, launch_long=7, launch_extreme=8),
        "smartlink": SightRow(2, 3, 4, 7, launch_long=6, launch_extreme=7),
        "smartlink_2": SightRow(2, 3, 3, 5, launch_long=5, launch_extreme=5),
        "magnification_1": SightRow(4, 4, 5, 6, launch_long=5, launch_extreme=8),
        "magnification_2": SightRow(4, 4, 4, 5, launch_long=4, launch_extreme=5),
        "magnification_3": SightRow(4, 4, 4, 4, launch_long=4, launch_extreme=4),
        "magnification_1_laser": SightRow(3, 3, 4, 4, launch_long=4, launch_extreme=4),
        "magnification_2_laser": SightRow(3, 3, 3, 4, launch_long=3, launch_extreme=4),
        "magnification_3_laser": SightRow(3, 3, 3, 3, launch_long=3, launch_extreme=3),
    }
)
# 002, "*" note: indirect fire takes the launch weapons' standard vision numbers, and its one
# modifier is the smartlink-2's -1.
INDIRECT_FIRE_SIGHT = "standard"
INDIRECT_FIRE_SMARTLINK_2 = -1

# --- firing modes (002, action tables; SR3 crib sheet, SR3 pp. 115-116 for the damage) --------


@dataclass(frozen=True, slots=True)
class FiringMode:
    action: Literal["simple", "complex"]
    # Rounds fired; full auto fires what the request says (at most FULL_AUTO_MAX_ROUNDS).
    rounds: int
    # Whether the attack's own rounds add to its recoil (bursts and full auto do; a
    # semi-automatic shot feels only the rounds fired before it in the phase).
    own_rounds_recoil: bool


# 002: "Fire Weapon (SA/BF)" is a simple action, "Fire Weapon (SS/FA)" a complex one.
FIRING_MODES: Mapping[str, FiringMode] = MappingProxyType(
    {
        "SS": FiringMode(action="complex", rounds=1, own_rounds_recoil=False),
        "SA": FiringMode(action="simple", rounds=1, own_rounds_recoil=False),
        "BF": FiringMode(action="simple", rounds=3, own_rounds_recoil=True),
        "FA": FiringMode(action="complex", rounds=10, own_rounds_recoil=True),
    }
)
FULL_AUTO_MAX_ROUNDS = 10
# SR3 (Burst Fire, p. 115): a burst adds its 3 rounds to the Power and one damage level.
BURST_POWER = 3
BURST_LEVELS = 1
# SR3 (Full Auto, p. 116): +1 Power a round, one damage level per 3 rounds.
FULL_AUTO_POWER_PER_ROUND = 1
FULL_AUTO_ROUNDS_PER_LEVEL = 3

# --- situation modifiers (SR3 modifiers; README) -----------------------------------------------
# SR3 modifiers, "Recoil": SA +1 for the second shot in a phase, a burst +3 per burst in the
# phase, full auto +1 per round: each round fired in the phase before the shot (and, for
# bursts and full auto, the shot's own rounds) is +1; compensation takes that away; heavy
# weapons double what is left.
RECOIL_PER_ROUND = 1
HEAVY_WEAPON_RECOIL_FACTOR = 2
# Rounds counted in one phase at most: far past any target number a die can reach.
MAX_ROUNDS_IN_PHASE = 1_000
# Targets remembered in one phase (SR3ActorState.targets_in_phase's bound): past 20 targets the
# +2 each is +38, far past any target number a die can reach.
MAX_TARGETS_REMEMBERED = 20
# SR3 modifiers: blind fire +8; partial cover +4 (the scene's "good" cover is partial cover
# too, and "full" cover is blind fire: choice).
BLIND_FIRE = 8
COVER: Mapping[str, int] = MappingProxyType({"none": 0, "partial": 4, "good": 4, "full": 0})
# SR3 modifiers: multiple targets +2 per additional target that phase.
MULTIPLE_TARGETS = 2
# SR3 modifiers: target running +2, stationary -1 (walking: none).
TARGET_MOVEMENT: Mapping[str, int] = MappingProxyType(
    {"stationary": -1, "walking": 0, "running": 2}
)
# SR3 modifiers: attacker walking +1 (difficult ground +2), running +4 (difficult ground +6).
ATTACKER_MOVEMENT: Mapping[str, int] = MappingProxyType(
    {
        "stationary": 0,
        "walking": 1,
        "walking_difficult": 2,
        "running": 4,
        "running_difficult": 6,
    }
)
# SR3 modifiers: attacker in melee combat +2 per opponent.
MELEE_PER_OPPONENT = 2
# README (SR3 modifiers, "Attacker Wounded"): L +1, M +2, S +3, D +4.
WOUNDS: Mapping[str, int] = MappingProxyType({"none": 0, "L": 1, "M": 2, "S": 3, "D": 4})


def wounds_modifier(level: str, modifier: int | None) -> int:
    """The target-number modifier of a character's wounds: the number it gives (the two
    condition monitors added up, monitor.py), else its wound level's."""
    return modifier if modifier is not None else WOUNDS[level]


# SR3 modifiers: using a second firearm +2 for each weapon.
SECOND_FIREARM = 2
# SR3 modifiers: aimed shot -1 per simple action, at most half the skill (rounded down).
AIM_PER_ACTION = -1
AIM_SKILL_DIVISOR = 2
# Aims counted at most: half the highest skill a request may give.
MAX_AIMS = 15
# SR3 modifiers: called shot +4.
CALLED_SHOT = 4

# SR3 visibility: the Visibility Table, by vision. Low-light and thermographic vision differ
# when cybernetic (the first number of a cell) or natural (the second). Choice: one light
# condition and one obscurant add up; full light and clear air add nothing.
VISION_COLUMNS = (
    "normal",
    "low_light_cyber",
    "low_light_natural",
    "thermographic_cyber",
    "thermographic_natural",
    "ultrasound",
)
_VISIBILITY_ROWS: dict[str, tuple[int, int, int, int, int, int]] = {
    "full": (0, 0, 0, 0, 0, 0),
    "none": (0, 0, 0, 0, 0, 0),
    "full_darkness": (8, 8, 8, 4, 2, 4),
    "minimal": (6, 4, 2, 4, 2, 3),
    "partial": (2, 1, 0, 2, 1, 1),
    "glare": (2, 4, 2, 4, 2, 1),
    "mist": (2, 2, 0, 0, 0, 1),
    "light_smoke": (4, 4, 2, 0, 0, 2),
    "heavy_smoke": (6, 6, 4, 1, 0, 3),
    "thermal_smoke": (4, 4, 4, 8, 6, 2),
}
VISIBILITY: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {
        row: MappingProxyType(dict(zip(VISION_COLUMNS, cells, strict=True)))
        for row, cells in _VISIBILITY_ROWS.items()
    }
)
# SR3 visibility: during melee, half the listed modifier (choice: rounded down).
MELEE_VISIBILITY_DIVISOR = 2

# --- dodge, damage resistance and damage (SR3 crib sheet, SR3 pp. 113-114, 125) ------------
# SR3 crib sheet (SR3 p. 113): the dodge is Combat Pool dice against 4, +1 per three rounds of
# a burst or full auto.
DODGE_TARGET_NUMBER = 4
DODGE_ROUNDS_PER_POINT = 3
# SR3 crib sheet (SR3 p. 113): the attack adds at most as many Combat Pool dice as the skill.
ATTACK_POOL_AT_MOST_SKILL = True
# SR3 crib sheet (SR3 p. 114): every 2 net successes stage the level one step (up for the
# attacker, down for the defender).
SUCCESSES_PER_STAGE = 2
LEVELS: tuple[str, ...] = ("L", "M", "S", "D")
# SR3 crib sheet (SR3 p. 125): the boxes of each level.
BOXES: Mapping[str, int] = MappingProxyType({"L": 1, "M": 3, "S": 6, "D": 10})

# --- the Combat Pool (SR3 pools; 002 "Armor Layering"; SR3 armor) ----------------------------
# SR3 pools: (Intelligence + Quickness + Willpower) / 2, rounded down.
COMBAT_POOL_DIVISOR = 2
# 002, "Armor Layering": the highest piece in full, each other piece half, rounded down.
LAYERED_PIECE_DIVISOR = 2
# 002: penalties once the layered rating reaches twice Quickness; SR3 armor: the penalty is
# one Combat Pool die per point of the higher rating past that (counted from the point it is
# reached: at twice Quickness exactly, one die).
ARMOR_PENALTY_QUICKNESS_FACTOR = 2
ARMOR_POOL_PENALTY_PER_POINT = 1

# --- actions (002, "FREE ACTIONS", "SIMPLE ACTIONS", "COMPLEX ACTIONS") -----------------------
_FREE = (
    "activate_cyberware",
    "call_a_shot",
    "change_smartgun_fire_mode",
    "deactivate_focus",
    "delay_action",
    "drop_object",
    "drop_prone",
    "drop_sustained_spell",
    "eject_smartgun_clip",
    "gesture",
    "observe",
    "speak_a_phrase",
)
_SIMPLE = (
    "activate_focus",
    "call_nature_spirit",
    "change_gun_mode",
    "change_position",
    "command_a_spirit",
    "fire_weapon_sa_bf",
    "insert_clip",
    "observe_in_detail",
    "pick_up_put_down_object",
    "quick_draw",
    "ready_weapon",
    "remove_clip",
    "shift_perception",
    "take_aim",
    "throw_weapon",
    "use_simple_object",
)
_COMPLEX = (
    "astral_projection",
    "banish_spirit",
    "call_elemental",
    "cast_spell",
    "control_spirit",
    "erase_astral_signature",
    "fire_weapon_ss_fa",
    "fire_mounted_weapon",
    "fire_vehicle_weapon",
    "melee_unarmed_attack",
    "reload_firearm",
    "summon_nature_spirit",
    "use_complex_object",
    "use_skill",
)
ACTION_KINDS: Mapping[str, ActionKind] = MappingProxyType(
    {
        **dict.fromkeys(_FREE, "free"),
        **dict.fromkeys(_SIMPLE, "simple"),
        **dict.fromkeys(_COMPLEX, "complex"),
    }
)
# 002, "COMBAT": a phase is one free action and one complex action, or the complex action
# traded for two simple (or two free) actions.
PHASE_FREE_ACTIONS = 1
PHASE_COMPLEX_ACTIONS = 1
SIMPLE_ACTIONS_PER_COMPLEX = 2
# The initiative engine's numbers (service/rules/initiative.py). 002, "INITIATIVE": descending
# scores, 10 off each at the end of a pass, a held action ordered as a tie; "COMBAT": the phase
# above, so three free actions, or one free and two simple, or one free and one complex.
# **Choice** (SR3 core, "Initiative": Reaction + the initiative dice, 1d6 and more from
# augmentations, at most 5d6): the base is Reaction; SR3 has tied actors act at once, and the
# service, which needs one order, puts the higher Reaction first (the usual table practice),
# then the order given.
INITIATIVE = InitiativeRules(
    source="002_65e09aecd368bc68.txt, INITIATIVE and COMBAT (passes, holds, a free and a "
    "complex action, the complex for two simple or two free); SR3 core rules, Initiative "
    "(Reaction + 1d6 and more; ties by Reaction)",
    base=("reaction",),
    ties=("reaction",),
    # **Choice** (SR3 core, "Damage Modifiers": a wound takes off initiative what it adds to
    # target numbers): L -1, M -2, S -3, and D -4 as README's target-number row goes.
    sheet_modifier=lambda sheet: -wounds_modifier(sheet.wounds, sheet.wound_modifier),
    budgets=(
        ActionsUsed(free=PHASE_FREE_ACTIONS, complex=PHASE_COMPLEX_ACTIONS),
        ActionsUsed(free=PHASE_FREE_ACTIONS, simple=SIMPLE_ACTIONS_PER_COMPLEX),
        ActionsUsed(free=PHASE_FREE_ACTIONS + SIMPLE_ACTIONS_PER_COMPLEX),
    ),
)
# "other" stands for any action the tables do not name, counted as a simple one.
OTHER_ACTION_KIND: ActionKind = "simple"
# The attack endpoint's modes as the actions of the tables.
MODE_ACTIONS: Mapping[str, str] = MappingProxyType(
    {
        "SS": "fire_weapon_ss_fa",
        "SA": "fire_weapon_sa_bf",
        "BF": "fire_weapon_sa_bf",
        "FA": "fire_weapon_ss_fa",
    }
)
