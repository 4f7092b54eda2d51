"""Shadowrun 5 wire types: the attack request, its result, and the combat state kept per actor."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import (
    MAX_TARGETS,
    MAX_ZONES,
    DiceRoll,
    GivenDice,
    Id,
    Modifier,
    Point,
    Request,
    Zone,
    asked,
)
from schemas.fair import ClientSeed

# The highest attribute or rating a request may give.
MAX_RATING = 30
Rating = Annotated[int, msgspec.Meta(ge=0, le=MAX_RATING)]
Attribute = Annotated[int, msgspec.Meta(ge=1, le=MAX_RATING)]

WeaponCategory = Literal[
    "taser",
    "hold_out_pistol",
    "light_pistol",
    "heavy_pistol",
    "machine_pistol",
    "submachine_gun",
    "assault_rifle",
    "shotgun",
    "shotgun_flechette",
    "sniper_rifle",
    "light_machine_gun",
    "medium_machine_gun",
    "heavy_machine_gun",
    "assault_cannon",
    "grenade_launcher",
    "missile_launcher",
]
# What a weapon lists: "FA" covers both full-auto actions, as in the weapon tables.
WeaponMode = Literal["SS", "SA", "BF", "FA"]
# What an attack fires: SB needs SA, LB needs BF, FA_complex needs FA.
FiringMode = Literal["SS", "SA", "SB", "BF", "LB", "FA", "FA_complex", "suppressive"]
Cover = Literal["none", "partial", "good", "full"]
Smartlink = Literal["none", "wired", "wireless_gear", "wireless_implant"]
Severity = Literal[0, 1, 2, 3]
VisionGear = Literal[
    "thermographic",
    "ultrasound",
    "flare_compensation",
    "low_light",
    "low_light_flashlight",
    "infrared_flashlight",
    "tracer_rounds",
    "improved_rangefinder",
]
FullDefense = Literal[
    "willpower", "acrobatic_defender", "agile_defender", "perceptive_defender", "too_pretty_to_hit"
]


class SR5Attacker(Request):
    id: Id
    agility: Attribute
    strength: Attribute
    skill: Rating
    willpower: Attribute = 1
    intuition: Attribute = 1
    edge: Rating = 0
    # The character's current wound modifier, as a penalty: 0, -1, -2, ...
    wound_modifier: Annotated[int, msgspec.Meta(ge=-30, le=0)] = 0


class SR5Weapon(Request):
    id: Id
    category: WeaponCategory
    damage: Annotated[int, msgspec.Meta(ge=0, le=100)]
    accuracy: Annotated[int, msgspec.Meta(ge=0, le=30)]
    modes: Annotated[list[WeaponMode], msgspec.Meta(min_length=1, max_length=4)]
    ammo: Annotated[int, msgspec.Meta(ge=0, le=10_000)]
    damage_type: Literal["P", "S"] = "P"
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    rc: Annotated[int, msgspec.Meta(ge=0, le=30)] = 0
    # What the weapon does on contact alone (a tracking tag, a contact toxin): it applies on a
    # graze as well as on a hit.
    contact_effect: Annotated[str, msgspec.Meta(max_length=200)] = ""


class SR5Defender(Request):
    reaction: Attribute
    intuition: Attribute
    body: Attribute
    willpower: Attribute = 1
    armor: Rating = 0
    # The defender's current wound modifier, as a penalty (0, -1, -2, ...): it lowers its
    # defense test and its zone tests, not its soak (000, "Character wounded").
    wound_modifier: Annotated[int, msgspec.Meta(ge=-30, le=0)] = 0
    # What the full defense qualities add instead of Willpower, and the limits that cap them.
    agility: Attribute | None = None
    charisma: Attribute | None = None
    gymnastics: Rating | None = None
    perception: Rating | None = None
    physical_limit: Rating | None = None
    mental_limit: Rating | None = None


# Weapons one sheet carries.
MAX_WEAPONS = 20


class SR5Sheet(Request, tag="sr5", tag_field="ruleset"):
    """An SR5 character as the scene keeps it: what attacks and defenses read of it. Every
    number may be left out; a request that needs one the sheet lacks must carry it."""

    agility: Attribute | None = None
    strength: Attribute | None = None
    # The combat skill its attacks use, and the skill of each weapon that needs another (by
    # weapon id: Pistols for the pistol, Automatics for the rifle).
    skill: Rating | None = None
    weapon_skills: Annotated[dict[Id, Rating], msgspec.Meta(max_length=MAX_WEAPONS)] = {}
    willpower: Attribute | None = None
    intuition: Attribute | None = None
    reaction: Attribute | None = None
    body: Attribute | None = None
    charisma: Attribute | None = None
    edge: Rating | None = None
    armor: Rating | None = None
    gymnastics: Rating | None = None
    perception: Rating | None = None
    physical_limit: Rating | None = None
    mental_limit: Rating | None = None
    wound_modifier: Annotated[int, msgspec.Meta(ge=-30, le=0)] = 0
    # Initiative dice (1d6, more with augmentations), for the initiative the service rolls.
    initiative_dice: Annotated[int, msgspec.Meta(ge=1, le=5)] | None = None
    # Its guns, each with the rounds loaded now.
    weapons: Annotated[list[SR5Weapon], msgspec.Meta(max_length=MAX_WEAPONS)] = []


class SR5Target(Request):
    id: Id
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    defender: SR5Defender
    cover: Cover = "none"
    # The attacker aims at a specific spot of this target.
    called_shot: bool = False
    # With two guns: which one shoots at this target.
    gun: Literal["first", "second"] = "first"
    # The defender's situation.
    prone: bool = False
    running: bool = False
    in_moving_vehicle: bool = False
    in_melee: bool = False


AmmoName = Literal[
    "regular",
    "apds",
    "explosive",
    "ex_explosive",
    "flechette",
    "gel",
    "hollow_point",
    "stick_n_shock",
    "tracer",
]


class SR5Ammo(Request):
    """A load the tables do not have: what it adds to DV and AP, and the damage it turns to."""

    dv: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    ap: Annotated[int, msgspec.Meta(ge=-30, le=30)] = 0
    damage_type: Literal["P", "S"] | None = None


class SR5ZoneOrder(Request):
    """Where suppressive fire goes: a triangle from the shooter along a direction."""

    origin: Point
    direction_deg: Annotated[float, msgspec.Meta(ge=-360, le=360)]
    length_m: Annotated[float, msgspec.Meta(gt=0, le=100_000)]
    # Enhanced suppressive fire narrows the end to 5 m and takes away dropping prone.
    enhanced: bool = False


class SR5Bystander(Request):
    """Another actor on the scene, for who is inside a new zone."""

    id: Id
    position: Point
    aware: bool = True
    in_cover: bool = False
    prone: bool = False


class SR5Environment(Request):
    """The conditions of the environment table, each from none to the worst."""

    visibility: Literal["clear", "light", "moderate", "heavy"] = "clear"
    # What obscures the view: thermographic vision sees through all but thermal smoke.
    visibility_cause: Literal["rain", "fog", "smoke", "thermal_smoke"] = "rain"
    light: Literal["full", "partial", "dim", "total_darkness"] = "full"
    glare: Literal["none", "weak", "moderate", "blinding"] = "none"
    wind: Literal["none", "light", "moderate", "strong"] = "none"


class SR5AttackRequest(Request, tag="sr5", tag_field="ruleset"):
    attacker: SR5Attacker
    weapon: SR5Weapon
    mode: FiringMode
    # Every mode but suppressive fire needs at least one target.
    targets: Annotated[list[SR5Target], msgspec.Meta(max_length=MAX_TARGETS)] = []
    # Suppressive fire: where the zone goes, and who else is on the scene.
    zone: SR5ZoneOrder | None = None
    bystanders: Annotated[list[SR5Bystander], msgspec.Meta(max_length=100)] = []
    # A gun in each hand: the second, fired in the same mode, and its skill when another one.
    second_weapon: SR5Weapon | None = None
    second_skill: Rating | None = None
    second_ammo: AmmoName | SR5Ammo = "regular"
    smartlink: Smartlink = "none"
    # The attacker's situation.
    running: bool = False
    from_moving_vehicle: bool = False
    in_melee: bool = False
    off_hand: bool = False
    ambidextrous: bool = False
    # Firing from behind full cover through the smartgun's camera or an imaging scope.
    through_camera: bool = False
    # A weapon with a blast or area effect (grenades, rockets, missiles).
    area_effect: bool = False
    # A flechette shotgun's choke: medium and wide spreads reach several targets.
    choke: Literal["narrow", "medium", "wide"] | None = None
    environment: SR5Environment = msgspec.field(default_factory=SR5Environment)
    # The load in the weapon: a standard ammunition, or its numbers.
    ammo: AmmoName | SR5Ammo = "regular"
    # Edge declared with the attack: Push the Limit adds Edge dice, ignores the limit and lets
    # sixes explode. The VTT owns the Edge pool; the result says what to spend.
    edge: Literal["none", "push_the_limit"] = "none"
    # The attacker's vision gear and what its weapon fires that shifts the environment's rows.
    vision: Annotated[list[VisionGear], msgspec.Meta(max_length=8)] = []
    # With several targets and a pool that does not split evenly: who gets the larger shares
    # (as many as the remainder). Unset: the first targets in order.
    larger_shares: Annotated[list[Id], msgspec.Meta(max_length=MAX_TARGETS)] = []
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


SR5ActionName = Literal[
    "other",
    "take_aim",
    "move",
    "full_defense",
    "drop_prone",
    "hit_the_dirt",
    "reload",
    "second_chance",
    "delay_action",
]


class SR5ActionRequest(Request, tag="sr5", tag_field="ruleset"):
    actor: Id
    action: SR5ActionName
    # take_aim: what this aim adds, +1 to the accuracy or +1 die (a wireless smartlink gives
    # both); with image magnification, the first aim locks the range shift instead.
    aim_for: Literal["accuracy", "dice"] | None = None
    image_magnification: bool = False
    # second_chance: which target's attack test of the actor's last attack to re-roll.
    target: Id | None = None
    # Dice given for the steps the action rolls, and the seed of the others.
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None
    # full_defense: what is added to every defense, and whether the actor is surprised.
    full_defense: FullDefense | None = None
    surprised: bool = False


class SR5Test(msgspec.Struct, frozen=True, gc=False):
    """One d6 pool: how many dice, how many hits, and its glitches."""

    pool: int
    hits: int
    ones: int
    glitch: bool
    critical_glitch: bool


class SR5Recoil(msgspec.Struct, frozen=True, gc=False):
    rounds_before: int
    rounds_fired: int
    rounds_total: int
    compensation: int
    heavy_weapon: bool
    penalty: int


class SR5Damage(msgspec.Struct, frozen=True, gc=False):
    dv: int
    armor: int
    # What goes into the DV and the armor: the weapon, the ammunition and the net hits.
    dv_modifiers: list[Modifier]
    ap: int
    track: Literal["physical", "stun"]
    soak: SR5Test
    soak_modifiers: list[Modifier]
    soak_hits: int
    boxes: int


class SR5TargetResult(msgspec.Struct, frozen=True, gc=False):
    target: str
    outcome: Literal["hit", "graze", "miss"]
    range: Literal["short", "medium", "long", "extreme"]
    # This target's share of the pool, and what applies to this target alone.
    share: int
    attack_modifiers: list[Modifier]
    attack: SR5Test
    attack_hits_before_limit: int
    attack_hits: int
    defense_hits: int
    net_hits: int
    defense: SR5Test
    defense_modifiers: list[Modifier]
    # Set when a skill-based full defense puts a limit on the defense test.
    defense_limit: int | None = None
    # The attack touched the target (a hit or a graze), and what the weapon's contact did.
    contact: bool = False
    contact_effect: str | None = None
    damage: SR5Damage | None = None


class SR5Affected(msgspec.Struct, frozen=True, gc=False):
    actor: str
    inside: bool
    adjacent: bool
    # The worst zone's hits, off all their actions while they are aware of it (0 if unaware).
    penalty: int
    must_test: bool


class SR5ZoneResult(msgspec.Struct, frozen=True, gc=False):
    zone: Zone
    suppression: SR5Test
    affected: list[SR5Affected]


class SR5AttackResult(
    msgspec.Struct, tag="sr5_attack", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    attacker: str
    weapon: str
    mode: FiringMode
    action: Literal["simple", "complex"]
    rounds_fired: int
    ammo_left: int
    # With two guns, what the second fired and has left.
    second_rounds_fired: int = 0
    second_ammo_left: int | None = None
    pool: int
    modifiers: list[Modifier]
    limit: int
    limit_modifiers: list[Modifier]
    recoil: SR5Recoil
    # Edge points the attack spends (the VTT takes them off the character's pool).
    edge_spent: int
    targets: list[SR5TargetResult]
    # Suppressive fire: the zone it made, and who it affects.
    zone: SR5ZoneResult | None = None
    dice: list[DiceRoll]
    seed: int


class SR5ActorState(msgspec.Struct, omit_defaults=True, gc=False):
    # Rounds fired since the last reset (progressive recoil), and the compensation that stood
    # when that sequence began.
    recoil_rounds: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0
    recoil_compensation: Annotated[int, msgspec.Meta(ge=0, le=1_000)] = 0
    # Defense tests made since this actor's last action phase began (-1 die each).
    defenses: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0
    # Aim actions taken since the last shot or other action, by what each was for, and whether
    # an image magnification aim has locked the one-step range shift.
    aims_for_accuracy: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    aims_for_dice: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    range_shift: bool = False
    # The full defense in force until the combat turn ends, and what it adds.
    full_defense: FullDefense | None = None
    # The action phase (TurnState.phase) of this actor's last attack.
    attacked_in_phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    # Zone tests in the current action phase: -1 die each after the first (the guide).
    zone_tests_phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    zone_tests: Annotated[list[Id], msgspec.Meta(max_length=MAX_ZONES)] = []
    last_attack: SR5LastAttack | None = None


class SR5State(
    msgspec.Struct, tag="sr5", tag_field="ruleset", forbid_unknown_fields=True, gc=False
):
    actors: dict[Id, SR5ActorState] = {}
    zones: Annotated[dict[Id, SR5ZoneState], msgspec.Meta(max_length=MAX_ZONES)] = {}
    zones_made: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0


class SR5LastAttack(msgspec.Struct, gc=False):
    """The actor's last attack, for the follow-ups that act on it (Second Chance): the attack
    itself is its event (the actor's newest `attack` event); the state keeps only what the rules
    need next. (States stored before kept the request and result here: they are ignored.)"""

    # Targets whose attack test has had its Second Chance.
    second_chances: Annotated[list[Id], msgspec.Meta(max_length=MAX_TARGETS)] = []


class SR5ZoneState(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A live suppression zone and what its test needs."""

    zone: Zone
    polygon: Annotated[list[tuple[float, float]], msgspec.Meta(min_length=3, max_length=16)]
    dv: Annotated[int, msgspec.Meta(ge=0, le=200)]
    ap: Annotated[int, msgspec.Meta(ge=-60, le=60)]
    damage_type: Literal["P", "S"]
    allows_prone: bool
    # Flechette spreads: what those inside take on their test.
    test_modifier: Annotated[int, msgspec.Meta(ge=-20, le=0)] = 0


class SR5ZoneTestRequest(Request, tag="sr5", tag_field="ruleset"):
    """An actor in, entering or moving in a zone tests to avoid the fire (the guide)."""

    actor: Id
    defender: SR5Defender
    edge: Rating = 0
    # Dropping prone (a free action) or hitting the dirt (an interrupt) avoids the test where
    # the zone allows it; Lucky Cover (Edge) always does.
    avoid: Literal["none", "drop_prone", "hit_the_dirt", "lucky_cover"] = "none"
    dice: GivenDice = {}
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR5ZoneTestResult(
    msgspec.Struct, tag="sr5_zone_test", tag_field="kind", frozen=True, gc=False
):
    actor: str
    zone: str
    avoided: str | None
    threshold: int
    pool: int
    modifiers: list[Modifier]
    test: SR5Test | None
    hit: bool
    damage: SR5Damage | None
    edge_spent: int
    dice: list[DiceRoll]
    seed: int


# What a client may send when the scene fills parts in (docs/api.md, "The scene"): the attacker
# and weapons by name, a target's distance (from the positions), defender (from its sheet) and
# posture (cover, prone, running) left out. The service fills it into SR5AttackRequest.
SR5TargetAsk = asked(
    SR5Target,
    "SR5TargetAsk",
    {
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "defender": (SR5Defender | None, None),
        "cover": (Cover | None, None),
        "prone": (bool | None, None),
        "running": (bool | None, None),
    },
)
SR5AttackAsk = asked(
    SR5AttackRequest,
    "SR5AttackAsk",
    {
        "attacker": (SR5Attacker | Id,),
        "weapon": (SR5Weapon | Id,),
        "second_weapon": (SR5Weapon | Id | None, None),
        "targets": (
            Annotated[list[SR5TargetAsk], msgspec.Meta(max_length=MAX_TARGETS)],  # type: ignore[valid-type]
            msgspec.field(default_factory=list),
        ),
    },
    tag="sr5",
    tag_field="ruleset",
)
# A zone test may leave out the defender: the scene's sheet of the actor testing fills it in.
SR5ZoneTestAsk = asked(
    SR5ZoneTestRequest,
    "SR5ZoneTestAsk",
    {"defender": (SR5Defender | None, None)},
    tag="sr5",
    tag_field="ruleset",
)
