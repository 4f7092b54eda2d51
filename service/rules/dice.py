"""The one source of dice: every roll is asked for under a step name, recorded, and may be given.

Given dice (typed in at the table, replays, tests) are used per step in order; a step that runs
short raises `DiceShortage`, which the API turns into a 400 naming the step and the count it needs.
A step whose rules read no more than its hits (a d6 pool) or its successes (a target-number test),
and its ones, may be given as those counts: they stand for faces (`counted_pool_faces`,
`counted_test_faces`) that are then used as given faces are, so the result and its replay from the
recorded faces are exactly those of dice that showed them.

Server dice come from one of two sources, the dice version the event names (docs/dice.md). A
seed (`mt19937-1`, what a request's own `seed` asks for): exactly what
`random.Random(seed).randint(1, sides)` gives, so a recorded seed replays on every version
(tests/test_recorded_seeds.py), drawn with the generator's `getrandbits` the way randint does, at
a third of randint's cost. Or the encounter's committed secret (`hmac-sha256-1`, `FairKey`): each
step's own stream of service/rules/fair.py, which anyone can redo once the secret is revealed.
"""

from __future__ import annotations

# The generator that random.Random builds on (CPython's Mersenne Twister, written in C):
# random.Random(seed) seeds it through two Python-level methods first, which costs a seventh
# more than seeding it directly, for the very same sequence of words.
from _random import Random as _Generator
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from schemas.common import MAX_DICE_PER_STEP, DiceCounts, DiceRoll
from service.rules import fair

Edition = Literal["sr5", "sr4"]

# 000_43afc0edeb7f6e19.txt and 001_2cfc288dfef1df08.txt: a die showing 5 or 6 is a hit.
HIT_MINIMUM = 5
HIT_FACES = tuple(range(HIT_MINIMUM, 7))
# The faces counts stand for: a hit that does not explode, a die that is neither hit nor one.
COUNTED_HIT = 5
COUNTED_MISS = 3
Given = Sequence[int] | DiceCounts


class DiceError(ValueError):
    """A problem with the dice of one step; `path` points into the request's `dice` map."""

    def __init__(
        self, step: str, detail: str, index: int | None = None, field: str | None = None
    ) -> None:
        super().__init__(detail)
        self.step = step
        self.detail = detail
        self.path = (
            f'$.dice["{step}"]'
            + (f"[{index}]" if index is not None else "")
            + (f".{field}" if field is not None else "")
        )


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


def counted_pool_faces(step: str, counts: DiceCounts, pool: int, explode: bool) -> list[int]:
    """The faces a d6 pool of `pool` dice given as `counts` stands for: the hits as 5s, the ones
    as 1s, the rest as 3s; where sixes explode and there are more hits than dice that are not
    ones, as many of the hits as it takes are 6s, each adding a die that is a hit in turn (in
    the order the pool draws them: the pool, then each round of extra dice)."""
    if isinstance(counts.successes, int):
        raise DiceError(
            step,
            f"step '{step}' is a d6 pool: give its hits (5s and 6s) and ones, not successes",
            field="successes",
        )
    hits = counts.hits if isinstance(counts.hits, int) else None
    if hits is None:
        raise DiceError(
            step, f"step '{step}' is a d6 pool: give its hits (5s and 6s)", None, "hits"
        )
    ones = counts.ones
    if ones > pool:
        raise DiceError(
            step, f"step '{step}' rolls {pool} dice: {ones} ones are more", None, "ones"
        )
    others = pool - ones
    if hits <= others:
        return [COUNTED_HIT] * hits + [COUNTED_MISS] * (others - hits) + [1] * ones
    if not explode or others == 0:
        raise DiceError(
            step,
            f"step '{step}' rolls {pool} dice: {hits} hits and {ones} ones are more than that"
            + ("" if explode else " (its sixes do not explode)"),
            None,
            "hits",
        )
    # Exploding: the `others` dice are all hits, and as many sixes as the extra hits need.
    faces: list[int] = []
    batch, extra = others, hits - others
    while True:
        sixes = min(batch, extra)
        faces += [6] * sixes + [COUNTED_HIT] * (batch - sixes)
        if len(faces) == others:
            faces += [1] * ones
        if sixes == 0:
            break
        batch, extra = sixes, extra - sixes
    if len(faces) > MAX_DICE_PER_STEP:
        raise DiceError(
            step, f"step '{step}': {hits} hits are more than any pool rolls", None, "hits"
        )
    return faces


def counted_test_faces(step: str, counts: DiceCounts, dice: int, target_number: int) -> list[int]:
    """The faces a target-number test of `dice` dice given as `counts` stands for, in the order
    the test draws them: a success as the lowest face (or chain of sixes, the Rule of Six) that
    reaches the target number, a failure as the highest face under it that is neither a one nor
    a six, a one as a 1; then each success's re-rolls, in order."""
    if isinstance(counts.hits, int):
        raise DiceError(
            step,
            f"step '{step}' is a test against target number {target_number}: give its "
            "successes and ones, not hits",
            field="hits",
        )
    successes = counts.successes if isinstance(counts.successes, int) else None
    if successes is None:
        raise DiceError(
            step,
            f"step '{step}' is a test against target number {target_number}: give its successes",
            None,
            "successes",
        )
    ones = counts.ones
    if successes + ones > dice:
        raise DiceError(
            step,
            f"step '{step}' rolls {dice} dice: {successes} successes and {ones} ones are more "
            "than that",
            None,
            "successes" if successes > dice else "ones",
        )
    failures = dice - successes - ones
    miss = min(target_number - 1, 5)
    if failures and miss < 2:
        raise DiceError(
            step,
            f"step '{step}' rolls {dice} dice against {target_number}: every die but a one "
            f"succeeds, so successes and ones make all {dice}",
            None,
            "successes",
        )
    sixes, last = divmod(target_number - 1, 6)
    chain = [6] * sixes + [last + 1]
    if target_number <= 6:
        chain = [max(target_number, 2)]
    firsts = [chain[0]] * successes + [miss] * failures + [1] * ones
    faces = firsts + chain[1:] * successes
    if len(faces) > MAX_DICE_PER_STEP:
        raise DiceError(
            step,
            f"step '{step}': {successes} successes are more than it can record",
            None,
            "successes",
        )
    return faces


class FairKey:
    """What a request's fair dice are keyed on (service/rules/fair.py): the encounter's secret,
    the encounter, the sequence its event gets, and the player's own seed if any."""

    __slots__ = ("client_seed", "encounter", "secret", "sequence")

    def __init__(
        self, secret: bytes, encounter: str, sequence: int, client_seed: str | None = None
    ) -> None:
        self.secret = secret
        self.encounter = encounter
        self.sequence = sequence
        self.client_seed = client_seed

    def __repr__(self) -> str:
        # The secret is never in a log line or a traceback.
        return f"FairKey({self.encounter!r}, sequence={self.sequence})"


class Dice:
    """Rolls dice for named steps, from given values first and a seeded generator otherwise, or
    with `fair`, each step's stream of the encounter's secret.

    The generator is seeded only when a die is drawn from it (seeding costs more than rolling a
    pool): a request whose dice are all given never seeds one.
    """

    __slots__ = ("_counts", "_given", "_rng", "_rolls", "_streams", "_used", "fair", "seed")

    def __init__(
        self, seed: int, given: Mapping[str, Given] | None = None, fair_key: FairKey | None = None
    ) -> None:
        # Under the fair version the result's `seed` is derived from the secret too (it seeds
        # only what a roll fixes for later: fair.derived_seed).
        if fair_key is not None:
            seed = fair.derived_seed(
                fair_key.secret, fair_key.encounter, fair_key.sequence, fair_key.client_seed
            )
        self.seed = seed
        self.fair = fair_key
        self._streams: dict[str, fair.StepStream] = {}
        self._rng: _Generator | None = None
        self._given: dict[str, list[int]] = {}
        # Steps given as counts (their first test gives them the faces they stand for).
        self._counts: dict[str, DiceCounts] = {}
        for step, values in (given or {}).items():
            if isinstance(values, DiceCounts):
                self._counts[step] = values
            else:
                self._given[step] = list(values)
        self._used: dict[str, int] = {}
        self._rolls: list[DiceRoll] = []

    @property
    def rolls(self) -> list[DiceRoll]:
        return list(self._rolls)

    def _server(self, step: str, count: int, sides: int) -> list[int]:
        """`count` dice of `step` from the server's source: the step's fair stream (continued
        from where its last draw stopped), or the seeded generator."""
        key = self.fair
        if key is None:
            return self._rolled(count, sides)
        stream = self._streams.get(step)
        if stream is None:
            stream = self._streams[step] = fair.StepStream(
                key.secret, key.encounter, key.sequence, step, key.client_seed
            )
        return stream.draw(count, sides)

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
        if step in self._counts and step not in self._given:
            raise DiceError(
                step,
                f"step '{step}' takes faces only: its rules read each d{sides} as it shows, "
                "not counts",
            )
        given = self._given.get(step)
        if given is None:
            values = self._server(step, count, sides)
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

    def _counted(self, step: str, counts: DiceCounts, faces: list[int] | None) -> None:
        """The step given as `counts` is given the `faces` they stand for from its first test
        on; a second test on it (or one that reads its dice one by one: `faces` None) cannot
        be told apart by counts."""
        if faces is None or step in self._used:
            raise DiceError(
                step,
                f"step '{step}' is read die by die here (its dice decide more than their "
                "count, or it rolls more than one test): give its faces",
            )
        self._given[step] = faces

    def _stamp(self, step: str, counts: DiceCounts) -> None:
        """The step's record (its last) says it was given as `counts`."""
        last = self._rolls[-1] if self._rolls else None
        if last is not None and last.step == step:
            self._rolls[-1] = msgspec.structs.replace(last, counts=counts)

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
        counts = self._counts.get(step)
        if counts is not None:
            self._counted(step, counts, counted_pool_faces(step, counts, pool, explode))
        values = self._draw(step, pool, 6)
        if not explode:
            rolled = values
        else:
            rolled = list(values)
            extra = values.count(6)
            while extra:
                more = self._draw(step, extra, 6, needed_total=len(rolled) + extra)
                rolled.extend(more)
                extra = more.count(6)
        if counts is not None:
            self._stamp(step, counts)
        return count_pool(rolled, pool, edition)

    def target_number_test(
        self, step: str, dice: int, target_number: int, counts: bool = True
    ) -> TargetNumberRoll:
        """SR3 test: Rule of Six (a 6 is rolled again and added) and Rule of One (all ones fail).
        `counts`: whether the step may be given as counts (False where the caller reads the
        totals against more than `target_number`)."""
        dice = max(dice, 0)
        given_counts = self._counts.get(step)
        if given_counts is not None:
            faces = counted_test_faces(step, given_counts, dice, target_number) if counts else None
            self._counted(step, given_counts, faces)
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
        if given_counts is not None:
            self._stamp(step, given_counts)
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


def check_given(given: Mapping[str, Given], steps: Mapping[str, int]) -> None:
    """Given dice must name steps the request can roll (a typo is never silently re-rolled) and
    show faces of that step's die (`steps` maps step names to die sizes); counts, hits or
    successes (not both) of d6 steps (whether the step's rules take them is known when it is
    rolled)."""
    for step, values in given.items():
        sides = steps.get(step)
        if sides is None:
            known = ", ".join(sorted(steps))
            detail = f"this request rolls no step named '{step}'; " + (
                f"it rolls: {known}" if steps else "it rolls no dice"
            )
            raise DiceError(step, detail)
        if isinstance(values, DiceCounts):
            check_counts(step, values, sides)
            continue
        for index, value in enumerate(values):
            if not 1 <= value <= sides:
                raise DiceError(
                    step, f"step '{step}' rolls d{sides}: {value} is not a face of it", index
                )


def check_counts(step: str, counts: DiceCounts, sides: int) -> None:
    """Counts name hits (a d6 pool) or successes (a target-number test), of a d6 step."""
    if sides != 6:
        raise DiceError(
            step, f"step '{step}' rolls d{sides}: it takes faces only, not counts", None, "hits"
        )
    hits, successes = isinstance(counts.hits, int), isinstance(counts.successes, int)
    if hits == successes:
        raise DiceError(
            step,
            f"counts of step '{step}' give either hits (a d6 pool: 5s and 6s) or successes (a "
            "target-number test), " + ("not both" if hits else "and its ones"),
            None,
            "successes" if hits else "hits",
        )
