"""SR5 through `resolve_attack` with given dice: each rule on its own terms, and the guide.

"the guide" is rules-sources/000_43afc0edeb7f6e19.txt.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.encounter import AdvanceRequest, TurnState
from schemas.scene import SceneActor
from schemas.sr5 import (
    SR5ActionRequest,
    SR5AttackRequest,
    SR5AttackResult,
    SR5State,
    SR5ZoneTestRequest,
)
from service.rules import RULESETS, RuleViolation
from service.rules.dice import Dice
from service.rules.ruleset import EarlierAttack
from service.rules.sr5.attack import (
    range_band,
    recoil_compensation,
    recoil_penalty,
    split_pool,
)
from tests import sr5_requests as make

SR5 = RULESETS["sr5"]


def resolve(
    body: dict[str, Any], state: SR5State | None = None, seed: int = 7
) -> tuple[SR5AttackResult, SR5State]:
    request = msgspec.convert(body, SR5AttackRequest)
    dice = Dice(seed, request.dice)
    resolution = SR5.resolve_attack(request, state or SR5State(), TurnState(), dice)
    dice.check_given_used()
    assert isinstance(resolution.result, SR5AttackResult)
    assert isinstance(resolution.state, SR5State)
    return resolution.result, resolution.state


def modifier(result: SR5AttackResult, source: str) -> int | None:
    """A modifier of the whole attack, or of its (first) target's share."""
    every = [*result.modifiers, *result.targets[0].attack_modifiers]
    return next((m.value for m in every if m.source == source), None)


def reset(state: SR5State, actor: str = "sam") -> SR5State:
    resolution = SR5.resolve_action(
        SR5ActionRequest(actor=actor, action="other"), state, TurnState(), Dice(1)
    )
    assert isinstance(resolution.state, SR5State)
    return resolution.state


# --- the attack test -------------------------------------------------------------------------


def test_pool_is_agility_plus_skill_plus_modifiers_each_with_its_source() -> None:
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(agility=6, skill=6, wound_modifier=-2),
            targets=[make.target(distance_m=12)],
            smartlink="wireless_implant",
            dice={"attack": [1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2]},
        )
    )
    # 6 + 6 - 2 (wounds) + 2 (implanted smartlink) for the attack, then -1 for the target at
    # medium range with a heavy pistol.
    assert result.pool == 12
    assert [(m.source, m.value) for m in result.modifiers] == [
        ("agility", 6),
        ("skill", 6),
        ("wound modifier", -2),
        ("smartlink (wireless_implant)", 2),
    ]
    target = result.targets[0]
    assert [(m.source, m.value) for m in target.attack_modifiers] == [
        ("pool", 12),
        ("range (medium)", -1),
    ]
    assert target.attack.pool == 11


def test_hits_are_capped_by_accuracy() -> None:
    # The guide: Joe Agile with 11 dice and a pistol of Accuracy 4 applies at most 4 hits.
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(agility=11, skill=8),
            weapon=make.weapon(accuracy=4),
            dice={"attack": [5] * 10 + [1] * 9, "defense:goon-1": [1, 2, 3, 4, 2, 3]},
        )
    )
    assert result.targets[0].attack_hits_before_limit == 10
    assert result.limit == 4
    assert result.targets[0].attack_hits == 4


def test_smartlink_wired_adds_two_accuracy_and_no_dice() -> None:
    result, _ = resolve(make.attack(smartlink="wired"))
    assert result.limit == 7
    assert modifier(result, "smartlink (wired)") is None


def test_smartlink_wireless_gear_adds_one_die_and_two_accuracy() -> None:
    result, _ = resolve(make.attack(smartlink="wireless_gear"))
    assert modifier(result, "smartlink (wireless_gear)") == 1
    assert result.limit == 7


@pytest.mark.parametrize(
    ("category", "distance", "band"),
    [
        ("heavy_pistol", 0, "short"),
        ("heavy_pistol", 5, "short"),
        ("heavy_pistol", 5.5, "medium"),
        ("heavy_pistol", 20, "medium"),
        ("heavy_pistol", 40, "long"),
        ("heavy_pistol", 60, "extreme"),
        ("assault_rifle", 25, "short"),
        ("assault_rifle", 26, "medium"),
        ("sniper_rifle", 1500, "extreme"),
        ("grenade_launcher", 5, "short"),
    ],
)
def test_range_bands_follow_the_sr5_table(category: str, distance: float, band: str) -> None:
    assert range_band(category, distance, "$") == band


@pytest.mark.parametrize(
    ("band", "distance", "value"), [("medium", 12, -1), ("long", 30, -3), ("extreme", 50, -6)]
)
def test_range_modifiers(band: str, distance: float, value: int) -> None:
    # rules-sources/README.md: 0 / -1 / -3 / -6.
    result, _ = resolve(make.attack(targets=[make.target(distance_m=distance)]))
    assert modifier(result, f"range ({band})") == value
    assert result.targets[0].range == band


def test_beyond_extreme_range_and_inside_minimum_range_are_refused() -> None:
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(targets=[make.target(distance_m=60.5)]))
    assert raised.value.path == "$.targets[0].distance_m"
    with pytest.raises(RuleViolation, match="minimum range"):
        range_band("grenade_launcher", 4, "$")


def test_full_cover_is_blind_fire_six_dice_off_the_attack() -> None:
    result, _ = resolve(make.attack(targets=[make.target(cover="full")]))
    assert modifier(result, "blind fire (target fully behind cover)") == -6


# --- defense and outcome ---------------------------------------------------------------------


@pytest.mark.parametrize(("cover", "bonus"), [("partial", 2), ("good", 4)])
def test_cover_adds_to_the_defense(cover: str, bonus: int) -> None:
    result, _ = resolve(
        make.attack(targets=[make.target(cover=cover)], dice={"attack": [5] + [2] * 9})
    )
    target = result.targets[0]
    assert target.defense.pool == 6 + bonus
    assert ("cover (" + cover + ")", bonus) in [
        (m.source, m.value) for m in target.defense_modifiers
    ]


def test_a_tie_is_a_graze_contact_and_no_damage() -> None:
    result, _ = resolve(
        make.attack(dice={"attack": [5, 5] + [2] * 8, "defense:goon-1": [6, 5, 1, 2, 3, 4]})
    )
    target = result.targets[0]
    assert (target.outcome, target.attack_hits, target.defense_hits) == ("graze", 2, 2)
    assert target.net_hits == 0
    assert target.damage is None


def test_more_defense_hits_is_a_miss() -> None:
    result, _ = resolve(
        make.attack(dice={"attack": [5] + [2] * 9, "defense:goon-1": [6, 5, 1, 2, 3, 4]})
    )
    assert result.targets[0].outcome == "miss"


def test_no_attack_hits_is_a_miss_and_the_defender_rolls_nothing() -> None:
    result, _ = resolve(make.attack(dice={"attack": [2] * 10}))
    assert result.targets[0].outcome == "miss"
    assert [r.step for r in result.dice] == ["attack"]


# --- glitches (rules-sources/README.md, "Shadowrun 5": more than half the dice show 1) --------
# SR4's rule (half or more) differs from SR5's exactly where half the dice show 1: each case below
# has an even pool, so "exactly half" is the case that tells the two editions apart.

# Attack: Agility 5 + skill 5 = 10 dice (heavy pistol at 4 m: short range, 0).
# Defense: Reaction 3 + Intuition 3 = 6 dice. Soak: Body 4 + (armor 9 - AP 1) = 12 dice.
ATTACK_THREE_HITS = [5, 5, 5, 2, 2, 2, 2, 2, 2, 2]
NO_DEFENSE_HITS = [2] * 6
NO_SOAK_HITS = [2] * 12

# (what is tested, its dice, ones, hits, glitch, critical glitch)
GLITCH_CASES = [
    ("exactly half ones: no glitch in SR5", 5, 2, False, False),
    ("more than half ones: a glitch", 6, 2, True, False),
    ("more than half ones and no hit: a critical glitch", 6, 0, True, True),
]


def pool_of(size: int, ones: int, hits: int) -> list[int]:
    """`size` d6 showing `ones` ones, `hits` fives and the rest twos."""
    return [1] * ones + [5] * hits + [2] * (size - ones - hits)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [c[1:] for c in GLITCH_CASES],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_attack_test_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    result, _ = resolve(
        make.attack(
            dice={
                "attack": pool_of(10, ones, hits),
                "defense:goon-1": NO_DEFENSE_HITS,
                "soak:goon-1": NO_SOAK_HITS,
            }
        )
    )
    attack = result.targets[0].attack
    assert (attack.pool, attack.ones, attack.hits) == (10, ones, hits)
    assert (attack.glitch, attack.critical_glitch) == (glitch, critical)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [(3, 1, False, False), (4, 1, True, False), (4, 0, True, True)],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_defense_test_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    result, _ = resolve(
        make.attack(
            dice={
                "attack": ATTACK_THREE_HITS,
                "defense:goon-1": pool_of(6, ones, hits),
                "soak:goon-1": NO_SOAK_HITS,
            }
        )
    )
    defense = result.targets[0].defense
    assert (defense.pool, defense.ones, defense.hits) == (6, ones, hits)
    assert (defense.glitch, defense.critical_glitch) == (glitch, critical)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [(6, 2, False, False), (7, 2, True, False), (7, 0, True, True)],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_soak_test_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    result, _ = resolve(
        make.attack(
            dice={
                "attack": ATTACK_THREE_HITS,
                "defense:goon-1": NO_DEFENSE_HITS,
                "soak:goon-1": pool_of(12, ones, hits),
            }
        )
    )
    damage = result.targets[0].damage
    assert damage is not None
    assert (damage.soak.pool, damage.soak.ones, damage.soak.hits) == (12, ones, hits)
    assert (damage.soak.glitch, damage.soak.critical_glitch) == (glitch, critical)


def test_each_share_of_a_split_pool_glitches_on_its_own_dice() -> None:
    # BF at two targets, skill 5 (two targets at most): 10 - (3 rounds - compensation 3) = 10
    # dice, 5 each. Five dice cannot show exactly half ones: 3 ones glitch, 2 do not.
    result, _ = resolve(
        make.attack(
            mode="BF",
            weapon=make.weapon(modes=["SA", "BF"]),
            targets=[make.target(id="a"), make.target(id="b")],
            dice={"attack:a": [1, 1, 1, 2, 2], "attack:b": [1, 1, 5, 2, 2]},
        )
    )
    a, b = (t.attack for t in result.targets)
    assert (a.pool, a.glitch, a.critical_glitch) == (5, True, True)
    assert (b.pool, b.glitch, b.critical_glitch) == (5, False, False)


# --- damage ----------------------------------------------------------------------------------


def test_damage_value_plus_net_hits_armor_plus_ap_soaked_by_body_and_armor() -> None:
    result, _ = resolve(
        make.attack(
            dice={
                "attack": [5, 5, 6, 6, 2, 2, 2, 2, 2, 2],  # 4 hits
                "defense:goon-1": [5, 2, 2, 2, 2, 2],  # 1 hit: 3 net hits
                # body 4 + armor (9 - 1) = 12 dice, 3 hits
                "soak:goon-1": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2, 2, 2],
            }
        )
    )
    damage = result.targets[0].damage
    assert damage is not None
    assert damage.dv == 8 + 3
    assert damage.armor == 9 - 1
    assert damage.track == "physical"
    assert damage.soak.pool == 12
    assert (damage.soak_hits, damage.boxes) == (3, 8)


def test_physical_becomes_stun_when_modified_armor_exceeds_modified_dv() -> None:
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(damage=5, ap=0),
            targets=[make.target(defender=make.defender(armor=12))],
            dice={"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [2] * 6},
        )
    )
    damage = result.targets[0].damage
    assert damage is not None
    assert (damage.dv, damage.armor, damage.track) == (6, 12, "stun")


def test_equal_armor_and_dv_stays_physical() -> None:
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(damage=5, ap=0),
            targets=[make.target(defender=make.defender(armor=6))],
            dice={"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [2] * 6},
        )
    )
    damage = result.targets[0].damage
    assert damage is not None and (damage.dv, damage.armor, damage.track) == (6, 6, "physical")


def test_ap_beyond_the_armor_leaves_body_alone_to_soak() -> None:
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(ap=-12),
            dice={"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [2] * 6},
        )
    )
    damage = result.targets[0].damage
    assert damage is not None
    assert damage.armor == 0
    assert damage.soak.pool == 4  # Body only


def test_stun_weapons_stay_stun() -> None:
    result, _ = resolve(
        make.attack(
            weapon=make.weapon(category="taser", damage_type="S", damage=9, ap=-5),
            dice={"attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [2] * 6},
        )
    )
    damage = result.targets[0].damage
    assert damage is not None and damage.track == "stun"


# --- firing modes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "weapon_modes", "rounds", "action", "defense"),
    [
        ("SS", ["SS"], 1, "simple", 0),
        ("SA", ["SA"], 1, "simple", 0),
        ("SB", ["SA"], 3, "complex", -2),
        ("BF", ["BF"], 3, "simple", -2),
        ("LB", ["BF"], 6, "complex", -5),
        ("FA", ["FA"], 6, "simple", -5),
        ("FA_complex", ["FA"], 10, "complex", -9),
    ],
)
def test_firing_modes_rounds_action_and_defense_modifier(
    mode: str, weapon_modes: list[str], rounds: int, action: str, defense: int
) -> None:
    result, _ = resolve(
        make.attack(
            mode=mode,
            weapon=make.weapon(category="submachine_gun", modes=weapon_modes, ammo=30),
        )
    )
    assert (result.rounds_fired, result.action, result.ammo_left) == (rounds, action, 30 - rounds)
    shown = [m.value for m in result.targets[0].defense_modifiers if m.source.startswith("firing")]
    assert shown == ([defense] if defense else [])


def test_a_mode_the_weapon_lacks_is_refused() -> None:
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(mode="BF", weapon=make.weapon(modes=["SA"])))
    assert raised.value.path == "$.mode"


def test_too_little_ammo_for_the_mode_says_how_many_rounds_are_left() -> None:
    with pytest.raises(RuleViolation, match="has 2 left") as raised:
        resolve(make.attack(mode="BF", weapon=make.weapon(modes=["BF"], ammo=2)))
    assert raised.value.path == "$.weapon.ammo"


# --- recoil ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "rc", "expected"), [(4, 0, 3), (1, 0, 2), (3, 0, 2), (6, 2, 5), (7, 1, 5)]
)
def test_recoil_compensation_is_one_plus_strength_thirds_plus_rc(
    strength: int, rc: int, expected: int
) -> None:
    # The guide: "a character with 4 strength has an initial 3 points".
    assert recoil_compensation(strength, rc) == expected


def test_heavy_weapons_double_the_recoil_left_after_compensation() -> None:
    # The guide: a 6-round burst from a heavy machine gun with 4 points of compensation
    # leaves -2, doubled to -4.
    assert recoil_penalty(6, 4, heavy_weapon=True) == -4
    result, _ = resolve(
        make.attack(
            mode="FA",
            attacker=make.attacker(strength=4),
            weapon=make.weapon(category="heavy_machine_gun", modes=["FA"], rc=1, ammo=100),
            targets=[make.target(distance_m=30)],
        )
    )
    assert result.recoil.compensation == 4
    assert result.recoil.heavy_weapon
    assert modifier(result, "recoil") == -4


def test_semi_automatic_fires_twice_before_recoil_bites() -> None:
    # The guide: everyone has at least 2 compensation, so two SA shots cost nothing.
    state = SR5State()
    penalties = []
    for _ in range(4):
        result, state = resolve(make.attack(attacker=make.attacker(strength=2)), state)
        penalties.append(result.recoil.penalty)
    assert penalties == [0, 0, -1, -2]
    assert state.actors["sam"].recoil_rounds == 4


def test_recoil_is_progressive_across_phases_compensated_once() -> None:
    # The guide: -3 on one phase, then another 3-round burst makes -6.
    weapon = make.weapon(category="assault_rifle", modes=["BF"], ammo=30)
    first, state = resolve(make.attack(mode="LB", weapon=weapon))  # 6 rounds - 3 compensation
    second, state = resolve(make.attack(mode="BF", weapon=weapon), state)
    assert (first.recoil.penalty, second.recoil.penalty) == (-3, -6)
    assert second.recoil.rounds_before == 6
    assert second.recoil.compensation == 3


def test_compensation_stands_from_when_the_sequence_began() -> None:
    weapon = make.weapon(category="assault_rifle", modes=["BF"], ammo=30)
    _, state = resolve(make.attack(mode="BF", weapon=weapon))
    # A stronger shooter mid-sequence changes nothing: compensation is counted once.
    result, _ = resolve(
        make.attack(mode="BF", weapon=weapon, attacker=make.attacker(strength=9)), state
    )
    assert result.recoil.compensation == 3
    assert result.recoil.penalty == -3


def test_any_other_action_resets_recoil() -> None:
    weapon = make.weapon(category="assault_rifle", modes=["BF"], ammo=30)
    _, state = resolve(make.attack(mode="BF", weapon=weapon))
    _, state = resolve(make.attack(mode="BF", weapon=weapon), state)
    state = reset(state)
    result, _ = resolve(make.attack(mode="BF", weapon=weapon), state)
    assert result.recoil.rounds_before == 0
    assert result.recoil.penalty == 0


def test_single_shot_adds_no_recoil() -> None:
    state = SR5State()
    for _ in range(5):
        result, state = resolve(make.attack(mode="SS", weapon=make.weapon(modes=["SS"])), state)
        assert result.recoil.penalty == 0
    assert state.actors["sam"].recoil_rounds == 0


def test_recoil_is_kept_per_actor() -> None:
    weapon = make.weapon(category="assault_rifle", modes=["BF"], ammo=30)
    _, state = resolve(make.attack(mode="LB", weapon=weapon))
    other, _ = resolve(
        make.attack(mode="BF", weapon=weapon, attacker=make.attacker(id="twitch")), state
    )
    assert other.recoil.rounds_before == 0


def test_single_shot_modes_attack_one_target() -> None:
    with pytest.raises(RuleViolation, match="attacks one target") as raised:
        resolve(make.attack(targets=[make.target(), make.target(id="goon-2")]))
    assert raised.value.path == "$.targets"


# --- invariants ------------------------------------------------------------------------------

attack_bodies = st.fixed_dictionaries(
    {
        "attacker": st.fixed_dictionaries(
            {
                "id": st.sampled_from(["sam", "twitch"]),
                "agility": st.integers(1, 12),
                "strength": st.integers(1, 12),
                "skill": st.integers(0, 12),
                "wound_modifier": st.integers(-6, 0),
            }
        ),
        "weapon": st.fixed_dictionaries(
            {
                "id": st.just("gun"),
                "category": st.sampled_from(["heavy_pistol", "assault_rifle", "light_machine_gun"]),
                "damage": st.integers(0, 15),
                "damage_type": st.sampled_from(["P", "S"]),
                "ap": st.integers(-10, 4),
                "accuracy": st.integers(0, 9),
                "rc": st.integers(0, 5),
                "modes": st.just(["SA", "BF", "FA"]),
                "ammo": st.just(100),
            }
        ),
        "mode": st.sampled_from(["SA", "SB", "BF", "LB", "FA", "FA_complex"]),
        "targets": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.just("goon-1"),
                    "distance_m": st.floats(0, 60),
                    "cover": st.sampled_from(["none", "partial", "good", "full"]),
                    "defender": st.fixed_dictionaries(
                        {
                            "reaction": st.integers(1, 9),
                            "intuition": st.integers(1, 9),
                            "body": st.integers(1, 9),
                            "armor": st.integers(0, 20),
                        }
                    ),
                }
            ),
            min_size=1,
            max_size=1,
        ),
        "smartlink": st.sampled_from(["none", "wired", "wireless_gear", "wireless_implant"]),
    }
)


@settings(max_examples=200, deadline=None)
@given(body=attack_bodies, seed=st.integers(0, 2**63 - 1), rounds_before=st.integers(0, 20))
def test_invariants_of_any_attack(body: dict[str, Any], seed: int, rounds_before: int) -> None:
    state = SR5State(actors={})
    if rounds_before:
        state = msgspec.convert(
            {
                "actors": {
                    body["attacker"]["id"]: {
                        "recoil_rounds": rounds_before,
                        "recoil_compensation": 3,
                    }
                }
            },
            SR5State,
        )
    result, after = resolve(body, state, seed=seed)
    again, after_again = resolve(body, state, seed=seed)
    # The same request, state and dice always give the same result.
    assert msgspec.json.encode(result) == msgspec.json.encode(again)
    assert after == after_again
    # Replaying the recorded dice as given dice gives the same result too.
    given_dice = {roll.step: roll.values for roll in result.dice}
    replay, _ = resolve({**body, "dice": given_dice}, state, seed=seed + 1)
    assert [t.outcome for t in replay.targets] == [t.outcome for t in result.targets]
    assert replay.targets == result.targets
    for target in result.targets:
        assert 0 <= target.attack_hits <= result.limit
        assert target.net_hits >= 0
        if target.damage is not None:
            assert target.damage.boxes >= 0
            assert target.damage.armor >= 0
            assert target.outcome == "hit"
    assert result.pool >= 0
    assert result.recoil.penalty <= 0
    assert after.actors[body["attacker"]["id"]].recoil_rounds == rounds_before + result.rounds_fired


def test_every_category_and_mode_of_the_schema_has_its_table_row() -> None:
    from typing import get_args

    from schemas.sr5 import FiringMode, WeaponCategory
    from service.rules.sr5 import tables

    assert set(tables.RANGE_BANDS) == set(get_args(WeaponCategory))
    assert set(tables.FIRING_MODES) == set(get_args(FiringMode))
    assert tables.HEAVY_WEAPONS <= set(get_args(WeaponCategory))


# --- multiple targets ------------------------------------------------------------------------

RIFLE = make.weapon(category="assault_rifle", modes=["SA", "BF", "FA"], ammo=60, rc=10)


def three_targets(**fields: Any) -> dict[str, Any]:
    base = {
        "mode": "BF",
        "weapon": RIFLE,
        "attacker": make.attacker(agility=5, skill=6),
        "targets": [make.target(id=f"goon-{n}", distance_m=10) for n in (1, 2, 3)],
    }
    return make.attack(**{**base, **fields})


def test_the_guides_split_eleven_dice_over_three_targets_is_four_four_three() -> None:
    result, _ = resolve(three_targets())
    assert result.pool == 11
    assert [t.share for t in result.targets] == [4, 4, 3]
    assert [t.attack.pool for t in result.targets] == [4, 4, 3]


def test_the_request_chooses_who_gets_the_larger_shares_but_never_an_uneven_split() -> None:
    result, _ = resolve(three_targets(larger_shares=["goon-3", "goon-1"]))
    assert [t.share for t in result.targets] == [4, 3, 4]
    with pytest.raises(RuleViolation, match="leave 2 larger share") as raised:
        resolve(three_targets(larger_shares=["goon-3"]))
    assert raised.value.path == "$.larger_shares"
    with pytest.raises(RuleViolation, match="not a target"):
        resolve(three_targets(larger_shares=["goon-9", "goon-1"]))


def test_at_most_half_the_skill_in_targets() -> None:
    # The guide: automatics 6 can target 3 people.
    four = three_targets()
    four["targets"] = [make.target(id=f"goon-{n}", distance_m=10) for n in (1, 2, 3, 4)]
    with pytest.raises(RuleViolation, match="at most 3 targets") as raised:
        resolve(four)
    assert raised.value.path == "$.targets"
    with pytest.raises(RuleViolation, match="named once"):
        resolve(three_targets(targets=[make.target(), make.target()]))


def test_each_target_rolls_its_own_attack_defense_and_soak() -> None:
    result, _ = resolve(
        three_targets(
            dice={
                "attack:goon-1": [5, 5, 5, 5],
                "attack:goon-2": [1, 2, 3, 4],
                "attack:goon-3": [6, 2, 2],
                "defense:goon-1": [2] * 4,  # 3 + 3 - 2 for the burst
                "defense:goon-3": [5, 2, 2, 2],
            }
        )
    )
    assert [t.outcome for t in result.targets] == ["hit", "miss", "graze"]
    assert [t.attack_hits for t in result.targets] == [4, 0, 1]
    steps = [roll.step for roll in result.dice]
    assert steps[:3] == ["attack:goon-1", "defense:goon-1", "soak:goon-1"]
    assert "defense:goon-2" not in steps


def test_recoil_comes_off_the_whole_pool_before_it_is_split() -> None:
    # The guide: "recoil is ALWAYS applied first to the attack pool before it is divided".
    heavy = make.weapon(category="assault_rifle", modes=["FA"], ammo=60, rc=0)
    result, _ = resolve(three_targets(mode="FA_complex", weapon=heavy))
    assert result.recoil.penalty == -(10 - 3)
    assert result.pool == 11 - 7
    assert sum(t.share for t in result.targets) == result.pool


def test_range_and_called_shots_apply_to_each_targets_share() -> None:
    result, _ = resolve(
        three_targets(
            targets=[
                make.target(id="near", distance_m=10),
                make.target(id="far", distance_m=100),
                make.target(id="aimed", distance_m=10, called_shot=True),
            ]
        )
    )
    near, far, aimed = result.targets
    assert near.attack.pool == near.share
    assert far.attack.pool == far.share - 1  # medium range for an assault rifle
    assert aimed.attack.pool == max(0, aimed.share - 4)


@given(pool=st.integers(0, 60), count=st.integers(1, 10))
def test_splitting_a_pool_never_loses_or_invents_dice(pool: int, count: int) -> None:
    shares = split_pool(pool, [f"t{n}" for n in range(count)], [])
    assert sum(shares.values()) == pool
    assert max(shares.values()) - min(shares.values()) <= 1


# --- situations --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "source", "value"),
    [
        ({"running": True}, "attacker running", -2),
        ({"from_moving_vehicle": True}, "firing from a moving vehicle", -2),
        ({"in_melee": True}, "attacker in melee", -3),
        ({"off_hand": True}, "off-hand weapon", -2),
        ({"through_camera": True}, "firing from cover through a camera", -3),
    ],
)
def test_the_attackers_situation(fields: dict[str, Any], source: str, value: int) -> None:
    result, _ = resolve(make.attack(**fields))
    assert modifier(result, source) == value


def test_ambidexterity_removes_the_off_hand_penalty() -> None:
    result, _ = resolve(make.attack(off_hand=True, ambidextrous=True))
    assert modifier(result, "off-hand weapon") is None


@pytest.mark.parametrize(
    ("fields", "source", "value"),
    [
        ({"prone": True}, "defender prone", -2),
        ({"running": True}, "defender running", 2),
        ({"in_moving_vehicle": True}, "defender in a moving vehicle", 3),
        ({"in_melee": True}, "defender in melee", -3),
    ],
)
def test_the_defenders_situation(fields: dict[str, Any], source: str, value: int) -> None:
    result, _ = resolve(make.attack(targets=[make.target(**fields)]))
    defense = {m.source: m.value for m in result.targets[0].defense_modifiers}
    assert defense[source] == value


def test_each_earlier_defense_costs_a_die_until_the_defenders_action_phase() -> None:
    hit = {"attack": [5] + [2] * 9}
    state = SR5State()
    pools = []
    for _ in range(3):
        result, state = resolve(
            make.attack(mode="SS", weapon=make.weapon(modes=["SS"]), dice=hit), state
        )
        pools.append(result.targets[0].defense.pool)
    assert pools == [6, 5, 4]
    assert state.actors["goon-1"].defenses == 3
    # A missed attack with no hits asks for no defense, and costs none.
    _, state = resolve(
        make.attack(mode="SS", weapon=make.weapon(modes=["SS"]), dice={"attack": [2] * 10}), state
    )
    assert state.actors["goon-1"].defenses == 3
    turn = TurnState(action_phase="goon-1")
    state_after, effects = SR5.on_advance(
        AdvanceRequest(to="action_phase", actor="goon-1"), state, turn
    )
    assert isinstance(state_after, SR5State)
    assert state_after.actors["goon-1"].defenses == 0
    assert effects
    result, _ = resolve(
        make.attack(mode="SS", weapon=make.weapon(modes=["SS"]), dice=hit), state_after
    )
    assert result.targets[0].defense.pool == 6


def test_recoil_reset_keeps_what_else_the_actor_carries() -> None:
    _, state = resolve(
        make.attack(mode="SS", weapon=make.weapon(modes=["SS"]), dice={"attack": [5] + [2] * 9})
    )
    state = reset(state, actor="goon-1")
    assert state.actors["goon-1"].defenses == 1


# --- aiming ------------------------------------------------------------------------------------


def act(state: SR5State, action: str, actor: str = "sam", **fields: Any) -> SR5State:
    request = SR5ActionRequest(actor=actor, action=action, **fields)  # type: ignore[arg-type]
    resolution = SR5.resolve_action(request, state, TurnState(), Dice(1))
    assert isinstance(resolution.state, SR5State)
    return resolution.state


def test_each_aim_adds_a_die_or_accuracy_capped_at_half_willpower() -> None:
    state = SR5State()
    for _ in range(3):
        state = act(state, "take_aim", aim_for="dice")
    state = act(state, "take_aim", aim_for="accuracy")
    # Willpower 3: each bonus at most 2.
    result, after = resolve(make.attack(attacker=make.attacker(willpower=3)), state)
    assert modifier(result, "aimed") == 2
    assert ("aimed", 1) in [(m.source, m.value) for m in result.limit_modifiers]
    assert result.limit == 5 + 1
    # Firing uses the aim up.
    again, _ = resolve(make.attack(attacker=make.attacker(willpower=3)), after)
    assert modifier(again, "aimed") is None


def test_a_wireless_smartlink_gives_both_bonuses_for_every_aim() -> None:
    state = act(SR5State(), "take_aim", aim_for="dice")
    result, _ = resolve(make.attack(smartlink="wireless_gear"), state)
    assert modifier(result, "aimed") == 1
    assert result.limit == 5 + 2 + 1  # accuracy, smartlink, aim


def test_any_other_action_loses_the_aim() -> None:
    state = act(SR5State(), "take_aim", aim_for="dice")
    state = act(state, "move")
    result, _ = resolve(make.attack(), state)
    assert modifier(result, "aimed") is None


def test_image_magnification_takes_one_aim_to_shift_the_range_a_step() -> None:
    far = [make.target(distance_m=30)]  # long range for a heavy pistol
    state = act(SR5State(), "take_aim", image_magnification=True)
    result, _ = resolve(make.attack(targets=far), state)
    [environment] = [m for m in result.targets[0].attack_modifiers if "environment" in m.source]
    assert environment.value == -1
    assert "range moved closer by image magnification" in environment.source
    assert modifier(result, "aimed") is None  # that aim gave no other bonus
    state = act(state, "take_aim", image_magnification=True, aim_for="dice")
    result, _ = resolve(make.attack(targets=far), state)
    assert modifier(result, "aimed") == 1


# --- full defense ------------------------------------------------------------------------------


def test_full_defense_adds_willpower_to_every_defense_until_the_turn_ends() -> None:
    state = act(SR5State(), "full_defense", actor="goon-1")
    hit = {"attack": [5] + [2] * 9}
    target = [make.target(defender=make.defender(willpower=4))]
    result, state = resolve(make.attack(targets=target, dice=hit), state)
    defense = {m.source: m.value for m in result.targets[0].defense_modifiers}
    assert defense["full defense (willpower)"] == 4
    assert result.targets[0].defense.pool == 3 + 3 + 4
    state, effects = SR5.on_advance(AdvanceRequest(to="combat_turn"), state, TurnState())
    assert isinstance(state, SR5State)
    assert state.actors["goon-1"].full_defense is None
    assert any("full defense ends" in effect for effect in effects)


def test_acrobatic_defender_adds_gymnastics_capped_by_the_physical_limit() -> None:
    state = act(SR5State(), "full_defense", actor="goon-1", full_defense="acrobatic_defender")
    defender = make.defender(gymnastics=5, physical_limit=2)
    result, _ = resolve(
        make.attack(
            targets=[make.target(defender=defender)],
            dice={"attack": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2], "defense:goon-1": [5] * 11},
        ),
        state,
    )
    target = result.targets[0]
    assert target.defense.pool == 3 + 3 + 5
    assert target.defense_limit == 2
    assert target.defense_hits == 2
    assert target.outcome == "hit"


def test_a_quality_needs_the_value_it_adds() -> None:
    state = act(SR5State(), "full_defense", actor="goon-1", full_defense="agile_defender")
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(), state)
    assert raised.value.path == "$.targets[0].defender.agility"


def test_full_defense_reports_the_initiative_cost_and_is_refused_when_surprised() -> None:
    resolution = SR5.resolve_action(
        SR5ActionRequest(actor="goon-1", action="full_defense"), SR5State(), TurnState(), Dice(1)
    )
    assert "initiative -10" in resolution.result.effects
    with pytest.raises(RuleViolation) as raised:
        act(SR5State(), "full_defense", actor="goon-1", surprised=True)
    assert raised.value.status == 409


# --- one attack per action phase ----------------------------------------------------------


def test_one_attack_action_per_action_phase_once_phases_are_tracked() -> None:
    request = msgspec.convert(make.attack(), SR5AttackRequest)
    phase = TurnState(action_phase="sam", phase=4)
    first = SR5.resolve_attack(request, SR5State(), phase, Dice(1))
    assert isinstance(first.state, SR5State)
    with pytest.raises(RuleViolation, match="already attacked") as raised:
        SR5.resolve_attack(request, first.state, phase, Dice(1))
    assert raised.value.status == 409
    # The next phase of the same actor allows the next attack.
    SR5.resolve_attack(request, first.state, TurnState(action_phase="sam", phase=7), Dice(1))
    # A VTT that does not track phases (phase 0) is never refused.
    untracked = SR5.resolve_attack(request, SR5State(), TurnState(), Dice(1))
    assert isinstance(untracked.state, SR5State)
    SR5.resolve_attack(request, untracked.state, TurnState(), Dice(1))


# --- environment and vision --------------------------------------------------------------------


def environment_value(**fields: Any) -> int:
    """The environment's one modifier to the first target's share (0 when none applies)."""
    result, _ = resolve(make.attack(**fields))
    applied = [
        m.value
        for m in result.targets[0].attack_modifiers
        if m.source.startswith(("environment", "range"))
    ]
    return sum(applied)


def test_the_guides_dim_light_example_gives_a_pool_of_seven() -> None:
    # The guide: Agility 4, skill 6, dim lighting -3: 7 dice.
    result, _ = resolve(
        make.attack(attacker=make.attacker(agility=4, skill=6), environment={"light": "dim"})
    )
    assert result.targets[0].attack.pool == 7


@pytest.mark.parametrize(
    ("environment", "distance", "value"),
    [
        ({"light": "dim"}, 12, -3),  # dim light and medium range: the worst counts
        ({"wind": "light", "glare": "weak"}, 4, -1),
        ({"visibility": "heavy"}, 4, -6),
        ({"visibility": "heavy", "light": "total_darkness"}, 4, -10),  # two at the worst
        ({"light": "total_darkness"}, 50, -10),  # total darkness and extreme range
        ({}, 4, 0),
    ],
)
def test_only_the_worst_condition_counts_and_two_at_the_worst_make_ten(
    environment: dict[str, str], distance: float, value: int
) -> None:
    assert (
        environment_value(environment=environment, targets=[make.target(distance_m=distance)])
        == value
    )


@pytest.mark.parametrize(
    ("environment", "vision", "smartlink", "value"),
    [
        ({"visibility": "moderate", "visibility_cause": "smoke"}, ["thermographic"], "none", -1),
        (
            {"visibility": "moderate", "visibility_cause": "thermal_smoke"},
            ["thermographic"],
            "none",
            -3,
        ),
        ({"visibility": "moderate"}, ["ultrasound"], "none", -1),
        ({"light": "dim"}, ["thermographic"], "none", -1),
        ({"light": "total_darkness"}, ["thermographic", "infrared_flashlight"], "none", -1),
        ({"light": "total_darkness"}, ["ultrasound"], "none", 0),  # within 50 m
        ({"glare": "blinding"}, ["flare_compensation"], "none", -1),
        ({"light": "dim"}, ["low_light"], "none", 0),
        ({"light": "total_darkness"}, ["low_light"], "none", -6),
        ({"light": "total_darkness"}, ["low_light", "low_light_flashlight"], "none", -3),
        ({"wind": "moderate"}, [], "wired", -1),
        ({"wind": "strong"}, ["tracer_rounds"], "none", -3),
        ({"wind": "light"}, ["tracer_rounds"], "none", -1),
    ],
)
def test_vision_gear_moves_rows_as_the_guide_lists(
    environment: dict[str, str], vision: list[str], smartlink: str, value: int
) -> None:
    assert environment_value(environment=environment, vision=vision, smartlink=smartlink) == value


def test_range_rows_move_with_tracers_and_a_smartlinked_rangefinder() -> None:
    far = [make.target(distance_m=30)]  # long with a heavy pistol
    assert environment_value(targets=far) == -3
    assert environment_value(targets=far, vision=["tracer_rounds"]) == -1
    assert environment_value(targets=far, vision=["improved_rangefinder"]) == -3  # no smartlink
    assert environment_value(targets=far, vision=["improved_rangefinder"], smartlink="wired") == -1


def test_ultrasound_ignores_light_only_within_fifty_metres() -> None:
    rifle = make.weapon(category="assault_rifle", modes=["SA"])
    dark = {"light": "total_darkness"}
    near = [make.target(distance_m=20)]  # short range for an assault rifle
    far = [make.target(distance_m=60)]
    assert (
        environment_value(weapon=rifle, environment=dark, vision=["ultrasound"], targets=near) == 0
    )
    assert (
        environment_value(weapon=rifle, environment=dark, vision=["ultrasound"], targets=far) == -6
    )


def test_blind_fire_is_not_added_to_total_darkness() -> None:
    # The guide: a target fully behind cover in total darkness is -6, not -12.
    result, _ = resolve(
        make.attack(environment={"light": "total_darkness"}, targets=[make.target(cover="full")])
    )
    assert sum(m.value for m in result.targets[0].attack_modifiers[1:]) == -6
    result, _ = resolve(make.attack(targets=[make.target(cover="full")]))
    assert modifier(result, "blind fire (target fully behind cover)") == -6


# --- ammunition ----------------------------------------------------------------------------


HIT = {"attack": [5, 5, 6, 6, 2, 2, 2, 2, 2, 2], "defense:goon-1": [5, 2, 2, 2, 2, 2]}


def damage_with(ammo: Any, **weapon: Any) -> Any:
    result, _ = resolve(make.attack(ammo=ammo, weapon=make.weapon(**weapon), dice=HIT))
    damage = result.targets[0].damage
    assert damage is not None
    return damage


@pytest.mark.parametrize(
    ("ammo", "dv", "ap", "track"),
    [
        ("regular", 8 + 3, -1, "physical"),
        ("apds", 8 + 3, -1 - 4, "physical"),
        ("explosive", 8 + 1 + 3, -1 - 1, "physical"),
        ("ex_explosive", 8 + 2 + 3, -1 - 1, "physical"),
        ("flechette", 8 + 2 + 3, -1 + 5, "physical"),
        ("hollow_point", 8 + 1 + 3, -1 + 2, "physical"),
        ("gel", 8 + 3, -1 + 1, "stun"),
        ("stick_n_shock", 8 - 2 + 3, -5, "stun"),
        ({"dv": 3, "ap": -2}, 8 + 3 + 3, -1 - 2, "physical"),
        ({"dv": 0, "damage_type": "S"}, 8 + 3, -1, "stun"),
    ],
)
def test_ammunition_changes_dv_ap_and_the_damage_it_does(
    ammo: Any, dv: int, ap: int, track: str
) -> None:
    damage = damage_with(ammo)
    assert (damage.dv, damage.ap, damage.armor, damage.track) == (dv, ap, max(0, 9 + ap), track)


# --- Edge ------------------------------------------------------------------------------------


def test_push_the_limit_adds_edge_ignores_the_limit_and_explodes_sixes() -> None:
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(agility=3, skill=2, edge=3),
            weapon=make.weapon(accuracy=2),
            edge="push_the_limit",
            # 3 + 2 + 3 = 8 dice; three sixes explode into 6, 5, 1, and that six into a 2.
            dice={"attack": [6, 6, 6, 5, 2, 2, 2, 2, 6, 5, 1, 2], "defense:goon-1": [2] * 6},
        )
    )
    assert modifier(result, "Edge: Push the Limit") == 3
    assert result.edge_spent == 1
    target = result.targets[0]
    assert target.attack.pool == 8
    assert target.attack_hits == 6  # no limit of 2
    assert target.outcome == "hit"


def test_edge_needs_edge() -> None:
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(attacker=make.attacker(edge=0), edge="push_the_limit"))
    assert raised.value.path == "$.attacker.edge"


# --- Second Chance -----------------------------------------------------------------------------


def chance(
    state: SR5State, dice: dict[str, list[int]], earlier: EarlierAttack | None, **fields: Any
) -> tuple[Any, SR5State]:
    request = SR5ActionRequest(actor="sam", action="second_chance", dice=dice, **fields)
    assert SR5.follows_up(request) == "sam"
    given = Dice(3, request.dice)
    resolution = SR5.resolve_action(request, state, TurnState(), given, earlier)
    given.check_given_used()
    assert isinstance(resolution.state, SR5State)
    return resolution.result, resolution.state


def attacked(body: dict[str, Any]) -> tuple[SR5State, EarlierAttack]:
    """The state after an attack, and the attack as its event keeps it (what the engine finds)."""
    result, state = resolve(body)
    request = msgspec.convert({**body, "dice": {}}, SR5AttackRequest)
    return state, EarlierAttack(request=request, result=result)


def test_second_chance_rerolls_the_misses_and_resolves_again() -> None:
    state, earlier = attacked(
        make.attack(
            attacker=make.attacker(edge=2),
            dice={
                "attack": [5, 2, 2, 2, 2, 2, 2, 2, 2, 2],  # 1 hit
                "defense:goon-1": [5, 2, 2, 2, 2, 2],  # 1 hit: a graze
            },
        )
    )
    result, state = chance(
        state,
        # Nine misses re-rolled: three more hits; the defense stands; the soak is rolled now.
        {"second_chance:goon-1": [5, 6, 5, 1, 2, 3, 4, 2, 3], "soak:goon-1": [2] * 12},
        earlier,
        target="goon-1",
    )
    assert result.edge_spent == 1
    after = result.attack.targets[0]
    assert (after.attack_hits, after.defense_hits, after.outcome) == (4, 1, "hit")
    assert after.damage is not None and after.damage.dv == 8 + 3
    assert [roll.step for roll in result.attack.dice] == ["second_chance:goon-1", "soak:goon-1"]
    assert "graze -> hit" in result.effects[0]
    # Once per test.
    with pytest.raises(RuleViolation, match="has had its Second Chance"):
        chance(state, {}, earlier)


def test_second_chance_still_respects_the_limit_and_needs_no_push() -> None:
    state, earlier = attacked(
        make.attack(
            attacker=make.attacker(edge=2),
            weapon=make.weapon(accuracy=2),
            dice={"attack": [2] * 10},
        )
    )
    result, _ = chance(
        state,
        {"second_chance:goon-1": [5] * 10, "defense:goon-1": [2] * 6},
        earlier,
        target="goon-1",
    )
    after = result.attack.targets[0]
    assert after.attack_hits_before_limit == 10
    assert after.attack_hits == 2
    # A defense is rolled now that there are hits, and it counts as one.
    assert after.defense.pool == 6
    state, earlier = attacked(make.attack(attacker=make.attacker(edge=2), edge="push_the_limit"))
    with pytest.raises(RuleViolation, match="Push the Limit"):
        chance(state, {}, earlier)


def test_second_chance_needs_an_attack_and_a_named_target_of_it() -> None:
    with pytest.raises(RuleViolation, match="no attack"):
        chance(SR5State(), {}, None)
    state, earlier = attacked(three_targets(attacker=make.attacker(agility=5, skill=6, edge=1)))
    # An attack event without the state's mark of it (e.g. the GM replaced the state since).
    with pytest.raises(RuleViolation, match="no attack"):
        chance(SR5State(), {}, earlier)
    with pytest.raises(RuleViolation) as raised:
        chance(state, {}, earlier)
    assert raised.value.path == "$.target"
    result, _ = chance(state, {}, earlier, target="goon-2")
    assert result.attack.targets[0].target == "goon-2"


# --- flechette spreads and contact -----------------------------------------------------------

SHOTGUN = make.weapon(category="shotgun_flechette", modes=["SA"], ammo=10)


@pytest.mark.parametrize(("choke", "value"), [("narrow", -1), ("medium", -3), ("wide", -5)])
def test_a_flechette_spread_lowers_the_defense(choke: str, value: int) -> None:
    result, _ = resolve(make.attack(weapon=SHOTGUN, choke=choke))
    defense = {m.source: m.value for m in result.targets[0].defense_modifiers}
    assert defense[f"flechette {choke} spread"] == value


def test_medium_and_wide_spreads_reach_several_targets_but_take_no_called_shot() -> None:
    two = [make.target(id="a"), make.target(id="b")]
    result, _ = resolve(make.attack(weapon=SHOTGUN, choke="wide", targets=two))
    assert [t.target for t in result.targets] == ["a", "b"]
    with pytest.raises(RuleViolation, match="attack several"):
        resolve(make.attack(weapon=SHOTGUN, choke="narrow", targets=two))
    with pytest.raises(RuleViolation, match="called shots") as raised:
        resolve(
            make.attack(weapon=SHOTGUN, choke="medium", targets=[make.target(called_shot=True)])
        )
    assert raised.value.path == "$.choke"
    with pytest.raises(RuleViolation, match="shotgun_flechette"):
        resolve(make.attack(choke="wide"))


def test_a_graze_is_contact_and_applies_a_contact_effect() -> None:
    tagger = make.weapon(contact_effect="tracking tag")
    graze = {"attack": [5, 5] + [2] * 8, "defense:goon-1": [6, 5, 1, 2, 3, 4]}
    result, _ = resolve(make.attack(weapon=tagger, dice=graze))
    target = result.targets[0]
    assert (target.outcome, target.contact, target.contact_effect) == (
        "graze",
        True,
        "tracking tag",
    )
    assert target.damage is None
    miss, _ = resolve(make.attack(weapon=tagger, dice={"attack": [2] * 10}))
    assert (miss.targets[0].contact, miss.targets[0].contact_effect) == (False, None)


# --- two guns ----------------------------------------------------------------------------------

LEFT = make.weapon(id="left", accuracy=4, rc=1, ammo=12)


def test_two_semi_automatics_cost_the_off_hand_and_add_their_rounds() -> None:
    # The guide: everyone's two points of compensation cancel the two rounds of two SA guns.
    result, state = resolve(make.attack(attacker=make.attacker(strength=2), second_weapon=LEFT))
    assert modifier(result, "off-hand weapon") == -2
    assert (result.recoil.rounds_fired, result.recoil.penalty) == (2, 0)
    assert (result.second_rounds_fired, result.second_ammo_left) == (1, 11)
    again, _ = resolve(make.attack(attacker=make.attacker(strength=2), second_weapon=LEFT), state)
    assert again.recoil.penalty == -2  # 4 rounds against a compensation of 2


def test_two_guns_use_the_lower_skill_and_the_lower_rc_unless_ambidextrous() -> None:
    result, _ = resolve(
        make.attack(
            second_weapon=make.weapon(id="left", rc=0),
            weapon=make.weapon(rc=3),
            second_skill=3,
            ambidextrous=True,
        )
    )
    assert modifier(result, "skill (the lower of the two guns')") == 3
    assert modifier(result, "off-hand weapon") is None
    assert result.recoil.compensation == 1 + 2 + 0


def test_each_gun_shoots_its_own_target_with_its_accuracy_and_ammunition() -> None:
    hits = [5] * 10
    result, _ = resolve(
        make.attack(
            attacker=make.attacker(agility=8, skill=6),  # 12 dice: 6 each
            second_weapon=LEFT,
            second_ammo="apds",
            targets=[make.target(id="a"), make.target(id="b", gun="second")],
            dice={
                "attack:a": hits[:6],
                "attack:b": hits[:6],
                "defense:a": [2] * 6,
                "defense:b": [2] * 6,
                "soak:a": [2] * 12,
                "soak:b": [2] * 8,
            },
        )
    )
    a, b = result.targets
    assert (a.attack_hits, b.attack_hits) == (5, 4)  # accuracy 5 and 4
    assert a.damage is not None and b.damage is not None
    assert (a.damage.ap, b.damage.ap) == (-1, -1 - 4)


def test_a_second_gun_needs_the_mode_and_a_target_for_it_needs_the_gun() -> None:
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(mode="BF", weapon=make.weapon(modes=["BF"]), second_weapon=LEFT))
    assert raised.value.path == "$.second_weapon.modes"
    with pytest.raises(RuleViolation) as raised:
        resolve(make.attack(targets=[make.target(gun="second")]))
    assert raised.value.path == "$.targets[0].gun"


# --- suppressive fire --------------------------------------------------------------------------

MG = make.weapon(category="light_machine_gun", modes=["FA"], ammo=100, accuracy=5)


def suppress(state: SR5State | None = None, **fields: Any) -> tuple[SR5AttackResult, SR5State]:
    base: dict[str, Any] = {
        "mode": "suppressive",
        "weapon": MG,
        "targets": [],
        "zone": {"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
        "bystanders": [
            {"id": "in-open", "position": {"x": 10, "y": 0}},
            {"id": "in-cover", "position": {"x": 12, "y": 1}, "in_cover": True},
            {"id": "beside", "position": {"x": 10, "y": 3.2}},
            {"id": "unaware", "position": {"x": 15, "y": 0}, "aware": False},
            {"id": "far", "position": {"x": 50, "y": 50}},
        ],
        "dice": {"suppression": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2]},
    }
    return resolve(make.attack(**{**base, **fields}), state)


def test_suppressive_fire_lays_a_zone_and_says_who_it_affects() -> None:
    result, state = suppress()
    assert (result.rounds_fired, result.action, result.ammo_left) == (20, "complex", 80)
    zone = result.zone
    assert zone is not None
    assert (zone.zone.id, zone.zone.hits, zone.zone.penalty) == ("zone-1", 3, -3)
    assert [(p.x, p.y) for p in zone.zone.points] == [(0, 0), (20, 5), (20, -5)]
    affected = {a.actor: a for a in zone.affected}
    assert (affected["in-open"].inside, affected["in-open"].must_test) == (True, True)
    assert (affected["in-cover"].inside, affected["in-cover"].must_test) == (True, False)
    assert (affected["beside"].inside, affected["beside"].adjacent) == (False, True)
    assert affected["beside"].penalty == -3 and not affected["beside"].must_test
    assert affected["unaware"].penalty == 0  # not harried by what it does not notice
    assert (affected["far"].inside, affected["far"].adjacent, affected["far"].penalty) == (
        False,
        False,
        0,
    )
    assert list(SR5.zones(state)) == [zone.zone]


@pytest.mark.parametrize(
    ("fields", "end_width", "kind"),
    [
        ({}, 10, "suppressive fire"),
        (
            {
                "zone": {
                    "origin": {"x": 0, "y": 0},
                    "direction_deg": 0,
                    "length_m": 20,
                    "enhanced": True,
                }
            },
            5,
            "enhanced suppressive fire",
        ),
    ],
)
def test_the_zone_is_ten_metres_wide_at_its_end_five_enhanced(
    fields: dict[str, Any], end_width: float, kind: str
) -> None:
    result, _ = suppress(**fields)
    assert result.zone is not None
    points = result.zone.zone.points
    assert abs(points[1].y - points[2].y) == end_width
    assert result.zone.zone.kind == kind


def test_flechette_chokes_widen_the_zone_as_decided() -> None:
    shotgun = make.weapon(category="shotgun_flechette", modes=["FA"], ammo=40)
    zone = {"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 30}
    for choke, width in (("narrow", 5), ("medium", 10), ("wide", 15)):
        result, state = suppress(weapon=shotgun, choke=choke, zone=zone)
        assert result.zone is not None
        points = result.zone.zone.points
        assert round(abs(points[1].x - points[2].x), 6) == width
        assert state.zones["zone-1"].allows_prone is False


def test_the_zone_ends_when_the_shooter_acts_again_or_the_turn_ends() -> None:
    _, state = suppress()
    assert state.zones
    assert not act(state, "move").zones
    assert act(state, "move", actor="someone-else").zones
    after, effects = SR5.on_advance(AdvanceRequest(to="combat_turn"), state, TurnState())
    assert isinstance(after, SR5State) and not after.zones
    assert any("suppression ends" in effect for effect in effects)
    _, shot = resolve(make.attack(), state)  # the shooter fires at someone: the zone ends
    assert not shot.zones


def test_suppressive_fire_needs_a_zone_within_range_and_no_targets() -> None:
    with pytest.raises(RuleViolation) as raised:
        suppress(zone=None)
    assert raised.value.path == "$.zone"
    with pytest.raises(RuleViolation) as raised:
        suppress(zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 900})
    assert raised.value.path == "$.zone.length_m"
    with pytest.raises(RuleViolation) as raised:
        suppress(targets=[make.target()])
    assert raised.value.path == "$.targets"
    with pytest.raises(RuleViolation) as raised:
        suppress(weapon=make.weapon(modes=["SA"]))
    assert raised.value.path == "$.mode"


def zone_test(
    state: SR5State, zone: str = "zone-1", phase: int = 0, **fields: Any
) -> tuple[Any, SR5State]:
    body = {"actor": "in-open", "defender": make.defender(), "edge": 2, **fields}
    request = msgspec.convert(body, SR5ZoneTestRequest)
    given = Dice(5, request.dice)
    resolution = SR5.resolve_zone_test(zone, request, state, TurnState(phase=phase), given)
    given.check_given_used()
    assert isinstance(resolution.state, SR5State)
    return resolution.result, resolution.state


def test_a_zone_test_is_reaction_and_edge_against_the_zones_hits() -> None:
    _, state = suppress()  # 3 hits
    passed, state = zone_test(state, dice={"zone_test:in-open": [5, 5, 6, 1, 2]})
    assert (passed.threshold, passed.pool, passed.hit) == (3, 3 + 2, False)
    assert passed.damage is None
    # Hit: the weapon's base DV with its ammunition, resisted with Body + armor.
    failed, _ = zone_test(
        state,
        zone="zone-1",
        phase=1,
        dice={"zone_test:in-open": [5, 2, 2, 2, 2], "soak:in-open": [2] * 12},
    )
    assert failed.hit
    assert failed.damage is not None
    assert (failed.damage.dv, failed.damage.armor, failed.damage.boxes) == (8, 9 - 1, 8)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [c[1:] for c in GLITCH_CASES],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_suppression_test_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    # Agility 5 + skill 5 = 10 dice; hits 0 or 2 stay under the MG's Accuracy 5.
    result, _ = suppress(dice={"suppression": pool_of(10, ones, hits)})
    assert result.zone is not None
    test = result.zone.suppression
    assert (test.pool, test.ones, test.hits) == (10, ones, hits)
    assert (test.glitch, test.critical_glitch) == (glitch, critical)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [(3, 3, False, False), (4, 2, True, False), (4, 0, True, True)],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_zone_test_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    _, state = suppress()  # 3 hits
    # Reaction 3 + Edge 3 = 6 dice; fewer hits than the zone's 3 is a hit, soaked by 12 dice.
    result, _ = zone_test(
        state,
        edge=3,
        dice={"zone_test:in-open": pool_of(6, ones, hits), "soak:in-open": NO_SOAK_HITS},
    )
    assert result.test is not None
    assert (result.test.pool, result.test.ones, result.test.hits) == (6, ones, hits)
    assert (result.test.glitch, result.test.critical_glitch) == (glitch, critical)
    assert result.hit == (hits < 3)


@pytest.mark.parametrize(
    ("ones", "hits", "glitch", "critical"),
    [(6, 2, False, False), (7, 2, True, False), (7, 0, True, True)],
    ids=[c[0] for c in GLITCH_CASES],
)
def test_the_soak_of_a_zone_hit_glitches_on_more_than_half_ones(
    ones: int, hits: int, glitch: bool, critical: bool
) -> None:
    _, state = suppress()  # 3 hits
    result, _ = zone_test(
        state,
        dice={"zone_test:in-open": [2] * 5, "soak:in-open": pool_of(12, ones, hits)},
    )
    assert result.damage is not None
    soak = result.damage.soak
    assert (soak.pool, soak.ones, soak.hits) == (12, ones, hits)
    assert (soak.glitch, soak.critical_glitch) == (glitch, critical)


def test_suppressive_fire_hits_are_capped_by_accuracy() -> None:
    # The guide, "Suppressive fire": a Weapon Skill + Agility [Accuracy] test. 10 dice show seven
    # hits; the MG's Accuracy 5 keeps five: the zone's hits, its penalty and every test's
    # threshold.
    result, state = suppress(dice={"suppression": [5, 5, 5, 6, 6, 6, 5, 2, 2, 2]})
    assert result.limit == 5
    assert result.zone is not None
    assert result.zone.suppression.hits == 5
    assert (result.zone.zone.hits, result.zone.zone.penalty) == (5, -5)
    affected = {a.actor: a for a in result.zone.affected}
    assert affected["in-open"].penalty == -5
    # Reaction 3 + Edge 2 = 5 dice, all hits: they meet the threshold of 5 and avoid the fire
    # (against the seven uncapped hits, they would not).
    tested, _ = zone_test(state, dice={"zone_test:in-open": [5] * 5})
    assert (tested.threshold, tested.hit) == (5, False)


def test_a_smartlink_raises_the_suppression_limit_by_two() -> None:
    # Accuracy 5 + 2 (smartlink): seven of the seven hits count; the wired link adds no dice.
    result, _ = suppress(smartlink="wired", dice={"suppression": [5, 5, 5, 6, 6, 6, 5, 2, 2, 2]})
    assert result.limit == 7
    assert result.zone is not None
    assert (result.zone.suppression.hits, result.zone.zone.penalty) == (7, -7)


def test_successive_zone_tests_in_a_phase_cost_a_die_and_each_zone_tests_once() -> None:
    _, state = suppress()
    _, state = suppress(state, attacker=make.attacker(id="other-gunner"))
    first, state = zone_test(state, zone="zone-1", phase=3)
    second, state = zone_test(state, zone="zone-2", phase=3)
    assert second.pool == first.pool - 1
    with pytest.raises(RuleViolation) as raised:
        zone_test(state, zone="zone-1", phase=3)
    assert raised.value.status == 409
    later, _ = zone_test(state, zone="zone-1", phase=4)  # a new action phase
    assert later.pool == first.pool


def test_going_prone_avoids_a_standard_zone_only_and_lucky_cover_any() -> None:
    _, state = suppress()
    avoided, _ = zone_test(state, avoid="hit_the_dirt")
    assert (avoided.avoided, avoided.test, avoided.hit) == ("hit_the_dirt", None, False)
    _, enhanced = suppress(
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20, "enhanced": True}
    )
    with pytest.raises(RuleViolation, match="Lucky Cover") as raised:
        zone_test(enhanced, avoid="drop_prone")
    assert raised.value.path == "$.avoid"
    lucky, _ = zone_test(enhanced, avoid="lucky_cover")
    assert (lucky.avoided, lucky.edge_spent) == ("lucky_cover", 1)


def test_full_defense_adds_to_the_zone_test_and_an_unknown_zone_is_404() -> None:
    _, state = suppress()
    state = act(state, "full_defense", actor="in-open")
    result, _ = zone_test(state, defender=make.defender(willpower=4))
    assert result.pool == 3 + 2 + 4
    with pytest.raises(RuleViolation) as raised:
        zone_test(state, zone="zone-9")
    assert raised.value.status == 404


def test_an_area_effect_attack_lowers_the_defense() -> None:
    result, _ = resolve(make.attack(area_effect=True))
    defense = {m.source: m.value for m in result.targets[0].defense_modifiers}
    assert defense["area effect attack"] == -2


def test_an_encounter_holds_a_bounded_number_of_zones() -> None:
    from schemas.common import MAX_ZONES

    state = SR5State()
    for n in range(MAX_ZONES):
        _, state = suppress(state, attacker=make.attacker(id=f"gunner-{n}"))
    assert len(state.zones) == MAX_ZONES
    with pytest.raises(RuleViolation, match="at most") as raised:
        suppress(state, attacker=make.attacker(id="one-too-many"))
    assert raised.value.kind == "limit-exceeded"


# --- the defender's wounds (the guide: "Character wounded: -Wound Modifier ... penalty to all
# appropriate tests"): its defense test and its zone test take them; its soak does not -------


def test_a_wounded_defender_defends_with_fewer_dice_and_soaks_with_all() -> None:
    # Sam: Agility 5 + skill 5 = 10 dice at 4 m (short), 3 hits. The goon: Reaction 3 +
    # Intuition 3 - 2 (its wound modifier) = 4 dice, 1 hit; 2 net hits. DV 8 + 2 = 10 against
    # armor 9 - 1 (AP) = 8: physical; soak Body 4 + 8 = 12 dice, no wound modifier (the guide
    # lists none for it), 2 hits: 8 boxes.
    wounded = make.target(defender=make.defender(wound_modifier=-2))
    dice = {
        "attack": [5, 5, 5] + [2] * 7,
        "defense:goon-1": [5, 2, 2, 2],
        "soak:goon-1": [5, 5] + [2] * 10,
    }
    result, _ = resolve(make.attack(targets=[wounded], dice=dice))
    target = result.targets[0]
    assert ("wound modifier", -2) in [(m.source, m.value) for m in target.defense_modifiers]
    assert (target.defense.pool, target.defense_hits, target.net_hits) == (4, 1, 2)
    assert target.damage is not None
    assert (target.damage.soak.pool, target.damage.boxes) == (12, 8)
    assert "wound modifier" not in [m.source for m in target.damage.soak_modifiers]


def test_a_wounded_defender_in_full_defense_takes_the_wounds_off_the_whole_defense() -> None:
    # Full defense adds Willpower 4 to the defense test, which the wounds lower as a whole:
    # 3 + 3 + 4 - 2 = 8 dice.
    state = act(SR5State(), "full_defense", actor="goon-1")
    defender = make.defender(willpower=4, wound_modifier=-2)
    result, _ = resolve(
        make.attack(targets=[make.target(defender=defender)], dice={"attack": [5] + [2] * 9}),
        state,
    )
    assert result.targets[0].defense.pool == 8


def test_wounds_past_the_defense_pool_leave_no_dice_not_a_negative_pool() -> None:
    # 3 + 3 - 8 = -2: no dice to roll, no defense hit; the attack's 1 hit stands.
    defender = make.defender(wound_modifier=-8)
    result, _ = resolve(
        make.attack(targets=[make.target(defender=defender)], dice={"attack": [5] + [2] * 9})
    )
    target = result.targets[0]
    assert (target.defense.pool, target.defense_hits, target.outcome) == (0, 0, "hit")


def test_the_scene_brings_the_defenders_wound_modifier_from_its_sheet() -> None:
    # The README's ganger (Reaction 3, Intuition 3) with `wound_modifier: -2` on its sheet
    # defends with 3 + 3 - 2 = 4 dice, not 6.
    scene = {
        "sam": msgspec.convert(make.README_SAM, SceneActor),
        "ganger": msgspec.convert(
            {
                "name": "Ganger",
                "position": {"x": 4.0, "y": 0.0},
                "sheet": {**make.README_GANGER_SHEET, "wound_modifier": -2},
            },
            SceneActor,
        ),
    }
    asked = msgspec.convert(
        {
            "ruleset": "sr5",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "ganger"}],
            "dice": {"attack": [5] + [2] * 11},
        },
        SR5.attack_ask_type,
    )
    request = SR5.fill_attack(asked, scene)
    assert request.targets[0].defender.wound_modifier == -2
    result, _ = resolve(msgspec.to_builtins(request))
    assert result.targets[0].defense.pool == 4
    # And a zone test that leaves its defender out takes the same sheet's wounds.
    zone_asked = msgspec.convert({"ruleset": "sr5", "actor": "ganger"}, SR5.zone_test_ask_type)
    assert SR5.fill_zone_test(zone_asked, scene).defender.wound_modifier == -2


def test_a_wounded_actor_tests_against_a_zone_with_fewer_dice_and_soaks_with_all() -> None:
    # Reaction 3 + Edge 2 - 2 (wounds) = 3 dice against the zone's 3 hits; 1 hit fails. The
    # weapon's base DV 8 against armor 9 - 1 = 8 (physical: not greater); soak Body 4 + 8 = 12
    # dice, no wound modifier, 2 hits: 6 boxes.
    _, state = suppress()
    failed, _ = zone_test(
        state,
        defender=make.defender(wound_modifier=-2),
        dice={"zone_test:in-open": [5, 2, 2], "soak:in-open": [5, 5] + [2] * 10},
    )
    assert ("wound modifier", -2) in [(m.source, m.value) for m in failed.modifiers]
    assert (failed.pool, failed.hit) == (3, True)
    assert failed.damage is not None
    assert (failed.damage.soak.pool, failed.damage.boxes) == (12, 6)
    # In full defense too: 3 + 2 + Willpower 4 - 2 = 7.
    defended = act(state, "full_defense", actor="in-open")
    result, _ = zone_test(defended, defender=make.defender(willpower=4, wound_modifier=-2))
    assert result.pool == 7
