"""Recorded seeds: what the rules core rolls and resolves for given seeds, so a change to the dice
or the rules that alters any replay is caught (tests/test_recorded_seeds.py).

`python -m tests.record_seeds` writes tests/data/recorded_seeds.json from the code as it is. It
was run once, on the rules core before issue 12 made the dice cheaper to draw; run it again only
when a rule is meant to change what a seed gives (and say so in the changelog: recorded seeds of
the tables that use firefight would no longer replay).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from schemas.encounter import TurnState
from service.rules import RULESETS
from service.rules.dice import Dice, check_given
from service.rules.ruleset import EarlierAttack, Resolution, Ruleset, RuleViolation
from tests import d100_requests as d100
from tests import sr3_requests as sr3
from tests import sr3hl_requests as hl
from tests import sr4_requests as sr4
from tests import sr5_requests as sr5

RECORDS = Path(__file__).parent / "data" / "recorded_seeds.json"

# Seeds every scenario is resolved with: the smallest, small ones, one past 32 bits, a 63-bit one
# and the largest a request may carry (2**63 - 1).
SEEDS = [0, 1, 7, 42, 2**32 + 5, 6_942_017_348_991_207_411, 2**63 - 1]
# Die sizes drawn raw: randint's rejection loop behaves differently for each bit length.
RAW_SIDES = [2, 3, 4, 6, 8, 10, 12, 20, 100]

Step = dict[str, Any]


def _attack(body: dict[str, Any]) -> Step:
    return {"kind": "attack", "body": body}


def _action(body: dict[str, Any]) -> Step:
    return {"kind": "action", "body": body}


def _zone_test(zone: str, body: dict[str, Any]) -> Step:
    return {"kind": "zone_test", "zone": zone, "body": body}


# SR5 guns of the guide's kinds, each with the modes it needs.
SR5_PISTOL = sr5.weapon(modes=["SS", "SA"])
SR5_SMG = sr5.weapon(
    id="smg", category="submachine_gun", damage=7, accuracy=4, rc=1, modes=["SA", "BF", "FA"]
)
SR5_RIFLE = sr5.weapon(
    id="rifle", category="assault_rifle", damage=9, ap=-2, accuracy=5, rc=2, modes=["SA", "FA"]
)
SR5_MG = sr5.weapon(id="mg", category="light_machine_gun", modes=["FA"], ammo=100, accuracy=5)
SR5_SHOTGUN = sr5.weapon(
    id="flechette", category="shotgun_flechette", damage=9, accuracy=4, modes=["SA"]
)
SR5_ZONE = {"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20}
SR5_BYSTANDERS = [
    {"id": "in-open", "position": {"x": 10, "y": 0}},
    {"id": "beside", "position": {"x": 10, "y": 3.2}},
    {"id": "far", "position": {"x": 50, "y": 50}},
]
SR5_STRONG = sr5.attacker(agility=7, skill=7, strength=5, edge=3, willpower=4)


def _sr5_targets(*ids: str) -> list[dict[str, Any]]:
    return [sr5.target(id=t, distance_m=8 + 9 * n) for n, t in enumerate(ids)]


SR5_SCENARIOS: dict[str, list[Step]] = {
    "single shot": [_attack(sr5.attack(weapon=SR5_PISTOL, mode="SS"))],
    # bench/layers.py's request: a semi-automatic shot, as the HTTP benchmark sends it.
    "semi-automatic, twice": [_attack(sr5.attack()), _attack(sr5.attack())],
    "semi-automatic burst with recoil": [
        _attack(sr5.attack(weapon=SR5_SMG, mode="SB")),
        _attack(sr5.attack(weapon=SR5_SMG, mode="SB")),
    ],
    "burst then long burst with recoil": [
        _attack(sr5.attack(attacker=SR5_STRONG, weapon=SR5_SMG, mode="BF")),
        _attack(sr5.attack(attacker=SR5_STRONG, weapon=SR5_SMG, mode="LB")),
    ],
    "full auto, simple then complex, with recoil": [
        _attack(sr5.attack(attacker=SR5_STRONG, weapon=SR5_RIFLE, mode="FA")),
        _attack(sr5.attack(attacker=SR5_STRONG, weapon=SR5_RIFLE, mode="FA_complex")),
        _action({"actor": "sam", "action": "other"}),
        _attack(sr5.attack(attacker=SR5_STRONG, weapon=SR5_RIFLE, mode="FA")),
    ],
    "multiple targets, burst": [
        _attack(
            sr5.attack(
                attacker={**SR5_STRONG, "wound_modifier": -1},
                weapon=SR5_SMG,
                mode="BF",
                targets=_sr5_targets("goon-1", "goon-2"),
                larger_shares=["goon-2"],
            )
        )
    ],
    "multiple targets, full auto with cover and called shot": [
        _attack(
            sr5.attack(
                attacker=SR5_STRONG,
                weapon=SR5_RIFLE,
                mode="FA_complex",
                targets=[
                    sr5.target(id="a", distance_m=30, cover="partial"),
                    sr5.target(id="b", distance_m=60, prone=True, running=True),
                    sr5.target(id="c", distance_m=10, called_shot=True),
                ],
            )
        )
    ],
    "push the limit (exploding sixes)": [
        _attack(sr5.attack(attacker=SR5_STRONG, edge="push_the_limit", smartlink="wired"))
    ],
    "two guns, environment and ammunition": [
        _attack(
            sr5.attack(
                attacker=SR5_STRONG,
                weapon=SR5_PISTOL,
                second_weapon={**SR5_PISTOL, "id": "second-pistol", "accuracy": 4},
                ambidextrous=True,
                targets=[sr5.target(id="a"), sr5.target(id="b", distance_m=17, gun="second")],
                ammo="apds",
                environment={"light": "dim", "wind": "moderate"},
            )
        )
    ],
    "flechette medium spread at two targets": [
        _attack(
            sr5.attack(
                weapon=SR5_SHOTGUN,
                choke="medium",
                ammo="flechette",
                targets=_sr5_targets("a", "b"),
            )
        )
    ],
    "aim, full defense, then attack": [
        _action({"actor": "sam", "action": "take_aim", "aim_for": "dice"}),
        _action({"actor": "sam", "action": "take_aim", "aim_for": "accuracy"}),
        _action({"actor": "goon-1", "action": "full_defense"}),
        _attack(sr5.attack(attacker=SR5_STRONG, smartlink="wireless_implant")),
        _attack(sr5.attack(attacker=SR5_STRONG)),
    ],
    "attack then second chance": [
        _attack(sr5.attack(attacker=SR5_STRONG)),
        _action({"actor": "sam", "action": "second_chance"}),
    ],
    "suppressive fire and zone tests": [
        _attack(
            sr5.attack(
                attacker=SR5_STRONG,
                weapon=SR5_MG,
                mode="suppressive",
                targets=[],
                zone=SR5_ZONE,
                bystanders=SR5_BYSTANDERS,
            )
        ),
        _zone_test("zone-1", {"actor": "in-open", "defender": sr5.defender(), "edge": 1}),
        _zone_test("zone-1", {"actor": "beside", "defender": sr5.defender(), "edge": 0}),
    ],
    "all dice given (no seed drawn)": [
        _attack(
            sr5.attack(
                dice={
                    "attack": [5, 6, 1, 2, 3, 4, 5, 6, 2, 2],
                    "defense:goon-1": [1, 2, 3, 4, 5, 6],
                    "soak:goon-1": [5] * 12,
                }
            )
        )
    ],
}

D100_SHOTGUN = d100.weapon(
    id="coach-gun", shot_rate=0, ammo=2, double_barreled=True, armor_penetration=0
)
D100_ARMOR = {"head": 1, "torso": 6, "right_arm": 2, "left_arm": 2}

D100_SCENARIOS: dict[str, list[Step]] = {
    "single shot": [_attack(d100.attack())],
    "burst, shot rate 2": [_attack(d100.attack(shot_rate=2))],
    "full burst, shot rate 6, aimed": [
        _attack(d100.attack(shot_rate=6, aim=10, attacker=d100.attacker(marksmanship=80)))
    ],
    "both barrels": [
        _attack(
            d100.attack(
                weapon=D100_SHOTGUN,
                both_barrels=True,
                attacker=d100.attacker(marksmanship=75),
                targets=[d100.target(distance_m=5, defender=d100.defender(defense=10))],
            )
        )
    ],
    "hit locations against armour by location": [
        _attack(
            d100.attack(
                attacker=d100.attacker(marksmanship=90),
                targets=[
                    d100.target(defender=d100.defender(defense=5, armor_by_location=D100_ARMOR))
                ],
            )
        ),
        _attack(
            d100.attack(
                attacker=d100.attacker(marksmanship=90),
                targets=[d100.target(location="head", defender=d100.defender(defense=5))],
            )
        ),
    ],
    "multi-target fire": [
        _attack(
            d100.attack(
                shot_rate=3,
                attacker=d100.attacker(marksmanship=95),
                targets=[
                    d100.target(id="a", share_percent=60, defender=d100.defender(defense=5)),
                    d100.target(id="b", share_percent=40, distance_m=5),
                ],
            )
        )
    ],
    "suppressive fire and zone tests": [
        _attack(d100.suppressive(attacker=d100.attacker(marksmanship=90))),
        _zone_test("zone-1", {"actor": "runner", "athletics": 40}),
        _zone_test("zone-1", {"actor": "runner-2", "athletics": 10, "location": "torso"}),
    ],
    "move then attack with action points": [
        _action({"actor": "vex", "action": "move", "action_points": 1}),
        _attack(d100.attack(shot_rate=1)),
    ],
}

# SR3 (issue 13, recorded when it was added): target-number tests with the Rules of Six and One
# at every range, dodges and resistance from the Combat Pool, recoil, aim, a refusal.
SR3_RIFLE = sr3.weapon(
    id="rifle", category="assault_rifle", power=8, modes=["SA", "BF", "FA"], ammo=60
)


def _sr3_target(**fields: Any) -> dict[str, Any]:
    return sr3.target(dodge=2, resist=2, **fields)


SR3_SCENARIOS: dict[str, list[Step]] = {
    "semi-automatic, twice, dodge and resistance": [
        _attack(sr3.attack(pool=2, target=_sr3_target())),
        _attack(sr3.attack(pool=2, target=sr3.target(distance_m=50, dodge=1))),
    ],
    "burst and full auto with recoil": [
        _attack(sr3.attack(weapon=SR3_RIFLE, mode="BF", target=_sr3_target(distance_m=60))),
        _action({"actor": "sam", "action": "other"}),
        _attack(sr3.attack(weapon=SR3_RIFLE, mode="FA", rounds=6, target=sr3.target(resist=1))),
    ],
    "aimed through image magnification at long range": [
        _action({"actor": "sam", "action": "take_aim"}),
        _action({"actor": "sam", "action": "take_aim"}),
        _attack(
            sr3.attack(
                sight="magnification_2_laser",
                pool=4,
                target=_sr3_target(distance_m=40, cover="partial"),
                visibility={"vision": "low_light_cyber", "light": "minimal"},
            )
        ),
    ],
    "an exhausted pool is refused": [
        _attack(sr3.attack(pool=4)),
        _attack(sr3.attack(pool=4)),
    ],
    "zone test refused": [_zone_test("zone-1", {"actor": "sam"})],
}

# SR4 (issue 14, recorded when it was added): the opposed test, bursts with recoil per phase, a
# shotgun spread, aim and full defense, suppressive fire and its zone test.
SR4_SCENARIOS: dict[str, list[Step]] = {
    "semi-automatic twice, opposed and soaked": [
        _attack(sr4.attack()),
        _attack(sr4.attack(same_phase=True, targets=[sr4.target(distance_m=12)])),
    ],
    "bursts narrow and wide, then a full burst": [
        _attack(sr4.attack(weapon=sr4.RIFLE, mode="BF")),
        _attack(sr4.attack(weapon=sr4.RIFLE, mode="LB", burst="wide", same_phase=True)),
        _action({"actor": "sam", "action": "other"}),
        _attack(sr4.attack(attacker=sr4.attacker(agility=6, skill=6), weapon=sr4.RIFLE, mode="FB")),
    ],
    "aim, full defense and a medium choke": [
        _action({"actor": "sam", "action": "take_aim"}),
        _action({"actor": "goon-1", "action": "full_defense"}),
        _attack(
            sr4.attack(
                weapon={**sr4.SHOTGUN, "choke": "medium"},
                targets=[sr4.target(), sr4.target(id="goon-2")],
                targets_apart_m=1,
            )
        ),
    ],
    "suppressive fire and zone tests": [
        _attack(
            sr4.attack(
                weapon=sr4.RIFLE,
                mode="suppressive",
                targets=[],
                zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
                bystanders=[{"id": "goon-1", "position": {"x": 10, "y": 0}}],
            )
        ),
        _zone_test("zone-1", {"actor": "goon-1", "defender": sr4.defender()}),
    ],
}

HL_GOON = hl.defender(quickness=4, intelligence=3, dodge_skill=2)
HL_SCENARIOS: dict[str, list[Step]] = {
    "a shot, then full auto at the worn jacket, and the recovery roll": [
        _attack(
            hl.attack(
                attacker=hl.attacker(quickness=5, intelligence=4, willpower=4),
                pool=2,
                target=hl.target(defender=HL_GOON, dodge={"combat_pool": 1, "dodge_pool": 1}),
            )
        ),
        _attack(
            hl.attack(
                weapon=hl.smg(recoil_compensation=1),
                mode="FA",
                rounds=6,
                target=hl.target(defender=HL_GOON, dodge={"dodge_pool": 1}),
            )
        ),
        _action({"actor": "goon", "action": "recovery_roll", "willpower": 4}),
    ],
    "a called shot at the head with armour-piercing rounds": [
        _attack(
            hl.attack(
                weapon=hl.weapon(ammo_kind="armor_piercing"),
                called_shot="head",
                target=hl.target(defender=hl.defender(armor=[hl.jacket(), {"garment": "helmet"}])),
            )
        ),
    ],
    "suppression fire and a zone test": [
        _attack(
            {
                "attacker": hl.attacker(),
                "weapon": hl.smg(),
                "mode": "FA",
                "suppression": {
                    "area": [
                        {"x": 0, "y": 0},
                        {"x": 2, "y": 0},
                        {"x": 2, "y": 2},
                        {"x": 0, "y": 2},
                    ],
                    "bullets_per_m2": 3,
                },
            }
        ),
        _zone_test(
            "zone-1",
            {"actor": "goon", "defender": HL_GOON, "distance_m": 12, "dodge": {"dodge_pool": 2}},
        ),
    ],
}

SCENARIOS = {
    "sr5": SR5_SCENARIOS,
    "d100": D100_SCENARIOS,
    "sr3": SR3_SCENARIOS,
    "sr4": SR4_SCENARIOS,
    "sr3-hardlife": HL_SCENARIOS,
}


def _builtins(value: Any) -> Any:
    """A result or state as JSON holds it: what the service sends and stores."""
    return json.loads(msgspec.json.encode(value))


def step_seed(seed: int, index: int) -> int:
    """Each step of a scenario its own seed, within the 63 bits a request may carry."""
    return (seed + index * 1_000_003) % 2**63


def _resolve(
    ruleset: Ruleset,
    step: Step,
    body: dict[str, Any],
    state: Any,
    turn: TurnState,
    seed: int,
    earlier: EarlierAttack | None,
) -> tuple[Resolution[Any], Any]:
    """One step as the engine resolves it: given dice checked and all used. Returns the
    resolution and, for an attack, the request as its event keeps it (for a Second Chance)."""
    asked = None
    if step["kind"] == "attack":
        request = msgspec.convert(body, ruleset.attack_type)
        check_given(request.dice, ruleset.dice_steps(request))
        dice = Dice(seed, request.dice)
        resolution: Resolution[Any] = ruleset.resolve_attack(request, state, turn, dice)
        asked = msgspec.convert({**body, "dice": {}}, ruleset.attack_type)
    elif step["kind"] == "action":
        request = msgspec.convert(body, ruleset.action_type)
        check_given(request.dice, ruleset.action_dice_steps(request))
        dice = Dice(seed, request.dice)
        follows = earlier if ruleset.follows_up(request) is not None else None
        resolution = ruleset.resolve_action(request, state, turn, dice, follows)
    else:
        request = msgspec.convert(body, ruleset.zone_test_type)
        check_given(request.dice, ruleset.zone_test_dice_steps(request))
        dice = Dice(seed, request.dice)
        resolution = ruleset.resolve_zone_test(step["zone"], request, state, turn, dice)
    dice.check_given_used()
    return resolution, asked


def play(ruleset_id: str, steps: list[Step], seed: int) -> list[dict[str, Any]]:
    """Every step resolved in order on the state the one before left: its result and state."""
    ruleset = RULESETS[ruleset_id]
    state: Any = ruleset.new_state()
    turn = TurnState()
    played: list[dict[str, Any]] = []
    earlier: EarlierAttack | None = None
    for index, step in enumerate(steps):
        dice_seed = step_seed(seed, index)
        body = {"ruleset": ruleset_id, **step["body"]}
        try:
            resolution, asked = _resolve(ruleset, step, body, state, turn, dice_seed, earlier)
        except RuleViolation as refused:
            # A refusal is behaviour too (a suppressive test that made no zone has none to
            # test against): its problem is recorded, and the state stays as it was.
            error = {"detail": refused.detail, "path": refused.path, "kind": refused.kind}
            played.append({"kind": step["kind"], "seed": dice_seed, "refused": error})
            continue
        if asked is not None:
            earlier = EarlierAttack(request=asked, result=resolution.result)
        state = resolution.state
        played.append(
            {
                "kind": step["kind"],
                "seed": dice_seed,
                "result": _builtins(resolution.result),
                "state": _builtins(state),
                "actor": resolution.actor,
                "notes": list(resolution.notes),
            }
        )
    return played


def raw_draws(seed: int) -> dict[str, Any]:
    """The Dice source alone: plain rolls of each die size, pools with and without exploding
    sixes for both editions, target-number tests with the Rule of Six, and d100s, in one order
    from one seed (each draw continues the generator where the one before left it)."""
    dice = Dice(seed)
    drawn: dict[str, Any] = {}
    for sides in RAW_SIDES:
        drawn[f"roll d{sides} x12"] = dice.roll(f"d{sides}", 12, sides)
    drawn["pool 12 sr5 exploding"] = dice.pool("pool", 12, "sr5", explode=True)
    drawn["pool 30 sr5 exploding"] = dice.pool("pool-30", 30, "sr5", explode=True)
    drawn["pool 9 sr4"] = dice.pool("pool-sr4", 9, "sr4")
    drawn["pool 0"] = dice.pool("empty", 0, "sr5")
    drawn["target number 4, 8 dice"] = dice.target_number_test("tn4", 8, 4)
    drawn["target number 9, 10 dice"] = dice.target_number_test("tn9", 10, 9)
    drawn["target number 14, 10 dice"] = dice.target_number_test("tn14", 10, 14)
    drawn["d100 x5"] = [dice.d100("d100") for _ in range(5)]
    drawn["rolls"] = dice.rolls
    # Each roll as JSON holds it, whatever kind of object the Dice source returns it as.
    as_json: dict[str, Any] = _builtins(drawn)
    return as_json


def record() -> dict[str, Any]:
    """Every scenario of every ruleset with every seed, and the raw draws of every seed."""
    scenarios = []
    for ruleset_id, named in SCENARIOS.items():
        for name, steps in named.items():
            for seed in SEEDS:
                scenarios.append(
                    {
                        "ruleset": ruleset_id,
                        "name": name,
                        "seed": seed,
                        "steps": steps,
                        "played": play(ruleset_id, steps, seed),
                    }
                )
    return {
        "python": sys.version.split()[0],
        "scenarios": scenarios,
        "raw": [{"seed": seed, "drawn": raw_draws(seed)} for seed in SEEDS],
    }


def _lines(records: list[dict[str, Any]]) -> str:
    # One record a line: a change shows in a diff as the records it touched.
    return ",\n".join(json.dumps(r, separators=(",", ":"), sort_keys=True) for r in records)


def main() -> int:
    recorded = record()
    RECORDS.parent.mkdir(exist_ok=True)
    RECORDS.write_text(
        f'{{"python":{json.dumps(recorded["python"])},\n"scenarios":[\n'
        f'{_lines(recorded["scenarios"])}\n],\n"raw":[\n{_lines(recorded["raw"])}\n]}}\n'
    )
    print(f"wrote {RECORDS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
