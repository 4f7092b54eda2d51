"""Server dice: the very values random.Random(seed).randint(1, sides) gives, and a generator
seeded only when a die is drawn from it."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemas.encounter import TurnState
from schemas.sr5 import SR5AttackRequest, SR5State
from service.rules import RULESETS
from service.rules import dice as dice_module
from service.rules.dice import Dice
from tests import sr5_requests as make

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
# Every bit length up to 17, with the sides either side of a power of two, where randint's
# rejection of too-large draws changes.
SIDES = st.sampled_from(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20, 100, 127, 128, 129, 255, 256, 65537]
)


@given(seed=SEEDS, draws=st.lists(st.tuples(SIDES, st.integers(1, 30)), min_size=1, max_size=8))
def test_rolled_dice_are_randint_of_the_seeded_generator(
    seed: int, draws: list[tuple[int, int]]
) -> None:
    reference = random.Random(seed)
    dice = Dice(seed)
    for index, (sides, count) in enumerate(draws):
        expected = [reference.randint(1, sides) for _ in range(count)]
        assert dice.roll(f"step-{index}", count, sides) == expected


@given(seed=SEEDS)
def test_pools_and_d100s_continue_the_same_sequence(seed: int) -> None:
    reference = random.Random(seed)
    dice = Dice(seed)
    pool = dice.pool("attack", 12, "sr5")
    assert list(pool.values) == [reference.randint(1, 6) for _ in range(12)]
    assert dice.d100("location") == reference.randint(1, 100)


class _NoGenerator:
    def __init__(self, seed: int) -> None:
        raise AssertionError(f"seeded a generator with {seed} though every die was given")


def test_a_request_whose_dice_are_all_given_never_seeds_a_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dice_module, "_Generator", _NoGenerator)
    body = make.attack(
        dice={
            "attack": [5, 6, 1, 2, 3, 4, 5, 6, 2, 2],
            "defense:goon-1": [1, 2, 3, 4, 5, 6],
            "soak:goon-1": [5] * 12,
        }
    )
    request = msgspec.convert(body, SR5AttackRequest)
    dice = Dice(7, request.dice)
    result = RULESETS["sr5"].resolve_attack(request, SR5State(), TurnState(), dice).result
    assert [roll.given for roll in result.dice] == [True, True, True]
    # The same request with a step left to the server does seed one.
    del body["dice"]["soak:goon-1"]
    request = msgspec.convert(body, SR5AttackRequest)
    with pytest.raises(AssertionError, match="seeded a generator with 7"):
        RULESETS["sr5"].resolve_attack(request, SR5State(), TurnState(), Dice(7, request.dice))
