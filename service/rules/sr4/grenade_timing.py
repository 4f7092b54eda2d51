"""When a thrown SR4 grenade goes off (001_2cfc288dfef1df08.txt, "Timing Grenades"): the
grenade the state holds, the moment of the turn that sets it off, and its blast on the scene as
it stands then (the blast itself: grenades.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import msgspec

from schemas.common import Point, Zone
from schemas.encounter import AdvanceRequest, TurnState
from schemas.scene import SceneActor
from schemas.sr4 import (
    MAX_PENDING_GRENADES,
    SR4Barrier,
    SR4BlastActor,
    SR4BlastResult,
    SR4GrenadeNumbers,
    SR4PendingGrenade,
)
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr4.grenades import blast, described, reach_m


def detonation_seed(seed: int) -> int:
    """The seed of a thrown grenade's blast, from the throw's: the same throw always goes off
    the same way (BLAKE2b of the seed's digits, 63 bits)."""
    digest = hashlib.blake2b(f"sr4-grenade:{seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def thrower_score(turn: TurnState, thrower: str) -> int | None:
    """The thrower's initiative score now, when the service runs the initiative and it is in it."""
    initiative = turn.initiative
    if initiative is None:
        return None
    return next((e.score for e in initiative.entries if e.actor == thrower), None)


# A grenade goes off in the next initiative pass (001, "Timing Grenades"), so a thrower has
# waiting at most what one action phase throws (two simple actions: two throws, or a launcher's
# two semi-automatic launches); twice that leaves the GM room to correct, and one thrower never
# fills the encounter's MAX_PENDING_GRENADES (issue 23: one player's 50 blocked the GM's).
MAX_PENDING_PER_THROWER = 4


def pending_grenade(
    grenades_thrown: int,
    pending: Sequence[SR4PendingGrenade],
    thrower: str,
    point: Point,
    numbers: SR4GrenadeNumbers,
    turn: TurnState,
    barriers: Sequence[SR4Barrier],
    confined: bool,
    seed: int,
    path: str,
) -> SR4PendingGrenade:
    """A thrown grenade as the state holds it until it goes off (001, "Timing Grenades"): id
    "g<n>", the turn and pass it was thrown in, the thrower's score then."""
    own = sum(1 for grenade in pending if grenade.thrower == thrower)
    if own >= MAX_PENDING_PER_THROWER:
        raise RuleViolation(
            f"{thrower} has {own} grenades waiting to go off already, more than one action "
            "phase throws: advance the turn first",
            path=path,
            kind="too-many-grenades",
            status=409,
        )
    if len(pending) >= MAX_PENDING_GRENADES:
        raise RuleViolation(
            f"{len(pending)} grenades are waiting to go off already, the most an encounter "
            "holds: advance the turn first",
            path=path,
            kind="too-many-grenades",
            status=409,
        )
    return SR4PendingGrenade(
        id=f"g{grenades_thrown + 1}",
        thrower=thrower,
        point=point,
        numbers=numbers,
        combat_turn=turn.combat_turn,
        initiative_pass=turn.initiative_pass,
        score=thrower_score(turn, thrower),
        barriers=list(barriers),
        confined=confined,
        seed=detonation_seed(seed),
    )


def _goes_off_now(crossing: AdvanceRequest, grenade: SR4PendingGrenade, turn: TurnState) -> bool:
    """At this action phase of a pass after the throw's: the thrower's own phase, or (with the
    service's initiative) the first phase whose actor's score is below the thrower's."""
    if crossing.to != "action_phase" or grenade.passes_ended < 1 or crossing.actor is None:
        return False
    if crossing.actor == grenade.thrower:
        return True
    initiative = turn.initiative
    if initiative is None:
        return False
    scores = {e.actor: e.score for e in initiative.entries}
    # The thrower's score in this pass (the pass cost came off everyone's alike); the score it
    # threw at once it has left the order.
    at = scores.get(grenade.thrower, grenade.score)
    acting = scores.get(crossing.actor)
    return at is not None and acting is not None and acting < at


def due(
    crossing: AdvanceRequest, pending: Sequence[SR4PendingGrenade], turn: TurnState
) -> tuple[list[SR4PendingGrenade], list[SR4PendingGrenade]]:
    """The grenades still waiting after `crossing`, and those that go off at it, in the order
    they were thrown.

    A grenade goes off in the first initiative pass after the one it was thrown in, at the
    thrower's score (001, "Timing Grenades"): the first phase of that pass whose actor's score
    is below the thrower's, or the thrower's own phase, or the end of that pass, whichever comes
    first. While the VTT runs the initiative (no scores): the thrower's next phase in a later
    pass, or the end of that next pass. `turn` is the turn after the whole move (the engine's
    crossings all see it); `passes_ended` counts the pass boundaries on the grenade itself, as
    a new combat turn leaves no trace of the pass that ended."""
    waiting: list[SR4PendingGrenade] = []
    going: list[SR4PendingGrenade] = []
    boundary = crossing.to in ("initiative_pass", "combat_turn")
    for grenade in pending:
        if boundary:
            grenade = msgspec.structs.replace(grenade, passes_ended=grenade.passes_ended + 1)
            (going if grenade.passes_ended >= 2 else waiting).append(grenade)
        elif _goes_off_now(crossing, grenade, turn):
            going.append(grenade)
        else:
            waiting.append(grenade)
    return waiting, going


def blast_actor(actor_id: str, actor: SceneActor) -> SR4BlastActor | None:
    """An actor of the scene where a blast may reach it (None without a position): its Body and
    impact armor from its sheet, when the sheet has them."""
    if actor.position is None:
        return None
    return SR4BlastActor(
        id=actor_id,
        position=actor.position,
        body=getattr(actor.sheet, "body", None),
        impact_armor=getattr(actor.sheet, "impact_armor", None),
    )


def scene_actors(scene: Mapping[str, SceneActor]) -> list[SR4BlastActor]:
    """Everyone on the scene with a position, where they stand now, in id order."""
    found = (blast_actor(actor_id, actor) for actor_id, actor in sorted(scene.items()))
    return [actor for actor in found if actor is not None]


def go_off(grenade: SR4PendingGrenade, scene: Mapping[str, SceneActor]) -> SR4BlastResult:
    """A held grenade's blast, on the scene as it is now, with its own seed's dice."""
    return blast(
        grenade.id,
        grenade.thrower,
        grenade.point,
        grenade.numbers,
        scene_actors(scene),
        grenade.barriers,
        grenade.confined,
        Dice(grenade.seed),
        seed=grenade.seed,
    )


def went_off_blasts(
    crossing: AdvanceRequest,
    pending: Sequence[SR4PendingGrenade],
    turn: TurnState,
    scene: Mapping[str, SceneActor],
) -> tuple[list[SR4PendingGrenade], list[SR4BlastResult], list[str]]:
    """The grenades still waiting, the blasts of those that went off at `crossing`, and what
    happened in words."""
    waiting, going = due(crossing, pending, turn)
    blasts = [go_off(grenade, scene) for grenade in going]
    return waiting, blasts, [described(result) for result in blasts]


def pending_zone(grenade: SR4PendingGrenade) -> Zone:
    """A grenade waiting to go off, as the map draws it: a circle as far as its blast hurts."""
    reach = reach_m(grenade.numbers)
    return Zone(
        id=grenade.id,
        shooter=grenade.thrower,
        shape="circle",
        hits=0,
        penalty=0,
        kind=f"grenade ({grenade.numbers.type})",
        lasts="until it goes off: the next initiative pass, at the thrower's score",
        center=grenade.point,
        radius_m=reach if reach is not None else 0.0,
        tests=False,
    )
