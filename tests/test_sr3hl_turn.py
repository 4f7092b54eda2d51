"""Hard Life's turn through the rules functions, with given dice: the recovery roll (004,
"Resolve Recovery Roll", Table 5) and the lost action it costs, under the VTT's initiative and
the service's; the consciousness test at deadly (004, "Death and Injury"), with Ripley's own
numbers; what a condition lets an actor do; the pools and zones a new phase or combat turn
changes; the initiative's wound modifier from the monitors; a GM-written state settled; the
scene filling attacks, zone tests and rolls.

"004" is rules-sources/004_afd6299c3d537f5c.txt. Boxes as README counts them: L 1, M 3, S 6,
D 10; the injury modifier is the worst primary-or-trauma physical level's (L 1, M 2, S 3, D 4)
plus the worst stun level's. Every SR3 test here re-rolls a 6 only while the target number is
out of reach (Rule of Six), so a list of given dice carries the re-rolls after the first dice.
"""

from __future__ import annotations

import itertools
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.common import Point, Zone
from schemas.encounter import AdvanceRequest, TurnState
from schemas.initiative import Initiative, InitiativeEntry, InitiativeRoll
from schemas.scene import Posture, SceneActor
from schemas.sr3hl import (
    HLActionRequest,
    HLActorState,
    HLAttackAsk,
    HLMonitor,
    HLRecoveryDue,
    HLSheet,
    HLState,
    HLWeapon,
    HLZoneState,
    HLZoneTestAsk,
)
from service.rules import RULESETS, initiative
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr3hl import able, actions, condition

HL = RULESETS["sr3-hardlife"]
VTT_TURN = TurnState()
PISTOL = HLWeapon(
    id="predator", category="heavy_pistol", power=9, damage_level="M", modes=["SA"], ammo=15
)


def hurt(**monitors: HLMonitor) -> HLActorState:
    """An actor with these monitors and the condition they mean (Body 4: dead at 14)."""
    written: dict[Any, HLMonitor] = dict(monitors)
    return HLActorState(body=4, monitors=written, condition=condition.condition(written, 4))


def act(
    state: HLState,
    action: str,
    dice: dict[str, list[int]] | None = None,
    turn: TurnState = VTT_TURN,
    actor: str = "ripley",
    willpower: int | None = 5,
) -> Any:
    body = {"actor": actor, "action": action, "willpower": willpower, "dice": dice or {}}
    request = msgspec.convert(body, HLActionRequest)
    given = Dice(0, request.dice)
    resolution = HL.resolve_action(request, state, turn, given)
    given.check_given_used()
    return resolution


def advance(state: HLState, to: str, turn: TurnState, actor: str | None = None) -> HLState:
    after, _ = HL.on_advance(AdvanceRequest(to=to, actor=actor), state, turn)  # type: ignore[arg-type]
    assert isinstance(after, HLState)
    return after


def refused(state: HLState, action: str, turn: TurnState = VTT_TURN, **fields: Any) -> Any:
    with pytest.raises(RuleViolation) as raised:
        act(state, action, turn=turn, **fields)
    return raised.value


def phase_of(actor: str, phase: int) -> TurnState:
    return TurnState(action_phase=actor, phase=phase)


# --- the recovery roll ---------------------------------------------------------------------


# Torso at S (6 boxes): injury modifier 3, so the recovery roll's target number is 2 + 3 = 5.
TORSO_S = {"torso": HLMonitor(physical=6)}


def due(level: str, **monitors: HLMonitor) -> HLState:
    actor = msgspec.structs.replace(hurt(**monitors), recovery=HLRecoveryDue(level=level))  # type: ignore[arg-type]
    return HLState(actors={"ripley": actor})


def test_a_recovery_roll_with_enough_successes_clears_the_roll_due() -> None:
    # Willpower 4 against 5: 5 and 6 succeed (the 6 needs no re-roll at 5): 2 successes, the
    # 2 of Table 5's M.
    resolution = act(
        due("M", **TORSO_S), "recovery_roll", {"recovery:ripley": [5, 6, 1, 2]}, willpower=4
    )
    recovery = resolution.result.recovery
    assert (recovery.test.target_number, recovery.test.successes) == (5, 2)
    assert (recovery.level, recovery.needed, recovery.passed) == ("M", 2, True)
    assert resolution.state.actors["ripley"].recovery is None
    assert resolution.result.dice[0].step == "recovery:ripley"


def test_a_failed_recovery_roll_with_the_vtts_initiative_loses_the_next_phase() -> None:
    # S needs 3 successes (Table 5); Willpower 5 against 5: 5 and 6 are 2: failed.
    resolution = act(due("S", **TORSO_S), "recovery_roll", {"recovery:ripley": [5, 6, 1, 2, 3]})
    assert resolution.result.recovery.passed is False
    assert resolution.turn is None  # the VTT runs the initiative: the state counts the loss
    after = resolution.state
    assert after.actors["ripley"].actions_lost == 1
    assert after.actors["ripley"].recovery == HLRecoveryDue(level="S")
    # Her next phase begins (phase 7): it is lost; she may do nothing in it but the rolls.
    turn = phase_of("ripley", 7)
    after = advance(after, "action_phase", turn, "ripley")
    assert after.actors["ripley"].actions_lost == 0
    assert after.actors["ripley"].phase_lost == 7
    problem = refused(after, "take_aim", turn, willpower=None)
    assert (problem.status, problem.kind, problem.path) == (409, "recovery-roll-due", "$.actor")
    # The roll again, now passed (3 successes: 5, 5, 6 at 5): her phase stays lost.
    again = act(after, "recovery_roll", {"recovery:ripley": [5, 5, 6, 1, 2]}, turn=turn)
    assert again.result.recovery.passed is True
    problem = refused(again.state, "take_aim", turn, willpower=None)
    assert (problem.status, problem.kind) == (409, "action-lost")
    # Her next phase is hers again.
    later = advance(again.state, "action_phase", phase_of("ripley", 9), "ripley")
    act(later, "take_aim", turn=phase_of("ripley", 9), willpower=None)


def test_a_failed_recovery_roll_with_the_services_initiative_loses_a_phase_in_its_order() -> None:
    # Ripley 15 (phases in passes 1 and 2; she has had the first), the goon 8, and it is the
    # goon's phase. Willpower 5 against 5: one 5, 1 success of M's 2: failed.
    entries = [
        InitiativeEntry(actor="ripley", score=15, acted=True),
        InitiativeEntry(actor="goon", score=8),
    ]
    turn = TurnState(
        action_phase="goon", phase=2, initiative=Initiative(entries=entries, current="goon")
    )
    resolution = act(
        due("M", **TORSO_S), "recovery_roll", {"recovery:ripley": [5, 1, 1, 1, 2]}, turn
    )
    assert resolution.result.recovery.passed is False
    assert resolution.turn is not None
    lost = {e.actor: e.lost for e in resolution.turn.initiative.entries}
    assert lost == {"ripley": 1, "goon": 0}
    assert resolution.state.actors["ripley"].actions_lost == 0


def test_a_recovery_roll_needs_one_due_and_willpower() -> None:
    problem = refused(HLState(actors={"ripley": hurt(**TORSO_S)}), "recovery_roll")
    assert (problem.status, problem.kind, problem.path) == (409, "no-recovery-due", "$.action")
    problem = refused(due("M"), "recovery_roll", willpower=None)
    assert (problem.status, problem.path) == (422, "$.willpower")
    problem = refused(HLState(), "take_aim", willpower=3)
    assert (problem.status, problem.path) == (422, "$.willpower")


def test_the_recovery_roll_and_the_consciousness_test_take_no_room_in_the_phase() -> None:
    rolls = [HLActionRequest(actor="r", action=a) for a in ("recovery_roll", "consciousness_test")]
    assert [HL.action_cost(r, None).kind for r in rolls] == [None, None]
    assert HL.action_cost(HLActionRequest(actor="r", action="take_aim"), None).kind == "simple"
    assert HL.action_cost(HLActionRequest(actor="r", action="observe"), None).kind == "free"
    assert HL.action_dice_steps(rolls[0]) == {"recovery:r": 6}
    assert HL.action_dice_steps(rolls[1]) == {"consciousness:r": 6}


# --- the consciousness test ------------------------------------------------------------------

# Ripley (004, "Death and Injury"): trauma at D physical (README: 1 + 3 + 6 = 10 boxes) and S
# stun (6), the leg M, the vitals and torso S. Target number 3 + 4 (D) + 3 (S stun) = 10.
RIPLEY = {
    "trauma": HLMonitor(physical=10, stun=6),
    "right_leg": HLMonitor(physical=3),
    "vitals": HLMonitor(physical=6),
    "torso": HLMonitor(physical=6),
}


def at_deadly() -> HLState:
    return HLState(actors={"ripley": able.after_hit(hurt(**RIPLEY))})


def test_a_hit_that_reaches_deadly_asks_for_the_consciousness_test() -> None:
    ripley = at_deadly().actors["ripley"]
    assert ripley.condition.deadly and not ripley.condition.dead
    assert ripley.consciousness_due is True
    # Below deadly nothing is asked.
    assert able.after_hit(hurt(**TORSO_S)).consciousness_due is False
    problem = refused(at_deadly(), "take_aim", willpower=None)
    assert (problem.status, problem.kind) == (409, "consciousness-test-due")


def test_ripley_with_two_successes_at_ten_acts_in_one_more_phase() -> None:
    # Willpower 5 against 10: 6 + 4 = 10 and 6 + 5 = 11 reach it (Rule of Six), 5 and 3 do
    # not: 2 successes, so one phase (004's own example).
    dice = {"consciousness:ripley": [6, 5, 6, 3, 1, 4, 5]}
    resolution = act(at_deadly(), "consciousness_test", dice)
    result = resolution.result.consciousness
    assert (result.test.target_number, result.test.successes) == (10, 2)
    assert (result.conscious, result.phases) == (True, 1)
    ripley = resolution.state.actors["ripley"]
    assert (ripley.consciousness_due, ripley.conscious_phases) == (False, 1)
    # Her next phase (5) is the one she acts in; the one after (8) is free actions only.
    state = advance(resolution.state, "action_phase", phase_of("ripley", 5), "ripley")
    assert state.actors["ripley"].conscious_phases == 0
    act(state, "take_aim", turn=phase_of("ripley", 5), willpower=None)
    state = advance(state, "action_phase", phase_of("ripley", 8), "ripley")
    problem = refused(state, "take_aim", phase_of("ripley", 8), willpower=None)
    assert (problem.status, problem.kind) == (409, "no-action-left")
    act(state, "observe", turn=phase_of("ripley", 8), willpower=None)  # a free action


def test_one_success_keeps_the_actor_conscious_on_free_actions_only() -> None:
    # Willpower 5 against 10: only 6 + 4 reaches it.
    resolution = act(
        at_deadly(), "consciousness_test", {"consciousness:ripley": [6, 2, 3, 1, 1, 4]}
    )
    assert (resolution.result.consciousness.phases, resolution.result.consciousness.conscious) == (
        0,
        True,
    )
    state = advance(resolution.state, "action_phase", phase_of("ripley", 5), "ripley")
    problem = refused(state, "take_aim", phase_of("ripley", 5), willpower=None)
    assert problem.kind == "no-action-left"
    act(state, "speak_a_phrase", turn=phase_of("ripley", 5), willpower=None)


def test_no_success_and_the_actor_falls_unconscious_for_good() -> None:
    resolution = act(at_deadly(), "consciousness_test", {"consciousness:ripley": [5, 2, 3, 1, 4]})
    assert resolution.result.consciousness.conscious is False
    state = resolution.state
    assert state.actors["ripley"].unconscious is True
    for action in ("observe", "consciousness_test", "recovery_roll"):
        problem = refused(state, action, willpower=5)
        assert (problem.status, problem.kind) == (409, "actor-down")
    # A new combat turn asks nothing more of her (004: "can make no further rolls").
    after = advance(state, "combat_turn", TurnState(combat_turn=2))
    assert after.actors["ripley"].consciousness_due is False


def test_three_successes_in_its_own_phase_count_that_phase_first() -> None:
    # Willpower 5 against 10: 6 + 4, 6 + 6 (a 6 again is 12), 6 + 5: 3 successes, 2 phases;
    # made in her own phase 4, that phase is the first.
    dice = {"consciousness:ripley": [6, 6, 6, 1, 2, 4, 6, 5]}
    turn = phase_of("ripley", 4)
    resolution = act(at_deadly(), "consciousness_test", dice, turn)
    assert resolution.result.consciousness.phases == 2
    ripley = resolution.state.actors["ripley"]
    assert (ripley.phase_granted, ripley.conscious_phases) == (4, 1)
    act(resolution.state, "take_aim", turn=turn, willpower=None)


def test_the_consciousness_test_is_due_again_at_each_new_combat_turn() -> None:
    resolution = act(
        at_deadly(), "consciousness_test", {"consciousness:ripley": [6, 5, 6, 3, 1, 4, 5]}
    )
    state = advance(resolution.state, "combat_turn", TurnState(combat_turn=2))
    ripley = state.actors["ripley"]
    assert (ripley.consciousness_due, ripley.conscious_phases) == (True, None)
    problem = refused(state, "consciousness_test", willpower=None)
    assert problem.path == "$.willpower"  # due: it is the Willpower that is missing now
    # A test that is not due is refused.
    problem = refused(resolution.state, "consciousness_test")
    assert (problem.status, problem.kind) == (409, "no-consciousness-test-due")


def test_a_test_after_the_last_phase_of_the_turn_is_the_next_turns() -> None:
    # The service's initiative, pass 2: Ripley (score 3 after 10 came off 13) has had her
    # phase, and 3 - 10 < 0 leaves her none after it: the test stands for combat turn 2 (004:
    # "treat this roll as the roll for the next round").
    entries = [
        InitiativeEntry(actor="goon", score=5),
        InitiativeEntry(actor="ripley", score=3, acted=True),
    ]
    turn = TurnState(
        initiative_pass=2,
        action_phase="goon",
        phase=4,
        initiative=Initiative(entries=entries, current="goon"),
    )
    assert initiative.phases_left(turn, actions.INITIATIVE, "ripley") == 0
    dice = {"consciousness:ripley": [6, 5, 6, 3, 1, 4, 5]}
    resolution = act(at_deadly(), "consciousness_test", dice, turn)
    assert resolution.result.consciousness.for_turn == 2
    state = advance(resolution.state, "combat_turn", TurnState(combat_turn=2))
    ripley = state.actors["ripley"]
    assert (ripley.consciousness_due, ripley.conscious_phases) == (False, 1)


# --- what a condition lets an actor do -----------------------------------------------------


def test_the_dead_and_the_disabled_limbs_are_refused() -> None:
    # Body 4: dead at 10 + 4 = 14 boxes on the torso.
    dead = hurt(torso=HLMonitor(physical=14))
    with pytest.raises(RuleViolation) as raised:
        able.check_able("ripley", dead, VTT_TURN, "attack", "$.attacker")
    assert (raised.value.status, raised.value.kind, raised.value.path) == (
        409,
        "actor-down",
        "$.attacker",
    )
    # A hand at deadly (10 boxes) stops working: the gun in it cannot fire.
    hand = hurt(right_hand=HLMonitor(physical=10))
    assert hand.condition.disabled == ["right_hand"]
    with pytest.raises(RuleViolation) as raised:
        able.check_able("ripley", hand, VTT_TURN, "attack", "$.attacker", ["right_hand"])
    assert raised.value.kind == "limb-not-working"
    able.check_able("ripley", hand, VTT_TURN, "attack", "$.attacker", ["left_hand"])


# --- a new phase, pass or combat turn ------------------------------------------------------


def test_a_new_combat_turn_refreshes_the_combat_and_dodge_pools() -> None:
    actor = HLActorState(combat_pool=6, pool_left=1, dodge_pool=3, dodge_left=0)
    state = advance(HLState(actors={"ripley": actor}), "combat_turn", TurnState(combat_turn=2))
    assert (state.actors["ripley"].pool_left, state.actors["ripley"].dodge_left) == (6, 3)
    # A new phase does not.
    state = advance(
        HLState(actors={"ripley": actor}), "action_phase", phase_of("ripley", 2), "ripley"
    )
    assert (state.actors["ripley"].pool_left, state.actors["ripley"].dodge_left) == (1, 0)


def test_recoil_counts_afresh_in_the_actors_new_phase() -> None:
    actor = HLActorState(rounds_in_phase=3, targets_in_phase=["goon"])
    state = HLState(actors={"ripley": actor, "whisper": actor})
    after = advance(state, "action_phase", phase_of("ripley", 2), "ripley")
    assert (after.actors["ripley"].rounds_in_phase, after.actors["whisper"].rounds_in_phase) == (
        0,
        3,
    )


def test_suppression_fire_ends_when_the_shooters_next_phase_begins() -> None:
    zone = HLZoneState(
        zone=Zone(
            id="z1",
            shooter="pete",
            shape="polygon",
            hits=0,
            penalty=0,
            kind="suppression",
            lasts="until pete's next combat phase",
        ),
        polygon=[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0)],
        bullets_per_m2=6,
        weapon=PISTOL,
    )
    state = HLState(zones={"z1": zone})
    assert advance(state, "action_phase", phase_of("whisper", 2), "whisper").zones == {"z1": zone}
    assert advance(state, "action_phase", phase_of("pete", 3), "pete").zones == {}


# --- the initiative's wound modifier ---------------------------------------------------------


def test_an_initiative_roll_without_a_modifier_takes_the_monitors() -> None:
    rules = actions.INITIATIVE
    # Torso S physical (3) and M stun (2): -5. Reaction 5 + 1d6 (4) - 5 = 4.
    combat = HLState(actors={"ripley": hurt(torso=HLMonitor(physical=6, stun=3))})
    rolls = [InitiativeRoll(actor="ripley", reaction=5), InitiativeRoll(actor="goon", reaction=4)]
    dice = Dice(0, {"initiative:ripley": [4], "initiative:goon": [2]})
    ripley, goon = initiative.roll_entries(rules, rolls, {}, dice, combat=combat)
    assert (ripley.score, ripley.modifier, ripley.modifier_from_state) == (4, -5, True)
    # The goon has no monitors in the state: nothing off, 4 + 2 = 6.
    assert (goon.score, goon.modifier_from_state) == (6, False)
    # A modifier given wins over the monitors: 5 + 4 - 1 = 8.
    given = [InitiativeRoll(actor="ripley", reaction=5, modifier=-1)]
    [ripley_given] = initiative.roll_entries(
        rules, given, {}, Dice(0, {"initiative:ripley": [4]}), combat=combat
    )
    assert ripley_given.score == 8
    # Healed to M physical (2) and no stun, the next turn rolls again with -2: 5 + 4 - 2 = 7.
    turn = TurnState(initiative=Initiative(entries=[ripley, goon], over=True))
    healed = HLState(actors={"ripley": hurt(torso=HLMonitor(physical=3))})
    again = initiative.roll_again(
        turn, rules, Dice(0, {"initiative:ripley": [4], "initiative:goon": [2]}), healed
    )
    assert [(e.actor, e.score, e.modifier) for e in again] == [("ripley", 7, -2), ("goon", 6, 0)]


# --- the GM's edits ------------------------------------------------------------------------


def test_a_state_the_gm_writes_has_its_condition_worked_out_again() -> None:
    # Written as dead and due a test, with the torso healed to L (1 box): nothing of it stands.
    stale = msgspec.structs.replace(
        hurt(torso=HLMonitor(physical=14)), monitors={"torso": HLMonitor(physical=1)}
    )
    stale = msgspec.structs.replace(stale, consciousness_due=True, conscious_phases=1)
    assert stale.condition.dead
    settled = HL.settled(HLState(actors={"ripley": stale}))
    assert isinstance(settled, HLState)
    ripley = settled.actors["ripley"]
    assert (ripley.condition.dead, ripley.condition.deadly) == (False, False)
    assert ripley.condition.target_number_modifier == 1
    assert (ripley.consciousness_due, ripley.conscious_phases) == (False, None)
    # Set to deadly by the GM: the test is asked for, as after a hit.
    deadly = HLActorState(body=4, monitors={"head": HLMonitor(physical=10)})
    settled = HL.settled(HLState(actors={"ripley": deadly}))
    assert isinstance(settled, HLState)
    assert settled.actors["ripley"].consciousness_due is True


# --- the scene -----------------------------------------------------------------------------

SHEET = HLSheet(
    body=4,
    quickness=5,
    intelligence=4,
    willpower=3,
    skill=4,
    weapon_skills={"ingram": 6},
    combat_pool=6,
    dodge_skill=2,
    dermal_armor=1,
    weapons=[PISTOL],
)


def test_the_scene_fills_an_attack_by_names() -> None:
    scene = {
        "carter": SceneActor(position=Point(x=0, y=0), sheet=SHEET),
        "goon": SceneActor(
            position=Point(x=3, y=4), posture=Posture(prone=True, cover="partial"), sheet=SHEET
        ),
    }
    asked = msgspec.convert(
        {"attacker": "carter", "weapon": "predator", "mode": "SA", "target": {"id": "goon"}},
        HLAttackAsk,
    )
    request = HL.fill_attack(asked, scene)
    assert request.attacker.skill == 4 and request.weapon == PISTOL
    target = request.target
    # 3-4-5: 5 m; cover and prone from the posture; the dodge skill and dermal armour from
    # the sheet.
    assert (target.distance_m, target.cover, target.movement) == (5.0, "partial", "walking")
    assert target.dodge.prone is True
    assert (target.defender.dodge_skill, target.defender.dermal_armor) == (2, 1)
    with pytest.raises(RuleViolation) as raised:
        HL.fill_attack(msgspec.structs.replace(asked, weapon="ak"), scene)
    assert raised.value.path == "$.weapon"


def test_the_scene_fills_a_zone_test_from_where_the_shooter_fired() -> None:
    zone = HLZoneState(
        zone=Zone(id="z1", shooter="pete", shape="polygon", hits=0, penalty=0, kind="s", lasts=""),
        polygon=[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0)],
        bullets_per_m2=6,
        weapon=PISTOL,
        origin=Point(x=0, y=0),
    )
    scene = {
        "pete": SceneActor(position=Point(x=30, y=30), sheet=SHEET),
        "whisper": SceneActor(position=Point(x=6, y=8), posture=Posture(cover="full"), sheet=SHEET),
    }
    asked = msgspec.convert({"actor": "whisper"}, HLZoneTestAsk)
    # 6-8-10 from the origin (not from where Pete stands now); full cover is Table 9's good.
    request = HL.fill_zone_test(asked, scene, "z1", HLState(zones={"z1": zone}))
    assert (request.distance_m, request.cover, request.defender.body) == (10.0, "good", 4)
    with pytest.raises(RuleViolation) as raised:
        HL.fill_zone_test(asked, {"whisper": SceneActor(sheet=SHEET)}, "z1", HLState())
    assert raised.value.path == "$.distance_m"


def test_the_scene_gives_the_rolls_their_willpower() -> None:
    scene = {"ripley": SceneActor(sheet=SHEET)}
    asked = HLActionRequest(actor="ripley", action="recovery_roll")
    assert HL.fill_action(asked, scene).willpower == 3
    assert HL.fill_action(msgspec.structs.replace(asked, willpower=5), scene).willpower == 5
    assert (
        HL.fill_action(HLActionRequest(actor="ripley", action="observe"), scene).willpower is None
    )


# --- the state stays readable ----------------------------------------------------------------

_STEP = st.one_of(
    st.tuples(st.just("advance"), st.sampled_from(["action_phase", "combat_turn"])),
    st.tuples(st.just("act"), st.sampled_from(["recovery_roll", "consciousness_test", "take_aim"])),
)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(_STEP, max_size=40),
    dice=st.lists(st.integers(min_value=1, max_value=6), min_size=200, max_size=200),
)
def test_any_run_of_the_turn_leaves_a_state_that_reads_back(
    steps: list[tuple[str, str]], dice: list[int]
) -> None:
    """Whatever the rolls and moments, the state written stays within its bounds (a state out
    of them could not be read back) and the condition keeps to the monitors."""
    actor = msgspec.structs.replace(
        able.after_hit(hurt(**RIPLEY)), recovery=HLRecoveryDue(level="D"), actions_lost=4
    )
    state = HLState(actors={"ripley": actor})
    turn = TurnState(combat_turn=999_999)
    rolled = itertools.cycle(dice)
    for kind, name in steps:
        if kind == "advance":
            turn = (
                phase_of("ripley", turn.phase + 1)
                if name == "action_phase"
                else TurnState(combat_turn=min(turn.combat_turn + 1, 1_000_000), phase=turn.phase)
            )
            state = advance(state, name, turn, "ripley" if name == "action_phase" else None)
            continue
        request = HLActionRequest(actor="ripley", action=name, willpower=6)  # type: ignore[arg-type]
        given = {
            f"{step}:ripley": [next(rolled) for _ in range(12)]
            for step in ("recovery", "consciousness")
        }
        try:
            state = HL.resolve_action(request, state, turn, Dice(0, given)).state  # type: ignore[assignment]
        except RuleViolation as refused:
            assert refused.status in (409, 422)
    encoded = msgspec.json.encode(state)
    assert msgspec.json.decode(encoded, type=HLState) == state
    assert state.actors["ripley"].condition == condition.condition(RIPLEY, 4)  # type: ignore[arg-type]
