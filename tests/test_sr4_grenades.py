"""SR4 grenades (001_2cfc288dfef1df08.txt, "GRENADES"): scatter, the blast, barriers, the confined
space and the timing, through service/rules/sr4/grenades.py with given dice. Every number is
worked by hand in the comments."""

from __future__ import annotations

import math

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.common import Point
from schemas.encounter import AdvanceRequest, TurnState
from schemas.initiative import Initiative, InitiativeEntry
from schemas.scene import SceneActor
from schemas.sr4 import (
    SR4AttackRequest,
    SR4Barrier,
    SR4BlastActor,
    SR4Grenade,
    SR4PendingGrenade,
    SR4Sheet,
    SR4State,
    SR4Test,
)
from service.rules.dice import Dice
from service.rules.ruleset import RuleViolation
from service.rules.sr4 import grenade_attack, grenade_timing, grenades
from service.rules.sr4.grenade_attack import GrenadeAttack

ROOT3 = math.sqrt(3)


def p(x: float, y: float) -> Point:
    return Point(x=x, y=y)


def actor(
    actor_id: str, x: float, y: float, body: int | None = None, impact: int | None = None
) -> SR4BlastActor:
    return SR4BlastActor(id=actor_id, position=p(x, y), body=body, impact_armor=impact)


def wall(
    wall_id: str,
    start: tuple[float, float],
    end: tuple[float, float],
    armor: int,
    structure: int,
    holds: bool | None = None,
) -> SR4Barrier:
    return SR4Barrier(
        id=wall_id, start=p(*start), end=p(*end), armor=armor, structure=structure, holds=holds
    )


def numbers_of(kind: str, **given: object) -> grenades.SR4GrenadeNumbers:
    return grenades.numbers(SR4Grenade(type=kind, **given), "$.grenade")  # type: ignore[arg-type]


def hit_of(result: grenades.SR4BlastResult, actor_id: str) -> grenades.SR4BlastHit:
    return next(h for h in result.hits if h.actor == actor_id)


# --- the grenade's numbers ---------------------------------------------------------------------


def test_the_table_gives_a_grenades_damage_code_and_the_request_overrides_it() -> None:
    frag = numbers_of("fragmentation")
    assert (frag.dv, frag.damage_type, frag.ap, frag.falloff_per_m, frag.radius_m) == (
        12,
        "P",
        5,
        1,
        None,
    )
    flash = numbers_of("flash_bang")
    assert (flash.dv, flash.damage_type, flash.falloff_per_m, flash.radius_m) == (6, "S", 0, 10.0)
    he = numbers_of("high_explosive", dv=14, falloff_per_m=3)
    assert (he.dv, he.ap, he.falloff_per_m) == (14, -2, 3)


def test_a_custom_grenade_gives_every_number() -> None:
    with pytest.raises(RuleViolation) as raised:
        numbers_of("custom", dv=8)
    assert raised.value.kind == "grenade-incomplete"
    assert raised.value.path == "$.grenade.damage_type"
    with pytest.raises(RuleViolation) as raised:
        numbers_of("custom", dv=8, damage_type="P")
    assert raised.value.path == "$.grenade.falloff_per_m"
    made = numbers_of("custom", dv=8, damage_type="P", radius_m=4.0)
    assert (made.dv, made.falloff_per_m, made.radius_m, made.ap) == (8, 0, 4.0, 0)


# --- scatter -----------------------------------------------------------------------------------

# Thrown from (0, 0) at (0, 10): the throw heads +y. A standard grenade rolls 3D6 = 3+3+2 = 8 m,
# less 2 m for its 1 net hit: 6 m in the direction rolled. 1 straight on, then 60 degrees
# clockwise per step: 2 is 60 degrees right of the throw (x + 6 sin 60, y + 6 cos 60).
SIX_SIN60 = 3 * ROOT3


@pytest.mark.parametrize(
    ("direction", "landed"),
    [
        (1, (0.0, 16.0)),
        (2, (SIX_SIN60, 13.0)),
        (3, (SIX_SIN60, 7.0)),
        (4, (0.0, 4.0)),
        (5, (-SIX_SIN60, 7.0)),
        (6, (-SIX_SIN60, 13.0)),
    ],
)
def test_each_scatter_direction(direction: int, landed: tuple[float, float]) -> None:
    dice = Dice(0, {"scatter_direction": [direction], "scatter": [3, 3, 2]})
    result = grenades.scatter(p(0, 10), p(0, 0), SR4Grenade(type="fragmentation"), 1, dice)
    assert result.direction == direction
    assert (result.dice, result.rolled_m, result.per_hit_m, result.distance_m) == (3, 8, 2, 6.0)
    assert result.landed.x == pytest.approx(landed[0], abs=1e-3)
    assert result.landed.y == pytest.approx(landed[1], abs=1e-3)
    assert not result.on_target and result.extra_dv == 0


def test_the_scatter_diagram_turns_with_the_throw_and_defaults_to_plus_y() -> None:
    # Thrown along +x at (10, 0): direction 2 turns 60 degrees clockwise, toward -y:
    # (10 + 6 cos 60, -6 sin 60) = (13, -5.196).
    dice = Dice(0, {"scatter_direction": [2], "scatter": [3, 3, 2]})
    result = grenades.scatter(p(10, 0), p(0, 0), SR4Grenade(type="fragmentation"), 1, dice)
    assert (result.landed.x, result.landed.y) == pytest.approx((13.0, -SIX_SIN60), abs=1e-3)
    # No thrower's position: direction 1 is +y.
    dice = Dice(0, {"scatter_direction": [1], "scatter": [3, 3, 2]})
    result = grenades.scatter(p(5, 5), None, SR4Grenade(type="fragmentation"), 1, dice)
    assert (result.landed.x, result.landed.y) == (5.0, 11.0)


def test_aerodynamic_grenades_roll_2d6_less_4_m_per_net_hit() -> None:
    # 2D6 = 6 + 5 = 11 m, less 4 m x 2 net hits = 3 m on (direction 1).
    dice = Dice(0, {"scatter_direction": [1], "scatter": [6, 5]})
    grenade = SR4Grenade(type="high_explosive", delivery="aerodynamic")
    result = grenades.scatter(p(0, 10), p(0, 0), grenade, 2, dice)
    assert (result.dice, result.rolled_m, result.per_hit_m, result.distance_m) == (2, 11, 4, 3.0)
    assert (result.landed.x, result.landed.y) == (0.0, 13.0)


def test_airburst_rolls_1d6_and_the_request_may_give_the_dice() -> None:
    dice = Dice(0, {"scatter_direction": [1], "scatter": [4]})
    result = grenades.scatter(
        p(0, 10), p(0, 0), SR4Grenade(type="fragmentation", airburst=True), 0, dice
    )
    assert (result.dice, result.distance_m) == (1, 4.0)
    dice = Dice(0, {"scatter_direction": [1], "scatter": [1, 1, 1, 1, 1]})
    result = grenades.scatter(
        p(0, 10), p(0, 0), SR4Grenade(type="fragmentation", scatter_dice=5), 0, dice
    )
    assert (result.dice, result.distance_m) == (5, 5.0)


def test_at_0_m_or_less_it_lands_on_target_and_the_hits_left_add_to_the_dv() -> None:
    # 3D6 = 2 + 2 + 1 = 5 m; 3 of the 5 net hits take it to 0 (6 m >= 5 m): 2 hits are left.
    dice = Dice(0, {"scatter_direction": [3], "scatter": [2, 2, 1]})
    result = grenades.scatter(p(0, 10), p(0, 0), SR4Grenade(type="fragmentation"), 5, dice)
    assert result.on_target and result.distance_m == 0.0
    assert (result.landed.x, result.landed.y) == (0.0, 10.0)
    assert result.extra_dv == 2
    # Exactly enough hits (5 m - 2 x 3 = -1, 3 hits needed): none left over.
    dice = Dice(0, {"scatter_direction": [3], "scatter": [2, 2, 1]})
    result = grenades.scatter(p(0, 10), p(0, 0), SR4Grenade(type="fragmentation"), 3, dice)
    assert result.on_target and result.extra_dv == 0


def test_a_launcher_is_never_aimed_closer_than_it_arms() -> None:
    launcher = SR4Grenade(type="high_explosive", delivery="launcher")
    with pytest.raises(RuleViolation) as raised:
        grenades.check_arming(launcher, p(0, 0), p(0, 4), "$.aim_point")
    assert (raised.value.kind, raised.value.path, raised.value.status) == (
        "below-minimum-range",
        "$.aim_point",
        422,
    )
    grenades.check_arming(launcher, p(0, 0), p(0, 5), "$.aim_point")
    # The safety disarmed, or a thrown grenade: no minimum.
    disarmed = SR4Grenade(type="high_explosive", delivery="launcher", arming_m=0)
    grenades.check_arming(disarmed, p(0, 0), p(0, 1), "$.aim_point")
    grenades.check_arming(SR4Grenade(type="high_explosive"), p(0, 0), p(0, 1), "$.aim_point")


def test_a_launcher_grenade_that_lands_within_its_arming_range_is_a_dud() -> None:
    # Aimed 8 m out; 3D6 = 4 + 4 + 2 = 10 m less 4 m x 1 = 6 m back toward the launcher
    # (direction 4): it lands 2 m from the launcher, short of the 5 m it needs to arm.
    launcher = SR4Grenade(type="high_explosive", delivery="launcher")
    dice = Dice(0, {"scatter_direction": [4], "scatter": [4, 4, 2]})
    result = grenades.scatter(p(0, 8), p(0, 0), launcher, 1, dice)
    assert (result.landed.x, result.landed.y) == (0.0, 2.0)
    assert result.dud
    # The same scatter straight on (direction 1) lands 14 m out, armed.
    dice = Dice(0, {"scatter_direction": [1], "scatter": [4, 4, 2]})
    assert not grenades.scatter(p(0, 8), p(0, 0), launcher, 1, dice).dud


# --- the blast ---------------------------------------------------------------------------------


def test_the_dv_falls_off_per_whole_metre_and_the_body_and_impact_armor_resist() -> None:
    # High explosive 10P, AP -2, -2 per metre. "near" at 3.5 m: 3 whole metres, 10 - 6 = 4.
    # Its impact armor 3 less AP 2 = 1; 4 > 1: Physical. Body 4 + 1 = 5 dice, one hit: 3 boxes.
    # "far" at 5 m: 10 - 10 = 0, not hit.
    dice = Dice(0, {"soak:near": [5, 1, 1, 2, 3]})
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("high_explosive"),
        [actor("near", 3.5, 0, body=4, impact=3), actor("far", 0, 5, body=4, impact=3)],
        [],
        False,
        dice,
    )
    assert [h.actor for h in result.hits] == ["near"]
    near = hit_of(result, "near")
    assert (near.distance_m, near.dv_direct, near.dv, near.armor, near.ap) == (3.5, 4, 4, 1, -2)
    assert near.track == "physical"
    assert near.soak is not None and near.soak.pool == 5
    assert (near.soak_hits, near.boxes) == (1, 3)
    assert [(r.step, r.values) for r in result.dice] == [("soak:near", [5, 1, 1, 2, 3])]


def test_an_even_blast_is_full_inside_its_radius_and_nothing_outside() -> None:
    # Flash-bang 6S, AP -3, even over 10 m: "in" at 9.9 m takes 6 (Stun); its impact armor 2
    # less 3 is 0, so Body 3 alone: 6, 6, 1 = 2 hits, 4 boxes. "out" at 10.5 m: nothing.
    dice = Dice(0, {"soak:in": [6, 6, 1]})
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("flash_bang"),
        [actor("in", 9.9, 0, body=3, impact=2), actor("out", 10.5, 0, body=3, impact=2)],
        [],
        False,
        dice,
    )
    assert [h.actor for h in result.hits] == ["in"]
    hit = hit_of(result, "in")
    assert (hit.dv, hit.armor, hit.track, hit.soak_hits, hit.boxes) == (6, 0, "stun", 2, 4)


def test_physical_damage_is_stun_when_the_dv_does_not_exceed_the_armor() -> None:
    # Fragmentation 12P, AP +5, -1/m; impact armor 1 + 5 = 6. At 6 m: DV 6, not above 6: Stun
    # (SR4: equality is stun, 001 "Compare Armor"). At 5 m: DV 7 > 6: Physical.
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("fragmentation"),
        [actor("equal", 6, 0, impact=1), actor("above", 0, 5, impact=1)],
        [],
        False,
        Dice(0),
    )
    equal, above = hit_of(result, "equal"), hit_of(result, "above")
    assert (equal.dv, equal.armor, equal.track) == (6, 6, "stun")
    assert (above.dv, above.armor, above.track) == (7, 6, "physical")


def test_an_actor_without_body_takes_the_dv_as_it_reached_it() -> None:
    # Fragmentation at 4 m: 12 - 4 = 8, no soak test, 8 boxes.
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("fragmentation"),
        [actor("drone", 4, 0)],
        [],
        False,
        Dice(0),
    )
    hit = hit_of(result, "drone")
    assert (hit.dv, hit.soak, hit.soak_hits, hit.boxes) == (8, None, 0, 8)
    assert result.dice == []


def test_the_hits_left_over_add_to_every_dv_of_the_blast() -> None:
    # 2 extra DV: fragmentation at 4 m is 12 + 2 - 4 = 10.
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("fragmentation"),
        [actor("drone", 4, 0)],
        [],
        False,
        Dice(0),
        extra_dv=2,
    )
    assert result.dv == 14
    assert hit_of(result, "drone").dv == 10


# A wall 2 m east of the blast point, running north-south.
EAST_WALL = ((2.0, -5.0), (2.0, 5.0))


def test_a_barrier_that_holds_shields_those_behind_it() -> None:
    # High explosive at (0, 0): 10 - 2 x 2 = 6 DV at the wall, doubled against a barrier: 12,
    # not above its armor 12, so it holds without a test. "behind" at (4, 0) would have taken
    # 10 - 8 = 2: shielded, no damage. "front" at (0, 1) takes 10 - 2 = 8.
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("high_explosive"),
        [actor("behind", 4, 0), actor("front", 0, 1)],
        [wall("w", *EAST_WALL, armor=12, structure=10)],
        False,
        Dice(0),
    )
    [barrier] = result.barriers
    assert (barrier.barrier, barrier.dv, barrier.test, barrier.holds) == ("w", 12, None, True)
    assert not barrier.reflects
    behind = hit_of(result, "behind")
    assert (behind.shielded_by, behind.dv, behind.boxes) == ("w", 0, 0)
    assert hit_of(result, "front").dv == 8


def test_a_barrier_that_falls_adds_its_armor_to_those_behind() -> None:
    # 12 doubled DV at the wall beats its armor 4: it resists with Structure 3 + Armor 4 = 7
    # dice, one hit: 11 damage, past its Structure 3: it falls. "behind" at (3, 0) takes
    # 10 - 6 = 4 with impact armor 2 + the wall's 4 - AP 2 = 4: 4 does not exceed 4, Stun.
    # Body 3 + 4 = 7 dice, 2 hits: 2 boxes.
    dice = Dice(0, {"barrier:w": [5, 1, 1, 1, 1, 1, 2], "soak:behind": [5, 5, 1, 1, 1, 1, 1]})
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("high_explosive"),
        [actor("behind", 3, 0, body=3, impact=2)],
        [wall("w", *EAST_WALL, armor=4, structure=3)],
        False,
        dice,
    )
    [barrier] = result.barriers
    assert barrier.test is not None and barrier.test.pool == 7
    assert (barrier.dv, barrier.damage, barrier.holds) == (12, 11, False)
    behind = hit_of(result, "behind")
    assert behind.shielded_by is None
    assert [(m.source, m.value) for m in behind.armor_modifiers] == [
        ("impact armor", 2),
        ("barrier w (fell)", 4),
    ]
    assert (behind.dv, behind.armor, behind.track, behind.soak_hits, behind.boxes) == (
        4,
        4,
        "stun",
        2,
        2,
    )


@pytest.mark.parametrize(("faces", "holds"), [([1] * 16, False), ([5] + [1] * 15, True)])
def test_the_barrier_test_decides_whether_it_holds(faces: list[int], holds: bool) -> None:
    # Doubled DV 12 beats armor 4; Structure 12 + Armor 4 = 16 dice. No hit: 12 damage reaches
    # its Structure 12, it falls. One hit: 11, it holds.
    dice = Dice(0, {"barrier:w": faces})
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("high_explosive"),
        [actor("behind", 3, 0)],
        [wall("w", *EAST_WALL, armor=4, structure=12)],
        False,
        dice,
    )
    [barrier] = result.barriers
    assert barrier.test is not None and barrier.test.pool == 16
    assert barrier.holds is holds
    assert (hit_of(result, "behind").shielded_by == "w") is holds


def test_the_gms_word_on_a_barrier_wins_over_the_test() -> None:
    # Armor 20 would hold; the GM says it falls: no test, and the blast goes through.
    result = grenades.blast(
        "g1",
        "sam",
        p(0, 0),
        numbers_of("high_explosive"),
        [actor("behind", 3, 0)],
        [wall("w", *EAST_WALL, armor=20, structure=20, holds=False)],
        False,
        Dice(0),
    )
    [barrier] = result.barriers
    assert (barrier.test, barrier.holds) == (None, False)
    assert hit_of(result, "behind").dv == 4


# A 10 m square room, walls of armor 20 (a fragmentation grenade at its centre reaches each
# wall with 12 - 5 = 7, doubled 14: not above 20, they all hold).
ROOM = [
    wall("south", (0, 0), (10, 0), armor=20, structure=20),
    wall("east", (10, 0), (10, 10), armor=20, structure=20),
    wall("north", (10, 10), (0, 10), armor=20, structure=20),
    wall("west", (0, 10), (0, 0), armor=20, structure=20),
]


def test_in_a_confined_room_the_wave_rebounds_and_the_dvs_add_up() -> None:
    # Fragmentation 12P -1/m at (5, 5); "inside" at (5, 7).
    # Out: 2 m, 12 - 2 = 10.
    # Back off the north wall: from the mirrored point (5, 15), 8 m: 12 - 8 = 4.
    # Back off the west and east walls: from (-5, 5) and (15, 5), sqrt(10^2 + 2^2) = 10.2 m,
    # 10 whole metres: 2 each. Off the south wall: from (5, -5), 12 m: nothing.
    # Chunky salsa: 10 + 4 + 2 + 2 = 18. Impact armor 0 + AP 5 = 5: Physical, no Body: 18 boxes.
    # "outside" at (15, 3), past the east wall, which holds: shielded (it would have taken
    # 12 - 10 = 2), and no rebound gets out.
    result = grenades.blast(
        "g1",
        "sam",
        p(5, 5),
        numbers_of("fragmentation"),
        [actor("inside", 5, 7), actor("outside", 15, 3)],
        ROOM,
        True,
        Dice(0),
    )
    assert [(b.barrier, b.dv, b.holds, b.reflects) for b in result.barriers] == [
        ("south", 14, True, True),
        ("east", 14, True, True),
        ("north", 14, True, True),
        ("west", 14, True, True),
    ]
    inside = hit_of(result, "inside")
    assert (inside.dv_direct, inside.dv_rebound, inside.dv) == (10, 8, 18)
    assert (inside.track, inside.boxes) == ("physical", 18)
    outside = hit_of(result, "outside")
    assert (outside.shielded_by, outside.dv_rebound, outside.dv) == ("east", 0, 0)
    # Out in the open the same walls send nothing back, and only the one between the blast
    # and someone is tested.
    result = grenades.blast(
        "g1",
        "sam",
        p(5, 5),
        numbers_of("fragmentation"),
        [actor("inside", 5, 7), actor("outside", 15, 3)],
        ROOM,
        False,
        Dice(0),
    )
    assert [b.barrier for b in result.barriers] == ["east"]
    assert hit_of(result, "inside").dv == 10


def test_a_wall_that_falls_sends_nothing_back() -> None:
    # The GM says the north wall gives: the rebound off it (4) is gone, 10 + 2 + 2 = 14.
    room = [w if w.id != "north" else wall("north", (10, 10), (0, 10), 20, 20, False) for w in ROOM]
    result = grenades.blast(
        "g1",
        "sam",
        p(5, 5),
        numbers_of("fragmentation"),
        [actor("inside", 5, 7)],
        room,
        True,
        Dice(0),
    )
    inside = hit_of(result, "inside")
    assert (inside.dv_rebound, inside.dv) == (4, 14)


# --- when a thrown grenade goes off ------------------------------------------------------------


def entries(**scores: int | tuple[int, int]) -> list[InitiativeEntry]:
    """Actors by score, or by (score, Initiative Passes) for SR4's counted passes."""
    made = []
    for actor_id, score in scores.items():
        if isinstance(score, tuple):
            made.append(InitiativeEntry(actor=actor_id, score=score[0], passes=score[1]))
        else:
            made.append(InitiativeEntry(actor=actor_id, score=score))
    return made


def turn_with(
    pass_: int, current: str | None, combat_turn: int = 1, **scores: int | tuple[int, int]
) -> TurnState:
    return TurnState(
        combat_turn=combat_turn,
        initiative_pass=pass_,
        action_phase=current,
        initiative=Initiative(entries=entries(**scores), current=current),
    )


def thrown(turn: TurnState, thrower: str = "sam") -> SR4PendingGrenade:
    return grenade_timing.pending_grenade(
        0, [], thrower, p(0, 0), numbers_of("fragmentation"), turn, [], False, 7, "$.grenade"
    )


PHASE = "action_phase"


def crossed(
    grenade: SR4PendingGrenade, turn: TurnState, *moves: tuple[str, str | None]
) -> list[bool]:
    """Whether the grenade had gone off after each move (all seeing `turn`)."""
    pending = [grenade]
    gone = []
    for to, who in moves:
        crossing = AdvanceRequest(to=to, actor=who)  # type: ignore[arg-type]
        pending, going = grenade_timing.due(crossing, pending, turn)
        gone.append(bool(going))
    return gone


def test_a_thrown_grenade_is_held_with_the_throwers_score_and_a_seed_of_its_own() -> None:
    turn = turn_with(1, "sam", goon=(20, 2), sam=(15, 2), rat=(12, 2))
    grenade = thrown(turn)
    assert (grenade.id, grenade.combat_turn, grenade.initiative_pass, grenade.score) == (
        "g1",
        1,
        1,
        15,
    )
    assert grenade.seed == grenade_timing.detonation_seed(7) != grenade_timing.detonation_seed(8)
    assert thrown(TurnState()).score is None


# SR4 counts passes (the scores stay as rolled): goon 20, sam 15, rat 12, two passes each
# unless said otherwise; sam throws in pass 1.


def test_it_goes_off_at_the_throwers_phase_of_the_next_pass() -> None:
    # Pass 2 begins with goon's phase (20, above sam's 15): not yet; then sam's own: now.
    turn = turn_with(1, "sam", goon=(20, 2), sam=(15, 2), rat=(12, 2))
    grenade = thrown(turn)
    pass_2 = turn_with(2, "goon", goon=(20, 2), sam=(15, 2), rat=(12, 2))
    moves = [("initiative_pass", None), (PHASE, "goon"), (PHASE, "sam")]
    assert crossed(grenade, pass_2, *moves) == [False, False, True]


def test_it_does_not_go_off_in_the_pass_it_was_thrown_in() -> None:
    # rat's phase later in pass 1 is below sam's 15, but it is the throw's own pass.
    turn = turn_with(1, "rat", goon=(20, 2), sam=(15, 2), rat=(12, 2))
    assert crossed(thrown(turn), turn, (PHASE, "rat")) == [False]


def test_it_goes_off_before_the_first_phase_below_the_throwers_score() -> None:
    # sam has one pass: in pass 2 goon acts at 20 (not yet), then rat at 12, below 15: now.
    pass_2 = turn_with(2, "goon", goon=(20, 2), sam=(15, 1), rat=(12, 2))
    grenade = thrown(turn_with(1, "sam", goon=(20, 2), sam=(15, 1), rat=(12, 2)))
    moves = [("initiative_pass", None), (PHASE, "goon"), (PHASE, "rat")]
    assert crossed(grenade, pass_2, *moves) == [False, False, True]
    # sam has left the order since: the score it threw at counts.
    left = turn_with(2, "rat", goon=(20, 2), rat=(12, 2))
    assert crossed(grenade, left, ("initiative_pass", None), (PHASE, "rat")) == [False, True]


def test_it_goes_off_at_the_end_of_the_next_pass_when_no_phase_below_comes() -> None:
    # Only goon (20) acts in pass 2; the end of pass 2 (a new pass, or the end of the combat
    # turn) sets it off.
    grenade = thrown(turn_with(1, "sam", goon=(20, 3), sam=(15, 1)))
    pass_2 = turn_with(2, "goon", goon=(20, 3), sam=(15, 1))
    for end in ("initiative_pass", "combat_turn"):
        moves = [("initiative_pass", None), (PHASE, "goon"), (end, None)]
        assert crossed(grenade, pass_2, *moves) == [False, False, True]


def test_thrown_in_the_last_pass_it_goes_off_in_the_first_pass_of_the_next_turn() -> None:
    # Thrown in pass 2 of combat turn 1; the turn ends; combat turn 2 starts with sam 14,
    # goon 11: sam's own phase comes first, and it goes off then.
    grenade = thrown(turn_with(2, "sam", goon=(20, 2), sam=(15, 2)))
    turn_2 = turn_with(1, "sam", combat_turn=2, sam=(14, 1), goon=(11, 1))
    assert crossed(grenade, turn_2, ("combat_turn", None), (PHASE, "sam")) == [False, True]


def test_with_scores_that_fall_each_pass_the_throwers_score_in_that_pass_counts() -> None:
    # A ruleset that takes 10 off every score each pass (SR3's model): sam threw at 15; in
    # pass 2 goon has 10 and sam 5. goon's 10 is above sam's 5 (the 15 sam threw at is no
    # longer anyone's): not yet; sam's phase: now.
    grenade = thrown(turn_with(1, "sam", goon=20, sam=15, rat=12))
    pass_2 = turn_with(2, "goon", goon=10, sam=5, rat=2)
    moves = [("initiative_pass", None), (PHASE, "goon"), (PHASE, "sam")]
    assert crossed(grenade, pass_2, *moves) == [False, False, True]


def test_without_the_services_initiative_it_waits_for_the_throwers_next_phase() -> None:
    # The VTT runs the initiative: no scores. Thrown in pass 1: sam's phase in pass 1 again
    # (a held action) does not set it off; in pass 2 goon's phase does not; sam's does.
    grenade = thrown(TurnState(action_phase="sam"))
    assert grenade.score is None
    vtt = TurnState(initiative_pass=2, action_phase="sam")
    assert crossed(
        grenade, vtt, (PHASE, "sam"), ("initiative_pass", None), (PHASE, "goon"), (PHASE, "sam")
    ) == [False, False, False, True]
    # Or the second pass boundary after the throw, when the VTT moves passes without phases.
    assert crossed(grenade, vtt, ("initiative_pass", None), ("combat_turn", None)) == [False, True]


def test_a_grenade_goes_off_on_the_scene_as_it_is_then() -> None:
    # Thrown at (0, 0); before it goes off "goon" ran to 3 m (12 - 3 = 9) and "rat" out of
    # reach to 20 m. No sheets: no soak, the DV as boxes.
    grenade = thrown(TurnState(action_phase="sam"))
    grenade = grenade_timing.due(AdvanceRequest(to="initiative_pass"), [grenade], TurnState())[0][0]
    scene = {
        "goon": SceneActor(position=p(3, 0)),
        "rat": SceneActor(position=p(20, 0)),
        "nowhere": SceneActor(),
    }
    waiting, blasts, notes = grenade_timing.went_off_blasts(
        AdvanceRequest(to="action_phase", actor="sam"), [grenade], TurnState(), scene
    )
    assert waiting == []
    [result] = blasts
    assert [(h.actor, h.dv, h.boxes) for h in result.hits] == [("goon", 9, 9)]
    assert result.seed == grenade.seed
    assert notes == ["sam's grenade g1 goes off at (0, 0): goon 9P"]


def test_the_map_shows_a_waiting_grenade_as_far_as_it_hurts() -> None:
    # Fragmentation 12 -1/m: 11 at 1 m ... 1 at 11 m, 0 at 12 m: it hurts within 12 m.
    zone = grenade_timing.pending_zone(thrown(TurnState()))
    assert (zone.shape, zone.radius_m, zone.center) == ("circle", 12.0, p(0, 0))
    assert grenades.dv_at(numbers_of("fragmentation"), 0, 11.9) == 1
    assert grenades.dv_at(numbers_of("fragmentation"), 0, 12.0) == 0


# --- invariants --------------------------------------------------------------------------------

coordinates = st.floats(-15, 15, allow_nan=False).map(lambda v: round(v, 2))
blast_actors = st.lists(
    st.builds(
        actor,
        st.sampled_from(["a", "b", "c", "d"]),
        coordinates,
        coordinates,
        st.none() | st.integers(1, 8),
        st.none() | st.integers(0, 12),
    ),
    max_size=4,
    unique_by=lambda a: a.id,
)
walls = st.lists(
    st.builds(
        wall,
        st.sampled_from(["w1", "w2", "w3"]),
        st.tuples(coordinates, coordinates),
        st.tuples(coordinates, coordinates),
        st.integers(0, 20),
        st.integers(0, 20),
        st.none() | st.booleans(),
    ),
    max_size=3,
    unique_by=lambda w: w.id,
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(["fragmentation", "high_explosive", "flash_bang"]),
    actors=blast_actors,
    barriers=walls,
    seed=st.integers(0, 2**63 - 1),
)
def test_a_blast_never_does_negative_damage_replays_and_a_confined_one_is_never_milder(
    kind: str, actors: list[SR4BlastActor], barriers: list[SR4Barrier], seed: int
) -> None:
    numbers = numbers_of(kind)
    confined = grenades.blast("g1", "sam", p(0, 0), numbers, actors, barriers, True, Dice(seed))
    again = grenades.blast("g1", "sam", p(0, 0), numbers, actors, barriers, True, Dice(seed))
    assert confined == again
    for hit in confined.hits:
        assert hit.dv == hit.dv_direct + hit.dv_rebound >= 0
        assert 0 <= hit.boxes <= hit.dv and hit.armor >= 0
        assert hit.shielded_by is None or hit.dv_direct == 0
    # With the GM saying which walls hold (no tests to differ), the walls that send the wave
    # back only add to what the open blast does.
    said = [msgspec.structs.replace(w, holds=w.holds is not False) for w in barriers]
    walled = grenades.blast("g1", "sam", p(0, 0), numbers, actors, said, True, Dice(seed))
    open_ = grenades.blast("g1", "sam", p(0, 0), numbers, actors, said, False, Dice(seed))
    dvs = {h.actor: h.dv for h in walled.hits}
    for hit in open_.hits:
        assert dvs[hit.actor] >= hit.dv


# --- the attack: resolve_grenade, and went_off on the state --------------------------------------


def attack_request(**fields: object) -> SR4AttackRequest:
    body: dict[str, object] = {
        "attacker": {"id": "sam", "agility": 4, "skill": 3},
        "weapon": {
            "id": "frag",
            "category": "standard_grenade",
            "damage": 0,
            "modes": ["SS"],
            "ammo": 2,
        },
        "mode": "SS",
        "grenade": {"type": "fragmentation"},
        "origin": {"x": 0, "y": 0},
    }
    body.update(fields)
    return msgspec.convert(body, SR4AttackRequest)


def made(net_hits: int, defense: SR4Test | None = None) -> GrenadeAttack:
    test = SR4Test(
        pool=7,
        hits=net_hits + (defense.hits if defense else 0),
        ones=0,
        glitch=False,
        critical_glitch=False,
    )
    return GrenadeAttack(
        pool=7, modifiers=[], test=test, defense=defense, defense_modifiers=[], net_hits=net_hits
    )


def test_an_airburst_grenade_goes_off_at_once_with_the_hits_left_over() -> None:
    # Aimed at (0, 10), 3 hits (a point: a success test). Airburst: 1D6 = 3 m, less 2 m x 3:
    # on the point, 2 hits take it to 0 and 1 is left: DV 12 + 1 = 13. "goon" 3 m away: 10;
    # impact armor 2 + AP 5 = 7, 10 > 7: Physical; Body 3 + 7 = 10 dice, 3 hits: 7 boxes.
    request = attack_request(
        grenade={"type": "fragmentation", "airburst": True},
        aim_point={"x": 0, "y": 10},
        bystanders=[{"id": "goon", "position": {"x": 0, "y": 13}, "body": 3, "impact_armor": 2}],
    )
    dice = Dice(5, {"scatter_direction": [2], "scatter": [3], "soak:goon": [5, 5, 5] + [1] * 7})
    resolution = grenade_attack.resolve_grenade(request, SR4State(), TurnState(), dice, made(3))
    result = resolution.result
    assert result.scatter is not None and result.scatter.on_target
    assert result.scatter.extra_dv == 1
    assert result.blast is not None and result.pending_grenade is None
    assert (result.blast.grenade, result.blast.dv, result.blast.seed) == ("g1", 13, 5)
    [hit] = result.blast.hits
    assert (hit.actor, hit.dv, hit.armor, hit.track, hit.soak_hits, hit.boxes) == (
        "goon",
        10,
        7,
        "physical",
        3,
        7,
    )
    assert (result.rounds_fired, result.ammo_left) == (1, 1)
    state = resolution.state
    assert isinstance(state, SR4State)
    assert (state.grenades_thrown, state.pending) == (1, [])
    assert set(grenade_attack.grenade_steps(request)) == {
        "scatter_direction",
        "scatter",
        "soak:goon",
    }


def test_a_thrown_grenade_is_held_until_the_next_pass_and_goes_off_where_everyone_is_then() -> None:
    # Thrown at goon, who stands at (0, 10); 1 net hit. 3D6 = 2 + 2 + 2 = 6 m less 2 m = 4 m
    # straight on (direction 1): it lies at (0, 14), held as g1 at sam's score 12.
    request = attack_request(
        targets=[{"id": "goon", "distance_m": 10, "defender": {"reaction": 3, "body": 3}}],
        bystanders=[{"id": "goon", "position": {"x": 0, "y": 10}}],
    )
    defense = SR4Test(pool=3, hits=1, ones=0, glitch=False, critical_glitch=False)
    turn = turn_with(1, "sam", sam=(12, 2), goon=(9, 2))
    dice = Dice(5, {"scatter_direction": [1], "scatter": [2, 2, 2]})
    resolution = grenade_attack.resolve_grenade(request, SR4State(), turn, dice, made(1, defense))
    result = resolution.result
    assert result.blast is None and result.pending_grenade == "g1"
    assert [(t.target, t.outcome, t.net_hits, t.defense_hits) for t in result.targets] == [
        ("goon", "miss", 1, 1)
    ]
    state = resolution.state
    assert isinstance(state, SR4State)
    [held] = state.pending
    assert (held.id, held.point, held.score, held.seed) == (
        "g1",
        p(0, 14),
        12,
        grenade_timing.detonation_seed(5),
    )
    # Pass 2 begins with sam's own phase: it goes off. goon ran to (0, 17) meanwhile: 3 m,
    # 12 - 3 = 9; its sheet's Body 3 and impact armor 1 (+5 AP = 6) resist, 9 > 6 Physical.
    scene = {
        "goon": SceneActor(position=p(0, 17), sheet=SR4Sheet(body=3, impact_armor=1)),
        "sam": SceneActor(position=p(0, 0), sheet=SR4Sheet(body=4)),
    }
    pass_2 = turn_with(2, "sam", sam=(12, 2), goon=(9, 2))
    state, blasts, _ = grenade_attack.went_off(
        AdvanceRequest(to="initiative_pass"), state, pass_2, scene
    )
    assert blasts == [] and state.pending[0].passes_ended == 1
    state, blasts, notes = grenade_attack.went_off(
        AdvanceRequest(to="action_phase", actor="sam"), state, pass_2, scene
    )
    assert state.pending == []
    [blast] = blasts
    [hit] = blast.hits
    assert (hit.actor, hit.distance_m, hit.dv, hit.armor, hit.track) == (
        "goon",
        3.0,
        9,
        6,
        "physical",
    )
    assert hit.soak is not None and hit.soak.pool == 9
    assert [d.step for d in blast.dice] == ["soak:goon"]
    assert notes == [f"sam's grenade g1 goes off at (0, 14): goon {hit.boxes}P"]
    # The same throw always goes off the same way.
    again = grenade_timing.go_off(held, scene)
    assert again == blast


def test_hits_left_over_stay_with_a_held_grenade() -> None:
    # 3D6 = 1 + 1 + 1 = 3 m, 4 net hits: 2 take it to 0, 2 are left: it is held at 12 + 2.
    request = attack_request(aim_point={"x": 0, "y": 10})
    dice = Dice(5, {"scatter_direction": [1], "scatter": [1, 1, 1]})
    state = grenade_attack.resolve_grenade(request, SR4State(), TurnState(), dice, made(4)).state
    assert isinstance(state, SR4State)
    assert state.pending[0].numbers.dv == 14


def test_a_launcher_grenade_aimed_too_close_is_refused_and_one_that_lands_close_is_a_dud() -> None:
    launcher = {"type": "high_explosive", "delivery": "launcher"}
    close = attack_request(grenade=launcher, aim_point={"x": 0, "y": 4})
    with pytest.raises(RuleViolation) as raised:
        grenade_attack.resolve_grenade(close, SR4State(), TurnState(), Dice(1), made(1))
    assert (raised.value.kind, raised.value.path) == ("below-minimum-range", "$.aim_point")
    # No positions: the target's distance says it.
    at_goon = attack_request(
        grenade=launcher,
        origin=None,
        aim_point=None,
        targets=[{"id": "goon", "distance_m": 3, "defender": {"reaction": 3, "body": 3}}],
        bystanders=[{"id": "goon", "position": {"x": 3, "y": 0}}],
    )
    with pytest.raises(RuleViolation) as raised:
        grenade_attack.resolve_grenade(at_goon, SR4State(), TurnState(), Dice(1), made(1))
    assert (raised.value.kind, raised.value.path) == (
        "below-minimum-range",
        "$.targets[0].distance_m",
    )
    # Aimed 8 m out, 10 m of scatter less 4 back toward the launcher: 2 m from it, a dud.
    request = attack_request(grenade=launcher, aim_point={"x": 0, "y": 8})
    dice = Dice(1, {"scatter_direction": [4], "scatter": [4, 4, 2]})
    resolution = grenade_attack.resolve_grenade(request, SR4State(), TurnState(), dice, made(1))
    assert resolution.result.scatter is not None and resolution.result.scatter.dud
    assert resolution.result.blast is None and resolution.result.pending_grenade is None
    assert resolution.state == SR4State()


def test_a_grenade_needs_a_point_to_aim_at() -> None:
    request = attack_request(
        targets=[{"id": "goon", "distance_m": 10, "defender": {"reaction": 3, "body": 3}}]
    )
    with pytest.raises(RuleViolation) as raised:
        grenade_attack.resolve_grenade(request, SR4State(), TurnState(), Dice(1), made(1))
    assert (raised.value.kind, raised.value.path) == ("position-unknown", "$.aim_point")


@settings(max_examples=200, deadline=None)
@given(
    delivery=st.sampled_from(["standard", "aerodynamic", "launcher"]),
    net_hits=st.integers(0, 12),
    aimed=st.tuples(coordinates, coordinates),
    seed=st.integers(0, 2**63 - 1),
)
def test_a_grenade_lands_as_far_from_the_aimed_point_as_the_scatter_says(
    delivery: str, net_hits: int, aimed: tuple[float, float], seed: int
) -> None:
    grenade = SR4Grenade(type="fragmentation", delivery=delivery, arming_m=0)  # type: ignore[arg-type]
    result = grenades.scatter(p(*aimed), p(0, 0), grenade, net_hits, Dice(seed))
    away = math.hypot(result.landed.x - aimed[0], result.landed.y - aimed[1])
    assert away == pytest.approx(result.distance_m, abs=2e-3)
    assert result.distance_m == max(0, result.rolled_m - result.per_hit_m * net_hits)
    assert 0 <= result.extra_dv <= net_hits and (result.extra_dv == 0 or result.on_target)


@settings(max_examples=200, deadline=None)
@given(
    moves=st.lists(
        st.tuples(
            st.sampled_from(["action_phase", "initiative_pass", "combat_turn"]),
            st.sampled_from(["sam", "goon", "rat"]),
        ),
        max_size=8,
    )
)
def test_a_held_grenade_goes_off_once_and_by_the_second_pass_boundary(
    moves: list[tuple[str, str]],
) -> None:
    turn = turn_with(1, "goon", goon=(20, 2), sam=(15, 2), rat=(12, 2))
    pending = [thrown(turn), thrown(turn, "rat")]
    gone: list[str] = []
    boundaries = 0
    for to, who in moves:
        crossing = AdvanceRequest(to=to, actor=who if to == PHASE else None)  # type: ignore[arg-type]
        pending, going = grenade_timing.due(crossing, pending, turn)
        gone.extend(g.thrower for g in going)
        boundaries += to != PHASE
    assert sorted(gone + [g.thrower for g in pending]) == ["rat", "sam"]
    if boundaries >= 2:
        assert pending == []


def test_a_launcher_fires_closer_than_five_metres_once_its_safety_is_off() -> None:
    # 001, "Grenade Launcher Minimum Range": the 5 m is the grenade's arming; with the safety
    # disarmed (arming_m 0) a launcher fires at 3 m like anything else at short range.
    from service.rules import RULESETS

    launcher = {
        "id": "gl",
        "category": "grenade_launcher",
        "damage": 0,
        "modes": ["SS"],
        "ammo": 2,
    }
    shot = {"type": "high_explosive", "delivery": "launcher", "airburst": True}
    dice = {"attack": [1, 1, 1, 1, 1, 1, 1], "scatter_direction": [1], "scatter": [1]}
    armed = attack_request(weapon=launcher, grenade=shot, aim_point={"x": 0, "y": 3}, dice=dice)
    with pytest.raises(RuleViolation) as raised:
        RULESETS["sr4"].resolve_attack(armed, SR4State(), TurnState(), Dice(1, dice))
    assert (raised.value.kind, raised.value.path) == ("below-minimum-range", "$.aim_point")
    disarmed = attack_request(
        weapon=launcher, grenade={**shot, "arming_m": 0}, aim_point={"x": 0, "y": 3}
    )
    result = RULESETS["sr4"].resolve_attack(disarmed, SR4State(), TurnState(), Dice(1, dice))
    assert result.result.blast is not None


def test_a_launcher_fired_semi_automatic_takes_recoil_on_the_second_launch() -> None:
    # 001, "Determine Scatter": "Apply standard ranged attack dice pool modifiers", and 001,
    # "Semi-Automatic Mode": the second shot of an action phase -1 (RC 0 leaves it). A grenade
    # launcher is no heavy weapon (001, "Heavy Weapons": machine guns and assault cannons), so
    # nothing doubles it: Agility 4 + skill 3 = 7 dice, then 7 - 1 = 6 for the second launch.
    from service.rules import RULESETS

    launcher = {"id": "gl", "category": "grenade_launcher", "damage": 0, "modes": ["SA"]}
    shot = {"type": "high_explosive", "delivery": "launcher", "airburst": True}
    dice = {"attack": [1] * 7, "scatter_direction": [1], "scatter": [1]}
    first = attack_request(
        weapon={**launcher, "ammo": 2},
        mode="SA",
        grenade=shot,
        aim_point={"x": 0, "y": 20},
        same_phase=True,
        dice=dice,
    )
    ruleset = RULESETS["sr4"]
    one = ruleset.resolve_attack(first, SR4State(), TurnState(), Dice(1, first.dice))
    assert one.result.recoil.shot_in_phase == 1 and one.result.pool == 7
    second = msgspec.structs.replace(
        first,
        weapon=msgspec.structs.replace(first.weapon, ammo=1),
        dice={**dice, "attack": [1] * 6},
    )
    two = ruleset.resolve_attack(second, one.state, TurnState(), Dice(1, second.dice))
    assert (two.result.recoil.shot_in_phase, two.result.recoil.penalty) == (2, -1)
    assert not two.result.recoil.doubled
    assert two.result.pool == 6


def test_one_thrower_holds_a_few_grenades_and_never_the_encounters_room() -> None:
    """Issue 23: 50 grenades held for one pass blocked the GM's grenades. A grenade goes off in
    the next pass (001, "Timing Grenades"), so a thrower never has more waiting than one action
    phase throws; one thrower may hold at most MAX_PENDING_PER_THROWER of them, another
    thrower's room stays."""
    turn = TurnState()
    pending: list[SR4PendingGrenade] = []
    for n in range(grenade_timing.MAX_PENDING_PER_THROWER):
        pending.append(
            grenade_timing.pending_grenade(
                n, pending, "sam", p(0, 0), numbers_of("fragmentation"), turn, [], False, 7, "$"
            )
        )
    with pytest.raises(RuleViolation) as refused:
        grenade_timing.pending_grenade(
            9, pending, "sam", p(0, 0), numbers_of("fragmentation"), turn, [], False, 7, "$"
        )
    assert (refused.value.kind, refused.value.status) == ("too-many-grenades", 409)
    assert "sam" in refused.value.detail
    # The GM's thrower still throws.
    grenade_timing.pending_grenade(
        9, pending, "goon", p(0, 0), numbers_of("fragmentation"), turn, [], False, 7, "$"
    )
