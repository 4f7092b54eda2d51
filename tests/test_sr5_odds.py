"""sr5's odds previews (service/rules/sr5/odds.py) against its own resolution.

Statistical: each request, on the same state, is resolved with many seeds through the ruleset's
`resolve_attack` / `resolve_zone_test`, and every probability the odds report is held to the
observed frequencies (tests/odds_check.py). By hand: one die, two dice, Push the Limit past a
limit of 0 and a pool of 10 against 6, from the rules (the guide is
rules-sources/000_43afc0edeb7f6e19.txt; a die of 5 or 6 is a hit). State: the odds read recoil,
aims, earlier defenses, full defense and the zone tests already made, change nothing, and refuse
what the attack refuses, alike.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import msgspec
import pytest

from schemas.encounter import AdvanceRequest, TurnState
from schemas.odds import AttackOdds, TargetOdds, ZoneTestOdds
from schemas.sr5 import (
    SR5ActionRequest,
    SR5AttackRequest,
    SR5State,
    SR5TargetResult,
    SR5ZoneTestRequest,
    SR5ZoneTestResult,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from tests import sr5_requests as make
from tests.odds_check import SAMPLES, Observed, check_probability, check_target

SR5 = RULESETS["sr5"]
SEEDS = SAMPLES
F = Fraction
NO_DAMAGE = (0, None, None, None)

RIFLE = make.weapon(category="assault_rifle", modes=["SA", "BF", "FA"], ammo=60, rc=2)
SMG = make.weapon(category="submachine_gun", modes=["SA", "BF"], ammo=60, accuracy=4, rc=1)
MG = make.weapon(category="light_machine_gun", modes=["FA"], ammo=200, accuracy=5, damage=9)
SHOTGUN = make.weapon(category="shotgun_flechette", modes=["SA", "FA"], ammo=40, accuracy=4)
STRONG = make.attacker(agility=7, skill=8, strength=5, edge=4, willpower=4)


def request_of(body: dict[str, Any]) -> SR5AttackRequest:
    return msgspec.convert(body, SR5AttackRequest)


def acted(state: SR5State, actor: str, action: str, **fields: Any) -> SR5State:
    request = msgspec.convert({"actor": actor, "action": action, **fields}, SR5ActionRequest)
    after = SR5.resolve_action(request, state, TurnState(), Dice(0)).state
    assert isinstance(after, SR5State)
    return after


def shot(state: SR5State, body: dict[str, Any], seed: int = 3, phase: int = 0) -> SR5State:
    after = SR5.resolve_attack(request_of(body), state, TurnState(phase=phase), Dice(seed)).state
    assert isinstance(after, SR5State)
    return after


def observed(result: SR5TargetResult) -> Observed:
    damage = result.damage
    key = (
        (damage.boxes, damage.track, None, None)
        if damage is not None and damage.boxes > 0
        else NO_DAMAGE
    )
    return Observed(
        outcome=result.outcome,
        net=result.net_hits,
        damage=key,
        glitch=result.attack.glitch,
        critical_glitch=result.attack.critical_glitch,
    )


def attack_odds(
    body: dict[str, Any], state: SR5State | None = None, turn: TurnState | None = None
) -> AttackOdds:
    return SR5.attack_odds(request_of(body), state or SR5State(), turn or TurnState(), 1, 4000)


def check_attack(
    body: dict[str, Any], state: SR5State | None = None, seeds: int = SEEDS
) -> AttackOdds:
    """The odds of `body` on `state` against `seeds` resolutions of it on that same state."""
    state = state or SR5State()
    request, turn = request_of(body), TurnState()
    odds = SR5.attack_odds(request, state, turn, 1, 4000)
    gathered: dict[str, list[Observed]] = {t.target: [] for t in odds.targets}
    any_hit = 0
    for seed in range(seeds):
        result = SR5.resolve_attack(request, state, turn, Dice(seed)).result
        for target in result.targets:
            gathered[target.target].append(observed(target))
        any_hit += any(t.outcome == "hit" for t in result.targets)
    assert [t.target for t in odds.targets] == [t.id for t in request.targets]
    for target in odds.targets:
        check_target(target, gathered[target.target])
    check_probability("any hit", odds.any_hit, any_hit, seeds)
    assert odds.damage_mean == pytest.approx(sum(t.damage_mean for t in odds.targets))
    assert odds.method == "exact" and odds.sampling is None
    return odds


def by_outcome(target: TargetOdds) -> dict[str, float]:
    return {o.outcome: o.p for o in target.outcomes}


def damage_of(target: TargetOdds) -> dict[tuple[int, str | None], float]:
    return {(d.boxes, d.track): d.p for d in target.damage}


def close(a: float, b: Fraction | float) -> bool:
    return abs(a - float(b)) < 1e-12


# --- statistical: every branch of the attack ----------------------------------------------------


def recoil_state() -> SR5State:
    """Sam has fired a burst already: 3 rounds of progressive recoil stand (the guide)."""
    return shot(SR5State(), make.attack(mode="BF", weapon=SMG))


def aimed_state() -> SR5State:
    """Two aims for dice and one for accuracy (a wireless smartlink turns each into both)."""
    state = acted(SR5State(), "sam", "take_aim", aim_for="dice")
    state = acted(state, "sam", "take_aim", aim_for="dice")
    return acted(state, "sam", "take_aim", aim_for="accuracy")


def defended_state() -> SR5State:
    """goon-1 is in full defense (+ Willpower) and has defended twice since its last action;
    goon-2 is an acrobatic defender (+ gymnastics, its physical limit caps the defense)."""
    state = acted(SR5State(), "goon-1", "full_defense")
    state = shot(state, make.attack(attacker=make.attacker(id="x")), seed=1)
    state = shot(state, make.attack(attacker=make.attacker(id="y")), seed=2)
    return acted(state, "goon-2", "full_defense", full_defense="acrobatic_defender")


STATISTICAL: list[tuple[str, dict[str, Any], Any]] = [
    (
        "single shot, the limit binding",
        make.attack(mode="SS", weapon=make.weapon(modes=["SS"], accuracy=3)),
        None,
    ),
    ("semi-automatic, default", make.attack(), None),
    (
        "burst with progressive recoil from the state",
        make.attack(mode="BF", weapon=SMG),
        recoil_state,
    ),
    (
        "long burst, aims from the state, wireless smartlink",
        make.attack(mode="LB", weapon=SMG, smartlink="wireless_implant"),
        aimed_state,
    ),
    (
        "full auto (complex) from a heavy weapon",
        make.attack(
            mode="FA_complex", weapon=MG, attacker=STRONG, targets=[make.target(distance_m=30)]
        ),
        None,
    ),
    (
        "push the limit, one target",
        make.attack(attacker=STRONG, edge="push_the_limit", weapon=make.weapon(accuracy=3)),
        None,
    ),
    (
        "four-target full-auto split with push the limit",
        make.attack(
            mode="FA",
            weapon=RIFLE,
            attacker=STRONG,
            edge="push_the_limit",
            larger_shares=["goon-2", "goon-4"],
            targets=[
                make.target(id="goon-1", distance_m=20),
                make.target(id="goon-2", distance_m=60, cover="partial"),
                make.target(id="goon-3", distance_m=200, prone=True),
                make.target(id="goon-4", distance_m=30, defender=make.defender(armor=15)),
            ],
        ),
        None,
    ),
    (
        "two guns, each its own limit, ammunition and damage",
        make.attack(
            attacker=make.attacker(skill=6, agility=6),
            second_weapon=make.weapon(id="light", category="light_pistol", accuracy=2, damage=6),
            ammo="apds",
            second_ammo="hollow_point",
            ambidextrous=True,
            targets=[
                make.target(id="goon-1", distance_m=10),
                make.target(id="goon-2", distance_m=8, gun="second"),
            ],
        ),
        None,
    ),
    (
        "defense from the state: earlier defenses, full defense and its limit",
        make.attack(
            mode="BF",
            weapon=SMG,
            attacker=make.attacker(skill=6),
            targets=[
                make.target(id="goon-1"),
                make.target(
                    id="goon-2",
                    defender=make.defender(gymnastics=6, physical_limit=2, reaction=5),
                ),
            ],
        ),
        defended_state,
    ),
    (
        "stun or physical by the net hits (armor 9 against DV 5 + net)",
        make.attack(
            weapon=make.weapon(damage=5, ap=0, accuracy=8),
            attacker=make.attacker(skill=8, agility=6),
        ),
        None,
    ),
    (
        "stun ammunition, and every defense and attack modifier",
        make.attack(
            ammo="gel",
            running=True,
            through_camera=True,
            smartlink="wired",
            environment={"light": "dim", "wind": "moderate"},
            attacker=make.attacker(skill=8, agility=7, wound_modifier=-1),
            targets=[
                make.target(
                    distance_m=25,
                    cover="good",
                    running=True,
                    in_melee=True,
                    called_shot=True,
                    defender=make.defender(armor=4),
                )
            ],
        ),
        None,
    ),
    (
        "flechette shotgun, wide spread over two targets",
        make.attack(
            weapon=SHOTGUN,
            choke="wide",
            ammo="flechette",
            targets=[
                make.target(id="goon-1", distance_m=10),
                make.target(id="goon-2", distance_m=20),
            ],
        ),
        None,
    ),
    (
        "blind fire at a target behind full cover",
        make.attack(attacker=STRONG, targets=[make.target(cover="full", distance_m=15)]),
        None,
    ),
]


@pytest.mark.parametrize(
    ("body", "state"),
    [(body, state) for _, body, state in STATISTICAL],
    ids=[n for n, _, _ in STATISTICAL],
)
def test_the_odds_match_many_resolutions(body: dict[str, Any], state: Any) -> None:
    check_attack(body, state() if state is not None else None)


def test_the_four_target_split_gives_each_its_share_and_pushes_past_the_limit() -> None:
    body = STATISTICAL[6][1]
    odds = attack_odds(body)
    # 7 Agility + 8 skill + 4 Edge - (6 rounds - (1 + 2 + 2) compensation) recoil = 18 dice:
    # 4 each, 5 for goon-2 and goon-4 (the larger shares). goon-1, 20 m off (short range), has
    # the odds of a single pushed attack of 4 dice against Reaction 3 + Intuition 3 - 5 (FA).
    alone = make.attack(
        mode="FA",
        weapon=RIFLE,
        attacker={**STRONG, "agility": 1, "skill": 1, "wound_modifier": -1},
        edge="push_the_limit",
        targets=[make.target(id="goon-1", distance_m=20)],
    )
    (single,) = attack_odds(alone).targets
    split = odds.targets[0]
    assert (split.outcomes, split.net_hits, split.damage) == (
        single.outcomes,
        single.net_hits,
        single.damage,
    )
    assert (split.glitch, split.critical_glitch) == (single.glitch, single.critical_glitch)
    # goon-4's armor 15 exceeds DV 9 + net up to 5 net hits: stun, physical past them (3b).
    assert {track for (_, track) in damage_of(odds.targets[3])} == {None, "stun", "physical"}
    assert {track for (_, track) in damage_of(odds.targets[0])} == {None, "physical"}
    assert all(any("Push the Limit" in note for note in t.notes) for t in odds.targets)
    assert any("independent" in note for note in odds.notes)


def test_the_track_follows_the_net_hits() -> None:
    # DV 5 + net against armor 9: stun while the armor exceeds the DV (net 1 to 3), physical
    # from DV 9 on (the guide, 3b).
    odds = attack_odds(STATISTICAL[9][1])
    tracks = {track for (_, track) in damage_of(odds.targets[0])}
    assert tracks == {None, "stun", "physical"}


# --- statistical: suppressive fire and its zone tests --------------------------------------------

ZONE = {"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20}
BYSTANDERS = [{"id": "in-open", "position": {"x": 10, "y": 0}}]


def suppressive(**fields: Any) -> dict[str, Any]:
    base = {
        "mode": "suppressive",
        "weapon": MG,
        "targets": [],
        "zone": ZONE,
        "bystanders": BYSTANDERS,
    }
    return make.attack(**{**base, **fields})


def zoned(body: dict[str, Any], given: list[int], state: SR5State | None = None) -> SR5State:
    """A zone laid with given dice, so its hits (the tests' threshold) are known."""
    request = request_of({**body, "dice": {"suppression": given}})
    dice = Dice(0, request.dice)
    after = SR5.resolve_attack(request, state or SR5State(), TurnState(), dice).state
    assert isinstance(after, SR5State)
    return after


def zone_observed(result: SR5ZoneTestResult) -> Observed:
    if result.avoided is not None:
        return Observed(outcome="avoided")
    damage = result.damage
    key = (
        (damage.boxes, damage.track, None, None)
        if damage is not None and damage.boxes > 0
        else NO_DAMAGE
    )
    assert result.test is not None
    return Observed(
        outcome="hit" if result.hit else "miss",
        net=result.threshold - result.test.hits if result.hit else 0,
        damage=key,
        glitch=result.test.glitch,
        critical_glitch=result.test.critical_glitch,
    )


def check_zone_test(
    zone: str, body: dict[str, Any], state: SR5State, phase: int = 0
) -> ZoneTestOdds:
    request = msgspec.convert(body, SR5ZoneTestRequest)
    turn = TurnState(phase=phase)
    odds = SR5.zone_test_odds(zone, request, state, turn, 1, 4000)
    seen = []
    for seed in range(SEEDS):
        result = SR5.resolve_zone_test(zone, request, state, turn, Dice(seed)).result
        seen.append(zone_observed(result))
    check_target(odds.target, seen)
    assert (odds.zone, odds.actor, odds.method) == (zone, request.actor, "exact")
    return odds


def test_suppressive_fire_has_no_target_and_says_so() -> None:
    odds = attack_odds(suppressive())
    assert (odds.targets, odds.any_hit, odds.damage_mean) == ([], 0.0, 0.0)
    # 5 Agility + 5 skill [Accuracy 5]: the note gives the zone's hits and where to ask next.
    (note,) = odds.notes
    assert "10 dice [5]" in note and "zone test" in note


def test_a_zone_test_matches_many_resolutions() -> None:
    # 3 hits from the given dice: Reaction 3 + Edge 2 must reach 3 hits or take 9P, -1 AP,
    # resisted with Body 4 + armor 8.
    state = zoned(suppressive(), [5, 5, 6, 2, 2, 2, 2, 2, 2, 2])
    body = {"actor": "in-open", "defender": make.defender(), "edge": 2}
    odds = check_zone_test("zone-1", body, state)
    assert set(by_outcome(odds.target)) == {"hit", "miss"}


def test_a_flechette_zone_test_in_full_defense_after_another_test() -> None:
    # A wide choke (-5 to the tests inside), the actor's full defense (+ Willpower 3) from the
    # state, and one zone test already made this action phase (-1).
    shotgun = make.weapon(category="shotgun_flechette", modes=["FA"], ammo=40, accuracy=6)
    state = zoned(suppressive(weapon=shotgun, choke="wide"), [5, 5, 5, 5, 2, 2, 2, 2, 2, 2])
    other = suppressive(weapon=shotgun, attacker=make.attacker(id="other"))
    wide = acted(zoned(other, [5] + [2] * 9, state), "in-open", "full_defense")
    body = {"actor": "in-open", "defender": make.defender(reaction=5), "edge": 3}
    first = SR5.resolve_zone_test(
        "zone-2", msgspec.convert(body, SR5ZoneTestRequest), wide, TurnState(phase=4), Dice(0)
    ).state
    assert isinstance(first, SR5State)
    odds = check_zone_test("zone-1", body, first, phase=4)
    request = msgspec.convert(body, SR5ZoneTestRequest)
    fresh = SR5.zone_test_odds("zone-1", request, wide, TurnState(phase=4), 1, 4000)
    assert odds.target.hit > fresh.target.hit  # the earlier test's -1 die


def test_an_avoided_zone_test_is_certain() -> None:
    state = zoned(suppressive(), [5, 2, 2, 2, 2, 2, 2, 2, 2, 2])
    body = {"actor": "in-open", "defender": make.defender(), "avoid": "drop_prone"}
    odds = check_zone_test("zone-1", body, state)
    assert by_outcome(odds.target) == {"avoided": 1.0}
    assert (odds.target.hit, odds.target.glitch, odds.target.damage_mean) == (0.0, 0.0, 0.0)


# --- by hand -------------------------------------------------------------------------------------

# A target who can roll no defense: Reaction 1 + Intuition 1, -3 in melee (the guide), no armor,
# Body 1.
DEFENCELESS = make.target(
    distance_m=4, in_melee=True, defender=make.defender(reaction=1, intuition=1, body=1, armor=0)
)


def test_one_die() -> None:
    """Agility 1 + skill 1 - 1 wounds = one die against no defense dice; DV 3, AP 0."""
    body = make.attack(
        attacker=make.attacker(agility=1, skill=1, wound_modifier=-1),
        weapon=make.weapon(damage=3, ap=0),
        targets=[DEFENCELESS],
    )
    (target,) = attack_odds(body).targets
    # A 5 or 6 hits (1/3); against 0 defense hits that is a hit with 1 net hit.
    assert close(target.hit, F(1, 3)) and close(target.miss, F(2, 3)) and target.graze == 0
    assert {c.value: c.p for c in target.net_hits} == pytest.approx({0: 2 / 3, 1: 1 / 3})
    # DV 3 + 1 = 4 physical (no armor), soaked by Body 1's one die: 4 boxes (2/3) or 3 (1/3).
    damage = damage_of(target)
    assert close(damage[(0, None)], F(2, 3))
    assert close(damage[(4, "physical")], F(2, 9)) and close(damage[(3, "physical")], F(1, 9))
    assert close(target.damage_mean, F(4 * 2, 9) + F(3, 9))
    # One die showing 1 is more than half the pool: a glitch, with no hit a critical one.
    assert close(target.glitch, F(1, 6)) and close(target.critical_glitch, F(1, 6))


def test_two_dice_against_one() -> None:
    """Agility 1 + skill 1 = two dice; the defender's Reaction 1 + Intuition 1 - 1 for an
    earlier defense (README) = one die."""
    defender = make.defender(reaction=1, intuition=1, body=1, armor=0)
    body = make.attack(
        attacker=make.attacker(agility=1, skill=1),
        targets=[make.target(defender=defender)],
    )
    state = shot(SR5State(), make.attack(attacker=make.attacker(id="x", skill=9)), seed=1)
    assert state.actors["goon-1"].defenses == 1
    (target,) = attack_odds(body, state).targets
    # Attack: 0, 1, 2 hits with 4/9, 4/9, 1/9; defense: 0, 1 with 2/3, 1/3.
    # Hit: 1 against 0 (8/27), 2 against anything (3/27); graze: 1 against 1 (4/27).
    assert close(target.hit, F(11, 27)) and close(target.graze, F(4, 27))
    assert close(target.miss, F(12, 27))
    net = {c.value: c.p for c in target.net_hits}
    # 1 net: 1-0 (8/27) and 2-1 (1/27); 2 net: 2-0 (2/27); the rest 0.
    assert close(net[1], F(9, 27)) and close(net[2], F(2, 27)) and close(net[0], F(16, 27))
    # Both dice 1 (1/36) glitch, always without a hit.
    assert close(target.glitch, F(1, 36)) and close(target.critical_glitch, F(1, 36))


def test_a_wounded_defenders_odds_take_its_wounds_off_the_defense() -> None:
    """The defender's wound modifier lowers its defense in the odds as in the attack (the
    guide, "Character wounded"): Reaction 1 + Intuition 2 - 2 wounds = one die against
    Agility 1 + skill 1 = two, the numbers of `test_two_dice_against_one`."""
    defender = make.defender(reaction=1, intuition=2, body=1, armor=0, wound_modifier=-2)
    body = make.attack(
        attacker=make.attacker(agility=1, skill=1), targets=[make.target(defender=defender)]
    )
    (target,) = attack_odds(body).targets
    # Attack: 0, 1, 2 hits with 4/9, 4/9, 1/9; defense: 0, 1 with 2/3, 1/3. Hit 8/27 + 3/27.
    assert close(target.hit, F(11, 27)) and close(target.graze, F(4, 27))


def test_a_wounded_actors_zone_test_odds_take_its_wounds_off() -> None:
    """Reaction 3 + Edge 2 - 2 wounds = 3 dice against the zone's 3 hits: only three hits
    (1/27) keep the fire off, so it hits 26/27 of the time."""
    state = zoned(suppressive(), [5, 5, 6, 2, 2, 2, 2, 2, 2, 2])
    body = {"actor": "in-open", "defender": make.defender(wound_modifier=-2), "edge": 2}
    request = msgspec.convert(body, SR5ZoneTestRequest)
    odds = SR5.zone_test_odds("zone-1", request, state, TurnState(), 1, 4000)
    assert close(odds.target.hit, F(26, 27))


def test_push_the_limit_ignores_a_limit_of_nothing() -> None:
    """Accuracy 0: no hit ever counts (the guide: "capped by one's limit") unless Edge is
    spent; Push the Limit adds Edge 1 to Agility 1 + skill 1 - 2 wounds = one die, whose six
    explodes."""
    attacker = make.attacker(agility=1, skill=1, wound_modifier=-2, edge=1)
    body = make.attack(
        attacker=make.attacker(agility=1, skill=1, wound_modifier=-1),
        weapon=make.weapon(accuracy=0),
        targets=[DEFENCELESS],
    )
    (capped,) = attack_odds(body).targets
    assert by_outcome(capped) == {"miss": 1.0}
    assert any("limit of 0 cuts the hits in 33%" in note for note in capped.notes)
    pushed = {**body, "attacker": attacker, "edge": "push_the_limit"}
    (target,) = attack_odds(pushed).targets
    assert close(target.hit, F(1, 3))
    net = {c.value: c.p for c in target.net_hits}
    # A 5 (1/6), or a 6 then 1-4 (1/6 * 4/6): one hit; a 6 then a 5, or 6, 6, 1-4: two.
    assert close(net[1], F(1, 6) + F(4, 36))
    assert close(net[2], F(1, 36) + F(4, 216))
    assert close(net[0], F(2, 3))


def test_a_pool_of_ten_against_six() -> None:
    """The default attack with Accuracy 10 (no limit binds): Agility 5 + skill 5 = 10 dice
    against Reaction 3 + Intuition 3 = 6 (tests/test_sr5_http.py's worked pools)."""
    odds = attack_odds(make.attack(weapon=make.weapon(accuracy=10)))
    (target,) = odds.targets

    def binomial(n: int, k: int) -> Fraction:
        return comb(n, k) * F(1, 3) ** k * F(2, 3) ** (n - k)

    hit = sum(binomial(10, a) * binomial(6, d) for a in range(11) for d in range(7) if a > d)
    # A tie grazes, but only with hits: no hits is no attack (the guide, 3a).
    graze = sum(binomial(10, a) * binomial(6, a) for a in range(1, 7))
    assert hit == F(28778273, 3**16)
    assert close(target.hit, hit) and close(target.graze, graze)
    assert close(target.miss, 1 - hit - graze)
    net = {c.value: c.p for c in target.net_hits}
    for k in range(1, 11):
        expected = sum(binomial(10, d + k) * binomial(6, d) for d in range(7) if d + k <= 10)
        assert close(net[k], expected)
    # The glitch: 6 or more ones of 10; critical: and no 5 or 6 among the others.
    glitch = sum(comb(10, o) * F(1, 6) ** o * F(5, 6) ** (10 - o) for o in range(6, 11))
    critical = sum(comb(10, o) * F(1, 6) ** o * F(3, 6) ** (10 - o) for o in range(6, 11))
    assert close(target.glitch, glitch) and close(target.critical_glitch, critical)
    assert close(odds.any_hit, hit)
    # Damage: DV 8 + net, armor 9 - 1 = 8: physical (8 never exceeds 8 + net); Body 4 + 8
    # armor = 12 soak dice take a box each.
    soak = [binomial(12, s) for s in range(13)]
    boxes: dict[int, Fraction] = {}
    for k in range(1, 11):
        pk = sum(binomial(10, d + k) * binomial(6, d) for d in range(7) if d + k <= 10)
        for s, ps in enumerate(soak):
            b = max(0, 8 + k - s)
            boxes[b] = boxes.get(b, F(0)) + pk * ps
    boxes[0] = boxes.get(0, F(0)) + 1 - hit
    damage = damage_of(target)
    assert damage.keys() == {(b, "physical" if b else None) for b in boxes}
    for b, p in boxes.items():
        assert close(damage[(b, "physical" if b else None)], p)


# --- state ---------------------------------------------------------------------------------------


def test_the_odds_read_recoil_aims_and_defenses_and_change_nothing() -> None:
    body = make.attack(mode="BF", weapon=SMG)
    fresh = attack_odds(body).targets[0]
    # Recoil: a burst fired before leaves 3 rounds standing (the guide: progressive).
    assert attack_odds(body, recoil_state()).targets[0].hit < fresh.hit
    # Aims: +2 dice, +1 accuracy.
    assert attack_odds(body, aimed_state()).targets[0].hit > fresh.hit
    # The defender's earlier defense and full defense.
    again = shot(SR5State(), make.attack(attacker=make.attacker(id="x")))
    assert attack_odds(body, again).targets[0].hit > fresh.hit  # -1 die to its defense
    full = acted(SR5State(), "goon-1", "full_defense")
    assert attack_odds(body, full).targets[0].hit < fresh.hit  # + Willpower 3
    # Its own action phase clears the earlier defenses: the odds are the fresh ones again.
    cleared, _ = SR5.on_advance(
        AdvanceRequest(to="action_phase", actor="goon-1"), again, TurnState()
    )
    assert isinstance(cleared, SR5State)
    assert attack_odds(body, cleared).targets[0] == fresh
    # Nothing changes: the state is the same object, equal to what it was.
    state = aimed_state()
    before = msgspec.json.encode(state)
    attack_odds(body, state)
    assert msgspec.json.encode(state) == before


def test_the_odds_equal_those_of_the_modifiers_the_state_stands_for() -> None:
    """Two aims for dice are two more dice: the same odds as two more Agility."""
    state = acted(
        acted(SR5State(), "sam", "take_aim", aim_for="dice"), "sam", "take_aim", aim_for="dice"
    )
    aimed = attack_odds(make.attack(), state).targets[0]
    stronger = attack_odds(make.attack(attacker=make.attacker(agility=7))).targets[0]
    assert aimed.outcomes == stronger.outcomes and aimed.damage == stronger.damage


def refusal(call: Any) -> tuple[int, str, str | None, str]:
    with pytest.raises(RuleViolation) as raised:
        call()
    error = raised.value
    return error.status, error.kind, error.path, str(error)


def both_refuse(body: dict[str, Any], state: SR5State | None = None, phase: int = 0) -> str:
    state, turn, request = state or SR5State(), TurnState(phase=phase), request_of(body)
    resolved = refusal(lambda: SR5.resolve_attack(request, state, turn, Dice(0)))
    previewed = refusal(lambda: SR5.attack_odds(request, state, turn, 1, 4000))
    assert previewed == resolved
    return resolved[1]


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (make.attack(edge="push_the_limit"), "no-edge"),
        (make.attack(mode="BF"), "mode-not-available"),
        (make.attack(weapon=make.weapon(ammo=0)), "out-of-ammo"),
        (make.attack(targets=[make.target(distance_m=70)]), "out-of-range"),
        (
            make.attack(
                mode="BF",
                weapon=SMG,
                targets=[make.target(id=f"g{i}") for i in range(3)],
            ),
            "too-many-targets",
        ),
        (
            make.attack(
                mode="BF",
                weapon=SMG,
                attacker=make.attacker(skill=4),
                larger_shares=["g0", "g1"],
                targets=[make.target(id="g0"), make.target(id="g1")],
            ),
            "uneven-split",
        ),
        (suppressive(targets=[make.target()]), "rule-violation"),
    ],
)
def test_the_odds_refuse_what_the_attack_refuses(body: dict[str, Any], kind: str) -> None:
    assert both_refuse(body) == kind


def test_refusals_read_from_the_state() -> None:
    # One attack action per action phase.
    state = shot(SR5State(), make.attack(), phase=3)
    assert both_refuse(make.attack(), state, phase=3) == "already-attacked"
    # A full defense by a quality needs the value it adds.
    agile = acted(SR5State(), "goon-1", "full_defense", full_defense="agile_defender")
    assert both_refuse(make.attack(), agile) == "missing-defender-value"


def zone_refusal(zone: str, body: dict[str, Any], state: SR5State, phase: int = 0) -> str:
    request, turn = msgspec.convert(body, SR5ZoneTestRequest), TurnState(phase=phase)
    resolved = refusal(lambda: SR5.resolve_zone_test(zone, request, state, turn, Dice(0)))
    previewed = refusal(lambda: SR5.zone_test_odds(zone, request, state, turn, 1, 4000))
    assert previewed == resolved
    return resolved[1]


def test_the_zone_test_odds_refuse_what_the_zone_test_refuses() -> None:
    state = zoned(suppressive(zone={**ZONE, "enhanced": True}), [5] + [2] * 9)
    body = {"actor": "in-open", "defender": make.defender()}
    assert zone_refusal("zone-9", body, state) == "zone-not-found"
    assert zone_refusal("zone-1", {**body, "avoid": "drop_prone"}, state) == "rule-violation"
    assert zone_refusal("zone-1", {**body, "avoid": "lucky_cover"}, state) == "no-edge"
    request = msgspec.convert(body, SR5ZoneTestRequest)
    tested = SR5.resolve_zone_test("zone-1", request, state, TurnState(phase=2), Dice(0)).state
    assert isinstance(tested, SR5State)
    assert zone_refusal("zone-1", body, tested, phase=2) == "already-tested"
