"""Shadowrun 4 wire types (rules-sources/001_2cfc288dfef1df08.txt): the d6 pool test, the
grenade and its blast, and (below) the attack request, its result and the combat state.

The grenade part is shared by the attack (a grenade thrown or launched at once, airburst) and
the timed grenade the state holds until the turn reaches its moment (service/rules/sr4/
grenades.py resolves both)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import DiceRoll, Id, Modifier, Point, Request

# The highest attribute or rating a request may give.
MAX_RATING = 30
Rating = Annotated[int, msgspec.Meta(ge=0, le=MAX_RATING)]
Attribute = Annotated[int, msgspec.Meta(ge=1, le=MAX_RATING)]
DamageType = Literal["P", "S"]
# Barriers one blast may meet, and grenades the state holds at once.
MAX_BARRIERS = 50
MAX_PENDING_GRENADES = 50


class SR4Test(msgspec.Struct, frozen=True, gc=False):
    """One d6 pool: how many dice, how many hits, and its glitches (SR4: half or more ones)."""

    pool: int
    hits: int
    ones: int
    glitch: bool
    critical_glitch: bool


# --- grenades and blasts ------------------------------------------------------------------------

# The grenade table's rows (service/rules/sr4/tables.py GRENADES, with their source), or
# "custom" with every number given.
GrenadeType = Literal[
    "fragmentation", "high_explosive", "flash_bang", "gas", "smoke", "thermal_smoke", "custom"
]
# How it travels: what each net hit takes off the scatter (001, "Determine Scatter": 2 m for a
# standard grenade, 4 m for an aerodynamic one or a launcher's).
GrenadeDelivery = Literal["standard", "aerodynamic", "launcher"]


class SR4Grenade(Request):
    """What is thrown or launched. Every number left out comes from its row of the grenade
    table; a custom grenade gives them all."""

    type: GrenadeType
    delivery: GrenadeDelivery = "standard"
    # An airburst link sets it off where it lands, at once (001, "Timing Grenades"); any other
    # goes off in the next initiative pass at the thrower's score.
    airburst: bool = False
    dv: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    damage_type: DamageType | None = None
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)] | None = None
    # DV lost per metre from the blast point; 0 for a blast even over its radius.
    falloff_per_m: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    # How far an even blast (flash-bang, gas, smoke) reaches; None: as far as the DV lasts.
    radius_m: Annotated[float, msgspec.Meta(ge=0, le=1000)] | None = None
    # The d6 rolled for the scatter distance (airburst: 1, the document).
    scatter_dice: Annotated[int, msgspec.Meta(ge=0, le=20)] | None = None
    # Launcher grenades do not arm before this many metres (001: 5 m); 0 once the safety is
    # disarmed.
    arming_m: Annotated[float, msgspec.Meta(ge=0, le=100)] | None = None


class SR4Barrier(Request):
    """A wall or door on the scene plane, from `start` to `end`."""

    id: Id
    start: Point
    end: Point
    armor: Annotated[int, msgspec.Meta(ge=0, le=100)]
    structure: Annotated[int, msgspec.Meta(ge=0, le=100)]
    # The GM's word on whether it stands against this blast; None: the blast tests it.
    holds: bool | None = None


class SR4BlastActor(Request):
    """An actor where the blast may reach: where it stands and what it resists with (the
    scene's sheet fills these in)."""

    id: Id
    position: Point
    body: Attribute | None = None
    impact_armor: Rating | None = None


class SR4Scatter(msgspec.Struct, frozen=True, gc=False):
    """Where the grenade went from the point it was aimed at."""

    aimed_at: Point
    # 1-6 on the scatter diagram: 1 on past the target, 4 back toward the thrower.
    direction: int
    dice: int
    rolled_m: int
    # Net hits, and the metres each took off.
    net_hits: int
    per_hit_m: int
    distance_m: float
    landed: Point
    # Landed on the target exactly; the hits left over add to the DV.
    on_target: bool
    extra_dv: int
    # A launcher grenade that came down within its arming range of the launcher: it does not go
    # off (001, "Grenade Launcher Minimum Range").
    dud: bool = False


class SR4BarrierResult(msgspec.Struct, frozen=True, gc=False):
    barrier: str
    # The DV that reached it (doubled for a blast against a barrier where the table says so),
    # its resistance test (None when the GM said, or the DV did not exceed its armor).
    dv: int
    test: SR4Test | None
    damage: int
    holds: bool
    # A barrier that holds in a confined space sends the wave back.
    reflects: bool


class SR4BlastHit(msgspec.Struct, frozen=True, gc=False):
    actor: str
    distance_m: float
    # The wave as it went out, what came back off walls that held, and the sum.
    dv_direct: int
    dv_rebound: int
    dv: int
    # Barriers between it and the blast: one that holds shields it; one that fell adds its
    # armor to the actor's.
    shielded_by: str | None
    armor: int
    armor_modifiers: list[Modifier]
    ap: int
    track: Literal["physical", "stun"]
    # Its Body + impact armor test (None when the sheet holds no Body: the DV as it reached it).
    soak: SR4Test | None
    soak_hits: int
    boxes: int


class SR4BlastResult(
    msgspec.Struct, tag="sr4_blast", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    """A grenade going off: where, how hard, what the barriers did, and everyone it reached."""

    grenade: str
    thrower: str
    point: Point
    type: GrenadeType
    dv: int
    damage_type: DamageType
    ap: int
    falloff_per_m: int
    radius_m: float | None
    confined: bool
    barriers: list[SR4BarrierResult]
    hits: list[SR4BlastHit]
    dice: list[DiceRoll]
    seed: int


class SR4GrenadeNumbers(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A grenade's numbers once its table row and the request are put together."""

    type: GrenadeType
    dv: Annotated[int, msgspec.Meta(ge=0, le=200)]
    damage_type: DamageType
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)]
    falloff_per_m: Annotated[int, msgspec.Meta(ge=0, le=100)]
    radius_m: Annotated[float, msgspec.Meta(ge=0, le=1000)] | None = None


class SR4PendingGrenade(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A thrown grenade that has not gone off yet: where it lies and when it goes off (the next
    initiative pass, at `score`)."""

    id: Id
    thrower: Id
    point: Point
    numbers: SR4GrenadeNumbers
    # The turn it was thrown in, and the thrower's initiative score then (None while the VTT
    # runs its own initiative: it goes off at the thrower's next action phase instead).
    combat_turn: Annotated[int, msgspec.Meta(ge=1, le=1_000_000_000)]
    initiative_pass: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    score: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] | None = None
    barriers: Annotated[list[SR4Barrier], msgspec.Meta(max_length=MAX_BARRIERS)] = []
    confined: bool = False
    # The blast's dice come from this seed (derived from the throw's): it replays.
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] = 0
    # Pass boundaries (a new pass, a new combat turn) crossed since the throw: 1 while it is in
    # the pass it goes off in, 2 once that pass is over (service/rules/sr4/grenades.py).
    passes_ended: Annotated[int, msgspec.Meta(ge=0, le=2)] = 0


# --- the attack, its result and the combat state (service/rules/sr4) -------------------------
