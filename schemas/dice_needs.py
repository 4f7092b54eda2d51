"""`POST /v1/encounters/{id}/dice`: what a request will roll, step by step, before it is rolled."""

from __future__ import annotations

from typing import Literal

import msgspec

from schemas.common import Id, Request
from schemas.encounter import ActionRequest, AttackAsk, ZoneTestAsk

DiceForm = Literal["faces", "counts"]


# A Struct made at run time: the unions of the rulesets' bodies are built so too.
DiceNeedsAsk = msgspec.defstruct(
    "DiceNeedsAsk",
    [
        ("attack", AttackAsk | None, None),
        ("action", ActionRequest | None, None),
        ("zone_test", ZoneTestAsk | None, None),
        ("zone", Id | None, None),
    ],
    bases=(Request,),
    module=__name__,
    kw_only=True,
    forbid_unknown_fields=True,
)
DiceNeedsAsk.__doc__ = """The request to be made, as its own route takes it (its `dice` those
known so far): exactly one of `attack`, `action`, or `zone_test` with its `zone`."""


class DiceStepNeed(msgspec.Struct, frozen=True, gc=False):
    """One step the request rolls: whose dice they are, the die, how many, and what is given."""

    step: str
    # Whose dice: the acting actor's (its attack, its scatter...), or the actor the step is
    # named after (its defense, its soak); None for what is no actor's (a barrier's).
    actor: str | None
    sides: int
    # How many dice: an exploding pool's base pool (`explodes`: each six adds a die, as many
    # more as its given faces' sixes call for); a step rolled as several tests, all of them.
    count: int
    # All of its dice are given (as `given_as`), and how many are.
    given: bool
    given_dice: int
    # The forms the step takes: "faces" always; "counts" where its rules read no more than
    # the `counts` named (a d6 pool's hits and ones, a target-number test's successes and ones).
    forms: list[DiceForm]
    label: str
    # Rolled whatever the dice not yet given show (False: only if they turn out so, as a
    # defense once the attack has a hit; its dice may be given all the same).
    certain: bool = True
    given_as: DiceForm | None = None
    counts: list[Literal["hits", "successes", "ones"]] = []
    explodes: bool = False
    # A target-number test's: what a die must reach to be a success (Rule of Six: a six is
    # rolled again and added while under it).
    target_number: int | None = None


class DiceNeeds(msgspec.Struct, frozen=True, gc=False):
    """Every step whose count is known now, in the order rolled (those rolled only as the dice
    before them turn out, `certain` false, last). `more`: more steps may follow
    once the dice not yet given are known (ask again with them). `ready`: the request as given
    rolls nothing more: every die it rolls is given."""

    request: Literal["attack", "action", "zone_test"]
    steps: list[DiceStepNeed]
    more: bool
    ready: bool
    # The steps still to roll, as a line for the table ("Sam: roll 11d6"); "" when ready.
    label: str
    kind: Literal["dice_needs"] = "dice_needs"
