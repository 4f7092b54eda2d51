"""Shadowrun 4 numbers, each row citing where it comes from.

"001" is rules-sources/001_2cfc288dfef1df08.txt, the SR4 ranged combat document; "002" the SR3
document whose weapon range table SR4 kept (rules-sources/README.md, "Shadowrun 4"). Where 001
is silent the published SR4 core rules (FanPro/Catalyst, 2005; 20th anniversary 2009) are
used, cited by their table's name: "SR4 core, <table>". Each such number is a **choice** in
docs/rulesets/sr4.md, and most can also be given in the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from schemas.initiative import ActionKind, ActionsUsed
from service.rules.ruleset import InitiativeRules
from service.rules.sr3.tables import IMPACT_PROJECTILES as SR3_IMPACT_PROJECTILES
from service.rules.sr3.tables import RANGE_BANDS as SR3_RANGE_BANDS
from service.rules.sr3.tables import RangeBands

RangeBand = Literal["short", "medium", "long", "extreme"]
Action = Literal["simple", "complex"]

# --- range (001, "Range"; README: the SR3 bands, modifiers 0 / -1 / -3 / -6) -----------------
RANGE_MODIFIER: Mapping[RangeBand, int] = MappingProxyType(
    {"short": 0, "medium": -1, "long": -3, "extreme": -6}
)
# 002's weapon range table (service/rules/sr3/tables.py), and the thrown grenades that 002 does
# not list: SR4 core, Weapon Range Table, "Standard grenade" STR x 2 / x 4 / x 6 / x 10 and
# "Aerodynamic grenade" STR x 2 / x 4 / x 8 / x 15 (metres, by the thrower's Strength).
RANGE_BANDS: Mapping[str, RangeBands] = MappingProxyType(
    {
        **SR3_RANGE_BANDS,
        "standard_grenade": RangeBands(2, 4, 6, 10, per_strength=True),
        "aerodynamic_grenade": RangeBands(2, 4, 8, 15, per_strength=True),
    }
)
# 002's impact projectiles and the thrown grenades meet impact armour; the rest ballistic.
IMPACT_CATEGORIES = frozenset({*SR3_IMPACT_PROJECTILES, "standard_grenade", "aerodynamic_grenade"})
GRENADE_CATEGORIES = frozenset({"standard_grenade", "aerodynamic_grenade", "grenade_launcher"})

# --- attacker and target situation (001, "Ranged Attack Modifiers") ---------------------------
RUNNING_ATTACK = -2  # 001, "Attacker Running"
IN_MELEE_ATTACK = -3  # 001, "Attacker in Melee Combat"
MOVING_VEHICLE_ATTACK = -3  # 001, "Attacker in a Moving Vehicle"
PARTIAL_COVER = -2  # 001, "Target Has Partial Cover"
GOOD_COVER = -4  # 001, "Target Has Good Cover"
# 001, "Target Has Good Cover": also for prone targets at least 20 m away.
PRONE_GOOD_COVER_FROM_M = 20.0
BLIND_FIRE = -6  # 001, "Target Hidden (Blind Fire)"; Intuition in place of Agility
FROM_COVER_ATTACK = -1  # 001, "Attacker Firing From Cover"
LASER_SIGHT = 1  # 001, "Attacker Using Laser Sight": out to 50 m, not in mist, smoke, fog, rain
LASER_SIGHT_REACH_M = 50.0
LASER_COUNTERED_BY = frozenset(
    {
        "mist",
        "light_fog",
        "light_rain",
        "light_smoke",
        "heavy_fog",
        "heavy_rain",
        "heavy_smoke",
        "thermal_smoke",
    }
)
SMARTLINK = 2  # 001, "Attacker Using Smartlinked Weapon"; not with the laser sight's bonus
OFF_HAND_ATTACK = -2  # 001, "Attacker Using Off-Hand Weapon"
AIM_BONUS = 1  # 001, "Aimed Shot": +1 a Simple Action spent aiming
# Aims counted at most: 001 and the SR4 core give no cap; the state keeps a bound.
MAX_AIMS = 20
MULTIPLE_TARGETS = -2  # 001, "Multiple Targets": -2 per additional target in the phase

# --- the Visibility Table (001, "Visibility Impaired": by the vision used) ---------------------
# SR4 core, Visibility Table (p. 152 of the 2005 printing): normal, low-light, thermographic,
# ultrasound. The rows that apply add up (choice: 001 says to consult the table, not to take
# the worst only).
VISIONS = ("normal", "low_light", "thermographic", "ultrasound")
VISIBILITY: Mapping[str, tuple[int, int, int, int]] = MappingProxyType(
    {
        "full_darkness": (-6, -6, -3, -3),
        "partial_light": (-2, 0, -2, -3),
        "glare": (-1, -1, -1, 0),
        "mist": (-2, 0, 0, 0),
        "light_fog": (-4, -2, 0, 0),
        "light_rain": (-4, -2, 0, 0),
        "light_smoke": (-4, -2, 0, 0),
        "heavy_fog": (-6, -4, -2, -1),
        "heavy_rain": (-6, -4, -2, -1),
        "heavy_smoke": (-6, -4, -2, -1),
        "thermal_smoke": (-4, -2, -6, -1),
    }
)

# --- firing modes and recoil per action phase (001, "Recoil", "Firearms") ---------------------


@dataclass(frozen=True, slots=True)
class FiringMode:
    rounds: int
    action: Action
    # The recoil of the first attack of the action phase, and of the second (001).
    first_recoil: int
    second_recoil: int
    # A narrow burst's DV, and a wide burst's dice off the defense (001).
    narrow_dv: int
    wide_defense: int
    # What the weapon must list to fire it: any of these modes.
    needs: frozenset[str]
    burst: bool


FIRING_MODES: Mapping[str, FiringMode] = MappingProxyType(
    {
        # 001, "Single-Shot Mode": a simple action; the weapon fires once a phase.
        "SS": FiringMode(1, "simple", 0, 0, 0, 0, frozenset({"SS"}), burst=False),
        # 001, "Semi-Automatic Mode": the second shot of the phase -1.
        "SA": FiringMode(1, "simple", 0, -1, 0, 0, frozenset({"SA"}), burst=False),
        # 001, "Burst-Fire Mode" (and "Full-Auto Mode": full-auto weapons fire bursts too):
        # 3 rounds, -2 then -3; narrow +2 DV, wide -2 defense.
        "BF": FiringMode(3, "simple", -2, -3, 2, -2, frozenset({"BF", "FA"}), burst=True),
        # 001, "Long Bursts": 6 rounds, -5 then -6, one a phase; narrow +5, wide -5.
        "LB": FiringMode(6, "simple", -5, -6, 5, -5, frozenset({"FA"}), burst=True),
        # 001, "Full Bursts": 10 rounds, a complex action, -9; narrow +9, wide -9.
        "FB": FiringMode(10, "complex", -9, -9, 9, -9, frozenset({"FA"}), burst=True),
        # 001, "Suppressive Fire": 20 rounds, complex; its wide burst and recoil cancel out.
        "suppressive": FiringMode(20, "complex", 0, 0, 0, 0, frozenset({"FA"}), burst=False),
    }
)
# 001, "Not Enough Bullets": a short burst of 2 rounds takes 1 off each modifier; a long burst
# 1 or 2 rounds short 1 or 2; with 3 or fewer it is a short burst, with 1 a single shot.
SHORT_BURST_MIN_ROUNDS = 2
LONG_BURST_MIN_ROUNDS = 4
# 001, "Full Bursts", "Multiple Targets": at several targets within 1 m, separate bursts:
# one short and one long at two, three short at three.
FULL_BURST_SPLITS: Mapping[int, tuple[str, ...]] = MappingProxyType(
    {1: ("FB",), 2: ("BF", "LB"), 3: ("BF", "BF", "BF")}
)
SPREAD_WITHIN_M = 1.0
# 001, "Heavy Weapons": "light, medium, and heavy machine guns and all assault cannons" double
# uncompensated recoil (and any shotgun in burst fire mode, modifiers.recoil). The launchers
# are not on that list (002's table files them under heavy weapons for their ranges only).
HEAVY_WEAPONS = frozenset(
    {
        "light_machine_gun",
        "medium_machine_gun",
        "heavy_machine_gun",
        "assault_cannon",
    }
)
HEAVY_RECOIL_FACTOR = 2
# 001, "Attacker Using a Second Firearm": pistol- or SMG-class weapons only.
TWO_GUN_CATEGORIES = frozenset({"hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser"})

# --- shotguns with shot (001, "Shotguns") ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChokeRow:
    most_targets: int
    defense: int
    dv: int
    ap: int


CHOKES: Mapping[str, ChokeRow] = MappingProxyType(
    {
        "narrow": ChokeRow(most_targets=1, defense=0, dv=2, ap=2),
        "medium": ChokeRow(most_targets=2, defense=-2, dv=0, ap=4),
        "wide": ChokeRow(most_targets=3, defense=-4, dv=-2, ap=6),
    }
)
SHOTGUNS = frozenset({"shotgun"})

# --- ammunition (001, "Ammunition": "as noted with the ammo description") ---------------------


@dataclass(frozen=True, slots=True)
class Ammunition:
    dv: int
    ap: int
    damage_type: str | None = None
    armor: str | None = None


# SR4 core, Ammunition table (choice; a table with other loads gives them as `ammo` numbers).
AMMUNITION: Mapping[str, Ammunition] = MappingProxyType(
    {
        "regular": Ammunition(0, 0),
        "apds": Ammunition(0, -4),
        "explosive": Ammunition(1, -1),
        "flechette": Ammunition(2, 5, armor="impact"),
        "gel": Ammunition(0, 2, damage_type="S", armor="impact"),
        "hollow_point": Ammunition(1, 2),
    }
)

# --- defense (001, "Defending Against Ranged Combat") ------------------------------------------
# Reaction alone; + Dodge on full defense. -1 for each earlier defense since the defender's last
# action phase (the issue; SR4 core, "Defending against multiple attacks").
EARLIER_DEFENSE = -1
MAX_DEFENSES_COUNTED = 200

# --- suppressive fire (001, "Suppressive Fire") ------------------------------------------------
ZONE_END_WIDTH = 10.0
ZONE_HEIGHT_M = 2.0

# --- initiative (SR4 core, "Initiative") -------------------------------------------------------
# Reaction + Intuition + hits of the initiative dice (base + modifier dice rolled as a pool);
# ties by Edge, then the base, then Reaction; a phase holds one free and two simple actions or
# one free and one complex; each actor acts in as many passes as its Initiative Passes (1-4),
# and a pass takes nothing off the scores.
INITIATIVE = InitiativeRules(
    source="SR4 core rules, Initiative (Reaction + Intuition + hits on that many dice; ties by "
    "Edge, the base, Reaction; Initiative Passes 1-4; 1 free + 2 simple or 1 complex)",
    base=("reaction", "intuition"),
    ties=("edge", "base", "reaction"),
    budgets=(ActionsUsed(free=1, simple=2), ActionsUsed(free=1, complex=1)),
    sheet_modifier=lambda sheet: sheet.wound_modifier,
    dice="hits",
    passes="count",
    pass_cost=0,
)
# What each action takes of a phase (SR4 core, "Actions"): taking aim, reloading, taking cover
# and changing a choke are simple actions (a smartlinked choke change a free one, 001);
# dropping prone is free; full defense a complex action (or the actor's next phase); moving is
# no action; a re-roll of Edge and a held action take none.
ACTION_KINDS: Mapping[str, ActionKind | None] = MappingProxyType(
    {
        "take_aim": "simple",
        "reload": "simple",
        "other": "simple",
        "take_cover": "simple",
        "change_choke": "simple",
        "drop_prone": "free",
        "move": None,
        "edge_reroll": None,
        "delay_action": None,
        "full_defense": "complex",
    }
)
