"""SR4 odds previews (service/rules/sr4/odds.py, docs/odds.md#sr4) against the ruleset's own
resolve: every branch resolved with many seeds on the same state and held to the reported
probabilities (tests/odds_check.py), hand-computed cases from the rules
(001_2cfc288dfef1df08.txt; "001"), the state read as the attack reads it, and refusals
identical to resolve's."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from fractions import Fraction
from math import comb
from typing import Any

import msgspec
import pytest

from schemas.encounter import TurnState
from schemas.odds import AttackOdds, TargetOdds
from schemas.sr4 import (
    SR4ActionRequest,
    SR4AttackRequest,
    SR4AttackResult,
    SR4State,
    SR4ZoneTestRequest,
)
from service.rules import RULESETS
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr4 import odds as sr4_odds
from tests import sr4_requests as make
from tests.odds_check import SAMPLES, Observed, check_probability, check_target
from tests.sr4_cases import MISS8, miss

SR4 = RULESETS["sr4"]
NONE: tuple[int, str | None, str | None, str | None] = (0, None, None, None)
F = Fraction


def request_of(body: dict[str, Any]) -> SR4AttackRequest:
    return msgspec.convert(body, SR4AttackRequest)


def odds_of(body: dict[str, Any], state: SR4State, turn: TurnState | None = None) -> AttackOdds:
    return SR4.attack_odds(request_of(body), state, turn or TurnState(), 1, 4000)


def after(
    body: dict[str, Any], state: SR4State | None = None, turn: TurnState | None = None
) -> SR4State:
    """The state after `body` is resolved (given dice or seed 7)."""
    request = request_of(body)
    resolution = SR4.resolve_attack(
        request, state or SR4State(), turn or TurnState(), Dice(7, request.dice)
    )
    return resolution.state  # type: ignore[no-any-return]


def act(action: dict[str, Any], state: SR4State) -> SR4State:
    request = msgspec.convert(action, SR4ActionRequest)
    return SR4.resolve_action(request, state, TurnState(), Dice(0)).state  # type: ignore[no-any-return]


# --- what a result says, in the odds' terms (written apart from odds.py) -----------------------


def _glitch_of_point_throw(result: SR4AttackResult) -> tuple[bool, bool]:
    """A grenade aimed at a point has no target entry: its test is the "attack" step's dice."""
    rolled = next((d.values for d in result.dice if d.step == "attack"), [])
    pool = result.pool
    ones = rolled[:pool].count(1)
    hits = sum(1 for v in rolled if v >= 5)
    glitch = pool > 0 and ones * 2 >= pool
    return glitch, glitch and hits == 0


def observations(result: SR4AttackResult, ids: Iterable[str]) -> list[tuple[str, Observed]]:
    if result.scatter is None:
        seen = []
        for t in result.targets:
            hurt = t.damage
            damage = (hurt.boxes, hurt.track, None, None) if hurt and hurt.boxes else NONE
            seen.append(
                (
                    t.target,
                    Observed(
                        t.outcome,
                        t.net_hits,
                        damage,
                        t.attack.glitch,
                        t.attack.critical_glitch,
                    ),
                )
            )
        return seen
    aimed = {t.target: t for t in result.targets}
    if result.targets:
        test = result.targets[0].attack
        glitch, critical = test.glitch, test.critical_glitch
    else:
        glitch, critical = _glitch_of_point_throw(result)
    seen = []
    for actor in ids:
        net = aimed[actor].net_hits if actor in aimed else 0
        if result.blast is None:
            # Held (or a dud): the aimed target's entry says whether it landed on it.
            outcome = aimed[actor].outcome if actor in aimed else "miss"
            seen.append((actor, Observed(outcome, net, NONE, glitch, critical)))
            continue
        hit = next((h for h in result.blast.hits if h.actor == actor and h.dv > 0), None)
        if hit is None:
            seen.append((actor, Observed("miss", net, NONE, glitch, critical)))
        else:
            damage = (hit.boxes, hit.track, None, None) if hit.boxes else NONE
            seen.append((actor, Observed("hit", net, damage, glitch, critical)))
    return seen


def check_against_resolve(
    body: dict[str, Any],
    state: SR4State | None = None,
    turn: TurnState | None = None,
    samples: int = SAMPLES,
    answer: AttackOdds | None = None,
) -> AttackOdds:
    state = state or SR4State()
    turn = turn or TurnState()
    request = request_of(body)
    answer = answer or SR4.attack_odds(request, state, turn, 1, 4000)
    ids = [t.target for t in answer.targets]
    gathered: dict[str, list[Observed]] = {i: [] for i in ids}
    any_hit = 0
    for seed in range(samples):
        result = SR4.resolve_attack(request, state, turn, Dice(seed + 1000)).result
        seen = observations(result, ids)
        got = dict(seen)
        for i in ids:
            gathered[i].append(got.get(i, Observed("miss")))
        any_hit += any(o.outcome == "hit" for o in got.values())
    for target in answer.targets:
        check_target(target, gathered[target.target])
    check_probability("any hit", answer.any_hit, any_hit, samples)
    return answer


# --- every branch against resolve ----------------------------------------------------------------

ARMORED = make.defender(ballistic_armor=9)  # modified armor 8: low net hits do stun (001 step 4)

CASES: dict[str, Callable[[], tuple[dict[str, Any], SR4State, TurnState]]] = {
    "semi-automatic, physical and stun by net hits": lambda: (
        make.attack(targets=[make.target(defender=ARMORED)]),
        SR4State(),
        TurnState(),
    ),
    "gel rounds: stun against impact armour": lambda: (
        make.attack(ammo="gel"),
        SR4State(),
        TurnState(),
    ),
    "grazing ties with a contact effect": lambda: (
        make.attack(grazing=True, weapon=make.weapon(contact_effect="poison")),
        SR4State(),
        TurnState(),
    ),
    "the second narrow burst of the phase (-3 recoil), its DV not compared with armour": lambda: (
        make.attack(
            weapon=make.RIFLE, mode="BF", burst="narrow", targets=[make.target(defender=ARMORED)]
        ),
        after(make.attack(weapon=make.RIFLE, mode="BF"), turn=TurnState(phase=2)),
        TurnState(phase=2),
    ),
    "a wide long burst two rounds short, Edge on both sides": lambda: (
        make.attack(
            attacker=make.attacker(skill=6),
            weapon={**make.RIFLE, "modes": ["FA"], "ammo": 4},
            mode="LB",
            burst="wide",
            edge="extra_dice",
            targets=[make.target(edge=True)],
        ),
        SR4State(),
        TurnState(),
    ),
    "a full burst at three targets, each its own test": lambda: (
        make.attack(
            attacker=make.attacker(skill=6),
            weapon=make.RIFLE,
            mode="FB",
            targets=[make.target(id=f"goon-{i}") for i in (1, 2, 3)],
        ),
        SR4State(),
        TurnState(),
    ),
    "a wide shotgun spread, one test against three": lambda: (
        make.attack(
            weapon={**make.SHOTGUN, "choke": "wide"},
            targets=[make.target(id=f"goon-{i}") for i in (1, 2, 3)],
        ),
        SR4State(),
        TurnState(),
    ),
    "two guns, split pool": lambda: (
        make.attack(
            second_weapon=make.weapon(id="second", damage=4),
            targets=[make.target(), make.target(id="goon-2", gun="second")],
        ),
        SR4State(),
        TurnState(),
    ),
    "full defense and an earlier defense from the state": lambda: (
        make.attack(),
        after(
            make.attack(
                dice={
                    "attack": [5, *miss(7)],
                    "defense:goon-1": miss(5),
                    "soak:goon-1": MISS8,
                }
            ),
            act({"actor": "goon-1", "action": "full_defense"}, SR4State()),
        ),
        TurnState(),
    ),
    "a pool of 0 or less fails outright": lambda: (
        make.attack(
            attacker=make.attacker(agility=1, skill=1),
            targets=[make.target(cover="good")],
        ),
        SR4State(),
        TurnState(),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_attack_branch_matches_resolve(name: str) -> None:
    body, state, turn = CASES[name]()
    answer = check_against_resolve(body, state, turn)
    assert answer.method == "exact" and answer.sampling is None
    assert any("edge_reroll" in note for note in answer.notes)


# --- grenades ---------------------------------------------------------------------------------

SAM = {"id": "sam", "agility": 4, "skill": 3, "strength": 5}
FRAGS = {"id": "frags", "category": "standard_grenade", "damage": 0, "modes": ["SS"], "ammo": 3}
LAUNCHER = {"id": "gl", "category": "grenade_launcher", "damage": 0, "modes": ["SS"], "ammo": 6}


def throw(**fields: Any) -> dict[str, Any]:
    body = {
        "attacker": SAM,
        "weapon": FRAGS,
        "mode": "SS",
        "grenade": {"type": "fragmentation", "airburst": True},
        "origin": {"x": 0, "y": 0},
        "targets": [{"id": "goon", "distance_m": 8, "defender": make.defender()}],
        "bystanders": [
            {"id": "goon", "position": {"x": 0, "y": 8}, "body": 3, "impact_armor": 2},
            {"id": "pal", "position": {"x": 3, "y": 9}, "body": 4, "impact_armor": 0},
            {"id": "far", "position": {"x": 0, "y": 40}, "body": 2},
        ],
    }
    return {**body, **fields}


def test_an_airburst_grenade_on_everyone_it_may_reach_matches_resolve() -> None:
    answer = check_against_resolve(throw())
    assert answer.method == "exact"
    # "far" stands 32 m past the target: 3D6 less 2 m a net hit never takes it within 12 m.
    assert [t.target for t in answer.targets] == ["goon", "pal"]


def test_where_a_wide_scatter_lands_decides_whom_the_blast_reaches() -> None:
    # Three scatter dice and a high explosive grenade's -2 per metre: pal, off the line of the
    # throw near scatter direction 2 (60 degrees clockwise), is reached mostly when it goes
    # that way; each direction is its own landing.
    body = throw(
        grenade={"type": "high_explosive", "airburst": True, "scatter_dice": 3},
        bystanders=[
            {"id": "goon", "position": {"x": 0, "y": 8}, "body": 3, "impact_armor": 2},
            {"id": "pal", "position": {"x": 4, "y": 11}, "body": 4, "impact_armor": 0},
        ],
    )
    answer = check_against_resolve(body)
    pal = next(t for t in answer.targets if t.target == "pal")
    assert 0.05 < pal.hit < 0.6


def test_a_high_explosive_blast_with_a_wall_that_may_fall_matches_resolve() -> None:
    body = throw(
        grenade={"type": "high_explosive", "airburst": True},
        barriers=[
            {
                "id": "crate",
                "start": {"x": 1, "y": 7},
                "end": {"x": 1, "y": 12},
                "armor": 6,
                "structure": 12,
            }
        ],
    )
    # HE 10P -2/m: about 8 DV at the crate, doubled 16 against armor 6: it resists with 18
    # dice and falls when 16 less its hits reaches its Structure 12, so it may go either way;
    # pal behind it takes the blast with the crate's armor, or none.
    answer = check_against_resolve(body)
    assert answer.method == "exact"
    pal = next(t for t in answer.targets if t.target == "pal")
    assert 0.2 < pal.hit < 0.8


def test_a_confined_blast_rebounds_off_walls_that_hold_matches_resolve() -> None:
    walls = [
        ((-4, 4), (6, 4)),
        ((6, 4), (6, 14)),
        ((6, 14), (-4, 14)),
        ((-4, 14), (-4, 4)),
    ]
    body = throw(
        grenade={"type": "flash_bang", "airburst": True},
        confined=True,
        barriers=[
            {
                "id": f"w{i}",
                "start": {"x": a[0], "y": a[1]},
                "end": {"x": b[0], "y": b[1]},
                "armor": 8,
                "structure": 10,
                "holds": True,
            }
            for i, (a, b) in enumerate(walls)
        ],
    )
    check_against_resolve(body, samples=3000)


def test_a_launcher_grenade_at_a_point_may_land_a_dud() -> None:
    # Aimed 6 m off: 3D6 less 4 m a hit, and a landing within 5 m of the launcher does not arm.
    body = throw(
        weapon=LAUNCHER,
        grenade={"type": "high_explosive", "delivery": "launcher", "airburst": True},
        targets=[],
        aim_point={"x": 0, "y": 6},
        bystanders=[{"id": "pal", "position": {"x": 0, "y": 7}, "body": 4}],
    )
    answer = check_against_resolve(body)
    assert any("arming range" in note for note in answer.notes)


def test_a_held_grenade_previews_its_landing_and_says_the_blast_comes_later() -> None:
    body = throw(grenade={"type": "fragmentation"})
    answer = check_against_resolve(body)
    [target] = answer.targets
    assert target.target == "goon" and target.damage_mean == 0
    assert any("next initiative pass" in note for note in answer.notes)


def test_a_blast_too_large_to_enumerate_is_sampled_from_resolve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sr4_odds, "MAX_EXPOSURES", 10)
    body = throw()
    request = request_of(body)
    answer = SR4.attack_odds(request, SR4State(), TurnState(), 5, 20000)
    assert answer.method == "sampled" and answer.sampling is not None
    assert answer.sampling.samples == 20000 and answer.sampling.seed == 5
    assert 0 < answer.sampling.margin < 0.01
    assert any("sampled" in note for note in answer.notes)
    # The same seed, the same answer; held to 4,000 other resolutions.
    assert SR4.attack_odds(request, SR4State(), TurnState(), 5, 20000) == answer
    check_against_resolve(body, samples=4000, answer=answer)


def test_grenade_previews_answer_fast() -> None:
    request = request_of(throw(confined=False))
    start = time.perf_counter()
    answer = SR4.attack_odds(request, SR4State(), TurnState(), 1, 4000)
    elapsed = time.perf_counter() - start
    assert answer.method == "exact"
    # A sanity bound, not a benchmark (bench/ measures): well under a second.
    assert elapsed < 1.0


# --- suppressive fire and its zone test ---------------------------------------------------------


def suppressive(**fields: Any) -> dict[str, Any]:
    return make.attack(
        weapon=make.RIFLE,
        mode="suppressive",
        targets=[],
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 20},
        **fields,
    )


def test_suppressive_fire_has_no_target_and_says_to_ask_the_zone() -> None:
    answer = odds_of(suppressive(), SR4State())
    assert answer.targets == [] and answer.any_hit == 0 and answer.damage_mean == 0
    assert any("zone test" in note for note in answer.notes)


def _zoned() -> SR4State:
    return after(suppressive(dice={"suppression": [5, 5, 6, 1, 2, 3, 4, 4]}))


@pytest.mark.parametrize("full_defense", [False, True])
def test_a_zone_test_matches_resolve(full_defense: bool) -> None:
    state = _zoned()
    if full_defense:
        state = act({"actor": "goon-1", "action": "full_defense"}, state)
    body = {"actor": "goon-1", "defender": make.defender(reaction=2, edge=1)}
    request = msgspec.convert(body, SR4ZoneTestRequest)
    answer = SR4.zone_test_odds("zone-1", request, state, TurnState(), 1, 4000)
    assert answer.zone == "zone-1" and answer.method == "exact"
    observed = []
    for seed in range(SAMPLES):
        result = SR4.resolve_zone_test("zone-1", request, state, TurnState(), Dice(seed)).result
        hurt = result.damage
        damage = (hurt.boxes, hurt.track, None, None) if hurt and hurt.boxes else NONE
        test = result.test
        assert test is not None
        observed.append(
            Observed(
                "hit" if result.hit else "miss",
                result.threshold - test.hits if result.hit else 0,
                damage,
                test.glitch,
                test.critical_glitch,
            )
        )
    check_target(answer.target, observed)


def test_a_zone_test_avoided_is_no_risk() -> None:
    request = msgspec.convert(
        {"actor": "goon-1", "defender": make.defender(), "avoid": "drop_prone"},
        SR4ZoneTestRequest,
    )
    answer = SR4.zone_test_odds("zone-1", request, _zoned(), TurnState(), 1, 4000)
    assert answer.target.hit == 0 and answer.target.miss == 1
    assert answer.target.outcomes[0].outcome == "avoided"


# --- hand-computed cases from the rules ---------------------------------------------------------


def close(a: float, b: Fraction) -> bool:
    return abs(a - float(b)) < 1e-12


def bare(**fields: Any) -> dict[str, Any]:
    """A defender with nothing but what a case gives: Body 1, no armour."""
    return {"reaction": 1, "body": 1, "ballistic_armor": 0, "impact_armor": 0, **fields}


def one_target(agility: int, skill: int, defender: dict[str, Any], **fields: Any) -> TargetOdds:
    body = make.attack(
        attacker=make.attacker(agility=agility, skill=skill),
        weapon=make.weapon(ap=0),
        targets=[make.target(defender=defender)],
        **fields,
    )
    return odds_of(body, SR4State()).targets[0]


def test_one_die_against_one_die() -> None:
    # Agility 1 + skill 0 = one die against Reaction 1. A hit on 5-6 (1/3); the defender wins
    # ties (001 step 3): a hit is 1 hit against none, 1/3 * 2/3 = 2/9; a tie 1/9 grazes.
    target = one_target(1, 0, bare(), grazing=True)
    assert close(target.hit, F(2, 9)) and close(target.graze, F(1, 9))
    assert close(target.miss, F(6, 9))
    # SR4: a single 1 is half the pool, a glitch, with no hit critical (README).
    assert close(target.glitch, F(1, 6)) and close(target.critical_glitch, F(1, 6))
    # The hit: 5P + 1 net = 6 DV against armor 0, physical; Body 1 + 0 armor = one die soaks:
    # 6 boxes 2/3 of the time, 5 the rest.
    damage = {(d.boxes, d.track): d.p for d in target.damage}
    assert close(damage[(6, "physical")], F(2, 9) * F(2, 3))
    assert close(damage[(5, "physical")], F(2, 9) * F(1, 3))
    assert close(damage[(0, None)], F(7, 9))


def test_two_dice_against_one() -> None:
    # Two dice: 0, 1, 2 hits with 4/9, 4/9, 1/9; one defense die: 0 or 1 hit, 2/3 and 1/3.
    target = one_target(2, 0, bare())
    # 1 against 0 (8/27) or 2 against 0 or 1 (1/9).
    assert close(target.hit, F(8, 27) + F(1, 9))
    net = {c.value: c.p for c in target.net_hits}
    assert close(net[1], F(8, 27) + F(1, 27)) and close(net[2], F(2, 27))
    # SR4's glitch: one 1 of two dice is half the pool: 1 - (5/6)^2 = 11/36; with no hit, a 1
    # beside a 2-4 (2 * 1/6 * 1/2) or two 1s (1/36): 7/36.
    assert close(target.glitch, F(11, 36)) and close(target.critical_glitch, F(7, 36))


def test_a_pool_of_ten_against_six() -> None:
    # Agility 5 + Pistols 5 against Reaction 6: more hits than the defender hits (001).
    def hits(n: int, k: int) -> Fraction:
        return comb(n, k) * F(1, 3) ** k * F(2, 3) ** (n - k)

    target = one_target(5, 5, bare(reaction=6))
    expected = sum(hits(10, a) * hits(6, d) for a in range(11) for d in range(7) if a > d)
    assert expected == F(28778273, 3**16)
    assert close(target.hit, expected)
    # Half or more of the 10 dice 1s.
    glitch = sum(comb(10, o) * F(1, 6) ** o * F(5, 6) ** (10 - o) for o in range(5, 11))
    assert close(target.glitch, glitch)


def test_an_exploding_die_for_edge() -> None:
    # Agility 1 + skill 0, wounds -1, Edge 1: one die whose six is rolled again (SR4 core,
    # Edge). 1-4 no hit (4/6); 5, or a 6 then 1-4, one hit (1/6 + 1/6 * 4/6 = 10/36); two or
    # more the rest (2/36). Against one defense die (no hit 2/3, one hit 1/3): a hit is one or
    # more against none, or two or more against one.
    body = make.attack(
        attacker=make.attacker(agility=1, skill=0, edge=1, wound_modifier=-1),
        edge="extra_dice",
        targets=[make.target(defender=bare(reaction=1))],
    )
    answer = odds_of(body, SR4State())
    target = answer.targets[0]
    assert close(target.hit, (1 - F(4, 6)) * F(2, 3) + F(2, 36) * F(1, 3))
    # The glitch is judged on the die first rolled (its 1).
    assert close(target.glitch, F(1, 6))
    assert any("sixes explode" in note for note in answer.notes)


# --- the state, read as the attack reads it -----------------------------------------------------


def test_the_second_shot_of_the_phase_is_one_die_short() -> None:
    turn = TurnState(phase=3)
    state = after(make.attack(dice={"attack": MISS8}), turn=turn)
    second = odds_of(make.attack(), state, turn)
    fewer = odds_of(make.attack(attacker=make.attacker(agility=3)), SR4State(), turn)
    assert second.targets[0] == fewer.targets[0]
    assert second.targets[0].hit < odds_of(make.attack(), SR4State(), turn).targets[0].hit
    # A new phase starts afresh.
    assert odds_of(make.attack(), state, TurnState(phase=4)) == odds_of(
        make.attack(), SR4State(), turn
    )


def test_a_second_target_in_the_phase_takes_minus_2() -> None:
    # 001, "Multiple Targets": -2 for the second target, and -1 for the second SA shot: the
    # odds at goon-2 are those of a first shot with 3 dice fewer.
    turn = TurnState(phase=1)
    state = after(make.attack(dice={"attack": MISS8}), turn=turn)
    other = make.attack(targets=[make.target(id="goon-2")])
    fewer = make.attack(attacker=make.attacker(agility=1), targets=[make.target(id="goon-2")])
    assert odds_of(other, state, turn).targets[0] == odds_of(fewer, SR4State(), turn).targets[0]


def test_an_earlier_defense_and_full_defense_change_the_defense() -> None:
    hit = {"attack": [5, *miss(7)], "defense:goon-1": miss(3), "soak:goon-1": MISS8}
    defended = after(make.attack(dice=hit))
    one_less = make.attack(targets=[make.target(defender=make.defender(reaction=2))])
    assert odds_of(make.attack(), defended) == odds_of(one_less, SR4State())
    guarded = act({"actor": "goon-1", "action": "full_defense"}, SR4State())
    dodging = make.attack(targets=[make.target(defender=make.defender(reaction=5, dodge=0))])
    assert odds_of(make.attack(), guarded).targets[0] == odds_of(dodging, SR4State()).targets[0]


def test_aim_adds_a_die() -> None:
    aimed = act({"actor": "sam", "action": "take_aim"}, SR4State())
    more = make.attack(attacker=make.attacker(agility=5))
    assert odds_of(make.attack(), aimed).targets[0] == odds_of(more, SR4State()).targets[0]


# --- refusals, identical to resolve's -----------------------------------------------------------


def _refusals() -> list[tuple[str, dict[str, Any], SR4State, TurnState]]:
    full = after(make.attack(weapon=make.RIFLE, mode="BF", same_phase=True))
    full = after(make.attack(weapon=make.RIFLE, mode="BF", same_phase=True), full)
    return [
        (
            "phase full",
            make.attack(weapon=make.RIFLE, mode="BF", same_phase=True),
            full,
            TurnState(),
        ),
        (
            "out of range",
            make.attack(targets=[make.target(distance_m=500)]),
            SR4State(),
            TurnState(),
        ),
        (
            "no edge",
            make.attack(attacker=make.attacker(edge=0), edge="extra_dice"),
            SR4State(),
            TurnState(),
        ),
        (
            "defender without edge",
            make.attack(targets=[make.target(edge=True, defender=make.defender(edge=0))]),
            SR4State(),
            TurnState(),
        ),
        ("mode", make.attack(mode="BF"), SR4State(), TurnState()),
        (
            "suppressive at targets",
            {**suppressive(), "targets": [make.target()]},
            SR4State(),
            TurnState(),
        ),
        ("suppressive without a zone", {**suppressive(), "zone": None}, SR4State(), TurnState()),
        ("grenade without a position", throw(bystanders=[]), SR4State(), TurnState()),
        (
            "grenade at two",
            throw(targets=[make.target(id="a"), make.target(id="b")]),
            SR4State(),
            TurnState(),
        ),
        ("out of grenades", throw(weapon={**FRAGS, "ammo": 0}), SR4State(), TurnState()),
    ]


@pytest.mark.parametrize("case", _refusals(), ids=lambda c: c[0])
def test_refusals_are_resolves(case: tuple[str, dict[str, Any], SR4State, TurnState]) -> None:
    _, body, state, turn = case
    request = request_of(body)
    with pytest.raises(RuleViolation) as resolved:
        SR4.resolve_attack(request, state, turn, Dice(1))
    with pytest.raises(RuleViolation) as previewed:
        SR4.attack_odds(request, state, turn, 1, 4000)
    got, want = previewed.value, resolved.value
    assert (got.status, got.kind, got.path, str(got)) == (
        want.status,
        want.kind,
        want.path,
        str(want),
    )


@pytest.mark.parametrize("zone, actor_tested", [("zone-9", False), ("zone-1", True)])
def test_zone_test_refusals_are_resolves(zone: str, actor_tested: bool) -> None:
    state = _zoned()
    request = msgspec.convert({"actor": "goon-1", "defender": make.defender()}, SR4ZoneTestRequest)
    if actor_tested:
        state = SR4.resolve_zone_test(zone, request, state, TurnState(), Dice(1)).state
    with pytest.raises(RuleViolation) as resolved:
        SR4.resolve_zone_test(zone, request, state, TurnState(), Dice(1))
    with pytest.raises(RuleViolation) as previewed:
        SR4.zone_test_odds(zone, request, state, TurnState(), 1, 4000)
    got, want = previewed.value, resolved.value
    assert (got.status, got.kind, got.path) == (want.status, want.kind, want.path)
