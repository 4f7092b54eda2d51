"""The one source of dice: every roll is asked for under a step name, recorded, and may be given.

Given dice (typed in at the table, replays, tests) are used per step in order; a step that runs
short raises `DiceShortage`, which the API turns into a 400 naming the step and the count it needs.

Server dice are exactly those `random.Random(seed).randint(1, sides)` gives, so a recorded seed
replays on every version (tests/test_recorded_seeds.py); they are drawn with the generator's
`getrandbits` the way randint does, at a third of randint's cost.
"""

from __future__ import annotations

# The generator that random.Random builds on (CPython's Mersenne Twister, written in C):
# random.Random(seed) seeds it through two Python-level methods first, which costs a seventh
# more than seeding it directly, for the very same sequence of words.
from _random import Random as _Generator
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from schemas.common import DiceRoll

Edition = Literal["sr5", "sr4"]

# 000_43afc0edeb7f6e19.txt and 001_2cfc288dfef1df08.txt: a die showing 5 or 6 is a hit.
HIT_MINIMUM = 5
HIT_FACES = tuple(range(HIT_MINIMUM, 7))


class DiceError(ValueError):
    """A problem with the dice of one step; `path` points into the request's `dice` map."""

    def __init__(self, step: str, detail: str, index: int | None = None) -> None:
        super().__init__(detail)
        self.step = step
        self.detail = detail
        self.path = f'$.dice["{step}"]' + (f"[{index}]" if index is not None else "")


class DiceShortage(DiceError):
    def __init__(self, step: str, needed: int, given: int) -> None:
        super().__init__(
            step,
            f"step '{step}' needs at least {needed} dice but {given} were given",
        )
        self.needed = needed
        self.given = given


# The rolls below are made several times per request: frozen Structs build ten times faster than
# frozen dataclasses (which set each field through object.__setattr__). They hold numbers only,
# so they can never be part of a reference cycle and need no tracking by the garbage collector.
class PoolRoll(msgspec.Struct, frozen=True, gc=False):
    """A d6 pool counted for hits and glitches."""

    pool: int
    values: tuple[int, ...]
    hits: int
    ones: int
    glitch: bool
    critical_glitch: bool


class TargetNumberRoll(msgspec.Struct, frozen=True, gc=False):
    """A target-number test: each die (sixes re-rolled and added) against one target number."""

    target_number: int
    totals: tuple[int, ...]
    successes: int
    all_ones: bool


def is_glitch(ones: int, pool: int, edition: Edition) -> bool:
    """SR5: more than half the dice show 1; SR4: half or more (rules-sources/README.md)."""
    if pool <= 0:
        return False
    if edition == "sr5":
        return ones * 2 > pool
    return ones * 2 >= pool


def count_pool(values: Sequence[int], pool: int, edition: Edition) -> PoolRoll:
    """Hits and glitches of a d6 pool; `values` may hold extra dice of exploding sixes, whose
    ones do not count toward a glitch (it is judged on the `pool` dice first rolled)."""
    # Counted in C by list.count: every face from HIT_MINIMUM up to 6 is a hit.
    hits = 0
    for face in HIT_FACES:
        hits += values.count(face)
    ones = values[:pool].count(1)
    glitch = is_glitch(ones, pool, edition)
    return PoolRoll(pool, tuple(values), hits, ones, glitch, glitch and hits == 0)


class Dice:
    """Rolls dice for named steps, from given values first and a seeded generator otherwise.

    The generator is seeded only when a die is drawn from it (seeding costs more than rolling a
    pool): a request whose dice are all given never seeds one.
    """

    __slots__ = ("_given", "_rng", "_rolls", "_used", "seed")

    def __init__(self, seed: int, given: Mapping[str, Sequence[int]] | None = None) -> None:
        self.seed = seed
        self._rng: _Generator | None = None
        self._given = {step: list(values) for step, values in (given or {}).items()}
        self._used: dict[str, int] = {}
        self._rolls: list[DiceRoll] = []

    @property
    def rolls(self) -> list[DiceRoll]:
        return list(self._rolls)

    def _rolled(self, count: int, sides: int) -> list[int]:
        """`count` dice from the seeded generator: exactly what as many calls of
        random.Random(seed).randint(1, sides) give (the recorded seeds of
        tests/test_recorded_seeds.py replay through it), without randint's three Python-level
        calls per die.

        randint(1, sides) is randrange(1, sides + 1), which is 1 + _randbelow(sides); that is
        random's _randbelow_with_getrandbits (CPython 3.11 to 3.13): k = sides.bit_length(),
        r = getrandbits(k), drawn again while r >= sides.
        """
        rng = self._rng
        if rng is None:
            rng = self._rng = _Generator(self.seed)
        if sides < 1:
            raise ValueError(f"a die has at least one side, not {sides}")
        getrandbits = rng.getrandbits
        bits = sides.bit_length()
        faces = []
        for _ in range(count):
            below = getrandbits(bits)
            while below >= sides:
                below = getrandbits(bits)
            faces.append(below + 1)
        return faces

    def _draw(
        self, step: str, count: int, sides: int, needed_total: int | None = None
    ) -> list[int]:
        if count <= 0:
            self._used.setdefault(step, 0)
            return []
        given = self._given.get(step)
        if given is None:
            values = self._rolled(count, sides)
            self._record(step, sides, values, given=False)
            return values
        start = self._used.get(step, 0)
        if start + count > len(given):
            raise DiceShortage(step, needed_total or start + count, len(given))
        values = given[start : start + count]
        if min(values) < 1 or max(values) > sides:
            # Only now find the first die that is not a face, for its index in the request.
            offset, value = next((o, v) for o, v in enumerate(values) if not 1 <= v <= sides)
            raise DiceError(
                step, f"step '{step}' rolls d{sides}: {value} is not a face of it", start + offset
            )
        self._used[step] = start + count
        self._record(step, sides, values, given=True)
        return values

    def _record(self, step: str, sides: int, values: list[int], given: bool) -> None:
        # Extra dice of one step (exploding sixes, Rule of Six) join that step's record.
        last = self._rolls[-1] if self._rolls else None
        if last is not None and last.step == step and last.sides == sides:
            self._rolls[-1] = DiceRoll(step, sides, [*last.values, *values], given)
        else:
            self._rolls.append(DiceRoll(step, sides, list(values), given))

    def roll(self, step: str, count: int, sides: int = 6) -> list[int]:
        """`count` dice of `sides` faces for `step`."""
        return self._draw(step, count, sides)

    def pool(self, step: str, pool: int, edition: Edition, explode: bool = False) -> PoolRoll:
        """A d6 pool with hits (5-6) and glitches; with `explode`, every six adds a die."""
        pool = max(pool, 0)
        values = self._draw(step, pool, 6)
        if not explode:
            return count_pool(values, pool, edition)
        rolled = list(values)
        extra = values.count(6)
        while extra:
            more = self._draw(step, extra, 6, needed_total=len(rolled) + extra)
            rolled.extend(more)
            extra = more.count(6)
        return count_pool(rolled, pool, edition)

    def target_number_test(self, step: str, dice: int, target_number: int) -> TargetNumberRoll:
        """SR3 test: Rule of Six (a 6 is rolled again and added) and Rule of One (all ones fail)."""
        dice = max(dice, 0)
        firsts = self._draw(step, dice, 6)
        totals = []
        for first in firsts:
            total = first
            last = first
            # Only re-roll while the target number is still out of reach; a reached target needs
            # no more dice, and a given list need not carry them.
            while last == 6 and total < target_number:
                last = self._draw(step, 1, 6, needed_total=self._used.get(step, 0) + 1)[0]
                total += last
            totals.append(total)
        all_ones = dice > 0 and all(v == 1 for v in firsts)
        successes = 0 if all_ones else sum(1 for t in totals if t >= target_number)
        return TargetNumberRoll(
            target_number=target_number,
            totals=tuple(totals),
            successes=successes,
            all_ones=all_ones,
        )

    def d100(self, step: str) -> int:
        return self._draw(step, 1, 100)[0]

    def check_given_used(self) -> None:
        """A step given more dice than it rolled is a mistake at the table; say which.

        A given step that never came to be rolled (a defense against an attack that missed)
        is not: the table rolled it in case.
        """
        for step, values in self._given.items():
            used = self._used.get(step)
            if used is not None and used < len(values):
                raise DiceError(
                    step, f"step '{step}' rolled {used} dice but {len(values)} were given", used
                )


def check_given(given: Mapping[str, Sequence[int]], steps: Mapping[str, int]) -> None:
    """Given dice must name steps the request can roll (a typo is never silently re-rolled) and
    show faces of that step's die (`steps` maps step names to die sizes)."""
    for step, values in given.items():
        sides = steps.get(step)
        if sides is None:
            known = ", ".join(sorted(steps))
            detail = f"this request rolls no step named '{step}'; " + (
                f"it rolls: {known}" if steps else "it rolls no dice"
            )
            raise DiceError(step, detail)
        for index, value in enumerate(values):
            if not 1 <= value <= sides:
                raise DiceError(
                    step, f"step '{step}' rolls d{sides}: {value} is not a face of it", index
                )
