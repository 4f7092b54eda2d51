"""`python -m bench.table`: does an attack cost more at a bigger table?

The same attack, in the engine with the embedded store and with Redis, in encounters of two
shapes measured side by side in one run: a small table (3 actors on the scene, no events before)
and a big one (50 actors on the scene and in the combat state, 1,000 events before). Several
encounters of each shape are attacked at once, in rounds that take turns, and each figure is the
median of its rounds. Redis's own command statistics give the time its commit script takes and
the commands each attack sends: the benchmark starts a Redis of its own for that (when
redis-server is installed), so that no other client's commands are counted with its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec
import redis.asyncio as aioredis

from bench.load import attack_body, reset_body
from bench.servers import free_port, require_loopback
from bench.targets import Target, report
from schemas.encounter import EncounterCreate, EncounterCreated
from service.collector import tune_for_serving
from service.engine import Encounters
from service.store import MemoryStore, RedisStore
from service.store.redis import SCRIPT_COMMANDS

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
ADMIN_KEY = "table-bench-admin-key-0123456789"
SMALL, BIG = "3 actors, no events", "50 actors, 1,000 events"
# The shooter and its target are on the scene at both tables.
SHOOTER, TARGET = "shooter", "goon-1"
SHOTS_BEFORE_RESET = 32

_SHEET = {"ruleset": "sr5", "reaction": 3, "intuition": 3, "body": 4, "armor": 9}


@dataclass
class Shape:
    name: str
    actors: int
    events: int


SHAPES = (Shape(SMALL, 3, 0), Shape(BIG, 50, 1000))


@dataclass
class Round:
    attacks_per_s: float
    commit_us: float | None
    round_trips: float | None


async def _table(encounters: Encounters, shape: Shape) -> str:
    """An encounter of `shape`: its actors on the scene, and its events before the attacks
    (the first of each extra actor's is an attack, so each has a combat state too)."""
    body = msgspec.json.encode(EncounterCreate(ruleset="sr5", name=shape.name))
    created = msgspec.json.decode((await encounters.create(body, ADMIN_KEY, None)).body)
    encounter = EncounterCreated(**created).id
    extras = [f"extra-{n}" for n in range(shape.actors - 2)]
    for n, actor_id in enumerate([SHOOTER, TARGET, *extras]):
        actor = {"name": actor_id, "position": {"x": float(n), "y": 0.0}, "sheet": _SHEET}
        admitted = await encounters.admit(encounter, ADMIN_KEY, "gm")
        await encounters.put_actor(admitted, actor_id, msgspec.json.encode(actor))
    for n in range(shape.events):
        actor_id = extras[n % len(extras)]
        admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
        if n < len(extras):
            await encounters.attack(admitted, attack_body(actor_id, n))
        else:
            await encounters.action(admitted, reset_body(actor_id))
    return encounter


async def _attacks(encounters: Encounters, encounter: str, count: int, first_seed: int) -> None:
    """The measured attacks, the shooter's recoil reset as in the HTTP benchmark."""
    for n in range(count):
        admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
        await encounters.attack(admitted, attack_body(SHOOTER, first_seed + n))
        if n % SHOTS_BEFORE_RESET == SHOTS_BEFORE_RESET - 1:
            admitted = await encounters.admit(encounter, ADMIN_KEY, "play")
            await encounters.action(admitted, reset_body(SHOOTER))


async def _commandstats(client: aioredis.Redis | None) -> dict[str, tuple[int, int]]:
    """Calls and microseconds so far, per command."""
    if client is None:
        return {}
    stats = await client.info("commandstats")
    return {
        name.removeprefix("cmdstat_"): (int(stat["calls"]), int(stat["usec"]))
        for name, stat in stats.items()
    }


async def _round(
    encounters: Encounters,
    tables: list[str],
    attacks: int,
    first_seed: int,
    counter: aioredis.Redis | None,
) -> Round:
    before = await _commandstats(counter)
    started = time.perf_counter()
    await asyncio.gather(*(_attacks(encounters, table, attacks, first_seed) for table in tables))
    elapsed = time.perf_counter() - started
    after = await _commandstats(counter)
    # Attacks and resets alike are one commit each.
    changes = len(tables) * (attacks + attacks // SHOTS_BEFORE_RESET)
    commit_us = round_trips = None
    if counter is not None:
        ran = {
            name: (calls - before.get(name, (0, 0))[0], usec - before.get(name, (0, 0))[1])
            for name, (calls, usec) in after.items()
        }
        calls, usec = ran.get("evalsha", (0, 0))
        commit_us = usec / calls if calls else None
        top_level = sum(
            calls for name, (calls, _) in ran.items() if name not in SCRIPT_COMMANDS | {"info"}
        )
        round_trips = top_level / changes
    return Round(len(tables) * attacks / elapsed, commit_us, round_trips)


async def measure(
    store_kind: str, redis_url: str, tables: int, attacks: int, rounds: int
) -> dict[str, list[Round]]:
    store = MemoryStore() if store_kind == "embedded" else RedisStore(redis_url)
    counter = None if store_kind == "embedded" else aioredis.Redis.from_url(redis_url)
    encounters = Encounters(store, ADMIN_KEY)
    try:
        made = {
            shape.name: [await _table(encounters, shape) for _ in range(tables)] for shape in SHAPES
        }
        measured: dict[str, list[Round]] = {shape.name: [] for shape in SHAPES}
        for n in range(rounds):
            # The shapes take turns, so the rest of the machine weighs on both alike.
            for shape in SHAPES if n % 2 == 0 else reversed(SHAPES):
                seed = n * attacks
                measured[shape.name].append(
                    await _round(encounters, made[shape.name], attacks, seed, counter)
                )
        for ids in made.values():
            for encounter in ids:
                await encounters.end(await encounters.admit(encounter, ADMIN_KEY, "gm"))
        return measured
    finally:
        await encounters.close()
        await store.close()
        if counter is not None:
            await counter.aclose()


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _targets(store_kind: str, measured: dict[str, list[Round]]) -> list[Target]:
    small, big = measured[SMALL], measured[BIG]
    rate_small = _median([r.attacks_per_s for r in small])
    rate_big = _median([r.attacks_per_s for r in big])
    assert rate_small is not None and rate_big is not None
    targets = [
        Target(
            f"table size, {store_kind}: attacks/s at the big table / the small",
            rate_big / rate_small,
            0.85,
            "at_least",
            against=f"{rate_small:,.0f} attacks/s at the small table, same run",
        )
    ]
    commit_small = _median([r.commit_us for r in small])
    commit_big = _median([r.commit_us for r in big])
    if commit_small and commit_big:
        targets.append(
            Target(
                f"table size, {store_kind}: Redis time of the commit at the big table / the small",
                commit_big / commit_small,
                1.15,
                "at_most",
                against=f"{commit_small:.1f} µs in Redis at the small table, same run",
            )
        )
        trips = _median([r.round_trips for r in small + big])
        assert trips is not None
        targets.append(
            Target("Redis round trips per uncontended change", trips, 1.0, "at_most", "round trips")
        )
    return targets


def _print(store_kind: str, measured: dict[str, list[Round]]) -> None:
    print(f"\n{store_kind}: {'table':<26} {'attacks/s':>10} {'commit µs':>10} {'round trips':>12}")
    for name, rounds in measured.items():
        rate = _median([r.attacks_per_s for r in rounds])
        commit = _median([r.commit_us for r in rounds])
        trips = _median([r.round_trips for r in rounds])
        print(
            f"{'':{len(store_kind) + 2}}{name:<26} {rate or 0:>10,.0f} "
            f"{'-' if commit is None else f'{commit:.1f}':>10} "
            f"{'-' if trips is None else f'{trips:.2f}':>12}"
        )


@contextlib.contextmanager
def _own_redis() -> Iterator[str]:
    """A Redis server for this run alone, keeping nothing on disk."""
    port = free_port()
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen(
        ["redis-server", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            try:
                asyncio.run(_ping(url))
                break
            except OSError:
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait()


async def _ping(url: str) -> None:
    client = aioredis.Redis.from_url(url)
    try:
        await client.ping()
    except aioredis.ConnectionError as error:
        raise OSError(str(error)) from None
    finally:
        await client.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table", description=__doc__)
    parser.add_argument("--tables", type=int, default=8, help="encounters of each shape at once")
    parser.add_argument("--attacks", type=int, default=200, help="attacks per encounter a round")
    parser.add_argument("--rounds", type=int, default=6, help="rounds per shape (they alternate)")
    parser.add_argument(
        "--redis-url",
        default=None,
        help="a loopback Redis to use (default: one of its own when redis-server is installed, "
        "else FIREFIGHT_TEST_REDIS_URL or 127.0.0.1:6379; other clients' commands then count)",
    )
    parser.add_argument("--no-redis", action="store_true", help="the embedded store only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        if args.redis_url is None and not args.no_redis and shutil.which("redis-server"):
            args.redis_url = stack.enter_context(_own_redis())
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    redis_url = args.redis_url or os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    try:
        require_loopback(redis_url)
    except ValueError as error:
        sys.exit(f"python -m bench.table: {error}")
    kinds = ["embedded"] if args.no_redis else ["embedded", "redis"]
    # The engine's garbage collector set as a serving process sets it (`make run`, every
    # benchmark's server): the defaults' young collections walk a big table's objects many
    # times a second, a cost the service does not have.
    tune_for_serving()
    targets: list[Target] = []
    figures = {}
    for kind in kinds:
        measured = asyncio.run(measure(kind, redis_url, args.tables, args.attacks, args.rounds))
        figures[kind] = {name: [vars(r) for r in rounds] for name, rounds in measured.items()}
        if not args.json:
            _print(kind, measured)
        targets += _targets(kind, measured)
    if args.json:
        print(json.dumps({"figures": figures, "targets": [vars(t) for t in targets]}, indent=2))
    else:
        report(targets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
