"""Issue 28's previews: every ruleset's odds preview beside the attack or zone test it previews,
in the rules core, in the same run. "Each costs at most 20x the attack it previews."

For each case the same request on the same state: `resolve_attack` (or `resolve_zone_test`)
with a fresh seed per call, then the ruleset's `attack_odds` (or `zone_test_odds`) with the
samples the service would give it by default (`Previews.samples`), warm (its caches filled by
the calls before, as at a table where the same pools come back) and cold (every cache of the
rules core emptied before each call: the first preview of its pools). CPU time per call
(time.process_time), the best of 3 rounds of as many calls as fit in the round's budget.
The target is the cold preview over the attack; the warm one is printed beside it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from bench.load import AMMO, WEAPON_RC, attack_body
from bench.targets import Target
from schemas.encounter import TurnState
from service.engine.previews import Previews
from service.rules import RULESETS, odds
from service.rules.dice import Dice
from tests import d100_requests, sr3_requests, sr3hl_requests, sr4_requests, sr5_requests

# Issue 28: "each costs at most 20x the attack it previews, in the same run".
PREVIEW_VS_ATTACK = 20.0
REPEATS = 3
# CPU seconds one round of a layer may take (at least one call): short enough for `make bench`.
DEFAULT_BUDGET_S = 0.15
TURN = TurnState()


@dataclass(frozen=True)
class Case:
    """A request to resolve and to preview: an attack, or a test in live zone `zone`."""

    ruleset: str
    name: str
    body: dict[str, Any]
    zone: str | None = None
    # Attacks resolved first, their dice given where it matters: the state it is asked on.
    before: tuple[dict[str, Any], ...] = field(default=())


# --- the cases: each ruleset's everyday attack, and its largest bodies -----------------------

_SR5 = sr5_requests
# Issue 16's four-target full-auto split with Push the Limit (Agility 7 + skill 8 + Edge 4 = 19
# dice, no recoil with RC 30: shares of 5, 5, 5 and 4 dice, every six exploding), the targets at
# short, medium and long range, one prone, one in good cover.
SR5_SPLIT = _SR5.attack(
    attacker=_SR5.attacker(id="layers", agility=7, skill=8, strength=5, edge=4),
    weapon=_SR5.weapon(
        id="ak-97", category="assault_rifle", modes=["SA", "BF", "FA"], ammo=AMMO, rc=WEAPON_RC
    ),
    mode="FA",
    edge="push_the_limit",
    targets=[
        _SR5.target(id="goon-1", distance_m=20),
        _SR5.target(id="goon-2", distance_m=60, cover="good"),
        _SR5.target(id="goon-3", distance_m=200, prone=True),
        _SR5.target(id="goon-4", distance_m=30),
    ],
)
# A machine gun's suppressive fire down a 20 m lane (7 hits of 10 given), someone in the open in it.
_SR5_SUPPRESSION = _SR5.attack(
    mode="suppressive",
    weapon=_SR5.weapon(category="light_machine_gun", modes=["FA"], ammo=200, accuracy=5, damage=9),
    targets=[],
    zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 20},
    bystanders=[{"id": "in-open", "position": {"x": 10, "y": 0}}],
    dice={"suppression": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2]},
)

_SR4 = sr4_requests
_SR4_SUPPRESSION = _SR4.attack(
    weapon=_SR4.RIFLE,
    mode="suppressive",
    targets=[],
    zone={"origin": {"x": 0, "y": 0}, "direction_deg": 90, "length_m": 20},
    dice={"suppression": [5, 5, 6, 1, 2, 3, 4, 4]},
)

_SR3 = sr3_requests
_SR3_RIFLE = _SR3.weapon(
    id="ak",
    category="assault_rifle",
    power=8,
    damage_level="M",
    modes=["SA", "BF", "FA"],
    ammo=30,
    recoil_compensation=9,
)

_HL = sr3hl_requests
# Pete's SMG over one square metre at 6 bullets per m² (004, Table 9), Whisper dodging in it.
_HL_SMG = {
    "id": "ingram",
    "category": "smg",
    "power": 7,
    "damage_level": "M",
    "modes": ["BF", "FA"],
    "ammo": 32,
    "recoil_compensation": 2,
}
_HL_SUPPRESSION = {
    "attacker": {"id": "pete", "skill": 5, "quickness": 5, "intelligence": 4, "willpower": 4},
    "weapon": _HL_SMG,
    "mode": "FA",
    "suppression": {
        "area": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}, {"x": 0, "y": 1}],
        "bullets_per_m2": 6,
    },
}
_HL_DODGING = _HL.target(
    defender=_HL.defender(combat_pool=4), dodge={"combat_pool": 3}, distance_m=10
)

_D100 = d100_requests
_D100_SUPPRESSION = _D100.suppressive(
    30, 0, attacker=_D100.attacker(id="sniper"), dice={"suppression": [21]}
)

CASES: tuple[Case, ...] = (
    Case(
        "sr5",
        "single shot (make bench's SA heavy pistol)",
        msgspec.json.decode(attack_body("layers", 7)),
    ),
    Case("sr5", "four-target FA split with Push the Limit", SR5_SPLIT),
    Case(
        "sr5",
        "zone test in a machine gun's suppressive fire",
        {"actor": "in-open", "defender": _SR5.defender()},
        zone="zone-1",
        before=(_SR5_SUPPRESSION,),
    ),
    Case("sr4", "single shot", _SR4.attack()),
    Case(
        "sr4",
        "wide long burst, Edge on both sides",
        _SR4.attack(
            attacker=_SR4.attacker(skill=6),
            weapon={**_SR4.RIFLE, "modes": ["FA"]},
            mode="LB",
            burst="wide",
            edge="extra_dice",
            targets=[_SR4.target(edge=True)],
        ),
    ),
    Case(
        "sr4",
        "zone test in suppressive fire",
        {"actor": "goon-1", "defender": _SR4.defender(reaction=2, edge=1)},
        zone="zone-1",
        before=(_SR4_SUPPRESSION,),
    ),
    Case("sr3", "single shot", _SR3.attack()),
    Case(
        "sr3",
        "10 rounds full auto, dodged",
        _SR3.attack(
            weapon=_SR3_RIFLE, mode="FA", rounds=10, pool=3, target=_SR3.target(dodge=4, resist=1)
        ),
    ),
    Case("sr3-hardlife", "single shot", _HL.attack()),
    Case(
        "sr3-hardlife",
        "burst at a dodging target",
        _HL.attack(weapon=_HL.smg(), mode="BF", target=_HL_DODGING),
    ),
    Case(
        "sr3-hardlife",
        "10 rounds full auto at a dodging target",
        _HL.attack(weapon=_HL.smg(recoil_compensation=2), mode="FA", rounds=10, target=_HL_DODGING),
    ),
    Case(
        "sr3-hardlife",
        "zone test at 6 bullets/m², dodging, partial cover",
        {
            "actor": "whisper",
            "defender": {
                "body": 4,
                "willpower": 4,
                "quickness": 5,
                "intelligence": 4,
                "combat_pool": 6,
            },
            "distance_m": 8,
            "dodge": {"combat_pool": 3},
            "cover": "partial",
        },
        zone="zone-1",
        before=(_HL_SUPPRESSION,),
    ),
    Case("d100", "single shot", _D100.attack(shot_rate=1)),
    Case("d100", "6-round burst", _D100.attack(shot_rate=6)),
    Case(
        "d100",
        "zone test in suppressive fire",
        {
            "actor": "runner",
            "athletics": 55,
            "defender": _D100.defender(armor_by_location={"torso": 6}),
        },
        zone="zone-1",
        before=(_D100_SUPPRESSION,),
    ),
)


# --- timing -----------------------------------------------------------------------------------


def _cache_clears() -> list[Callable[[], None]]:
    """Every cache of the rules core (functools caches in any loaded service.rules module)."""
    clears = []
    for name, module in list(sys.modules.items()):
        if name == "service.rules" or name.startswith("service.rules."):
            for value in vars(module).values():
                clear = getattr(value, "cache_clear", None)
                if callable(clear) and clear not in clears:
                    clears.append(clear)
    return clears


def _cpu_us(call: Callable[[int], Any], budget_s: float) -> tuple[float, Any]:
    """CPU µs per call, the best of REPEATS rounds, and what the last call answered. A first
    call sizes the rounds; when it alone takes the whole budget, it counts as the first round."""
    started = time.process_time()
    answer = call(0)
    once = time.process_time() - started
    count = max(1, min(100_000, int(budget_s / max(once, 1e-7))))
    best = once if count == 1 else float("inf")
    for _ in range(REPEATS - 1 if count == 1 else REPEATS):
        started = time.process_time()
        for i in range(count):
            answer = call(i)
        best = min(best, time.process_time() - started)
    return best / count * 1e6, answer


@dataclass
class Timed:
    case: Case
    resolve_us: float
    warm_us: float
    cold_us: float
    samples: int
    method: str

    @property
    def cold_ratio(self) -> float:
        return self.cold_us / self.resolve_us

    @property
    def warm_ratio(self) -> float:
        return self.warm_us / self.resolve_us


def _state(case: Case) -> Any:
    ruleset = RULESETS[case.ruleset]
    state = ruleset.new_state()
    for body in case.before:
        request = msgspec.convert(body, ruleset.attack_type)
        state = ruleset.resolve_attack(request, state, TURN, Dice(0, request.dice)).state
    return state


def time_case(case: Case, budget_s: float = DEFAULT_BUDGET_S) -> Timed:
    ruleset = RULESETS[case.ruleset]
    state = _state(case)
    zone = case.zone
    kind = ruleset.attack_type if zone is None else ruleset.zone_test_type
    request = msgspec.convert(case.body, kind)
    samples = Previews(1).samples(None, request).count
    clears = _cache_clears()

    if zone is None:

        def resolve(i: int) -> Any:
            return ruleset.resolve_attack(request, state, TURN, Dice(i))

        def preview(i: int) -> Any:
            return ruleset.attack_odds(request, state, TURN, odds.SEED, samples)
    else:

        def resolve(i: int) -> Any:
            return ruleset.resolve_zone_test(zone, request, state, TURN, Dice(i))

        def preview(i: int) -> Any:
            return ruleset.zone_test_odds(zone, request, state, TURN, odds.SEED, samples)

    def cold(i: int) -> Any:
        for clear in clears:
            clear()
        return preview(i)

    resolve_us, _ = _cpu_us(resolve, budget_s)
    warm_us, answer = _cpu_us(preview, budget_s)
    cold_us, _ = _cpu_us(cold, budget_s)
    return Timed(case, resolve_us, warm_us, cold_us, samples, str(answer.method))


def measure(budget_s: float = DEFAULT_BUDGET_S) -> list[Timed]:
    return [time_case(case, budget_s) for case in CASES]


def figures(timed: list[Timed]) -> dict[str, float]:
    """CPU µs per call of each case's three layers, named for `bench.layers`' table."""
    found = {}
    for t in timed:
        what = "zone test" if t.case.zone else "attack"
        name = f"{t.case.ruleset} {t.case.name}"
        found[f"{name}: the {what} (resolve)"] = t.resolve_us
        found[f"{name}: its preview, warm ({t.method})"] = t.warm_us
        found[f"{name}: its preview, caches cold"] = t.cold_us
    return found


def targets(timed: list[Timed]) -> list[Target]:
    """One per case: the cold preview over what it previews, same request, same state."""
    return [
        Target(
            f"{t.case.ruleset} preview / its {'zone test' if t.case.zone else 'attack'}, "
            f"{t.case.name}, rules core, caches cold",
            t.cold_ratio,
            PREVIEW_VS_ATTACK,
            "at_most",
            against=f"{t.cold_us:,.0f} µs against {t.resolve_us:,.1f} µs; warm "
            f"{t.warm_ratio:.1f}x; {t.method}"
            + (f", {t.samples} samples" if t.method != "exact" else "")
            + ", same run",
        )
        for t in timed
    ]
