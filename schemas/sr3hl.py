"""Hard Life wire types (ruleset `sr3-hardlife`): SR3's attack with hit locations on the body
map, armour per location, the damage test, stun and knock-back, the recovery roll, a monitor
per location and the trauma monitor, per-bullet automatic fire and suppression fire by square
metre.

rules-sources/004_afd6299c3d537f5c.txt ("004") on top of SR3 (schemas/sr3.py, whose
vocabulary this reuses); service/rules/sr3hl/tables.py cites every number, and
docs/rulesets/sr3-hardlife.md lists every choice.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import DiceRoll, GivenDice, Id, Modifier, Point, Request, Zone, asked
from schemas.fair import ClientSeed
from schemas.sr3 import (
    MAX_WEAPONS,
    AttackerMovement,
    Attribute,
    DamageLevel,
    FiringMode,
    PoolDice,
    Rating,
    Seed,
    Sight,
    SR3Test,
    SR3Visibility,
    SR3Weapon,
    TargetMovement,
)

# --- the body map ------------------------------------------------------------------------------
# Every location of 004's Tables 6 and 10, sides as the character's own (its right arm is drawn
# on the viewer's left, as a figure facing the reader).
Location = Literal[
    "head",
    "vitals",
    "torso",
    "groin",
    "right_arm",
    "left_arm",
    "right_hand",
    "left_hand",
    "right_thigh",
    "left_thigh",
    "right_leg",
    "left_leg",
    "right_foot",
    "left_foot",
]
# A location's monitor, or the trauma (main) monitor (004, "Taking Damage").
MonitorName = Literal[
    "trauma",
    "head",
    "vitals",
    "torso",
    "groin",
    "right_arm",
    "left_arm",
    "right_hand",
    "left_hand",
    "right_thigh",
    "left_thigh",
    "right_leg",
    "left_leg",
    "right_foot",
    "left_foot",
]
# The rows of 004's Table 7 (a row covers the locations of both sides).
ArmorRow = Literal["head", "torso", "vitals", "groin", "arms", "thighs", "legs", "hands_feet"]
# The columns of 004's Table 7.
Garment = Literal[
    "clothing",
    "jacket",
    "long_coat",
    "vest",
    "flak_vest",
    "leathers",
    "synth_leathers",
    "helmet",
    "partial_suit",
    "full_suit",
    "form_fitting_1",
    "form_fitting_2",
    "form_fitting_3",
]
# A hex of the body map, in axial coordinates of flat-topped hexes (q: column, r: row along
# the column's axis); direction 1 is up (r - 1), then clockwise.
HexCoordinate = Annotated[int, msgspec.Meta(ge=-1000, le=1000)]
ScatterDirection = Literal[1, 2, 3, 4, 5, 6]


class Hex(msgspec.Struct, frozen=True, gc=False):
    q: HexCoordinate
    r: HexCoordinate


class BodyHex(msgspec.Struct, frozen=True, gc=False):
    q: int
    r: int
    location: Location
    # The hex's centre for drawing, in hex widths (flat-topped, size 1: x = 1.5 q,
    # y = sqrt(3) (r + q / 2)), y pointing down.
    x: float
    y: float


class BodyMap(msgspec.Struct, frozen=True, gc=False):
    """The product's own hit-location figure (004's Figure 1 is missing, README): the hexes,
    the default aim point, the aim point of a called shot at each location, and the scatter
    directions as hex steps."""

    hexes: list[BodyHex]
    default_aim: Hex
    aim_points: dict[str, Hex]
    # Direction 1..6 -> (dq, dr).
    directions: dict[str, Hex]
    primary: list[str]
    limbs: list[str]


# --- armour ------------------------------------------------------------------------------------

MAX_ARMOR_PIECES = 10
Boxes = Annotated[int, msgspec.Meta(ge=0, le=100)]
Wear = Annotated[int, msgspec.Meta(ge=0, le=100)]


class HLRating(Request):
    ballistic: Rating = 0
    impact: Rating = 0


class HLArmorPiece(Request):
    """One piece worn: a garment of 004's Table 7 by name, or a custom piece with its own rating
    on each row it covers (`covers` also overrides a garment's rows). `wear` is what hits took
    off it at each location (004, "Armour Degradation"): the rating left there is the row's
    less the wear, never below 0, ballistic and impact alike."""

    garment: Garment | None = None
    name: Annotated[str, msgspec.Meta(max_length=100)] = ""
    covers: Annotated[dict[ArmorRow, HLRating], msgspec.Meta(max_length=8)] = {}
    # The overall value (area effects, Combat Pool); unset: the garment's, else nothing.
    overall: HLRating | None = None
    wear: Annotated[dict[Location, Wear], msgspec.Meta(max_length=14)] = {}


ArmorPieces = Annotated[list[HLArmorPiece], msgspec.Meta(max_length=MAX_ARMOR_PIECES)]


class HLBoneLacing(Request):
    """004: bone lacing's dice are rolled with the armour's but kept apart: they take successes
    off the damage test and never count towards stopping the shot; its own ratings lower only
    its own dice's target number."""

    ballistic: Rating = 0
    impact: Rating = 0


# --- requests ----------------------------------------------------------------------------------

AmmoKind = Literal["standard", "armor_piercing", "gel"]


class HLWeapon(SR3Weapon):
    """An SR3 weapon, with the ammunition it fires (004: armour-piercing rounds halve the
    armour's rating in the target number; gel rounds skip the stun and knock-back damage)."""

    ammo_kind: AmmoKind = "standard"
    # Area effect (grenades, shotguns with shot): every location and the trauma monitor alike.
    area_effect: bool = False


class HLAttacker(Request):
    id: Id
    skill: Rating
    quickness: Attribute | None = None
    intelligence: Attribute | None = None
    willpower: Attribute | None = None
    strength: Attribute | None = None
    combat_pool: PoolDice | None = None
    armor: ArmorPieces = []
    # The limbs the attack uses (a gun in the right hand: ["right_hand", "right_arm"]): a limb
    # worse off than the primary locations sets the wound modifier (004, "Taking Damage").
    limbs: Annotated[list[Location], msgspec.Meta(max_length=4)] = []


class HLDefender(Request):
    body: Attribute
    willpower: Attribute | None = None
    quickness: Attribute | None = None
    intelligence: Attribute | None = None
    combat_pool: PoolDice | None = None
    # 004, "Dodging": the dodge skill, and the Dodge Pool of as many dice.
    dodge_skill: Rating | None = None
    armor: ArmorPieces = []
    # Dermal armour: dice added to the armour test, the target number unchanged (004).
    dermal_armor: Rating = 0
    bone_lacing: HLBoneLacing | None = None


class HLDodge(Request):
    """The target's dodge (004, "Resolve Dodge Test", Table 8): Combat Pool and Dodge Pool dice
    against 4 with modifiers."""

    combat_pool: PoolDice = 0
    dodge_pool: PoolDice = 0
    # Table 8: dodging into cover this many metres away (-2, +1 per 2 m).
    into_cover_m: Annotated[float, msgspec.Meta(ge=0, le=100)] | None = None
    prone: bool = False
    # How well the target sees the attacker: half the visibility modifier (Table 8).
    visibility: SR3Visibility | None = None


class HLTarget(Request):
    id: Id
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    defender: HLDefender
    cover: Literal["none", "partial", "good", "full"] = "none"
    movement: TargetMovement = "walking"
    dodge: HLDodge = msgspec.field(default_factory=HLDodge)
    # Combat Pool dice to Body's stun resistance (004: Body resists stun damage).
    resist: PoolDice = 0


class HLSuppressionOrder(Request):
    """004, "Suppression Fire": the area (a polygon on the scene plane, metres) and the bullets
    fired into each square metre of it."""

    area: Annotated[list[Point], msgspec.Meta(min_length=3, max_length=16)]
    bullets_per_m2: Annotated[int, msgspec.Meta(ge=1, le=50)]
    # Where the shooter fires from: the zone keeps it, and a zone test filled from the scene
    # counts Table 9's range from it (else from where the shooter stands then).
    origin: Point | None = None


class HLAttackRequest(Request, tag="sr3-hardlife", tag_field="ruleset"):
    attacker: HLAttacker
    weapon: HLWeapon
    mode: FiringMode
    # An aimed shot (None: suppression fire, which needs `suppression`).
    target: HLTarget | None = None
    rounds: Annotated[int, msgspec.Meta(ge=1, le=10)] | None = None
    pool: PoolDice = 0
    sight: Sight = "standard"
    indirect: bool = False
    movement: AttackerMovement = "stationary"
    melee_opponents: Annotated[int, msgspec.Meta(ge=0, le=20)] = 0
    blind_fire: bool = False
    # A called shot at a location of the body map (SR3's +4); None: the default aim point.
    called_shot: Location | None = None
    second_firearm: bool = False
    visibility: SR3Visibility = msgspec.field(default_factory=SR3Visibility)
    suppression: HLSuppressionOrder | None = None
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


HLActionName = Literal[
    "other",
    "take_aim",
    "delay_action",
    "recovery_roll",
    "consciousness_test",
    "reload_firearm",
    "insert_clip",
    "drop_prone",
    "change_position",
    "ready_weapon",
    "fire_weapon_sa_bf",
    "fire_weapon_ss_fa",
    "use_skill",
    "cast_spell",
    "melee_unarmed_attack",
    "observe",
    "speak_a_phrase",
]


class HLActionRequest(Request, tag="sr3-hardlife", tag_field="ruleset"):
    actor: Id
    action: HLActionName
    # The recovery roll and consciousness test read Willpower (the sheet's when left out).
    willpower: Attribute | None = None
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class HLZoneTestRequest(Request, tag="sr3-hardlife", tag_field="ruleset"):
    """Someone entering or moving in a suppressed area takes its attack (004, Tables 9, 10)."""

    actor: Id
    defender: HLDefender
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    cover: Literal["none", "partial", "good"] = "none"
    dodge: HLDodge = msgspec.field(default_factory=HLDodge)
    resist: PoolDice = 0
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


# --- results -----------------------------------------------------------------------------------


class HLScatter(msgspec.Struct, frozen=True, gc=False):
    """Where a round went: from its aim point, `hexes` steps in `direction` (Table 1 by its
    successes; no direction when it does not scatter), and the location of the hex it landed
    on (None: off the body, a miss)."""

    aim: Hex
    successes: int
    hexes: int
    direction: ScatterDirection | None
    path: list[Hex]
    landed: Hex
    location: Location | None


class HLRound(msgspec.Struct, frozen=True, gc=False):
    """One round of a shot, burst, full-auto or suppression attack."""

    round: int
    target_number: int
    # The attacker's successes for this round, after the dodge took the highest dice.
    successes: int
    outcome: Literal["hit", "miss", "dodged", "off_body"]
    scatter: HLScatter | None = None
    location: Location | None = None


class HLArmorTest(msgspec.Struct, frozen=True, gc=False):
    """004, "Determine Armour Resistance": the location's rating in dice (+ dermal armour)
    against Power - rating (armour-piercing: - half the rating); stopped at the soak number."""

    location: Location
    rounds: list[int]
    armor: Literal["ballistic", "impact"]
    rating: int
    dermal_dice: int
    armor_piercing: bool
    test: SR3Test
    # Bone lacing's own dice (their successes only take off damage successes).
    lacing: SR3Test | None
    soak: int
    stopped: bool
    # What the armour lost at the location after the hit, and the rating left.
    degraded: int
    rating_after: int


class HLDamageTest(msgspec.Struct, frozen=True, gc=False):
    """004, "Damage Test": Power dice + Table 3's, against 4; ones off, sixes on; less the armour
    successes; every two net stage the level."""

    round: int
    dice: int
    accuracy: Modifier
    totals: list[int]
    successes: int
    ones: int
    sixes: int
    armor_successes: int
    net: int
    stages: int
    level: DamageLevel | None
    overflow: int


class HLWound(msgspec.Struct, frozen=True, gc=False):
    """What one hit wrote on one monitor: the level after the location's bonus successes (its
    own monitor) or the damage shift (trauma), the boxes added and the monitor after it."""

    monitor: MonitorName
    track: Literal["physical", "stun"]
    modifier: int
    level: DamageLevel | None
    boxes: int
    boxes_now: int
    level_now: DamageLevel | None


class HLStun(msgspec.Struct, frozen=True, gc=False):
    """004, "Resolve Stun and Knock-back": Body against half Power - impact; the stun (the
    weapon's base level, staged down per two successes); Table 4 by the successes."""

    location: Location | None
    power: int
    base_level: DamageLevel
    resist: SR3Test
    level: DamageLevel | None
    knock_back: Literal["none", "knocked_down", "knocked_back"]
    metres: int


class HLRecovery(msgspec.Struct, frozen=True, gc=False):
    """004, "Resolve Recovery Roll": Willpower against 2 + injury modifiers, Table 5's successes
    for the level sustained; failed: the next action is lost and the roll is made again."""

    level: DamageLevel
    needed: int
    test: SR3Test
    passed: bool


class HLConsciousness(msgspec.Struct, frozen=True, gc=False):
    """004, "Death and Injury": Willpower against 3 + injury modifiers at deadly. 0 successes:
    unconscious; 1: conscious, free actions only; k: acts normally in k - 1 phases this combat
    turn (`phases`), or the next (`for_turn`) when it has no phase left in this one."""

    test: SR3Test
    conscious: bool
    phases: int
    for_turn: int


class HLLocationHit(msgspec.Struct, frozen=True, gc=False):
    """Everything the rounds that reached one location did there."""

    location: Location
    rounds: list[int]
    armor: list[HLArmorTest]
    damage: list[HLDamageTest]
    stun: HLStun | None
    wounds: list[HLWound]
    # Autofire rounds the armour stopped there, summed into one stun hit (README: Power + 1 and
    # half a level per extra round) and resisted with one Body roll; Table 4 by its level.
    stopped_stun: HLStun | None = None
    # An area effect (004, "Taking Damage"): the overall armour, every monitor alike.
    area_effect: bool = False


class HLCondition(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """What the monitors mean (004, "Taking Damage", "Death and Injury"), worked out from them
    each time they change."""

    # The target-number and initiative modifiers of the worst primary location or trauma
    # (physical and stun added up).
    target_number_modifier: int = 0
    initiative_modifier: int = 0
    # Deadly on a primary location or trauma: the consciousness test is due.
    deadly: bool = False
    dead: bool = False
    # Limbs at deadly (not working) and at 10 + Body (crippled).
    disabled: list[Location] = []
    crippled: list[Location] = []


class HLTargetResult(msgspec.Struct, frozen=True, gc=False):
    target: str
    outcome: Literal["hit", "miss", "dodged", "off_body", "stopped"]
    range: Literal["short", "medium", "long", "extreme"]
    aim: Location
    attack_successes: int
    dodge: SR3Test | None
    dodge_successes: int
    net_successes: int
    rounds: list[HLRound]
    hits: list[HLLocationHit]
    recovery: HLRecovery | None
    condition: HLCondition
    # "knocked_down", or the metres knocked back (the worst of the attack's stun tests).
    knock_back: Literal["none", "knocked_down", "knocked_back"] = "none"
    knock_back_m: int = 0


class HLPoolSpent(msgspec.Struct, frozen=True, gc=False):
    actor: str
    pool: Literal["combat", "dodge"]
    spent: int
    left: int


class HLZoneResult(msgspec.Struct, frozen=True, gc=False):
    zone: Zone
    bullets_per_m2: int
    area_m2: float


class HLAttackResult(
    msgspec.Struct, tag="sr3_hardlife_attack", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    attacker: str
    weapon: str
    mode: FiringMode
    action: Literal["simple", "complex"]
    rounds_fired: int
    ammo_left: int
    # The attack test: its base target number (recoil is per round, 004 "Automatic fire").
    attack: SR3Test | None
    target: HLTargetResult | None = None
    suppression: HLZoneResult | None = None
    combat_pool: list[HLPoolSpent]
    dice: list[DiceRoll]
    seed: int


class HLZoneTestResult(
    msgspec.Struct, tag="sr3_hardlife_zone_test", tag_field="kind", frozen=True, gc=False
):
    actor: str
    zone: str
    # Table 9: the bullets per square metre in dice against 4 + modifiers.
    attack: SR3Test
    target: HLTargetResult
    combat_pool: list[HLPoolSpent]
    dice: list[DiceRoll]
    seed: int


# --- state -------------------------------------------------------------------------------------


class HLMonitor(
    msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, gc=False
):
    physical: Boxes = 0
    stun: Boxes = 0


class HLRecoveryDue(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A failed recovery roll: the level it is made against again (004, Table 5)."""

    level: DamageLevel


class HLActorState(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    # SR3's, kept as sr3 keeps them (schemas/sr3.py SR3ActorState).
    combat_pool: PoolDice | None = None
    pool_left: PoolDice = 0
    dodge_pool: PoolDice | None = None
    dodge_left: PoolDice = 0
    phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    rounds_in_phase: Annotated[int, msgspec.Meta(ge=0, le=1_000)] = 0
    targets_in_phase: Annotated[list[Id], msgspec.Meta(max_length=20)] = []
    aims: Annotated[int, msgspec.Meta(ge=0, le=30)] = 0
    # The Body the monitors were last written with (death at 10 + Body boxes).
    body: Attribute | None = None
    monitors: Annotated[dict[MonitorName, HLMonitor], msgspec.Meta(max_length=15)] = {}
    # The armour as worn and worn down; None until the first hit takes it from the request or
    # the sheet (from then on this is what the actor wears; the GM changes it with PUT .../state).
    armor: ArmorPieces | None = None
    condition: HLCondition = HLCondition()
    # A failed recovery roll to make again.
    recovery: HLRecoveryDue | None = None
    # Action phases lost and not yet passed, while the VTT runs the initiative (with the
    # service's, the order's `lost` counts them).
    actions_lost: Annotated[int, msgspec.Meta(ge=0, le=4)] = 0
    # The consciousness test at deadly: phases it may still act in this combat turn (None: no
    # test stands), free actions only with 0; due again at each new combat turn.
    conscious_phases: Annotated[int, msgspec.Meta(ge=0, le=10)] | None = None
    consciousness_due: bool = False
    # A failed consciousness test (004: no further rolls).
    unconscious: bool = False
    # The combat turn the consciousness test standing is for (004: a test made after the last
    # phase of a turn is the next turn's).
    tested_turn: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] | None = None
    # The action phase (TurnState.phase) the actor may not act in (a lost action), and the one
    # its consciousness test lets it act in.
    phase_lost: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] | None = None
    phase_granted: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] | None = None


class HLZoneState(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A live suppressed area and what its attack needs (004, "Suppression Fire")."""

    zone: Zone
    polygon: Annotated[list[tuple[float, float]], msgspec.Meta(min_length=3, max_length=16)]
    bullets_per_m2: Annotated[int, msgspec.Meta(ge=1, le=50)]
    weapon: HLWeapon
    # The shooter's injury modifier when it fired (Table 9), and where it stood.
    injury_modifier: Annotated[int, msgspec.Meta(ge=0, le=20)] = 0
    origin: Point | None = None


class HLState(
    msgspec.Struct, tag="sr3-hardlife", tag_field="ruleset", forbid_unknown_fields=True, gc=False
):
    actors: dict[Id, HLActorState] = {}
    zones: Annotated[dict[Id, HLZoneState], msgspec.Meta(max_length=50)] = {}
    zones_made: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0


class HLSheet(Request, tag="sr3-hardlife", tag_field="ruleset"):
    """A Hard Life character as the scene keeps it. The monitors, the armour once worn down and
    the pools left are in the combat state."""

    body: Attribute | None = None
    quickness: Attribute | None = None
    strength: Attribute | None = None
    intelligence: Attribute | None = None
    willpower: Attribute | None = None
    reaction: Attribute | None = None
    initiative_dice: Annotated[int, msgspec.Meta(ge=1, le=5)] | None = None
    skill: Rating | None = None
    weapon_skills: Annotated[dict[Id, Rating], msgspec.Meta(max_length=MAX_WEAPONS)] = {}
    combat_pool: PoolDice | None = None
    dodge_skill: Rating | None = None
    armor: ArmorPieces = []
    dermal_armor: Rating = 0
    bone_lacing: HLBoneLacing | None = None
    weapons: Annotated[list[HLWeapon], msgspec.Meta(max_length=MAX_WEAPONS)] = []


HLTargetAsk = asked(
    HLTarget,
    "HLTargetAsk",
    {
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "defender": (HLDefender | None, None),
        "cover": (Literal["none", "partial", "good", "full"] | None, None),
        "movement": (TargetMovement | None, None),
    },
)
HLAttackAsk = asked(
    HLAttackRequest,
    "HLAttackAsk",
    {
        "attacker": (HLAttacker | Id,),
        "weapon": (HLWeapon | Id,),
        "target": (HLTargetAsk | None, None),
    },
    tag="sr3-hardlife",
    tag_field="ruleset",
)
HLZoneTestAsk = asked(
    HLZoneTestRequest,
    "HLZoneTestAsk",
    {
        "defender": (HLDefender | None, None),
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "cover": (Literal["none", "partial", "good"] | None, None),
    },
    tag="sr3-hardlife",
    tag_field="ruleset",
)
