"""What the rounds that land on one target do, as an exact distribution (hits.struck): the
shared part of the odds of per-bullet automatic fire (odds_auto.py) and of a zone test
(odds_zone.py).

hits.struck takes the rounds location by location, in the order the locations were first hit,
and at each location in groups of three: one armour test a group (stopped, or its successes
taken off each round's damage test), every round wearing the armour there down before the
next group's test. Locations share no armour, wear or dice, so given which rounds landed where
(a `Pattern`: the locations in the order first hit, each with its rounds' damage dice in order)
each location is worked out on its own (`Rounds.at`, memoised by location and rounds: its
armour groups, wear, damage tests and Body rolls) and the locations are then put together in
order (`Rounds.struck`):

- the damage key: the trauma boxes added up (a convolution), the highest level a location's
  own monitor took and the first location (in order) that took it;
- the outcome: `stopped` when every location's armour stopped every round, else `hit`;
- the knock-back: each location's Body rolls are its own dice, so the chance that none knocks
  the target down (or back) is the product of each location's;
- the target's Combat Pool dice (`resist`) go to the attack's first Body roll: a stun weapon's
  first location (in order) that rolls Body for damage, else the first location's knock-back.

Every rule is resolve's own function (hits.py, condition.py, armor.py, odds_shot.py's damage
test): nothing here restates a modifier.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec

from schemas.common import Modifier
from schemas.sr3hl import HLArmorPiece, HLDefender, HLWeapon, Location
from service.rules import odds
from service.rules.sr3 import attack as sr3_attack
from service.rules.sr3hl import armor, condition, hits, tables
from service.rules.sr3hl.odds_shot import damage_test, wound_key

DamageKey = tuple[int, str | None, str | None, str | None]
# A group's armour result: stopped, or no group open (the next round at the location opens
# one); otherwise the armour's and bone lacing's successes, taken off each round's damage.
STOPPED = -1
NO_GROUP = -2
# hits.accuracy and body.scatter_hexes read no further: 6 net successes and more are alike.
MOST_SUCCESSES = max(tables.DAMAGE_DICE) + 1
# A preview's exact computation holds at most this many landing patterns at once (merged); a
# request past it is sampled instead (docs/odds.md, "sr3-hardlife").
MAX_STATES = 2_000

# One round at a location: its damage dice, each with its chance (automatic fire: one count,
# certain; a zone test: the dice of a round that landed there, by its d6 of successes).
RoundDice = tuple[tuple[int, float], ...]
# The locations hit, in the order first hit, each with its rounds in the order they landed.
Pattern = tuple[tuple[Location, tuple[RoundDice, ...]], ...]


# A location's state between its rounds (Rounds._placed): rounds placed in the open group, its
# armour result, the wear, the trauma boxes, the highest level on its own monitor, whether Body
# was rolled for a stun weapon's damage, the rounds stopped, whether one got through.
_AtState = tuple[int, int, tuple[int, ...], int, int, bool, int, bool]


class TooManyPaths(Exception):
    """The exact computation would hold more than MAX_STATES states: the preview samples."""


class AtLocation(NamedTuple):
    """What one location's rounds did, worked out on its own (`Rounds.at`)."""

    # (chance, trauma boxes, highest level on the location's own monitor (index in
    # tables.LEVELS, -1 none), whether Body was rolled for a stun weapon's damage)
    damage: tuple[tuple[float, int, int, bool], ...]
    # The chance the armour stopped every round there.
    stopped: float
    # The chance no Body roll there knocks the target down, and none knocks it down or back:
    # the first as the attack's first roll (`resist` dice), the second not.
    not_down: tuple[float, float]
    not_knocked: tuple[float, float]


@dataclass
class Rounds:
    """The rounds of one weapon landing on one target wearing `worn`: the memoised steps."""

    weapon: HLWeapon
    defender: HLDefender
    worn: list[HLArmorPiece]
    # Combat Pool dice added to the attack's first Body roll (hits._Target.body_roll).
    resist: int
    _armour: dict[tuple[Location, tuple[int, ...]], tuple[tuple[int, float], ...]] = field(
        default_factory=dict
    )
    _worn_down: dict[tuple[Location, tuple[int, ...], int], tuple[int, ...]] = field(
        default_factory=dict
    )
    _hurt: dict[tuple[Location, int, int, bool], tuple[tuple[float, int, int, bool], ...]] = field(
        default_factory=dict
    )
    _at: dict[tuple[Location, tuple[RoundDice, ...], bool], AtLocation] = field(
        default_factory=dict
    )
    _knocks: dict[tuple[Location, int, str, bool], tuple[float, float]] = field(
        default_factory=dict
    )
    _wound: dict[tuple[Location, tables.DamageLevel, int], tuple[int, int]] = field(
        default_factory=dict
    )
    _states: dict[tuple[Location, tuple[RoundDice, ...], bool, int], dict[_AtState, float]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        weapon = self.weapon
        self.area = weapon.area_effect
        self.stun_weapon = weapon.damage_type == "stun"
        self.track: condition.Track = "stun" if self.stun_weapon else "physical"
        # hits._location: a stun weapon and gel rounds roll no stun and knock-back.
        self.knocks = not (self.stun_weapon or weapon.ammo_kind == "gel")
        self.base = weapon.damage_level
        self.stopped_wear = hits.degradation(self.base, False, self.area)
        # Whether the `resist` dice change a stun weapon's damage (which location gets them).
        self.first_damage_roll = self.stun_weapon and self.resist > 0

    # --- the steps, memoised -------------------------------------------------------------------

    def _pieces(self, location: Location, wear: tuple[int, ...]) -> list[HLArmorPiece]:
        return [
            msgspec.structs.replace(piece, wear={**piece.wear, location: w})
            for piece, w in zip(self.worn, wear, strict=True)
        ]

    def _first_wear(self, location: Location) -> tuple[int, ...]:
        return tuple(piece.wear.get(location, 0) for piece in self.worn)

    def armour(self, location: Location, wear: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
        """A group's armour test at `location` worn so (hits._armor_test): STOPPED when its
        successes reach Table 2's soak number, else the armour's and the lacing's successes."""
        key = (location, wear)
        found = self._armour.get(key)
        if found is None:
            built = hits.armor_build(
                self.weapon, self.defender, self._pieces(location, wear), location, self.area
            )
            test = _test(built.count, built.modifiers)
            lacing: tuple[float, ...] = (1.0,)
            if built.lacing_count:
                lacing = _test(built.lacing_count, built.lacing_modifiers)
            results: dict[int, float] = {STOPPED: sum(test[built.soak :])}
            for successes, p in enumerate(odds.convolve(test[: built.soak] or (0.0,), lacing)):
                results[successes] = results.get(successes, 0.0) + p
            found = tuple((g, p) for g, p in results.items() if p > 0.0)
            self._armour[key] = found
        return found

    def worn_down(self, location: Location, wear: tuple[int, ...], points: int) -> tuple[int, ...]:
        """armor.degraded: `points` off the pieces covering `location`."""
        if not points:
            return wear
        key = (location, wear, points)
        found = self._worn_down.get(key)
        if found is None:
            pieces, _ = armor.degraded(self._pieces(location, wear), location, points)
            found = tuple(piece.wear.get(location, 0) for piece in pieces)
            self._worn_down[key] = found
        return found

    def hurt(
        self, location: Location, dice: int, armour: int, extra: bool
    ) -> tuple[tuple[float, int, int, bool], ...]:
        """A round that got through (hits._damage_test, hits._location): the damage test of
        `dice` dice less the armour's successes, staged from the weapon's level; a stun
        weapon's then resisted by Body (+ `resist` dice when `extra`). Each outcome: its
        chance, the trauma boxes, the level on the location's own monitor (-1 none) and
        whether Body was rolled."""
        key = (location, dice, armour, extra)
        found = self._hurt.get(key)
        if found is not None:
            return found
        low, counts = damage_test(dice)
        results: dict[tuple[int, int, bool], float] = {}
        wound = self._wound

        if not self.stun_weapon:
            for i, p in enumerate(counts):
                net = low + i - armour
                got = wound.get((location, self.base, net))
                if got is None:
                    got = self._wounded(location, self.base, net)
                key3 = (*got, False)
                results[key3] = results.get(key3, 0.0) + p
        else:
            # Body resists the damage test's level at Power - impact (the impact as it was
            # when the rounds struck: the location's own, which only its rounds wear).
            by_level: dict[tables.DamageLevel | None, float] = {}
            for i, p in enumerate(counts):
                level, _ = condition.staged(self.base, low + i - armour)
                by_level[level] = by_level.get(level, 0.0) + p
            impact = hits.impact_at(self.worn, location, self.area)
            resisted = _test(
                self.defender.body + (self.resist if extra else 0),
                hits.body_modifiers(self.weapon.power, impact, "stun weapon power"),
            )
            for level, p in by_level.items():
                if level is None:
                    key3 = (0, -1, False)
                    results[key3] = results.get(key3, 0.0) + p
                    continue
                for b, pb in enumerate(resisted):
                    down = hits.level_down(level, b)
                    got = (0, -1) if down is None else self._wounded(location, down, 0)
                    key3 = (*got, True)
                    results[key3] = results.get(key3, 0.0) + p * pb
        found = tuple((p, boxes, level, rolled) for (boxes, level, rolled), p in results.items())
        self._hurt[key] = found
        return found

    def _wounded(self, location: Location, level: tables.DamageLevel, net: int) -> tuple[int, int]:
        """A damage test's wound at `location`, `level` staged by `net` (odds_shot.wound_key):
        its trauma boxes and the level on the location's own monitor (index in tables.LEVELS,
        -1 none); staged below Light, none at all, whatever the location's bonus."""
        key = (location, level, net)
        found = self._wound.get(key)
        if found is None:
            found = (0, -1)
            if condition.staged(level, net)[0] is not None:
                damage = wound_key(self.track, level, net, location, self.area)
                written = damage[2]
                level_at = tables.LEVELS.index(written) if written in tables.LEVELS else -1
                found = (damage[0], level_at)
            self._wound[key] = found
        return found

    # --- one location ----------------------------------------------------------------------

    def at(self, location: Location, rounds: tuple[RoundDice, ...], first: bool) -> AtLocation:
        """hits._location for `rounds` landing at `location` in this order (autofire): their
        armour groups of three, wear, damage tests and Body rolls; `first`: this location's
        first Body roll for damage is the attack's first (`resist` dice)."""
        key = (location, rounds, first)
        found = self._at.get(key)
        if found is None:
            found = self._at_location(location, rounds, first)
            self._at[key] = found
        return found

    def _placed(
        self, location: Location, rounds: tuple[RoundDice, ...], first: bool, total: int
    ) -> dict[_AtState, float]:
        """The states of `location` after `rounds` (the first of `total` there, 0: of at most
        one armour group's): the open group's result while one is open, the wear while a
        round still to come may open another, and what the rounds did. Kept for the runs of at
        most a group (their few states are shared by every longer such run); a longer run's
        are made once, by the one `at` that asks for them."""
        key = (location, rounds, first, total)
        found = self._states.get(key)
        if found is not None:
            return found
        if not rounds:
            return {(0, NO_GROUP, self._first_wear(location), 0, -1, False, 0, False): 1.0}
        states = self._placed(location, rounds[:-1], first, total)
        round_dice = rounds[-1]
        left = total - len(rounds)
        after: dict[_AtState, float] = {}
        for (placed, group, wear, boxes, level, rolled, stopped, through), p in states.items():
            groups = self.armour(location, wear) if placed == 0 else ((group, 1.0),)
            now = (placed + 1) % tables.ARMOR_GROUP
            # Only what the rounds still to come here read is kept: the open group's
            # result while one may join it, the wear while one may open another.
            keep_group = now != 0
            keep_wear = left >= (tables.ARMOR_GROUP - now) % tables.ARMOR_GROUP + 1
            for result, pg in groups:
                kept = result if keep_group else NO_GROUP
                if result == STOPPED:
                    state = (
                        now,
                        kept,
                        self.worn_down(location, wear, self.stopped_wear) if keep_wear else (),
                        boxes,
                        level,
                        rolled,
                        stopped + 1 if self.knocks else 0,
                        through,
                    )
                    after[state] = after.get(state, 0.0) + p * pg
                    continue
                for dice, pd in round_dice:
                    extra = first and not rolled
                    for ph, more, hurt, body in self.hurt(location, dice, result, extra):
                        worn = wear
                        if keep_wear:
                            points = hits.degradation(
                                tables.LEVELS[hurt] if hurt >= 0 else None, True, self.area
                            )
                            worn = self.worn_down(location, wear, points)
                        state = (
                            now,
                            kept,
                            worn if keep_wear else (),
                            boxes + more,
                            max(level, hurt),
                            rolled or body,
                            stopped,
                            True,
                        )
                        after[state] = after.get(state, 0.0) + p * pg * pd * ph
        if not total:
            self._states[key] = after
        return after

    def _at_location(
        self, location: Location, rounds: tuple[RoundDice, ...], first: bool
    ) -> AtLocation:
        # Rounds that all fit in one armour group never read the wear, so what their first
        # rounds did is shared with every longer run of such rounds (`_placed`).
        total = len(rounds) if len(rounds) > tables.ARMOR_GROUP else 0
        states = self._placed(location, rounds, first, total)
        damage: dict[tuple[int, int, bool], float] = {}
        # The Body rolls read only whether a round got through and how many were stopped.
        ends: dict[tuple[bool, int], float] = {}
        for (_, _, _, boxes, level, rolled, stopped, through), p in states.items():
            damage[(boxes, level, rolled)] = damage.get((boxes, level, rolled), 0.0) + p
            ends[(through, stopped)] = ends.get((through, stopped), 0.0) + p
        all_stopped = 0.0
        not_down = [0.0, 0.0]
        not_knocked = [0.0, 0.0]
        for (through, stopped), p in ends.items():
            if not through:
                all_stopped += p
            for i, first_roll in enumerate((True, False)):
                down = knocked = 1.0
                if self.knocks:
                    for d, b in self._knocks_at(location, through, stopped, first_roll):
                        down *= 1.0 - d
                        knocked *= 1.0 - d - b
                not_down[i] += p * down
                not_knocked[i] += p * knocked
        return AtLocation(
            damage=tuple((p, b, lv, r) for (b, lv, r), p in damage.items()),
            stopped=all_stopped,
            not_down=(not_down[0], not_down[1]),
            not_knocked=(not_knocked[0], not_knocked[1]),
        )

    def _knocks_at(
        self, location: Location, through: bool, stopped: int, first: bool
    ) -> list[tuple[float, float]]:
        """hits._location's Body rolls at the end of a location's autofire rounds: the stun and
        knock-back when a round got through, the stopped rounds' one stun hit when some were
        stopped; the attack's first (`first`) takes the `resist` dice."""
        found = []
        if through:
            found.append(self._knock(location, hits.stun_power(self.weapon), self.base, first))
        if stopped:
            power, level = hits.stopped_hit(self.weapon, stopped)
            found.append(self._knock(location, power, level, first and not through))
        return found

    def _knock(
        self, location: Location, power: int, row: tables.DamageLevel, extra: bool
    ) -> tuple[float, float]:
        key = (location, power, row, extra)
        found = self._knocks.get(key)
        if found is None:
            impact = hits.impact_at(self.worn, location, self.area)
            successes = _test(
                self.defender.body + (self.resist if extra else 0),
                hits.body_modifiers(power, impact, "stun power"),
            )
            down = back = 0.0
            for b, p in enumerate(successes):
                effect, _ = hits.knock_back(row, b)
                if effect == "knocked_down":
                    down += p
                elif effect == "knocked_back":
                    back += p
            found = (down, back)
            self._knocks[key] = found
        return found

    # --- the locations together --------------------------------------------------------------

    def touched(self, pattern: Pattern) -> tuple[float, float, float]:
        """The chances that the armour stopped every round of `pattern`, that a Body roll
        knocked the target down, and that one knocked it back (not down): each location's
        own, multiplied (its first location's knock-back roll is the attack's first)."""
        stopped = not_down = not_knocked = 1.0
        for rank, (location, rounds) in enumerate(pattern):
            plain = self.at(location, rounds, False)
            stopped *= plain.stopped
            which = 0 if rank == 0 else 1
            not_down *= plain.not_down[which]
            not_knocked *= plain.not_knocked[which]
        return stopped, 1.0 - not_down, not_down - not_knocked

    def damage(self, ends: _Trie) -> dict[DamageKey, float]:
        """The damage key of every pattern in `ends`, weighed by its chance."""
        track = self.track
        found: dict[DamageKey, float] = {}
        for (boxes, top, top_at), p in self._after(ends, False, {}).items():
            entry: DamageKey = odds.NO_DAMAGE
            if top >= 0 or boxes:
                entry = (boxes, track, tables.LEVELS[top] if top >= 0 else None, top_at)
            found[entry] = found.get(entry, 0.0) + p
        return found

    def _after(self, node: _Trie, rolled: bool, memo: dict[tuple[int, bool], _Suffix]) -> _Suffix:
        """What the locations after `node`'s prefix did, weighed by the chances of the
        patterns that go on so: (boxes, highest level, its first location) -> chance.
        Locations are put together in order (boxes added, the highest level kept, an earlier
        location keeping it among equals): an associative step, so the patterns that share
        a prefix share what comes after it, summed once (their mixture) before the prefix's
        locations are put in front. `rolled`: a Body roll for a stun weapon's damage was
        made before (the `resist` dice are spent)."""
        key = (id(node), rolled)
        found = memo.get(key)
        if found is not None:
            return found
        found = {}
        if node.end:
            found[(0, -1, None)] = node.end
        for (location, rounds), child in node.children.items():
            here = self.at(location, rounds, self.first_damage_roll and not rolled)
            suffixes: dict[bool, _Suffix] = {}
            for q, more, level, body in here.damage:
                now = rolled or (body and self.first_damage_roll)
                after = suffixes.get(now)
                if after is None:
                    after = suffixes[now] = self._after(child, now, memo)
                for (boxes, top, top_at), p in after.items():
                    # The first location (in order) of the highest level: a later one of the
                    # same level does not take its place (odds.damage_key).
                    entry: tuple[int, int, Location | None]
                    if level >= top and level >= 0:
                        entry = (boxes + more, level, location)
                    else:
                        entry = (boxes + more, top, top_at)
                    found[entry] = found.get(entry, 0.0) + p * q
        memo[key] = found
        return found


# (trauma boxes, highest level on a location's own monitor (-1 none), its location)
_Suffix = dict[tuple[int, int, Location | None], float]


@dataclass
class _Trie:
    """Landing patterns by their prefixes: the chance of the patterns that end here, and the
    patterns that go on with one more location (and its rounds)."""

    end: float = 0.0
    children: dict[tuple[Location, tuple[RoundDice, ...]], _Trie] = field(default_factory=dict)


def tally_ends(
    tally: odds.Tally, rules: Rounds, ends: Iterable[tuple[float, str, bool, Pattern]]
) -> tuple[float, float]:
    """Each path's end into `tally` (outcomes, damage, locations): `p`, the outcome when no round
    reached the body nor left it (`dodged` or `miss`), whether one left it, where they landed.
    Returns the chances of being knocked down and knocked back."""
    knocked_down = knocked_back = 0.0
    root = _Trie()
    for p, neither, off, pattern in ends:
        if not pattern:
            _add(tally.outcomes, "off_body" if off else neither, p)
            _add(tally.damage, odds.NO_DAMAGE, p)
            continue
        stopped, down, back = rules.touched(pattern)
        _add(tally.outcomes, "stopped", p * stopped)
        _add(tally.outcomes, "hit", p * (1.0 - stopped))
        node = root
        for item in pattern:
            _add(tally.locations, item[0], p)
            node = node.children.setdefault(item, _Trie())
        node.end += p
        knocked_down += p * down
        knocked_back += p * back
    for key, q in rules.damage(root).items():
        _add(tally.damage, key, q)
    return knocked_down, knocked_back


def _add(found: dict[Any, float], key: Any, p: float) -> None:
    if p > 0.0:
        found[key] = found.get(key, 0.0) + p


def landed(pattern: Pattern, location: Location, round_dice: RoundDice) -> Pattern:
    """`pattern` with one more round at `location`."""
    for rank, (at, rounds) in enumerate(pattern):
        if at == location:
            return (*pattern[:rank], (at, (*rounds, round_dice)), *pattern[rank + 1 :])
    return (*pattern, (location, (round_dice,)))


def _test(dice: int, modifiers: list[Modifier]) -> tuple[float, ...]:
    """A target-number test's successes (sr3's `test`: the modifiers' sum, never below 2)."""
    return odds.target_number_test(dice, sr3_attack.target_number(modifiers)).successes
