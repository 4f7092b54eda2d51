"""The initiative engine through its pure functions (service/rules/initiative.py), with given dice.

"the document" is rules-sources/002_65e09aecd368bc68.txt, "INITIATIVE" and "COMBAT"; SR5's
numbers are service/rules/sr5/tables.py's INITIATIVE (SR5 core: Reaction + Intuition + 1d6, ties
by Edge, Reaction, Intuition; a phase of one free and one complex or two simple actions).
"""

from __future__ import annotations

import math

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import AdvanceRequest, TurnState
from schemas.initiative import ActionsUsed, InitiativeEntry, InitiativeRoll
from schemas.scene import SceneActor
from schemas.sr3 import SR3Sheet
from schemas.sr5 import SR5Sheet
from service.rules import RULESETS, initiative
from service.rules.dice import Dice, DiceShortage
from service.rules.ruleset import ActionCost, InitiativeRules, RuleViolation
from service.rules.sr3.tables import INITIATIVE as SR3
from service.rules.sr5.tables import INITIATIVE as SR5
from tests import sr3_requests as sr3

# The document's phase: one free and one complex action, the complex exchanged for two simple
# or two free ones (so three free, or one free and two simple).
THREE_WAYS = InitiativeRules(
    source="test",
    base=("reaction",),
    ties=("reaction",),
    budgets=(
        ActionsUsed(free=1, complex=1),
        ActionsUsed(free=1, simple=2),
        ActionsUsed(free=3),
    ),
)
NEXT = AdvanceRequest(to="action_phase")


def entry(actor: str, score: int, *ties: int) -> InitiativeEntry:
    return InitiativeEntry(actor=actor, score=score, ties=list(ties))


def started(*entries: InitiativeEntry, rules: InitiativeRules = SR5) -> TurnState:
    turn, _, _ = initiative.start(TurnState(), rules, list(entries))
    return turn


def order(turn: TurnState) -> list[tuple[str, int]]:
    assert turn.initiative is not None
    return [(e.actor, e.score) for e in turn.initiative.entries]


def advanced(turn: TurnState, rules: InitiativeRules = SR5, **asked: str) -> TurnState:
    after, _, _ = initiative.advance(turn, rules, AdvanceRequest(to="action_phase", **asked))
    return after


def conflict(detail: str) -> pytest.RaisesExc[RuleViolation]:
    return pytest.raises(RuleViolation, match=detail)


# --- rolling -------------------------------------------------------------------------------


def test_sr5_initiative_is_reaction_plus_intuition_plus_its_dice() -> None:
    rolls = [InitiativeRoll(actor="sam", reaction=5, intuition=4, initiative_dice=2)]
    dice = Dice(0, {"initiative:sam": [6, 3]})
    [sam] = initiative.roll_entries(SR5, rolls, {}, dice)
    # 5 Reaction + 4 Intuition + 6 + 3.
    assert sam.score == 18
    assert (sam.base, sam.initiative_dice) == (9, 2)
    # Ties: Edge (not given: 0), Reaction, Intuition.
    assert sam.ties == [0, 5, 4]
    assert [(r.step, r.values) for r in dice.rolls] == [("initiative:sam", [6, 3])]


def test_a_modifier_is_added_and_one_die_is_the_default() -> None:
    rolls = [InitiativeRoll(actor="goon", reaction=3, intuition=3, modifier=-2)]
    [goon] = initiative.roll_entries(SR5, rolls, {}, Dice(0, {"initiative:goon": [4]}))
    assert goon.score == 3 + 3 - 2 + 4


def test_a_score_given_at_the_table_is_used_as_given() -> None:
    rolls = [InitiativeRoll(actor="rat", score=25, edge=2)]
    [rat] = initiative.roll_entries(SR5, rolls, {}, Dice(0))
    assert (rat.score, rat.base, rat.ties) == (25, None, [2, 0, 0])


def test_what_a_roll_leaves_out_comes_from_the_actors_sheet() -> None:
    sheet = SR5Sheet(reaction=4, intuition=5, edge=3, initiative_dice=3)
    scene = {"sam": SceneActor(sheet=sheet)}
    rolls = [InitiativeRoll(actor="sam", reaction=6)]
    [sam] = initiative.roll_entries(SR5, rolls, scene, Dice(0, {"initiative:sam": [1, 1, 1]}))
    # The roll's Reaction wins; Intuition, Edge and the dice are the sheet's.
    assert (sam.score, sam.ties) == (6 + 5 + 3, [3, 6, 5])


def test_the_wounds_on_the_sheet_count_unless_the_roll_gives_its_modifier() -> None:
    # SR5 core, "Wound Modifiers": they apply to initiative; SR3 (choice): L -1 ... D -4.
    sr5_scene = {"sam": SceneActor(sheet=SR5Sheet(reaction=4, intuition=4, wound_modifier=-2))}
    sr3_scene = {"sam": SceneActor(sheet=SR3Sheet(reaction=4, wounds="M"))}
    for rules, scene, base in ((SR5, sr5_scene, 8), (SR3, sr3_scene, 4)):
        dice = Dice(0, {"initiative:sam": [3]})
        [wounded] = initiative.roll_entries(rules, [InitiativeRoll(actor="sam")], scene, dice)
        assert (wounded.score, wounded.modifier) == (base - 2 + 3, -2)
        given = [InitiativeRoll(actor="sam", modifier=0)]
        [as_given] = initiative.roll_entries(rules, given, scene, Dice(0, {"initiative:sam": [3]}))
        assert as_given.score == base + 3


def test_a_roll_missing_its_base_says_what_and_where() -> None:
    rolls = [InitiativeRoll(actor="a", score=9), InitiativeRoll(actor="b", reaction=3)]
    with pytest.raises(RuleViolation, match="b's initiative needs intuition") as raised:
        initiative.roll_entries(SR5, rolls, {}, Dice(0))
    assert raised.value.path == "$.actors[1].intuition"
    assert raised.value.status == 422


def test_an_actor_rolls_once_a_turn() -> None:
    rolls = [InitiativeRoll(actor="a", score=9), InitiativeRoll(actor="a", score=3)]
    with pytest.raises(RuleViolation, match="once") as raised:
        initiative.roll_entries(SR5, rolls, {}, Dice(0))
    assert raised.value.path == "$.actors[1].actor"


def test_too_few_given_dice_name_the_step() -> None:
    rolls = [InitiativeRoll(actor="sam", reaction=5, intuition=4, initiative_dice=3)]
    with pytest.raises(DiceShortage, match="'initiative:sam' needs at least 3"):
        initiative.roll_entries(SR5, rolls, {}, Dice(0, {"initiative:sam": [6]}))


# --- the order -------------------------------------------------------------------------------


def test_the_order_is_descending_and_sr5_breaks_ties_by_edge_reaction_intuition() -> None:
    turn = started(
        entry("low", 8, 5, 5, 5),
        entry("by-reaction", 12, 2, 4, 1),
        entry("by-edge", 12, 3, 1, 1),
        entry("by-intuition", 12, 2, 4, 2),
        entry("top", 20, 0, 0, 0),
    )
    assert [a for a, _ in order(turn)] == ["top", "by-edge", "by-intuition", "by-reaction", "low"]


def test_a_tie_the_tie_breakers_leave_keeps_the_order_given() -> None:
    turn = started(entry("first", 10, 1), entry("second", 10, 1), rules=THREE_WAYS)
    assert [a for a, _ in order(turn)] == ["first", "second"]


def test_starting_begins_the_highest_scores_phase() -> None:
    turn, crossings, effects = initiative.start(
        TurnState(), SR5, [entry("goon", 9), entry("sam", 14)]
    )
    assert turn.initiative is not None
    assert (turn.combat_turn, turn.initiative_pass) == (1, 1)
    assert (turn.initiative.current, turn.action_phase, turn.phase) == ("sam", "sam", 1)
    assert crossings == [AdvanceRequest(to="action_phase", actor="sam")]
    assert effects == ["combat turn 1: sam 14, goon 9", "sam's combat phase (pass 1, score 14)"]


# --- passes ------------------------------------------------------------------------------------


def test_a_turn_of_three_actors_over_three_passes() -> None:
    # The document: each acts in order of its score; at the end of a pass 10 comes off every
    # score, and those still above 0 act again, until nobody is.
    turn = started(entry("sam", 27), entry("goon", 8), entry("rat", 14))
    phases = [turn.action_phase]
    passes = [turn.initiative_pass]
    while turn.initiative is not None and not turn.initiative.over:
        turn = advanced(turn)
        phases.append(turn.action_phase)
        passes.append(turn.initiative_pass)
    # Pass 1: 27, 14, 8; pass 2: 17, 4; pass 3: 7; then the turn is over.
    assert phases == ["sam", "rat", "goon", "sam", "rat", "sam", None]
    assert passes == [1, 1, 1, 2, 2, 3, 1]
    assert turn.combat_turn == 2
    assert order(turn) == [("sam", -3), ("rat", -16), ("goon", -22)]


def test_the_end_of_a_pass_says_what_it_took_and_who_goes_on() -> None:
    turn = started(entry("sam", 27), entry("goon", 8))
    turn = advanced(turn)
    after, crossings, effects = initiative.advance(turn, SR5, NEXT)
    assert effects == [
        "pass 2: 10 off every score; sam 17",
        "sam's combat phase (pass 2, score 17)",
    ]
    assert crossings == [
        AdvanceRequest(to="initiative_pass"),
        AdvanceRequest(to="action_phase", actor="sam"),
    ]
    assert after.initiative_pass == 2


def test_a_turn_over_says_so_and_waits_for_the_next_initiative() -> None:
    turn = started(entry("goon", 8))
    after, crossings, effects = initiative.advance(turn, SR5, NEXT)
    assert crossings == [AdvanceRequest(to="combat_turn")]
    assert effects[-1] == "combat turn 1 is over; start the next with POST .../initiative"
    assert after.initiative is not None and after.initiative.over
    # Nothing moves the turn on until the next initiative: the service counted the next turn.
    for to in ("action_phase", "initiative_pass", "combat_turn"):
        with conflict("combat turn 2 has no initiative yet"):
            initiative.advance(after, SR5, AdvanceRequest(to=to))


def test_advancing_to_the_next_pass_ends_this_one_for_everyone_left() -> None:
    turn = started(entry("sam", 27), entry("rat", 14), entry("goon", 8))
    after, _, _ = initiative.advance(turn, SR5, AdvanceRequest(to="initiative_pass"))
    # rat and goon lose their phases of pass 1; pass 2 is sam 17 and rat 4.
    assert after.initiative_pass == 2
    assert after.action_phase == "sam"
    assert order(after)[:2] == [("sam", 17), ("rat", 4)]


def test_advancing_to_the_next_combat_turn_ends_this_one() -> None:
    turn = started(entry("sam", 27))
    after, crossings, _ = initiative.advance(turn, SR5, AdvanceRequest(to="combat_turn"))
    assert crossings == [AdvanceRequest(to="combat_turn")]
    assert after.combat_turn == 2 and after.initiative is not None and after.initiative.over


def test_starting_while_a_turn_is_under_way_starts_the_next() -> None:
    turn = started(entry("sam", 27))
    after, crossings, _ = initiative.start(turn, SR5, [entry("sam", 9)])
    assert after.combat_turn == 2
    assert crossings[0] == AdvanceRequest(to="combat_turn")


def test_starting_after_a_turn_ended_starts_that_turn() -> None:
    turn = advanced(started(entry("sam", 7)))
    assert turn.combat_turn == 2
    after, crossings, _ = initiative.start(turn, SR5, [entry("sam", 9)])
    assert after.combat_turn == 2
    assert [c.to for c in crossings] == ["action_phase"]


def test_the_next_turn_rolls_again_from_what_the_last_rolls_were_made_of() -> None:
    rolls = [InitiativeRoll(actor="sam", reaction=5, intuition=4, initiative_dice=2, edge=3)]
    entries = initiative.roll_entries(SR5, rolls, {}, Dice(0, {"initiative:sam": [1, 1]}))
    turn = advanced(started(*entries))
    [again] = initiative.roll_again(turn, SR5, Dice(0, {"initiative:sam": [6, 6]}))
    assert (again.score, again.ties) == (9 + 12, [3, 5, 4])


def test_a_score_given_at_the_table_cannot_be_rolled_again() -> None:
    turn = advanced(started(entry("rat", 5)))
    with pytest.raises(RuleViolation, match="rat had a score given"):
        initiative.roll_again(turn, SR5, Dice(0))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=-5, max_value=60), min_size=1, max_size=6))
def test_every_actor_has_one_phase_for_each_pass_its_score_stays_above_zero(
    scores: list[int],
) -> None:
    turn = started(*(entry(f"a{i}", s) for i, s in enumerate(scores)))
    phases: dict[str, int] = {}
    for _ in range(100):
        if turn.action_phase is not None:
            phases[turn.action_phase] = phases.get(turn.action_phase, 0) + 1
        if turn.initiative is None or turn.initiative.over:
            break
        turn = advanced(turn)
    expected = {f"a{i}": math.ceil(s / 10) for i, s in enumerate(scores) if s > 0}
    assert phases == expected


# --- holding an action -------------------------------------------------------------------------


def test_a_held_action_moves_the_phase_on_and_the_holder_steps_in_later() -> None:
    turn = started(entry("sam", 20), entry("rat", 14), entry("goon", 8))
    turn, crossings, effects = initiative.hold(turn, SR5, "sam", "$.actor")
    assert effects == ["sam holds its action", "rat's combat phase (pass 1, score 14)"]
    assert crossings == [AdvanceRequest(to="action_phase", actor="rat")]
    # sam steps in before rat has done anything: rat's phase comes right after sam's.
    turn, _, effects = initiative.advance(turn, SR5, AdvanceRequest(to="action_phase", actor="sam"))
    assert effects == ["sam steps in before rat acts", "sam's combat phase (pass 1, score 20)"]
    assert turn.action_phase == "sam"
    assert turn.initiative is not None
    assert not next(e for e in turn.initiative.entries if e.actor == "sam").holding
    assert [advanced(turn).action_phase, advanced(advanced(turn)).action_phase] == ["rat", "goon"]


def test_a_holder_stepping_in_after_the_acting_actor_has_acted_ends_that_phase() -> None:
    turn = started(entry("sam", 20), entry("rat", 14), entry("goon", 8))
    turn, _, _ = initiative.hold(turn, SR5, "sam", "$.actor")
    turn = spend(turn, "rat", "simple")
    turn = advanced(turn, actor="sam")
    assert turn.action_phase == "sam"
    assert advanced(turn).action_phase == "goon"


def test_a_holder_waits_until_it_steps_in_or_everyone_else_has_acted() -> None:
    turn = started(entry("sam", 20), entry("rat", 14), entry("goon", 8))
    turn, _, _ = initiative.hold(turn, SR5, "sam", "$.actor")
    turn = advanced(turn)
    assert turn.action_phase == "goon"
    turn = advanced(turn)
    assert turn.action_phase == "sam"
    # Then the pass is over: sam 10 and rat 4 go on.
    turn = advanced(turn)
    assert (turn.initiative_pass, turn.action_phase) == (2, "sam")


def test_holders_who_never_step_in_act_last_in_the_order_of_a_tie() -> None:
    # The document: several holders are ordered as an initiative tie.
    turn = started(entry("sam", 20, 3), entry("kim", 20, 5), entry("goon", 8), rules=THREE_WAYS)
    assert turn.action_phase == "kim"
    turn, _, _ = initiative.hold(turn, THREE_WAYS, "kim", "$.actor")
    turn, _, _ = initiative.hold(turn, THREE_WAYS, "sam", "$.actor")
    assert turn.action_phase == "goon"
    turn = advanced(turn, THREE_WAYS)
    assert turn.action_phase == "kim"
    turn = advanced(turn, THREE_WAYS)
    assert turn.action_phase == "sam"


def test_sr3_holders_go_in_the_order_of_an_initiative_tie_not_by_score() -> None:
    # 002, "INITIATIVE": several holders act "as if resolving an initiative tie"; SR3's ties go
    # by Reaction (tables.INITIATIVE). Sam (score 20, Reaction 3) and Kim (score 15, Reaction
    # 6) both hold; once the goon (8) has acted, Kim's Reaction 6 puts her before Sam, whose
    # higher score does not count among holders.
    turn = started(entry("sam", 20, 3), entry("kim", 15, 6), entry("goon", 8, 4), rules=SR3)
    turn, _, _ = initiative.hold(turn, SR3, "sam", "$.actor")
    turn, _, _ = initiative.hold(turn, SR3, "kim", "$.actor")
    assert turn.action_phase == "goon"
    turn = advanced(turn, SR3)
    assert turn.action_phase == "kim"
    turn = advanced(turn, SR3)
    assert turn.action_phase == "sam"


def test_holders_tied_on_the_tie_breakers_too_keep_their_place_in_the_order() -> None:
    # Reaction 5 each: the tie-breakers leave the tie, and the holders keep their place in the
    # turn's order (by score: Sam 20 before Kim 15), as a tie the tie-breakers leave does.
    turn = started(entry("sam", 20, 5), entry("kim", 15, 5), entry("goon", 8, 4), rules=SR3)
    turn, _, _ = initiative.hold(turn, SR3, "sam", "$.actor")
    turn, _, _ = initiative.hold(turn, SR3, "kim", "$.actor")
    turn = advanced(turn, SR3)
    assert [turn.action_phase, advanced(turn, SR3).action_phase] == ["sam", "kim"]


def test_only_the_acting_actor_holds_and_only_a_whole_phase() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    with conflict("only the actor whose phase it is"):
        initiative.hold(turn, SR5, "goon", "$.actor")
    spent, _ = initiative.spend(turn, SR5, "sam", ActionCost(kind="simple"), "take_aim", "$.actor")
    with conflict("sam has acted in this phase"):
        initiative.hold(spent, SR5, "sam", "$.actor")


def test_no_action_is_held_between_combat_turns() -> None:
    over = advanced(started(entry("sam", 5)))
    with conflict("combat turn 2 has no initiative yet"):
        initiative.hold(over, SR5, "sam", "$.actor")
    with conflict("combat turn 2 has no initiative yet"):
        spend(over, "sam", "simple")


def test_with_nobody_after_it_there_is_nothing_to_hold_for() -> None:
    turn = started(entry("sam", 20))
    with conflict("nobody acts after sam"):
        initiative.hold(turn, SR5, "sam", "$.actor")


def test_stepping_in_needs_a_held_action() -> None:
    turn = started(entry("sam", 20), entry("rat", 14), entry("goon", 8))
    with conflict("goon is not next \\(rat is\\)"):
        advanced(turn, actor="goon")
    # The one next in the order may be named.
    assert advanced(turn, actor="rat").action_phase == "rat"


# --- actions per phase -------------------------------------------------------------------------


def spend(turn: TurnState, actor: str, *kinds: str, rules: InitiativeRules = SR5) -> TurnState:
    for kind in kinds:
        turn, _ = initiative.spend(
            turn, rules, actor, ActionCost(kind=kind), f"a {kind} action", "$.actor"
        )
    return turn


def test_sr5_a_phase_is_one_free_and_one_complex_or_two_simple() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    assert spend(turn, "sam", "free", "complex").initiative is not None
    two = spend(turn, "sam", "simple", "simple", "free")
    assert two.initiative is not None
    assert two.initiative.used == ActionsUsed(free=1, simple=2)
    with conflict("takes a simple action and sam has 1 free left in this phase"):
        spend(turn, "sam", "simple", "simple", "simple")
    with conflict("takes a complex action and sam has 1 free, 1 simple left"):
        spend(turn, "sam", "simple", "complex")
    with conflict("takes a free action and sam has 1 complex or 2 simple left"):
        spend(turn, "sam", "free", "free")


def test_the_documents_phase_may_be_three_free_actions() -> None:
    turn = started(entry("sam", 20), rules=THREE_WAYS)
    assert initiative.actions_left(ActionsUsed(), THREE_WAYS.budgets) == [
        "1 free, 1 complex",
        "1 free, 2 simple",
        "3 free",
    ]
    three = spend(turn, "sam", "free", "free", "free", rules=THREE_WAYS)
    assert three.initiative is not None
    assert initiative.actions_left(three.initiative.used, THREE_WAYS.budgets) == []
    with conflict("and sam has nothing left"):
        spend(three, "sam", "simple", rules=THREE_WAYS)
    # Two free actions leave a third, not a simple one: the document exchanges the complex
    # action for two free or two simple, not one of each.
    with conflict("sam has 1 free left"):
        spend(turn, "sam", "free", "free", "simple", rules=THREE_WAYS)


def test_sr3_a_fourth_free_action_is_refused() -> None:
    # 002, "COMBAT": one free action and a complex one, the complex exchanged for two free:
    # "three (3) free actions" at the most. A fourth is refused, naming the field it came in.
    turn = started(entry("sam", 20), entry("goon", 8), rules=SR3)
    three = spend(turn, "sam", "free", "free", "free", rules=SR3)
    with conflict("takes a free action and sam has nothing left in this phase") as raised:
        spend(three, "sam", "free", rules=SR3)
    assert (raised.value.kind, raised.value.status, raised.value.path) == (
        "no-action-left",
        409,
        "$.actor",
    )


def test_an_actor_acts_in_its_own_phase() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    with conflict("it is sam's combat phase, not goon's") as raised:
        spend(turn, "goon", "simple")
    assert raised.value.kind == "not-your-phase"
    with conflict("is not in this combat turn's initiative"):
        spend(turn, "kim", "simple")


def test_a_holder_is_told_to_step_in_first() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    turn, _, _ = initiative.hold(turn, SR5, "sam", "$.actor")
    with conflict("sam holds its action; step in first"):
        spend(turn, "sam", "simple")


def test_a_new_phase_starts_with_nothing_used() -> None:
    turn = spend(started(entry("sam", 20), entry("goon", 8)), "sam", "complex")
    turn = advanced(turn)
    assert turn.initiative is not None and turn.initiative.used == ActionsUsed()


def test_nothing_is_counted_while_the_vtt_runs_its_own_initiative() -> None:
    turn = TurnState(action_phase="sam", phase=3)
    assert spend(turn, "goon", "complex", "complex") == turn


# --- interrupts --------------------------------------------------------------------------------


def test_an_interrupt_takes_its_points_off_the_score_at_once_and_reorders() -> None:
    # SR5 full defense: -10 initiative (000_43afc0edeb7f6e19.txt, "Full Defense").
    turn = started(entry("sam", 20), entry("rat", 14), entry("goon", 12))
    after, effects = initiative.spend(
        turn, SR5, "rat", ActionCost(interrupt=10), "full_defense", "$.actor"
    )
    assert effects == ["rat: initiative 14 -> 4 (full_defense)"]
    assert order(after) == [("sam", 20), ("goon", 12), ("rat", 4)]
    # Outside its own phase, and it uses no room in the acting actor's.
    assert after.initiative is not None and after.initiative.used == ActionsUsed()
    assert advanced(after).action_phase == "goon"


def test_an_interrupt_needs_the_score_to_pay_for_it() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    with conflict("full_defense costs 10 initiative and goon's score is 8") as raised:
        initiative.spend(turn, SR5, "goon", ActionCost(interrupt=10), "full_defense", "$.actor")
    assert raised.value.kind == "initiative-too-low"


def test_an_interrupt_that_drops_a_score_to_zero_loses_the_phase_of_this_pass() -> None:
    turn = started(entry("sam", 20), entry("goon", 10))
    turn, _ = initiative.spend(
        turn, SR5, "goon", ActionCost(interrupt=10), "full_defense", "$.actor"
    )
    after = advanced(turn)
    # goon is at 0: no phase; the pass ends, and sam (10 after the pass) goes on alone.
    assert (after.initiative_pass, after.action_phase) == (2, "sam")


# --- joining and leaving -----------------------------------------------------------------------


def test_an_actor_joins_in_its_place_by_score() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    turn, effects = initiative.join(turn, [entry("kim", 15)])
    assert effects == ["kim joins with 15"]
    assert [a for a, _ in order(turn)] == ["sam", "kim", "goon"]
    assert advanced(turn).action_phase == "kim"
    with conflict("kim is in this combat turn already"):
        initiative.join(turn, [entry("kim", 3)])


def test_joining_needs_a_turn_under_way() -> None:
    with conflict("no combat turn is under way"):
        initiative.join(TurnState(), [entry("kim", 15)])


def test_the_acting_actor_leaving_begins_the_next_phase() -> None:
    turn = started(entry("sam", 20), entry("goon", 8))
    after, crossings, effects = initiative.leave(turn, SR5, "sam")
    assert effects == ["sam leaves the combat turn", "goon's combat phase (pass 1, score 8)"]
    assert crossings == [AdvanceRequest(to="action_phase", actor="goon")]
    assert order(after) == [("goon", 8)]
    # Another leaving changes no phase.
    stays, crossings, _ = initiative.leave(turn, SR5, "goon")
    assert (stays.action_phase, crossings) == ("sam", [])


def test_has_begun_tells_a_fresh_turn_from_one_under_way() -> None:
    assert not initiative.has_begun(TurnState())
    assert initiative.has_begun(TurnState(action_phase="sam"))
    assert initiative.has_begun(TurnState(initiative_pass=2))
    assert initiative.has_begun(started(entry("sam", 20)))
    assert not initiative.has_begun(advanced(started(entry("sam", 5))))


# --- sr3's numbers (service/rules/sr3/tables.py, INITIATIVE) -----------------------------------


def test_sr3_initiative_is_reaction_plus_its_dice_and_ties_go_by_reaction() -> None:
    rolls = [
        InitiativeRoll(actor="sam", reaction=5, initiative_dice=2),
        InitiativeRoll(actor="ganger", reaction=6, modifier=-1),
    ]
    dice = Dice(0, {"initiative:sam": [3, 4], "initiative:ganger": [6]})
    entries = initiative.roll_entries(SR3, rolls, {}, dice)
    # sam 5 + 3 + 4 = 12; the ganger 6 - 1 (a light wound) + 6 = 11.
    assert [(e.actor, e.score, e.ties) for e in entries] == [("sam", 12, [5]), ("ganger", 11, [6])]
    tied = started(entry("sam", 12, 5), entry("ganger", 12, 6), rules=SR3)
    assert [a for a, _ in order(tied)] == ["ganger", "sam"]


def test_sr3_a_phase_is_the_documents_three_ways() -> None:
    assert SR3.budgets == THREE_WAYS.budgets
    assert SR3.hold_action == "delay_action"


def test_sr3_fires_sa_and_bf_as_simple_actions_and_ss_and_fa_as_complex_ones() -> None:
    # 002, the action tables: Fire Weapon (SA/BF) simple, (SS/FA) complex.
    ruleset = RULESETS["sr3"]
    for mode, kind in (("SA", "simple"), ("BF", "simple"), ("SS", "complex"), ("FA", "complex")):
        modes = ["SS", "SA", "BF", "FA"]
        body = sr3.attack(mode=mode, weapon=sr3.weapon(modes=modes, ammo=30))
        request = msgspec.convert(body, ruleset.attack_type)
        result = ruleset.resolve_attack(request, ruleset.new_state(), TurnState(), Dice(1)).result
        assert ruleset.action_cost(request, result) == ActionCost(kind=kind), mode
    for action, kind in (
        ("take_aim", "simple"),
        ("reload_firearm", "complex"),
        ("gesture", "free"),
    ):
        request = msgspec.convert({"actor": "sam", "action": action}, ruleset.action_type)
        assert ruleset.action_cost(request, None) == ActionCost(kind=kind), action


# --- counted passes, hits and phases given up ahead (the engine's SR4 model) ------------------
# SR4 core rules, "Initiative": the Initiative attribute (Reaction + Intuition) plus the hits of
# as many dice; each actor acts in as many passes as its Initiative Passes; ties by Edge, then
# the Initiative attribute, then Reaction. These rules are the engine's own numbers for that
# model (sr4's table, service/rules/sr4/tables.py INITIATIVE, names the same).
COUNTED = InitiativeRules(
    source="test",
    base=("reaction", "intuition"),
    ties=("edge", initiative.BASE_TIE, "reaction"),
    budgets=(ActionsUsed(free=1, simple=2), ActionsUsed(free=1, complex=1)),
    dice="hits",
    passes="count",
    pass_cost=0,
)
FULL_DEFENSE = ActionCost(kind="complex", or_next_phase=True)


def passes(actor: str, score: int, count: int, *ties: int) -> InitiativeEntry:
    return InitiativeEntry(actor=actor, score=score, ties=list(ties), passes=count)


def test_a_hits_roll_adds_the_hits_of_base_plus_modifier_dice() -> None:
    rolls = [InitiativeRoll(actor="sam", reaction=5, intuition=4, modifier=-1, passes=2)]
    dice = Dice(0, {"initiative:sam": [5, 6, 1, 2, 3, 4, 5, 1]})
    [sam] = initiative.roll_entries(COUNTED, rolls, {}, dice)
    # 9 - 1 = 8 dice; 5, 6, 5 are three hits: 8 + 3.
    assert sam.score == 11
    assert (sam.base, sam.initiative_dice, sam.modifier, sam.passes) == (9, None, -1, 2)
    # Ties: Edge (not given: 0), the Initiative attribute 9, Reaction 5.
    assert sam.ties == [0, 9, 5]
    assert [len(r.values) for r in dice.rolls] == [8]


def test_a_hits_roll_takes_its_passes_from_the_sheet_and_one_without() -> None:
    sheet = SR5Sheet(reaction=3, intuition=3)
    rolls = [InitiativeRoll(actor="sam", score=12), InitiativeRoll(actor="rat", score=7)]
    # The SR5 sheet has no initiative_passes: one pass.
    sam, rat = initiative.roll_entries(COUNTED, rolls, {"rat": SceneActor(sheet=sheet)}, Dice(0))
    assert (sam.passes, rat.passes) == (1, 1)
    # A score given keeps the base tie the roll's fields give.
    assert rat.ties == [0, 6, 3]


def test_a_hits_roll_is_rolled_again_from_its_attribute_and_modifier() -> None:
    rolls = [InitiativeRoll(actor="sam", reaction=2, intuition=2, passes=3)]
    entries = initiative.roll_entries(COUNTED, rolls, {}, Dice(0, {"initiative:sam": [1] * 4}))
    turn = advanced(started(*entries, rules=COUNTED), COUNTED)
    [again] = initiative.roll_again(turn, COUNTED, Dice(0, {"initiative:sam": [6, 6, 5, 1]}))
    assert (again.score, again.passes) == (4 + 3, 3)


def test_ties_break_by_edge_then_the_initiative_attribute() -> None:
    rolls = [
        InitiativeRoll(actor="low", score=10, reaction=3, intuition=3, edge=2),
        InitiativeRoll(actor="high", score=10, reaction=4, intuition=4, edge=2),
        InitiativeRoll(actor="lucky", score=10, reaction=1, intuition=1, edge=5),
    ]
    entries = initiative.roll_entries(COUNTED, rolls, {}, Dice(0))
    assert [e.actor for e in initiative.ordered(entries)] == ["lucky", "high", "low"]


def test_each_actor_acts_in_as_many_passes_as_it_has_and_scores_stay() -> None:
    turn = started(passes("sam", 12, 3), passes("rat", 15, 1), passes("ork", 8, 2), rules=COUNTED)
    seen = []
    while turn.initiative is not None and not turn.initiative.over:
        seen.append((turn.initiative_pass, turn.initiative.current))
        turn = advanced(turn, COUNTED)
    assert seen == [
        (1, "rat"),
        (1, "sam"),
        (1, "ork"),
        (2, "sam"),
        (2, "ork"),
        (3, "sam"),
    ]
    assert turn.initiative is not None
    assert order(turn) == [("rat", 15), ("sam", 12), ("ork", 8)]


def test_a_counted_pass_says_who_goes_on_without_taking_anything_off() -> None:
    turn = started(passes("sam", 12, 2), passes("rat", 15, 1), rules=COUNTED)
    turn = advanced(turn, COUNTED)
    after, crossings, effects = initiative.advance(turn, COUNTED, NEXT)
    assert "pass 2: sam 12" in effects
    assert not any("off every score" in e for e in effects)
    assert [c.to for c in crossings] == ["initiative_pass", "action_phase"]
    after, crossings, effects = initiative.advance(after, COUNTED, NEXT)
    assert "pass 2 is over; nobody has a pass left" in effects
    assert [c.to for c in crossings] == ["combat_turn"]


def test_full_defense_in_the_own_phase_is_its_complex_action() -> None:
    turn = started(passes("sam", 12, 2), passes("rat", 9, 1), rules=COUNTED)
    after, effects = initiative.spend(turn, COUNTED, "sam", FULL_DEFENSE, "full defense", "$")
    assert after.initiative is not None
    assert after.initiative.used == ActionsUsed(complex=1)
    assert effects == []
    with conflict("takes a complex action and sam has 1 free left"):
        initiative.spend(after, COUNTED, "sam", FULL_DEFENSE, "full defense", "$")


def test_full_defense_outside_the_own_phase_takes_the_next_phase() -> None:
    turn = started(passes("sam", 12, 2), passes("rat", 9, 1), rules=COUNTED)
    after, effects = initiative.spend(turn, COUNTED, "rat", FULL_DEFENSE, "full defense", "$")
    assert effects == ["rat gives its next action phase to full defense"]
    # Sam's phase ends; rat's phase of this pass passes it by; pass 2 is sam's alone.
    after, crossings, effects = initiative.advance(after, COUNTED, NEXT)
    assert "rat has given this phase up (taken ahead)" in effects
    assert after.initiative is not None
    assert (after.initiative_pass, after.initiative.current) == (2, "sam")
    assert [c.to for c in crossings] == ["initiative_pass", "action_phase"]
    # Rat has no phase left in this combat turn to give.
    with conflict("takes rat's next action phase and it has none left"):
        initiative.spend(after, COUNTED, "rat", FULL_DEFENSE, "full defense", "$")


def test_a_phase_given_up_ahead_is_forgotten_when_the_turn_ends() -> None:
    turn = started(passes("sam", 12, 1), passes("rat", 9, 2), rules=COUNTED)
    after, _ = initiative.spend(turn, COUNTED, "rat", FULL_DEFENSE, "full defense", "$")
    after, _, _ = initiative.advance(after, COUNTED, AdvanceRequest(to="combat_turn"))
    assert after.initiative is not None
    assert [e.lost for e in after.initiative.entries] == [0, 0]


def test_the_score_model_counts_phases_left_by_the_score() -> None:
    # SR5's numbers with the next-phase cost (no SR5 action has it; the engine allows it):
    # a score of 25 has phases at 25, 15 and 5.
    turn = started(entry("sam", 30), entry("rat", 25))
    after, _ = initiative.spend(turn, SR5, "rat", FULL_DEFENSE, "x", "$")
    after, _ = initiative.spend(after, SR5, "rat", FULL_DEFENSE, "x", "$")
    after, _ = initiative.spend(after, SR5, "rat", FULL_DEFENSE, "x", "$")
    with conflict("none left"):
        initiative.spend(after, SR5, "rat", FULL_DEFENSE, "x", "$")


def test_phases_given_up_ahead_stay_within_what_the_state_holds() -> None:
    # A score of 95 has ten phases; the state keeps at most four given up ahead, so the fifth
    # is refused rather than written as a state that could not be read back.
    turn = started(entry("sam", 100), entry("rat", 95))
    for _ in range(4):
        turn, _ = initiative.spend(turn, SR5, "rat", FULL_DEFENSE, "x", "$")
    with conflict("none left"):
        initiative.spend(turn, SR5, "rat", FULL_DEFENSE, "x", "$")
    assert turn.initiative is not None
    msgspec.json.decode(msgspec.json.encode(turn), type=TurnState)


def test_described_tells_how_the_dice_and_passes_count() -> None:
    told = initiative.described(COUNTED)
    assert (told.dice, told.passes, told.pass_cost) == ("hits", "count", 0)
    assert (initiative.described(SR5).passes, initiative.described(SR5).pass_cost) == (
        "score",
        10,
    )


# --- actors out of the fight (issue 24: unconscious, dying or dead on their monitors) ----------


def test_an_actor_out_of_the_fight_is_passed_over_at_the_start_and_on_advance() -> None:
    out = {"rat": "unconscious"}
    # Scores 27, 14, 8: rat (14) is out, so pass 1 goes sam, goon.
    turn, _, effects = initiative.start(
        TurnState(), SR5, [entry("sam", 27), entry("rat", 14), entry("goon", 8)], out
    )
    assert turn.action_phase == "sam"
    phases = [turn.action_phase]
    said = list(effects)
    while turn.initiative is not None and not turn.initiative.over:
        turn, _, effects = initiative.advance(turn, SR5, NEXT, out)
        phases.append(turn.action_phase)
        said.extend(effects)
    # Pass 1: sam 27, (rat 14 passed over), goon 8; pass 2 (10 off): sam 17, (rat 4 passed
    # over); pass 3: sam 7; then the turn is over.
    assert phases == ["sam", "goon", "sam", "sam", None]
    assert said.count("rat is unconscious: its phase is passed over") == 2


def test_an_actor_out_of_the_fight_with_the_highest_score_does_not_begin_the_turn() -> None:
    turn, _, effects = initiative.start(
        TurnState(), SR5, [entry("sam", 27), entry("goon", 8)], {"sam": "dead"}
    )
    assert (turn.action_phase, turn.initiative_pass) == ("goon", 1)
    assert effects[1:] == [
        "sam is dead: its phase is passed over",
        "goon's combat phase (pass 1, score 8)",
    ]


def test_when_everyone_is_out_of_the_fight_the_turn_ends() -> None:
    # sam 12 (pass 1, then 2 at pass 2): passed over both times; then the turn is over.
    turn, _, effects = initiative.start(
        TurnState(), SR5, [entry("sam", 12)], {"sam": "unconscious"}
    )
    assert turn.initiative is not None and turn.initiative.over
    assert effects.count("sam is unconscious: its phase is passed over") == 2
    assert effects[-1] == "combat turn 1 is over; start the next with POST .../initiative"


def test_an_actor_out_of_the_fight_cannot_step_in() -> None:
    turn = started(entry("sam", 27), entry("goon", 8))
    with conflict("'goon' is unconscious: it cannot act"):
        initiative.advance(
            turn, SR5, AdvanceRequest(to="action_phase", actor="goon"), {"goon": "unconscious"}
        )
