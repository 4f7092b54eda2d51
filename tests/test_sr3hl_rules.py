"""Hard Life (`sr3-hardlife`) shots through `resolve_attack` with given dice: every table row
and rule of the shot on its own terms, and 004's worked examples with the document's dice.

"004" is rules-sources/004_afd6299c3d537f5c.txt, "README" rules-sources/README.md ("Shadowrun 3
(`sr3`) and Hard Life"), "002" the SR3 base. The expected numbers are typed from those sources
and worked by hand in the comments, never read from service/rules/sr3hl/tables.py, so a wrong
table fails. The builders (tests/sr3hl_requests.py): Carter, skill 6, no pools; a 9M heavy
pistol (SA); the goon 4 m away standing still, Body 4, Willpower 4, an armoured jacket (004
Table 7: torso and vitals 6/4, arms 3/1). The shot's target number is 002's short range 4 and
SR3's stationary target -1: 3.

Dice a test does not give are rolled by the server from the seed (the rules under test never
depend on them); where 004's examples leave dice out, the test chooses them and says so.
"""

from __future__ import annotations

from typing import Any, cast

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import TurnState
from schemas.initiative import Initiative, InitiativeEntry
from schemas.sr3hl import (
    HLActorState,
    HLAttackRequest,
    HLAttackResult,
    HLLocationHit,
    HLMonitor,
    HLState,
    HLTargetResult,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from service.rules.ruleset import Resolution
from service.rules.sr3hl import suppression
from tests import sr3hl_requests as make

HL = RULESETS["sr3-hardlife"]


def no_armor() -> dict[str, Any]:
    """A goon without armour (a new dict each time: tests change what they are given)."""
    return make.defender(armor=[])


def hits(k: int, dice: int = 6) -> list[int]:
    """`dice` attack dice with exactly k successes at any target number from 2 to 5: k fives,
    the rest ones (k = 0: all ones, the Rule of One, no success either)."""
    return [5] * k + [1] * (dice - k)


def run(
    body: dict[str, Any], state: HLState | None = None, turn: TurnState | None = None
) -> Resolution[HLAttackResult]:
    request = msgspec.convert(body, HLAttackRequest)
    dice = Dice(11, request.dice)
    resolution = HL.resolve_attack(request, state or HLState(), turn or TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, HLAttackResult)
    assert isinstance(resolution.state, HLState)
    # Whatever the attack wrote must read back within the schema's bounds.
    msgspec.json.decode(msgspec.json.encode(resolution.state), type=HLState)
    return cast("Resolution[HLAttackResult]", resolution)


def state_of(resolution: Resolution[HLAttackResult]) -> HLState:
    assert isinstance(resolution.state, HLState)
    return resolution.state


def resolve(
    body: dict[str, Any], state: HLState | None = None, turn: TurnState | None = None
) -> tuple[HLTargetResult, HLState]:
    resolution = run(body, state, turn)
    assert resolution.result.target is not None
    assert isinstance(resolution.state, HLState)
    return resolution.result.target, resolution.state


def refused(body: dict[str, Any], state: HLState | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        run(body, state)
    return caught.value


def only_hit(target: HLTargetResult) -> HLLocationHit:
    assert len(target.hits) == 1
    return target.hits[0]


def monitor(state: HLState, actor: str, name: str) -> tuple[int, int]:
    m = state.actors[actor].monitors.get(name)  # type: ignore[call-overload]
    return (m.physical, m.stun) if m is not None else (0, 0)


# --- 004's worked examples ----------------------------------------------------------------------


def carter_at_the_goon(**dice: list[int]) -> dict[str, Any]:
    """004, "Damage Test": Carter's Heckler & Koch .45 (9M) at the security goon in an armoured
    jacket. The document gives 7 attack successes, 2 dodge successes, the armour's 3 and the
    ten damage dice; the rest are chosen here: skill 7 all sixes (7 successes at 3), a dodge
    of 3 Combat Pool dice 5, 5, 1 (2 successes at 4), armour 3, 3, 3, 1, 1, 1 (3 at 3)."""
    rolled = {
        "attack": [6] * 7,
        "dodge:goon": [5, 5, 1],
        "armor:goon": [3, 3, 3, 1, 1, 1],
        "damage:goon": [1, 1, 2, 3, 4, 4, 4, 5, 5, 6],
        **dice,
    }
    return make.attack(
        attacker=make.attacker(skill=7),
        target=make.target(defender=make.defender(combat_pool=5), dodge={"combat_pool": 3}),
        dice=rolled,
    )


def test_carter_shoots_the_goon_a_serious_wound_to_the_torso() -> None:
    target, state = resolve(carter_at_the_goon())
    # 7 successes less the dodge's 2: 5 net, no scatter (Table 1: 4+), the torso.
    assert (target.attack_successes, target.dodge_successes, target.net_successes) == (7, 2, 5)
    assert target.rounds[0].scatter is not None and target.rounds[0].scatter.hexes == 0
    hit = only_hit(target)
    assert hit.location == "torso"
    # Jacket 6 dice against 9 - 6 = 3: 3 successes, Table 2's soak for M is 4: not stopped.
    test = hit.armor[0]
    assert (test.test.dice, test.test.target_number, test.test.successes) == (6, 3, 3)
    assert (test.soak, test.stopped) == (4, False)
    # 9 + 1 (Table 3, 5 net) = 10 dice: 6 at 4+, -2 ones, +1 six = 5; less 3 armour: 2 net,
    # one stage: M -> S.
    damage = hit.damage[0]
    assert (damage.dice, damage.successes, damage.ones, damage.sixes) == (10, 6, 2, 1)
    assert (damage.armor_successes, damage.net, damage.level) == (3, 2, "S")
    # S is 6 boxes on the torso (Table 6: no bonus) and on trauma (no shift).
    assert monitor(state, "goon", "torso")[0] == 6
    assert monitor(state, "goon", "trauma")[0] == 6


def test_the_goons_stun_and_knock_back_and_his_failed_recovery_roll() -> None:
    # The Body roll and the recovery roll are chosen here: Body 4 dice 2, 2, 1, 1 (2 successes
    # at 2) and Willpower 4 dice 6, 2, 2, 2 (1 success at 6).
    resolution = run(
        carter_at_the_goon(**{"stun:goon": [2, 2, 1, 1], "recovery:goon": [6, 2, 2, 2]})
    )
    target = resolution.result.target
    assert target is not None
    assert isinstance(resolution.state, HLState)
    stun = only_hit(target).stun
    assert stun is not None
    # 004: Body against half of 9 (4) less the jacket's impact 4 at the torso: 0, so 2.
    assert (stun.power, stun.resist.target_number, stun.resist.successes) == (4, 2, 2)
    # README: the stun has the weapon's base level M, down one per two successes: L (the
    # example's M stages from the wound's S, the slip README names); Table 4, row M, 2
    # successes: knocked back 3 m, as the example says.
    assert (stun.base_level, stun.level) == ("M", "L")
    assert (stun.knock_back, stun.metres) == ("knocked_back", 3)
    assert (target.knock_back, target.knock_back_m) == ("knocked_back", 3)
    # Recovery (README: Willpower, the rule; the example rolls Body): 2 + S physical 3 + L stun
    # 1 = 6; he took S, so Table 5 needs 3 (the example's "threshold of 2" is a slip, as the docs
    # names); 1 success fails either way.
    recovery = target.recovery
    assert recovery is not None
    assert (recovery.test.target_number, recovery.level, recovery.needed) == (6, "S", 3)
    assert (recovery.test.successes, recovery.passed) == (1, False)
    goon = resolution.state.actors["goon"]
    assert goon.recovery is not None and goon.recovery.level == "S"
    # No initiative run by the service: the state counts the lost phase.
    assert goon.actions_lost == 1
    assert resolution.turn is None
    assert any("goon loses its next action" in n for n in resolution.notes)


def ripley_shot(at: str | None, level: str, body_dice: list[int]) -> dict[str, Any]:
    """004, "Taking Damage": Ripley takes three shots, each staged to its own level by 0 net
    successes (chosen here: smartlink, 2 - 1 stationary, +4 called shot = 5; four fives of 6
    dice, no scatter; no armour; 9 damage dice of 2, no success). Her Body 4 rolls
    `body_dice` against 9 // 2 = 4 for the stun."""
    return make.attack(
        weapon=make.weapon(damage_level=level),
        sight="smartlink",
        called_shot=at,
        target=make.target(id="ripley", defender=make.defender(armor=[], willpower=5)),
        dice={
            "attack": hits(4),
            "damage:ripley": [2] * 9,
            "stun:ripley": body_dice,
        },
    )


def test_ripleys_three_wounds_on_her_monitors_and_her_consciousness_target_number() -> None:
    # Shot 1, right leg, M (net 0): the leg's monitor M (no bonus); trauma: 0 - 2 = -2, one
    # stage down: L (1 box). Body 6, 6, 6, 6: 4 successes take the M stun two levels down,
    # to nothing.
    target, state = resolve(ripley_shot("right_leg", "M", [6, 6, 6, 6]))
    assert only_hit(target).location == "right_leg"
    assert monitor(state, "ripley", "right_leg") == (3, 0)
    assert monitor(state, "ripley", "trauma") == (1, 0)
    # Shot 2, vitals, M: +2 successes, one stage up: S on the vitals (6); trauma M, 1 + 3 = 4.
    # (Each shot in a phase of its own: no recoil carries over.)
    target, state = resolve(ripley_shot("vitals", "M", [6, 6, 6, 6]), state, TurnState(phase=2))
    assert monitor(state, "ripley", "vitals") == (6, 0)
    assert monitor(state, "ripley", "trauma") == (4, 0)
    # Shot 3, torso, S (a 9S weapon; the aim point is the default, the torso): S on the torso
    # and on trauma: 4 + 6 = 10 boxes, deadly (README: the rule, not the example's 12). Body
    # 1, 1, 1, 1 (Rule of One): the S stun stays S, 6 boxes on the torso and on trauma.
    target, state = resolve(ripley_shot(None, "S", [1, 1, 1, 1]), state, TurnState(phase=3))
    assert only_hit(target).location == "torso"
    assert monitor(state, "ripley", "torso") == (6, 6)
    assert monitor(state, "ripley", "trauma") == (10, 6)
    # Deadly physical +4 and serious stun +3: her consciousness test is 3 + 4 + 3 = 10.
    ripley = state.actors["ripley"]
    assert ripley.condition.target_number_modifier == 7
    assert ripley.condition.deadly and not ripley.condition.dead
    assert 3 + ripley.condition.target_number_modifier == 10
    assert ripley.consciousness_due


def ingram(**fields: Any) -> dict[str, Any]:
    """Whisper's Ingram smartgun: an SMG with recoil compensation 2 (004)."""
    return make.smg(id="ingram", recoil_compensation=2, **fields)


def whisper(
    mode: str, dice: dict[str, list[int]], rounds: int | None = None, **fields: Any
) -> dict[str, Any]:
    """004, "Automatic fire": Whisper's target number is 4 (chosen: SMG short range 4, Pete
    walking, no other modifier). Pete wears no armour here (the document does not say)."""
    body = make.attack(
        attacker=make.attacker(id="whisper", skill=7),
        weapon=ingram(),
        mode=mode,
        target=make.target(
            **{"id": "pete", "movement": "walking", "defender": no_armor(), **fields}
        ),
        dice=dice,
    )
    if rounds is not None:
        body["rounds"] = rounds
    return body


def test_whispers_three_round_burst_all_at_the_base_target_number() -> None:
    # 3 rounds, 2 points of recoil, compensation 2: all three at 4; one 4 hits with all three
    # (each with that 1 success; Table 1: 3 hexes, directions chosen 1 up, 4 down, 1 up: the
    # torso centre up 3 is the head's top hex, down 3 the torso centre, up 3 the head again).
    target, _ = resolve(whisper("BF", {"attack": [4, 2, 2, 2, 2, 2, 2], "scatter:pete": [1, 4, 1]}))
    assert [r.target_number for r in target.rounds] == [4, 4, 4]
    assert [r.successes for r in target.rounds] == [1, 1, 1]
    assert [r.location for r in target.rounds] == ["head", "torso", "head"]
    assert all(r.scatter is not None and r.scatter.hexes == 3 for r in target.rounds)


def test_whispers_five_rounds_of_full_auto_all_hit() -> None:
    # Compensated rounds 1-3 at 4, the 4th at 5, the 5th at 6. Dice 4, 4, 4, 4, 5, 5, 6:
    # rounds 1-3 count the dice in [4, 5): four; the 4th those in [5, 6): two; the 5th the 6.
    # Round 4 scatters 2 (Table 1), chosen direction 1 (up): torso centre -> head; round 5
    # scatters 3 from there, chosen 4 (down): head -> torso.
    target, _ = resolve(
        whisper("FA", {"attack": [4, 4, 4, 4, 5, 5, 6], "scatter:pete": [1, 4]}, rounds=5)
    )
    assert [r.target_number for r in target.rounds] == [4, 4, 4, 5, 6]
    assert [r.successes for r in target.rounds] == [4, 4, 4, 2, 1]
    assert [r.outcome for r in target.rounds] == ["hit"] * 5
    hexes = [r.scatter.hexes if r.scatter else None for r in target.rounds]
    assert hexes == [0, 0, 0, 2, 3]


def test_pete_dodges_whispers_full_auto_and_the_dodge_takes_the_six() -> None:
    # Pete: 3 Combat Pool dice 5, 2, 2 against 4 + 1 (5 rounds, +1 per 3): one success. It
    # takes Whisper's highest die, the 6: round 5 is left with none, four rounds hit. The 4th
    # has 2 successes: it scatters 2 hexes (chosen direction 1: to the head); the first three
    # (4 successes) do not scatter.
    body = whisper(
        "FA",
        {"attack": [4, 4, 4, 4, 5, 5, 6], "dodge:pete": [5, 2, 2], "scatter:pete": [1]},
        rounds=5,
        dodge={"combat_pool": 3},
    )
    body["target"]["defender"]["combat_pool"] = 3
    target, _ = resolve(body)
    assert target.dodge is not None
    assert (target.dodge.target_number, target.dodge_successes) == (5, 1)
    assert [r.successes for r in target.rounds] == [4, 4, 4, 2, 0]
    assert [r.outcome for r in target.rounds] == ["hit", "hit", "hit", "hit", "dodged"]
    assert [r.location for r in target.rounds[:4]] == ["torso", "torso", "torso", "head"]
    assert [r.scatter.hexes for r in target.rounds[:4] if r.scatter] == [0, 0, 0, 2]


def test_carters_mp5_burst_at_the_vest_goon_penetrates_and_wounds_three_times() -> None:
    # 004: HK MP5-TX 6M, 3 rounds at the torso with 6 net successes each (chosen: recoil
    # compensation 2 so the three share the base tier, 4 (SMG short) - 1 (stationary) = 3;
    # six fives). The vest (Table 7: torso 4/3): 4 dice vs 6 - 4 = 2, chosen 2, 2, 2, 1: 3
    # successes < soak 4 (M): the rounds penetrate. 8 damage dice each (6 + 2 for 6+ net),
    # less 3 each; the dice are chosen for the document's nets 1, 0, 2:
    #   4,4,4,4,2,2,2,2: 4 - 3 = 1 (M); 4,4,4,2,2,2,2,2: 3 - 3 = 0 (M); 4,4,4,4,4,2,2,2: 2 (S).
    body = make.attack(
        weapon=make.smg(id="mp5", power=6, recoil_compensation=2),
        mode="BF",
        target=make.target(defender=make.defender(armor=[{"garment": "vest"}])),
        dice={
            "attack": [5] * 6,
            "armor:goon": [2, 2, 2, 1],
            "damage:goon": [
                *(4, 4, 4, 4, 2, 2, 2, 2),
                *(4, 4, 4, 2, 2, 2, 2, 2),
                *(4, 4, 4, 4, 4, 2, 2, 2),
            ],
        },
    )
    target, state = resolve(body)
    assert [r.successes for r in target.rounds] == [6, 6, 6]
    hit = only_hit(target)
    assert hit.location == "torso" and hit.rounds == [1, 2, 3]
    (test,) = hit.armor
    assert (test.test.dice, test.test.target_number, test.test.successes) == (4, 2, 3)
    assert not test.stopped
    assert [d.dice for d in hit.damage] == [8, 8, 8]
    assert [d.net for d in hit.damage] == [1, 0, 2]
    assert [d.level for d in hit.damage] == ["M", "M", "S"]
    # The torso's monitor: M 3 + M 3 + S 6 = 12 boxes.
    assert monitor(state, "goon", "torso")[0] == 12
    # Degradation (004): after round 1 (M, penetrated) 1 + 1 = 2: the vest 4 -> 2; after
    # round 2, 2 more: 0; round 3 finds nothing left. 4 points taken, 0 left.
    assert (test.degraded, test.rating_after) == (4, 0)
    goon = state.actors["goon"]
    assert goon.armor is not None and goon.armor[0].wear == {"torso": 4}


# --- Table 1: scatter by net successes; the aim point; off the body ------------------------------


def called_at(location: str, k: int, **fields: Any) -> dict[str, Any]:
    """A called shot (SR3 +4) at `location` with k net successes: smartlink 2 - 1 stationary
    + 4 = 5, so k fives of 6 dice are k successes. No armour."""
    body = make.attack(
        sight="smartlink",
        called_shot=location,
        target=make.target(defender=no_armor()),
        **fields,
    )
    body.setdefault("dice", {})["attack"] = hits(k)
    return body


@pytest.mark.parametrize(
    ("net", "hexes", "landed"),
    [
        # From the right thigh's aim point (column 1, row 4), direction 4 (down): 004 Table 1
        # 1 -> 3 hexes (row 7, the right leg), 2 -> 2 (row 6, the leg), 3 -> 1 (row 5, the
        # thigh), 4+ none; README: a tie (0 net) scatters 4 (row 8, the right foot).
        (0, 4, "right_foot"),
        (1, 3, "right_leg"),
        (2, 2, "right_leg"),
        (3, 1, "right_thigh"),
        (4, 0, "right_thigh"),
        (5, 0, "right_thigh"),
        (6, 0, "right_thigh"),
    ],
)
def test_table_1_scatter_by_net_successes(net: int, hexes: int, landed: str) -> None:
    body = called_at("right_thigh", max(net, 2), dice={"scatter:goon": [4]} if hexes else {})
    if net == 0:
        # A tie: 2 attack successes and 2 dodge successes (5, 5 at 4).
        body["target"]["defender"]["combat_pool"] = 2
        body["target"]["dodge"] = {"combat_pool": 2}
        body["dice"]["dodge:goon"] = [5, 5]
    else:
        body["dice"]["attack"] = hits(net)
    target, _ = resolve(body)
    assert target.aim == "right_thigh"
    (shot,) = target.rounds
    assert shot.scatter is not None
    assert (shot.successes, shot.scatter.hexes, len(shot.scatter.path)) == (net, hexes, hexes)
    assert shot.scatter.direction == (4 if hexes else None)
    assert shot.location == landed


def test_the_default_aim_point_is_the_torso_and_up_is_direction_1() -> None:
    # 3 net successes from the torso's centre (column 2, row 3): 1 hex, direction 1 (up) is
    # column 2 row 2, the vitals; 2 net, 2 hexes up: row 1, the head.
    target, _ = resolve(make.attack(dice={"attack": hits(3), "scatter:goon": [1]}))
    assert (target.aim, target.rounds[0].location) == ("torso", "vitals")
    target, _ = resolve(make.attack(dice={"attack": hits(2), "scatter:goon": [1]}))
    assert target.rounds[0].location == "head"


def test_a_shot_that_scatters_off_the_body_misses() -> None:
    # 1 net success: 3 hexes, direction 4 (down) from the torso centre: rows 4, 5 (groin), 6,
    # and column 2 has no hex in row 6: off the body. Nothing more is rolled.
    target, _ = resolve(make.attack(dice={"attack": hits(1), "scatter:goon": [4]}))
    (shot,) = target.rounds
    assert (shot.outcome, shot.location, target.outcome) == ("off_body", None, "off_body")
    assert target.hits == [] and target.recovery is None


def test_a_called_shot_adds_four_and_aims_at_its_location() -> None:
    target, _ = resolve(called_at("head", 4))
    result = run(called_at("head", 4)).result
    assert result.attack is not None
    # SR3: smartlink short 2, stationary -1, called shot +4: 5.
    assert ("called shot", 4) in [(m.source, m.value) for m in result.attack.modifiers]
    assert result.attack.target_number == 5
    assert (target.aim, target.rounds[0].location) == ("head", "head")


# --- clean miss, miss ---------------------------------------------------------------------------


def test_a_dodge_with_more_successes_than_the_attack_is_a_clean_miss() -> None:
    # 2 attack successes, 3 dodge successes (5, 5, 5 at 4): dodged, nothing else rolled.
    body = make.attack(
        target=make.target(defender=make.defender(combat_pool=3), dodge={"combat_pool": 3}),
        dice={"attack": hits(2), "dodge:goon": [5, 5, 5]},
    )
    resolution = run(body)
    target = resolution.result.target
    assert target is not None
    assert (target.outcome, target.rounds[0].outcome, target.hits) == ("dodged", "dodged", [])
    assert [d.step for d in resolution.result.dice] == ["attack", "dodge:goon"]


def test_an_attack_without_successes_misses_and_no_dodge_is_rolled() -> None:
    body = make.attack(
        target=make.target(defender=make.defender(combat_pool=3), dodge={"combat_pool": 3}),
        dice={"attack": [2, 2, 2, 2, 2, 1]},
    )
    resolution = run(body)
    assert resolution.result.target is not None
    assert resolution.result.target.outcome == "miss"
    assert [d.step for d in resolution.result.dice] == ["attack"]
    # No dodge made: none of the goon's Combat Pool spent.
    assert state_of(resolution).actors["goon"].pool_left == 3


# --- Table 2: the soak number -------------------------------------------------------------------

PLATE = {"name": "plate", "covers": {"torso": {"ballistic": 10, "impact": 10}}}


@pytest.mark.parametrize(("level", "soak"), [("L", 2), ("M", 4), ("S", 6), ("D", 8)])
def test_table_2_armour_successes_at_the_soak_number_stop_the_shot(level: str, soak: int) -> None:
    # A custom plate of 10 on the torso: 10 dice against 12 - 10 = 2; twos succeed, ones not.
    for successes, stopped in ((soak - 1, False), (soak, True)):
        body = make.attack(
            weapon=make.weapon(power=12, damage_level=level),
            target=make.target(defender=make.defender(armor=[PLATE])),
            dice={"attack": hits(4), "armor:goon": [2] * successes + [1] * (10 - successes)},
        )
        target, _ = resolve(body)
        test = only_hit(target).armor[0]
        assert (test.test.dice, test.test.target_number) == (10, 2)
        assert (test.soak, test.stopped) == (soak, stopped)
        assert target.outcome == ("stopped" if stopped else "hit")
        assert only_hit(target).damage == [] if stopped else len(only_hit(target).damage) == 1


# --- Table 3: the damage test ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("net", "dice"),
    # 004 Table 3 on Power 9: 1 -> -3, 2 -> -2, 3 -> -1, 4 -> 0, 5 -> +1, 6+ -> +2; README:
    # 0 (a tie) -> -4.
    [(0, 5), (1, 6), (2, 7), (3, 8), (4, 9), (5, 10), (6, 11)],
)
def test_table_3_damage_dice_by_net_successes(net: int, dice: int) -> None:
    # Called at the right thigh; scattering rounds go down (direction 4) and stay on the leg
    # (Table 1 above). The damage dice are all 2: exactly `dice` of them must be rolled.
    body = called_at("right_thigh", max(net, 2))
    body["dice"] |= {"scatter:goon": [4], "damage:goon": [2] * dice}
    if net == 0:
        body["target"]["defender"]["combat_pool"] = 2
        body["target"]["dodge"] = {"combat_pool": 2}
        body["dice"]["dodge:goon"] = [5, 5]
    else:
        body["dice"]["attack"] = hits(net)
    if net >= 4:
        del body["dice"]["scatter:goon"]
    target, _ = resolve(body)
    damage = only_hit(target).damage[0]
    assert damage.dice == dice


def test_table_3_seven_net_successes_add_two_dice_as_six_do() -> None:
    body = make.attack(
        attacker=make.attacker(skill=7),
        target=make.target(defender=no_armor()),
        dice={"attack": hits(7, 7), "damage:goon": [2] * 11},
    )
    target, _ = resolve(body)
    assert only_hit(target).damage[0].dice == 9 + 2


@pytest.mark.parametrize(
    ("damage_dice", "net", "level"),
    [
        # 9 dice at 4 (no Rule of Six: a 6 is one die), a 1 takes one off, a 6 adds one; every
        # two net stage M once, every two below zero once down (004, "Damage Test").
        ([2] * 9, 0, "M"),
        ([4, 2, 2, 2, 2, 2, 2, 2, 2], 1, "M"),
        ([4, 4, 2, 2, 2, 2, 2, 2, 2], 2, "S"),
        ([6, 6, 2, 2, 2, 2, 2, 2, 2], 4, "D"),  # 2 at 4+, +2 for the sixes
        ([6, 6, 6, 6, 4, 4, 2, 2, 2], 10, "D"),  # 6 + 4 = 10: D, 3 stages past it
        ([1, 2, 2, 2, 2, 2, 2, 2, 2], -1, "M"),
        ([1, 1, 2, 2, 2, 2, 2, 2, 2], -2, "L"),
        ([4, 1, 1, 1, 2, 2, 2, 2, 2], -2, "L"),  # 1 - 3
        ([1, 1, 1, 1, 2, 2, 2, 2, 2], -4, None),  # two stages down from M: nothing
    ],
)
def test_damage_test_ones_and_sixes_and_staging(
    damage_dice: list[int], net: int, level: str | None
) -> None:
    body = make.attack(
        target=make.target(defender=no_armor()),
        dice={"attack": hits(4), "damage:goon": damage_dice},
    )
    target, state = resolve(body)
    damage = only_hit(target).damage[0]
    assert (damage.net, damage.level) == (net, level)
    if net == 10:
        assert damage.overflow == 3
    if level is None:
        # Staged below Light: no wound on any monitor.
        assert monitor(state, "goon", "torso")[0] == 0


# --- Table 4: stun and knock-back -----------------------------------------------------------------

KD, KB = "knocked_down", "knocked_back"
# 004 Table 4: row (the weapon's base level, README) -> Body successes 0..6+.
TABLE_4 = {
    "L": [(KD, 0), (KB, 3), (KB, 2), (KB, 1), ("none", 0), ("none", 0), ("none", 0)],
    "M": [(KD, 0), (KD, 0), (KB, 3), (KB, 2), (KB, 1), ("none", 0), ("none", 0)],
    "S": [(KD, 0), (KD, 0), (KD, 0), (KB, 3), (KB, 2), (KB, 1), ("none", 0)],
    "D": [(KD, 0), (KD, 0), (KD, 0), (KD, 0), (KB, 3), (KB, 2), (KB, 1)],
}
LEVELS = ["L", "M", "S", "D"]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("successes", range(7))
def test_table_4_knock_back_and_the_stun_level(level: str, successes: int) -> None:
    # Body 6, no armour, a Power 4 weapon: half is 2, against 2; k twos, the rest ones. The
    # stun has the base level, down one per two successes (004; README).
    body = make.attack(
        weapon=make.weapon(power=4, damage_level=level),
        target=make.target(defender=make.defender(body=6, armor=[])),
        dice={"attack": hits(4), "stun:goon": [2] * successes + [1] * (6 - successes)},
    )
    target, _ = resolve(body)
    stun = only_hit(target).stun
    assert stun is not None
    assert (stun.power, stun.resist.target_number, stun.resist.successes) == (2, 2, successes)
    assert (stun.knock_back, stun.metres) == TABLE_4[level][successes]
    index = LEVELS.index(level) - successes // 2
    assert stun.level == (LEVELS[index] if index >= 0 else None)
    assert (target.knock_back, target.knock_back_m) == TABLE_4[level][successes]


def test_the_stun_and_knock_back_happen_when_the_armour_stops_the_shot() -> None:
    # The plate stops it (10 successes at 2); Body still rolls: 12 // 2 = 6 - 10 impact: 2.
    body = make.attack(
        weapon=make.weapon(power=12),
        target=make.target(defender=make.defender(armor=[PLATE])),
        dice={"attack": hits(4), "armor:goon": [2] * 10, "stun:goon": [1, 1, 1, 1]},
    )
    target, state = resolve(body)
    hit = only_hit(target)
    assert hit.armor[0].stopped and hit.stun is not None
    # Rule of One, 0 successes: M stun (3 boxes on the torso and trauma), knocked down.
    assert (hit.stun.level, hit.stun.knock_back) == ("M", KD)
    assert monitor(state, "goon", "torso") == (0, 3)
    assert monitor(state, "goon", "trauma") == (0, 3)


def test_gel_rounds_skip_the_stun_and_knock_back() -> None:
    resolution = run(make.attack(weapon=make.weapon(ammo_kind="gel"), dice={"attack": hits(4)}))
    assert resolution.result.target is not None
    assert only_hit(resolution.result.target).stun is None
    assert "stun:goon" not in [d.step for d in resolution.result.dice]


def test_stun_weapons_are_resisted_by_body_at_power_less_impact_on_the_stun_track() -> None:
    # Carter's shot as a stun weapon: the damage test gives S (above). Body 4 dice against
    # 9 - 4 (the jacket's impact at the torso) = 5: 5, 5, 1, 1 -> 2 successes, S down one: M
    # stun, 3 boxes on the torso and on trauma; no physical damage, no knock-back roll.
    body = carter_at_the_goon(**{"stun:goon": [5, 5, 1, 1]})
    body["weapon"]["damage_type"] = "stun"
    target, state = resolve(body)
    hit = only_hit(target)
    assert hit.stun is None and hit.damage[0].level == "S"
    assert monitor(state, "goon", "torso") == (0, 3)
    assert monitor(state, "goon", "trauma") == (0, 3)
    assert target.knock_back == "none"


# --- Table 5: the recovery roll -------------------------------------------------------------------


@pytest.mark.parametrize(("level", "needed"), [("L", 1), ("M", 2), ("S", 3), ("D", 4)])
def test_table_5_successes_needed_for_the_weapons_level_when_the_armour_stops_it(
    level: str, needed: int
) -> None:
    # The plate stops the 12-Power shot; Body 6 dice of 6 (6 successes at 2) take the stun
    # three levels down: nothing below D, L from D. Willpower 5 against 2 (+1 for D's L stun):
    # fives succeed. Table 5: the weapon's base level (004: hit but not injured).
    for successes, passed in ((needed - 1, False), (needed, True)):
        body = make.attack(
            weapon=make.weapon(power=12, damage_level=level),
            target=make.target(defender=make.defender(body=6, willpower=5, armor=[PLATE])),
            dice={
                "attack": hits(4),
                "armor:goon": [2] * 10,
                "stun:goon": [6] * 6,
                "recovery:goon": [5] * successes + [1] * (5 - successes),
            },
        )
        target, state = resolve(body)
        recovery = target.recovery
        assert recovery is not None
        assert recovery.test.target_number == (3 if level == "D" else 2)
        assert (recovery.level, recovery.needed, recovery.passed) == (level, needed, passed)
        goon = state.actors["goon"]
        assert (goon.recovery is None) == passed
        assert goon.actions_lost == (0 if passed else 1)


def test_a_hit_target_without_willpower_is_a_422_naming_it() -> None:
    body = make.attack(dice={"attack": hits(4)})
    del body["target"]["defender"]["willpower"]
    problem = refused(body)
    assert (problem.path, problem.status) == ("$.target.defender.willpower", 422)


# --- Table 6: every location's bonus successes and damage shift -----------------------------------

# net successes 1 and -1 of an M hit (9 dice of 4 and 2: one success; or a 1 and 2s), on
# the location's own monitor staged by net + bonus, on trauma by net + shift (004 Table 6):
# stages are two successes each, toward zero (-1 is none, -2 one down, -3 one down, -5 two).
TABLE_6: dict[str, tuple[int, int]] = {
    "head": (4, 0),
    "vitals": (2, 0),
    "torso": (0, 0),
    "groin": (2, 0),
    "right_arm": (0, -2),
    "left_arm": (0, -2),
    "right_hand": (4, -4),
    "left_hand": (4, -4),
    "right_thigh": (0, -1),
    "left_thigh": (0, -1),
    "right_leg": (0, -2),
    "left_leg": (0, -2),
    "right_foot": (2, -4),
    "left_foot": (2, -4),
}
# (location, net) -> (its own monitor's level, trauma's level), worked from TABLE_6 by hand:
# net 1: head 5 -> D / 1 -> M; vitals 3 -> S / M; torso M / M; groin S / M; arm M / -1 -> M;
# hand D / -3 -> L; thigh M / 0 -> M; leg M / -1 -> M; foot S / -3 -> L.
# net -1: head 3 -> S / -1 -> M; vitals 1 -> M / M; torso M / M; groin M / M; arm M / -3 -> L;
# hand 3 -> S / -5 -> nothing; thigh M / -2 -> L; leg M / -3 -> L; foot 1 -> M / -5 -> nothing.
EXPECTED_6: dict[tuple[str, int], tuple[str, str | None]] = {}
for side in ("right", "left"):
    EXPECTED_6 |= {
        (f"{side}_arm", 1): ("M", "M"),
        (f"{side}_hand", 1): ("D", "L"),
        (f"{side}_thigh", 1): ("M", "M"),
        (f"{side}_leg", 1): ("M", "M"),
        (f"{side}_foot", 1): ("S", "L"),
        (f"{side}_arm", -1): ("M", "L"),
        (f"{side}_hand", -1): ("S", None),
        (f"{side}_thigh", -1): ("M", "L"),
        (f"{side}_leg", -1): ("M", "L"),
        (f"{side}_foot", -1): ("M", None),
    }
EXPECTED_6 |= {
    ("head", 1): ("D", "M"),
    ("vitals", 1): ("S", "M"),
    ("torso", 1): ("M", "M"),
    ("groin", 1): ("S", "M"),
    ("head", -1): ("S", "M"),
    ("vitals", -1): ("M", "M"),
    ("torso", -1): ("M", "M"),
    ("groin", -1): ("M", "M"),
}
BOXES = {None: 0, "L": 1, "M": 3, "S": 6, "D": 10}


@pytest.mark.parametrize(("location", "net"), sorted(EXPECTED_6))
def test_table_6_bonus_successes_and_damage_shift(location: str, net: int) -> None:
    damage = [4, 2, 2, 2, 2, 2, 2, 2, 2] if net == 1 else [1, 2, 2, 2, 2, 2, 2, 2, 2]
    body = called_at(location, 4)
    body["dice"]["damage:goon"] = damage
    target, state = resolve(body)
    hit = only_hit(target)
    assert hit.location == location and hit.damage[0].net == net
    own, trauma = EXPECTED_6[(location, net)]
    wounds = {w.monitor: w for w in hit.wounds if w.track == "physical"}
    assert wounds[location].modifier == TABLE_6[location][0]
    assert wounds["trauma"].modifier == TABLE_6[location][1]
    assert wounds[location].level == own
    assert wounds["trauma"].level == trauma
    assert monitor(state, "goon", location)[0] == BOXES[own]
    assert monitor(state, "goon", "trauma")[0] == BOXES[trauma]


def test_an_area_effect_writes_every_monitor_alike_and_meets_the_overall_armour() -> None:
    # A shotgun's shot (area effect): no scatter; the jacket's overall 5 ballistic (Table 7)
    # in dice against 9 - 5 = 4; damage 9 dice, 2 at 4+: net 2 - 0 armour successes = 2: S on
    # every one of the 14 locations and trauma, no bonus, no shift (004, "Taking Damage").
    body = make.attack(
        weapon=make.weapon(category="shotgun", area_effect=True),
        dice={
            "attack": hits(4),
            "armor:goon": [2, 2, 2, 2, 2],
            "damage:goon": [4, 4, 2, 2, 2, 2, 2, 2, 2],
        },
    )
    target, state = resolve(body)
    hit = only_hit(target)
    assert hit.area_effect
    assert (hit.armor[0].rating, hit.armor[0].test.target_number) == (5, 4)
    physical = [w for w in hit.wounds if w.track == "physical"]
    assert len(physical) == 15
    assert {w.level for w in physical} == {"S"} and {w.modifier for w in physical} == {0}
    for name in ["trauma", *TABLE_6]:
        assert monitor(state, "goon", name)[0] == 6
    # No one location wears down (choice).
    assert hit.armor[0].degraded == 0


# --- Table 7: armour per location, layered; the overall value -----------------------------------

# 004 Table 7, typed from the document: garment -> row -> (ballistic, impact); rows left out
# are "-". Rows: the locations of both sides (arms, thighs, legs, hands and feet).
TABLE_7: dict[str, dict[str, tuple[int, int]]] = {
    "clothing": {r: (3, 0) for r in ("torso", "vitals", "groin", "arms", "thighs", "legs")},
    "jacket": {"torso": (6, 4), "vitals": (6, 4), "arms": (3, 1)},
    "long_coat": {
        "torso": (5, 3),
        "vitals": (5, 3),
        "groin": (3, 0),
        "arms": (3, 1),
        "thighs": (4, 2),
        "legs": (4, 2),
    },
    "vest": {"torso": (4, 3), "vitals": (4, 3)},
    "flak_vest": {"torso": (6, 5), "vitals": (6, 5)},
    "leathers": {r: (0, 2) for r in ("torso", "vitals", "groin", "arms", "thighs", "legs")},
    "synth_leathers": {r: (0, 1) for r in ("torso", "vitals", "groin", "arms", "thighs", "legs")},
    "helmet": {"head": (5, 3)},
    "partial_suit": {
        "head": (5, 3),
        "torso": (7, 5),
        "vitals": (7, 5),
        "groin": (5, 3),
        "arms": (4, 2),
        "thighs": (5, 3),
        "legs": (4, 2),
        "hands_feet": (3, 1),
    },
    "full_suit": {
        "head": (5, 3),
        "torso": (8, 6),
        "vitals": (8, 6),
        "groin": (6, 4),
        "arms": (5, 3),
        "thighs": (6, 4),
        "legs": (5, 3),
        "hands_feet": (4, 2),
    },
    "form_fitting_1": {"torso": (4, 1)},
    "form_fitting_2": {r: (4, 1) for r in ("torso", "vitals", "groin", "thighs")},
    "form_fitting_3": {r: (4, 1) for r in ("torso", "vitals", "groin", "arms", "thighs", "legs")},
}
# 004 Table 7, "Overall" (the helmet's "+1": +1/+1 after layering, a **choice** in the docs).
OVERALL: dict[str, tuple[int, int]] = {
    "clothing": (3, 0),
    "jacket": (5, 3),
    "long_coat": (4, 2),
    "vest": (2, 1),
    "flak_vest": (4, 3),
    "leathers": (0, 2),
    "synth_leathers": (0, 1),
    "helmet": (1, 1),
    "partial_suit": (6, 4),
    "full_suit": (8, 6),
    "form_fitting_1": (2, 0),
    "form_fitting_2": (3, 1),
    "form_fitting_3": (4, 1),
}
ROW = {
    "head": "head",
    "torso": "torso",
    "vitals": "vitals",
    "groin": "groin",
    **{f"{s}_arm": "arms" for s in ("right", "left")},
    **{f"{s}_thigh": "thighs" for s in ("right", "left")},
    **{f"{s}_leg": "legs" for s in ("right", "left")},
    **{f"{s}_{x}": "hands_feet" for s in ("right", "left") for x in ("hand", "foot")},
}


def armour_test_at(location: str, pieces: list[dict[str, Any]], kind: str = "ballistic") -> Any:
    body = called_at(location, 4)
    body["target"]["defender"]["armor"] = pieces
    body["weapon"]["armor"] = kind
    target, _ = resolve(body)
    return only_hit(target).armor[0]


@pytest.mark.parametrize("garment", sorted(TABLE_7))
@pytest.mark.parametrize("location", sorted(ROW))
def test_table_7_every_garment_at_every_location(garment: str, location: str) -> None:
    # Not covered: 0 dice. Covered: the row's rating in dice, against 9 - rating (min 2).
    ballistic, impact = TABLE_7[garment].get(ROW[location], (0, 0))
    for kind, rating in (("ballistic", ballistic), ("impact", impact)):
        test = armour_test_at(location, [{"garment": garment}], kind)
        assert (test.rating, test.test.dice) == (rating, rating)
        assert test.test.target_number == max(2, 9 - rating)


def test_table_7_layering_at_a_location() -> None:
    # 002: the highest in full, each other half (rounded down). Jacket + vest at the torso:
    # 6 + 4 // 2 = 8 ballistic, 4 + 3 // 2 = 5 impact. Long coat, jacket and clothing at an
    # arm: 3 + 3 // 2 + 3 // 2 = 5 ballistic; 1 + 1 // 2 + 0 = 1 impact.
    worn = [{"garment": "jacket"}, {"garment": "vest"}]
    assert armour_test_at("torso", worn).rating == 8
    assert armour_test_at("torso", worn, "impact").rating == 5
    coats = [{"garment": "long_coat"}, {"garment": "jacket"}, {"garment": "clothing"}]
    assert armour_test_at("left_arm", coats).rating == 5
    assert armour_test_at("left_arm", coats, "impact").rating == 1


def test_a_custom_piece_covers_its_own_rows_and_overrides_a_garments() -> None:
    # A jacket whose arms are reinforced to 5/3; a custom bracer on the hands and feet 2/2.
    worn = [
        {"garment": "jacket", "covers": {"arms": {"ballistic": 5, "impact": 3}}},
        {"name": "bracers", "covers": {"hands_feet": {"ballistic": 2, "impact": 2}}},
    ]
    assert armour_test_at("right_arm", worn).rating == 5
    assert armour_test_at("torso", worn).rating == 6
    assert armour_test_at("left_hand", worn, "impact").rating == 2


def overall_rating(pieces: list[dict[str, Any]], kind: str) -> int:
    body = make.attack(
        weapon=make.weapon(category="shotgun", area_effect=True, armor=kind),
        target=make.target(defender=make.defender(armor=pieces)),
        dice={"attack": hits(4)},
    )
    target, _ = resolve(body)
    rating: int = only_hit(target).armor[0].rating
    return rating


@pytest.mark.parametrize("garment", sorted(OVERALL))
def test_table_7_overall_value_of_every_garment(garment: str) -> None:
    # Area effects meet the overall value (004, "Armour").
    ballistic, impact = OVERALL[garment]
    assert overall_rating([{"garment": garment}], "ballistic") == ballistic
    assert overall_rating([{"garment": garment}], "impact") == impact


def test_the_overall_value_layers_and_the_helmet_adds_one_after() -> None:
    # Jacket + vest: 5 + 2 // 2 = 6 ballistic, 3 + 1 // 2 = 3 impact; with a helmet: +1 each.
    worn = [{"garment": "jacket"}, {"garment": "vest"}]
    assert (overall_rating(worn, "ballistic"), overall_rating(worn, "impact")) == (6, 3)
    worn.append({"garment": "helmet"})
    assert (overall_rating(worn, "ballistic"), overall_rating(worn, "impact")) == (7, 4)


def test_the_combat_pool_pays_for_the_overall_armour() -> None:
    # SR3 p. 285 on the overall value (004): a full suit, 8/6 overall, on Quickness 3: 8
    # reaches 2 x 3 = 6, one die per point from there: 8 - 6 + 1 = 3 off a pool of 5: 2 left;
    # a dodge of 3 is a 409 saying so.
    defender = make.defender(quickness=3, combat_pool=5, armor=[{"garment": "full_suit"}])
    body = make.attack(
        target=make.target(defender=defender, dodge={"combat_pool": 3}),
        dice={"attack": hits(4)},
    )
    problem = refused(body)
    assert (problem.status, problem.kind, problem.path) == (
        409,
        "combat-pool-exhausted",
        "$.target.dodge.combat_pool",
    )
    assert "2 Combat Pool dice left" in problem.detail


# --- armour-piercing, dermal armour, bone lacing --------------------------------------------------


def test_armour_piercing_rounds_meet_half_the_rating_with_all_its_dice() -> None:
    # Jacket 6 at the torso: 6 dice against 9 - 6 // 2 = 6.
    body = make.attack(weapon=make.weapon(ammo_kind="armor_piercing"), dice={"attack": hits(4)})
    target, _ = resolve(body)
    test = only_hit(target).armor[0]
    assert (test.test.dice, test.test.target_number, test.armor_piercing) == (6, 6, True)


def test_dermal_armour_adds_dice_that_count_towards_the_soak() -> None:
    # Jacket 6 + dermal 2 = 8 dice against 9 - 6 = 3 (unchanged): 3, 3, 3 of the jacket's and
    # one of the dermal dice's: 4 successes, M's soak: stopped.
    body = make.attack(
        target=make.target(defender=make.defender(dermal_armor=2)),
        dice={"attack": hits(4), "armor:goon": [3, 3, 3, 1, 1, 1, 3, 1]},
    )
    target, _ = resolve(body)
    test = only_hit(target).armor[0]
    assert (test.test.dice, test.test.target_number, test.dermal_dice) == (8, 3, 2)
    assert (test.test.successes, test.stopped) == (4, True)


def test_bone_lacing_dice_only_take_off_damage_successes() -> None:
    # Carter's shot at the goon with bone lacing 3 ballistic: its own 3 dice against 9 - 3 = 6
    # (6, 6, 1: 2 successes). The jacket's 3 and lacing's 2 make 5, past M's soak of 4, yet
    # the shot is not stopped: lacing never soaks. Damage 5 less 3 + 2 = 0 net: M.
    body = carter_at_the_goon(**{"lacing:goon": [6, 6, 1]})
    body["target"]["defender"]["bone_lacing"] = {"ballistic": 3}
    target, _ = resolve(body)
    hit = only_hit(target)
    test = hit.armor[0]
    assert test.lacing is not None
    assert (test.lacing.dice, test.lacing.target_number, test.lacing.successes) == (3, 6, 2)
    assert not test.stopped
    assert (hit.damage[0].armor_successes, hit.damage[0].net, hit.damage[0].level) == (5, 0, "M")


# --- armour degradation ---------------------------------------------------------------------------


def worn_after(pieces: list[dict[str, Any]], armor_dice: list[int], damage_dice: list[int]) -> Any:
    body = make.attack(
        target=make.target(defender=make.defender(armor=pieces)),
        dice={"attack": hits(4), "armor:goon": armor_dice, "damage:goon": damage_dice},
    )
    target, state = resolve(body)
    return only_hit(target).armor[0], state.actors["goon"].armor


def test_degradation_takes_from_the_first_layer_then_alternates() -> None:
    # Jacket + vest at the torso: 8 dice against 9 - 8 = 1, so 2; one success, penetrating.
    # 9 damage dice, 3 at 4+, less 1: 2 net, S. 004: S 2 + 1 penetrated = 3 points: jacket,
    # vest, jacket.
    test, worn = worn_after(
        [{"garment": "jacket"}, {"garment": "vest"}],
        [2, 1, 1, 1, 1, 1, 1, 1],
        [4, 4, 4, 2, 2, 2, 2, 2, 2],
    )
    assert test.degraded == 3
    assert [p.wear for p in worn] == [{"torso": 2}, {"torso": 1}]
    # Left: jacket 6 - 2 = 4, vest 4 - 1 = 3: 4 + 3 // 2 = 5.
    assert test.rating_after == 5


def test_degradation_skips_a_layer_with_nothing_left_there() -> None:
    # The vest first but worn to nothing at the torso: all 3 points come off the jacket.
    test, worn = worn_after(
        [{"garment": "vest", "wear": {"torso": 4}}, {"garment": "jacket"}],
        [2, 1, 1, 1, 1, 1],
        [4, 4, 4, 2, 2, 2, 2, 2, 2],
    )
    assert [p.wear for p in worn] == [{"torso": 4}, {"torso": 3}]
    assert test.rating_after == 3


def test_a_stopped_shot_wears_the_armour_by_the_weapons_level() -> None:
    # Stopped (4 successes at 3 of the jacket's 6): M takes 1 point, no +1.
    test, worn = worn_after([{"garment": "jacket"}], [3, 3, 3, 3, 1, 1], [])
    assert (test.stopped, test.degraded) == (True, 1)
    assert worn[0].wear == {"torso": 1}


def test_a_light_hit_wears_nothing_when_stopped() -> None:
    # 004 names M, S and D only: a stopped L hit takes nothing (choice).
    body = make.attack(
        weapon=make.weapon(damage_level="L"),
        dice={"attack": hits(4), "armor:goon": [3, 3, 1, 1, 1, 1]},
    )
    target, _ = resolve(body)
    assert only_hit(target).armor[0].degraded == 0


def test_the_states_armour_wins_over_the_requests_after_the_first_hit() -> None:
    # After one S penetrating hit on a lone jacket (3 points at the torso: 6 -> 3), a request
    # carrying the fresh jacket again meets the worn one: 3 dice.
    _, state = resolve(
        make.attack(
            dice={
                "attack": hits(4),
                "armor:goon": [1, 1, 1, 1, 1, 2],
                "damage:goon": [4, 4, 4, 2, 2, 2, 2, 2, 2],
            }
        )
    )
    goon = state.actors["goon"]
    assert goon.armor is not None and goon.armor[0].wear == {"torso": 3}
    target, _ = resolve(make.attack(dice={"attack": hits(4)}), state, TurnState(phase=2))
    assert only_hit(target).armor[0].rating == 3


# --- Table 8: the dodge ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dodge", "weapon", "tn", "sources"),
    [
        ({}, {}, 4, []),
        ({}, {"category": "shotgun", "area_effect": True}, 6, ["area effect attack"]),
        ({"prone": True}, {}, 6, ["prone"]),
        # Into cover: -2, +1 per full 2 m (0 m: 2; 3 m: 3; 4 m: 4; 9 m: 6).
        ({"into_cover_m": 0}, {}, 2, ["dodge into cover 0 m away"]),
        ({"into_cover_m": 3}, {}, 3, ["dodge into cover 3 m away"]),
        ({"into_cover_m": 4}, {}, 4, ["dodge into cover 4 m away"]),
        ({"into_cover_m": 9}, {}, 6, ["dodge into cover 9 m away"]),
        # SR3 visibility, normal vision: full darkness 8 -> 4; minimal light 6 -> 3; partial
        # light 2 -> 1; heavy smoke 6 + partial light 2 = 8 -> 4.
        ({"visibility": {"light": "full_darkness"}}, {}, 8, None),
        ({"visibility": {"light": "minimal"}}, {}, 7, None),
        ({"visibility": {"light": "partial"}}, {}, 5, None),
        ({"visibility": {"light": "partial", "obscurant": "heavy_smoke"}}, {}, 8, None),
        # Thermographic (cyber) in full darkness: 4 -> 2.
        ({"visibility": {"light": "full_darkness", "vision": "thermographic_cyber"}}, {}, 6, None),
    ],
)
def test_table_8_dodge_modifiers(
    dodge: dict[str, Any], weapon: dict[str, Any], tn: int, sources: list[str] | None
) -> None:
    body = make.attack(
        weapon=make.weapon(**weapon),
        target=make.target(
            defender=make.defender(combat_pool=2), dodge={"combat_pool": 2, **dodge}
        ),
        dice={"attack": hits(4)},
    )
    target, _ = resolve(body)
    assert target.dodge is not None
    assert target.dodge.target_number == tn
    if sources is not None:
        assert [m.source for m in target.dodge.modifiers] == ["dodge", *sources]


@pytest.mark.parametrize(("rounds", "extra"), [(3, 1), (5, 1), (6, 2), (9, 3), (10, 3)])
def test_dodging_autofire_is_plus_one_per_three_rounds(rounds: int, extra: int) -> None:
    body = whisper("FA", {"attack": hits(4, 7)}, rounds=rounds, dodge={"combat_pool": 2})
    body["target"]["defender"]["combat_pool"] = 2
    target, _ = resolve(body)
    assert target.dodge is not None and target.dodge.target_number == 4 + extra


def test_the_dodge_pool_is_the_dodge_skill_spent_like_the_combat_pool() -> None:
    # Dodge skill 3: a Dodge Pool of 3. 1 Combat Pool die + 2 Dodge Pool dice: 3 dice; 1 and
    # 1 left. Asking 2 more Dodge Pool dice is a 409 saying 1 is left.
    defender = make.defender(combat_pool=2, dodge_skill=3)
    body = make.attack(
        target=make.target(defender=defender, dodge={"combat_pool": 1, "dodge_pool": 2}),
        dice={"attack": hits(4), "dodge:goon": [2, 2, 2]},
    )
    resolution = run(body)
    target = resolution.result.target
    assert target is not None and target.dodge is not None and target.dodge.dice == 3
    goon = state_of(resolution).actors["goon"]
    assert (goon.pool_left, goon.dodge_left) == (1, 1)
    spent = {(p.actor, p.pool): (p.spent, p.left) for p in resolution.result.combat_pool}
    assert spent[("goon", "combat")] == (1, 1) and spent[("goon", "dodge")] == (2, 1)
    body["target"]["dodge"] = {"dodge_pool": 2}
    problem = refused(body, state_of(resolution))
    assert (problem.status, problem.kind, problem.path) == (
        409,
        "dodge-pool-exhausted",
        "$.target.dodge.dodge_pool",
    )
    assert "1 Dodge Pool dice left" in problem.detail


def test_a_dodge_pool_without_a_dodge_skill_is_a_422() -> None:
    body = make.attack(target=make.target(dodge={"dodge_pool": 1}), dice={"attack": hits(4)})
    problem = refused(body)
    assert (problem.status, problem.path) == (422, "$.target.dodge.dodge_pool")


def test_the_attackers_combat_pool_is_spent_and_a_409_says_what_is_left() -> None:
    # Pool 4 from the request: 3 dice committed, 1 left; then asking 2 is a 409.
    body = make.attack(attacker=make.attacker(combat_pool=4), pool=3, dice={"attack": hits(4, 9)})
    resolution = run(body)
    assert resolution.result.attack is not None and resolution.result.attack.dice == 9
    carter = state_of(resolution).actors["carter"]
    assert carter.pool_left == 1
    body["pool"] = 2
    problem = refused(body, state_of(resolution))
    assert (problem.status, problem.kind, problem.path) == (409, "combat-pool-exhausted", "$.pool")


# --- automatic fire: round tiers, heavy weapons, groups of three ---------------------------------


def test_autofire_rounds_past_the_compensation_each_need_one_more() -> None:
    # An SMG without compensation, 4 rounds at Pete (walking: the base 4): 4, 5, 6, 7. Rolled
    # against 7, so the 6 is rolled again (1): 7. Dice 4, 5, 6+1, and twos: round 1 has the 4,
    # round 2 the 5, round 3 nothing in [6, 7): a miss, round 4 the 7. One success each:
    # 3 hexes (directions chosen 1, 4, 1: head, torso, head).
    body = whisper("FA", {"attack": [4, 5, 6, 2, 2, 2, 2, 1], "scatter:pete": [1, 4, 1]}, 4)
    body["weapon"]["recoil_compensation"] = 0
    resolution = run(body)
    target = resolution.result.target
    assert target is not None and resolution.result.attack is not None
    assert resolution.result.attack.target_number == 4
    assert [r.target_number for r in target.rounds] == [4, 5, 6, 7]
    assert [r.successes for r in target.rounds] == [1, 1, 0, 1]
    assert [r.outcome for r in target.rounds] == ["hit", "hit", "miss", "hit"]
    assert [r.location for r in target.rounds] == ["head", "torso", None, "head"]


def test_heavy_weapons_add_two_a_round() -> None:
    # A light machine gun (heavy, 004: +2), no compensation, 3 rounds: 4, 6, 8.
    body = whisper("FA", {"attack": hits(4, 7)}, 3)
    body["weapon"] |= {"category": "light_machine_gun", "recoil_compensation": 0}
    target, _ = resolve(body)
    assert [r.target_number for r in target.rounds] == [4, 6, 8]


def test_rounds_fired_earlier_in_the_phase_count_as_bullets_before() -> None:
    # Two bursts of the Ingram (compensation 2) in one phase: the first 4, 4, 4; the second's
    # bullets are the 4th to 6th: 4 + 1, + 2, + 3 (choice).
    _, state = resolve(whisper("BF", {"attack": hits(4, 7)}))
    target, _ = resolve(whisper("BF", {"attack": hits(4, 7)}), state)
    assert [r.target_number for r in target.rounds] == [5, 6, 7]
    # A new phase starts again.
    target, _ = resolve(whisper("BF", {"attack": hits(4, 7)}), state, TurnState(phase=5))
    assert [r.target_number for r in target.rounds] == [4, 4, 4]


def test_a_second_semi_automatic_shot_in_a_phase_is_plus_one() -> None:
    _, state = resolve(make.attack(dice={"attack": hits(4)}))
    result = run(make.attack(dice={"attack": hits(4)}), state).result
    assert result.attack is not None
    assert ("recoil", 1) in [(m.source, m.value) for m in result.attack.modifiers]


def test_rounds_at_one_location_meet_the_armour_in_threes_and_stopped_ones_make_one_stun_hit() -> (
    None
):
    # The Ingram with compensation 3: 4 rounds at the base 4, seven fives: 7 successes each,
    # no scatter, all on the torso. The plate (10/10): rounds 1-3 test together, 10 dice vs
    # 7 - 10 -> 2, all twos: stopped (M soaks at 4); each stopped M round wears 1: 3 points,
    # the plate 7 there. Round 4 alone: 7 dice vs 2, all ones: penetrates; damage 7 + 2 = 9
    # dice of 2: 0 net, M: 1 + 1 = 2 more points, 5 left.
    # Stun: the location that penetrating rounds reached rolls the stun and knock-back (3
    # against 10 impact -> 2; Body 2, 2, 1, 1: 2 successes, M down to L, Table 4 M: knocked
    # back 3 m); README: the 3 stopped rounds are one stun hit of 7 + 2 = 9 Power and M + 1 =
    # S (3 rounds of 7M: 9S), Body at 9 - 10 -> 2: 1, 1, 1, 1, none: S, Table 4 S: knocked
    # down. The worst: knocked down. Stun on the torso: L 1 + S 6 = 7 boxes.
    body = whisper(
        "FA",
        {
            "attack": [5] * 7,
            "armor:pete": [2] * 10 + [1] * 7,
            "damage:pete": [2] * 9,
            "stun:pete": [2, 2, 1, 1, 1, 1, 1, 1],
        },
        4,
        defender=make.defender(armor=[PLATE]),
    )
    body["weapon"]["recoil_compensation"] = 3
    target, state = resolve(body)
    hit = only_hit(target)
    first, second = hit.armor
    assert (first.rounds, first.test.dice, first.stopped, first.degraded) == (
        [1, 2, 3],
        10,
        True,
        3,
    )
    assert (second.rounds, second.test.dice, second.stopped, second.degraded) == ([4], 7, False, 2)
    assert second.rating_after == 5
    assert [d.round for d in hit.damage] == [4]
    assert hit.stun is not None and hit.stopped_stun is not None
    assert (hit.stun.level, hit.stun.knock_back, hit.stun.metres) == ("L", KB, 3)
    stopped = hit.stopped_stun
    assert (stopped.power, stopped.base_level, stopped.level, stopped.knock_back) == (
        9,
        "S",
        "S",
        KD,
    )
    assert (target.knock_back, target.knock_back_m) == (KD, 0)
    assert monitor(state, "pete", "torso") == (3, 7)


def test_a_fully_stopped_burst_rolls_no_separate_knock_back() -> None:
    # 3 rounds all stopped by the plate: only README's stun hit (one Body roll), no stun and
    # knock-back roll for penetrating rounds (none reached the torso).
    body = whisper(
        "BF",
        {"attack": [5] * 7, "armor:pete": [2] * 10, "stun:pete": [2, 2, 2, 2]},
        defender=make.defender(armor=[PLATE]),
    )
    target, _ = resolve(body)
    hit = only_hit(target)
    assert hit.stun is None and hit.stopped_stun is not None
    # 4 successes: S down two levels: L; Table 4 row S, 4: knocked back 2 m.
    assert (hit.stopped_stun.level, hit.stopped_stun.metres) == ("L", 2)
    assert target.outcome == "stopped"


# --- validation -----------------------------------------------------------------------------------


def test_an_attack_needs_a_target_or_suppression_not_both() -> None:
    body = make.attack()
    body["suppression"] = {
        "area": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}],
        "bullets_per_m2": 2,
    }
    problem = refused(body)
    assert (problem.status, problem.path) == (422, "$.suppression")
    del body["target"], body["suppression"]
    problem = refused(body)
    assert (problem.status, problem.path) == (422, "$.target")


def test_suppression_fire_goes_to_the_suppression_module(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[HLAttackRequest] = []

    def fire(request: HLAttackRequest, *_: Any) -> Any:
        seen.append(request)
        return "zone"

    monkeypatch.setattr(suppression, "fire", fire)
    body = make.attack()
    del body["target"]
    body["suppression"] = {
        "area": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}],
        "bullets_per_m2": 2,
    }
    request = msgspec.convert(body, HLAttackRequest)
    assert HL.resolve_attack(request, HLState(), TurnState(), Dice(1)) == "zone"  # type: ignore[comparison-overlap]
    assert seen == [request]
    assert HL.dice_steps(request) == {}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"mode": "FA"}, "$.mode"),
        ({"rounds": 4}, "$.rounds"),
        ({"weapon": make.weapon(ammo=0)}, "$.weapon.ammo"),
        ({"target": make.target(id="carter")}, "$.target.id"),
        ({"target": make.target(distance_m=61)}, "$.target.distance_m"),
        ({"pool": 7, "attacker": make.attacker(combat_pool=9)}, "$.pool"),
    ],
)
def test_bad_requests_are_422s_naming_the_field(change: dict[str, Any], path: str) -> None:
    problem = refused(make.attack(**change))
    assert (problem.status, problem.path) == (422, path)


def test_the_attackers_wounds_come_from_its_monitors_and_a_worse_limb_in_use() -> None:
    # Carter's torso at S (6 boxes): +3; his right arm at D (10) counts when he uses it: +4.
    carter = HLActorState(
        monitors={"torso": HLMonitor(physical=6), "right_arm": HLMonitor(physical=10)}
    )
    state = HLState(actors={"carter": carter})

    def injury(limbs: list[str]) -> int | None:
        result = run(
            make.attack(attacker=make.attacker(limbs=limbs), dice={"attack": hits(4)}), state
        ).result
        assert result.attack is not None
        return next(
            (m.value for m in result.attack.modifiers if m.source.startswith("injury")), None
        )

    assert injury([]) == 3
    assert injury(["right_hand", "right_arm"]) == 4


# --- invariants -----------------------------------------------------------------------------------

LOCATIONS = sorted(ROW)
GARMENTS = sorted(TABLE_7)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    shots=st.lists(
        st.tuples(
            st.sampled_from(["SA", "BF", "FA"]),
            st.integers(1, 10),
            st.integers(1, 20),
            st.sampled_from(LEVELS),
            st.sampled_from([None, *LOCATIONS]),
            st.sampled_from(["standard", "armor_piercing", "gel"]),
            st.booleans(),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    ),
    garments=st.lists(st.sampled_from(GARMENTS), max_size=4),
    dodge_dice=st.integers(0, 3),
)
def test_properties_monitors_and_pools_stay_in_bounds_and_the_state_reads_back(
    seed: int,
    shots: list[tuple[str, int, int, str, str | None, str, bool, bool]],
    garments: list[str],
    dodge_dice: int,
) -> None:
    state = HLState()
    for phase, (mode, rounds, power, level, called, ammo, area, stun) in enumerate(shots):
        body = make.attack(
            attacker=make.attacker(skill=8, combat_pool=6),
            pool=1,
            weapon=make.smg(
                power=power,
                damage_level=level,
                ammo_kind=ammo,
                area_effect=area,
                damage_type="stun" if stun else "physical",
            ),
            mode=mode,
            called_shot=called,
            target=make.target(
                defender=make.defender(
                    combat_pool=3, dodge_skill=3, armor=[{"garment": g} for g in garments]
                ),
                # A dodge on the first shot only: the pools are not refreshed here.
                dodge={"combat_pool": dodge_dice, "dodge_pool": dodge_dice} if phase == 0 else {},
            ),
            seed=seed,
        )
        if mode == "FA":
            body["rounds"] = rounds
        request = msgspec.convert(body, HLAttackRequest)
        turn = TurnState(phase=phase + 1, combat_turn=phase + 1)
        try:
            first = HL.resolve_attack(request, state, turn, Dice(seed + phase))
        except RuleViolation as problem:
            # Only the ammunition (a burst of more rounds than the clip) may refuse here.
            assert problem.path == "$.weapon.ammo"
            break
        again = HL.resolve_attack(request, state, turn, Dice(seed + phase))
        # The same dice give the same result.
        assert msgspec.json.encode(first.result) == msgspec.json.encode(again.result)
        assert isinstance(first.state, HLState)
        state = msgspec.json.decode(msgspec.json.encode(first.state), type=HLState)
        for actor in state.actors.values():
            assert actor.pool_left >= 0 and actor.dodge_left >= 0
            for m in actor.monitors.values():
                assert 0 <= m.physical <= 100 and 0 <= m.stun <= 10
            for piece in actor.armor or []:
                assert all(0 <= w <= 100 for w in piece.wear.values())
        assert isinstance(first.result, HLAttackResult) and first.result.target is not None
        for hit in first.result.target.hits:
            for damage in hit.damage:
                assert damage.dice >= 0


def test_a_failed_recovery_roll_with_the_services_initiative_passes_the_next_phase_by() -> None:
    # The goon (score 12: phases in passes 1 and 2, SR3's -10 a pass) fails his recovery roll
    # (the goon example's dice): the order marks his next phase lost, the state does not.
    turn = TurnState(
        initiative=Initiative(
            entries=[
                InitiativeEntry(actor="carter", score=15),
                InitiativeEntry(actor="goon", score=12),
            ],
            current="carter",
        )
    )
    resolution = run(
        carter_at_the_goon(**{"stun:goon": [2, 2, 1, 1], "recovery:goon": [6, 2, 2, 2]}), turn=turn
    )
    assert resolution.turn is not None and resolution.turn.initiative is not None
    lost = {e.actor: e.lost for e in resolution.turn.initiative.entries}
    assert lost == {"carter": 0, "goon": 1}
    assert state_of(resolution).actors["goon"].actions_lost == 0


def test_the_next_round_scatters_from_where_the_last_landed_even_off_the_body() -> None:
    # Two rounds of the Ingram with compensation 1 (both at 4), one success each (a 4 and
    # twos): 3 hexes each. Round 1, direction 4 (down) from the torso centre, axial (2, 2):
    # (2, 5), column 2 row 6, off the body; round 2 from there, direction 1 (up): (2, 2), the
    # torso (choice: the aim walks on from an off-body hex).
    body = whisper("FA", {"attack": [4, 2, 2, 2, 2, 2, 2], "scatter:pete": [4, 1]}, 2)
    body["weapon"]["recoil_compensation"] = 1
    target, _ = resolve(body)
    assert [r.outcome for r in target.rounds] == ["off_body", "hit"]
    assert [r.location for r in target.rounds] == [None, "torso"]
    second = target.rounds[1].scatter
    assert second is not None and (second.aim.q, second.aim.r) == (2, 5)


def test_stun_past_the_monitors_ten_boxes_overflows_into_its_physical_boxes() -> None:
    # README: boxes as SR3 counts them (L 1, M 3, S 6, D 10); SR3 p. 126: stun past the
    # track's 10 boxes overflows into physical (each monitor into its own, condition.py).
    from schemas.sr3hl import HLMonitor
    from service.rules.sr3hl import condition

    # 6 stun (S) + M 3 = 9: still on the track, nothing overflows.
    assert condition.added(HLMonitor(stun=6), "stun", "M") == HLMonitor(physical=0, stun=9)
    # 6 stun + S 6 = 12: the track holds 10, the 2 past it are physical (on top of 1 there).
    assert condition.added(HLMonitor(physical=1, stun=6), "stun", "S") == HLMonitor(
        physical=3, stun=10
    )
    # A full stun track: a D stun hit (10) goes to physical whole; physical stays within
    # what the state holds (MAX_BOXES 100): 95 + 10 -> 100.
    assert condition.added(HLMonitor(stun=10), "stun", "D") == HLMonitor(physical=10, stun=10)
    assert condition.added(HLMonitor(physical=95, stun=10), "stun", "D") == HLMonitor(
        physical=100, stun=10
    )
    assert condition.level_of(10) == "D" and condition.level_of(3) == "M"
