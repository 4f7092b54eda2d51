"""The SR3 defender's wounds, through `resolve_attack` with given dice: its dodge's target number
goes up by its wound modifier, its damage resistance test's never does, and the scene brings the
wounds from the sheet (a typed defender wins).

Sources: README ("Shadowrun 3": wounds L+1/M+2/S+3/D+4); the SR3 crib sheet (SR3 p. 125:
injuries modify target numbers; p. 113: the dodge at TN 4, the resistance at Power - armour).
The builders (tests/sr3_requests.py): skill 4; an Ares Predator 9M SA; a ganger of Body 4, a
Combat Pool of 5 and an armour jacket 5/3, 4 m away (heavy pistol short range: TN 4, 002)."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.scene import SceneActor
from schemas.sr3 import SR3AttackRequest, SR3AttackResult, SR3State
from service.rules import RULESETS
from service.rules.dice import Dice
from tests import sr3_requests as make

SR3 = RULESETS["sr3"]
MISS = [2, 2, 2, 2]


def resolve(body: dict[str, Any]) -> SR3AttackResult:
    request = msgspec.convert(body, SR3AttackRequest)
    dice = Dice(7, request.dice)
    result = SR3.resolve_attack(request, SR3State(), TurnState(), dice).result
    dice.check_given_used()
    assert isinstance(result, SR3AttackResult)
    return result


def test_a_wounded_defender_dodges_at_a_higher_target_number_and_resists_as_before() -> None:
    # Attack 5, 5, 5, 2 at TN 4: 3 successes. The ganger, moderately wounded: dodge TN 4 + 2
    # (M, README) = 6; its 2 pool dice show 5, 4: no success (unwounded, both would be). 3
    # left. Resistance: Body 4 at TN 9 - 5 = 4, no wounds on it; 4, 2, 2, 2: 1 success.
    # Net 3 - 1 = 2 stage M up once: S, 6 boxes (SR3 p. 114 and 125, the crib sheet).
    wounded = make.defender(wounds="M")
    result = resolve(
        make.attack(
            target=make.target(defender=wounded, dodge=2),
            dice={"attack": [5, 5, 5, 2], "dodge:goon-1": [5, 4], "resist:goon-1": [4, 2, 2, 2]},
        )
    )
    dodge = result.target.dodge
    assert dodge is not None and dodge.target_number == 6
    assert ("wounds (M)", 2) in [(m.source, m.value) for m in dodge.modifiers]
    assert (result.target.dodge_successes, result.target.net_successes) == (0, 3)
    damage = result.target.damage
    assert damage is not None
    assert (damage.resist.dice, damage.resist.target_number, damage.resist.successes) == (4, 4, 1)
    assert not any(m.source.startswith("wounds") for m in damage.resist.modifiers)
    assert (damage.level, damage.boxes) == ("S", 6)


def test_the_wounds_as_a_number_win_over_the_level_on_the_dodge() -> None:
    # `wound_modifier` 3 (L physical + M stun, monitor.py) wins over `wounds: "L"` (+1): dodge
    # TN 4 + 3 = 7; 6, 4 with the six rolled again (1): totals 7, 4, one success (README:
    # Rule of Six). 3 - 1 = 2 left; Body 4 at 4 misses: 2 net stage M up once, S.
    wounded = make.defender(wounds="L", wound_modifier=3)
    result = resolve(
        make.attack(
            target=make.target(defender=wounded, dodge=2),
            dice={"attack": [5, 5, 5, 2], "dodge:goon-1": [6, 4, 1], "resist:goon-1": MISS},
        )
    )
    dodge = result.target.dodge
    assert dodge is not None
    assert (dodge.target_number, dodge.totals, result.target.dodge_successes) == (7, [7, 4], 1)
    assert ("wounds", 3) in [(m.source, m.value) for m in dodge.modifiers]
    assert result.target.damage is not None and result.target.damage.resist.target_number == 4


def test_the_odds_of_a_wounded_dodge() -> None:
    # One attack die at TN 4: a success 1/2. One dodge die at 4 + 2 (M) = 6: a six, 1/6 (at 4
    # it would be 1/2). Dodged: 1/2 * 1/6 = 1/12.
    body = make.attack(
        attacker=make.attacker(skill=1),
        target=make.target(defender=make.defender(wounds="M"), dodge=1),
    )
    request = msgspec.convert(body, SR3AttackRequest)
    (target,) = SR3.attack_odds(request, SR3State(), TurnState(), 1, 4000).targets
    dodged = sum(o.p for o in target.outcomes if o.outcome == "dodged")
    assert abs(dodged - float(F(1, 12))) < 1e-12


SAM_SHEET = {
    "ruleset": "sr3",
    "quickness": 5,
    "intelligence": 4,
    "willpower": 3,
    "skill": 4,
    "weapons": [make.weapon()],
}


def _scene(**ganger_wounds: Any) -> dict[str, SceneActor]:
    ganger = {"ruleset": "sr3", **make.defender(), **ganger_wounds}
    return {
        "sam": msgspec.convert({"position": {"x": 0, "y": 0}, "sheet": SAM_SHEET}, SceneActor),
        "ganger": msgspec.convert({"position": {"x": 4, "y": 0}, "sheet": ganger}, SceneActor),
    }


def _asked(target: dict[str, Any], dice: dict[str, list[int]] | None = None) -> Any:
    body = {
        "ruleset": "sr3",
        "attacker": "sam",
        "weapon": "predator",
        "mode": "SA",
        "target": target,
        "dice": dice or {},
    }
    return msgspec.convert(body, SR3.attack_ask_type)


def test_the_scene_brings_the_defenders_wounds_from_its_sheet() -> None:
    # The monitors' sheet: `wounds` S and `wound_modifier` 3. The dodge goes to 4 + 3 = 7: its
    # one die, a 5, fails (it would succeed at 4).
    scene = _scene(wounds="S", wound_modifier=3)
    asked = _asked(
        {"id": "ganger", "dodge": 1},
        {"attack": [5, 2, 2, 2], "dodge:ganger": [5], "resist:ganger": MISS},
    )
    request = SR3.fill_attack(asked, scene)
    defender = request.target.defender
    assert (defender.wounds, defender.wound_modifier) == ("S", 3)
    result = SR3.resolve_attack(request, SR3State(), TurnState(), Dice(7, request.dice)).result
    assert result.target.dodge is not None
    assert (result.target.dodge.target_number, result.target.dodge_successes) == (7, 0)


def test_a_typed_defender_wins_over_the_sheets_wounds() -> None:
    # A VTT that keeps its own monitors types the defender: unwounded, not the sheet's M.
    asked = _asked({"id": "ganger", "defender": make.defender()})
    defender = SR3.fill_attack(asked, _scene(wounds="M")).target.defender
    assert (defender.wounds, defender.wound_modifier) == ("none", None)
