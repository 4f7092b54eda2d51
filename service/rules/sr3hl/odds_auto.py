"""The exact odds of Hard Life's per-bullet automatic fire (BF, FA; docs/odds.md, "sr3-hardlife"),
from the attack's own build (attack.build_attack) and resolve's own steps.

roll_attack rolls the attack dice once against the highest round's number; each round's
successes are the dice whose totals reach its number but not the next higher round's
(attack.tier_successes), after the dodge took the highest dice (attack._without_highest). The
rounds' numbers climb (attack.round_target_numbers), so the first rounds share the base number
and each later round has one of its own: a "tier" of rounds. A round's successes then decide
its scatter from where the last round landed (Table 1, a d6 direction) and its damage dice
(Table 3); odds_rounds.py does what landed rounds do.

The chain goes round by round. Its state is where the last round landed, the dice at or above
the next tier's number not yet given to a tier (`above`) with the dodge's successes still to
take off them (`dodge`: the dice above a tier are the highest, so the dodge takes them first),
the successes of the rounds of the tier under way, and where the rounds landed (a `Pattern`:
odds_rounds.py works out what they did, location by location, once per pattern). Entering a tier
splits `above` binomially (a die at or above this tier's number reaches the next one's with
die_reaches(next) / die_reaches(this), the Rule of Six); once no die is left above, or the dodge
takes all of them, no later round can land and the path is done. So is a path whose aim point
has left the body further than the rounds still to come can scatter back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.odds import TargetOdds
from schemas.sr3hl import Hex, HLAttackRequest, Location
from service.rules import odds
from service.rules.sr3hl import attack, body, dodge, hits, odds_rounds, odds_shot, tables
from service.rules.sr3hl.odds_rounds import MOST_SUCCESSES, Pattern, Rounds, TooManyPaths

# A path whose chance falls below this is dropped (its chance is said in a note when the
# dropped ones add up to more than a rounding).
FOLD = 1e-13
# The most hexes a round of automatic fire that lands scatters (Table 1: it has a success).
MOST_HEXES = tables.SCATTER_HEXES[1]
# No successes left for the round (it is dodged or missed: it does not land).
NO_ROUND = -1

# (where the last round landed, dice above not yet given to a tier, the dodge's successes
# still to take off them, the successes of the tier's rounds, whether a round was dodged,
# whether one left the body, where the rounds landed: the pattern's number in the call's list
# of patterns, so that a state hashes in a step whatever its pattern's length)
State = tuple[Hex, int, int, int, bool, bool, int]
# A path's end: whether a round was dodged, whether one left the body, where they landed.
End = tuple[bool, bool, int]


def _distance(a: Hex, b: Hex) -> int:
    dq, dr = a.q - b.q, a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _distances_to_body(reach: int) -> dict[Hex, int]:
    """Hexes from each hex within `reach` of the body map to its nearest hex (a breadth-first
    walk out from the figure): the map's geometry, worked out once."""
    found = {at: 0 for at in body.HEXES}
    ring = list(found)
    for away in range(1, reach + 1):
        ring = [
            near
            for at in ring
            for d in body.DIRECTIONS.values()
            if (near := Hex(at.q + d.q, at.r + d.r)) not in found
        ]
        ring = list(dict.fromkeys(ring))
        for near in ring:
            found[near] = away
    return found


# Further than this from the figure a path of automatic fire is over long before (it ends once
# the rounds still to come cannot scatter back): such hexes are measured when met.
_NEAR = _distances_to_body(24)


def to_body(at: Hex) -> int:
    """Hexes from `at` to the nearest hex of the body map."""
    away = _NEAR.get(at)
    if away is None:
        away = min(_distance(at, h) for h in body.HEXES)
    return away


def _moves(at: Hex, hexes: int) -> list[tuple[Hex, Location | None, int, float]]:
    """Where a round scattering `hexes` from `at` lands (a d6 direction): the hex, its
    location, its distance from the body, the chance."""
    if not hexes:
        return [(at, body.location_at(at), to_body(at), 1.0)]
    found = []
    share = 1 / len(body.DIRECTIONS)
    for d in body.DIRECTIONS.values():
        landed = Hex(at.q + d.q * hexes, at.r + d.r * hexes)
        found.append((landed, body.location_at(landed), to_body(landed), share))
    return found


def _last_moves(
    moves: list[tuple[Hex, Location | None, int, float]],
) -> list[tuple[Location | None, float]]:
    """`moves` where the hex landed on no longer matters (the path ends): by location."""
    found: dict[Location | None, float] = {}
    for _, location, _, p in moves:
        found[location] = found.get(location, 0.0) + p
    return list(found.items())


def _split(above: int, ratio: float) -> tuple[float, ...]:
    return odds.binomial(above, ratio)


def autofire(request: HLAttackRequest, built: attack.AttackBuild) -> tuple[TargetOdds, float]:
    """The one target's odds of the burst or full auto `built`, and the chance left out (paths
    below FOLD). Raises TooManyPaths past odds_rounds.MAX_STATES."""
    weapon = request.weapon
    target = built.target
    area = weapon.area_effect
    rounds = built.rounds
    numbers = built.target_numbers
    tiers = sorted(set(numbers))
    tier_of = [tiers.index(tn) for tn in numbers]
    reach = [odds.die_reaches(tn) for tn in tiers]
    opens = [i == 0 or tier_of[i] != tier_of[i - 1] for i in range(rounds)]
    closes = [i == rounds - 1 or tier_of[i] != tier_of[i + 1] for i in range(rounds)]
    # The rounds of each round's tier after it.
    tier_left = [
        sum(1 for j in range(i + 1, rounds) if tier_of[j] == tier_of[i]) for i in range(rounds)
    ]
    # Each round's damage dice by its successes, and where it lands from a hex.
    dice_of = [hits.damage_dice(weapon, s)[1] for s in range(MOST_SUCCESSES + 1)]
    moves: dict[tuple[Hex, int], list[tuple[Hex, Location | None, int, float]]] = {}
    last: dict[tuple[Hex, int], list[tuple[Location | None, float]]] = {}
    patterns: list[Pattern] = [()]
    grown: dict[tuple[int, Location, int], int] = {}

    def landing(pattern: int, location: Location, successes: int) -> int:
        """Pattern number `pattern` with one more round of `successes` at `location`."""
        key = (pattern, location, successes)
        found = grown.get(key)
        if found is None:
            found = grown[key] = len(patterns)
            patterns.append(
                odds_rounds.landed(patterns[pattern], location, ((dice_of[successes], 1.0),))
            )
        return found

    tally = odds.Tally(target.id, touched=odds_shot.TOUCHED)
    # The attack's successes are the dice at the base number (the dodge is rolled against
    # them); the rounds' tiers begin at the first round's number, above it after earlier
    # rounds this phase.
    shot = odds.target_number_test(built.count, built.base_target_number)
    first = reach[0] / odds.die_reaches(built.base_target_number)
    tally.glitch = tally.critical_glitch = shot.all_ones
    dodged: tuple[float, ...] = (1.0,)
    if dodge.dice_of(target.dodge):
        dodged = odds_shot.successes_of(
            dodge.dice_of(target.dodge), dodge.modifiers(target.dodge, rounds, area)
        )
    rules = Rounds(
        weapon=weapon,
        defender=target.defender,
        worn=hits.worn_by(built.victim, target.defender),
        resist=target.resist,
    )

    states: dict[State, float] = {}
    for successes, ps in enumerate(shot.successes):
        if successes == 0:
            _add(tally.outcomes, "miss", ps)
            _add(tally.net, 0, ps)
            _add(tally.damage, odds.NO_DAMAGE, ps)
            continue
        for taken, pd in enumerate(dodged):
            p = ps * pd
            # A clean miss (more dodge successes), or a tie of a burst: every round dodged.
            if attack.is_clean_miss(successes, taken) or (taken == successes and rounds > 1):
                _add(tally.outcomes, "dodged", p)
                _add(tally.net, 0, p)
                _add(tally.damage, odds.NO_DAMAGE, p)
                continue
            _add(tally.net, successes - taken, p)
            for above, pa in enumerate(_split(successes, first)):
                key: State = (built.aim, above, taken, NO_ROUND, False, False, 0)
                states[key] = states.get(key, 0.0) + p * pa

    done: dict[End, float] = {}
    left_out = 0.0
    for i in range(rounds):
        odds.checkpoint()
        if opens[i]:
            states = _open_tier(states, tier_of[i], tiers, reach, rounds)
        after: dict[State, float] = {}
        for (at, above, taken, successes, dodged_one, off, pattern), p in states.items():
            if p < FOLD:
                left_out += p
                continue
            hexes = 0 if successes == NO_ROUND else attack.scatter_hexes(successes, area)
            moved = moves.get((at, hexes))
            if moved is None:
                moved = moves[(at, hexes)] = _moves(at, hexes)
            if i == rounds - 1 or (closes[i] and above == 0):
                # The path ends with this round: only the location it lands at matters.
                ending = last.get((at, hexes))
                if ending is None:
                    ending = last[(at, hexes)] = _last_moves(moved)
                for location, pm in ending:
                    end = (dodged_one, off, pattern)
                    if successes != NO_ROUND:
                        if location is None:
                            end = (dodged_one, True, pattern)
                        else:
                            end = (dodged_one, off, landing(pattern, location, successes))
                    done[end] = done.get(end, 0.0) + p * pm
                continue
            # The rounds still to come that can land: the tier's (with successes) and one a
            # die above it the dodge leaves.
            can = min(
                rounds - i - 1,
                (tier_left[i] if successes > 0 else 0) + max(0, above - taken),
            )
            for landed, location, away, pm in moved:
                now = pattern
                left = off
                if successes != NO_ROUND:
                    if location is None:
                        left = True
                    else:
                        now = landing(pattern, location, successes)
                pq = p * pm
                # Off the body and further from it than the rounds to come can scatter.
                if location is None and away > MOST_HEXES * can:
                    end = (dodged_one, left, now)
                    done[end] = done.get(end, 0.0) + pq
                else:
                    key = (landed, above, taken, successes, dodged_one, left, now)
                    after[key] = after.get(key, 0.0) + pq
            if len(after) > odds_rounds.MAX_STATES:
                raise TooManyPaths(i + 1)
        states = after

    knocked_down, knocked_back = odds_rounds.tally_ends(
        tally,
        rules,
        (
            (p, "dodged" if dodged_one else "miss", off, patterns[pattern])
            for (dodged_one, off, pattern), p in done.items()
        ),
    )
    if rules.knocks:
        tally.notes.append(odds_shot.knock_back_note(knocked_down, knocked_back, exact=True))
    tally.notes.append(odds_shot.NOT_IN_DAMAGE)
    return tally.odds(), left_out


def _open_tier(
    states: Mapping[State, float],
    tier: int,
    tiers: list[int],
    reach: list[float],
    rounds: int,
) -> dict[State, float]:
    """The dice at or above `tier`'s number split into the tier's and those above it; the dodge
    takes the highest first. The tier's rounds get its successes (0: dodged or missed, but a
    single round's tie scatters 4, README)."""
    ratio = reach[tier + 1] / reach[tier] if tier + 1 < len(tiers) else 0.0
    opened: dict[State, float] = {}
    splits: dict[int, tuple[float, ...]] = {}
    for (at, above, taken, _, dodged_one, off, pattern), p in states.items():
        split = splits.get(above)
        if split is None:
            split = splits[above] = _split(above, ratio)
        for higher, ph in enumerate(split):
            if ph == 0.0:
                continue
            here = above - higher
            kept = here - max(0, taken - higher)
            if kept > 0:
                successes = min(kept, MOST_SUCCESSES)
            elif here > 0 and rounds == 1:
                successes = 0
            else:
                successes = NO_ROUND
            # attack._rounds: a round whose dice the dodge took is dodged, one without any missed.
            dodged_now = dodged_one or (here > 0 and kept <= 0 and rounds > 1)
            # The dodge takes every die above: no later round lands.
            next_above, next_taken = (higher, taken) if higher > taken else (0, 0)
            key = (at, next_above, next_taken, successes, dodged_now, off, pattern)
            opened[key] = opened.get(key, 0.0) + p * ph
    return opened


def _add(found: dict[Any, float], key: Any, p: float) -> None:
    if p > 0.0:
        found[key] = found.get(key, 0.0) + p
