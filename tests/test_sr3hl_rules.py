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

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import TurnState
from schemas.sr3hl import (
    HLActorState,
    HLAttackRequest,
    HLAttackResult,
    HLLocationHit,
    HLState,
    HLTargetResult,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from service.rules.ruleset import Resolution
from tests import sr3hl_requests as make

HL = RULESETS["sr3-hardlife"]
NO_ARMOR = make.defender(armor=[])


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
    return resolution


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
    # 1 = 6; he took S, so Table 5 needs 3 (the example's "threshold of 2" is the slip the lead
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
        target=make.target(id="pete", movement="walking", defender=NO_ARMOR, **fields),
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
        target=make.target(defender=NO_ARMOR),
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
    assert resolution.state.actors["goon"].pool_left == 3  # type: ignore[attr-defined]


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
        target=make.target(defender=NO_ARMOR),
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
        target=make.target(defender=NO_ARMOR),
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


# --- Table 5: the recovery roll ----------------------------------------------------------------------


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


# --- Table 6: every location's bonus successes and damage shift ------------------------------------

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
    assert wounds[location].modifier == TABLE_6[location][0]  # type: ignore[index]
    assert wounds["trauma"].modifier == TABLE_6[location][1]
    assert wounds[location].level == own  # type: ignore[index]
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
