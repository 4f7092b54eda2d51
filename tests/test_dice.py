"""The dice source: given dice per step, shortages, glitches by edition, Rule of Six and One."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules.dice import Dice, DiceError, DiceShortage, check_given, is_glitch


def test_given_dice_are_used_in_order_and_recorded_with_their_step() -> None:
    dice = Dice(seed=1, given={"attack": [6, 5, 4, 1]})
    roll = dice.pool("attack", 4, "sr5")
    assert roll.values == (6, 5, 4, 1)
    assert roll.hits == 2
    assert roll.ones == 1
    assert [(r.step, r.sides, r.values, r.given) for r in dice.rolls] == [
        ("attack", 6, [6, 5, 4, 1], True)
    ]


def test_steps_not_given_are_rolled_from_the_seed_and_replay() -> None:
    first = Dice(seed=99).pool("defense:goon-1", 12, "sr5")
    again = Dice(seed=99).pool("defense:goon-1", 12, "sr5")
    assert first == again
    assert len(first.values) == 12
    assert all(1 <= v <= 6 for v in first.values)


def test_a_step_short_of_given_dice_says_how_many_it_needs() -> None:
    dice = Dice(seed=1, given={"attack": [6, 5]})
    with pytest.raises(DiceShortage) as raised:
        dice.pool("attack", 5, "sr5")
    assert raised.value.step == "attack"
    assert raised.value.needed == 5
    assert "needs at least 5 dice" in raised.value.detail
    assert raised.value.path == '$.dice["attack"]'


def test_a_value_that_is_not_a_face_of_the_die_is_refused_with_its_index() -> None:
    dice = Dice(seed=1, given={"attack": [6, 7, 1]})
    with pytest.raises(DiceError) as raised:
        dice.pool("attack", 3, "sr5")
    assert raised.value.path == '$.dice["attack"][1]'
    assert "7" in raised.value.detail


def test_more_dice_given_than_a_step_rolled_is_an_error() -> None:
    dice = Dice(seed=1, given={"attack": [6, 5, 4, 3]})
    dice.pool("attack", 3, "sr5")
    with pytest.raises(DiceError, match="rolled 3 dice but 4 were given"):
        dice.check_given_used()


def test_a_given_step_that_was_never_needed_is_not_an_error() -> None:
    dice = Dice(seed=1, given={"soak:goon-1": [5, 5]})
    dice.check_given_used()


def test_step_names_outside_the_request_are_refused() -> None:
    with pytest.raises(DiceError, match="no step named 'defence:goon-1'"):
        check_given({"defence:goon-1": [1]}, {"attack": 6, "defense:goon-1": 6})


def test_given_faces_are_checked_against_each_steps_die_up_front() -> None:
    check_given({"attack": [1, 6], "location": [100]}, {"attack": 6, "location": 100})
    with pytest.raises(DiceError) as raised:
        check_given({"attack": [1, 6, 7]}, {"attack": 6})
    assert raised.value.path == '$.dice["attack"][2]'
    with pytest.raises(DiceError):
        check_given({"location": [0]}, {"location": 100})


@pytest.mark.parametrize(
    ("ones", "pool", "sr5", "sr4"),
    [
        (2, 4, False, True),
        (3, 4, True, True),
        (3, 6, False, True),
        (4, 7, True, True),
        (3, 7, False, False),
        (0, 0, False, False),
    ],
)
def test_glitch_sr5_needs_more_than_half_sr4_half_or_more(
    ones: int, pool: int, sr5: bool, sr4: bool
) -> None:
    # rules-sources/README.md: SR5 more than half the dice show 1; SR4 half or more.
    assert is_glitch(ones, pool, "sr5") is sr5
    assert is_glitch(ones, pool, "sr4") is sr4


def test_critical_glitch_is_a_glitch_without_hits() -> None:
    roll = Dice(seed=1, given={"x": [1, 1, 1, 2]}).pool("x", 4, "sr5")
    assert roll.glitch and roll.critical_glitch
    roll = Dice(seed=1, given={"x": [1, 1, 1, 5]}).pool("x", 4, "sr5")
    assert roll.glitch and not roll.critical_glitch


def test_exploding_sixes_take_extra_dice_from_the_same_step() -> None:
    dice = Dice(seed=1, given={"attack": [6, 2, 6, 5, 1]})
    roll = dice.pool("attack", 2, "sr5", explode=True)
    # 6 and 2; the 6 explodes into a 6, which explodes into a 5; nothing more.
    assert roll.values == (6, 2, 6, 5)
    assert roll.hits == 3
    with pytest.raises(DiceError):
        dice.check_given_used()  # the trailing 1 was not needed


def test_exploding_dice_short_of_the_extra_die_say_so() -> None:
    dice = Dice(seed=1, given={"attack": [6, 2]})
    with pytest.raises(DiceShortage) as raised:
        dice.pool("attack", 2, "sr5", explode=True)
    assert raised.value.needed == 3


def test_rule_of_six_rerolls_and_adds_to_reach_target_numbers_above_six() -> None:
    # rules-sources/README.md (SR3): a 6 is rolled again and added.
    dice = Dice(seed=1, given={"attack": [6, 3, 2, 4]})
    roll = dice.target_number_test("attack", 3, 9)
    # Dice 6, 3, 2; the 6 re-rolls a 4: 10 reaches 9.
    assert roll.totals == (10, 3, 2)
    assert roll.successes == 1


def test_rule_of_six_does_not_reroll_when_six_already_reaches_the_target() -> None:
    roll = Dice(seed=1, given={"t": [6, 5, 1]}).target_number_test("t", 3, 5)
    assert roll.totals == (6, 5, 1)
    assert roll.successes == 2


def test_rule_of_one_all_ones_fail_outright() -> None:
    roll = Dice(seed=1, given={"t": [1, 1]}).target_number_test("t", 2, 2)
    assert roll.all_ones
    assert roll.successes == 0


def test_d100_rolls_one_to_a_hundred_and_refuses_zero() -> None:
    assert Dice(seed=1, given={"attack": [100]}).d100("attack") == 100
    with pytest.raises(DiceError):
        Dice(seed=1, given={"attack": [101]}).d100("attack")


@given(seed=st.integers(min_value=0, max_value=2**63 - 1), pool=st.integers(0, 40))
def test_pools_are_sane_for_any_seed(seed: int, pool: int) -> None:
    roll = Dice(seed).pool("attack", pool, "sr5", explode=True)
    assert len(roll.values) >= pool
    assert 0 <= roll.hits <= len(roll.values)
    assert roll.critical_glitch <= roll.glitch
