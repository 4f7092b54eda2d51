"""Shadowrun 3 wire types: the attack against a target number, its result, the actions of the
three action tables, the sheet, and the combat state (recoil, aim, Combat Pool) kept per actor.

rules-sources/002_65e09aecd368bc68.txt, with the published SR3 rules where it is silent
(docs/rulesets/sr3.md names each source).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import DiceRoll, GivenDice, Id, Modifier, Request, asked
from schemas.fair import ClientSeed

# The highest attribute, skill or rating a request may give.
MAX_RATING = 30
Rating = Annotated[int, msgspec.Meta(ge=0, le=MAX_RATING)]
Attribute = Annotated[int, msgspec.Meta(ge=1, le=MAX_RATING)]
# Combat Pool dice: (Quickness + Intelligence + Willpower) / 2 of the highest attributes, or a
# pool a request or sheet sets.
MAX_POOL = 100
PoolDice = Annotated[int, msgspec.Meta(ge=0, le=MAX_POOL)]
Seed = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]

# The rows of the document's weapon range table (002, "WEAPON RANGE TABLE").
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
]
# The rows of the document's ranged attack target numbers (002, "RANGED ATTACK TARGET NUMBERS").
Sight = Literal[
    "standard",
    "laser_sight",
    "smart_goggles",
    "smartlink",
    "smartlink_2",
    "magnification_1",
    "magnification_2",
    "magnification_3",
    "magnification_1_laser",
    "magnification_2_laser",
    "magnification_3_laser",
]
# The document's firing modes (002, action tables: "Fire Weapon (SA/BF)", "(SS/FA)").
FiringMode = Literal["SS", "SA", "BF", "FA"]
DamageLevel = Literal["L", "M", "S", "D"]
WoundLevel = Literal["none", "L", "M", "S", "D"]
# The target-number modifier of a character's wounds given as a number: the condition
# monitor's physical and stun levels added up (service/rules/sr3/monitor.py), up to D + D.
WoundModifier = Annotated[int, msgspec.Meta(ge=0, le=8)]
ArmorKind = Literal["ballistic", "impact"]
Cover = Literal["none", "partial", "good", "full"]
AttackerMovement = Literal[
    "stationary", "walking", "walking_difficult", "running", "running_difficult"
]
TargetMovement = Literal["stationary", "walking", "running"]
Vision = Literal[
    "normal",
    "low_light_natural",
    "low_light_cyber",
    "thermographic_natural",
    "thermographic_cyber",
    "ultrasound",
]
Light = Literal["full", "partial", "minimal", "full_darkness", "glare"]
Obscurant = Literal["none", "mist", "light_smoke", "heavy_smoke", "thermal_smoke"]

# Every action of the document's three action tables (002, "FREE ACTIONS", "SIMPLE ACTIONS",
# "COMPLEX ACTIONS"), snake_case; "other" is any action the tables do not name. Their kinds are
# service/rules/sr3/tables.py's ACTION_KINDS.
SR3ActionName = Literal[
    "other",
    # free
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
    # simple
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
    # complex
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
]

# Armour pieces one sheet or defender wears.
MAX_ARMOR_PIECES = 10
MAX_WEAPONS = 20


class SR3ArmorPiece(Request):
    """One piece of armour: its ballistic and impact ratings (layered, 002 "Armor Layering")."""

    name: Annotated[str, msgspec.Meta(max_length=100)] = ""
    ballistic: Rating = 0
    impact: Rating = 0


ArmorPieces = Annotated[list[SR3ArmorPiece], msgspec.Meta(max_length=MAX_ARMOR_PIECES)]


class SR3Attacker(Request):
    id: Id
    # The firearm (or bow, throwing) skill of the weapon fired.
    skill: Rating
    quickness: Attribute | None = None
    intelligence: Attribute | None = None
    willpower: Attribute | None = None
    # Bows, crossbows and thrown weapons: the Strength their range bands are counted from.
    strength: Attribute | None = None
    # The Combat Pool's size when the character's is not (Quickness + Intelligence +
    # Willpower) / 2 rounded down.
    combat_pool: PoolDice | None = None
    armor: ArmorPieces = []
    wounds: WoundLevel = "none"
    # The wounds as a number, when they are more than one level's (both monitors wounded):
    # given, it is the target-number modifier and `wounds` is not read.
    wound_modifier: WoundModifier | None = None


class SR3Weapon(Request):
    id: Id
    category: WeaponCategory
    # The damage code: Power and damage level (an Ares Predator is 9M).
    power: Annotated[int, msgspec.Meta(ge=0, le=100)]
    damage_level: DamageLevel
    modes: Annotated[list[FiringMode], msgspec.Meta(min_length=1, max_length=4)]
    ammo: Annotated[int, msgspec.Meta(ge=0, le=10_000)]
    damage_type: Literal["physical", "stun"] = "physical"
    # The armour the attack meets; unset: impact for the impact projectiles, ballistic for the
    # rest (002's "Impact Projectiles" rows).
    armor: ArmorKind | None = None
    # Recoil compensation: gas vents, stocks, gyro mounts...
    recoil_compensation: Annotated[int, msgspec.Meta(ge=0, le=30)] = 0
    # A bow's Strength rating, in place of the attacker's for its range bands.
    strength_rating: Attribute | None = None


class SR3Defender(Request):
    body: Attribute
    quickness: Attribute | None = None
    intelligence: Attribute | None = None
    willpower: Attribute | None = None
    combat_pool: PoolDice | None = None
    armor: ArmorPieces = []
    # The defender's wounds, as the attacker's: they raise its dodge's target number, not its
    # damage resistance test's (service/rules/sr3/attack.py).
    wounds: WoundLevel = "none"
    wound_modifier: WoundModifier | None = None


class SR3Target(Request):
    id: Id
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    defender: SR3Defender
    cover: Cover = "none"
    movement: TargetMovement = "walking"
    # Combat Pool dice the defender commits to its dodge and to its damage resistance test.
    dodge: PoolDice = 0
    resist: PoolDice = 0


class SR3Visibility(Request):
    """The visibility table: the light and what hangs in the air, seen with the attacker's
    vision; a melee attack takes half."""

    vision: Vision = "normal"
    light: Light = "full"
    obscurant: Obscurant = "none"
    melee: bool = False


class SR3AttackRequest(Request, tag="sr3", tag_field="ruleset"):
    attacker: SR3Attacker
    weapon: SR3Weapon
    mode: FiringMode
    target: SR3Target
    # Full auto: the rounds fired (at most 10 in one complex action).
    rounds: Annotated[int, msgspec.Meta(ge=1, le=10)] | None = None
    # Combat Pool dice the attacker adds to the skill (at most the skill).
    pool: PoolDice = 0
    sight: Sight = "standard"
    # Launch weapons fired indirectly: only a smartlink-2 modifies the test.
    indirect: bool = False
    movement: AttackerMovement = "stationary"
    melee_opponents: Annotated[int, msgspec.Meta(ge=0, le=20)] = 0
    blind_fire: bool = False
    called_shot: bool = False
    # A firearm in each hand: this is one of them.
    second_firearm: bool = False
    visibility: SR3Visibility = msgspec.field(default_factory=SR3Visibility)
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR3ActionRequest(Request, tag="sr3", tag_field="ruleset"):
    actor: Id
    action: SR3ActionName
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR3ZoneTestRequest(Request, tag="sr3", tag_field="ruleset"):
    """SR3 has no suppression zones: every zone test is refused (a 422 naming that)."""

    actor: Id
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class SR3Test(msgspec.Struct, frozen=True, gc=False):
    """One test against a target number: the dice (and how many came from the Combat Pool),
    the target number and the modifiers that made it, each die's total (Rule of Six re-rolls
    added) and the successes (Rule of One: none when every die shows 1)."""

    dice: int
    pool_dice: int
    target_number: int
    modifiers: list[Modifier]
    totals: list[int]
    successes: int
    rule_of_one: bool


class SR3Recoil(msgspec.Struct, frozen=True, gc=False):
    # Rounds this actor fired earlier in this action phase, and this attack's.
    rounds_before: int
    rounds_fired: int
    recoil: int
    compensation: int
    heavy_weapon: bool
    # The target number modifier: what compensation leaves, doubled for heavy weapons.
    modifier: int


class SR3Armor(msgspec.Struct, frozen=True, gc=False):
    """Layered armour: the highest piece in full, the others at half, rounded down."""

    ballistic: int
    impact: int
    # The Combat Pool dice the armour costs (docs/rulesets/sr3.md, "Armour").
    pool_penalty: int


class SR3Damage(msgspec.Struct, frozen=True, gc=False):
    power: int
    base_level: DamageLevel
    power_modifiers: list[Modifier]
    # What raises the level before staging (bursts and full auto), in levels.
    level_modifiers: list[Modifier]
    armor: ArmorKind
    armor_rating: int
    resist: SR3Test
    # Attack successes left after the dodge, less the resistance successes.
    net_successes: int
    stages: int
    # None: staged below Light, no damage.
    level: DamageLevel | None
    boxes: int
    track: Literal["physical", "stun"]
    # Stages that went past Deadly (they raise the level no further).
    overflow: int


class SR3TargetResult(msgspec.Struct, frozen=True, gc=False):
    target: str
    outcome: Literal["hit", "miss", "dodged", "resisted"]
    range: Literal["short", "medium", "long", "extreme"]
    attack_successes: int
    dodge: SR3Test | None
    dodge_successes: int
    # Attack successes the dodge left.
    net_successes: int
    armor: SR3Armor
    damage: SR3Damage | None = None


class SR3PoolSpent(msgspec.Struct, frozen=True, gc=False):
    actor: str
    spent: int
    left: int


class SR3AttackResult(
    msgspec.Struct, tag="sr3_attack", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    attacker: str
    weapon: str
    mode: FiringMode
    action: Literal["simple", "complex"]
    rounds_fired: int
    ammo_left: int
    attack: SR3Test
    recoil: SR3Recoil
    target: SR3TargetResult
    # The Combat Pool dice each actor committed, and what it has left this combat turn.
    combat_pool: list[SR3PoolSpent]
    dice: list[DiceRoll]
    seed: int


class SR3ActorState(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    # The Combat Pool's size (None: not counted yet) and the dice left until the next turn.
    combat_pool: PoolDice | None = None
    pool_left: PoolDice = 0
    # The action phase (TurnState.phase) the recoil and targets below belong to, the rounds
    # fired in it and the targets attacked in it.
    phase: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    rounds_in_phase: Annotated[int, msgspec.Meta(ge=0, le=1_000)] = 0
    targets_in_phase: Annotated[list[Id], msgspec.Meta(max_length=20)] = []
    # Simple actions of take_aim since the last shot or other action.
    aims: Annotated[int, msgspec.Meta(ge=0, le=MAX_RATING)] = 0


class SR3State(
    msgspec.Struct, tag="sr3", tag_field="ruleset", forbid_unknown_fields=True, gc=False
):
    actors: dict[Id, SR3ActorState] = {}


class SR3Sheet(Request, tag="sr3", tag_field="ruleset"):
    """An SR3 character as the scene keeps it: what attacks, dodges and resistance tests read
    of it. Every number may be left out; a request that needs one the sheet lacks carries it.
    The Combat Pool dice left this turn are in the combat state, not here."""

    body: Attribute | None = None
    quickness: Attribute | None = None
    strength: Attribute | None = None
    intelligence: Attribute | None = None
    willpower: Attribute | None = None
    # The combat skill its attacks use, and the skill of each weapon that needs another.
    skill: Rating | None = None
    weapon_skills: Annotated[dict[Id, Rating], msgspec.Meta(max_length=MAX_WEAPONS)] = {}
    combat_pool: PoolDice | None = None
    # What the initiative the service rolls reads: Reaction + the initiative dice.
    reaction: Attribute | None = None
    initiative_dice: Annotated[int, msgspec.Meta(ge=1, le=5)] | None = None
    armor: ArmorPieces = []
    # The character's wound level now (the condition monitor's), and, when the service keeps
    # the monitors, the modifier of both its tracks added up (it wins over `wounds`).
    wounds: WoundLevel = "none"
    wound_modifier: WoundModifier | None = None
    weapons: Annotated[list[SR3Weapon], msgspec.Meta(max_length=MAX_WEAPONS)] = []


# What a client may send when the scene fills parts in: the attacker and weapon by name, the
# target's distance (from the positions), defender (from its sheet) and posture left out.
SR3TargetAsk = asked(
    SR3Target,
    "SR3TargetAsk",
    {
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "defender": (SR3Defender | None, None),
        "cover": (Cover | None, None),
        "movement": (TargetMovement | None, None),
    },
)
SR3AttackAsk = asked(
    SR3AttackRequest,
    "SR3AttackAsk",
    {
        "attacker": (SR3Attacker | Id,),
        "weapon": (SR3Weapon | Id,),
        "target": (SR3TargetAsk,),
    },
    tag="sr3",
    tag_field="ruleset",
)
SR3ZoneTestAsk = SR3ZoneTestRequest
