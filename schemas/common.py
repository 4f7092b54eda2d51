"""Wire vocabulary shared by every ruleset: positions, modifiers, dice records, problems."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

# Client ids: actors, weapons, targets, encounters are named by the VTT. `(?!\n)` anchors at the
# true end: Python's `$` (msgspec searches with `re`) also matches before a final newline.
ID_PATTERN = r"^[A-Za-z0-9_.:\-]+$(?!\n)"
ID_MAX_LENGTH = 64
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX_LENGTH, pattern=ID_PATTERN)]
NAME_MAX_LENGTH = 200
Name = Annotated[str, msgspec.Meta(max_length=NAME_MAX_LENGTH)]
# Given dice per step name: faces as typed in at the table, at most MAX_DICE_PER_STEP a step
# (exploding sixes included) and MAX_DICE_STEPS steps, or (where the step's rules read no more)
# the counts a player reads off them. The faces are checked against each step's die, and the
# counts against its pool, which only the ruleset knows.
MAX_DICE_PER_STEP = 200
MAX_TARGETS = 20
MAX_DICE_STEPS = 64
StepName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Faces = Annotated[list[int], msgspec.Meta(max_length=MAX_DICE_PER_STEP)]
DiceCount = Annotated[int, msgspec.Meta(ge=0, le=MAX_DICE_PER_STEP)]


class DiceCounts(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, gc=False):
    """A step's dice as counted at the table, in place of their faces: `hits` (5s and 6s) and
    `ones` of a d6 pool (SR5, SR4), or `successes` and `ones` of a target-number test (SR3,
    Hard Life); `ones` only judge a glitch or the Rule of One. Only for steps whose rules read
    no more than that (GET the needs at POST .../dice: each step says whether it takes them)."""

    hits: DiceCount | msgspec.UnsetType = msgspec.UNSET
    successes: DiceCount | msgspec.UnsetType = msgspec.UNSET
    ones: DiceCount = 0


GivenFaces = Annotated[dict[StepName, Faces], msgspec.Meta(max_length=MAX_DICE_STEPS)]
GivenDice = Annotated[dict[StepName, Faces | DiceCounts], msgspec.Meta(max_length=MAX_DICE_STEPS)]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, gc=False):
    """Base of every request body: unknown fields are an error, never silently ignored."""


# JSON nesting a body may have: a table's deepest body (a state edit's combat state) is about ten
# levels; far deeper input would only exhaust the decoder's recursion (a 500).
MAX_JSON_DEPTH = 64
# The scene plane: positions within this many metres of the origin each way. Ten times the
# longest length a request gives (100 km), so every distance between two positions is finite.
MAX_COORDINATE_M = 1_000_000
Coordinate = Annotated[float, msgspec.Meta(ge=-MAX_COORDINATE_M, le=MAX_COORDINATE_M)]


class Point(Request):
    x: Coordinate
    y: Coordinate


def on_plane(x: float, y: float) -> Point:
    """A point the rules work out (a grenade's landing, a zone's far corners), kept on the
    plane: one near its edge plus a length could fall off it, and the state holding it could no
    longer be read back."""
    return Point(
        x=min(MAX_COORDINATE_M, max(-MAX_COORDINATE_M, x)),
        y=min(MAX_COORDINATE_M, max(-MAX_COORDINATE_M, y)),
    )


class Modifier(msgspec.Struct, frozen=True, gc=False):
    """One term of a pool, limit or target number, with where it comes from."""

    source: str
    value: int


class DiceRoll(msgspec.Struct, frozen=True, gc=False):
    """Every die rolled for one step, in order (extra dice of exploding sixes included)."""

    step: str
    sides: int
    values: list[int]
    given: bool = False
    # Given as counts (DiceCounts): what was given; `values` are then the faces those counts
    # stand for (hits as 5s, ones as 1s, the rest as 3s...), which replay to the same result.
    counts: DiceCounts | msgspec.UnsetType = msgspec.UNSET


class Problem(msgspec.Struct, omit_defaults=True, gc=False):
    """RFC 9457 problem details, the body of every error response."""

    type: str
    title: str
    status: int
    detail: str
    path: str | None = None
    request_id: str | None = None


# Suppression zones an encounter holds at once.
MAX_ZONES = 50


class Zone(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    """A suppression zone on the scene plane, as any ruleset draws it."""

    id: Id
    shooter: Id
    shape: Literal["triangle", "circle", "polygon"]
    hits: Annotated[int, msgspec.Meta(ge=0, le=1000)]
    # Dice (or points) off the actions of those inside, or next to it.
    penalty: Annotated[int, msgspec.Meta(ge=-10_000, le=0)]
    kind: Annotated[str, msgspec.Meta(max_length=100)]
    lasts: Annotated[str, msgspec.Meta(max_length=200)]
    points: Annotated[list[Point], msgspec.Meta(max_length=16)] = []
    center: Point | None = None
    # Whoever is in it, or moves in it, tests against it (POST .../zones/{zone}/tests); False
    # for what the map only shows (an SR4 grenade waiting to go off).
    tests: bool = True
    radius_m: Annotated[float, msgspec.Meta(ge=0, le=100_000)] | None = None


def asked(
    struct: type[msgspec.Struct], name: str, fields: dict[str, Any], **options: Any
) -> type[msgspec.Struct]:
    """A request type as a client may send it when the scene can fill parts in: `struct`'s
    fields, with the types (and defaults) of `fields` in place of theirs. The service fills it
    into `struct` itself, which the rules core reads."""
    made: list[Any] = []
    for field in msgspec.structs.fields(struct):
        if field.name in fields:
            made.append((field.name, *fields[field.name]))
        elif field.default is not msgspec.NODEFAULT:
            made.append((field.name, field.type, field.default))
        elif field.default_factory is not msgspec.NODEFAULT:
            made.append(
                (field.name, field.type, msgspec.field(default_factory=field.default_factory))
            )
        else:
            made.append((field.name, field.type))
    return msgspec.defstruct(
        name,
        made,
        bases=(Request,),
        module=struct.__module__,
        kw_only=True,
        forbid_unknown_fields=True,
        **options,
    )
