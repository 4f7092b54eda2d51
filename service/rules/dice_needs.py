"""What a request will roll, before it is rolled: each step with its die and count, in the order
rolled, as far as the dice already given tell.

The request is resolved several times, each with the given dice and, for every die not given,
a probe face (all low, all high, the acting actor's high and the others' low and the other way
round, all middling); every step asked is noted. The steps asked alike under every probe, up to
the first that differs, are known now; what comes after depends on dice not yet given (a soak
after the net hits, Hard Life's armour and damage tests, d100's bonus dice), and `more` says so.
Probes never show a six on a pool (so no exploding pool draws on) and reach any target number at
once (a Rule of Six chain of sixes ends), so nothing loops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from service.rules.dice import (
    COUNTED_HIT,
    COUNTED_MISS,
    Dice,
    DiceError,
    Edition,
    Given,
    PoolRoll,
    TargetNumberRoll,
)
from service.rules.ruleset import RuleViolation

Kind = Literal["pool", "target_number", "faces"]
# A probe: the face a die of `sides` shows for a test of `kind`, whether it is the acting
# actor's (True) or another's.
Probe = Callable[[int, Kind, bool], int]


def _low(sides: int, kind: Kind, acting: bool) -> int:
    return 1


def _high(sides: int, kind: Kind, acting: bool) -> int:
    # A pool's hit that does not explode; a target-number test's six, re-rolled until the
    # target number is reached; any other die's highest face.
    return {"pool": COUNTED_HIT, "target_number": 6}.get(kind, sides)


def _middle(sides: int, kind: Kind, acting: bool) -> int:
    return COUNTED_MISS if kind != "faces" else (sides + 1) // 2


PROBES: tuple[Probe, ...] = (
    _low,
    _high,
    lambda sides, kind, acting: (_high if acting else _low)(sides, kind, acting),
    lambda sides, kind, acting: (_low if acting else _high)(sides, kind, acting),
    _middle,
)


@dataclass
class Ask:
    """One step as a resolution asked for it: its die, how many dice (the base pool of an
    exploding one; with given faces whose sixes call for more, those too), how many of them
    are given, in what form, and whether counts could stand for them."""

    step: str
    sides: int
    kind: Kind
    count: int = 0
    given: int = 0
    given_as: Literal["faces", "counts"] | None = None
    explodes: bool = False
    target_number: int | None = None
    counts: bool = False
    tests: int = 1
    # Asked under every probe, in the order rolled up to the first that differs; or not
    # (False): asked as it is under some probes only, so rolled or not as the dice before it
    # turn out (its dice may be given all the same: a step given but not rolled is fine).
    certain: bool = True

    def key(self) -> tuple[Any, ...]:
        return (self.step, self.sides, self.kind, self.count, self.given, self.target_number)


class ProbeDice(Dice):
    """Dice that note every step asked of them, and show `probe`'s faces for dice not given."""

    def __init__(
        self, given: Mapping[str, Given], probe: Probe, acting: Callable[[str], bool]
    ) -> None:
        super().__init__(0, given)
        self.asks: list[Ask] = []
        self._probe = probe
        self._acting = acting
        self._as_counts = set(self._counts)
        self._test: tuple[Kind, bool, int | None, bool] = ("faces", False, None, False)

    def pool(self, step: str, pool: int, edition: Edition, explode: bool = False) -> PoolRoll:
        self._test = ("pool", explode, None, True)
        return super().pool(step, pool, edition, explode)

    def target_number_test(
        self, step: str, dice: int, target_number: int, counts: bool = True
    ) -> TargetNumberRoll:
        self._test = ("target_number", False, target_number, counts)
        return super().target_number_test(step, dice, target_number, counts)

    def roll(self, step: str, count: int, sides: int = 6) -> list[int]:
        self._test = ("faces", False, None, False)
        return super().roll(step, count, sides)

    def d100(self, step: str) -> int:
        self._test = ("faces", False, None, False)
        return super().d100(step)

    def _draw(
        self, step: str, count: int, sides: int, needed_total: int | None = None
    ) -> list[int]:
        if count <= 0:
            return super()._draw(step, count, sides, needed_total)
        kind = self._test[0]
        extra = needed_total is not None
        face = self._probe(sides, kind, self._acting(step))
        given = self._given.get(step)
        if given is None:
            if step in self._counts:
                # Counts of a step whose rules read faces: the real request's 400.
                return super()._draw(step, count, sides, needed_total)
            # A probe's extra dice (its sixes re-rolled) are no part of the count.
            self._ask(step, sides, 0 if extra else count, 0, extra)
            return [face] * count
        start = self._used.get(step, 0)
        have = min(count, max(0, len(given) - start))
        values = super()._draw(step, have, sides) if have else []
        if have < count:
            # Given short (a six of an exploding pool calls for a die not yet given): the step
            # needs the rest, shown by the probe until it is given.
            self._used[step] = len(given)
            values = values + [face] * (count - have)
        self._ask(step, sides, count, have, extra)
        return values

    def _ask(self, step: str, sides: int, count: int, given: int, extra: bool) -> None:
        kind, explodes, target_number, counts = self._test
        last = self.asks[-1] if self.asks else None
        if last is not None and last.step == step and extra:
            last.count += count
            last.given += given
            return
        if last is not None and last.step == step:
            # Another test on the same step: one list of faces gives both.
            last.count += count
            last.given += given
            last.tests += 1
            last.counts = False
            return
        self.asks.append(
            Ask(
                step=step,
                sides=sides,
                kind=kind,
                count=count,
                given=given,
                given_as=("counts" if step in self._as_counts else "faces") if given else None,
                explodes=explodes,
                target_number=target_number,
                counts=counts and sides == 6,
            )
        )


@dataclass
class Needs:
    """The steps known now, in the order rolled (one per step name); whether more may follow
    once the dice not yet given are known; whether the request as given rolls nothing more."""

    steps: list[Ask] = field(default_factory=list)
    more: bool = False
    ready: bool = False


@dataclass
class _Run:
    asks: list[Ask]
    error: Exception | None
    unused: DiceError | None


def _error_key(error: Exception | None) -> tuple[Any, ...] | None:
    if error is None:
        return None
    return (type(error), str(error), getattr(error, "path", None))


def needs(
    resolve: Callable[[Dice], Any], given: Mapping[str, Given], acting: Callable[[str], bool]
) -> Needs:
    """The needs of the request `resolve` resolves with the dice it is handed; `given` its
    given dice; `acting` tells the acting actor's steps. A problem every probe meets alike (a
    rule the request breaks whatever the dice, counts that do not fit a known pool, more dice
    given than a known step rolls) is raised as the request itself would raise it."""
    runs: list[_Run] = []
    for probe in PROBES:
        dice = ProbeDice(given, probe, acting)
        error: Exception | None = None
        unused: DiceError | None = None
        try:
            resolve(dice)
        except (DiceError, RuleViolation) as refused:
            error = refused
        else:
            try:
                dice.check_given_used()
            except DiceError as more_given:
                unused = more_given
        runs.append(_Run(dice.asks, error, unused))
    first = runs[0]
    for problem in ("error", "unused"):
        raised = getattr(first, problem)
        if raised is not None and all(
            _error_key(getattr(run, problem)) == _error_key(raised) for run in runs
        ):
            raise raised
    known = _common(
        [run.asks + ([] if run.error is None else [_failed(run.error)]) for run in runs]
    )
    everywhere = all(
        len(run.asks) == len(known) and run.error is None and run.unused is None for run in runs
    )
    steps = _by_step(known)
    ready = everywhere and all(ask.given >= ask.count for ask in steps)
    maybe = _maybe([_by_step(run.asks[len(known) :]) for run in runs], {a.step for a in steps})
    return Needs(steps=steps + maybe, more=not everywhere, ready=ready)


def _maybe(lists: Sequence[list[Ask]], known: set[str]) -> list[Ask]:
    """The steps asked after the known ones, under some probes only, each asked alike wherever
    it is (its count known now whether or not it comes to be rolled)."""
    found: dict[str, Ask] = {}
    differ: set[str] = set(known)
    for asks in lists:
        for ask in asks:
            seen = found.get(ask.step)
            if seen is None:
                found[ask.step] = Ask(**{**vars(ask), "certain": False})
            elif seen.key() != ask.key() or seen.tests != ask.tests:
                differ.add(ask.step)
    return [ask for step, ask in found.items() if step not in differ]


def _failed(error: Exception) -> Ask:
    return Ask(step=f"\0{type(error).__name__}: {error}", sides=0, kind="faces")


def _common(lists: Sequence[list[Ask]]) -> list[Ask]:
    """The longest prefix every list shares."""
    shortest = min(len(asks) for asks in lists)
    for index in range(shortest):
        key = lists[0][index].key()
        if any(asks[index].key() != key for asks in lists[1:]):
            return lists[0][:index]
    return lists[0][:shortest]


def _by_step(asks: list[Ask]) -> list[Ask]:
    """One entry per step name, where the step was first asked: a step asked again later (an
    armour test per location group) is given as one list of faces."""
    merged: dict[str, Ask] = {}
    for ask in asks:
        seen = merged.get(ask.step)
        if seen is None:
            merged[ask.step] = Ask(**vars(ask))
            continue
        seen.count += ask.count
        seen.given += ask.given
        seen.tests += ask.tests
        seen.counts = False
        seen.explodes = seen.explodes or ask.explodes
        if seen.target_number != ask.target_number:
            seen.target_number = None
    return list(merged.values())
