"""The odds of every attack and zone test of the recorded scenarios (tests/data/
recorded_seeds.json), asked on the state each was resolved on, before it: every ruleset, every
kind of request the record holds.

- the odds refuse exactly what `resolve` refused (same kind and field), and nothing else;
- what `resolve` did, with its recorded dice, is an outcome the odds give a chance to;
- the answer is well formed (every distribution adds up to 1, the summaries agree);
- asking changes nothing: the state is the same object, unchanged, after it.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from service.rules import RULESETS, RuleViolation
from tests.record_seeds import RECORDS

RECORDED: dict[str, Any] = json.loads(RECORDS.read_text())
SAMPLES = 200


def _scenario_id(scenario: dict[str, Any]) -> str:
    return f"{scenario['ruleset']}: {scenario['name']}, seed {scenario['seed']}"


def _well_formed(target: TargetOdds) -> None:
    for name, dist in (
        ("outcomes", [o.p for o in target.outcomes]),
        ("net hits", [c.p for c in target.net_hits]),
        ("damage", [d.p for d in target.damage]),
    ):
        assert abs(sum(dist) - 1.0) < 1e-9, f"{target.target} {name} add up to {sum(dist)}"
        assert all(0.0 < p <= 1.0 + 1e-12 for p in dist), f"{target.target} {name}: {dist}"
    assert abs(target.hit + target.graze + target.miss - 1.0) < 1e-9
    assert 0.0 <= target.critical_glitch <= target.glitch + 1e-12 <= 1.0 + 1e-12
    assert all(0.0 < loc.p <= 1.0 + 1e-12 for loc in target.locations)


def _results_by_target(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target's part of an attack result: `targets` (sr4, sr5, d100) or `target` (sr3,
    sr3-hardlife)."""
    if result.get("targets"):
        return {t["target"]: t for t in result["targets"]}
    single = result.get("target")
    if isinstance(single, dict) and "target" in single:
        return {single["target"]: single}
    return {}


@pytest.mark.parametrize("scenario", RECORDED["scenarios"], ids=_scenario_id)
def test_the_odds_of_every_recorded_attack_and_zone_test(scenario: dict[str, Any]) -> None:
    ruleset = RULESETS[scenario["ruleset"]]
    state_type = type(ruleset.new_state())
    state: Any = ruleset.new_state()
    turn = TurnState()
    for index, (step, then) in enumerate(zip(scenario["steps"], scenario["played"], strict=True)):
        where = f"step {index} ({step['kind']})"
        body = {"ruleset": scenario["ruleset"], **step["body"], "dice": {}}
        if step["kind"] in ("attack", "zone_test"):
            before = msgspec.json.encode(state)
            answer: AttackOdds | ZoneTestOdds
            try:
                if step["kind"] == "attack":
                    request = msgspec.convert(body, ruleset.attack_type)
                    answer = ruleset.attack_odds(request, state, turn, 1, SAMPLES)
                else:
                    request = msgspec.convert(body, ruleset.zone_test_type)
                    answer = ruleset.zone_test_odds(step["zone"], request, state, turn, 1, SAMPLES)
            except RuleViolation as refused:
                assert "refused" in then, f"{where}: the odds refuse what resolve did: {refused}"
                assert (refused.kind, refused.path) == (
                    then["refused"]["kind"],
                    then["refused"]["path"],
                ), where
            else:
                assert "refused" not in then, f"{where}: resolve refused {then.get('refused')}"
                assert msgspec.json.encode(state) == before, f"{where}: the odds changed the state"
                targets = answer.targets if isinstance(answer, AttackOdds) else [answer.target]
                for target in targets:
                    _well_formed(target)
                if isinstance(answer, AttackOdds):
                    assert abs(answer.damage_mean - sum(t.damage_mean for t in targets)) < 1e-9
                    assert max((t.hit for t in targets), default=0.0) <= answer.any_hit + 1e-9
                    # What resolve did to each target is an outcome the odds allow.
                    done = _results_by_target(then["result"])
                    for target in targets:
                        if target.target in done and answer.method == "exact":
                            outcome = done[target.target]["outcome"]
                            chances = {o.outcome: o.p for o in target.outcomes}
                            assert chances.get(outcome, 0.0) > 0.0, (
                                f"{where}: {target.target} was '{outcome}', which the odds give "
                                f"no chance: {chances}"
                            )
        if "state" in then:
            state = msgspec.convert(then["state"], state_type)
