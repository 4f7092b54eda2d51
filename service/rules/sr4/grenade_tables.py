"""SR4 grenade numbers: the ones the document gives (001_2cfc288dfef1df08.txt, "GRENADES"), and
those it leaves to the published SR4 tables (its "Scatter Table" and "Grenade Damage Table" are
not in it). Every number here can also be given in the request (schemas/sr4.py `SR4Grenade`),
so a table can use its own grenades; docs/rulesets/sr4.md lists them with their sources."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schemas.sr4 import DamageType, GrenadeDelivery


@dataclass(frozen=True, slots=True)
class GrenadeRow:
    """A grenade's damage code and how its blast falls off."""

    dv: int
    damage_type: DamageType
    ap: int
    # DV lost per metre from the blast point (0: even over `radius_m`).
    falloff_per_m: int
    # How far an even blast reaches (None: as far as the DV lasts).
    radius_m: float | None = None


# The published SR4 Grenades table (SR4 core rulebook, Street Gear, "Grenades"; the same rows
# as a public SR4 gear data set lists them: flash-bang 6S AP -3 10 m radius, fragmentation
# 12P(f) AP +5 -1/m, high explosive 10P AP -2 -2/m, gas / smoke / thermal smoke 10 m radius).
# Gas, smoke and thermal smoke do no blast damage (DV 0: nobody is hit); their cloud's effect
# (the chemical, the visibility) is the table's business, not the blast's.
GRENADES: dict[str, GrenadeRow] = {
    "fragmentation": GrenadeRow(dv=12, damage_type="P", ap=5, falloff_per_m=1),
    "high_explosive": GrenadeRow(dv=10, damage_type="P", ap=-2, falloff_per_m=2),
    "flash_bang": GrenadeRow(dv=6, damage_type="S", ap=-3, falloff_per_m=0, radius_m=10.0),
    "gas": GrenadeRow(dv=0, damage_type="S", ap=0, falloff_per_m=0, radius_m=10.0),
    "smoke": GrenadeRow(dv=0, damage_type="S", ap=0, falloff_per_m=0, radius_m=10.0),
    "thermal_smoke": GrenadeRow(dv=0, damage_type="S", ap=0, falloff_per_m=0, radius_m=10.0),
}

# The published SR4 Scatter Table (SR4 core rulebook, Combat, "Scatter Table": standard grenade
# 3D6, aerodynamic grenade 2D6, grenade launcher 3D6 metres). Not found in a public source
# while this was written: these are the book's numbers as recalled; `scatter_dice` in the
# request overrides them.
SCATTER_DICE: dict[GrenadeDelivery, int] = {"standard": 3, "aerodynamic": 2, "launcher": 3}
# 001, "Determine Scatter": airburst grenades roll only 1D6 for scatter.
AIRBURST_SCATTER_DICE = 1
# 001, "Determine Scatter": 2 m off the scatter per net hit for a standard grenade, 4 m for an
# aerodynamic grenade or a launcher's.
METRES_PER_NET_HIT: dict[GrenadeDelivery, int] = {"standard": 2, "aerodynamic": 4, "launcher": 4}
# 001, "Grenade Launcher Minimum Range": mini-grenades arm after about 5 m; `arming_m` 0 once the
# safety is disarmed. Thrown grenades have none.
LAUNCHER_ARMING_M = 5.0

# The scatter diagram (001, "Determine Scatter", not drawn in the document): six directions 60
# degrees apart, 1 straight on past the aimed point (along the line from the thrower), then
# clockwise, so that 4 is straight back toward the thrower.
SCATTER_DIRECTIONS = 6
DEGREES_PER_DIRECTION = 360 // SCATTER_DIRECTIONS

# SR4 core rulebook, Combat, "Barriers" (destroying barriers): an explosive's DV counts double
# against a barrier, which must then exceed the barrier's Armor to damage it, and resists with
# Structure + Armor dice; damage that reaches its Structure breaks it. The doubling is the
# book's as recalled (SR3 likewise set a blast against twice the Barrier Rating); a GM who
# reads it otherwise says whether the barrier holds (`SR4Barrier.holds`).
BLAST_DV_AGAINST_BARRIERS = 2

# How the metres of the fall-off are counted: whole metres, rounded down (a DV loss per metre
# is lost once the metre is covered), with this much slack for points given to centimetres.
METRE_SLACK = 1e-6

# The dice steps a grenade rolls (documented in docs/rulesets/sr4.md).
SCATTER_DIRECTION_STEP = "scatter_direction"
SCATTER_STEP = "scatter"
Track = Literal["physical", "stun"]
