"""What the odds endpoints do whatever the ruleset: previews are computed in threads, at most
PREVIEW_THREADS at once in a process, so sampled ones cannot crowd out the event loop that
answers the table's attacks."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from service.engine import encounters
from service.rules.sr5 import SR5Ruleset
from tests import sr5_requests as make
from tests.test_api import new_encounter


async def test_previews_run_in_threads_a_few_at_a_time(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One token sends them all: its budget of previews in flight (test_bounds_previews.py) is
    # raised past them, so only the threads bound how many run at once.
    memory_client = await make_client(previews_per_token=10, previews_per_encounter=10)
    running, most = 0, 0
    lock = threading.Lock()
    loop_threads: set[int] = set()
    real = SR5Ruleset.attack_odds

    def slow(self: SR5Ruleset, *arguments: Any) -> Any:
        nonlocal running, most
        loop_threads.add(threading.get_ident())
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return real(self, *arguments)

    monkeypatch.setattr(SR5Ruleset, "attack_odds", slow)
    encounter = await new_encounter(memory_client)
    path = f"/v1/encounters/{encounter}/attacks/odds"
    answers = await asyncio.gather(
        *(memory_client.post(path, json=make.attack()) for _ in range(6))
    )
    assert [a.status for a in answers] == [200] * 6
    assert most == encounters.PREVIEW_THREADS
    assert threading.get_ident() not in loop_threads
    # Meanwhile the event loop answered: a read while previews queue is not held up behind them.
    slow_ones = [memory_client.post(path, json=make.attack()) for _ in range(4)]
    started = time.monotonic()
    pending = asyncio.gather(*slow_ones)
    await asyncio.sleep(0)
    view = await memory_client.get(f"/v1/encounters/{encounter}")
    assert view.status == 200
    assert time.monotonic() - started < 0.2
    assert [a.status for a in await pending] == [200] * 4


async def test_previews_do_not_spend_the_encounters_rate_of_changes(make_client: Any) -> None:
    """A preview changes nothing: a live panel asking on every keystroke must not use up the
    state changes the table's attacks need (docs/operations.md, Limits)."""
    client = await make_client(rate_limit_per_second=2)  # bursts of 4
    encounter = await new_encounter(client)
    odds_path = f"/v1/encounters/{encounter}/attacks/odds"
    statuses = [(await client.post(odds_path, json=make.attack())).status for _ in range(12)]
    assert statuses == [200] * 12
    attacks = f"/v1/encounters/{encounter}/attacks"
    assert (await client.post(attacks, json=make.attack())).status == 201


@pytest.mark.parametrize("store", ["redis", "cluster"])
async def test_a_replica_previews_on_the_state_another_replica_changed(
    make_client: Any, store: str
) -> None:
    """The second replica holds the encounter from before the first replica's burst: its
    preview of the next burst reads the store, recoil and all, as a read does."""
    on = {"redis": store == "redis", "cluster": store == "cluster"}
    first, second = [await make_client(**on) for _ in range(2)]
    encounter = await new_encounter(first)
    burst = make.attack(
        mode="BF",
        weapon=make.weapon(category="submachine_gun", modes=["SA", "BF"], ammo=30),
        seed=3,
    )
    odds_path = f"/v1/encounters/{encounter}/attacks/odds"
    unfired = await (await second.post(odds_path, json=burst)).json()
    fired = await first.post(f"/v1/encounters/{encounter}/attacks", json=burst)
    assert fired.status == 201, await fired.text()
    after = await (await second.post(odds_path, json=burst)).json()
    here = await (await first.post(odds_path, json=burst)).json()
    assert after == here
    # The recoil of the first burst costs the second dice: a lower chance to hit.
    assert after["targets"][0]["hit"] < unfired["targets"][0]["hit"]
