"""Every SR4 rule through `resolve` with given dice (the cases of tests/sr4_cases.py, each with
its numbers worked out by hand), then the rules that need more than one request: recoil and
targets per action phase, earlier defenses, Edge's re-roll, suppression's zone test, and bad
input named by its field.

"001" is rules-sources/001_2cfc288dfef1df08.txt."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import AdvanceRequest, TurnState
from schemas.sr4 import SR4ActionRequest, SR4AttackRequest, SR4State, SR4ZoneTestRequest
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.ruleset import EarlierAttack, RuleViolation
from tests import sr4_requests as make
from tests.parity import Case, mismatches, resolved
from tests.sr4_cases import CASES, MISS8, miss

SR4 = RULESETS["sr4"]


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_each_rule_resolves_to_the_numbers_worked_out_by_hand(case: Case) -> None:
    result = resolved("sr4", "sam", case.actions, {**case.body, "dice": case.dice, "seed": 1})
    assert mismatches(result, case.expected) == {}


def _attack(body: dict[str, Any], state: Any, turn: TurnState | None = None) -> Any:
    turn = turn or TurnState()
    request = msgspec.convert(body, SR4AttackRequest)
    return SR4.resolve_attack(request, state, turn, Dice(1, request.dice))


def test_the_second_semi_automatic_shot_of_a_phase_takes_minus_1() -> None:
    first = _attack(make.attack(dice={"attack": MISS8}), SR4State(), TurnState(phase=3))
    second = _attack(make.attack(dice={"attack": miss(7)}), first.state, TurnState(phase=3))
    # 001, "Semi-Automatic Mode": the second shot -1; a new phase starts afresh.
    assert second.result.recoil.shot_in_phase == 2
    assert second.result.targets[0].attack.pool == 7
    third = _attack(make.attack(dice={"attack": MISS8}), second.state, TurnState(phase=4))
    assert third.result.targets[0].attack.pool == 8


def test_without_phases_or_same_phase_every_attack_starts_a_phase_of_its_own() -> None:
    # A VTT that counts no phases (turn.phase 0) and does not say `same_phase`: nothing ties
    # two shots to one action phase, so the second semi-automatic shot is a first shot again
    # (001, "Semi-Automatic Mode": only a second shot in the same phase takes -1): 8 dice
    # each time, recoil 0, and no 409 for a third.
    turn = TurnState()
    first = _attack(make.attack(dice={"attack": MISS8}), SR4State(), turn)
    second = _attack(make.attack(dice={"attack": MISS8}), first.state, turn)
    third = _attack(make.attack(dice={"attack": MISS8}), second.state, turn)
    for shot in (first, second, third):
        assert (shot.result.recoil.shot_in_phase, shot.result.recoil.penalty) == (1, 0)
        assert shot.result.targets[0].attack.pool == 8


def test_a_chokes_shot_meets_impact_armor_as_flechette_does() -> None:
    # 001, "Shotguns": shot takes "the flechette ammunition rules", and flechette meets impact
    # armour (tables.AMMUNITION, SR4 core). A narrow choke, 3 hits against none: DV 7 + 2 + 3
    # = 12 against impact 4 - 1 + 2 = 5 (not ballistic 6 - 1 + 2 = 7); Body 3 + 5 = 8 soak
    # dice, no hit: 12 boxes, physical.
    dice = {"attack": [5, 5, 5, *miss(5)], "defense:goon-1": miss(3)}
    narrow = {**make.SHOTGUN, "choke": "narrow"}
    hit = _attack(make.attack(weapon=narrow, dice={**dice, "soak:goon-1": miss(8)}), SR4State())
    damage = hit.result.targets[0].damage
    assert (damage.armor_type, damage.armor, damage.dv, damage.boxes) == ("impact", 5, 12, 12)
    assert (damage.soak.pool, damage.track) == (8, "physical")
    # A weapon that names its armour keeps it: ballistic 6 - 1 + 2 = 7, soak 3 + 7 = 10 dice.
    named = {**narrow, "armor": "ballistic"}
    kept = _attack(make.attack(weapon=named, dice={**dice, "soak:goon-1": miss(10)}), SR4State())
    assert kept.result.targets[0].damage.armor == 7


def test_the_second_burst_takes_minus_3_and_a_third_attack_is_a_409() -> None:
    body = make.attack(weapon=make.RIFLE, mode="BF", same_phase=True)
    first = _attack({**body, "dice": {"attack": miss(6)}}, SR4State())
    second = _attack({**body, "dice": {"attack": miss(5)}}, first.state)
    # Without phases from the VTT, same_phase says the second follows in the phase.
    assert second.result.recoil.penalty == -3
    with pytest.raises(RuleViolation) as refused:
        _attack({**body, "dice": {"attack": miss(5)}}, second.state)
    assert refused.value.status == 409 and refused.value.path == "$.mode"


def test_one_long_burst_a_phase_but_a_long_and_a_short_burst_are_allowed() -> None:
    turn = TurnState(phase=1)
    long = make.attack(attacker=make.attacker(skill=6), weapon=make.RIFLE, mode="LB")
    first = _attack({**long, "dice": {"attack": miss(5)}}, SR4State(), turn)
    with pytest.raises(RuleViolation) as refused:
        _attack({**long, "dice": {"attack": miss(4)}}, first.state, turn)
    assert refused.value.status == 409
    short = {**long, "mode": "BF", "dice": {"attack": miss(7)}}
    # 10 - 3 for the second burst of the phase.
    assert _attack(short, first.state, turn).result.targets[0].attack.pool == 7


def test_a_single_shot_weapon_fires_once_a_phase() -> None:
    body = make.attack(weapon=make.weapon(modes=["SS"]), mode="SS", dice={"attack": MISS8})
    first = _attack(body, SR4State(), TurnState(phase=2))
    with pytest.raises(RuleViolation) as refused:
        _attack(body, first.state, TurnState(phase=2))
    assert refused.value.status == 409


def test_a_second_target_in_the_phase_takes_minus_2() -> None:
    turn = TurnState(phase=1)
    first = _attack(make.attack(dice={"attack": MISS8}), SR4State(), turn)
    other = make.attack(targets=[make.target(id="goon-2")], dice={"attack": miss(5)})
    # 001, "Multiple Targets": -2 for the second target, and -1 for the second SA shot.
    result = _attack(other, first.state, turn).result
    assert result.targets[0].attack.pool == 5


def test_each_earlier_defense_takes_a_die_until_the_defenders_phase() -> None:
    hit = {"attack": [5, *miss(7)], "defense:goon-1": miss(3), "soak:goon-1": MISS8}
    first = _attack(make.attack(dice=hit), SR4State())
    second = _attack(
        make.attack(dice={**hit, "defense:goon-1": miss(2)}), first.state, TurnState(phase=9)
    )
    assert second.result.targets[0].defense.pool == 2
    state, effects = SR4.on_advance(
        AdvanceRequest(to="action_phase", actor="goon-1"), second.state, TurnState()
    )
    assert state.actors["goon-1"].defenses == 0 and effects


def test_edge_re_rolls_the_misses_of_the_last_attack_once() -> None:
    body = make.attack(
        dice={"attack": [5, *miss(7)], "defense:goon-1": [5, 2, 2]},
        targets=[make.target()],
    )
    first = _attack(body, SR4State())
    assert first.result.targets[0].outcome == "miss"
    earlier = EarlierAttack(request=msgspec.convert(body, SR4AttackRequest), result=first.result)
    action = SR4ActionRequest(
        actor="sam",
        action="edge_reroll",
        dice={"reroll:goon-1": [5, 5, *miss(5)], "soak:goon-1": MISS8},
    )
    again = SR4.resolve_action(action, first.state, TurnState(), Dice(2, action.dice), earlier)
    attack = again.result.attack
    # The 5 stands, 7 dice again: two more hits, 3 against 1: 2 net, 7 DV.
    assert attack is not None and attack.targets[0].attack.hits == 3
    assert attack.targets[0].damage is not None and attack.targets[0].damage.dv == 7
    with pytest.raises(RuleViolation):
        SR4.resolve_action(action, again.state, TurnState(), Dice(3, action.dice), earlier)


def test_a_zone_test_against_the_suppression_hits() -> None:
    case = next(c for c in CASES if c.rule.startswith("suppressive fire"))
    made = _attack({**case.body, "dice": case.dice}, SR4State())
    zone_id = made.result.zone.zone.id
    request = msgspec.convert(
        {
            "actor": "goon-1",
            "defender": make.defender(),
            "dice": {"zone_test:goon-1": [5, 2, 2, 2], "soak:goon-1": MISS8},
        },
        SR4ZoneTestRequest,
    )
    tested = SR4.resolve_zone_test(zone_id, request, made.state, TurnState(), Dice(1, request.dice))
    # 001: Reaction 3 + Edge 1 = 4 dice, 1 hit under the threshold 2: hit by the base DV 6
    # (armour 6 - 1 = 5: physical), Body 3 + 5 to resist.
    assert tested.result.pool == 4 and tested.result.hit
    assert tested.result.damage is not None and tested.result.damage.dv == 6
    assert tested.result.damage.track == "physical"
    # Taking cover only: not at risk.
    cover = msgspec.structs.replace(request, actor="goon-3", avoid="take_cover", dice={})
    safe = SR4.resolve_zone_test(zone_id, cover, made.state, TurnState(), Dice(1))
    assert safe.result.test is None and not safe.result.hit
    # The zone ends at the shooter's next action phase.
    after, effects = SR4.on_advance(
        AdvanceRequest(to="action_phase", actor="sam"), made.state, TurnState()
    )
    assert after.zones == {} and effects


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (
            make.attack(
                weapon=make.weapon(category="grenade_launcher", modes=["SS"]),
                mode="SS",
                targets=[make.target(distance_m=3)],
            ),
            "$.targets[0].distance_m",
        ),
        (make.attack(mode="BF"), "$.mode"),
        (make.attack(targets=[make.target(distance_m=70)]), "$.targets[0].distance_m"),
        (make.attack(targets=[make.target(), make.target(id="goon-2")]), "$.targets"),
        (
            make.attack(
                weapon=make.RIFLE,
                mode="FB",
                targets=[make.target(), make.target(id="b")],
                targets_apart_m=3,
            ),
            "$.targets_apart_m",
        ),
        (
            make.attack(
                weapon={**make.SHOTGUN, "choke": "narrow"},
                targets=[make.target(), make.target(id="b")],
            ),
            "$.targets",
        ),
        (make.attack(weapon={**make.weapon(), "choke": "wide"}), "$.weapon.choke"),
        (make.attack(weapon={**make.RIFLE, "ammo": 9}, mode="FB"), "$.weapon.ammo"),
        (make.attack(targets=[]), "$.targets"),
        (make.attack(edge="extra_dice", attacker=make.attacker(edge=0)), "$.attacker.edge"),
    ],
)
def test_bad_attacks_are_rule_violations_naming_the_field(body: dict[str, Any], path: str) -> None:
    with pytest.raises(RuleViolation) as refused:
        _attack(body, SR4State())
    assert refused.value.path == path
    assert refused.value.status in (409, 422)


def test_full_defense_is_a_complex_action_or_the_next_phase() -> None:
    request = SR4ActionRequest(actor="goon-1", action="full_defense")
    cost = SR4.action_cost(request, None)
    assert (cost.kind, cost.or_next_phase) == ("complex", True)
    smart = SR4ActionRequest(
        actor="sam", action="change_choke", weapon="remington", choke="wide", smartlinked=True
    )
    assert SR4.action_cost(smart, None).kind == "free"
    assert SR4.initiative is not None and SR4.initiative.passes == "count"


_bodies = st.fixed_dictionaries(
    {
        "mode": st.sampled_from(["SA", "BF", "LB", "FB"]),
        "burst": st.sampled_from(["narrow", "wide"]),
        "ammo": st.integers(1, 30),
        "damage": st.integers(0, 15),
        "ap": st.integers(-10, 10),
        "rc": st.integers(0, 10),
        "armor": st.integers(0, 20),
        "distance": st.floats(0, 150),
        "reaction": st.integers(1, 10),
        "grazing": st.booleans(),
    }
)


@settings(max_examples=200, deadline=None)
@given(case=_bodies, seed=st.integers(0, 2**63 - 1))
def test_damage_is_never_negative_and_the_same_seed_resolves_the_same(
    case: dict[str, Any], seed: int
) -> None:
    body = make.attack(
        attacker=make.attacker(agility=6, skill=6),
        weapon={
            **make.RIFLE,
            "ammo": max(case["ammo"], 10) if case["mode"] == "FB" else case["ammo"],
            "damage": case["damage"],
            "ap": case["ap"],
            "rc": case["rc"],
        },
        mode=case["mode"],
        burst=case["burst"],
        grazing=case["grazing"],
        targets=[
            make.target(
                distance_m=case["distance"],
                defender=make.defender(reaction=case["reaction"], ballistic_armor=case["armor"]),
            )
        ],
        seed=seed,
    )
    request = msgspec.convert(body, SR4AttackRequest)
    first = SR4.resolve_attack(request, SR4State(), TurnState(), Dice(seed))
    again = SR4.resolve_attack(request, SR4State(), TurnState(), Dice(seed))
    assert msgspec.to_builtins(first.result) == msgspec.to_builtins(again.result)
    target = first.result.targets[0]
    assert target.net_hits >= 0 and first.result.ammo_left >= 0
    if target.damage is not None:
        assert target.damage.boxes >= 0 and target.damage.armor >= 0
        assert target.damage.dv >= target.damage.compared_dv or case["burst"] == "wide"
    assert target.contact == (target.outcome != "miss")


def test_the_chokes_kept_stay_within_a_sheets_worth_of_guns() -> None:
    # A choke set on 25 different guns: the state keeps the newest 20 (MAX_WEAPONS), so it can
    # always be read back; setting one again moves it to the newest.
    from schemas.sr4 import MAX_WEAPONS

    state = SR4State()
    for n in range(25):
        action = SR4ActionRequest(
            actor="sam", action="change_choke", weapon=f"gun-{n}", choke="wide"
        )
        state = RULESETS["sr4"].resolve_action(action, state, TurnState(), Dice(0)).state
    again = SR4ActionRequest(actor="sam", action="change_choke", weapon="gun-10", choke="narrow")
    state = RULESETS["sr4"].resolve_action(again, state, TurnState(), Dice(0)).state
    assert isinstance(state, SR4State)
    chokes = state.actors["sam"].chokes
    assert len(chokes) == MAX_WEAPONS
    assert list(chokes)[-1] == "gun-10" and chokes["gun-10"] == "narrow"
    assert "gun-4" not in chokes and "gun-5" in chokes
    msgspec.json.decode(msgspec.json.encode(state), type=SR4State)
