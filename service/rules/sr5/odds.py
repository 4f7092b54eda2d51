"""The odds of sr5's attacks and zone tests (service/rules/odds.py, docs/odds.md#sr5).

Exact: the tests are those `attack.build_attack` and `suppression.build_zone_test` build for the
roll, and each target's chain (attack hits after the limit, net against the defense, boxes after
soak) is a few small distributions convolved, never an enumeration of faces.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from schemas.sr5 import SR5AttackRequest, SR5State, SR5ZoneTestRequest
from service.rules import odds
from service.rules.odds import NO_DAMAGE, Dist, Tally
from service.rules.sr5 import suppression
from service.rules.sr5.attack import (
    EDITION,
    AttackTests,
    TargetTests,
    build_attack,
    damage_test,
    outcome_of,
)
from service.rules.sr5.defense import SoakTest

DamageKey = tuple[int, str | None, str | None, str | None]

# The result's `outcome` of a target, and which of them touch it (schemas/odds.py).
HIT = frozenset({"hit"})
GRAZE = frozenset({"graze"})
# A zone test's outcomes: "avoided" (the result's `avoided`), else "hit" or "miss" (its `hit`).


def _through(dist: Dist, counts: Callable[[int], int]) -> Dist:
    """The distribution of `counts(X)` for X ~ `dist`: the rule that says which rolled hits
    count (a limit, Push the Limit's none) applied to each value, as the roll applies it."""
    out = [0.0] * len(dist)
    for rolled, p in enumerate(dist):
        out[counts(rolled)] += p
    return tuple(out)


def _damage(soak: SoakTest) -> list[tuple[DamageKey, float]]:
    """The boxes a hit leaves after its soak test, by (boxes, track): no boxes is no damage."""
    by_key: dict[DamageKey, float] = {}
    for soak_hits, p in enumerate(odds.pool(soak.pool, EDITION).hits):
        boxes = soak.boxes(soak_hits)
        key: DamageKey = NO_DAMAGE if boxes == 0 else (boxes, soak.track, None, None)
        by_key[key] = by_key.get(key, 0.0) + p
    return list(by_key.items())


def _add_hits(tally: Tally, net: dict[int, float], damage: dict[DamageKey, float]) -> None:
    """The hits, as Tally.add would add each (outcome, net, damage) case: the tally keeps each
    of the three apart, so each is added up apart (a case per net hit and soak roll would be
    hundreds of calls with Push the Limit's long tail)."""
    tally.outcomes["hit"] = tally.outcomes.get("hit", 0.0) + sum(net.values())
    for k, p in net.items():
        tally.net[k] = tally.net.get(k, 0.0) + p
    for key, p in damage.items():
        tally.damage[key] = tally.damage.get(key, 0.0) + p


def _percent(p: float) -> str:
    return f"{p:.0%}" if p >= 0.01 else "under 1%"


def _target_odds(request: SR5AttackRequest, tests: TargetTests) -> TargetOdds:
    """One target: its own attack test (its share of the pool), its defense and its soak."""
    rolled = odds.pool(tests.attack_pool, EDITION, tests.pushed)
    attack = _through(rolled.hits, tests.attack_hits)
    defense = _through(odds.pool(tests.defense_pool, EDITION).hits, tests.defense_hits)
    # Misses and grazes have no net hits and no damage; each hit's net hits make its damage.
    # Summed here case by case, and handed to the tally once per outcome, net and damage.
    others: dict[str, float] = {}
    net: dict[int, float] = {}
    for attack_hits, pa in enumerate(attack):
        if pa <= 0.0:
            continue
        if attack_hits == 0:
            # No hits, no attack: the defender rolls nothing.
            outcome = outcome_of(0, 0)
            others[outcome] = others.get(outcome, 0.0) + pa
            continue
        for defense_hits, pd in enumerate(defense):
            outcome = outcome_of(attack_hits, defense_hits)
            if outcome == "hit":
                k = attack_hits - defense_hits
                net[k] = net.get(k, 0.0) + pa * pd
            else:
                others[outcome] = others.get(outcome, 0.0) + pa * pd
    damage: dict[DamageKey, float] = {}
    for k, pk in net.items():
        for key, p in _damage(damage_test(request, tests.target, k)):
            damage[key] = damage.get(key, 0.0) + pk * p
    tally = Tally(target=tests.target.id, touched=HIT, grazed=GRAZE)
    for name, p in others.items():
        tally.add(p, name)
    _add_hits(tally, net, damage)
    # The attack test's glitch is judged on the dice first rolled, whatever follows.
    tally.glitch = rolled.glitch
    tally.critical_glitch = rolled.critical_glitch
    if tests.pushed:
        tally.notes.append(
            "Push the Limit: every six explodes and the limit is ignored (a six's extra hits "
            f"are counted to {odds.MAX_EXTRA_HITS}, the tail past them folded in)"
        )
    else:
        cut = odds.at_least(rolled.hits, tests.limit + 1)
        if cut > odds.NEGLIGIBLE:
            tally.notes.append(
                f"the limit of {tests.limit} cuts the hits in {_percent(cut)} of the rolls"
            )
    if tests.defense_limit is not None:
        tally.notes.append(f"the full defense's limit caps the defense at {tests.defense_limit}")
    if tests.attack_pool == 0:
        tally.notes.append("no dice left for this target: the attack cannot hit")
    return tally.odds()


def _zone_note(tests: AttackTests) -> str:
    """What suppressive fire buys: the zone's hits, each zone test's threshold and the
    penalty to those in it or next to it."""
    pool = suppression.suppression_pool(tests.modifiers)
    # The zone's hits, capped as suppression.zone_hits caps them.
    zone_hits = _through(
        odds.pool(pool, EDITION).hits, lambda rolled: suppression.zone_hits(rolled, tests.limit)
    )
    shown = ", ".join(f"{k}: {_percent(p)}" for k, p in enumerate(zone_hits) if p >= 0.005)
    return (
        f"suppressive fire lays down a zone and has no target to hit: its hits ({pool} dice "
        f"[{tests.limit}], mean {odds.mean(zone_hits):.2f}; {shown}) are the threshold of "
        "every zone test and the penalty of those in or next to it; ask each actor's zone test "
        "odds (POST .../zones/{zone}/tests/odds) once the zone is laid"
    )


def attack_odds(
    request: SR5AttackRequest, state: SR5State, turn: TurnState, seed: int, samples: int
) -> AttackOdds:
    del seed, samples  # every sr5 distribution is exact
    tests = build_attack(request, state, turn)
    notes: list[str] = []
    if tests.zone_order is not None:
        notes.append(_zone_note(tests))
    targets = [_target_odds(request, target) for target in tests.targets]
    if len(targets) > 1:
        notes.append(
            "each target has its own attack test of its share of the pool, its own defense and "
            "soak: the targets' odds are independent"
        )
    # Each target's tests are rolled apart (attack:<id>, defense:<id>, soak:<id>).
    return odds.attack_answer("sr5", request.attacker.id, targets, notes)


def zone_test_odds(
    zone_id: str,
    request: SR5ZoneTestRequest,
    state: SR5State,
    turn: TurnState,
    seed: int,
    samples: int,
) -> ZoneTestOdds:
    del seed, samples  # exact
    built = suppression.build_zone_test(zone_id, request, state, turn)
    tally = Tally(target=request.actor, touched=HIT)
    if built.avoided is not None:
        tally.add(1.0, "avoided")
        tally.notes.append(f"avoided ({built.avoided}): no test, no damage")
    else:
        test = odds.pool(built.pool, EDITION)
        damage = _damage(built.soak())
        threshold = built.live.zone.hits
        for hits, ph in enumerate(test.hits):
            if built.hit(hits):
                # Net hits: how far short of the zone's hits the test fell (the damage is the
                # zone's base DV whatever they are).
                for key, p in damage:
                    tally.add(ph * p, "hit", threshold - hits, key)
            else:
                tally.add(ph, "miss")
        tally.glitch = test.glitch
        tally.critical_glitch = test.critical_glitch
    return ZoneTestOdds(
        ruleset="sr5",
        zone=zone_id,
        actor=request.actor,
        method="exact",
        target=tally.odds(),
    )
