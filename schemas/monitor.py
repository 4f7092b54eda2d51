"""Condition monitors: the damage an actor carries, kept by the service for every scene actor.

One shape serves sr5, sr4, sr3 and d100; what each number means, and what the monitor makes of
it (track sizes, wound modifier, whether the actor can act), is its ruleset's
(service/rules/<ruleset>/monitor.py). Hard Life keeps its own per-location monitors in its
combat state (schemas/sr3hl.py), as before.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import Id, Name, Request

# Who applies an attack's damage: the service, on the target's monitor in the same commit;
# the GM or the target's controller, from the result, once ("confirm"); or the VTT, which
# keeps its own sheets (the service keeps no monitor).
DamageMode = Literal["service", "confirm", "vtt"]
Track = Literal["physical", "stun"]
# What the monitor says of the actor: "unconscious" and worse cannot act and are skipped by
# the initiative; "dying" is unconscious and losing boxes (sr5, sr4, sr3: overflow).
Condition = Literal["ok", "unconscious", "dying", "dead"]
INCAPACITATED: frozenset[str] = frozenset({"unconscious", "dying", "dead"})
Boxes = Annotated[int, msgspec.Meta(ge=0, le=1000)]
# d100 hit locations (schemas/d100.py's Location) and any other ruleset's names for them.
LocationName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
# Damage waiting for confirmation, per actor: the oldest is dropped past this many.
MAX_PENDING = 20


class PendingDamage(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """Damage a result dealt that the GM or the target's controller has yet to apply
    (`"damage": "confirm"`)."""

    # "d<n>": unique in the encounter.
    id: Id
    track: Track
    boxes: Boxes
    # d100: where the wound landed.
    location: LocationName | None = None
    # What dealt it, in words a player reads: "attack by sam (sa)".
    source: Name = ""


class MonitorStatus(msgspec.Struct, frozen=True, gc=False):
    """What the monitor means, worked out by the service from the monitor and the sheet on
    every write (what a client sends here is replaced)."""

    # Boxes in each track (None: the sheet lacks the attribute that sizes it).
    physical_max: int | None = None
    stun_max: int | None = None
    overflow_max: int | None = None
    # What the wounds do to the actor's tests, as its ruleset counts them: a dice-pool penalty
    # (sr5, sr4: 0, -1, ...), a Success Target penalty (d100: 0, -10, ...), a target-number
    # modifier (sr3: 0, +1, ...).
    wound_modifier: int = 0
    # What the wounds take off (or add to) an initiative score.
    initiative_modifier: int = 0
    condition: Condition = "ok"
    # Where the numbers come from.
    source: str = ""


class Monitor(Request, omit_defaults=True):
    """An actor's condition monitor."""

    # sr5, sr4, sr3: boxes marked on each track; d100: hit points lost on `physical`.
    physical: Boxes = 0
    stun: Boxes = 0
    # sr5, sr4, sr3: physical boxes past a full physical track.
    overflow: Boxes = 0
    # d100: wound points by location.
    wounds: Annotated[dict[LocationName, Boxes], msgspec.Meta(max_length=16)] = {}
    pending: Annotated[list[PendingDamage], msgspec.Meta(max_length=MAX_PENDING)] = []
    status: MonitorStatus | None = None


class MonitorSet(Request):
    """The numbers a GM's edit sets; what it leaves out stays."""

    physical: Boxes | None = None
    stun: Boxes | None = None
    overflow: Boxes | None = None
    wounds: Annotated[dict[LocationName, Boxes], msgspec.Meta(max_length=16)] | None = None


class MonitorEdit(Request):
    """`POST .../actors/{actor}/monitor`: the GM heals, sets or clears a monitor. Exactly one
    of `heal`, `set` and `clear`."""

    # Boxes off each track (first aid, a medkit), never below 0; d100: hit points back.
    heal: Annotated[dict[Track, Boxes], msgspec.Meta(max_length=2)] | None = None
    set: MonitorSet | None = None
    # Every track empty and any pending damage dropped (the end of a fight).
    clear: bool = False
    reason: Name = ""
    # The encounter's version the editor read (`GET`'s `version`): when given and the encounter
    # is at another, the edit is refused (409 `state-changed`) and nothing is written.
    version: Annotated[int, msgspec.Meta(ge=1)] | None = None


MonitorChange = Literal["healed", "set", "cleared", "applied", "declined", "damaged"]


class MonitorResult(msgspec.Struct, tag="monitor", tag_field="kind", gc=False):
    actor: Id
    change: MonitorChange
    monitor: Monitor
    # What the change did, in words a player reads ("stun 6/10 -> 3/10", "unconscious").
    effects: list[str] = []
    reason: str = ""
