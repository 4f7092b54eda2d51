"""The exact odds of a Hard Life zone test (suppression fire; docs/odds.md, "sr3-hardlife"), from
the zone test's own build (suppression.build_zone_test) and resolve's own steps.

roll_zone_test rolls the bullets per square metre against Table 9's number; each success is a
round with a Table 10 location (2d6, and a d6 for an arm's hand or a leg's foot) and a d6 of
successes; one dodge (+1 per three rounds) takes its successes off every round; each round
left scatters from its own location's aim point (suppression.placed). Given the dodge's
successes the rounds are alike and independent, so the chain needs no position: after each
round, only where the rounds landed (a `Pattern`: per location hit, in the order first hit,
its rounds, each with the damage dice of a round that landed there; odds_rounds.py works out
what they did). For each number of dodge successes the
chain is run once, round by round, and the states after k rounds are weighed by the chance of
k successes and of that dodge against k rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.odds import TargetOdds
from schemas.sr3hl import HLZoneTestRequest, Location
from service.rules import odds
from service.rules.sr3hl import body, dodge, hits, odds_rounds, odds_shot, suppression, tables
from service.rules.sr3hl.odds_rounds import Pattern, RoundDice, Rounds, TooManyPaths

DIE = (1, 2, 3, 4, 5, 6)


def table_10() -> dict[Location, float]:
    """suppression.incoming's location of one round: 2d6 on Table 10, and for an arm or a leg a
    d6 for its hand or foot (suppression.table_10)."""
    found: dict[Location, float] = {}
    for a in DIE:
        for b in DIE:
            roll = a + b
            if tables.HIT_LOCATION[roll] in tables.EXTREMITY:
                for e in DIE:
                    _add(found, suppression.table_10(roll, e), 1 / 216)
            else:
                _add(found, suppression.table_10(roll, None), 1 / 36)
    return found


def one_round(
    taken: int, damage_dice: Callable[[int], int]
) -> tuple[float, float, list[tuple[float, Location, RoundDice]]]:
    """Where one round goes when the dodge took `taken` successes off its d6 (suppression.placed):
    dodged below 0; else from its location's aim point, Table 1's hexes for what is left, in a
    d6 direction. Returns the chance it is dodged, that it lands off the body, and for each
    location it may land at, the chance and its damage dice (by its successes) given it landed
    there."""
    dodged = off = 0.0
    at: dict[Location, dict[int, float]] = {}
    for location, pl in table_10().items():
        aim = body.AIM_POINTS[location]
        for accuracy in DIE:
            successes = accuracy - taken
            p = pl / len(DIE)
            if successes < 0:
                dodged += p
                continue
            hexes = body.scatter_hexes(successes)
            ends = [aim] if not hexes else [body.step(aim, d, hexes)[-1] for d in body.DIRECTIONS]
            for landed in ends:
                q = p / len(ends)
                where = body.location_at(landed)
                if where is None:
                    off += q
                else:
                    _add(at.setdefault(where, {}), damage_dice(successes), q)
    landing = []
    for location, by_dice in at.items():
        total = sum(by_dice.values())
        landing.append((total, location, tuple((d, q / total) for d, q in by_dice.items())))
    return dodged, off, landing


def zone_test(request: HLZoneTestRequest, built: suppression.ZoneTestBuild) -> TargetOdds:
    """The actor's odds of the zone test `built`. Raises TooManyPaths past
    odds_rounds.MAX_STATES."""
    live = built.live
    weapon = live.weapon
    tally = odds.Tally(request.actor, touched=odds_shot.TOUCHED)
    attack_test = odds.target_number_test(live.bullets_per_m2, built.target_number)
    tally.glitch = tally.critical_glitch = attack_test.all_ones
    rules = Rounds(
        weapon=weapon,
        defender=request.defender,
        worn=hits.worn_by(built.victim, request.defender),
        resist=request.resist,
    )
    dice = dodge.dice_of(request.dodge)

    # The weight of each (dodge successes, rounds): P(k rounds) x P(that dodge against k).
    weights: dict[int, dict[int, float]] = {}
    for k, pk in enumerate(attack_test.successes):
        if pk == 0.0:
            continue
        if k == 0:
            _add(tally.outcomes, "miss", pk)
            _add(tally.net, 0, pk)
            _add(tally.damage, odds.NO_DAMAGE, pk)
            continue
        dodged: tuple[float, ...] = (1.0,)
        if dice:
            dodged = odds_shot.successes_of(dice, dodge.modifiers(request.dodge, k, False))
        for taken, pd in enumerate(dodged):
            if pd > 0.0:
                # 7 successes and more take every round (a d6 has at most 6).
                weights.setdefault(min(taken, len(DIE) + 1), {})[k] = pk * pd

    # (a round left the body, where the rounds landed) -> chance, for each number of rounds.
    ends: dict[tuple[bool, Pattern], float] = {}
    for taken, by_rounds in weights.items():
        dodged_p, off_p, landing = one_round(
            taken, lambda successes: hits.damage_dice(weapon, successes)[1]
        )
        for k, w in by_rounds.items():
            # The net successes: the rounds the dodge left.
            for n, pn in enumerate(odds.binomial(k, 1.0 - dodged_p)):
                _add(tally.net, n, w * pn)
        states: dict[tuple[bool, Pattern], float] = {(False, ()): 1.0}
        for k in range(1, max(by_rounds) + 1):
            odds.checkpoint()
            after: dict[tuple[bool, Pattern], float] = {}
            for (off, pattern), p in states.items():
                _add(after, (off, pattern), p * dodged_p)
                _add(after, (True, pattern), p * off_p)
                for pl, location, round_dice in landing:
                    _add(after, (off, odds_rounds.landed(pattern, location, round_dice)), p * pl)
                if len(after) > odds_rounds.MAX_STATES:
                    raise TooManyPaths(k)
            states = after
            if k in by_rounds:
                for end, p in states.items():
                    _add(ends, end, p * by_rounds[k])

    # No round reached the body or left it: the dodge took every one (_outcome).
    knocked_down, knocked_back = odds_rounds.tally_ends(
        tally, rules, ((p, "dodged", off, pattern) for (off, pattern), p in ends.items())
    )
    if rules.knocks:
        tally.notes.append(odds_shot.knock_back_note(knocked_down, knocked_back, exact=True))
    tally.notes.append(odds_shot.NOT_IN_DAMAGE)
    return tally.odds()


def _add(found: dict[Any, float], key: Any, p: float) -> None:
    if p > 0.0:
        found[key] = found.get(key, 0.0) + p
