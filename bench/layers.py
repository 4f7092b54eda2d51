"""`python -m bench.layers`: CPU cost of one attack's layers, timed in-process, one at a time.

The HTTP benchmark says how fast firefight is; this says where its time goes, without a
profiler's overhead: each layer runs in a loop and its CPU time (time.process_time, the best of 3
rounds) is divided by the count. Calls are sequential: Redis waits are not CPU time, and
contention plays no part.

It ends with the targets of issue 28 that live in-process, each a ratio in one run: every
ruleset's odds previews against the attack or zone test they preview (bench/previews.py), and
the dice draw against a frozen copy of the draw before issue 12 (a random.Random(seed) per Dice,
randint per die). Resolutions per second and the previews' milliseconds, in the rules core and
through the engine on the embedded store (wall time, its thread hop included), are printed as
information.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable

import msgspec
import redis.asyncio as aioredis

from bench import previews
from bench.load import attack_body
from bench.server import REDIS_TIMEOUT_S
from bench.servers import require_loopback
from bench.targets import Target, report
from schemas.d100 import D100AttackRequest, D100State
from schemas.encounter import EncounterCreate, EncounterCreated, TurnState
from schemas.initiative import Initiative, InitiativeEntry
from schemas.sr5 import SR5ActionRequest, SR5AttackRequest, SR5State
from service import logs
from service.config import Config
from service.engine import Encounters
from service.logs import configure_logging
from service.rules.d100 import D100Ruleset
from service.rules.dice import Dice
from service.rules.sr5 import SR5Ruleset
from service.store import MemoryStore, RedisStore

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
LAYER_KEY = "firefight-bench:layers"


# The best of a few rounds, as timeit does: the others only add noise from the rest of the box.
REPEATS = 3


def _per_call_us(count: int, run: Callable[[int], None]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        run(count)
        best = min(best, time.process_time() - started)
    return best / count * 1e6


async def _per_call_us_async(count: int, run: Callable[[int], Awaitable[None]]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        await run(count)
        best = min(best, time.process_time() - started)
    return best / count * 1e6


def _rules_us(count: int) -> float:
    """The SR5 rules alone: pool, recoil, dice for attack, defense and soak, the result."""
    request = msgspec.json.decode(attack_body("layers", 7), type=SR5AttackRequest)
    ruleset, state, turn = SR5Ruleset(), SR5State(), TurnState()

    def run(n: int) -> None:
        for i in range(n):
            ruleset.resolve_attack(request, state, turn, Dice(i))

    return _per_call_us(count, run)


# A d100 burst at one target: attack, defense, bonus dice, Passive Defense and hit location.
D100_ATTACK = {
    "attacker": {"id": "layers", "marksmanship": 60, "recoil_control": 2},
    "weapon": {
        "id": "smg",
        "damage": 7,
        "bonus_dice": 2,
        "armor_penetration": 2,
        "shot_rate": 3,
        "ammo": 30,
        "range_bands": [{"up_to_m": 10, "modifier": 10}, {"up_to_m": 50, "modifier": 0}],
    },
    "shot_rate": 2,
    "targets": [
        {
            "id": "goon-1",
            "distance_m": 20,
            "defender": {"defense": 20, "passive_defense": 20, "armor": 3},
        }
    ],
}


def _d100_rules_us(count: int) -> float:
    """The d100 rules alone, every step of a hit rolled, for comparison with SR5's."""
    request = msgspec.convert(D100_ATTACK, type=D100AttackRequest)
    ruleset, state, turn = D100Ruleset(), D100State(), TurnState()

    def run(n: int) -> None:
        for i in range(n):
            ruleset.resolve_attack(request, state, turn, Dice(i))

    return _per_call_us(count, run)


class _DiceBefore(Dice):
    """The server's draw as it was before issue 12, frozen here as the baseline: a
    random.Random(seed) made with every Dice, and randint for every die. Everything else (given
    dice, steps, records, pools) is today's Dice, so the ratio is the draw alone."""

    __slots__ = ("_before",)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self._before = random.Random(seed)

    def _rolled(self, count: int, sides: int) -> list[int]:
        return [self._before.randint(1, sides) for _ in range(count)]


# The pools of the SR5 benchmark attack when it hits: attack, defense and soak tests.
ATTACK_POOLS = (("attack", 10), ("defense:goon-1", 6), ("soak:goon-1", 13))


def _attack_dice_us(count: int, make: Callable[[int], Dice]) -> float:
    """A request's server dice as the rules ask for them: a Dice from its seed, and the three
    pools of a hit, counted for hits and glitches and recorded under their steps."""

    def run(n: int) -> None:
        for seed in range(n):
            dice = make(seed)
            for step, pool in ATTACK_POOLS:
                dice.pool(step, pool, "sr5")

    return _per_call_us(count, run)


def _draw_us(count: int, make: Callable[[int], Dice]) -> float:
    """The draw alone: a Dice from a seed, and the 29 d6 of a hit from its generator, as
    many calls to randint would give them (what the frozen copy replaces)."""

    def run(n: int) -> None:
        for seed in range(n):
            dice = make(seed)
            for _, pool in ATTACK_POOLS:
                dice._rolled(pool, 6)

    return _per_call_us(count, run)


def _check_same_dice(seeds: int) -> None:
    """The frozen copy must draw what Dice draws, or the ratio compares different work."""
    for seed in [*range(seeds), 2**63 - 1]:
        now, before = Dice(seed), _DiceBefore(seed)
        for step, pool in ATTACK_POOLS:
            if now.pool(step, pool, "sr5") != before.pool(step, pool, "sr5"):
                raise AssertionError(f"seed {seed}: Dice and the draw before issue 12 differ")


def rules_targets(count: int) -> list[Target]:
    """The rules core's ratio: the dice draw's speed-up over the draw before issue 12, both
    measured now. (Resolutions per second of one core are printed, no longer a target: issue
    28 keeps only ratios of one run.)"""
    _check_same_dice(200)
    before_us = _draw_us(count, _DiceBefore)
    now_us = _draw_us(count, Dice)
    return [
        Target(
            "dice draw of an SR5 hit (a seed, 29 d6), speed-up",
            before_us / now_us,
            RULES_SPEED_UP,
            "at_least",
            against="random.Random(seed) and randint per die, as before issue 12, same run",
        ),
    ]


# The speed-up issue 12 asked of the rules core (29,000 to 50,000 SR5 resolutions a second on
# the machine it measured); the dice draw is held to the same.
RULES_SPEED_UP = 50_000 / 29_000


def _log_line_us(count: int) -> float:
    """The one JSON log line the middleware writes per request, to /dev/null."""
    with open(os.devnull, "w") as sink:
        saved, sys.stderr = sys.stderr, sink
        try:
            # firefight's own set-up; its logger writes to the sys.stderr of this moment.
            configure_logging(Config(log_format="json", admin_key=LAYERS_ADMIN_KEY))
        finally:
            sys.stderr = saved
        logs.new_context(request_id="0" * 32, encounter="0" * 32)

        def run(n: int) -> None:
            for _ in range(n):
                line = {"method": "POST", "path": "/v1/x", "status": 201, "duration_ms": 1.0}
                logs.request_line(line)

        try:
            return _per_call_us(count, run)
        finally:
            logs.new_context()


LAYERS_ADMIN_KEY = "layers-admin-key-0123456789"


async def _engine_us(encounters: Encounters, count: int) -> float:
    """Encounters.admit then .attack, as the handler calls them: load, check the token, decode,
    resolve, check and encode state and event, commit, the outcome.

    Per attack, with the HTTP benchmark's recoil resets (2 actions per 64 attacks) included."""
    encoder = msgspec.json.Encoder()
    answer = await encounters.create(
        encoder.encode(EncounterCreate(ruleset="sr5", name="layers")), LAYERS_ADMIN_KEY, None
    )
    created = msgspec.json.decode(answer.body, type=EncounterCreated)
    gm = created.tokens.gm
    # Two attackers reset every 32 shots, as in the HTTP benchmark, so no recoil builds up.
    bodies = [attack_body(f"layers-{k}", seed) for seed in range(64) for k in range(2)]
    resets = [
        encoder.encode(SR5ActionRequest(actor=f"layers-{k}", action="other")) for k in range(2)
    ]

    async def run(n: int) -> None:
        # The answer is the handler's response body, encoded by the engine.
        for i in range(n):
            admitted = await encounters.admit(created.id, gm, "play")
            await encounters.attack(admitted, bodies[i % len(bodies)])
            if i % 64 == 63:
                for reset in resets:
                    admitted = await encounters.admit(created.id, gm, "play")
                    await encounters.action(admitted, reset)

    try:
        return await _per_call_us_async(count, run)
    finally:
        await encounters.end(await encounters.admit(created.id, gm, "gm"))


async def _engine_odds_us(encounters: Encounters, count: int) -> dict[str, float]:
    """Encounters.admit then .attack_odds, as the handler calls them, for each preview beside
    Encounters.attack: wall-clock µs per call (the preview runs in a thread, and a player waits
    for the wall clock), sequential, best of 3 rounds. The previews ask a fresh encounter; the
    attacks are timed alone, each followed by an untimed action that resets the recoil."""
    encoder = msgspec.json.Encoder()

    async def new_encounter(name: str) -> tuple[str, str]:
        answer = await encounters.create(
            encoder.encode(EncounterCreate(ruleset="sr5", name=name)), LAYERS_ADMIN_KEY, None
        )
        created = msgspec.json.decode(answer.body, type=EncounterCreated)
        return created.id, created.tokens.gm

    shooting, previewing = await new_encounter("layers-attacks"), await new_encounter("layers-odds")
    reset = encoder.encode(SR5ActionRequest(actor="layers", action="other"))

    async def attacks(body: bytes, n: int) -> float:
        encounter, gm = shooting
        spent = 0.0
        for _ in range(n):
            started = time.perf_counter()
            await encounters.attack(await encounters.admit(encounter, gm, "play"), body)
            spent += time.perf_counter() - started
            await encounters.action(await encounters.admit(encounter, gm, "play"), reset)
        return spent

    async def odds_previews(body: bytes, n: int) -> float:
        encounter, gm = previewing
        started = time.perf_counter()
        for _ in range(n):
            await encounters.attack_odds(await encounters.admit(encounter, gm, "play"), body)
        return time.perf_counter() - started

    async def best(run: Callable[[bytes, int], Awaitable[float]], body: bytes) -> float:
        n = max(1, count // 10)
        return min([await run(body, n) for _ in range(REPEATS)]) / n * 1e6

    single = attack_body("layers", 7)
    split = msgspec.json.encode({**previews.SR5_SPLIT, "seed": 7})
    try:
        return {
            "engine single-target attack, embedded store (wall)": await best(attacks, single),
            "engine single-target odds preview, embedded store (wall)": await best(
                odds_previews, single
            ),
            "engine four-target split attack, embedded store (wall)": await best(attacks, split),
            "engine four-target split odds preview, embedded store (wall)": await best(
                odds_previews, split
            ),
        }
    finally:
        for encounter, gm in (shooting, previewing):
            await encounters.end(await encounters.admit(encounter, gm, "gm"))


async def _incr_us(redis_url: str, count: int) -> float:
    """One redis-py command round trip, as the baseline server makes it."""
    client = aioredis.Redis.from_url(
        redis_url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
    )

    async def run(n: int) -> None:
        for _ in range(n):
            await client.incr(LAYER_KEY)

    try:
        return await _per_call_us_async(count, run)
    finally:
        await client.delete(LAYER_KEY)
        await client.aclose()


def _turn_us(count: int, actors: int) -> float:
    """The turn as the head stores it and each change reads it back, with the service running
    the initiative of `actors` actors (0: the VTT runs its own tracker)."""
    entries = [
        InitiativeEntry(actor=f"actor-{n}", score=30 - n % 25, ties=[3, 5, 4], base=9)
        for n in range(actors)
    ]
    turn = TurnState(initiative=Initiative(entries=entries, current="actor-0") if actors else None)
    encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(TurnState)

    def run(n: int) -> None:
        for _ in range(n):
            decoder.decode(encoder.encode(turn))

    return _per_call_us(count, run)


async def _run(redis_url: str | None, count: int) -> dict[str, float]:
    figures = {
        "sr5 rules (resolve_attack)": _rules_us(count),
        "d100 rules (resolve_attack)": _d100_rules_us(count),
        "dice draw of an SR5 hit (a seed, 29 d6)": _draw_us(count, Dice),
        "the same draw as before issue 12": _draw_us(count, _DiceBefore),
        "its three pools, counted and recorded": _attack_dice_us(count, Dice),
        "the same with the draw before issue 12": _attack_dice_us(count, _DiceBefore),
        "request log line (JSON)": _log_line_us(count),
        "the turn, stored and read back": _turn_us(count, 0),
        "the same, the service running a 50-actor initiative": _turn_us(count, 50),
    }
    memory = MemoryStore()
    figures["engine attack, embedded store"] = await _engine_us(
        Encounters(memory, LAYERS_ADMIN_KEY), count
    )
    figures.update(await _engine_odds_us(Encounters(memory, LAYERS_ADMIN_KEY), count))
    await memory.close()
    if redis_url is not None:
        store = RedisStore(redis_url)
        try:
            figures["engine attack, Redis store"] = await _engine_us(
                Encounters(store, LAYERS_ADMIN_KEY), count
            )
        finally:
            await store.close()
        figures["one redis-py INCR"] = await _incr_us(redis_url, count)
    return figures


async def _run_odds(count: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    memory = MemoryStore()
    try:
        figures.update(await _engine_odds_us(Encounters(memory, LAYERS_ADMIN_KEY), count))
    finally:
        await memory.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.layers", description=__doc__)
    parser.add_argument("--count", type=int, default=5000, help="calls per layer")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL),
        help="loopback Redis for the Redis layers",
    )
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis layers")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--only-odds",
        action="store_true",
        help="only the odds previews beside what they preview (every ruleset's in the rules "
        "core, SR5's through the engine)",
    )
    parser.add_argument(
        "--preview-budget",
        type=float,
        default=previews.DEFAULT_BUDGET_S,
        help="CPU seconds per round of each preview layer (at least one call)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.count <= 1_000_000:
        parser.error("--count must be between 1 and 1000000")
    try:
        require_loopback(args.redis_url)
    except ValueError as error:
        parser.error(str(error))
    if not 0 < args.preview_budget <= 60:
        parser.error("--preview-budget must be in (0, 60]")
    if args.only_odds:
        figures = asyncio.run(_run_odds(args.count))
        targets = []
    else:
        figures = asyncio.run(_run(None if args.no_redis else args.redis_url, args.count))
        targets = rules_targets(args.count)
    timed = previews.measure(args.preview_budget)
    figures.update(previews.figures(timed))
    targets += previews.targets(timed)
    rulesets = [] if args.only_odds else ["sr5", "d100"]
    if args.json:
        layers = {name: round(us, 1) for name, us in figures.items()}
        rates = {
            f"{ruleset} resolutions/s per core": round(
                1e6 / figures[f"{ruleset} rules (resolve_attack)"]
            )
            for ruleset in rulesets
        }
        marks = {t.name: {"value": t.value, "mark": t.mark, "met": t.met} for t in targets}
        print(json.dumps({**layers, **rates, "targets": marks}, indent=2))
        return 0
    width = max(map(len, figures))
    print(f"{'layer'.ljust(width)}  CPU µs/call (wall where it says so)")
    for name, us in figures.items():
        print(f"{name.ljust(width)}  {us:11.1f}")
    print()
    for ruleset in rulesets:
        per_s = 1e6 / figures[f"{ruleset} rules (resolve_attack)"]
        print(f"{ruleset} rules core: {per_s:,.0f} single-target resolutions/s per core")
    report(targets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
