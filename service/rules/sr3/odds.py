"""The odds of sr3's attacks, exact: the attack test, the dodge and the damage resistance test
as `resolve_attack` builds them (attack.build_attack), each a target-number test's distribution
(service/rules/odds.py), combined as the rolling combines them (docs/odds.md, "sr3").

sr3 has no zones: a zone test's odds are refused as the zone test itself is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.common import Modifier
from schemas.encounter import TurnState
from schemas.odds import AttackOdds, ZoneTestOdds
from schemas.sr3 import SR3AttackRequest, SR3State
from service.rules import odds
from service.rules.sr3 import attack, damage, tables
from service.rules.sr3 import scene as scene_fill

RULESET = "sr3"
# The result's outcomes that touched the target: a hit, and a hit the resistance test staged
# below Light ("resisted"). A dodged attack never touched it.
TOUCHED = frozenset({"hit", "resisted"})


def attack_odds(
    request: SR3AttackRequest, state: SR3State, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    """The attack's one target, every branch of `resolve_attack` enumerated: no success is a
    miss (the Rule of One among them), the dodge taking every success is dodged, else the
    resistance test stages the level (below Light: resisted)."""
    del seed, samples  # nothing is sampled
    built = attack.build_attack(request, state, turn)
    target = request.target
    tally = odds.Tally(target.id, touched=TOUCHED)

    shot = odds.target_number_test(built.attack_dice, attack.target_number(built.attack_modifiers))
    # Rule of One: every die a 1 fails the test outright; sr3's glitch and critical glitch.
    tally.add(shot.successes[0] - shot.all_ones, "miss")
    tally.add(shot.all_ones, "miss", glitch=True, critical_glitch=True)

    net = _after_dodge(shot.successes, built.dodge_dice, built.dodge_modifiers)
    tally.add(net[0], "dodged")

    resisted = odds.target_number_test(
        built.resist_dice, attack.target_number(built.resist_modifiers)
    ).successes
    weapon = request.weapon
    # The level depends on the successes left less the resistance's alone: staged once each.
    ends = {
        net_successes: damage.staged(weapon.damage_level, built.level_modifiers, net_successes)
        for net_successes in range(1 - len(resisted), len(net))
    }
    overflow = 0.0
    for left, p_left in enumerate(net):
        if left == 0 or p_left == 0.0:
            continue
        for successes, p_resisted in enumerate(resisted):
            p = p_left * p_resisted
            ended = ends[left - successes]
            if ended.level is None:
                tally.add(p, "resisted", net=left)
                continue
            key = (tables.BOXES[ended.level], weapon.damage_type, ended.level, None)
            tally.add(p, "hit", net=left, damage=key)
            if ended.overflow:
                overflow += p
    tally.notes.extend(_target_notes(request, built, overflow))
    target_odds = tally.odds()
    # One target per sr3 attack: the whole attack is its target.
    return odds.attack_answer(
        RULESET, request.attacker.id, [target_odds], _attack_notes(request, built)
    )


def _after_dodge(
    attack_successes: Sequence[float], dodge_dice: int, dodge_modifiers: list[Modifier]
) -> list[float]:
    """P(successes left after the dodge = k) for an attack with successes (index 0: all
    dodged). The dodge is rolled only against successes, and only with dice committed."""
    left = [0.0] * len(attack_successes)
    dodged: Sequence[float] = (1.0,)
    if dodge_dice > 0:
        dodged = odds.target_number_test(
            dodge_dice, attack.target_number(dodge_modifiers)
        ).successes
    for successes, p in enumerate(attack_successes):
        if successes == 0 or p == 0.0:
            continue
        for taken, q in enumerate(dodged):
            left[max(0, successes - taken)] += p * q
    return left


def _modifiers(modifiers: list[Modifier]) -> str:
    """'range (short), standard vision 4, recoil +1': the base unsigned, what changes it signed."""
    return ", ".join(
        f"{m.source} {m.value:+d}" if i else f"{m.source} {m.value}"
        for i, m in enumerate(modifiers)
    )


def _dice(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'}"


def _attack_notes(request: SR3AttackRequest, built: attack.BuiltAttack) -> list[str]:
    tn = attack.target_number(built.attack_modifiers)
    pool_dice = f" ({request.pool} from the Combat Pool)" if request.pool else ""
    return [
        f"attack test: {_dice(built.attack_dice)}{pool_dice} against target number {tn} "
        f"({_modifiers(built.attack_modifiers)}); a 6 is rolled again and added (Rule of Six)",
        "glitch and critical glitch: the Rule of One, every die of the attack test a 1 (the "
        "test fails outright)",
        "one target per sr3 attack: the whole attack's figures are its target's",
    ]


def _target_notes(
    request: SR3AttackRequest, built: attack.BuiltAttack, overflow: float
) -> list[str]:
    target = request.target
    notes = []
    if built.dodge_dice:
        notes.append(
            f"dodge: {_dice(built.dodge_dice)} of the Combat Pool against target number "
            f"{attack.target_number(built.dodge_modifiers)}, rolled only against successes"
        )
    else:
        notes.append("no dodge: no Combat Pool dice committed to it")
    resist_pool = f" + {target.resist} Combat Pool dice" if target.resist else ""
    notes.append(
        f"damage resistance: Body {target.defender.body}{resist_pool} against target number "
        f"{attack.target_number(built.resist_modifiers)} "
        f"({_modifiers(built.resist_modifiers)}); every 2 net successes stage the level one "
        "step, below Light is resisted"
    )
    if overflow > 0.0:
        notes.append(
            f"overflow (stages past Deadly, the result's damage.overflow): {overflow:.1%}; "
            "the boxes stay Deadly's 10"
        )
    return notes


def zone_test_odds(
    zone_id: str, request: Any, state: Any, turn: TurnState, seed: int, samples: int
) -> ZoneTestOdds:
    """sr3 has no suppression zones (002 describes none): refused as resolve_zone_test is."""
    del zone_id, request, state, turn, seed, samples
    raise scene_fill.no_zones()
