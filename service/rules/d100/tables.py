"""The d100 firearms chapter's numbers, and the product's own where the chapter is silent.

Source: rules-sources/003_e47222605a1f2969.txt (the section is named in each comment); the
core-test decisions: rules-sources/README.md, "d100".
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.d100 import MAX_ACTION_POINTS, Location, ReloadMethod

# Action points counted per turn at most: ten times the highest budget an encounter may set, so a
# turn without a budget never grows the total past what any budget reads.
MAX_ACTION_POINTS_COUNTED = 10 * MAX_ACTION_POINTS


@dataclass(frozen=True, slots=True)
class ShotRateCost:
    action_points: int
    rounds: int


# "Shot Rate": the action point cost and the ammunition spent at each Shot Rate.
SHOT_RATES: dict[int, ShotRateCost] = {
    0: ShotRateCost(2, 1),
    1: ShotRateCost(2, 3),
    2: ShotRateCost(2, 6),
    3: ShotRateCost(2, 12),
    4: ShotRateCost(3, 18),
    5: ShotRateCost(3, 24),
    6: ShotRateCost(3, 30),
}
# "Shot Rate": +5 Success Target per point, up to the shooter's Recoil Control.
SHOT_RATE_BONUS = 5
# "Multi-Target Fire": SR0 attacks one target only.
MULTI_TARGET_MIN_SHOT_RATE = 1

# "Suppressive Fire": its cost, and the circle it covers.
SUPPRESSIVE_ACTION_POINTS = 3
SUPPRESSIVE_ROUNDS = 20
SUPPRESSION_DIAMETER_M = 10.0
# "Effects of Suppression": -5 to all tests per hit of the suppressive fire test.
SUPPRESSION_PENALTY_PER_HIT = -5

# "Double-Barreled Shotguns": two shells, the bonus dice doubled, nothing else.
BOTH_BARRELS_SHELLS = 2
BOTH_BARRELS_BONUS_DICE = 2

# README, "d100": Hits = 1 + (Success Target - roll) div 10 on a success.
HITS_PER = 10


@dataclass(frozen=True, slots=True)
class Reload:
    # The action points of one reload (of one batch, for loose rounds).
    action_points: int
    # Loose rounds, loaded in batches of Agility / 5 rounded up.
    per_batch: bool
    # A new magazine, belt or cell replaces what was in the weapon.
    replaces: bool


# "Reloading": the reload method table.
RELOADS: dict[ReloadMethod, Reload] = {
    "nock_arrow": Reload(0, per_batch=False, replaces=False),
    "crossbow": Reload(1, per_batch=False, replaces=False),
    "magazine": Reload(1, per_batch=False, replaces=True),
    "speedloader": Reload(1, per_batch=False, replaces=False),
    "break_action": Reload(1, per_batch=True, replaces=False),
    "belt": Reload(2, per_batch=False, replaces=True),
    "cylinder": Reload(1, per_batch=True, replaces=False),
    "internal_magazine": Reload(1, per_batch=True, replaces=False),
    "individual": Reload(1, per_batch=True, replaces=False),
    "power_cell": Reload(1, per_batch=False, replaces=True),
}
# "Reloading": a batch is Agility / 5, rounded up.
AGILITY_PER_BATCH_ROUND = 5

# The product's hit location table (README, "d100": the chapter names none): a d10.
LOCATION_DIE = 10
HIT_LOCATIONS: dict[int, Location] = {
    1: "head",
    2: "right_arm",
    3: "left_arm",
    4: "torso",
    5: "torso",
    6: "torso",
    7: "torso",
    8: "torso",
    9: "right_leg",
    10: "left_leg",
}
