"""Shadowrun 4 wire types (rules-sources/001_2cfc288dfef1df08.txt): the d6 pool test, the
grenade and its blast, and (below) the attack request, its result and the combat state.

The grenade part is shared by the attack (a grenade thrown or launched at once, airburst) and
the timed grenade the state holds until the turn reaches its moment (service/rules/sr4/
grenades.py resolves both)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import MAX_ZONES, DiceRoll, GivenDice, Id, Modifier, Point, Request, Zone, asked
from schemas.fair import ClientSeed

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
    # the pass it goes off in, 2 once that pass is over (service/rules/sr4/grenade_timing.py).
    passes_ended: Annotated[int, msgspec.Meta(ge=0, le=2)] = 0


# --- the attack, its result and the combat state (service/rules/sr4) -------------------------

# The weapon range table's rows (service/rules/sr4/tables.py RANGE_BANDS: 002's table, which
# SR4 kept, and the SR4 core's thrown grenade rows).
WeaponCategory = Literal[
    "hold_out_pistol",
    "light_pistol",
    "heavy_pistol",
    "smg",
    "taser",
    "shotgun",
    "sporting_rifle",
    "sniper_rifle",
    "assault_rifle",
    "light_machine_gun",
    "medium_machine_gun",
    "heavy_machine_gun",
    "assault_cannon",
    "grenade_launcher",
    "missile_launcher",
    "bow",
    "light_crossbow",
    "medium_crossbow",
    "heavy_crossbow",
    "thrown_knife",
    "shuriken",
    "standard_grenade",
    "aerodynamic_grenade",
]
# What a weapon lists (001, "Firearms"): single-shot, semi-automatic, burst-fire, full-auto.
WeaponMode = Literal["SS", "SA", "BF", "FA"]
# What an attack fires (001): a single or semi-automatic shot, a short burst (BF), a long burst
# (LB) or a full burst (FB) of a full-auto weapon, or suppressive fire.
FiringMode = Literal["SS", "SA", "BF", "LB", "FB", "suppressive"]
Burst = Literal["narrow", "wide"]
Choke = Literal["narrow", "medium", "wide"]
Cover = Literal["none", "partial", "good"]
Vision = Literal["normal", "low_light", "thermographic", "ultrasound"]
Light = Literal["full", "partial", "full_darkness"]
Obscurant = Literal[
    "none",
    "mist",
    "light_fog",
    "light_rain",
    "light_smoke",
    "heavy_fog",
    "heavy_rain",
    "heavy_smoke",
    "thermal_smoke",
]
ArmorType = Literal["ballistic", "impact"]
AmmoName = Literal["regular", "apds", "explosive", "flechette", "gel", "hollow_point"]
WoundModifier = Annotated[int, msgspec.Meta(ge=-30, le=0)]
# Weapons one sheet carries.
MAX_WEAPONS = 20


class SR4Attacker(Request):
    id: Id
    agility: Attribute
    skill: Rating
    strength: Attribute = 1
    # Blind fire uses Intuition in place of Agility (001, "Target Hidden").
    intuition: Attribute = 1
    edge: Rating = 0
    # The character's wound modifier, as a penalty: 0, -1, -2, ... (001, "Attacker Wounded").
    wound_modifier: WoundModifier = 0


class SR4Weapon(Request):
    id: Id
    category: WeaponCategory
    # The Damage Value with regular ammunition, and its type.
    damage: Annotated[int, msgspec.Meta(ge=0, le=100)]
    modes: Annotated[list[WeaponMode], msgspec.Meta(min_length=1, max_length=4)]
    ammo: Annotated[int, msgspec.Meta(ge=0, le=10_000)]
    damage_type: DamageType = "P"
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    # Recoil compensation and gyro-stabilisation points (001, "Recoil Compensation",
    # "Gyro-Stabilization").
    rc: Annotated[int, msgspec.Meta(ge=0, le=30)] = 0
    gyro: Annotated[int, msgspec.Meta(ge=0, le=30)] = 0
    # A smartgun, and a laser sight, fitted to it.
    smartgun: bool = False
    laser_sight: bool = False
    # The armour it meets; None: by its category (impact for the impact projectiles and
    # grenades, ballistic for the rest).
    armor: ArmorType | None = None
    # What the weapon does on contact alone (a shock glove, a contact toxin): on a graze too.
    contact_effect: Annotated[str, msgspec.Meta(max_length=200)] = ""
    # A shotgun loaded with shot: its choke setting (001, "Shotguns").
    choke: Choke | None = None


class SR4Defender(Request):
    reaction: Attribute
    body: Attribute
    dodge: Rating = 0
    edge: Rating = 0
    ballistic_armor: Rating = 0
    impact_armor: Rating = 0
    # The defender's wound modifier, as a penalty (0, -1, -2, ...): it lowers its defense test
    # and its zone tests, not its damage resistance (SR4 core, "Wound Modifiers").
    wound_modifier: WoundModifier = 0


class SR4Target(Request):
    id: Id
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    defender: SR4Defender
    cover: Cover = "none"
    prone: bool = False
    # Cannot be seen: blind fire (001, "Target Hidden").
    hidden: bool = False
    # A called shot, and its modifier (001: variable; SR4 core, "Called Shots": -4).
    called_shot: bool = False
    called_shot_modifier: Annotated[int, msgspec.Meta(ge=-12, le=0)] = -4
    # With two guns: which one shoots at this target.
    gun: Literal["first", "second"] = "first"
    # The target moved since the attacker's image magnification locked onto it.
    moved: bool = False
    # The defender spends Edge on its defense: its Edge in dice, sixes rolled again.
    edge: bool = False


class SR4Ammo(Request):
    """A load the table does not have: what it adds to DV and AP, the damage and armour it
    turns to."""

    dv: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    damage_type: DamageType | None = None
    armor: ArmorType | None = None


class SR4Visibility(Request):
    """The Visibility Table's conditions, and the vision the attacker uses."""

    vision: Vision = "normal"
    light: Light = "full"
    glare: bool = False
    obscurant: Obscurant = "none"


class SR4ZoneOrder(Request):
    """Where suppressive fire goes: a triangle from the shooter along a direction (001)."""

    origin: Point
    direction_deg: Annotated[float, msgspec.Meta(ge=-360, le=360)]
    length_m: Annotated[float, msgspec.Meta(gt=0, le=100_000)]


class SR4AttackRequest(Request, tag="sr4", tag_field="ruleset"):
    attacker: SR4Attacker
    weapon: SR4Weapon
    mode: FiringMode
    burst: Burst = "narrow"
    targets: Annotated[list[SR4Target], msgspec.Meta(max_length=20)] = []
    # The most metres between any two targets (full bursts and shotgun spreads reach several
    # only within 1 m of each other, 001); the scene works it out from the positions.
    targets_apart_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)] = 0
    # A gun in each hand (001, "Attacker Using a Second Firearm"), its skill when another, and
    # the dice of the pool that go to the first gun (None: half, the larger half first).
    second_weapon: SR4Weapon | None = None
    second_skill: Rating | None = None
    first_gun_dice: Annotated[int, msgspec.Meta(ge=0, le=200)] | None = None
    ammo: AmmoName | SR4Ammo = "regular"
    # The attacker's smartlink (used with a smartgun), and the attacker's situation.
    smartlink: bool = False
    running: bool = False
    in_melee: bool = False
    from_moving_vehicle: bool = False
    from_cover: bool = False
    off_hand: bool = False
    visibility: SR4Visibility = msgspec.field(default_factory=SR4Visibility)
    # The GM's grazing rule: a tie makes contact, without damage (001, step 3).
    grazing: bool = False
    # Edge with the attack: the attacker's Edge in dice, sixes rolled again (SR4 core, Edge).
    edge: Literal["none", "extra_dice"] = "none"
    # With the VTT not tracking phases (turn.phase 0): this attack follows the attacker's last
    # one in the same action phase (its recoil, targets and shots count).
    same_phase: bool = False
    # Suppressive fire: where the zone goes; the ids of bystanders behind cover or prone.
    zone: SR4ZoneOrder | None = None
    sheltered: Annotated[list[Id], msgspec.Meta(max_length=100)] = []
    # Grenades (service/rules/sr4/grenades.py).
    grenade: SR4Grenade | None = None
    aim_point: Point | None = None
    origin: Point | None = None
    barriers: Annotated[list[SR4Barrier], msgspec.Meta(max_length=MAX_BARRIERS)] = []
    confined: bool = False
    bystanders: Annotated[list[SR4BlastActor], msgspec.Meta(max_length=100)] = []
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR4Recoil(msgspec.Struct, frozen=True, gc=False):
    # The attack's place in the action phase: 1 the first, 2 the second.
    shot_in_phase: int
    # The mode's recoil, lessened for too few rounds, the compensation against it, what is
    # left (doubled for heavy weapons and bursting shotguns), the other gun's, and the total.
    base: int
    short_rounds: int
    compensation: int
    doubled: bool
    uncompensated: int
    other_gun: int
    penalty: int


class SR4Damage(msgspec.Struct, frozen=True, gc=False):
    dv: int
    dv_modifiers: list[Modifier]
    # The DV compared with the armour (without a narrow burst's DV, 001).
    compared_dv: int
    armor_type: ArmorType
    armor: int
    ap: int
    track: Literal["physical", "stun"]
    soak: SR4Test
    soak_modifiers: list[Modifier]
    soak_hits: int
    boxes: int


class SR4TargetResult(msgspec.Struct, frozen=True, gc=False):
    target: str
    outcome: Literal["hit", "graze", "miss"]
    range: Literal["short", "medium", "long", "extreme"]
    # The bursts of a full burst at several targets: what this target's burst counts as.
    fired_as: str
    attack_modifiers: list[Modifier]
    attack: SR4Test
    defense: SR4Test | None
    defense_modifiers: list[Modifier]
    defense_hits: int
    net_hits: int
    contact: bool = False
    contact_effect: str | None = None
    damage: SR4Damage | None = None
    edge_spent: int = 0


class SR4Affected(msgspec.Struct, frozen=True, gc=False):
    actor: str
    inside: bool
    sheltered: bool
    must_test: bool


class SR4ZoneResult(msgspec.Struct, frozen=True, gc=False):
    zone: Zone
    suppression: SR4Test
    modifiers: list[Modifier]
    affected: list[SR4Affected]


class SR4AttackResult(
    msgspec.Struct, tag="sr4_attack", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    attacker: str
    weapon: str
    mode: FiringMode
    burst: Burst | None
    action: Literal["simple", "complex"]
    rounds_fired: int
    ammo_left: int
    second_rounds_fired: int = 0
    second_ammo_left: int | None = None
    # Agility (or Intuition) + skill, and with two guns each gun's share before modifiers.
    pool: int
    shares: dict[str, int] = {}
    modifiers: list[Modifier]
    recoil: SR4Recoil
    second_recoil: SR4Recoil | None = None
    edge_spent: int
    targets: list[SR4TargetResult]
    zone: SR4ZoneResult | None = None
    scatter: SR4Scatter | None = None
    blast: SR4BlastResult | None = None
    pending_grenade: str | None = None
    dice: list[DiceRoll]
    seed: int


class SR4LastAttack(msgspec.Struct, gc=False):
    """What the re-roll of an attack test needs next (the attack itself is its event)."""

    rerolled: Annotated[list[Id], msgspec.Meta(max_length=20)] = []


class SR4ActorState(msgspec.Struct, omit_defaults=True, gc=False):
    # The action phase (TurnState.phase) of its last attack, and what it fired in it: attacks
    # (1 or 2), whether a single shot, a long burst or a complex attack came, and whom it
    # engaged (-2 for each further target, 001).
    phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    attacks_in_phase: Annotated[int, msgspec.Meta(ge=0, le=2)] = 0
    single_shot_in_phase: bool = False
    long_burst_in_phase: bool = False
    complex_in_phase: bool = False
    targets_in_phase: Annotated[list[Id], msgspec.Meta(max_length=40)] = []
    # Take Aim actions since its last shot (+1 each), and the target its image magnification
    # locked onto.
    aims: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    locked_on: Id | None = None
    # Chokes set by change_choke, by weapon id (they win over the weapon's listed setting).
    chokes: Annotated[dict[Id, Choke], msgspec.Meta(max_length=MAX_WEAPONS)] = {}
    # Defenses since its last action phase began (-1 each), and full defense (+ Dodge).
    defenses: Annotated[int, msgspec.Meta(ge=0, le=200)] = 0
    full_defense: bool = False
    # Zone tests in the current action phase.
    zone_tests_phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    zone_tests: Annotated[list[Id], msgspec.Meta(max_length=MAX_ZONES)] = []
    last_attack: SR4LastAttack | None = None


class SR4ZoneState(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A live suppression zone and what its test needs: the weapon's base DV and AP."""

    zone: Zone
    polygon: Annotated[list[tuple[float, float]], msgspec.Meta(min_length=3, max_length=16)]
    dv: Annotated[int, msgspec.Meta(ge=0, le=200)]
    ap: Annotated[int, msgspec.Meta(ge=-60, le=60)]
    damage_type: DamageType
    armor_type: ArmorType = "ballistic"


class SR4State(
    msgspec.Struct, tag="sr4", tag_field="ruleset", forbid_unknown_fields=True, gc=False
):
    actors: dict[Id, SR4ActorState] = {}
    zones: Annotated[dict[Id, SR4ZoneState], msgspec.Meta(max_length=MAX_ZONES)] = {}
    zones_made: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    pending: Annotated[list[SR4PendingGrenade], msgspec.Meta(max_length=MAX_PENDING_GRENADES)] = []
    grenades_thrown: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0


SR4ActionName = Literal[
    "other",
    "take_aim",
    "move",
    "full_defense",
    "drop_prone",
    "take_cover",
    "reload",
    "change_choke",
    "edge_reroll",
    "delay_action",
]


class SR4ActionRequest(Request, tag="sr4", tag_field="ruleset"):
    actor: Id
    action: SR4ActionName
    # take_aim: through image magnification at this target (the first aim locks onto it).
    image_magnification: bool = False
    target: Id | None = None
    # reload: the weapon and the rounds it holds after; change_choke: the weapon, the setting
    # and whether it is smartlinked (a free action then, 001).
    weapon: Id | None = None
    rounds: Annotated[int, msgspec.Meta(ge=0, le=10_000)] | None = None
    choke: Choke | None = None
    smartlinked: bool = False
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR4Sheet(Request, tag="sr4", tag_field="ruleset"):
    """An SR4 character as the scene keeps it: what attacks, defenses, blasts and the
    initiative read of it. A request that needs a number the sheet lacks must carry it."""

    agility: Attribute | None = None
    strength: Attribute | None = None
    reaction: Attribute | None = None
    intuition: Attribute | None = None
    body: Attribute | None = None
    # What sizes the stun track of the condition monitor (service/rules/sr4/monitor.py).
    willpower: Attribute | None = None
    edge: Rating | None = None
    skill: Rating | None = None
    weapon_skills: Annotated[dict[Id, Rating], msgspec.Meta(max_length=MAX_WEAPONS)] = {}
    dodge: Rating = 0
    ballistic_armor: Rating = 0
    impact_armor: Rating = 0
    wound_modifier: WoundModifier = 0
    initiative_passes: Annotated[int, msgspec.Meta(ge=1, le=4)] = 1
    weapons: Annotated[list[SR4Weapon], msgspec.Meta(max_length=MAX_WEAPONS)] = []


class SR4ZoneTestRequest(Request, tag="sr4", tag_field="ruleset"):
    """An actor in, entering or leaving a suppressed area tests Reaction + Edge (+ Dodge on full
    defense) against the zone's hits (001, "Suppressive Fire")."""

    actor: Id
    defender: SR4Defender
    # Only taking cover or dropping prone: not at risk (001).
    avoid: Literal["none", "take_cover", "drop_prone"] = "none"
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR4ZoneTestResult(
    msgspec.Struct, tag="sr4_zone_test", tag_field="kind", frozen=True, gc=False
):
    actor: str
    zone: str
    avoided: str | None
    threshold: int
    pool: int
    modifiers: list[Modifier]
    test: SR4Test | None
    hit: bool
    damage: SR4Damage | None
    dice: list[DiceRoll]
    seed: int


SR4TargetAsk = asked(
    SR4Target,
    "SR4TargetAsk",
    {
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "defender": (SR4Defender | None, None),
        "cover": (Cover | None, None),
        "prone": (bool | None, None),
    },
)
SR4AttackAsk = asked(
    SR4AttackRequest,
    "SR4AttackAsk",
    {
        "attacker": (SR4Attacker | Id,),
        "weapon": (SR4Weapon | Id,),
        "second_weapon": (SR4Weapon | Id | None, None),
        "targets": (
            Annotated[list[SR4TargetAsk], msgspec.Meta(max_length=20)],  # type: ignore[valid-type]
            msgspec.field(default_factory=list),
        ),
        "targets_apart_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
    },
    tag="sr4",
    tag_field="ruleset",
)
SR4ZoneTestAsk = asked(
    SR4ZoneTestRequest,
    "SR4ZoneTestAsk",
    {"defender": (SR4Defender | None, None)},
    tag="sr4",
    tag_field="ruleset",
)
