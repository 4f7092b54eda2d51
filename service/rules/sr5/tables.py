"""Shadowrun 5 numbers, each row citing where it comes from.

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt; "README" is rules-sources/README.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from schemas.initiative import ActionKind, ActionsUsed
from schemas.sr5 import MAX_RATING
from service.rules.ruleset import InitiativeRules

RangeBand = Literal["short", "medium", "long", "extreme"]
Action = Literal["simple", "complex"]


@dataclass(frozen=True, slots=True)
class RangeBands:
    """Upper bounds in metres of short, medium, long and extreme; closer than `minimum` is
    out of range (launcher minimum ranges)."""

    short: float
    medium: float
    long: float
    extreme: float
    minimum: float = 0.0


# README: "the SR5 weapon range bands" (SR5 core rulebook, Range Table, p. 185; tabulated
# publicly e.g. in Jasrags/ShadowMaster docs/data_tables/combat/range_table.md).
RANGE_BANDS: dict[str, RangeBands] = {
    "taser": RangeBands(5, 10, 15, 20),
    "hold_out_pistol": RangeBands(5, 15, 30, 50),
    "light_pistol": RangeBands(5, 15, 30, 50),
    "heavy_pistol": RangeBands(5, 20, 40, 60),
    "machine_pistol": RangeBands(5, 15, 30, 50),
    "submachine_gun": RangeBands(10, 40, 80, 150),
    "assault_rifle": RangeBands(25, 150, 350, 550),
    "shotgun": RangeBands(10, 40, 80, 150),  # slug
    "shotgun_flechette": RangeBands(15, 30, 45, 60),
    "sniper_rifle": RangeBands(50, 350, 800, 1500),
    "light_machine_gun": RangeBands(25, 200, 400, 800),
    "medium_machine_gun": RangeBands(40, 250, 750, 1200),
    "heavy_machine_gun": RangeBands(40, 250, 750, 1200),
    "assault_cannon": RangeBands(50, 300, 750, 1500),
    "grenade_launcher": RangeBands(50, 100, 150, 500, minimum=5),
    "missile_launcher": RangeBands(70, 150, 450, 1500, minimum=20),
}

# The guide, "Heavy Weapons": machine guns, assault cannons, grenade, rocket and missile
# launchers; recoil left after compensation is doubled for them.
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
class FiringMode:
    rounds: int
    action: Action
    defense_modifier: int
    # The mode the weapon must list to fire this one.
    needs: str
    # Rounds that count toward progressive recoil (a single shot incurs none).
    recoil_rounds: int


# The guide, firing modes SS, SA, SB, BF, LB, FA (simple) and FA (complex), and the defense
# modifiers listed under "Attacker firing ...".
FIRING_MODES: dict[str, FiringMode] = {
    "SS": FiringMode(rounds=1, action="simple", defense_modifier=0, needs="SS", recoil_rounds=0),
    "SA": FiringMode(rounds=1, action="simple", defense_modifier=0, needs="SA", recoil_rounds=1),
    "SB": FiringMode(rounds=3, action="complex", defense_modifier=-2, needs="SA", recoil_rounds=3),
    "BF": FiringMode(rounds=3, action="simple", defense_modifier=-2, needs="BF", recoil_rounds=3),
    "LB": FiringMode(rounds=6, action="complex", defense_modifier=-5, needs="BF", recoil_rounds=6),
    "FA": FiringMode(rounds=6, action="simple", defense_modifier=-5, needs="FA", recoil_rounds=6),
    "FA_complex": FiringMode(
        rounds=10, action="complex", defense_modifier=-9, needs="FA", recoil_rounds=10
    ),
    # The guide, suppressive fire: a complex action of 20 rounds from a full-auto weapon. Its
    # test lists no recoil; choice: it neither takes nor adds progressive recoil.
    "suppressive": FiringMode(
        rounds=20, action="complex", defense_modifier=0, needs="FA", recoil_rounds=0
    ),
}

# The guide, "Recoil": one point of compensation for everyone, plus Strength / 3 rounded up.
BASE_RECOIL_COMPENSATION = 1
STRENGTH_PER_COMPENSATION = 3
HEAVY_WEAPON_RECOIL_FACTOR = 2
# Rounds counted at most: far past where recoil leaves no die of any pool (compensation is at most
# 1 + 30 / 3 + 30 = 41, and no pool reaches 100 dice).
MAX_RECOIL_ROUNDS = 1_000

# The guide, cover: good +4, partial +2 to defense; fully behind cover is blind fire, -6 to attack.
COVER_DEFENSE_MODIFIER = {"none": 0, "partial": 2, "good": 4, "full": 0}
BLIND_FIRE_MODIFIER = -6

# The guide, "Smartgun systems": +2 Accuracy when active (wired or wireless); wireless adds +1
# die through gear (glasses, goggles, contacts) or +2 through an implant.
SMARTLINK_ACCURACY = {"none": 0, "wired": 2, "wireless_gear": 2, "wireless_implant": 2}
SMARTLINK_DICE = {"none": 0, "wired": 0, "wireless_gear": 1, "wireless_implant": 2}

# The guide, "Attacker ..." situational modifiers to the attack test.
RUNNING_ATTACK = -2
MOVING_VEHICLE_ATTACK = -2
IN_MELEE_ATTACK = -3
OFF_HAND_ATTACK = -2
CAMERA_ATTACK = -3
CALLED_SHOT_ATTACK = -4

# The guide, "Defender ..." modifiers to the defense test; rules-sources/README.md adds prone -2
# and -1 for each earlier defense since the defender's last action.
RUNNING_DEFENSE = 2
MOVING_VEHICLE_DEFENSE = 3
IN_MELEE_DEFENSE = -3
PRONE_DEFENSE = -2
AREA_EFFECT_DEFENSE = -2
EARLIER_DEFENSE = -1
# Earlier defenses counted at most: no defense pool, full defense included, has this many dice.
MAX_DEFENSES_COUNTED = 200

# The guide, multiple targets: at most half the combat skill, rounded down; burst and automatic
# modes attack several targets with one action.
MULTIPLE_TARGET_MODES = frozenset({"SB", "BF", "LB", "FA", "FA_complex"})

# The guide, "Aim": +1 accuracy or +1 die per aim action, each capped at half Willpower rounded
# up; a wireless smartlink gives both with every aim.
AIM_CAP_DIVISOR = 2
# Aims counted at most: past half the highest Willpower a request may give, more changes nothing.
MAX_AIMS = math.ceil(MAX_RATING / AIM_CAP_DIVISOR)
WIRELESS_SMARTLINKS = frozenset({"wireless_gear", "wireless_implant"})

# The guide, "Full Defense": -10 initiative; adds Willpower, or what a quality puts in its place,
# to every defense test until the combat turn ends. Skill-based qualities bring the skill's limit.
FULL_DEFENSE_INITIATIVE = -10

# The initiative engine's numbers (service/rules/initiative.py). Initiative = Reaction +
# Intuition + 1d6 (the guide's "initiative score"; SR5 core, "Initiative": base 1d6, at most
# 5d6); ties by Edge, then Reaction, then Intuition (SR5 core, "Initiative": the "ERIC" order;
# a tie that still stands keeps the order the actors were given). A phase holds one free action
# and one complex or two simple ones (SR5 core, "Action Phase"). Interrupts are paid from the
# score: full defense 10 (the guide), hitting the dirt 5 (SR5 core, "Interrupt Actions").
INITIATIVE = InitiativeRules(
    source="000_43afc0edeb7f6e19.txt (full defense -10); SR5 core rules, Initiative and "
    "Action Phase (Reaction + Intuition + 1d6; ties: Edge, Reaction, Intuition; 1 free + 1 "
    "complex or 2 simple)",
    base=("reaction", "intuition"),
    ties=("edge", "reaction", "intuition"),
    # SR5 core, "Wound Modifiers": they apply to initiative too.
    sheet_modifier=lambda sheet: sheet.wound_modifier,
    budgets=(ActionsUsed(free=1, complex=1), ActionsUsed(free=1, simple=2)),
)
HIT_THE_DIRT_INITIATIVE = -5
# What each action takes of a phase: taking aim and reloading a clip are simple actions,
# dropping prone a free one (SR5 core, "Actions"); "other" stands for any action other than
# firing, counted as a simple one; moving is no action (SR5 core, "Movement"); Second Chance is
# Edge, and a held (delayed) action is a declaration, neither taking any room.
ACTION_KINDS: dict[str, ActionKind | None] = {
    "take_aim": "simple",
    "reload": "simple",
    "other": "simple",
    "drop_prone": "free",
    "move": None,
    "second_chance": None,
    "delay_action": None,
    "full_defense": None,
    "hit_the_dirt": None,
}


@dataclass(frozen=True, slots=True)
class FullDefenseBonus:
    # The defender field added to the defense pool, and the limit field capping its hits.
    adds: str
    limit: str | None = None


FULL_DEFENSE: dict[str, FullDefenseBonus] = {
    "willpower": FullDefenseBonus("willpower"),
    "acrobatic_defender": FullDefenseBonus("gymnastics", limit="physical_limit"),
    "agile_defender": FullDefenseBonus("agility"),
    "perceptive_defender": FullDefenseBonus("perception", limit="mental_limit"),
    "too_pretty_to_hit": FullDefenseBonus("charisma"),
}


@dataclass(frozen=True, slots=True)
class Ammunition:
    dv: int
    # Added to the weapon's AP, or in its place when `replaces_ap`.
    ap: int
    damage_type: str | None = None
    replaces_ap: bool = False


# SR5 core rulebook, Ammunition (pp. 433-434), as tabulated publicly (e.g. Chummer5a's data; the
# roll20 SR5 sheet sets Stick-n-Shock's AP to -5 whatever the weapon's).
AMMUNITION: dict[str, Ammunition] = {
    "regular": Ammunition(dv=0, ap=0),
    "apds": Ammunition(dv=0, ap=-4),
    "explosive": Ammunition(dv=1, ap=-1),
    "ex_explosive": Ammunition(dv=2, ap=-1),
    "flechette": Ammunition(dv=2, ap=5),
    "gel": Ammunition(dv=0, ap=1, damage_type="S"),
    "hollow_point": Ammunition(dv=1, ap=2),
    "stick_n_shock": Ammunition(dv=-2, ap=-5, damage_type="S", replaces_ap=True),
    "tracer": Ammunition(dv=0, ap=0),
}

# The guide, "Attacker firing Flechette Shotgun on ... Spread": the defense modifiers; medium and
# wide spreads attack several targets and cannot be called shots.
CHOKE_DEFENSE = {"narrow": -1, "medium": -3, "wide": -5}
SPREADING_CHOKES = frozenset({"medium", "wide"})
FLECHETTE_SHOTGUNS = frozenset({"shotgun_flechette"})

# The guide, suppressive fire: a triangle from the shooter, 10 m wide at its end (5 m enhanced),
# 2 m high; rules-sources/README.md for the flechette chokes (narrow as enhanced; medium 10 m and
# wide 15 m, with the -3 and -5 spread modifiers to the test of those inside).
ZONE_END_WIDTH = 10.0
ENHANCED_END_WIDTH = 5.0
FLECHETTE_ZONE = {"narrow": (5.0, 0), "medium": (10.0, -3), "wide": (15.0, -5)}
# Choice: "immediately adjacent" is within a metre of the zone.
ADJACENT_M = 1.0
