"""Hard Life numbers, each row citing where it comes from.

"004" is rules-sources/004_afd6299c3d537f5c.txt (its section, and its table number); "README" is
rules-sources/README.md, "Shadowrun 3 (`sr3`) and Hard Life (`sr3-hardlife`)". The SR3 core the
rules sit on (range bands, situation modifiers, Combat Pool, initiative) is service/rules/sr3/
tables.py, used as it is. Every number that is neither 004's nor README's is a **choice** in
docs/rulesets/sr3-hardlife.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from schemas.sr3hl import ArmorRow, Garment, Location, MonitorName

DamageLevel = Literal["L", "M", "S", "D"]
LEVELS: tuple[DamageLevel, ...] = ("L", "M", "S", "D")

# --- Determine Hit Location (004, Table 1) ---------------------------------------------------
# Net successes in the attacker's favour -> hexes the shot scatters from the aim point (4+: none).
# README: a tie (0 net, not a clean miss) scatters 4, one step past the table.
SCATTER_HEXES: Mapping[int, int] = MappingProxyType({0: 4, 1: 3, 2: 2, 3: 1})
NO_SCATTER_FROM = 4

# --- Determine Armour Resistance (004, Table 2) ----------------------------------------------
# The base damage level of the attack -> the armour successes that stop it (soak number).
SOAK: Mapping[DamageLevel, int] = MappingProxyType({"L": 2, "M": 4, "S": 6, "D": 8})
# 004, Armour and Armour Degradation: armour-piercing rounds lower the target number by half
# the armour's rating only (rounded down: **choice**), and meet its full dice.
ARMOR_PIERCING_DIVISOR = 2

# --- Damage Test (004, Table 3) --------------------------------------------------------------
# 004: Power dice against target number 4; a 1 takes a success off, a 6 adds one.
DAMAGE_TARGET_NUMBER = 4
# Attacker's net successes -> damage dice modifier (4: none; 6+: +2). README: 0 net takes -4.
DAMAGE_DICE: Mapping[int, int] = MappingProxyType({0: -4, 1: -3, 2: -2, 3: -1, 4: 0, 5: 1})
DAMAGE_DICE_FROM_SIX = 2
# 004: every two successes stage the level up one, every two below zero stage it down one.
SUCCESSES_PER_STAGE = 2

# --- Resolve Stun and Knock-back (004, Table 4) ----------------------------------------------
# 004: the stun has half the weapon's Power (rounded down) and the weapon's base level (README:
# the base level for both the stun and the Table 4 row; knock-back from the successes before
# staging).
STUN_POWER_DIVISOR = 2
KnockBack = Literal["none", "knocked_down", "knocked_back"]
# Row (base level) -> Body successes 0, 1, ..., 6+ -> (effect, metres).
KNOCK_BACK: Mapping[DamageLevel, tuple[tuple[KnockBack, int], ...]] = MappingProxyType(
    {
        "L": (
            ("knocked_down", 0),
            ("knocked_back", 3),
            ("knocked_back", 2),
            ("knocked_back", 1),
            ("none", 0),
            ("none", 0),
            ("none", 0),
        ),
        "M": (
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_back", 3),
            ("knocked_back", 2),
            ("knocked_back", 1),
            ("none", 0),
            ("none", 0),
        ),
        "S": (
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_back", 3),
            ("knocked_back", 2),
            ("knocked_back", 1),
            ("none", 0),
        ),
        "D": (
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_down", 0),
            ("knocked_back", 3),
            ("knocked_back", 2),
            ("knocked_back", 1),
        ),
    }
)

# --- Resolve Recovery Roll (004, Table 5) ----------------------------------------------------
# 004: Willpower (README: the rule, not the example's Body) against 2 + injury modifiers; the
# level sustained (stun or physical, the higher; the weapon's base level when nothing got
# through) -> successes needed.
RECOVERY_TARGET_NUMBER = 2
RECOVERY_NEEDED: Mapping[DamageLevel, int] = MappingProxyType({"L": 1, "M": 2, "S": 3, "D": 4})

# --- Taking Damage (004, Table 6) ------------------------------------------------------------
# Location -> (bonus damage successes on its own monitor, damage shift to the trauma monitor).
DAMAGE_MODIFIERS: Mapping[Location, tuple[int, int]] = MappingProxyType(
    {
        "head": (4, 0),
        "vitals": (2, 0),
        "torso": (0, 0),
        "groin": (2, 0),
        "right_arm": (0, -2),
        "left_arm": (0, -2),
        "right_hand": (4, -4),
        "left_hand": (4, -4),
        "right_thigh": (0, -1),
        "left_thigh": (0, -1),
        "right_leg": (0, -2),
        "left_leg": (0, -2),
        "right_foot": (2, -4),
        "left_foot": (2, -4),
    }
)
# 004, Taking Damage: the primary locations (with the trauma monitor, they set the modifiers).
PRIMARY: frozenset[MonitorName] = frozenset({"head", "torso", "vitals", "groin", "trauma"})
LIMBS: frozenset[Location] = frozenset(loc for loc in DAMAGE_MODIFIERS if loc not in PRIMARY)
# README: boxes as SR3 counts them, added up; the level is the highest reached.
BOXES: Mapping[DamageLevel, int] = MappingProxyType({"L": 1, "M": 3, "S": 6, "D": 10})
# SR3 wound modifiers (README: L +1, M +2, S +3, D +4 to target numbers; the initiative loses
# as much, 004 "Death and Injury": deadly is +4 and -4). Physical and stun add up, as both of
# 004's worked examples add them.
WOUND_MODIFIER: Mapping[DamageLevel, int] = MappingProxyType({"L": 1, "M": 2, "S": 3, "D": 4})

# --- Death and Injury (004) ------------------------------------------------------------------
# Willpower against 3 + modifiers to stay conscious at deadly.
CONSCIOUSNESS_TARGET_NUMBER = 3
# Dead (primary or trauma) or crippled (limb) at 10 + Body boxes of physical damage.
DEATH_BOXES_BASE = 10
# The most boxes a monitor keeps (past death nothing more is counted).
MAX_BOXES = 100

# --- Armour (004, Table 7) -------------------------------------------------------------------
# Every garment's (ballistic, impact) by row; a row left out is not covered ("-").
ARMOR_ROWS: tuple[ArmorRow, ...] = (
    "head",
    "torso",
    "vitals",
    "groin",
    "arms",
    "thighs",
    "legs",
    "hands_feet",
)
_R = tuple[int, int]
GARMENTS: Mapping[Garment, Mapping[ArmorRow | Literal["overall"], _R]] = MappingProxyType(
    {
        "clothing": {
            "torso": (3, 0),
            "vitals": (3, 0),
            "groin": (3, 0),
            "arms": (3, 0),
            "thighs": (3, 0),
            "legs": (3, 0),
            "overall": (3, 0),
        },
        "jacket": {
            "torso": (6, 4),
            "vitals": (6, 4),
            "arms": (3, 1),
            "overall": (5, 3),
        },
        "long_coat": {
            "torso": (5, 3),
            "vitals": (5, 3),
            "groin": (3, 0),
            "arms": (3, 1),
            "thighs": (4, 2),
            "legs": (4, 2),
            "overall": (4, 2),
        },
        "vest": {"torso": (4, 3), "vitals": (4, 3), "overall": (2, 1)},
        "flak_vest": {"torso": (6, 5), "vitals": (6, 5), "overall": (4, 3)},
        "leathers": {
            "torso": (0, 2),
            "vitals": (0, 2),
            "groin": (0, 2),
            "arms": (0, 2),
            "thighs": (0, 2),
            "legs": (0, 2),
            "overall": (0, 2),
        },
        "synth_leathers": {
            "torso": (0, 1),
            "vitals": (0, 1),
            "groin": (0, 1),
            "arms": (0, 1),
            "thighs": (0, 1),
            "legs": (0, 1),
            "overall": (0, 1),
        },
        # 004 gives the helmet's overall as "+1": **choice**, +1 ballistic and +1 impact added
        # to the overall value after layering.
        "helmet": {"head": (5, 3)},
        "partial_suit": {
            "head": (5, 3),
            "torso": (7, 5),
            "vitals": (7, 5),
            "groin": (5, 3),
            "arms": (4, 2),
            "thighs": (5, 3),
            "legs": (4, 2),
            "hands_feet": (3, 1),
            "overall": (6, 4),
        },
        "full_suit": {
            "head": (5, 3),
            "torso": (8, 6),
            "vitals": (8, 6),
            "groin": (6, 4),
            "arms": (5, 3),
            "thighs": (6, 4),
            "legs": (5, 3),
            "hands_feet": (4, 2),
            "overall": (8, 6),
        },
        "form_fitting_1": {"torso": (4, 1), "overall": (2, 0)},
        "form_fitting_2": {
            "torso": (4, 1),
            "vitals": (4, 1),
            "groin": (4, 1),
            "thighs": (4, 1),
            "overall": (3, 1),
        },
        "form_fitting_3": {
            "torso": (4, 1),
            "vitals": (4, 1),
            "groin": (4, 1),
            "arms": (4, 1),
            "thighs": (4, 1),
            "legs": (4, 1),
            "overall": (4, 1),
        },
    }
)
HELMET_OVERALL_BONUS = 1
# Which Table 7 row covers each location.
ROW_OF: Mapping[Location, ArmorRow] = MappingProxyType(
    {
        "head": "head",
        "torso": "torso",
        "vitals": "vitals",
        "groin": "groin",
        "right_arm": "arms",
        "left_arm": "arms",
        "right_hand": "hands_feet",
        "left_hand": "hands_feet",
        "right_thigh": "thighs",
        "left_thigh": "thighs",
        "right_leg": "legs",
        "left_leg": "legs",
        "right_foot": "hands_feet",
        "left_foot": "hands_feet",
    }
)
# 004, Armour Degradation: the points a hit takes off the armour at its location, by level
# (a light hit takes none: **choice**, 004 names moderate, serious and deadly), +1 when the
# shot penetrated.
DEGRADATION: Mapping[DamageLevel, int] = MappingProxyType({"L": 0, "M": 1, "S": 2, "D": 3})
DEGRADATION_PENETRATED = 1

# --- Dodging (004, Table 8) ------------------------------------------------------------------
DODGE_TARGET_NUMBER = 4
DODGE_AREA_EFFECT = 2
DODGE_VISIBILITY_DIVISOR = 2
DODGE_INTO_COVER = -2
DODGE_COVER_METRES_PER_POINT = 2
DODGE_PRONE = 2
# 004, Automatic fire (Pete) and Suppression Fire (Whisper): +1 to the dodge per 3 rounds.
DODGE_ROUNDS_PER_POINT = 3

# --- Automatic fire and Scatter (004) --------------------------------------------------------
# Each round past the compensated ones: +1 to its target number, +2 for heavy weapons.
ROUND_TARGET_NUMBER_STEP = 1
HEAVY_ROUND_TARGET_NUMBER_STEP = 2
# Rounds that hit one location are tested against armour in groups of three.
ARMOR_GROUP = 3

# --- Suppression Fire (004, Tables 9 and 10) -------------------------------------------------
SUPPRESSION_TARGET_NUMBER = 4
# "+2/+8": **choice**, partial cover +2, good cover +8 (full cover: not reachable).
SUPPRESSION_COVER: Mapping[str, int] = MappingProxyType({"none": 0, "partial": 2, "good": 8})
SUPPRESSION_RANGE: Mapping[str, int] = MappingProxyType(
    {"short": 0, "medium": 1, "long": 2, "extreme": 4}
)
# Table 10: 2d6 -> location; (right, left) where a d6 of 6 makes an arm a hand, a leg a foot.
HIT_LOCATION: Mapping[int, Location] = MappingProxyType(
    {
        2: "head",
        3: "right_leg",
        4: "right_thigh",
        5: "right_arm",
        6: "torso",
        7: "vitals",
        8: "torso",
        9: "left_arm",
        10: "left_thigh",
        11: "left_leg",
        12: "groin",
    }
)
EXTREMITY: Mapping[Location, Location] = MappingProxyType(
    {
        "right_leg": "right_foot",
        "right_arm": "right_hand",
        "left_arm": "left_hand",
        "left_leg": "left_foot",
    }
)
EXTREMITY_ON = 6
# The most bullets a request may put into one square metre, and a zone's area.
MAX_BULLETS_PER_M2 = 50
