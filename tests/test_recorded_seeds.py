"""Recorded seeds replay: every request of tests/data/recorded_seeds.json, resolved again with its
seed, gives the very result, state and dice it gave when it was recorded (before issue 12 made
the dice cheaper to draw), and every raw draw of the Dice source is the same.

A table that keeps a seed (an event's `seed`) must be able to replay it on any later version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.record_seeds import RECORDS, play, raw_draws

RECORDED: dict[str, Any] = json.loads(RECORDS.read_text())


def _scenario_id(scenario: dict[str, Any]) -> str:
    return f"{scenario['ruleset']}: {scenario['name']}, seed {scenario['seed']}"


@pytest.mark.parametrize("scenario", RECORDED["scenarios"], ids=_scenario_id)
def test_a_recorded_request_replays_to_the_same_result_state_and_dice(
    scenario: dict[str, Any],
) -> None:
    # The inputs are the recorded ones, not the generator's: editing the generator cannot
    # quietly change what is checked.
    replayed = play(scenario["ruleset"], scenario["steps"], scenario["seed"])
    assert len(replayed) == len(scenario["played"])
    for index, (now, then) in enumerate(zip(replayed, scenario["played"], strict=True)):
        assert now == then, f"step {index} ({then['kind']}) no longer replays"


@pytest.mark.parametrize("raw", RECORDED["raw"], ids=lambda raw: f"seed {raw['seed']}")
def test_raw_draws_of_a_seed_are_the_recorded_ones(raw: dict[str, Any]) -> None:
    assert raw_draws(raw["seed"]) == raw["drawn"]


def test_the_record_covers_every_ruleset_every_kind_of_step_and_wide_seeds() -> None:
    # A record that lost its variety would still pass; this says what it must hold.
    scenarios = RECORDED["scenarios"]
    kinds = {(s["ruleset"], step["kind"]) for s in scenarios for step in s["steps"]}
    assert kinds >= {
        ("sr5", "attack"),
        ("sr5", "action"),
        ("sr5", "zone_test"),
        ("d100", "attack"),
        ("d100", "action"),
        ("d100", "zone_test"),
        ("sr3", "attack"),
        ("sr3", "action"),
        ("sr3", "zone_test"),
        ("sr4", "attack"),
        ("sr4", "action"),
        ("sr4", "zone_test"),
        ("sr3-hardlife", "attack"),
        ("sr3-hardlife", "action"),
        ("sr3-hardlife", "zone_test"),
    }
    seeds = {s["seed"] for s in scenarios} | {r["seed"] for r in RECORDED["raw"]}
    assert {0, 1, 2**63 - 1} <= seeds
    rolled = [
        roll
        for s in scenarios
        for step in s["played"]
        if "result" in step
        for roll in step["result"].get("dice", [])
        if not roll["given"]
    ]
    assert {roll["sides"] for roll in rolled} >= {6, 10, 100}
    assert len(rolled) > 500
