"""The Hard Life dodge (004, "Resolve Dodge Test", "Dodging", Table 8): Combat Pool and Dodge
Pool dice against 4 with Table 8's modifiers and +1 per 3 rounds of autofire; both pools are
spent from the dodger's state. Shared by attacks and suppression zone tests."""

from __future__ import annotations

import msgspec

from schemas.common import Modifier
from schemas.sr3 import SR3Test
from schemas.sr3hl import HLActorState, HLDefender, HLDodge
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3 import pool
from service.rules.sr3hl import armor, tables


def step(target_id: str) -> str:
    return f"dodge:{target_id}"


def counted(dodger: HLActorState, defender: HLDefender) -> HLActorState:
    """The dodger with both pools counted from the request: the Combat Pool as SR3 counts it
    (less the overall armour's penalty, 004 Table 7), the Dodge Pool as many dice as the dodge
    skill (004, "Dodging"); the dice left never more than the pool."""
    worn = dodger.armor if dodger.armor is not None else defender.armor
    size = pool.pool_size(
        defender.combat_pool,
        defender.quickness,
        defender.intelligence,
        defender.willpower,
        armor.for_pool(worn, defender.quickness),
    )
    dodger = pool.counted(dodger, size)
    skill = defender.dodge_skill
    if skill is None:
        return dodger
    if dodger.dodge_pool is None:
        return msgspec.structs.replace(dodger, dodge_pool=skill, dodge_left=skill)
    return msgspec.structs.replace(
        dodger, dodge_pool=skill, dodge_left=min(dodger.dodge_left, skill)
    )


def check_dodge_pool(target_id: str, dodger: HLActorState, asked: int, path: str) -> None:
    """Asking for more Dodge Pool dice than are left is a 409 saying how many remain."""
    if asked == 0:
        return
    if dodger.dodge_pool is None:
        raise RuleViolation(
            f"{target_id}'s Dodge Pool is not known: give the defender's dodge_skill",
            path=path,
            kind="dodge-pool-unknown",
        )
    if asked > dodger.dodge_left:
        raise RuleViolation(
            f"{target_id} has {dodger.dodge_left} Dodge Pool dice left this combat turn "
            f"(of {dodger.dodge_pool}); {asked} asked",
            path=path,
            kind="dodge-pool-exhausted",
            status=409,
        )


def check(
    target_id: str,
    defender: HLDefender,
    dodger: HLActorState,
    asked: HLDodge,
    path: str,
    defender_path: str,
    resist: int = 0,
) -> HLActorState:
    """The dodger counted, refused (409) when the dodge and the Body roll's `resist` dice ask
    more than is left; nothing spent yet."""
    dodger = counted(dodger, defender)
    pool.check_commit(
        target_id, dodger, asked.combat_pool, f"{path}.combat_pool", f"{defender_path}.combat_pool"
    )
    pool.check_commit(
        target_id,
        dodger,
        asked.combat_pool + resist,
        f"{path.rsplit('.', 1)[0]}.resist",
        f"{defender_path}.combat_pool",
    )
    check_dodge_pool(target_id, dodger, asked.dodge_pool, f"{path}.dodge_pool")
    return dodger


def dice_of(asked: HLDodge) -> int:
    """004: the dodge rolls the Combat Pool and Dodge Pool dice committed to it."""
    return asked.combat_pool + asked.dodge_pool


def modifiers(asked: HLDodge, rounds: int, area_effect: bool) -> list[Modifier]:
    """004 Table 8 and "Automatic fire": 4, area effect +2, half the visibility modifier of
    seeing the attacker (rounded down), dodging into cover -2 +1 per full 2 m, prone +2, and
    +1 per 3 rounds fired."""
    found = [Modifier("dodge", tables.DODGE_TARGET_NUMBER)]
    if area_effect:
        found.append(Modifier("area effect attack", tables.DODGE_AREA_EFFECT))
    if asked.visibility is not None:
        seen = sr3_attack.visibility(asked.visibility)
        if seen is not None and seen.value // tables.DODGE_VISIBILITY_DIVISOR:
            found.append(
                Modifier(f"{seen.source}, halved", seen.value // tables.DODGE_VISIBILITY_DIVISOR)
            )
    if asked.into_cover_m is not None:
        metres = int(asked.into_cover_m // tables.DODGE_COVER_METRES_PER_POINT)
        found.append(
            Modifier(
                f"dodge into cover {asked.into_cover_m:g} m away", tables.DODGE_INTO_COVER + metres
            )
        )
    if asked.prone:
        found.append(Modifier("prone", tables.DODGE_PRONE))
    if rounds // tables.DODGE_ROUNDS_PER_POINT:
        found.append(Modifier(f"{rounds} rounds", rounds // tables.DODGE_ROUNDS_PER_POINT))
    return found


def dodge(
    target_id: str,
    defender: HLDefender,
    dodger: HLActorState,
    asked: HLDodge,
    rounds: int,
    area_effect: bool,
    dice: Dice,
    path: str,
) -> tuple[SR3Test | None, HLActorState]:
    """The dodge test (None when no dice are committed) on step dodge:<target_id>, and the
    dodger's state with the dice spent (409 naming `path`.combat_pool / .dodge_pool when more
    are asked than are left)."""
    dodger = counted(dodger, defender)
    pool.check_commit(
        target_id,
        dodger,
        asked.combat_pool,
        f"{path}.combat_pool",
        f"{path.rsplit('.', 1)[0]}.defender.combat_pool",
    )
    check_dodge_pool(target_id, dodger, asked.dodge_pool, f"{path}.dodge_pool")
    count = dice_of(asked)
    if count == 0:
        return None, dodger
    test = sr3_attack.test(
        dice, step(target_id), count, count, modifiers(asked, rounds, area_effect)
    )
    dodger = pool.spend(dodger, asked.combat_pool)
    if asked.dodge_pool:
        dodger = msgspec.structs.replace(
            dodger, dodge_left=max(0, dodger.dodge_left - asked.dodge_pool)
        )
    return test, dodger
