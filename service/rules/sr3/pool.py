"""The SR3 Combat Pool the service keeps per actor, armour layering and what armour costs it.

SR3 pools (tables.py): (Quickness + Intelligence + Willpower) / 2, rounded down, unless the
request sets it; refreshed when a combat turn begins; every test says the dice it commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

import msgspec

from schemas.sr3 import SR3ActorState, SR3Armor, SR3ArmorPiece, SR3PoolSpent
from schemas.sr3hl import HLActorState
from service.rules.ruleset import RuleViolation
from service.rules.sr3 import tables


class PoolKeeper(Protocol):
    """An actor state that keeps a Combat Pool as SR3 does (SR3ActorState, and the states of
    the rulesets built on SR3)."""

    @property
    def combat_pool(self) -> int | None: ...
    @property
    def pool_left(self) -> int: ...


# The states whose pools these functions count and spend (msgspec's replace keeps the type).
K = TypeVar("K", SR3ActorState, HLActorState)


def layered(ratings: Sequence[int]) -> int:
    """002, "Armor Layering": the highest rating in full, each other half, rounded down."""
    if not ratings:
        return 0
    ordered = sorted(ratings, reverse=True)
    return ordered[0] + sum(r // tables.LAYERED_PIECE_DIVISOR for r in ordered[1:])


def armor_penalty(ballistic: int, impact: int, quickness: int | None) -> int:
    """Combat Pool dice the armour costs: once the higher layered rating reaches twice
    Quickness (002), one die per point from there (SR3 armor; docs, "Armour")."""
    if quickness is None:
        return 0
    threshold = tables.ARMOR_PENALTY_QUICKNESS_FACTOR * quickness
    higher = max(ballistic, impact)
    if higher < threshold:
        return 0
    return (higher - threshold + 1) * tables.ARMOR_POOL_PENALTY_PER_POINT


def armor_of(pieces: Sequence[SR3ArmorPiece], quickness: int | None) -> SR3Armor:
    ballistic = layered([p.ballistic for p in pieces])
    impact = layered([p.impact for p in pieces])
    return SR3Armor(
        ballistic=ballistic,
        impact=impact,
        pool_penalty=armor_penalty(ballistic, impact, quickness),
    )


def pool_size(
    combat_pool: int | None,
    quickness: int | None,
    intelligence: int | None,
    willpower: int | None,
    armor: SR3Armor,
) -> int | None:
    """The Combat Pool the request gives: its own number, else the attributes'; less the
    armour's penalty. None when it gives neither."""
    if combat_pool is not None:
        base = combat_pool
    elif quickness is None or intelligence is None or willpower is None:
        return None
    else:
        base = (quickness + intelligence + willpower) // tables.COMBAT_POOL_DIVISOR
    return max(0, base - armor.pool_penalty)


def counted(actor: K, size: int | None) -> K:
    """The actor with its pool counted: the size the request gives (the dice left never more
    than it), or as the state has it."""
    if size is None:
        return actor
    if actor.combat_pool is None:
        return msgspec.structs.replace(actor, combat_pool=size, pool_left=size)
    return msgspec.structs.replace(actor, combat_pool=size, pool_left=min(actor.pool_left, size))


def check_commit(actor_id: str, actor: PoolKeeper, asked: int, path: str, needs_path: str) -> None:
    """Asking for more Combat Pool dice than are left is a 409 saying how many remain."""
    if asked == 0:
        return
    if actor.combat_pool is None:
        raise RuleViolation(
            f"{actor_id}'s Combat Pool is not known: give combat_pool, or quickness, "
            "intelligence and willpower",
            path=needs_path,
            kind="combat-pool-unknown",
        )
    if asked > actor.pool_left:
        raise RuleViolation(
            f"{actor_id} has {actor.pool_left} Combat Pool dice left this combat turn "
            f"(of {actor.combat_pool}); {asked} asked",
            path=path,
            kind="combat-pool-exhausted",
            status=409,
        )


def spend(actor: K, dice: int) -> K:
    if dice == 0:
        return actor
    return msgspec.structs.replace(actor, pool_left=max(0, actor.pool_left - dice))


def spent(actor_id: str, actor: PoolKeeper, dice: int) -> SR3PoolSpent | None:
    if actor.combat_pool is None:
        return None
    return SR3PoolSpent(actor=actor_id, spent=dice, left=actor.pool_left)


def refreshed(actor: K) -> K:
    if actor.combat_pool is None or actor.pool_left == actor.combat_pool:
        return actor
    return msgspec.structs.replace(actor, pool_left=actor.combat_pool)
