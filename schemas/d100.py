"""d100 wire types: the Shot Rate attack, reloads, the suppression circle and the combat state.

The firearms chapter (rules-sources/003_e47222605a1f2969.txt) with the core-test decisions of
rules-sources/README.md. "AP" means two things there: `action_points` and `armor_penetration` here.
"""

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

# A Success Target term or skill value, as a character sheet holds it (percent points).
SkillValue = Annotated[int, msgspec.Meta(ge=0, le=500)]
ModifierValue = Annotated[int, msgspec.Meta(ge=-500, le=500)]
Penalty = Annotated[int, msgspec.Meta(ge=-500, le=0)]
# A character's hit points: at most half what a monitor holds (schemas/monitor.py, `Boxes`), so
# the hit points below zero down to death fit too.
HitPoints = Annotated[int, msgspec.Meta(ge=1, le=499)]
Rounds = Annotated[int, msgspec.Meta(ge=0, le=10_000)]
ShotRate = Annotated[int, msgspec.Meta(ge=0, le=6)]
# The most action points an action may cost or an encounter's budget may give.
MAX_ACTION_POINTS = 100
ActionPoints = Annotated[int, msgspec.Meta(ge=0, le=MAX_ACTION_POINTS)]
Seed = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Location = Literal["head", "torso", "right_arm", "left_arm", "right_leg", "left_leg"]
ReloadMethod = Literal[
    "nock_arrow",
    "crossbow",
    "magazine",
    "speedloader",
    "break_action",
    "belt",
    "cylinder",
    "internal_magazine",
    "individual",
    "power_cell",
]
D100ActionName = Literal["reload", "move", "other", "free_action"]


class D100Modifier(Request):
    """A Success Target modifier the table names: a source and its value."""

    source: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    value: ModifierValue


class D100RangeBand(Request):
    """One range band of a weapon: out to `up_to_m` metres, this Success Target modifier."""

    up_to_m: Annotated[float, msgspec.Meta(gt=0, le=100_000)]
    modifier: ModifierValue
    name: Annotated[str, msgspec.Meta(max_length=40)] = ""


class D100Attacker(Request):
    id: Id
    marksmanship: SkillValue
    recoil_control: Annotated[int, msgspec.Meta(ge=0, le=6)] = 0
    # The character's current Wounds modifier, as a penalty: 0, -10, -20, ...
    wound_modifier: Penalty = 0
    # Where the shooter stands: inside a suppression zone, its penalty applies to the test.
    position: Point | None = None


class D100Weapon(Request):
    id: Id
    # Damage "7 + 2d6": flat 7, two bonus dice of six sides.
    damage: Annotated[int, msgspec.Meta(ge=0, le=500)]
    # The rounds it holds now.
    ammo: Rounds
    # Its Range: bands nearest first; past the last band it does not reach.
    range_bands: Annotated[list[D100RangeBand], msgspec.Meta(min_length=1, max_length=8)]
    bonus_dice: Annotated[int, msgspec.Meta(ge=0, le=50)] = 0
    bonus_die: Literal[4, 6, 8, 10, 12] = 6
    armor_penetration: Annotated[int, msgspec.Meta(ge=0, le=500)] = 0
    # The weapon's maximum Shot Rate.
    shot_rate: ShotRate = 0
    double_barreled: bool = False


class D100Defender(Request):
    # Active Defense and Passive Defense, as Success Targets; unset: that defense is not rolled.
    defense: SkillValue | None = None
    passive_defense: SkillValue | None = None
    armor: Annotated[int, msgspec.Meta(ge=0, le=500)] = 0
    # Armour at some locations other than `armor` (which covers the rest).
    armor_by_location: dict[Location, Annotated[int, msgspec.Meta(ge=0, le=500)]] = {}
    # Modifiers of every test the defender makes here: Active and Passive Defense, and the
    # Athletics test of a suppression zone.
    test_modifiers: Annotated[list[D100Modifier], msgspec.Meta(max_length=20)] = []
    # The character's current Wounds modifier, as a penalty (0, -10, -20, ...): every test
    # above takes it (docs/rulesets/d100.md, a choice; the scene fills it from the sheet).
    wound_modifier: Penalty = 0
    # Where the defender stands: inside a suppression zone, its penalty applies to its tests.
    position: Point | None = None


# Weapons one sheet carries.
MAX_WEAPONS = 20


class D100Sheet(Request, tag="d100", tag_field="ruleset"):
    """A d100 character as the scene keeps it: what attacks, defenses and zone tests read of it.
    Every value may be left out; a request that needs one the sheet lacks must carry it."""

    marksmanship: SkillValue | None = None
    athletics: SkillValue | None = None
    recoil_control: Annotated[int, msgspec.Meta(ge=0, le=6)] = 0
    wound_modifier: Penalty = 0
    # Its hit points, which size the condition monitor (003 gives none: the sheet's own number,
    # service/rules/d100/monitor.py); unset: the monitor counts wounds but sizes nothing.
    hit_points: HitPoints | None = None
    defense: SkillValue | None = None
    passive_defense: SkillValue | None = None
    armor: Annotated[int, msgspec.Meta(ge=0, le=500)] = 0
    armor_by_location: dict[Location, Annotated[int, msgspec.Meta(ge=0, le=500)]] = {}
    # Its weapons, each with the rounds loaded now.
    weapons: Annotated[list[D100Weapon], msgspec.Meta(max_length=MAX_WEAPONS)] = []


class D100Target(Request):
    id: Id
    distance_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)]
    defender: D100Defender = msgspec.field(default_factory=D100Defender)
    # Multi-target fire: this target's part of the Success Target, in percent (all add to 100).
    share_percent: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    # Modifiers of this target alone: visibility, and any others the table names.
    visibility: Penalty = 0
    modifiers: Annotated[list[D100Modifier], msgspec.Meta(max_length=20)] = []
    # The hit location when the table has decided it (a called shot); else the d10 decides.
    location: Location | None = None


class D100ZoneOrder(Request):
    """Suppressive fire: a 10 m circle centred on a point within the weapon's range."""

    origin: Point
    center: Point
    visibility: Penalty = 0
    modifiers: Annotated[list[D100Modifier], msgspec.Meta(max_length=20)] = []


class D100Bystander(Request):
    """An actor on the scene, for who is inside a new zone and must avoid the fire."""

    id: Id
    position: Point
    in_cover: bool = False
    prone: bool = False


class D100AttackRequest(Request, tag="d100", tag_field="ruleset"):
    attacker: D100Attacker
    weapon: D100Weapon
    # Every attack but suppressive fire needs at least one target.
    targets: Annotated[list[D100Target], msgspec.Meta(max_length=MAX_TARGETS)] = []
    shot_rate: ShotRate = 0
    # A double-barreled shotgun fires both barrels at one target.
    both_barrels: bool = False
    # What aiming adds to the Success Target (single-target fire only).
    aim: Annotated[int, msgspec.Meta(ge=0, le=500)] = 0
    # Other modifiers of the whole attack, before multi-target fire divides it.
    modifiers: Annotated[list[D100Modifier], msgspec.Meta(max_length=20)] = []
    suppressive: D100ZoneOrder | None = None
    bystanders: Annotated[list[D100Bystander], msgspec.Meta(max_length=100)] = []
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class D100Test(msgspec.Struct, frozen=True, gc=False):
    """One d100 roll-under test: success at or under the Success Target, and its hits."""

    success_target: int
    roll: int
    success: bool
    hits: int


class D100Damage(msgspec.Struct, frozen=True, gc=False):
    flat: int
    bonus_dice: int
    bonus_hits: int
    # The attack's net hits (0 for a suppression hit, which has no active defense).
    net_hits: int
    passive_defense: D100Test | None
    passive_defense_hits: int
    damage: int
    location: Location
    armor: int
    armor_penetration: int
    effective_armor: int
    # What gets through the armour: the wound to resolve at `location`.
    wound: int


class D100TargetResult(msgspec.Struct, frozen=True, gc=False):
    target: str
    outcome: Literal["hit", "miss"]
    range_band: str
    # This target's part of the attack's Success Target, and what applies to it alone.
    share_percent: int
    share: int
    modifiers: list[Modifier]
    attack: D100Test
    defense: D100Test | None
    defense_modifiers: list[Modifier]
    net_hits: int
    damage: D100Damage | None = None


class D100Affected(msgspec.Struct, frozen=True, gc=False):
    actor: str
    inside: bool
    # The strongest zone's penalty on all their tests.
    penalty: int
    # Neither in cover nor prone: they must avoid the fire (a zone test).
    must_test: bool


class D100ZoneResult(msgspec.Struct, frozen=True, gc=False):
    zone: Zone | None
    test: D100Test
    modifiers: list[Modifier]
    affected: list[D100Affected]


class D100AttackResult(
    msgspec.Struct, tag="d100_attack", tag_field="kind", frozen=True, kw_only=True, gc=False
):
    attacker: str
    weapon: str
    shot_rate: int
    both_barrels: bool
    action_points: int
    # The attacker's action points spent this turn, this attack included.
    action_points_spent: int
    rounds_fired: int
    ammo_left: int
    # The Success Target of the whole attack, before multi-target fire divides it.
    success_target: int
    modifiers: list[Modifier]
    targets: list[D100TargetResult]
    zone: D100ZoneResult | None = None
    dice: list[DiceRoll]
    seed: int


class D100Reload(Request):
    """The weapon being loaded, how, and with how many rounds."""

    id: Id
    method: ReloadMethod
    capacity: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    loaded: Rounds = 0
    # Rounds to load; unset: up to capacity.
    rounds: Annotated[int, msgspec.Meta(ge=1, le=10_000)] | None = None


class D100ActionRequest(Request, tag="d100", tag_field="ruleset"):
    actor: Id
    action: D100ActionName
    # move and other: what the action costs (a free action costs none).
    action_points: ActionPoints | None = None
    # reload: the weapon, and the loader's Agility for loose rounds (batches of Agility / 5).
    weapon: D100Reload | None = None
    agility: Annotated[int, msgspec.Meta(ge=1, le=500)] | None = None
    # move: where the actor ends up, to say which zones they must avoid.
    position: Point | None = None
    in_cover: bool = False
    prone: bool = False
    # As every request that may roll: no d100 action rolls yet, so given dice are refused.
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class D100ActorState(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    # Action points spent since this actor's turn began.
    action_points_spent: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0


class D100ZoneState(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A live suppression circle and the weapon damage its zone tests deal."""

    zone: Zone
    damage: Annotated[int, msgspec.Meta(ge=0, le=500)]
    bonus_dice: Annotated[int, msgspec.Meta(ge=0, le=50)]
    bonus_die: Literal[4, 6, 8, 10, 12]
    armor_penetration: Annotated[int, msgspec.Meta(ge=0, le=500)]


class D100State(
    msgspec.Struct, tag="d100", tag_field="ruleset", forbid_unknown_fields=True, gc=False
):
    actors: dict[Id, D100ActorState] = {}
    zones: Annotated[dict[Id, D100ZoneState], msgspec.Meta(max_length=MAX_ZONES)] = {}
    zones_made: Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)] = 0
    # Action points each actor may spend per turn; unset: not enforced.
    action_point_budget: ActionPoints | None = None


class D100ZoneTestRequest(Request, tag="d100", tag_field="ruleset"):
    """An actor in, entering or moving in a suppression circle avoids the fire."""

    actor: Id
    athletics: SkillValue
    defender: D100Defender = msgspec.field(default_factory=D100Defender)
    # Hit the Dirt or Dive for Cover, when the actor meets the interrupt's requirements.
    avoid: Literal["none", "hit_the_dirt", "dive_for_cover"] = "none"
    modifiers: Annotated[list[D100Modifier], msgspec.Meta(max_length=20)] = []
    location: Location | None = None
    dice: GivenDice = {}
    seed: Seed | None = None
    # The player's own seed, mixed into the server's dice (docs/dice.md).
    client_seed: ClientSeed | None = None


class D100ZoneTestResult(
    msgspec.Struct, tag="d100_zone_test", tag_field="kind", frozen=True, gc=False
):
    actor: str
    zone: str
    avoided: str | None
    modifiers: list[Modifier]
    test: D100Test | None
    hit: bool
    damage: D100Damage | None
    dice: list[DiceRoll]
    seed: int


# What a client may send when the scene fills parts in (docs/api.md, "The scene"): the attacker
# and weapon by name, a target's distance (from the positions) and defender (from its sheet) left
# out. The service fills it into D100AttackRequest.
D100TargetAsk = asked(
    D100Target,
    "D100TargetAsk",
    {
        "distance_m": (Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None, None),
        "defender": (D100Defender | None, None),
    },
)
D100AttackAsk = asked(
    D100AttackRequest,
    "D100AttackAsk",
    {
        "attacker": (D100Attacker | Id,),
        "weapon": (D100Weapon | Id,),
        "targets": (
            Annotated[list[D100TargetAsk], msgspec.Meta(max_length=MAX_TARGETS)],  # type: ignore[valid-type]
            msgspec.field(default_factory=list),
        ),
    },
    tag="d100",
    tag_field="ruleset",
)
# A zone test may leave out Athletics and the defender: the scene's sheet and position of the
# actor testing fill them in.
D100ZoneTestAsk = asked(
    D100ZoneTestRequest,
    "D100ZoneTestAsk",
    {"athletics": (SkillValue | None, None), "defender": (D100Defender | None, None)},
    tag="d100",
    tag_field="ruleset",
)
