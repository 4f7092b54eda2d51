"""`python -m bench.cpu_per_attack`: the CPU time of an attack's parts inside one process, which
a machine shared with other work disturbs far less than the HTTP benchmark's rates (issue 28).

Two figures, each the median of `--rounds` rounds, on uvloop, against the real Redis:

- `store commit`: one `RedisStore.commit` (a commit's size: two changed fields, an event), 16 in
  flight over 16 encounters; through redis-py's client (`Script`, as before issue 28's direct
  calls, and as a Cluster still goes) and on its connections directly (`redis_direct.py`), the
  two in turn in every round.
- `engine`: admission and `Encounters.attack` (or the recoil reset's action) with
  `python -m bench`'s very bodies and mix, 16 in flight over 8 encounters: everything of an
  attack but HTTP (no request parsing, middleware, log line or answer on the wire).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable

from aiohttp.test_utils import TestClient, TestServer

from bench.load import worker_plan
from service.api import create_app
from service.api.app_keys import ENCOUNTERS
from service.config import Config
from service.event_loop import run
from service.store import RedisStore, StoreLimits

IN_FLIGHT = 16
COMMITS_PER_ROUND = 400  # per task
PLAN_PASSES = 3  # each worker's cycle of 66 requests, per round
ADMIN_KEY = f"bench-{uuid.uuid4().hex}"


async def _cpu_per_call(calls: int, work: Callable[[], Awaitable[None]]) -> float:
    started = time.process_time()
    await work()
    return 1e6 * (time.process_time() - started) / calls


async def _commits(redis_url: str, rounds: int) -> dict[str, list[float]]:
    limits = StoreLimits(ttl_seconds=120)
    stores = {
        "redis-py client": RedisStore(redis_url, limits),
        "direct": RedisStore(redis_url, limits),
    }
    client_store = stores["redis-py client"]
    assert client_store._direct is not None
    await client_store._direct.close()
    client_store._direct = None  # every script through redis-py's client, as a Cluster's
    ids = {name: [f"bench-{uuid.uuid4().hex}" for _ in range(IN_FLIGHT)] for name in stores}
    versions = {name: [1] * IN_FLIGHT for name in stores}
    fields = {"body": b"x" * 600, "combat": b"y" * 300}

    async def commits(name: str) -> None:
        store, encounters, held = stores[name], ids[name], versions[name]

        async def one(i: int) -> None:
            for _ in range(COMMITS_PER_ROUND):
                await store.commit(encounters[i], held[i], fields, (), b"e" * 700)
                held[i] += 1

        await asyncio.gather(*(one(i) for i in range(IN_FLIGHT)))

    found: dict[str, list[float]] = {name: [] for name in stores}
    try:
        for name, store in stores.items():
            for encounter in ids[name]:
                await store.create(encounter, {"body": b"x"}, b"created")
            await commits(name)  # warm: connections open, scripts loaded
        for _ in range(rounds):
            for name in stores:
                calls = IN_FLIGHT * COMMITS_PER_ROUND
                found[name].append(await _cpu_per_call(calls, lambda n=name: commits(n)))
    finally:
        for name, store in stores.items():
            for encounter in ids[name]:
                await store.delete(encounter, b"ended")
            await store.close()
    return found


async def _engine(redis_url: str, rounds: int) -> list[float]:
    config = Config(
        redis_url=redis_url,
        encounter_ttl_seconds=600,
        admin_key=ADMIN_KEY,
        rate_limit_per_second=0,
        refusals_per_second=0,
    )
    app = create_app(config)
    client = TestClient(TestServer(app))
    await client.start_server()
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    ids: list[str] = []
    try:
        for _ in range(IN_FLIGHT // 2):
            body = {"ruleset": "sr5", "name": "bench"}
            created = await client.post("/v1/encounters", json=body, headers=headers)
            ids.append(str((await created.json())["id"]))
        encounters = app[ENCOUNTERS]
        plans = [worker_plan(w, ids[w // 2]) for w in range(IN_FLIGHT)]

        async def worker(w: int) -> None:
            for _ in range(PLAN_PASSES):
                for planned in plans[w]:
                    admitted = await encounters.admit(ids[w // 2], ADMIN_KEY, "play")
                    if planned.is_attack:
                        await encounters.attack(admitted, planned.body)
                    else:
                        await encounters.action(admitted, planned.body)

        async def all_workers() -> None:
            await asyncio.gather(*(worker(w) for w in range(IN_FLIGHT)))

        await all_workers()  # warm
        calls = IN_FLIGHT * PLAN_PASSES * len(plans[0])
        return [await _cpu_per_call(calls, all_workers) for _ in range(rounds)]
    finally:
        for encounter in ids:
            await client.delete(f"/v1/encounters/{encounter}", headers=headers)
        await client.close()


def _line(name: str, figures: list[float]) -> str:
    rounds = " ".join(f"{x:.1f}" for x in figures)
    return f"{name}: {statistics.median(figures):.1f} µs of CPU (rounds: {rounds})"


async def _main(args: argparse.Namespace) -> None:
    for name, figures in (await _commits(args.redis_url, args.rounds)).items():
        print(_line(f"store commit, {name}", figures))
    print(_line("engine, per request", await _engine(args.redis_url, args.rounds)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    run(_main(parser.parse_args(argv)), "auto")


if __name__ == "__main__":
    main()
